// The game page: opening a game (and taking a seat from an invite), the
// GAMEs that arrive, rematch and hints.
import { $, enc, inform, message, up } from './dom.js';
import { S, freshState, seats, setCurrent } from './state.js';
import { OVERTAKEN, api, connect, join, overtaken, setConnection } from './net.js';
import { draw, longerSaid } from './board.js';
import { drawRematch, showPresence } from './status.js';
import { showPlayers, withName } from './name.js';
import { showClocks } from './clock.js';

export async function openGame(id) {
  const st = freshState(id);
  setCurrent(st);
  $('start-view').hidden = true;
  $('missing-view').hidden = true;
  $('game-view').hidden = false;
  $('legend').hidden = true;
  $('watch-line').hidden = false;
  $('connection').hidden = false;
  $('meta').hidden = false;
  $('board').replaceChildren();
  $('board').dataset.version = '';
  $('status').textContent = 'Loading…';
  $('hints').checked = hintsWanted();
  $('zoom').checked = false;
  $('board').classList.remove('zoomed');
  $('zoom-toggle').hidden = true;
  $('invite').hidden = true;
  $('rematch').hidden = true;
  $('rematch-decline').hidden = true;
  $('presence').hidden = true;
  $('left-note').hidden = true;
  $('longer-row').hidden = true;
  $('longer-note').textContent = '';
  $('details').textContent = '';
  for (const k of ['score-x', 'score-o', 'score-draws']) $(k).textContent = '0';
  $('round').textContent = '1';
  const base = location.origin + '/g/' + enc(id);
  // The watch link carries the room's read-only id, which arrives with the game.
  $('spectate-link').removeAttribute('href');
  $('spectate-link').textContent = '';
  setConnection(false);

  let held = seats.get(id);
  // The invite link is /g/ID#join=INVITE: the fragment never reaches a
  // server or its logs. (Games from before invites took /g/ID?join.)
  $('invite-link').value = held && held.invite ? base + '#join=' + held.invite : base + '?join';
  const invite = new URLSearchParams(location.hash.slice(1)).get('join');
  if (invite !== null || new URLSearchParams(location.search).has('join')) {
    let settled = true;
    if (!held) {
      const r = await join(`/api/games/${enc(id)}/seats/o`, withName(invite ? { invite } : {}));
      if (S !== st) return;
      if (r.ok && r.data.token) {
        held = { seat: r.data.seat || 'o', token: r.data.token };
        seats.set(id, held.seat, held.token);
      } else if (r.status === 409) {
        // Taken, or cancelled by its creator: the server says which.
        message((r.data.error || 'seat taken') + ' — watching', 'info', 8000);
      } else if (r.status === 404) {
        gone(st);
        return;
      } else {
        message(r.data.error);
        // Not refused, just not answered: the link stays, so a reload
        // tries again (with the same token).
        settled = [400, 403].includes(r.status);
      }
    }
    // Once joined or refused, a refresh must not join again.
    if (settled) history.replaceState(null, '', '/g/' + enc(id));
  }
  if (held) { st.seat = held.seat; st.token = held.token; }
  updateRole();

  const r = await api('GET', `/api/games/${enc(id)}`);
  if (S !== st) return;
  if (r.status === 404) { gone(st); return; }
  if (r.ok) render(r.data);
  connect();
}

// A link that leads to no game: a page that says so and leads home,
// nothing else.
export function gone(st) {
  st.closed = true;
  $('game-view').hidden = true;
  $('missing-view').hidden = false;
  document.title = 'oxo — no such game';
}

function updateRole() {
  $('role').textContent = S.seat ? `You are ${up(S.seat)}` : 'Watching';
  $('role').className = S.seat ? 'mark-' + S.seat : '';
}

// ---- rendering a GAME ----
export function render(g) {
  if (!S || !g || typeof g !== 'object' || typeof g.board !== 'string') return;
  if (g.id && g.id !== S.id) return;
  if (typeof g.version === 'number' && g.version < S.shown) return;
  const changed = g.version !== S.shown;
  if (S.game && g.round !== S.game.round) { S.view = null; S.record = null; }
  // When the move last changed while the page watched: the server counts a
  // claim's wait from then at the earliest (see claimIn in endings.js). Not
  // on the page's first GAME: the presence the server sends with it already
  // counts from the last move (a reload must not restart the countdown).
  const ply = (g.moves || []).length;
  if (!S.game) {
    S.turnAt = -Infinity;
  } else if (g.round !== S.game.round || ply !== (S.game.moves || []).length) {
    S.turnAt = performance.now();
  }
  // Said unless it would hide an error, or a move of this page's is on
  // its way (whose answer clears the messages).
  const given = S.game && !S.sent && !S.busy && timeGiven(S.game, g, S.seat);
  if (given) inform(`Your opponent gave you ${Math.round(given / 1000)} seconds`, 4000);
  S.game = g;
  S.shown = g.version;
  showPlayers(g);
  if (S.presence) showPresence(S.presence);
  // Fair play: between two people hints are offered only once the round
  // is over (the server withholds them while two people play); against the
  // computer always. Offered again, the switch is as the player left it.
  const offerHints = g.opponent !== 'human' || roundOver(g);
  const label = $('hints').closest('label');
  if (offerHints && label.hidden) $('hints').checked = hintsWanted();
  label.hidden = !offerHints;
  if (!offerHints && $('hints').checked) { $('hints').checked = false; S.hints = null; }
  if (changed) {
    if (S.hints && S.hints.version !== g.version) S.hints = null;
    refreshHints();
  }
  draw();
  showClocks(g);
}

// The time the opponent gave `seat` between GAMEs `was` and `now` (ms;
// 0 when none): on the same position, a clock that does not run grows by
// it, and a running one's deadline moves by it (any other change without a
// move leaves both as they were).
function timeGiven(was, now, seat) {
  const a = was.clock, b = now.clock;
  if (!seat || !a || !b || b.days || now.version <= was.version || now.round !== was.round
      || (now.moves || []).length !== (was.moves || []).length) return 0;
  const more = b.running === seat && a.running === seat
    ? (b.deadline || 0) - (a.deadline || 0)
    : b[`${seat}_ms`] - a[`${seat}_ms`];
  return more > 0 ? more : 0;
}

// Rematch: offers the next round, accepts the other's offer, or (`DELETE`,
// for one's own offer or with Decline) withdraws or declines an offer.
export async function rematch(method = 'POST') {
  const st = S;
  if (!st || !st.token) return;
  const round = st.game ? st.game.round : 0;
  const version = st.game ? st.game.version : undefined;
  const mine = !!st.game && st.game.rematch === st.seat;
  if (method === 'POST' && mine) method = 'DELETE';
  $('rematch').disabled = true;
  $('rematch-decline').disabled = true;
  const res = await api(method, `/api/games/${enc(st.id)}/rematch`, { version }, st.token);
  $('rematch-decline').disabled = false;
  drawRematch();
  if (S !== st) return;
  if (res.data.game) render(res.data.game);
  // Both players pressing Rematch at once: one press is the offer, the
  // other is refused with it (and can accept it): losing that race is fine.
  const moved = res.data.game && (res.data.game.round > round || res.data.game.rematch);
  if (!res.ok && !(method === 'POST' && moved)) message(overtaken(res, version) ? OVERTAKEN : res.data.error);
  draw();
}

// Hints stay on (or off) as the player last chose them, across reloads.
const HINTS_KEY = 'oxo.hints';
function hintsWanted() {
  try { return localStorage.getItem(HINTS_KEY) === 'on'; } catch (e) { return false; }
}

const roundOver = (g) => g.status === 'won' || g.status === 'draw' || g.status === 'aborted';

// The hints of the position shown; with `longer`, a longer look where they
// left moves without a value (one at a time).
export async function refreshHints(longer = false) {
  const st = S;
  const g = st && st.game;
  // During a round, or after one that ended with moves still to play (a
  // resignation, an agreement, time): the values of what was left.
  const open = g && (g.status === 'playing' || (roundOver(g) && !g.line && g.board.includes('.')));
  if (!open || !$('hints').checked || (longer && st.hintsLooking != null)) return;
  const before = longer && st.hints && st.hints.version === g.version && st.hints.map ? st.hints.map.size : 0;
  if (longer) { st.hintsLooking = g.version; draw(); }
  const res = await api('GET', `/api/games/${enc(st.id)}/hints${longer ? '?longer=true' : ''}`);
  if (S !== st) return;
  if (longer) st.hintsLooking = null;
  const fresh = st.game && $('hints').checked && res.ok && res.data.version === st.game.version;
  if (!fresh) {
    if (!res.ok && st.game && $('hints').checked) message('hints: ' + res.data.error);
    if (longer) draw();
    return; // or stale: a newer GAME is shown
  }
  // Exact values, or the engine's estimate where the solver does not
  // reach (beside the exact values of the moves it did reach, if any): the
  // board shows them as the analysis board does.
  const known = res.data.hints || [];
  const map = res.data.available || known.length ? new Map() : null;
  for (const h of known) map.set(h.row + ',' + h.col, h);
  st.hints = {
    version: res.data.version, map, estimate: res.data.estimate || null, reason: res.data.reason || '',
    longerHelps: !!res.data.longer_helps,
  };
  if (longer) {
    const found = longerSaid(before, known.length, st.game.board, res.data.longer_helps);
    st.hintsSaid = { version: res.data.version, text: found.text, helps: found.helps };
  }
  draw();
}

export function wire() {
  $('rematch').addEventListener('click', () => rematch());
  $('rematch-decline').addEventListener('click', () => rematch('DELETE'));
  $('hints').addEventListener('change', () => {
    try { localStorage.setItem(HINTS_KEY, $('hints').checked ? 'on' : 'off'); } catch (e) { /* no storage */ }
    if (!S || !S.game) return;
    if ($('hints').checked) refreshHints();
    else { S.hints = null; draw(); }
  });
}
