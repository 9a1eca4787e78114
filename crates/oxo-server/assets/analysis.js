// The analysis board: anyone plays both sides; every empty cell shows its
// perfect-play value.
import { $, message } from './dom.js';
import { S, freshState, setCurrent } from './state.js';
import { api } from './net.js';
import { draw } from './board.js';
import { showStart } from './start.js';

export function analysisUrl(a, ply) {
  const q = new URLSearchParams({ size: a.size, k: a.k, first: a.first });
  const moves = a.line.slice(0, ply).map(([r, c]) => r + ',' + c).join(';');
  if (moves) q.set('moves', moves);
  return '/analysis?' + q.toString();
}

export async function openAnalysis() {
  const p = new URLSearchParams(location.search);
  const line = (p.get('moves') || '').split(';').filter(Boolean).map((m) => m.split(',').map(Number));
  const st = freshState(null);
  st.analysis = {
    size: p.get('size') || '3x3', k: p.get('k') || '', first: p.get('first') || 'x',
    line, ply: line.length, cache: new Map(),
  };
  if (!st.analysis.k) {
    const [r, c] = st.analysis.size.split('x').map(Number);
    st.analysis.k = String(Math.min(r || 3, c || r || 3, 5));
  }
  st.closed = true;
  setCurrent(st);
  $('start-view').hidden = true;
  $('missing-view').hidden = true;
  $('game-view').hidden = false;
  $('board').replaceChildren();
  $('role').textContent = 'Analysis board';
  $('role').className = '';
  $('connection').hidden = true;
  $('presence').hidden = true;
  $('meta').hidden = true;
  $('invite').hidden = true;
  $('watch-line').hidden = true;
  $('hints').closest('label').hidden = true;
  $('legend').hidden = false;
  $('status').textContent = 'Loading…';
  await analyse(st);
}

async function analyse(st) {
  const a = st.analysis;
  const url = analysisUrl(a, a.ply);
  history.replaceState(null, '', url);
  const res = await api('GET', '/api' + url);
  if (S !== st) return;
  if (!res.ok) {
    message(res.data.error);
    if (!st.game) { setCurrent(null); showStart(); }
    return;
  }
  const d = res.data;
  const values = d.available ? new Map(d.values.map((v) => [v.row + ',' + v.col, v])) : null;
  a.cache.set(a.ply, values);
  if (!d.available && d.reason) message(d.reason, 'info', 8000);
  st.game = {
    ...d, id: null, watch: null, version: d.moves.length, round: 1, first: a.first,
    opponent: 'analysis', seats: { x: true, o: true }, score: { x: 0, o: 0, draws: 0 },
    last: d.moves.length ? d.moves[d.moves.length - 1] : null,
  };
  st.shown = st.game.version;
  st.values = values;
  draw();
}

export function analysisPlay(r, c) {
  const a = S.analysis;
  a.line = a.line.slice(0, a.ply).concat([[r, c]]);
  a.ply = a.line.length;
  analyse(S);
}

export function analysisStep(ply) {
  const a = S.analysis;
  a.ply = Math.max(0, Math.min(a.line.length, ply));
  analyse(S);
}
