// The lobby on the start page.
import { $, enc, message, rescueFocus, up } from './dom.js';
import { seats } from './state.js';
import { api, join } from './net.js';
import { route } from './route.js';
import { render } from './game.js';
import { reasonText } from './endings.js';
import { withName } from './name.js';
import { controlText } from './clock.js';
import { difficulty } from './words.js';
import { keepSeeks, dropSeeks } from './seeks.js';

// The lobby: open games to join, games being played to watch, and the
// games this browser has a seat in; refreshed while the start page shows.
let lobbyTimer = null;
export async function showLobby() {
  clearTimeout(lobbyTimer);
  if ($('start-view').hidden) return;
  // This browser's open games first, however many it has played since, so
  // that the lobby always knows them as its own; then its latest games.
  const ids = [...new Set([...seats.seeks(), ...seats.recent().slice(0, 8)])].slice(0, 20);
  const q = ids.length ? '?recent=' + ids.map(enc).join(',') : '';
  const r = await api('GET', '/api/lobby' + q);
  if ($('start-view').hidden) return;
  lobbyTimer = setTimeout(showLobby, 5000);
  if (!r.ok) return;
  // A link in a list, and for a game of this browser's still waiting, a
  // button that cancels it (`cancel`: its id).
  const item = (href, title, detail, data, cancel) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = href;
    Object.assign(a.dataset, data);
    a.append(title);
    const small = document.createElement('small');
    small.textContent = detail;
    a.append(small);
    li.append(a);
    if (cancel) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.cancel = cancel;
      b.textContent = 'Cancel';
      b.setAttribute('aria-label', `Cancel ${title}`);
      li.append(b);
    }
    return li;
  };
  // This browser's games waiting for an opponent (it holds seat X), and
  // those of them in the lobby by their lobby entry: the lobby shows those
  // as this browser's own, never as games to join.
  const recent = r.data.recent || [];
  const waiting = recent.filter((g) => g.status === 'waiting' && (seats.get(g.id) || {}).seat === 'x');
  // Open games no longer waiting (joined, cancelled, gone) are let go.
  for (const id of ids.filter((x) => seats.seeks().includes(x))) {
    if (recent.some((g) => g.id === id && g.status !== 'waiting') || !recent.some((g) => g.id === id)) seats.forgetSeek(id);
  }
  const own = new Map(waiting.filter((g) => g.entry).map((g) => [g.entry, g]));
  // A game whose socket this page has just opened may be missing from
  // this answer (its creator's other page had just closed its own): the
  // socket, once held, asks for the lobby again.
  keepSeeks([...own.values()].map((g) => g.id), showLobby);
  const board = (g) => `${g.size.replace('x', '×')}, ${g.k} in a row`;
  // The computer as the server names it ("Computer (strong)"), never its
  // algorithm; a strategy this page does not know keeps its name.
  const computer = (g) => {
    const [rows, cols] = g.size.split('x').map(Number);
    const level = difficulty(g.opponent, rows, cols, g.k).level;
    return level ? `Computer (${level.toLowerCase()})` : g.opponent;
  };
  const ago = (s) => (s < 60 ? 'just now' : s < 3600 ? `${Math.round(s / 60)} min ago`
    : s < 86400 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} d ago`);
  const open = (r.data.open || []).map((g) => {
    const what = `${board(g)}${g.clock ? ', ' + controlText(g.clock) : ''}`;
    const mine = own.get(g.entry);
    if (mine) {
      return item('/g/' + enc(mine.id), `Your game: ${what}`, 'waiting for an opponent',
        { game: mine.id }, mine.id);
    }
    return item('#', `Join${g.name ? ' ' + g.name : ''}: ${what}`,
      // By correspondence the lobby counts from when its creator was last here.
      `${up(g.first)} starts · ${g.clock && g.clock.days ? 'creator here' : 'opened'} ${ago(g.waiting)}`,
      { entry: g.entry });
  });
  const live = (r.data.live || []).map((g) => {
    const p = g.players || {};
    const who = p.x || p.o ? `${p.x || 'X'} vs ${p.o || 'O'}`
      : g.opponent === 'human' ? 'two players' : `vs ${computer(g)}`;
    const s = g.score || {};
    return item('/g/' + enc(g.watch), `${board(g)} · ${who}`,
      `round ${g.round} · X ${s.x || 0}, O ${s.o || 0}, draws ${s.draws || 0}`, { game: g.watch });
  });
  const mine = recent.map((g) => {
    if (g.damaged) return item('/g/' + enc(g.id), 'A game the server cannot read', 'its stored record is damaged', { game: g.id });
    const held = seats.get(g.id);
    const who = g.opponent === 'human' ? 'a friend' : computer(g);
    const why = reasonText(g.reason, g.winner);
    const state = g.status === 'won' ? `${up(g.winner)} won` + (why ? ` (${why})` : '')
      : g.status === 'draw' ? (g.reason === 'agreement' ? 'drawn by agreement' : 'draw')
      : g.status === 'aborted' ? (g.reason === 'nostart' ? 'aborted: no first move in time' : 'aborted')
      : g.status === 'waiting' ? (g.entry ? 'waiting for an opponent, in the lobby' : 'waiting for a friend')
      : held && g.next === held.seat ? 'your turn' : 'playing';
    return item('/g/' + enc(g.id), `${g.size.replace('x', '×')} vs ${who}`, `round ${g.round} · ${state}`, { game: g.id },
      waiting.includes(g) ? g.id : null);
  });
  fill('open-list', open);
  fill('live-list', live);
  fill('recent-list', mine);
  $('lobby-open').hidden = open.length === 0;
  $('lobby-live').hidden = live.length === 0;
  $('recent').hidden = mine.length === 0;
  // A link or button that went (a game joined or cancelled) hands focus to
  // the first link to a game of the lists (never a stranger's Join link,
  // which one more Enter would take), or to the page's New game link.
  const first = (id) => $(id).querySelector('a[data-game]');
  rescueFocus(first('open-list'), first('recent-list'), first('live-list'), $('new-game-link'));
}

// The lobby's list `id` made `items`: left alone when nothing changed, so
// that a refresh every 5 s neither moves a keyboard user's focus nor has a
// screen reader read the list again (where it did change, rescueFocus
// gives focus back to the same game's link or button).
function fill(id, items) {
  const list = $(id);
  if (list.innerHTML === items.map((li) => li.outerHTML).join('')) return;
  list.replaceChildren(...items);
}

// Cancel this browser's game `id`, still waiting for an opponent.
async function cancelOpen(button) {
  const id = button.dataset.cancel;
  const held = seats.get(id);
  if (!held) return;
  button.disabled = true;
  // Cancelled only as it stands, still waiting: at that version, so that a
  // join in between makes the abort stale instead of ending the new game.
  const now = await api('GET', `/api/games/${enc(id)}`);
  const waiting = now.ok && now.data.status === 'waiting';
  const r = waiting
    ? await api('POST', `/api/games/${enc(id)}/abort`, { version: now.data.version }, held.token)
    : { ok: false, data: { error: now.ok ? 'someone has joined it' : now.data.error } };
  button.disabled = false;
  if (!r.ok) message('Could not cancel: ' + r.data.error);
  showLobby();
}

// One click on an open game: seat O, then the game.
export async function joinOpen(a) {
  const r = await join(`/api/lobby/${enc(a.dataset.entry)}/join`, withName({}));
  if (!r.ok || !r.data.game) {
    const closed = r.status === 404 || r.status === 409;
    message(closed ? 'That game is no longer open: ' + r.data.error : 'Could not join: ' + r.data.error);
    showLobby();
    return;
  }
  const g = r.data.game;
  // A seat this browser holds is never given up for another: the game
  // opens as the seat it holds.
  if (!seats.get(g.id)) seats.set(g.id, r.data.seat, r.data.token);
  history.pushState(null, '', '/g/' + enc(g.id));
  route();
  render(g);
}

export function wire() {
  // Leaving the site (the browser may keep the start page to come back to,
  // its sockets open) lets this browser's open games go, as leaving for a
  // game's page does: no dead seek stays listed. Coming back holds them
  // again.
  window.addEventListener('pagehide', dropSeeks);
  window.addEventListener('pageshow', (e) => { if (e.persisted) showLobby(); });
  for (const list of ['recent-list', 'live-list', 'open-list']) {
    $(list).addEventListener('click', (e) => {
      const cancel = e.target.closest('button[data-cancel]');
      if (cancel) { cancelOpen(cancel); return; }
      const a = e.target.closest('a[data-game], a[data-entry]');
      if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      if (a.dataset.entry) { joinOpen(a); return; }
      history.pushState(null, '', a.getAttribute('href'));
      route();
    });
  }
}
