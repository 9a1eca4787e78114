// The move list: any round, any move, replayed on the board; and the
// round's export.
import { $, enc, message, up } from './dom.js';
import { S } from './state.js';
import { api } from './net.js';
import { draw } from './board.js';
import { analysisGo, analysisStep, drawAnalysisRecord, parseMoves } from './analysis.js';
import { outOfTime, reasonText } from './endings.js';
import { controlText } from './clock.js';

function roundMoves(n) {
  const g = S.game;
  if (n === g.round) return { moves: g.moves || [], first: g.first || 'x', live: true };
  const r = S.record && S.record.rounds[n - 1];
  return r ? { moves: r.moves, first: r.first, result: r.result, reason: r.reason, line: r.line, live: false } : null;
}

// The round the move list shows (an earlier one picked, or the one being
// played) when it is over: its moves and who started; else null.
export function finishedRoundShown() {
  const g = S.game;
  const r = roundMoves(S.view ? S.view.round : g.round);
  if (!r || (r.live && !['won', 'draw', 'aborted'].includes(g.status))) return null;
  return r;
}

// `moves` played in turn from `first`, as the board's notation (X.O/…).
function boardAfter(rows, cols, first, moves) {
  const cells = Array.from({ length: rows }, () => Array(cols).fill('.'));
  let mark = first;
  for (const [row, col] of moves) {
    cells[row][col] = up(mark);
    mark = mark === 'x' ? 'o' : 'x';
  }
  return cells.map((row) => row.join('')).join('/');
}

// `moves` as the move list numbers them: "3. X 2,1" (rows and columns
// from 1, as the status line counts them).
function moveNames(first, moves) {
  let mark = first;
  return moves.map(([row, col], i) => {
    const name = `${i + 1}. ${up(mark)} ${row + 1},${col + 1}`;
    mark = mark === 'x' ? 'o' : 'x';
    return name;
  });
}

// The move list's entries, the one at `ply` marked current; `decorate`
// may add to each button (its index, from 0).
function fillMoveList(first, moves, ply, decorate) {
  $('move-list').replaceChildren(...moveNames(first, moves).map((name, i) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.ply = i + 1;
    b.textContent = name;
    if (i + 1 === ply) b.setAttribute('aria-current', 'step');
    if (decorate) decorate(b, i);
    li.append(b);
    return li;
  }));
}

// The GAME the board shows: the game itself, or a position of the move
// list rebuilt from its moves.
export function shownGame() {
  const g = S.game;
  if (!S.view) return g;
  const r = roundMoves(S.view.round);
  if (!r) { S.view = null; return g; }
  const ply = Math.min(S.view.ply, r.moves.length);
  const end = ply === r.moves.length;
  const line = end ? (r.live ? g.line : r.line) : null;
  return {
    ...g, board: boardAfter(g.rows, g.cols, r.first, r.moves.slice(0, ply)), status: 'review',
    last: ply ? r.moves[ply - 1] : null, line, review: { round: S.view.round, ply, of: r.moves.length },
  };
}

export function show(view) {
  const g = S.game;
  // The end of the round being played is the game itself.
  if (view && view.round === g.round && view.ply >= (g.moves || []).length) view = null;
  S.view = view;
  draw();
}

export function step(delta) {
  if (S.analysis) { analysisStep(delta); return; }
  const g = S.game;
  const round = S.view ? S.view.round : g.round;
  const r = roundMoves(round);
  if (!r) return;
  const ply = S.view ? S.view.ply : r.moves.length;
  show({ round, ply: Math.max(0, Math.min(r.moves.length, ply + delta)) });
}

async function loadRecord() {
  const st = S;
  const res = await api('GET', `/api/games/${enc(st.id)}/record`);
  if (S !== st) return false;
  if (!res.ok) { message(res.data.error); return false; }
  st.record = res.data;
  return true;
}

export async function pickRound() {
  const n = +$('round-pick').value;
  const g = S.game;
  if (n !== g.round && !(S.record && S.record.rounds[n - 1])) {
    if (!(await loadRecord())) return;
  }
  const r = roundMoves(n);
  show(n === g.round ? null : { round: n, ply: r ? r.moves.length : 0 });
}

function resultText(r, g) {
  const result = r.live ? (g.status === 'won' ? g.winner : g.status === 'draw' ? 'draw' : g.status === 'aborted' ? 'aborted' : null) : r.result;
  const reason = r.live ? g.reason : r.reason;
  if (result === 'aborted') {
    return reason === 'nostart' ? `aborted (${up(outOfTime(r.first, r.moves))} did not make a first move in time)` : 'aborted';
  }
  if (result === 'draw' && reason === 'time') {
    const out = outOfTime(r.first, r.moves);
    const other = out === 'x' ? 'o' : 'x';
    return `a draw (${up(out)} ran out of time; ${up(other)} could not have won)`;
  }
  const why = reasonText(reason, result === 'draw' ? null : result);
  if (result === 'draw') return why ? `a draw (${why})` : 'a draw';
  return result ? `${up(result)} wins` + (why ? ` (${why})` : '') : 'being played';
}

export function exportText(round, r, g) {
  const lines = [
    `oxo ${g.rows}x${g.cols} k=${g.k}, round ${round}, ${up(r.first)} first: ${resultText(r, g)}`,
  ];
  // Who played and how, as a game's record names them (not on the
  // analysis board, which has no players).
  const players = g.players || {};
  const named = ['x', 'o'].filter((seat) => players[seat]).map((seat) => `${up(seat)} ${players[seat]}`);
  if (named.length) lines.push(`players: ${named.join(', ')}`);
  if (g.clock) lines.push(`time control: ${controlText(g.clock)}`);
  if (g.watch) lines.push(`game: ${location.origin}/g/${enc(g.watch)}`);
  lines.push(
    `position: ${boardAfter(g.rows, g.cols, r.first, r.moves)}`,
    `moves (row,column from 1): ${moveNames(r.first, r.moves).join('  ')}`,
  );
  if (g.rows === 15 && g.cols === 15) {
    // Gomocup's PSQ record: a header, then "x,y,time" a move (x the
    // column, y the row, from 1), then -1.
    lines.push('', 'Piskvorky 15x15, 11:11, 0');
    for (const [row, col] of r.moves) lines.push(`${col + 1},${row + 1},0`);
    lines.push('-1');
  }
  return lines.join('\n');
}

export function drawRecord() {
  const g = S.game;
  const pick = $('round-pick');
  pick.hidden = !!S.analysis;
  if (S.analysis) { drawAnalysisRecord(g); return; }
  $('review-line').hidden = true;
  $('to-main').hidden = true;
  $('review-summary').hidden = true;
  if (pick.options.length !== g.round) {
    pick.replaceChildren(...Array.from({ length: g.round }, (_, i) => {
      const o = document.createElement('option');
      o.value = i + 1;
      o.textContent = i + 1 === g.round ? `Round ${i + 1} (now)` : `Round ${i + 1}`;
      return o;
    }));
  }
  const round = S.view ? S.view.round : g.round;
  pick.value = round;
  const r = roundMoves(round) || { moves: [], first: g.first || 'x', live: true };
  const ply = S.view ? S.view.ply : r.moves.length;
  fillMoveList(r.first, r.moves, ply);
  $('step-first').disabled = $('step-back').disabled = ply === 0;
  $('step-forward').disabled = ply >= r.moves.length;
  $('step-last').disabled = !S.view;
  $('record-text').value = exportText(round, r, g);
}

export function wire() {
  $('step-first').addEventListener('click', () => step(-Infinity));
  $('step-back').addEventListener('click', () => step(-1));
  $('step-forward').addEventListener('click', () => step(1));
  $('step-last').addEventListener('click', () => {
    if (S && S.analysis) analysisStep(Infinity); else show(null);
  });
  $('round-pick').addEventListener('change', pickRound);
  $('move-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-ply], button[data-path]');
    if (!b || !S || !S.game) return;
    if (S.analysis) { analysisGo(parseMoves(b.dataset.path)); return; }
    show({ round: S.view ? S.view.round : S.game.round, ply: +b.dataset.ply });
  });
}
