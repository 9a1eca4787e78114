//! Every way a request can fail, and the response each one gets: a status
//! and a JSON body `{"error": "…"}`, never a server's internals.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use oxo_core::MoveError;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::hub::{HubError, Snapshot};
use crate::room::{RoomError, SetupError};
use crate::store::StoreError;

/// A failed request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Malformed JSON, or values the rules refuse (400).
    #[error("{0}")]
    BadRequest(String),
    /// A seat's request without `Authorization: Bearer TOKEN` (401).
    #[error("this needs a seat's token: send Authorization: Bearer TOKEN")]
    NoToken,
    /// A token that is neither seat of this game (403).
    #[error("that token holds no seat in this game")]
    NotASeat,
    /// Something the game's rules of fair play withhold (403).
    #[error("{0}")]
    Forbidden(String),
    /// No game with this id (404).
    #[error("no game {}", clipped(.0))]
    NotFound(String),
    /// No such route (404); what the client sent in it is clipped where
    /// the text is made.
    #[error("no such page: {0}")]
    NoRoute(String),
    /// The request conflicts with the game's state (409); `game` is the
    /// current state, for the client to resync.
    #[error("{message}")]
    Conflict {
        /// What conflicts.
        message: String,
        /// The current GAME.
        game: Option<Snapshot>,
    },
    /// A well-formed move the board refuses: off the board or occupied (422).
    #[error("{0}")]
    Unprocessable(String),
    /// A `POST` without `Content-Type: application/json` (415).
    #[error("send requests with Content-Type: application/json")]
    NotJson,
    /// The body is larger than the server accepts (413).
    #[error("the request body is too large (at most {0} bytes)")]
    TooLarge(usize),
    /// The store failed; nothing was changed (503). The edge answers a
    /// read that fails so with [`ApiError::Unavailable`] instead, as only
    /// it knows whether the request asked for a change. Both say
    /// `Retry-After`.
    #[error("the game could not be saved, so nothing changed; try again")]
    Store(StoreError),
    /// The store failed while answering a request that asks for no
    /// change, a read (503, `Retry-After`): there is no outcome to tell.
    #[error("the database is not answering; try again")]
    Unavailable,
    /// The store failed while saving and could not tell whether the change
    /// was saved (503, `Retry-After`).
    #[error(
        "the database failed while saving, and whether the change was saved is unknown; retry with the same Idempotency-Key, or reload the game to see"
    )]
    OutcomeUnknown(StoreError),
    /// Too many writes from one address (429); try again after this long.
    #[error("too many requests from your address; try again in {} s", retry_after(*.0))]
    TooMany(std::time::Duration),
    /// The request did not arrive whole within the time the server allows
    /// a request (408).
    #[error("the request took longer than {} s", .0.as_secs_f64())]
    TimedOut(std::time::Duration),
    /// The request arrived whole, but the server took longer than that
    /// time to answer it (503, `Retry-After`); a change it was making
    /// (`write`) may still be saved.
    #[error(
        "the server took longer than {} s to answer{}",
        .limit.as_secs_f64(),
        if *.write {
            "; a change it was making may still be saved: retry with the same Idempotency-Key, or reload the game to see"
        } else {
            "; try again"
        }
    )]
    Overdue {
        /// The time a request may take.
        limit: std::time::Duration,
        /// Whether the request asked for a change (a `POST`, a move).
        write: bool,
    },
    /// The server's one slot for a long search is taken (503,
    /// `Retry-After`): `message` says which, and when to try again.
    #[error("{message}")]
    Busy {
        /// What is busy.
        message: String,
        /// How long to wait before trying again.
        wait: std::time::Duration,
    },
    /// The store does not answer, so the server cannot serve games (503,
    /// from `/readyz`).
    #[error("not ready: {0}")]
    NotReady(String),
    /// The store holds a record that makes no sense (500).
    #[error("a stored game is damaged")]
    Corrupt(String),
    /// A bug or an exhausted resource (500).
    #[error("internal error")]
    Internal(String),
}

/// What a client sent, as an error repeats it: at most 64 characters (an id
/// is 16, a path a few dozen), so that an answer never echoes a 64 KiB URI.
pub(crate) fn clipped(text: &str) -> String {
    clipped_at(text, 64)
}

/// `text` cut to `shown` characters and an ellipsis, if longer.
pub(crate) fn clipped_at(text: &str, shown: usize) -> String {
    match text.char_indices().nth(shown) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

impl ApiError {
    /// The response status.
    #[must_use]
    pub const fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::NoToken => StatusCode::UNAUTHORIZED,
            ApiError::NotASeat | ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) | ApiError::NoRoute(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TimedOut(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Store(_)
            | ApiError::Unavailable
            | ApiError::OutcomeUnknown(_)
            | ApiError::Overdue { .. }
            | ApiError::Busy { .. }
            | ApiError::NotReady(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Corrupt(_) | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl ApiError {
    /// What a room's refusal turns into; a 409 carries `game`, the current
    /// GAME, when there is one, so that the client can resync.
    pub(crate) fn room(error: RoomError, game: Option<Snapshot>) -> ApiError {
        match error {
            RoomError::NotASeat => ApiError::NotASeat,
            RoomError::NoInvite => ApiError::Forbidden(error.to_string()),
            RoomError::KeyReused => ApiError::Unprocessable(error.to_string()),
            // A well-formed move on a cell the board refuses.
            RoomError::Move {
                error: MoveError::OffBoard { .. } | MoveError::Occupied { .. },
                ..
            } => ApiError::Unprocessable(error.to_string()),
            RoomError::Move {
                error: MoveError::NotYourTurn { .. } | MoveError::GameOver,
                ..
            }
            | RoomError::Waiting
            | RoomError::Cancelled
            | RoomError::CancelledUnjoined
            | RoomError::Stale { .. }
            | RoomError::SeatTaken(_)
            | RoomError::OwnToken
            | RoomError::StillPlaying
            | RoomError::OfferPending(_)
            | RoomError::NoRematch
            | RoomError::NoTimeToGive
            | RoomError::RoundOver
            | RoomError::TooLateToAbort
            | RoomError::AbortOnly
            | RoomError::NothingToTakeBack
            | RoomError::Proposed(..)
            | RoomError::OfferedThisMove(_)
            | RoomError::NoProposal(_)
            | RoomError::DrawDeclined
            | RoomError::ClaimAgainstComputer
            | RoomError::ClaimInCorrespondence(_)
            | RoomError::NotTheirMove(_)
            | RoomError::StillHere(..)
            | RoomError::OutOfTouch(_)
            | RoomError::TooSoon { .. }
            | RoomError::OutOfTime(_) => ApiError::Conflict {
                message: error.to_string(),
                game,
            },
        }
    }
}

impl From<StoreError> for ApiError {
    /// A stored room that fails its checks is damage (500); any other store
    /// failure means the database is unavailable (503).
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::Corrupt(e) => ApiError::Corrupt(e),
            unknown @ StoreError::Unknown(_) => ApiError::OutcomeUnknown(unknown),
            other => ApiError::Store(other),
        }
    }
}

impl From<SetupError> for ApiError {
    /// A new room asked for outside the server's limits: the request's fault.
    fn from(error: SetupError) -> ApiError {
        ApiError::BadRequest(error.to_string())
    }
}

impl From<HubError> for ApiError {
    fn from(error: HubError) -> ApiError {
        let message = error.to_string();
        match error {
            HubError::NotFound(id) => ApiError::NotFound(id),
            HubError::NoToken => ApiError::NoToken,
            HubError::HintsWithheld | HubError::ReviewWithheld => ApiError::Forbidden(message),
            HubError::NoSuchRound { .. } => ApiError::BadRequest(message),
            HubError::Refused { error, game } => ApiError::room(error, game),
            HubError::SeekGone => ApiError::Conflict {
                message,
                game: None,
            },
            HubError::Changed(game) => ApiError::Conflict {
                message,
                game: Some(game),
            },
            HubError::Busy(wait) => ApiError::Busy { message, wait },
            HubError::Store(e) => e.into(),
            HubError::Corrupt(e) => ApiError::Corrupt(e),
            HubError::Internal(e) => ApiError::Internal(e),
        }
    }
}

impl ApiError {
    /// The answer to a refused move on a live socket, which has no status
    /// line or headers of its own: the JSON body with the HTTP status it
    /// stands for and, where an HTTP answer would say `Retry-After` (a 429,
    /// a 503 that says when to try again), `"retry_after"` in seconds.
    pub(crate) fn socket_body(&self) -> String {
        self.body(true)
    }

    /// Seconds to wait before trying again, where the answer says so
    /// (`Retry-After`, or `"retry_after"` on a socket): a 429, a busy slot,
    /// and every 503 but the busy slot's, which says its own.
    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            ApiError::TooMany(wait) | ApiError::Busy { wait, .. } => Some(retry_after(*wait)),
            ApiError::Overdue { .. }
            | ApiError::Unavailable
            | ApiError::Store(_)
            | ApiError::OutcomeUnknown(_) => Some(UNAVAILABLE_RETRY_AFTER),
            _ => None,
        }
    }

    /// The JSON body: `{"error": "…"}`, with `"game"` on a 409 that has
    /// one, and on a socket what [`ApiError::socket_body`] adds. Logs the
    /// failures that are the server's.
    pub(crate) fn body(&self, on_socket: bool) -> String {
        match self {
            ApiError::Store(e) | ApiError::OutcomeUnknown(e) => {
                tracing::error!(error = %e, "store failed");
            }
            ApiError::Corrupt(e) | ApiError::Internal(e) => tracing::error!(error = %e, "{self}"),
            _ => {}
        }
        #[derive(Serialize)]
        struct Body<'a> {
            error: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            status: Option<u16>,
            /// Seconds, where an HTTP answer would say `Retry-After`.
            #[serde(skip_serializing_if = "Option::is_none")]
            retry_after: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            game: Option<&'a RawValue>,
            /// On a 503: whether the request changed nothing (`"unchanged"`)
            /// or may have (`"unknown"`).
            #[serde(skip_serializing_if = "Option::is_none")]
            outcome: Option<&'static str>,
        }
        let game = match self {
            ApiError::Conflict {
                game: Some(game), ..
            } => Some(game.json()),
            _ => None,
        };
        serde_json::to_string(&Body {
            error: self.to_string(),
            status: on_socket.then(|| self.status().as_u16()),
            retry_after: self.retry_after_secs().filter(|_| on_socket),
            game,
            outcome: match self {
                ApiError::Store(_) => Some("unchanged"),
                ApiError::OutcomeUnknown(_) | ApiError::Overdue { write: true, .. } => {
                    Some("unknown")
                }
                _ => None,
            },
        })
        .unwrap_or_else(|_| r#"{"error":"internal error"}"#.to_owned())
    }
}

/// Seconds a client is asked to wait after the server was overdue or its
/// database failed: long enough for a queue of searches or
/// a stalled database to move.
const UNAVAILABLE_RETRY_AFTER: u64 = 1;

/// Marks the answer of an [`ApiError::Store`], which the edge turns into
/// [`ApiError::Unavailable`]'s for a read ([`ApiError::answering_read`]).
#[derive(Clone, Copy, Debug)]
struct StoreFailed;

impl ApiError {
    /// `response`, the answer to a request that asks for no change: a
    /// failed store's "nothing changed" becomes [`ApiError::Unavailable`],
    /// which claims no outcome and says when to try again.
    pub(crate) fn answering_read(response: Response) -> Response {
        if response.extensions().get::<StoreFailed>().is_some() {
            ApiError::Unavailable.into_response()
        } else {
            response
        }
    }
}

/// Whole seconds to wait, rounded up (a client that waits what it is told
/// must not be refused again), at least one.
fn retry_after(wait: std::time::Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = self.body(false);
        let mut response =
            (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Some(wait) = self.retry_after_secs() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(wait));
        }
        if matches!(self, ApiError::Store(_)) {
            response.extensions_mut().insert(StoreFailed);
        }
        if matches!(self, ApiError::NoToken) {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::retry_after;

    /// The one slot for a longer look taken: 503 with `Retry-After` and
    /// the reason, no outcome (nothing was asked to change).
    #[tokio::test]
    async fn a_busy_slot_is_503_with_retry_after() {
        use axum::response::IntoResponse;

        let hub = crate::hub::HubError::Busy(Duration::from_secs(10));
        let response = super::ApiError::from(hub).into_response();
        assert_eq!(
            response.status(),
            axum::http::StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(response.headers()[axum::http::header::RETRY_AFTER], "10");
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            r#"{"error":"another longer look is running on this server; try again in 10 s"}"#
        );
    }

    /// A write the database failed says when to try again, whatever became
    /// of its change, as a read's failure does; on a socket too.
    #[tokio::test]
    async fn a_failed_write_is_503_with_retry_after() {
        use axum::response::IntoResponse;

        use crate::store::StoreError;

        let failed = || StoreError::CommitFailed("disk I/O error".into());
        for (error, outcome) in [
            (super::ApiError::Store(failed()), "unchanged"),
            (super::ApiError::OutcomeUnknown(failed()), "unknown"),
        ] {
            let on_socket = error.body(true);
            assert!(
                on_socket.contains(r#""retry_after":1"#) && on_socket.contains(outcome),
                "{on_socket}"
            );
            let response = error.into_response();
            assert_eq!(
                response.status(),
                axum::http::StatusCode::SERVICE_UNAVAILABLE
            );
            assert_eq!(response.headers()[axum::http::header::RETRY_AFTER], "1");
        }
    }

    /// A client that waits the seconds it is told is not refused again.
    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after(Duration::from_millis(1990)), 2);
        assert_eq!(retry_after(Duration::from_secs(2)), 2);
        assert_eq!(retry_after(Duration::from_millis(200)), 1);
        assert_eq!(retry_after(Duration::ZERO), 1);
    }
}
