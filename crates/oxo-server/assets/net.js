// The network: JSON requests to /api, and the game's live WebSocket with
// its reconnection (backoff, then a plain GET to catch up).
import { $, clearMessage, enc } from './dom.js';
import { S } from './state.js';
import { draw } from './board.js';
import { gone, render } from './game.js';
import { answered, refusedMove, unanswered } from './play.js';
import { forgetPresence, showPresence } from './status.js';

// ---- HTTP: always resolves to {ok, status, data}; data.error explains failures ----
export async function api(method, path, body, token, key) {
  const headers = {};
  // Every POST says JSON (the server refuses anything else, so other sites' forms cannot post).
  if (method !== 'GET') headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = 'Bearer ' + token;
  // A change sent again under its key is made once.
  if (key) headers['Idempotency-Key'] = key;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'network error — is the server running?' } };
  }
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!data || typeof data !== 'object') data = res.ok ? {} : { error: `${res.status} ${res.statusText}`.trim() };
  if (!res.ok && !data.error) data.error = `request failed (${res.status})`;
  return { ok: res.ok, status: res.status, data };
}

// Whether `res`, the answer to a change asked of the game at `version`, is
// a refusal because the game had moved on (the opponent acted in the same
// moment): said then in words (`OVERTAKEN`), not with the version numbers.
export function overtaken(res, version) {
  const now = res.data && res.data.game;
  return !res.ok && res.status === 409 && !!now && now.version !== version;
}
export const OVERTAKEN = 'The game changed just before that arrived, so nothing was done: look again.';

// A random idempotency key (128 bits in hex): a change sent again (after a
// lost answer) under the same key is made once.
export function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// A seat token this page chooses for a join: 32 random characters of the
// server's own tokens' alphabet (160 bits).
function newToken() {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789-';
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => alphabet[b & 31]).join('');
}

// Taking a seat with a token the page chooses, kept for the tab until the
// join is settled: a join whose answer was lost (the network, a server
// restarting) is sent again with it, now (five tries over about 15 s) or
// after a reload, and gets the seat it took rather than finding it taken.
export async function join(path, body) {
  const pending = 'oxo.joining.' + path;
  let token = null;
  try { token = sessionStorage.getItem(pending); } catch (e) { /* no storage */ }
  if (!token) {
    token = newToken();
    try { sessionStorage.setItem(pending, token); } catch (e) { /* no storage */ }
  }
  // Settled: seated, or refused for good (a bad request or invite, no
  // such game, the seat taken). Anything else (no answer, a server or
  // proxy failing, a timeout, too many requests) may hide a join made.
  const settled = (r) => r.ok || [400, 403, 404, 409].includes(r.status);
  let r;
  for (let wait = 1000; ; wait *= 2) {
    r = await api('POST', path, body, token);
    if (settled(r) || wait > 8000) break;
    await new Promise((done) => setTimeout(done, wait));
  }
  // The token is the seat's now, or nobody's: forgotten.
  if (settled(r)) {
    try { sessionStorage.removeItem(pending); } catch (e) { /* no storage */ }
  }
  return r;
}

// ---- the live WebSocket, reconnecting with backoff ----
export function setConnection(live) {
  S.live = live;
  $('connection').textContent = live ? 'live' : 'reconnecting…';
  $('connection').className = 'conn ' + (live ? 'on' : 'off');
  if (!live) forgetPresence();
}

export function connect() {
  const st = S;
  if (!st || st.closed) return;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    // A seat's token makes this socket count as that player being here;
    // either way the socket also says who is here.
    const who = st.token ? 'token=' + enc(st.token) : 'presence=true';
    ws = new WebSocket(`${scheme}//${location.host}/api/games/${enc(st.id)}/live?${who}`);
  } catch (e) {
    retry(st);
    return;
  }
  st.ws = ws;
  ws.onopen = () => {
    if (S !== st) return;
    st.backoff = 500;
    setConnection(true);
  };
  ws.onmessage = (ev) => {
    if (S !== st) return;
    let g;
    try { g = JSON.parse(ev.data); } catch (e) { return; }
    if (g && g.presence) { showPresence(g.presence); return; }
    if (g && typeof g.error === 'string') {
      // A move sent on this socket was refused (one already sent again
      // as a POST has its answer there).
      if (g.game) render(g.game);
      if (!st.sent) return;
      answered(st);
      refusedMove(g.error, g.status);
      draw();
      return;
    }
    const game = g && g.game ? g.game : g;
    // The GAME with the move answers it; so does any other change of the
    // position, which the board then shows (the move is refused). An offer
    // or time given meanwhile leaves the move current on the server.
    const sent = st.sent;
    if (sent && game && game.version > sent.move.version
        && (game.round !== sent.round || (game.moves || []).length !== sent.plies
            || game.status !== 'playing')) {
      answered(st);
      clearMessage();
    }
    render(game);
  };
  ws.onclose = (ev) => {
    if (S !== st || st.ws !== ws) return;
    st.ws = null;
    // 1008: this server takes no moves on its sockets (an older node
    // behind the same balancer): moves go as POSTs from now on.
    if (ev.code === 1008) st.postMoves = true;
    // A move sent on it may or may not have been played: it goes again
    // as a POST, which plays it or says, stale, what the game is now.
    if (st.sent) unanswered(st);
    setConnection(false);
    retry(st);
  };
}

export function retry(st) {
  if (st.closed || S !== st) return;
  clearTimeout(st.wsTimer);
  st.wsTimer = setTimeout(async () => {
    if (S !== st) return;
    // Without the socket, at least catch up with a plain GET, then try the socket again.
    const r = await api('GET', `/api/games/${enc(st.id)}`);
    if (S !== st) return;
    if (r.status === 404) { gone(st); return; }
    if (r.ok) render(r.data);
    connect();
  }, st.backoff);
  st.backoff = Math.min(st.backoff * 2, 5000);
}

export function stopLive() {
  S.closed = true;
  clearTimeout(S.wsTimer);
  if (S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
}

// Back online, or back to the tab: the game at once, not after the backoff.
export function reconnectNow() {
  const st = S;
  if (!st || st.closed || st.analysis || st.ws) return;
  clearTimeout(st.wsTimer);
  st.backoff = 500;
  connect();
}

export function wire() {
  window.addEventListener('online', reconnectNow);
  // Leaving the page closes its socket, so the other player sees this one
  // leave even when the browser keeps the page to come back to; coming
  // back opens it again.
  window.addEventListener('pagehide', () => {
    if (S && S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
    if (S && S.sent) answered(S); // the GAME on coming back says what became of it
  });
  window.addEventListener('pageshow', (e) => { if (e.persisted) reconnectNow(); });
  document.addEventListener('visibilitychange', () => { if (!document.hidden) reconnectNow(); });
}
