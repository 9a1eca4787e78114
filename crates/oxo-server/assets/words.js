// Difficulty in plain words: what playing each computer player is like on
// a board, as a level (Easy, Medium, Strong, the same the server names the
// computer by) and a few words; the algorithm's name goes in small print.

// A board small enough (at most 16 cells) that `rules` is a fair middle
// level; on bigger boards it is the easy one (the server's rule too).
const SMALL_CELLS = 16;

// On this board perfect play by both sides is a draw, so a perfect player
// never loses: k spans the board's longest side (at least 3), and the
// second player can block every line the first one starts.
function drawn(rows, cols, k) {
  return k >= 3 && k >= Math.max(rows, cols);
}

// `{ level, words }` for `strategy` on a `rows`×`cols` board with `k` in a
// row; `level` is '' for a strategy this page does not know.
export function difficulty(strategy, rows, cols, k) {
  switch (strategy) {
    case 'random': return { level: 'Easy', words: 'plays at random' };
    case 'rules': return { level: rows * cols <= SMALL_CELLS ? 'Medium' : 'Easy', words: 'wins and blocks' };
    case 'learned': return { level: 'Medium', words: 'self-taught' };
    case 'alphabeta': return { level: 'Strong', words: 'looks ahead' };
    case 'perfect': return { level: 'Strong', words: drawn(rows, cols, k) ? 'never loses' : 'plays perfectly' };
    default: return { level: '', words: '' };
  }
}

// "Strong — never loses", or the strategy's name when it has no words.
export function levelText(strategy, rows, cols, k) {
  const d = difficulty(strategy, rows, cols, k);
  return d.level ? `${d.level} — ${d.words}` : strategy;
}
