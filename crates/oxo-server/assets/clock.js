// The clocks: the time control chosen on the start page, and the two clocks
// beside the board, counted down here from each GAME the server sends. The
// server keeps the time and rules a flag (or calls a round off when a first
// move does not come in time); the page only shows it, and asks for the game
// again when the running clock or the first move's countdown reaches zero,
// so the ruling shows at once.
import { $, enc, inform, up } from './dom.js';
import { S } from './state.js';
import { api } from './net.js';
import { render } from './game.js';
import { outOfTime } from './endings.js';

// ---- the start page: the time control (between people only) ----

// The form's choice as the fields of POST /api/games: "3+2" is minutes and
// seconds a move, "3d" days a move, "" no clock.
export function timeControl() {
  if ($('opponent').value !== 'human') return {};
  const v = $('time-control').value;
  const fischer = v.match(/^(\d+(?:\.\d+)?)\+(\d+)$/);
  if (fischer) return { clock: { minutes: Number(fischer[1]), increment: Number(fischer[2]) } };
  const days = v.match(/^(\d+)d$/);
  return days ? { days: Number(days[1]) } : {};
}

// Clocks are for two people: the choice hides against the computer.
function syncField() {
  $('time-field').hidden = $('opponent').value !== 'human';
}

// ---- the clocks beside the board ----

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// The clocks being counted: the GAME's clock, when it arrived (the page's
// own time, so the two machines' clocks never need to agree), the version
// it came with and the reads asked for since it reached zero.
let shown = null;
let timer = 0;

const pad = (n) => String(n).padStart(2, '0');

// 2:59, 1:02:03, 0:09.4 (tenths in the last ten seconds); for
// correspondence 3 days, 2 days 23 h, 1 day 4 h, 5 h 12 min (never more
// than is left: a fresh 3-day clock that has started reads 2 days 23 h).
export function formatLeft(ms, days) {
  const left = Math.max(0, ms);
  if (days && left >= HOUR) {
    const d = Math.floor(left / DAY);
    const h = Math.floor((left % DAY) / HOUR);
    if (d >= 1) return `${d} day${d === 1 ? '' : 's'}` + (h ? ` ${h} h` : '');
    const m = Math.floor((left % HOUR) / MINUTE);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  if (left >= HOUR) {
    const s = Math.floor(left / SECOND);
    return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  }
  if (left < 10 * SECOND) {
    const tenths = Math.floor(left / 100);
    return `0:${pad(Math.floor(tenths / 10))}.${tenths % 10}`;
  }
  const s = Math.floor(left / SECOND);
  return `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

// Below this a clock shows as low: a quarter of the time, at most 20 s (for
// correspondence, at most half a day).
function lowAt(c) {
  return Math.min(c.days ? DAY / 2 : 20 * SECOND, c.initial_ms / 4);
}

// The deadline of a correspondence move as the reader's own date and time.
function deadlineText(at) {
  return new Date(at).toLocaleString(undefined, {
    weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit',
  });
}

// Each seat's time left now, as counted from the GAME's arrival, and the
// time left for an awaited first move (null when none is).
function leftNow() {
  const c = shown.clock;
  const passed = performance.now() - shown.received;
  const left = { x: c.x_ms, o: c.o_ms, first: null };
  if (c.running) left[c.running] = Math.max(0, left[c.running] - passed);
  if (typeof c.first_move_ms === 'number') left.first = Math.max(0, c.first_move_ms - passed);
  return left;
}

// The seat whose first move is awaited: the seat to move of a round not yet
// past its second move.
function firstMover() {
  const g = S.game;
  return g && g.status === 'playing' ? g.next : null;
}

// The seat whose clock was last told low, with the round it was told in:
// a player is told once a round, through the toast (read out), when their
// own running clock turns low; the clocks' look alone says it to no one
// who cannot see it.
let toldLow = null;

function paint() {
  const c = shown.clock;
  const left = leftNow();
  for (const seat of ['x', 'o']) {
    const box = $('clock-' + seat);
    const running = c.running === seat;
    const low = left[seat] < lowAt(c);
    box.querySelector('.clock-time').textContent = formatLeft(left[seat], c.days);
    box.classList.toggle('running', running);
    box.classList.toggle('low', low);
    box.classList.toggle('out', left[seat] <= 0);
    // What the look says, in words for a screen reader.
    const state = [running ? 'running' : '', low && left[seat] > 0 ? 'low' : ''].filter(Boolean).join(', ');
    const said = box.querySelector('.clock-state');
    const words = state ? `, ${state}` : '';
    if (said && said.textContent !== words) said.textContent = words;
    const round = S.game && S.game.round;
    if (low && running && left[seat] > 0 && S.seat === seat && !c.days &&
        !(toldLow && toldLow.seat === seat && toldLow.round === round && toldLow.id === S.id) &&
        inform(`Your clock is low: ${formatLeft(left[seat], c.days)} left`, 4000)) {
      // (An error showing puts it off to a later paint.)
      toldLow = { seat, round, id: S.id };
    }
    const note = box.querySelector('.clock-note');
    const awaited = left.first !== null && firstMover() === seat;
    // lichess's countdown for a first move: the round is called off at zero.
    // Short enough for one line under a phone's clock; the title says it whole.
    const text = awaited ? `first move: ${Math.ceil(left.first / SECOND)} s`
      : c.days && running && c.deadline ? 'until ' + deadlineText(c.deadline) : '';
    if (note.textContent !== text) note.textContent = text;
    const title = awaited ? 'A first move within this time, or the round is called off' : '';
    if (note.title !== title) note.title = title;
    box.classList.toggle('awaited', awaited);
  }
  if ((c.running && left[c.running] <= 0) || left.first === 0) askForRuling();
}

// The running clock shows zero: read the game, which the server rules as it
// is read (and its sweep rules within a second anyway). At most three reads
// for one state of the game, a second or two apart, in case this machine's
// clock runs ahead of the server's.
function askForRuling() {
  const st = S;
  const asked = shown;
  if (!st || asked.asked >= 3 || asked.waiting) return;
  asked.asked += 1;
  asked.waiting = true;
  setTimeout(async () => {
    const r = await api('GET', `/api/games/${enc(st.id)}`);
    asked.waiting = false;
    if (S === st && r.ok) render(r.data);
  }, asked.asked === 1 ? 0 : 1500 * (asked.asked - 1));
}

// Show the clocks of GAME `g` (none for an untimed game or the analysis
// board), placing the player's own clock nearest them: the other seat's
// first, X's first for spectators.
export function showClocks(g) {
  const box = $('clocks');
  clearInterval(timer);
  timer = 0;
  if (!g || !g.clock || S.analysis) {
    shown = null;
    box.hidden = true;
    return;
  }
  if (!shown || shown.version !== g.version || shown.id !== g.id) {
    shown = { id: g.id, version: g.version, clock: g.clock, received: performance.now(), asked: 0, waiting: false };
  }
  const mine = S.seat || 'x';
  const theirs = mine === 'x' ? 'o' : 'x';
  $('clock-' + theirs).style.order = 0;
  $('clock-control').style.order = 1;
  $('clock-' + mine).style.order = 2;
  for (const seat of ['x', 'o']) {
    const name = $('clock-' + seat).querySelector('.clock-name');
    const label = up(seat) + (S.seat === seat ? ' (you)' : '');
    if (name.textContent !== label) name.textContent = label;
  }
  $('clock-control').textContent = controlText(g.clock);
  box.hidden = false;
  paint();
  // Tenths in the last seconds; otherwise a few paints a second suffice.
  if (g.clock.running || typeof g.clock.first_move_ms === 'number') timer = setInterval(paint, 100);
}

// A time control as people say it: "3+2" (minutes each, seconds a move)
// or "3 days a move".
export function controlText(c) {
  return c.days
    ? `${c.days} day${c.days === 1 ? '' : 's'} a move`
    : `${c.initial_ms / MINUTE}+${c.increment_ms / SECOND}`;
}

// The end of a round lost on time, as the status line says it.
export function onTime(g) {
  if (g.reason !== 'time') return '';
  if (g.status === 'won') return ' on time';
  const out = outOfTime(g.first || 'x', g.moves || []);
  return ` — ${up(out)} ran out of time, and ${up(out === 'x' ? 'o' : 'x')} could not have won`;
}

export function wire() {
  $('opponent').addEventListener('change', syncField);
  syncField();
}
