// What the page holds: the seats this browser has taken (in localStorage)
// and the state of the game or analysis board on screen.

// ---- seat tokens, one localStorage key per game (kept in memory too, for private modes) ----
const memory = {};
export const seats = {
  key: (id) => 'oxo.seat.' + id,
  get(id) {
    let v = memory[id];
    try { v = JSON.parse(localStorage.getItem(this.key(id))) || v; } catch (e) { /* no storage */ }
    return v && v.token && (v.seat === 'x' || v.seat === 'o') ? v : null;
  },
  // X of a game between two people also keeps the invite for seat O.
  set(id, seat, token, invite) {
    const v = invite ? { seat, token, invite } : { seat, token };
    memory[id] = v;
    try { localStorage.setItem(this.key(id), JSON.stringify(v)); } catch (e) { /* no storage */ }
    this.remember(id);
  },
  // The games this browser holds a seat in, the latest first (at most 12).
  recentKey: 'oxo.recent',
  recent() {
    let list = memory.recent || [];
    try { list = JSON.parse(localStorage.getItem(this.recentKey)) || list; } catch (e) { /* no storage */ }
    return Array.isArray(list) ? list.filter((id) => typeof id === 'string') : [];
  },
  // This browser's open games in the lobby, waiting for an opponent (at
  // most 12, the latest first): asked about in every lobby request, so
  // that one of them is never offered to this browser to join.
  seeksKey: 'oxo.seeks',
  seeks() {
    let list = memory.seeks || [];
    try { list = JSON.parse(localStorage.getItem(this.seeksKey)) || list; } catch (e) { /* no storage */ }
    return Array.isArray(list) ? list.filter((id) => typeof id === 'string') : [];
  },
  seek(id) { this.keepSeeks([id, ...this.seeks().filter((x) => x !== id)].slice(0, 12)); },
  forgetSeek(id) { this.keepSeeks(this.seeks().filter((x) => x !== id)); },
  keepSeeks(list) {
    memory.seeks = list;
    try { localStorage.setItem(this.seeksKey, JSON.stringify(list)); } catch (e) { /* no storage */ }
  },
  remember(id) {
    const list = [id, ...this.recent().filter((x) => x !== id)].slice(0, 12);
    memory.recent = list;
    try { localStorage.setItem(this.recentKey, JSON.stringify(list)); } catch (e) { /* no storage */ }
  },
};

// ---- state of the game page ----
export let S = null;
export function freshState(id) {
  return {
    id, seat: null, token: null, game: null, shown: -1, ws: null, wsTimer: 0, backoff: 500,
    live: false, closed: false, busy: false, sent: null, postMoves: false, hints: null, hintNoted: false, focus: [0, 0],
    wantFocus: false, built: '', cells: [],
    // The cell a zoomed board last brought into view (board.js).
    followed: '',
    // The move list: past rounds once fetched, and what the board shows
    // (null: the game as it stands; else a round and a number of moves).
    record: null, view: null, presence: null,
    // The analysis board's line of moves and cached values (else null).
    analysis: null, values: null,
  };
}

// The state on screen changes only here (an import cannot be assigned to).
export function setCurrent(st) { S = st; }
