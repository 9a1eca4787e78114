// The analysis board: anyone plays both sides; every empty cell shows its
// perfect-play value where the solver reaches, the engine's estimate
// elsewhere. Its moves are a variation tree (tree.js): another move at an
// earlier point makes a branch and the main line stays. The tree is kept in
// the link (`tree=`, when it holds more than the position's own moves) and
// in localStorage, so a reload or a shared link brings it back.
import { $, message } from './dom.js';
import { S, freshState, setCurrent } from './state.js';
import { api } from './net.js';
import { draw, drawLonger, longerSaid } from './board.js';
import { showStart } from './start.js';
import { addPath, isJust, key, lineTree, mainFrom, nodeAt, read, write } from './tree.js';
import { drawReview, drawSummary, maybeReview, reviewOf } from './review.js';
import { exportText } from './record.js';
import { refreshHints } from './game.js';

// The link to a line of moves (`a.line` up to `ply`), as "Analyse this
// round" makes it.
// `review`: the link asks for the line's review at once, as for a round
// that ended other than on the board (a resignation, a flag, an agreement),
// whose last position does not say the round is over.
export function analysisUrl(a, ply, review = false) {
  const url = urlOf(a, a.line.slice(0, ply), null);
  return review ? url + '&review=1' : url;
}

function urlOf(a, path, tree) {
  const q = new URLSearchParams({ size: a.size, k: a.k, first: a.first });
  if (path.length) q.set('moves', pathKey(path));
  if (tree && !isJust(tree, path)) q.set('tree', write(tree));
  return '/analysis?' + q.toString();
}

export const pathKey = (path) => path.map(key).join(';');
export const parseMoves = (text) => (text || '').split(';').filter(Boolean).map((m) => m.split(',').map(Number));

const STORE_KEY = 'oxo.analysis';
function stored() {
  try { return JSON.parse(localStorage.getItem(STORE_KEY)) || null; } catch (e) { return null; }
}
function store(a) {
  const v = { size: a.size, k: a.k, first: a.first, tree: write(a.tree) };
  try { localStorage.setItem(STORE_KEY, JSON.stringify(v)); } catch (e) { /* no storage */ }
}

export async function openAnalysis() {
  const p = new URLSearchParams(location.search);
  const path = parseMoves(p.get('moves'));
  // A move that is not two numbers is reported as the link gives it (read
  // as numbers first, it would come back from the server mangled).
  const given = (p.get('moves') || '').split(';').filter(Boolean);
  // Each part whole digits: Number('') is 0, so `1,` would read as 1,0.
  const wrong = given.findIndex((m) => !/^\d+,\d+$/.test(m));
  if (wrong >= 0) {
    message(`move ${wrong + 1}: ${JSON.stringify(given[wrong])} is not ROW,COL (from 0)`);
    setCurrent(null);
    showStart();
    return;
  }
  const st = freshState(null);
  const a = {
    size: p.get('size') || '3x3', k: p.get('k') || '', first: p.get('first') || 'x',
    tree: null, path, shown: [], cache: new Map(), review: null, reviewing: false,
    reviewAsked: p.get('review') === '1',
  };
  if (!a.k) {
    // oxo_core::BoardSize::default_k: the shorter side, at most five.
    const [r, c] = a.size.split('x').map(Number);
    a.k = String(Math.min(r || 3, c || r || 3, 5));
  }
  // The tree: the link's, else the one this browser kept for this board
  // when it holds the position, else just the position's moves.
  if (p.has('tree')) {
    a.tree = read(p.get('tree'));
    if (!a.tree) message('The variations in this link could not be read; only its moves are shown.');
  } else {
    const kept = stored();
    if (kept && kept.size === a.size && String(kept.k) === a.k && kept.first === a.first) {
      const tree = read(kept.tree);
      if (tree && nodeAt(tree, path)) a.tree = tree;
    }
  }
  if (!a.tree) a.tree = lineTree(path);
  addPath(a.tree, path);
  st.analysis = a;
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
  $('review-line').hidden = false;
  $('status').textContent = 'Loading…';
  await analyse(st);
}

async function analyse(st) {
  const a = st.analysis;
  const path = a.path.slice();
  let d = a.cache.get(pathKey(path));
  if (!d) {
    // No offer of a longer look while the position loads: it would be the
    // last position's.
    drawLonger({ busy: !!a.looking });
    const res = await api('GET', '/api' + urlOf(a, path, null));
    if (S !== st) return;
    if (!res.ok) {
      message(res.data.error);
      if (!st.game) { setCurrent(null); showStart(); return; }
      // A move the rules refuse (a hand-made link): back where the board was.
      if (pathKey(a.path) === pathKey(path)) { a.path = a.shown; draw(); }
      return;
    }
    d = res.data;
    a.cache.set(pathKey(path), d);
  }
  if (pathKey(a.path) !== pathKey(path)) return; // moved on meanwhile
  st.game = {
    ...d, id: null, watch: null, version: d.moves.length, round: 1, first: a.first,
    opponent: 'analysis', seats: { x: true, o: true }, score: { x: 0, o: 0, draws: 0 },
    last: d.moves.length ? d.moves[d.moves.length - 1] : null,
  };
  st.shown = st.game.version;
  a.shown = path;
  history.replaceState(null, '', urlOf(a, path, a.tree));
  store(a);
  // Exact values: of every empty cell, or (not available) of those the
  // budget reached, beside the estimate.
  st.values = d.available || d.values.length ? new Map(d.values.map((v) => [v.row + ',' + v.col, v])) : null;
  st.estimate = d.estimate || null;
  st.reason = d.reason || '';
  setLonger(st, d);
  draw();
  maybeReview(st, d);
}

// What the "Look further" row says of the position shown (board.js draws
// it): offered where a longer look may value more moves (`d`, its
// answer), whether one runs for this position or another, and what the
// last look here found.
function setLonger(st, d) {
  const a = st.analysis;
  st.longer = {
    offer: !!(d && d.longer_helps),
    here: !!a.looking && a.looking === pathKey(a.path),
    busy: !!a.looking,
    said: (d && d.said) || '',
  };
}

// A longer look at the position shown, where the hints' budget left moves
// without a value: seconds of search on the server, one look at a time.
export async function lookLonger() {
  const st = S;
  const a = st && st.analysis;
  if (!a || a.looking) return;
  const path = a.path.slice();
  a.looking = pathKey(path);
  const before = a.cache.get(a.looking);
  setLonger(st, before);
  draw();
  const res = await api('GET', '/api' + urlOf(a, path, null) + '&longer=true');
  if (S !== st) return;
  a.looking = null;
  if (res.ok) {
    const d = res.data;
    const found = longerSaid(before ? before.values.length : 0, d.values.length, d.board, d.longer_helps);
    d.said = found.text;
    d.longer_helps = found.helps;
    a.cache.set(pathKey(path), d);
  } else {
    message(res.data.error);
  }
  // Shown if the board is still there; otherwise kept for when it is.
  if (res.ok && pathKey(a.path) === pathKey(path)) { analyse(st); return; }
  setLonger(st, a.cache.get(pathKey(a.path)));
  draw();
}

export function wire() {
  // The analysis board's position, or a game's hints.
  $('look-longer').addEventListener('click', () => {
    if (S && S.analysis) lookLonger();
    else if (S && S.game) refreshHints(true);
  });
}

// Go to the position `path` leads to, making it part of the tree.
export function analysisGo(path) {
  const a = S.analysis;
  addPath(a.tree, path);
  a.path = path;
  analyse(S);
}

export function analysisPlay(r, c) {
  analysisGo(S.analysis.path.concat([[r, c]]));
}

// Step along the tree: −Infinity to the start, −1 back a move, +1 on along
// the line from here (its first branch), Infinity to that line's end.
export function analysisStep(delta) {
  const a = S.analysis;
  if (delta < 0) {
    analysisGo(a.path.slice(0, Math.max(0, a.path.length + Math.max(delta, -a.path.length))));
    return;
  }
  const ahead = mainFrom(nodeAt(a.tree, a.path) || a.tree);
  if (!ahead.length) return;
  analysisGo(a.path.concat(delta === Infinity ? ahead : ahead.slice(0, delta)));
}

// Back to the main line, as deep as the position shown (or to its end).
export function toMainLine() {
  const a = S.analysis;
  const main = mainFrom(a.tree);
  analysisGo(main.slice(0, Math.min(main.length, a.path.length)));
}

const other = (mark) => (mark === 'x' ? 'o' : 'x');

// The move list: the main line, each branch in parentheses after the move
// it replaces; each move coloured by its value (the review's where it has
// one) and the one shown marked current.
export function drawAnalysisRecord(g) {
  const a = S.analysis;
  const current = pathKey(a.path);
  const review = reviewOf(a);
  const button = (m, ply, mark, path, main) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.path = pathKey(path);
    if (main) b.dataset.ply = ply;
    b.textContent = `${ply}. ${mark.toUpperCase()} ${m[0] + 1},${m[1] + 1}`;
    if (b.dataset.path === current) b.setAttribute('aria-current', 'step');
    const reviewed = main && review && review[ply - 1];
    if (reviewed) {
      drawReview(b, reviewed);
    } else {
      const before = a.cache.get(pathKey(path.slice(0, -1)));
      const v = before && before.values.find((x) => x.row === m[0] && x.col === m[1]);
      if (v) { b.classList.add('v-' + v.value); b.title = v.plies === undefined ? v.value : `${v.value} in ${v.plies}`; }
    }
    return b;
  };
  // A branch: its first move, then on along it, sub-branches nested.
  const branch = (parentPath, n, ply, mark) => {
    const span = document.createElement('span');
    span.className = 'variation';
    let path = parentPath.concat([n.m]);
    span.append(button(n.m, ply, mark, path, false));
    for (let at = n; at.kids.length;) {
      const [main, ...others] = at.kids;
      ply += 1;
      mark = other(mark);
      for (const o of others) span.append(branch(path, o, ply, mark));
      path = path.concat([main.m]);
      span.append(button(main.m, ply, mark, path, false));
      at = main;
    }
    return span;
  };
  const items = [];
  let at = a.tree;
  let path = [];
  let mark = a.first;
  for (let ply = 1; at.kids.length; ply++) {
    const [main, ...others] = at.kids;
    const li = document.createElement('li');
    li.append(button(main.m, ply, mark, path.concat([main.m]), true));
    for (const o of others) li.append(branch(path, o, ply, mark));
    items.push(li);
    path = path.concat([main.m]);
    mark = other(mark);
    at = main;
  }
  $('move-list').replaceChildren(...items);
  const onMain = pathKey(mainFrom(a.tree).slice(0, a.path.length)) === current;
  $('to-main').hidden = onMain;
  const node = nodeAt(a.tree, a.path);
  $('step-first').disabled = $('step-back').disabled = a.path.length === 0;
  $('step-forward').disabled = $('step-last').disabled = !node || !node.kids.length;
  $('review-line').disabled = a.reviewing || !mainFrom(a.tree).length;
  const text = exportText(1, { moves: a.path, first: a.first, live: true }, g);
  const extra = isJust(a.tree, a.path) ? '' : `\nvariations (rows and columns from 0, branches in parentheses): ${write(a.tree)}`;
  $('record-text').value = text + extra;
  drawSummary(a);
}
