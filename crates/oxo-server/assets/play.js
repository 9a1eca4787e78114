// Playing a move: on the live socket when it is open, else (or when the
// socket goes quiet) as a POST.
import { clearMessage, enc, message } from './dom.js';
import { S } from './state.js';
import { api, newKey } from './net.js';
import { draw } from './board.js';
import { render } from './game.js';
import { analysisPlay } from './analysis.js';

export async function play(r, c) {
  if (S && S.analysis) { analysisPlay(r, c); return; }
  const st = S;
  const g = st && st.game;
  if (!g || st.busy || !st.token) return;
  st.busy = true;
  st.focus = [r, c];
  st.wantFocus = true;
  draw();
  // A key of its own: sent again (after no answer), it is played once.
  const move = { row: r, col: c, version: g.version, key: newKey() };
  const ws = st.ws;
  if (ws && !st.postMoves && ws.readyState === WebSocket.OPEN) {
    // Moves go on the live socket (a seat's: it was opened with the
    // token, which a page holds before it connects) when it is open: the update carrying
    // the move is the answer, a refusal comes back as {"error", "status"}.
    // No answer soon (a connection that died without closing) and the
    // move goes again as a POST, and the socket starts afresh.
    st.sent = {
      move,
      // The position it was chosen on: a GAME that changed the position
      // answers it; one that only offered or gave time does not.
      round: g.round,
      plies: (g.moves || []).length,
      timer: setTimeout(() => {
        if (S !== st || !st.sent) return;
        unanswered(st);
        ws.close();
      }, SOCKET_MOVE_WAIT),
    };
    ws.send(JSON.stringify(move));
    return;
  }
  await postMove(st, move);
}

// How long a move sent on the socket may go unanswered (they take
// milliseconds) before it is sent again as a POST.
const SOCKET_MOVE_WAIT = 5000;

async function postMove(st, move) {
  st.busy = true;
  const res = await api('POST', `/api/games/${enc(st.id)}/moves`, move, st.token);
  if (S !== st) return;
  st.busy = false;
  if (res.ok && res.data.game) {
    clearMessage();
    render(res.data.game);
  } else if (res.status === 409 && res.data.game && res.data.game.version > move.version) {
    // The game moved on: most likely this very move, played from the
    // socket before it went quiet. What the game is now says all.
    clearMessage();
    render(res.data.game);
  } else {
    if (res.data.game) render(res.data.game);
    refusedMove(res.data.error, res.status);
  }
  draw();
}

// Why a move was refused; a stale one (409) briefly, as the board has
// already caught up.
export function refusedMove(error, status) {
  message(error, 'error', status === 409 ? 3500 : 6000);
}

// The move sent on the live socket has its answer.
export function answered(st) {
  if (st.sent) clearTimeout(st.sent.timer);
  st.sent = null;
  st.busy = false;
}

// The move sent on the live socket got no answer: send it as a POST.
export function unanswered(st) {
  const move = st.sent.move;
  answered(st);
  postMove(st, move);
}
