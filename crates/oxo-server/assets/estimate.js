// The engine's estimate where the solver does not reach (the analysis
// board and hints): its best moves marked on the board, a gauge, the side
// it favours and its best line, all labelled as an estimate; and the note
// that says why the values are not exact. (See "Estimates and reviews" in
// the API reference.)
import { $, up } from './dom.js';

// A score for X (−1 to 1) as the side to move `next` reads it, signed.
export function forMover(score, next) { return next === 'x' ? score : -score; }

export function signed(n) { return (n > 0 ? '+' : n < 0 ? '−' : '±') + Math.abs(n).toFixed(2); }

function forcedWords(f, next) {
  return f.winner === next ? `wins in ${f.plies}` : `loses in ${f.plies}`;
}

// The best moves of `estimate`, for the board: key "r,c" → what a cell shows.
export function estimateMarks(estimate, next) {
  const marks = new Map();
  if (!estimate) return marks;
  estimate.moves.forEach((m, i) => {
    const score = forMover(m.score, next);
    const words = m.forced ? forcedWords(m.forced, next) : `score ${signed(score)}`;
    marks.set(m.row + ',' + m.col, {
      cls: i === 0 ? 'est-best' : 'est',
      label: m.forced ? (m.forced.winner === next ? 'W' : 'L') + m.forced.plies : String(i + 1),
      words: `engine's choice ${i + 1}, ${words} (estimate)`,
    });
  });
  return marks;
}

// What the gauge says of `estimate`, in words.
export function verdict(estimate) {
  if (estimate.forced) return `${up(estimate.forced.winner)} wins in ${estimate.forced.plies} (as far as the engine sees)`;
  if (!estimate.better) return `about even (${signed(estimate.score)} for X)`;
  return `${up(estimate.better)} is better (${signed(estimate.score)} for X)`;
}

// Show `estimate` (null: hide the panel) for a position with `next` to move.
export function drawEstimate(estimate, next) {
  const panel = $('estimate');
  panel.hidden = !estimate;
  $('legend-estimate').hidden = !estimate;
  if (!estimate) return;
  // The bar is X's share: 50% even, 100% X wins.
  $('gauge-x').style.width = Math.round((estimate.score + 1) * 50) + '%';
  $('gauge').setAttribute('aria-valuenow', estimate.score);
  $('gauge-text').textContent = 'Estimate: ' + verdict(estimate);
  const rc = ([r, c]) => `${r + 1},${c + 1}`;
  $('best-line').textContent = estimate.line.length
    ? `Best line: ${estimate.line.map(rc).join(' ')}` : '';
  $('best-moves').textContent = 'Best moves: ' + estimate.moves.map((m, i) =>
    `${i + 1}. ${m.row + 1},${m.col + 1} ${m.forced ? forcedWords(m.forced, next) : signed(forMover(m.score, next))}`,
  ).join(' · ');
  $('estimate-depth').textContent =
    `alphabeta, ${estimate.nodes.toLocaleString('en')} positions, depth ${estimate.depth}`;
}

// The lasting note under the board (empty: none).
export function note(text) {
  const el = $('analysis-note');
  if (el.textContent !== text) el.textContent = text;
  el.hidden = !text;
}
