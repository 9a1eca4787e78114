// Ending a round early: resign (asked twice), abort, draw offers,
// takebacks, and a claim when the opponent has left on their move, with
// its countdown; and the words every screen uses for how a round ended.
import { $, enc, gameFocus, message, rescueFocus, up } from './dom.js';
import { S } from './state.js';
import { OVERTAKEN, api, newKey, overtaken } from './net.js';
import { render } from './game.js';

const other = (seat) => (seat === 'x' ? 'o' : 'x');

// Who ran out of time in a round that ended on time: time runs out on
// one's own move, so the side to move after the round's last move.
export function outOfTime(first, moves) {
  return moves.length % 2 === 0 ? first : other(first);
}

// How a round ended, in words after its result: "O resigned", "by
// agreement", …; '' for a line or a full board (the board shows those).
export function reasonText(reason, winner) {
  const loser = winner ? up(other(winner)) : 'a player';
  switch (reason) {
    case 'resign': return `${loser} resigned`;
    case 'time': return `${loser} ran out of time`;
    case 'abandoned': return `${loser} left the game`;
    case 'agreement': return 'by agreement';
    default: return '';
  }
}

// ---- presence: since when the opponent has been gone, for the claim ----
export function notePresence(p) {
  const st = S;
  if (!st) return;
  const now = performance.now();
  const gone = p.gone_ms || {};
  st.gone = {
    x: p.x || typeof gone.x !== 'number' ? null : now - gone.x,
    o: p.o || typeof gone.o !== 'number' ? null : now - gone.o,
  };
  st.claimAfter = typeof p.claim_after_ms === 'number' ? p.claim_after_ms : 30000;
  if (st.game) drawActions();
}

// The moves `seat` has made in the round.
function movesBy(g, seat) {
  const n = (g.moves || []).length;
  const first = g.first || 'x';
  let count = 0;
  for (let ply = 0; ply < n; ply++) if ((ply % 2 === 0 ? first : other(first)) === seat) count++;
  return count;
}

// Milliseconds until this seat may claim the round (0: now), or null when
// there is nothing to claim: the opponent is here, it is not their move,
// the opponent is the computer, or the game is one of correspondence
// (whose players may be away for days between moves: the clock decides).
function claimIn(g) {
  const st = S;
  if (g.opponent !== 'human' || !st.gone || g.next !== other(st.seat)) return null;
  if (g.clock && g.clock.days) return null;
  const since = st.gone[other(st.seat)];
  if (since === null || since === undefined) return null;
  // Gone on their move: from when they left or when it became their
  // move, whichever is later, as the server counts it.
  const from = Math.max(since, typeof st.turnAt === 'number' ? st.turnAt : -Infinity);
  return Math.max(0, st.claimAfter - (performance.now() - from));
}

// A button's label, shown state and action, set only when they change.
function setButton(id, shown, label, disabled = false) {
  const b = $(id);
  b.hidden = !shown;
  if (!shown) return;
  if (b.textContent !== label) b.textContent = label;
  b.disabled = disabled;
}

// The buttons under the board for the game as it stands; none for
// spectators, a finished round, the analysis board or a round under review.
export function drawActions() {
  const st = S;
  const g = st && st.game;
  const on = !!(g && st.seat && !st.analysis && !(g.review) && g.status === 'playing');
  $('actions').hidden = !on;
  clearTimeout(st && st.claimTimer);
  if (!on) { if (st) disarmResign(st); return; }
  const me = st.seat;
  const offers = g.offers || {};
  const abortable = (g.moves || []).length < 2;
  // A takeback back to Abort's moves hides Resign: it is not left armed.
  if (abortable && st.resignArmed) disarmResign(st);
  setButton('act-abort', abortable, 'Abort');
  // A clock of minutes: either player may give the other 15 s (lichess's
  // courtesy); correspondence has days a move.
  setButton('act-moretime', !!(g.clock && !g.clock.days), '+15 s');
  setButton('act-resign', !abortable, st.resignArmed ? 'Confirm: resign' : 'Resign');
  $('act-resign').classList.toggle('armed', !!st.resignArmed);
  for (const [what, noun, offerLabel] of [['draw', 'draw', 'Offer draw'], ['takeback', 'takeback', 'Takeback']]) {
    const pending = offers[what];
    const mine = pending === me;
    const theirs = pending && !mine;
    // A draw, like a resignation, only once both sides have moved (before,
    // the server refuses it: Abort is the way out); one's own offer can
    // always be withdrawn.
    const possible = what === 'draw' ? mine || !abortable : movesBy(g, theirs ? other(me) : me) > 0;
    // An offer withdrawn or declined is made again only after one's next
    // move (the server refuses it before): shown, but off until then.
    const spent = !pending && ((offers.made || {})[what] || []).includes(me);
    setButton(`act-${what}`, possible, mine ? `Withdraw ${noun} offer` : theirs ? `Accept ${noun}` : offerLabel, spent);
    $(`act-${what}`).title = spent ? `You can ${what === 'draw' ? 'offer a draw' : 'ask for a takeback'} again after your next move` : '';
    setButton(`act-${what}-decline`, !!theirs, `Decline ${noun}`);
  }
  const note = [];
  if (offers.draw && offers.draw !== me) note.push(`${up(offers.draw)} offers a draw`);
  if (offers.takeback && offers.takeback !== me) note.push(`${up(offers.takeback)} asks to take back a move`);
  if (offers.draw === me) note.push('You offered a draw');
  if (offers.takeback === me) note.push('You asked to take back a move');
  // Before both sides have moved a claim would only abort the round, which
  // the Abort button does.
  const wait = abortable ? null : claimIn(g);
  // The seconds to a claim tick on screen but are not read out each second:
  // the note (a live region) says once that a claim is coming, and again
  // when it can be made.
  let ticking = '';
  if (wait !== null) {
    const secs = Math.ceil(wait / 1000);
    note.push(wait > 0 ? 'Your opponent left: you can claim the win soon' : 'Your opponent left: you can claim the win');
    if (wait > 0) ticking = ` (in ${secs} s)`;
    setButton('act-claim', true, wait > 0 ? `Claim victory (${secs} s)` : 'Claim victory', wait > 0);
    if (wait > 0) st.claimTimer = setTimeout(() => { if (S === st) drawActions(); }, Math.min(1000, wait % 1000 || 1000));
  } else {
    setButton('act-claim', false, '');
  }
  const text = note.join(' · ');
  const el = $('offer-note');
  if (el.dataset.note !== text) {
    el.dataset.note = text;
    const seconds = document.createElement('span');
    seconds.setAttribute('aria-hidden', 'true');
    if (text) el.replaceChildren(text, seconds);
    else el.replaceChildren();
  }
  const seconds = el.lastElementChild;
  if (seconds && seconds.textContent !== ticking) seconds.textContent = ticking;
  rescueFocus(...gameFocus());
}

function disarmResign(st) {
  st.resignArmed = false;
  document.removeEventListener('pointerdown', resignElsewhere, true);
  document.removeEventListener('keydown', resignEscape, true);
  $('act-resign').removeEventListener('blur', standDown);
}

// An armed Resign stands down when the player does anything else: presses
// elsewhere, presses Escape, or moves the focus away. No timer: a player who
// takes longer to find the button again (a screen reader, a switch) is
// not hurried (WCAG 2.2.1).
function standDown() {
  const armed = !!(S && S.resignArmed);
  disarmResign(S || {});
  if (armed) drawActions();
}
function resignElsewhere(e) {
  if (!$('act-resign').contains(e.target)) standDown();
}
function resignEscape(e) {
  if (e.key === 'Escape') standDown();
}

// `method` on the game's `what` route with the seat's token; the GAME that
// comes back is shown, a refusal said. A request the game moved past (the
// opponent acted in the same moment) is said as such; and a draw offered
// as the opponent offered one, on the same position, is sent again as its
// acceptance (both want the draw, as on lichess). Not after a move: the
// player has not seen that position.
async function send(method, what, again = true) {
  const st = S;
  const g = st && st.game;
  if (!g || !st.token || st.acting) return;
  st.acting = true;
  const key = method === 'POST' ? newKey() : undefined;
  const res = await api(method, `/api/games/${enc(st.id)}/${what}`, { version: g.version }, st.token, key);
  st.acting = false;
  if (S !== st) return;
  const now = res.data.game;
  if (now) render(now);
  const late = overtaken(res, g.version);
  const samePosition = late && now.round === g.round
    && (now.moves || []).length === (g.moves || []).length;
  if (samePosition && again && method === 'POST' && what === 'draw' && now.status === 'playing'
      && now.offers && now.offers.draw === other(st.seat)) {
    await send(method, what, false);
    return;
  }
  if (late) message(OVERTAKEN);
  else if (!res.ok) message(res.data.error);
  drawActions();
}

// Resigning asks twice: the first press arms the button until the player
// does something else (standDown).
function resign() {
  const st = S;
  if (!st) return;
  if (!st.resignArmed) {
    st.resignArmed = true;
    document.addEventListener('pointerdown', resignElsewhere, true);
    document.addEventListener('keydown', resignEscape, true);
    $('act-resign').addEventListener('blur', standDown);
    drawActions();
    return;
  }
  disarmResign(st);
  send('POST', 'resign');
}

// An offer's button: withdraws one's own offer, else offers or accepts.
function offer(what) {
  const g = S && S.game;
  if (!g) return;
  const offers = g.offers || {};
  send(offers[what] === S.seat ? 'DELETE' : 'POST', what);
}

export function wire() {
  $('act-abort').addEventListener('click', () => send('POST', 'abort'));
  $('act-resign').addEventListener('click', resign);
  $('act-draw').addEventListener('click', () => offer('draw'));
  $('act-draw-decline').addEventListener('click', () => send('DELETE', 'draw'));
  $('act-takeback').addEventListener('click', () => offer('takeback'));
  $('act-takeback-decline').addEventListener('click', () => send('DELETE', 'takeback'));
  $('act-claim').addEventListener('click', () => send('POST', 'claim'));
  $('act-moretime').addEventListener('click', () => send('POST', 'moretime'));
}
