// The review of the analysis board's main line: every move valued at once
// by the server (exact where the solver reaches, the engine elsewhere), the
// move list coloured and the moves that gave something away marked. It
// comes by itself when the main line ends a finished round, and on asking
// ("Review moves") for any line.
import { $, message, up } from './dom.js';
import { S } from './state.js';
import { api } from './net.js';
import { draw } from './board.js';
import { mainFrom } from './tree.js';
import { pathKey, toMainLine } from './analysis.js';
import { signed } from './estimate.js';

// The review's entries (one a move, from the first) when it is of the
// main line as it stands (or of its start), else null.
export function reviewOf(a) {
  if (!a.review) return null;
  const main = pathKey(mainFrom(a.tree));
  const key = a.review.key;
  return main === key || main.startsWith(key + ';') ? a.review.data.review : null;
}

// Review the main line by itself once the position shown ends it with the
// round over.
export function maybeReview(st, d) {
  const a = st.analysis;
  const main = mainFrom(a.tree);
  // A finished line is reviewed at once, and so is one the link asks for.
  if ((d.status === 'playing' && !a.reviewAsked) || !main.length || pathKey(main) !== pathKey(a.path)) return;
  if (a.review && a.review.key === pathKey(main)) return;
  review(st);
}

export async function review(st) {
  const a = st.analysis;
  const main = mainFrom(a.tree);
  if (!main.length || a.reviewing) return;
  a.reviewing = true;
  const key = pathKey(main);
  $('review-summary').hidden = false;
  $('review-summary').textContent = `Reviewing ${main.length} moves…`;
  draw();
  const q = new URLSearchParams({ size: a.size, k: a.k, first: a.first, moves: key });
  const res = await api('GET', '/api/review?' + q.toString());
  a.reviewing = false;
  if (S !== st) return;
  if (!res.ok) {
    $('review-summary').hidden = true;
    message('review: ' + res.data.error);
    draw();
    return;
  }
  a.review = { key, data: res.data };
  draw();
}

function mistakeWords(m) {
  if (m.gave_away) return `gave away a ${m.gave_away}`;
  return `dropped ${m.drop.toFixed(2)}`;
}

// The mark beside a reviewed move, so that its colour is not the only
// sign: the exact value's letter, as the board's hints write it, or the
// estimate's sign.
const TAGS = { win: 'W', draw: 'D', loss: 'L', good: '+', even: '=', bad: '−' };

// Colour move button `b` by its review entry `m`, tag it (in words for a
// screen reader) and mark a mistake.
export function drawReview(b, m) {
  let kind;
  let words;
  if (m.exact) {
    kind = m.value;
    words = `${m.value}, exact`;
    b.classList.add('v-' + m.value);
    b.title = `${m.value} (exact; the best move led to a ${m.best_value})`;
  } else {
    const s = m.played_score;
    kind = s >= 0.1 ? 'good' : s <= -0.1 ? 'bad' : 'even';
    words = `${kind} for ${up(m.player)}, estimated`;
    b.classList.add('e-' + kind);
    b.title = `score ${signed(s)} for ${up(m.player)}, best ${signed(m.best_score)} (estimate)`;
  }
  const tag = document.createElement('span');
  tag.className = 'v-tag';
  tag.setAttribute('aria-hidden', 'true');
  tag.textContent = TAGS[kind];
  const said = document.createElement('span');
  said.className = 'sr-only';
  said.textContent = ` (${words})`;
  b.append(tag, said);
  if (m.mistake) {
    b.classList.add('mistake');
    const flag = document.createElement('span');
    flag.className = 'flag';
    flag.textContent = m.gave_away ? '??' : '?';
    b.append(flag);
    b.title += ` — ${mistakeWords(m)}; best ${m.best[0] + 1},${m.best[1] + 1}`;
  }
}

// The summary above the move list: what kind of review, and its mistakes.
export function drawSummary(a) {
  const el = $('review-summary');
  const entries = reviewOf(a);
  if (!entries) { if (!a.reviewing) el.hidden = true; return; }
  const exact = entries.every((m) => m.exact);
  const kind = exact ? 'exact (perfect play)' : entries.some((m) => m.exact)
    ? `exact where the solver reaches, else the engine's estimate (a drop over ${a.review.data.margin} is a mistake)`
    : `the engine's estimate (a drop over ${a.review.data.margin} is a mistake)`;
  const mistakes = entries.filter((m) => m.mistake);
  const listed = mistakes.slice(0, 6).map((m) =>
    `${m.ply}. ${up(m.player)} ${m.row + 1},${m.col + 1} ${mistakeWords(m)}${m.exact ? '' : ' (estimate)'}`);
  const more = mistakes.length > 6 ? ` and ${mistakes.length - 6} more` : '';
  el.hidden = false;
  el.textContent = `Review, ${kind}: ` + (mistakes.length
    ? `${mistakes.length} mistake${mistakes.length > 1 ? 's' : ''} — ${listed.join('; ')}${more}.`
    : 'no move gave anything away.');
}

export function wire() {
  $('review-line').addEventListener('click', () => { if (S && S.analysis) review(S); });
  $('to-main').addEventListener('click', () => { if (S && S.analysis) toMainLine(); });
}
