// The lines around the board: who is here, the status, the score, the
// details, and which of the game's links and buttons show.
import { $, enc, gameFocus, rescueFocus, up } from './dom.js';
import { S } from './state.js';
import { analysisUrl } from './analysis.js';
import { levelText } from './words.js';
import { drawActions, notePresence, outOfTime, reasonText } from './endings.js';
import { drawInvite } from './invite.js';
import { who } from './name.js';
import { onTime } from './clock.js';
import { finishedRoundShown } from './record.js';

// "Opponent connected / left" for players; who is here, for spectators.
// The computer is always there, so nothing is said of it.
export function showPresence(p) {
  const st = S;
  const g = st && st.game;
  if (!g) return;
  st.presence = p;
  notePresence(p);
  const el = $('presence');
  $('left-note').hidden = true;
  if (g.opponent !== 'human' && g.opponent !== undefined) { el.hidden = true; return; }
  let text;
  let away = false;
  if (st.seat) {
    const other = st.seat === 'x' ? 'o' : 'x';
    if (!g.seats || !g.seats[other]) { el.hidden = true; return; }
    away = !p[other];
    text = away ? 'Opponent left' : 'Opponent connected';
    // Never stranded: an opponent gone says so, with the way back.
    if (away) {
      const started = g.round > 1 || (g.moves || []).length > 0;
      $('left-text').textContent = started
        ? `${who(g, other)} has left the game. They may come back, or`
        : `${who(g, other)} left before the first move. Wait here in case they come back, or`;
      $('left-note').hidden = false;
    }
  } else {
    text = ['x', 'o'].map((s) => `${up(s)} ${p[s] ? 'here' : 'away'}`).join(' · ');
  }
  el.textContent = text;
  el.className = 'presence' + (away ? ' away' : '');
  el.hidden = false;
  drawRematch();
}

// The rematch buttons under a finished round. One's own offer can be
// withdrawn, the other's declined (as on lichess); the other's offer made
// before they left is not accepted while they are away (the next round
// would start against nobody): its button waits, off, for them. Not in a
// correspondence game, whose players are away between moves as a rule.
export function drawRematch() {
  const live = S && S.game;
  if (!live) return;
  const over = live.status === 'won' || live.status === 'draw' || live.status === 'aborted';
  $('rematch').hidden = !(over && S.seat);
  const offered = live.rematch;
  const label = !offered ? 'Rematch' : offered === S.seat ? 'Cancel rematch offer' : 'Accept rematch';
  if ($('rematch').textContent !== label) $('rematch').textContent = label;
  const correspondence = !!(live.clock && live.clock.days);
  const away = !!(offered && offered !== S.seat && !correspondence && S.presence && !S.presence[offered]);
  $('rematch').disabled = away;
  $('rematch').title = away ? 'Your opponent has left: their offer waits for them to come back' : '';
  $('rematch-decline').hidden = !(over && S.seat && offered && offered !== S.seat);
  rescueFocus(...gameFocus());
}

// While this page's own connection is down it cannot know who is here, so
// it says nothing rather than what was true before the outage; the socket
// sends everyone's presence at once when it is back.
export function forgetPresence() {
  const st = S;
  if (!st) return;
  st.presence = null;
  st.gone = null;
  $('presence').hidden = true;
  $('left-note').hidden = true;
  if (st.game) drawActions();
}

// "O played row 2, column 3 — " so that a screen reader hears the move
// (the player whose turn it is, and a spectator).
function lastMove(g) {
  if (!Array.isArray(g.last)) return '';
  const mark = g.board.split('/')[g.last[0]][g.last[1]];
  return `${up(mark)} played row ${g.last[0] + 1}, column ${g.last[1] + 1} — `;
}

// The status line in its parts (see putStatus): the game, and while a
// player looks back, the round and move shown.
function statusText(g) {
  if (S.analysis) {
    if (g.status === 'won') return [`${up(g.winner)} wins`, '', '', ''];
    if (g.status === 'draw') return ['Draw', '', '', ''];
    return [`${up(g.next)} to move — play either side`, '', '', ''];
  }
  if (g.review) {
    // The game goes on while a player looks back: whose turn it is, or
    // how the round ended, comes first, then the position shown.
    const { round, ply, of } = g.review;
    return [liveText(S.game), ` · showing round ${round}, `, `move ${ply} of ${of}`,
      ' — » goes back to the game'];
  }
  return [liveText(g), '', '', ''];
}

// The status line's parts, each a span written only when its text
// changes: the line is a live region, and what a screen reader says of a
// change is the part that changed. Stepping through a round says "move 5
// of 6", not the whole line again; a move played meanwhile says the game.
const STATUS_PARTS = ['status-now', 'status-where', 'status-move', 'status-back'];
function putStatus(parts) {
  const el = $('status');
  if (!STATUS_PARTS.every((id, i) => el.children[i] && el.children[i].id === id)) {
    el.replaceChildren(...STATUS_PARTS.map((id) => {
      const span = document.createElement('span');
      span.id = id;
      return span;
    }));
  }
  parts.forEach((text, i) => { if (el.children[i].textContent !== text) el.children[i].textContent = text; });
}

// The game as it stands, as the status line says it.
function liveText(g) {
  const me = S.seat;
  const computer = g.opponent && g.opponent !== 'human';
  switch (g.status) {
    case 'waiting':
      if (me !== 'x') return 'Waiting for O to join';
      return g.listed ? 'Waiting for an opponent from the lobby, or a friend with the invite link'
        : 'Waiting for a friend to join — send them the invite link';
    case 'playing':
      if (me && g.next === me) return lastMove(g) + `Your turn (${up(me)})`;
      if (computer && g.next === 'o') return 'Computer is thinking…';
      return me ? `Waiting for ${who(g, g.next)}…` : lastMove(g) + `${who(g, g.next)} to move`;
    case 'won': {
      // A flag reads "O wins on time"; the other endings name what the loser did.
      const why = g.reason === 'time' ? '' : reasonText(g.reason, g.winner);
      return `${who(g, g.winner)} wins` + onTime(g) + (why ? ` — ${why}` : '') +
        (me ? (me === g.winner ? ' — you win!' : ' — you lose') : '') + offerText(g, me);
    }
    case 'draw':
      return (g.reason === 'agreement' ? 'Draw by agreement' : 'Draw') + onTime(g) + offerText(g, me);
    case 'aborted':
      // Seat O still free: cancelled by its creator before anyone joined.
      if (g.opponent === 'human' && !(g.seats || {}).o) return 'Game cancelled before anyone joined';
      if (g.reason === 'nostart') {
        const late = outOfTime(g.first || 'x', g.moves || []);
        return `Round aborted — ${me === late ? 'you' : who(g, late)} did not make a first move in time` +
          offerText(g, me);
      }
      return 'Round aborted' + offerText(g, me);
    default:
      return String(g.status || '');
  }
}

// A rematch between two people is an offer the other accepts.
function offerText(g, me) {
  if (!g.rematch) return '';
  if (me === g.rematch) return ` · rematch offered, waiting for ${who(g, g.rematch === 'x' ? 'o' : 'x')}`;
  return ` · ${who(g, g.rematch)} offers a rematch`;
}

export function drawStatus(g) {
  const parts = statusText(g);
  putStatus(parts);
  const text = parts.join('');
  // A result shows as one even while the player looks back.
  const now = S.analysis ? g : S.game;
  $('status').className = (now.status === 'won' ? 'mark-' + now.winner : '') +
    (now.status === 'won' || now.status === 'draw' || now.status === 'aborted' ? ' result' : '') +
    (now.status === 'aborted' ? ' aborted' : '');
  document.title = text + ' — oxo';
  // The view's heading, for screen readers' lists of headings.
  const heading = `${S.analysis ? 'Analysis board' : 'Game'}: ${g.rows}×${g.cols}, ${g.k} in a row`;
  if ($('game-heading').textContent !== heading) $('game-heading').textContent = heading;
  const score = g.score || {};
  // Written only when changed: the line is a live region, and a screen
  // reader may read it again on every write.
  const put = (id, text) => { if ($(id).textContent !== String(text)) $(id).textContent = text; };
  put('score-x', score.x || 0);
  put('score-o', score.o || 0);
  put('score-draws', score.draws || 0);
  put('round', g.round || 1);
  const who = g.opponent === 'analysis' ? 'analysis' :
    g.opponent === 'human' ? 'two players' :
    `O is the computer: ${levelText(g.opponent, g.rows, g.cols, g.k)} (${g.opponent})`;
  $('details').textContent = `${g.rows}×${g.cols}, ${g.k} in a row · ${who} · ${up(g.first || 'x')} started`;
  const live = S.game;
  drawRematch();
  // The round shown, once it is finished (an earlier one picked in the
  // list, or the one just played), can be taken to the analysis board;
  // never one still being played: that would be help.
  const done = S.analysis ? null : finishedRoundShown();
  $('analyse-link').hidden = !done;
  if (done) {
    $('analyse-link').href = analysisUrl(
      { size: `${live.rows}x${live.cols}`, k: live.k, first: done.first, line: done.moves },
      done.moves.length,
      true,
    );
  }
  if (g.watch) {
    const watchUrl = location.origin + '/g/' + enc(g.watch);
    if ($('spectate-link').textContent !== watchUrl) {
      $('spectate-link').href = watchUrl;
      $('spectate-link').textContent = watchUrl;
    }
  }
  drawActions();
  const seatsTaken = g.seats || {};
  // Until O joins or the game is cancelled.
  $('invite').hidden = !(S.seat === 'x' && g.opponent === 'human' && !seatsTaken.o && g.status === 'waiting');
  drawInvite();
}
