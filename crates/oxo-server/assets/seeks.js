// The creator's open games, kept in the lobby while the start page shows.
// The lobby lists an open game while its creator has a live socket to it
// (the game's own page holds one), so the start page holds one for each
// of this browser's listed games still waiting: browsing the lobby does
// not take a game out of it. Once someone joins, the game opens, as on
// lichess; cancelled, it is let go.
import { enc } from './dom.js';
import { seats } from './state.js';
import { route } from './route.js';

const kept = new Map();

// Hold a socket for each game in `ids` (this browser holds its seat X),
// and none for any other; `onHeld` is called once a new one is held (the
// game's first GAME on it, the server counting the creator present).
export function keepSeeks(ids, onHeld = () => {}) {
  for (const [id, ws] of kept) if (!ids.includes(id)) { kept.delete(id); ws.close(); }
  for (const id of ids) if (!kept.has(id)) open(id, onHeld);
}

// Let every game go: the page is leaving the start page.
export function dropSeeks() { keepSeeks([]); }

function open(id, onHeld) {
  const held = seats.get(id);
  if (!held || held.seat !== 'x') return;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    ws = new WebSocket(`${scheme}//${location.host}/api/games/${enc(id)}/live?token=${enc(held.token)}`);
  } catch (e) {
    return; // the lobby's next refresh tries again
  }
  kept.set(id, ws);
  let first = true;
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    const g = m && m.game ? m.game : m;
    if (!g || typeof g.status !== 'string' || kept.get(id) !== ws) return;
    if (g.status === 'waiting') {
      if (first) { first = false; onHeld(); }
      return;
    }
    kept.delete(id);
    ws.close();
    // Joined: to the board, from the start page only (a second thought
    // in another tab is not overruled).
    if (g.status !== 'aborted' && location.pathname === '/') {
      history.pushState(null, '', '/g/' + enc(id));
      route();
    }
  };
  // Closed by the server or the network: the lobby's next refresh (every
  // few seconds) opens it again while the game waits.
  ws.onclose = () => { if (kept.get(id) === ws) kept.delete(id); };
}
