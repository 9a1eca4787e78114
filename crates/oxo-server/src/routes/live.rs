//! A game's live socket: the GAME at once and on every change, each seat's
//! presence, and a player's moves as text frames, which go through the
//! same edge policy as a `POST` (`edge.rs`).

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::watch;
use tokio::time::Instant;

use super::games::Move;
use super::{BODY_LIMIT, Peer, client, game_id};
use crate::edge::{self, Action, Visit};
use crate::error::ApiError;
use crate::hub::Snapshot;
use crate::id::GameId;
use crate::listen;
use crate::room::Viewer;
use crate::state::{AppState, closed};

/// `GET /api/games/{id}/live?token=T&presence=true`: both optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LiveQuery {
    /// A seat's token: the connection counts as that seat's presence (and
    /// receives presence messages).
    token: Option<String>,
    /// Receive presence messages without a seat (spectators).
    #[serde(default)]
    presence: bool,
}

pub(super) async fn live(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<LiveQuery>, axum::extract::rejection::QueryRejection>,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
    connection: Option<axum::Extension<listen::Held>>,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| super::bad_query(&e))?;
    let id = game_id(&id)?;
    let (handle, viewer) = state.hub().room_to_read(&id).await?;
    let upgrade = upgrade.map_err(|rejection| {
        ApiError::BadRequest(format!(
            "this address is a WebSocket: {}",
            rejection.body_text()
        ))
    })?;
    // A token counts only under the room's own id (never the watch id).
    let seat = match (&query.token, viewer) {
        (Some(token), Viewer::Player) => Some(
            state
                .hub()
                .seat_in(&handle, token)
                .await
                .ok_or(ApiError::NotASeat)?,
        ),
        (Some(_), Viewer::Spectator) => return Err(ApiError::NotASeat),
        (None, _) => None,
    };
    // A seat's connection is a change (its presence told to the other
    // servers, and an open game's creator noted in the store): counted at
    // the write rate, so that opening and closing sockets in a loop cannot
    // queue writes that no limit counts.
    if seat.is_some() {
        state
            .edge()
            .admit(Action::Connect, client(&state, peer, &headers))?;
    }
    let presence = (seat.is_some() || query.presence).then(|| handle.presence());
    let attendance = seat.map(|seat| state.hub().attend(&handle, seat));
    let mut updates = handle.subscribe(viewer);
    // The first GAME with its running clock measured now; later ones are
    // sent as they are published, when the room changes.
    updates.mark_unchanged();
    let first = state.hub().current_now(&handle, viewer);
    let closing = state.closing();
    let send_timeout = state.limits().send_timeout;
    let mover = match (seat, query.token) {
        (Some(_), Some(token)) => Some(Mover {
            client: client(&state, peer, &headers),
            state: state.clone(),
            log_path: edge::loggable(&format!("/api/games/{id}/moves")),
            id,
            token,
        }),
        _ => None,
    };
    Ok(upgrade
        // Clients send little (a move is about 40 bytes): a small read
        // buffer (tungstenite zero-fills the whole buffer before each read,
        // 128 KiB by default) saves both memory per socket and CPU per
        // update.
        .read_buffer_size(4 * 1024)
        .max_message_size(BODY_LIMIT)
        .max_frame_size(BODY_LIMIT)
        .on_upgrade(move |socket| async move {
            // The socket still counts against the connection limits, and
            // as its seat's presence.
            let _held = connection;
            let _attendance = attendance;
            let presence = presence.map(|seats| Presence {
                seats,
                room: handle,
                claim_after: state.hub().claim_after(),
            });
            push_updates(
                socket,
                first,
                updates,
                presence,
                closing,
                send_timeout,
                mover,
            )
            .await;
        }))
}

/// A player's live socket, which may also carry that player's moves.
struct Mover {
    state: AppState,
    id: GameId,
    token: String,
    /// The client its moves are counted against, as `POST`s are.
    client: Option<std::net::IpAddr>,
    /// The path its moves are logged under, as a `POST`'s would be.
    log_path: String,
}

impl Mover {
    /// Play the move in `frame` (the body `POST /moves` takes) as this
    /// socket's seat: the GAME that answers it, or the refusal to send
    /// back, as `{"error", "status"[, "game"]}`.
    async fn play(&self, frame: &[u8]) -> Result<Snapshot, String> {
        let visit = Visit::begin("WS", &self.log_path, self.client);
        let edge = self.state.edge();
        let answer = async {
            // Counted before it is read, as a POST is.
            edge.admit(Action::Write, self.client)?;
            let request: Move = super::from_json_object(frame)
                .map_err(|e| ApiError::BadRequest(format!("a move on this socket: {e}")))?;
            let at = request.cell()?;
            let key = request
                .key
                .as_deref()
                .map(super::games::key_of)
                .transpose()?;
            let played =
                self.state
                    .hub()
                    .play(&self.id, Some(&self.token), at, request.version, key);
            edge.deadline(played, || false, true)
                .await?
                .map_err(ApiError::from)
        };
        let result = answer.await;
        visit.log(
            result
                .as_ref()
                .err()
                .map_or(StatusCode::OK, ApiError::status),
        );
        result.map_err(|error| error.socket_body())
    }
}

/// Each seat's presence, as a socket follows it.
struct Presence {
    seats: watch::Receiver<crate::hub::PresenceSeats>,
    room: std::sync::Arc<crate::hub::RoomHandle>,
    claim_after: Duration,
}

impl Presence {
    /// `{"presence": {"x": bool, "o": bool, "gone_ms": {"x": N|null, "o":
    /// N|null}, "claim_after_ms": N}}`: who is connected (the computer
    /// always is), how long each absent seat has been gone, and how long a
    /// seat must be gone on its move before the other may claim the round.
    fn message(&self, mut seats: crate::hub::PresenceSeats) -> Message {
        let [x, mut o] = self
            .room
            .absence()
            .map(|gone| gone.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)));
        if self.room.against_computer() {
            seats[1] = true;
            o = None;
        }
        let claim_after = u64::try_from(self.claim_after.as_millis()).unwrap_or(u64::MAX);
        Message::Text(
            serde_json::json!({"presence": {
                "x": seats[0],
                "o": seats[1],
                "gone_ms": {"x": x, "o": o},
                "claim_after_ms": claim_after,
            }})
            .to_string()
            .into(),
        )
    }
}

/// How often a live connection is pinged, so that a client that vanished
/// without closing (a phone that lost its network) is noticed...
const PING_EVERY: Duration = Duration::from_secs(30);

/// ...and dropped when nothing, not even a pong, came back for this long.
const SILENT_FOR: Duration = Duration::from_secs(75);

/// Send `game` (the current GAME), then every change, until the client goes away or
/// the server stops; with `presence`, also each seat's presence as
/// `{"presence": {"x": bool, "o": bool}}`, at once and on every change.
/// A client that does not take an update within
/// `send_timeout` is dropped (its unread updates would otherwise pile up in
/// the server's socket buffers). A player's socket (`mover`) takes moves as
/// text frames, each answered only when refused; on any other socket a data
/// frame closes the connection with 1008.
async fn push_updates(
    mut socket: WebSocket,
    mut game: Snapshot,
    mut updates: watch::Receiver<Snapshot>,
    mut presence: Option<Presence>,
    mut closing: watch::Receiver<bool>,
    send_timeout: Duration,
    mover: Option<Mover>,
) {
    let mut ping = tokio::time::interval_at(Instant::now() + PING_EVERY, PING_EVERY);
    // When the client was last heard from (any frame, a pong included):
    // silent for SILENT_FOR, it is gone, whatever the pings' schedule.
    let mut heard = Instant::now();
    let send = async |socket: &mut WebSocket, message: Message| {
        matches!(
            tokio::time::timeout(send_timeout, socket.send(message)).await,
            Ok(Ok(()))
        )
    };
    let shutting_down = || {
        Message::Close(Some(CloseFrame {
            code: axum::extract::ws::close_code::AWAY,
            reason: "server shutting down".into(),
        }))
    };
    let mut first = true;
    loop {
        if !send(&mut socket, Message::Text(game.json().get().into())).await {
            return;
        }
        if first {
            first = false;
            if let Some(presence) = &mut presence {
                let seats = *presence.seats.borrow_and_update();
                if !send(&mut socket, presence.message(seats)).await {
                    return;
                }
            }
        }
        // Wait for the next change, reading client frames meanwhile so that
        // a close (or a client gone quiet) is noticed.
        loop {
            tokio::select! {
                changed = updates.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    game = updates.borrow_and_update().clone();
                    break;
                }
                seats = presence_changed(&mut presence) => {
                    let message = presence.as_ref().map(|p| p.message(seats));
                    if let Some(message) = message
                        && !send(&mut socket, message).await
                    {
                        return;
                    }
                }
                message = socket.recv() => {
                    match (message, &mover) {
                        (Some(Err(e)), _) => {
                            // A frame over the limit (1009) or text that is
                            // not UTF-8 (1007) is told so before the socket
                            // ends; any other failure just ends it.
                            if let Some(close) = why_unread(e) {
                                let _ = send(&mut socket, Message::Close(Some(close))).await;
                            }
                            return;
                        }
                        (None, _) => return,
                        (Some(Ok(Message::Close(_))), _) => {
                            // The closing handshake: the close frame
                            // answered (queued by the socket as it read
                            // the client's) and sent before the
                            // connection ends, so that the client sees a
                            // clean close rather than a dropped one.
                            let _ = tokio::time::timeout(
                                send_timeout,
                                futures_util::SinkExt::close(&mut socket),
                            )
                            .await;
                            return;
                        }
                        (Some(Ok(Message::Text(frame))), Some(mover)) => {
                            heard = Instant::now();
                            // The server stopping does not wait for a move
                            // to be saved (its own request time limit).
                            let played = tokio::select! {
                                played = mover.play(frame.as_bytes()) => played,
                                () = closed(&mut closing) => {
                                    let _ = send(&mut socket, shutting_down()).await;
                                    return;
                                }
                            };
                            // A move played comes as every change does; a
                            // repeat (a key already played) changed nothing,
                            // so its answer, the game, is sent here.
                            let answer = match played {
                                Err(refused) => Some(refused),
                                Ok(game) if !updates.has_changed().unwrap_or(true) => {
                                    Some(game.json().get().to_owned())
                                }
                                Ok(_) => None,
                            };
                            if let Some(answer) = answer
                                && !send(&mut socket, Message::Text(answer.into())).await
                            {
                                return;
                            }
                        }
                        (Some(Ok(Message::Text(_) | Message::Binary(_))), _) => {
                            let reason = if mover.is_some() {
                                "moves are text frames"
                            } else {
                                "clients send nothing on this socket"
                            };
                            let _ = send(&mut socket, Message::Close(Some(CloseFrame {
                                code: axum::extract::ws::close_code::POLICY,
                                reason: reason.into(),
                            }))).await;
                            return;
                        }
                        (Some(Ok(_)), _) => heard = Instant::now(),
                    }
                }
                _ = ping.tick() => {
                    if !send(&mut socket, Message::Ping(Default::default())).await {
                        return;
                    }
                }
                () = tokio::time::sleep_until(heard + SILENT_FOR) => return,
                () = closed(&mut closing) => {
                    let _ = send(&mut socket, shutting_down()).await;
                    return;
                }
            }
        }
    }
}

/// The next presence, when it changes; never without a receiver (or once
/// its room is gone).
async fn presence_changed(presence: &mut Option<Presence>) -> crate::hub::PresenceSeats {
    if let Some(Presence {
        seats: receiver, ..
    }) = presence
        && receiver.changed().await.is_ok()
    {
        return *receiver.borrow_and_update();
    }
    std::future::pending().await
}

/// The close frame that tells a client why its message could not be read:
/// over the limits set at the upgrade, or a text frame that is not UTF-8;
/// `None` for a failure the client cannot be told of (a lost connection).
fn why_unread(error: axum::Error) -> Option<CloseFrame> {
    use axum::extract::ws::close_code;
    let error = error.into_inner();
    match error.downcast_ref::<tungstenite::Error>()? {
        tungstenite::Error::Capacity(_) => Some(CloseFrame {
            code: close_code::SIZE,
            reason: format!("a message is at most {BODY_LIMIT} bytes").into(),
        }),
        tungstenite::Error::Utf8(_) => Some(CloseFrame {
            code: close_code::INVALID,
            reason: "a text frame is UTF-8".into(),
        }),
        _ => None,
    }
}
