//! The HTTP routes, by resource: games ([`games`]), the lobby ([`lobby`]),
//! the analysis board ([`analysis`]), a game's live socket ([`live`]), and
//! the pages, assets and health checks ([`assets`]). Every handler parses
//! its request, calls the hub and writes the answer as JSON; what all
//! requests go through is the edge's (`edge.rs`).

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use oxo_core::{BoardSize, Player, Rules};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::edge;
use crate::error::ApiError;
use crate::hub::{Action, Seated, Snapshot};
use crate::id::{GameId, Token};
use crate::name::PlayerName;
use crate::room::{Proposal, SERVER_MAX_SIDE, server_rules};
use crate::state::AppState;

mod analysis;
mod assets;
mod games;
mod live;
mod lobby;

/// The largest request body accepted; a move is about 40 bytes.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The handler of a seat's `action` (see [`games::act`]).
macro_rules! act {
    ($action:expr) => {
        |state: axum::extract::State<AppState>,
         axum::extract::Path(id): axum::extract::Path<String>,
         headers: HeaderMap,
         body: RawBody| games::act(state, id, headers, body, $action)
    };
}

/// The whole application as a router, for a server or for tests that call
/// it directly.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/g/{id}", get(assets::index))
        .route("/g/{id}/", get(assets::index))
        .route("/assets/{file}", get(assets::file))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(assets::ready))
        .route("/api/info", get(assets::info))
        .route("/api/games", post(games::create))
        .route("/api/games/{id}", get(games::show))
        .route("/api/games/{id}/seats/{seat}", post(games::join))
        .route("/api/games/{id}/moves", post(games::play))
        .route(
            "/api/games/{id}/rematch",
            post(act!(Action::Rematch)).delete(act!(Action::NoRematch)),
        )
        .route("/api/games/{id}/resign", post(act!(Action::Resign)))
        .route("/api/games/{id}/abort", post(act!(Action::Abort)))
        .route(
            "/api/games/{id}/draw",
            post(act!(Action::Propose(Proposal::Draw)))
                .delete(act!(Action::Decline(Proposal::Draw))),
        )
        .route(
            "/api/games/{id}/takeback",
            post(act!(Action::Propose(Proposal::Takeback)))
                .delete(act!(Action::Decline(Proposal::Takeback))),
        )
        .route("/api/games/{id}/claim", post(act!(Action::Claim)))
        .route("/api/games/{id}/moretime", post(act!(Action::GiveTime)))
        .route("/api/games/{id}/hints", get(games::hints))
        .route("/api/games/{id}/record", get(games::record))
        .route("/api/games/{id}/review", get(games::review))
        .route("/api/analysis", get(analysis::analysis))
        .route("/api/review", get(analysis::review))
        .route("/analysis", get(assets::index))
        .route("/api/games/{id}/live", get(live::live))
        .route("/api/lobby", get(lobby::lobby))
        .route("/api/lobby/{entry}/join", post(lobby::join_entry))
        .fallback(assets::not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), edge::layer))
        .with_state(state)
}

/// The connection's address, where the request came through the server's
/// accept loop.
type Peer = Option<axum::Extension<ConnectInfo<SocketAddr>>>;

/// The client `peer` and `headers` name, as the edge counts it.
fn client(state: &AppState, peer: Peer, headers: &HeaderMap) -> Option<std::net::IpAddr> {
    state.edge().client(peer.map(|p| p.0.0), headers)
}

/// Whether `client` may start a longer look now: refused with
/// [`HubError::Busy`](crate::hub::HubError::Busy) while the server's one
/// slot for it is taken (which costs the client nothing), else counted
/// against the client's rate of longer looks.
fn admit_longer_look(
    state: &AppState,
    client: Option<std::net::IpAddr>,
) -> Result<crate::hub::LongerSlot, ApiError> {
    // The slot first: a look refused because another holds it is not
    // counted against the client.
    let slot = state.hub().take_longer_slot()?;
    state
        .edge()
        .admit(crate::edge::Action::LongerLook, client)?;
    Ok(slot)
}

/// `work` (a longer look the request asked for) run to its end on a task
/// of its own: it goes on when its request goes (a closed tab, the time
/// limit), so that what it finds is still kept (a room's hints).
async fn to_the_end<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, crate::hub::HubError>> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::spawn(work)
        .await
        .map_err(|e| ApiError::Internal(format!("search failed: {e}")))?
        .map_err(ApiError::from)
}

/// A request body as axum hands it over: the bytes, or why they could not
/// be read (too large, say).
pub(crate) type RawBody = Result<Bytes, axum::extract::rejection::BytesRejection>;

/// The body as `T`; an empty body is `T::default()`.
pub(crate) fn parse_body<T: DeserializeOwned + Default>(body: RawBody) -> Result<T, ApiError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge(BODY_LIMIT)
        } else {
            ApiError::BadRequest(rejection.body_text())
        }
    })?;
    let body = without_bom(&body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    from_json_object(body).map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))
}

/// `bytes` without a leading UTF-8 byte order mark, which a reader of JSON
/// may ignore (RFC 8259, 8.1) and serde would not.
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// `bytes` as `T`, from a JSON object only. serde would take an array
/// too, its items as the fields in the order the struct declares them,
/// which would make that order part of the API and pass by the refusal
/// of unknown fields.
pub(crate) fn from_json_object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let bytes = without_bom(bytes);
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => serde_json::from_slice(bytes).map_err(|e| e.to_string()),
        _ => Err("expected a JSON object, {...}".to_owned()),
    }
}

/// A query string that does not parse, as a 400 in this API's words
/// ("bad query string: round: invalid digit found in string").
pub(crate) fn bad_query(rejection: &axum::extract::rejection::QueryRejection) -> ApiError {
    let text = rejection.body_text();
    let detail = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(&text);
    // The detail may quote what the client sent (an unknown key) at any
    // length, beside the names it expected.
    ApiError::BadRequest(format!(
        "bad query string: {}",
        crate::error::clipped_at(detail, 300)
    ))
}

pub(crate) fn game_id(text: &str) -> Result<GameId, ApiError> {
    GameId::parse(text).ok_or_else(|| ApiError::NotFound(text.to_owned()))
}

/// The token of `Authorization: Bearer TOKEN`, if there is one.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `body` as a JSON response: every body is written by serde.
pub(crate) fn json_body(status: StatusCode, body: &impl Serialize) -> Result<Response, ApiError> {
    let text = serde_json::to_string(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(json_response(status, text))
}

/// 200 `{"game": GAME}`.
pub(crate) fn game_response(game: &Snapshot) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    struct Body<'a> {
        game: &'a RawValue,
    }
    json_body(StatusCode::OK, &Body { game: game.json() })
}

pub(crate) fn seated_response(status: StatusCode, seated: &Seated) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    struct Body<'a> {
        game: &'a RawValue,
        seat: Player,
        token: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        invite: Option<&'a str>,
    }
    json_body(
        status,
        &Body {
            game: seated.game.json(),
            seat: seated.seat,
            token: seated.token.expose(),
            invite: seated.invite.as_ref().map(Token::expose),
        },
    )
}

/// The display name a request gives, checked (`None`: none given).
pub(crate) fn player_name(text: Option<&str>) -> Result<Option<PlayerName>, ApiError> {
    text.map(PlayerName::parse)
        .transpose()
        .map_err(|e| ApiError::BadRequest(format!("bad name: {e}")))
}

/// The seat a request says moves first (`first`; default X).
pub(crate) fn first_of(text: Option<&str>) -> Result<Player, ApiError> {
    let Some(text) = text else {
        return Ok(Player::X);
    };
    Player::from_name(text).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "bad first {:?}: use \"x\" or \"o\"",
            crate::error::clipped(text)
        ))
    })
}

/// The rules a request asks for: `size` (default 3×3, at most
/// [`SERVER_MAX_SIDE`] a side) and `k` (default: the shorter side, at most 5).
pub(crate) fn rules_of(size: Option<&str>, k: Option<u32>) -> Result<Rules, ApiError> {
    let text = size.unwrap_or("3x3");
    let size = text.parse::<BoardSize>().map_err(|e| {
        // A side past any board's is past this server's limit too: say the
        // limit a client can use.
        ApiError::BadRequest(if e.too_large() {
            format!(
                "the board {:?} is too large: the server offers at most {SERVER_MAX_SIDE} a side",
                crate::error::clipped_at(text, 300)
            )
        } else {
            format!(
                "bad size: {}",
                crate::error::clipped_at(&e.to_string(), 300)
            )
        })
    })?;
    Ok(server_rules(size, k)?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Hub, HubConfig, Limits, MemoryStore};

    /// A longer look refused because the server's one slot for it is taken
    /// costs the address nothing; each address may start two, then one
    /// every 30 s, and a look refused for the rate gives the slot back.
    #[tokio::test]
    async fn a_longer_look_refused_for_the_slot_is_not_counted() {
        let hub = Hub::new(Arc::new(MemoryStore::new()), &HubConfig::default());
        let state = AppState::with_limits(hub, Limits::default());
        let client = Some(std::net::IpAddr::from([192, 0, 2, 1]));
        let held = state.hub().take_longer_slot().unwrap();
        for _ in 0..3 {
            let refused = admit_longer_look(&state, client);
            assert!(matches!(refused, Err(ApiError::Busy { .. })), "{refused:?}");
        }
        drop(held);
        for _ in 0..2 {
            admit_longer_look(&state, client).unwrap();
        }
        let refused = admit_longer_look(&state, client);
        assert!(matches!(refused, Err(ApiError::TooMany(_))), "{refused:?}");
        assert!(state.hub().take_longer_slot().is_ok());
        // Another address has looks of its own.
        admit_longer_look(&state, Some(std::net::IpAddr::from([192, 0, 2, 2]))).unwrap();
    }
}
