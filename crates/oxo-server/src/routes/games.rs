//! A game's routes: create, show, join, play, rematch, its hints, its
//! record and the review of a round.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use oxo_ai::StrategyKind;
use oxo_ai::hints::NoHints;
use oxo_core::{Coords, Player};
use serde::{Deserialize, Serialize};

use super::analysis::{Position, ReviewBody};
use super::{
    Peer, RawBody, admit_longer_look, bearer, client, first_of, game_id, game_response, json_body,
    json_response, parse_body, player_name, rules_of, seated_response, to_the_end,
};
use crate::error::ApiError;
use crate::hub::{Action, EstimateView, Hint, Hold};
use crate::id::{IdempotencyKey, Token};
use crate::room::{ClockAsk, Opponent, RoomSetup, check_opponent};
use crate::state::AppState;

/// `POST /api/games`: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateGame {
    size: Option<String>,
    k: Option<u32>,
    opponent: Option<String>,
    first: Option<String>,
    /// List the game in the lobby (open to anyone until seat O is taken,
    /// then watchable from the lobby).
    #[serde(default)]
    listed: bool,
    /// The creator's display name.
    name: Option<String>,
    /// A clock of minutes a seat and seconds a move.
    clock: Option<ClockRequest>,
    /// Correspondence: days a move.
    days: Option<u32>,
}

/// `"clock": {"minutes": M, "increment": S}` of `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockRequest {
    /// Each seat's time, in minutes (may be fractional, such as 0.5).
    minutes: f64,
    /// Seconds added after each timed move.
    #[serde(default)]
    increment: u32,
}

impl CreateGame {
    /// The validated request: rules, opponent, starter and time control.
    fn validate(&self, catalog: &oxo_ai::Catalog) -> Result<RoomSetup, ApiError> {
        let rules = rules_of(self.size.as_deref(), self.k)?;
        let opponent: Opponent = self
            .opponent
            .as_deref()
            .unwrap_or("human")
            .parse()
            .map_err(|_| {
                ApiError::BadRequest(format!(
                    "unknown opponent {:?}: use human or one of {}",
                    self.opponent.as_deref().unwrap_or_default(),
                    StrategyKind::NAMES.join(", ")
                ))
            })?;
        // The request's faults in the order it has its fields: the board,
        // who plays on it, who starts, the clock.
        check_opponent(rules, opponent, catalog)?;
        let first = first_of(self.first.as_deref())?;
        let clock = match (&self.clock, self.days) {
            (None, None) => None,
            (Some(_), Some(_)) => {
                return Err(ApiError::BadRequest(
                    "give either \"clock\" (minutes and increment) or \"days\" (correspondence), not both"
                        .into(),
                ));
            }
            (Some(clock), None) => Some(ClockAsk::Minutes {
                minutes: clock.minutes,
                increment: clock.increment,
            }),
            (None, Some(days)) => Some(ClockAsk::Days(days)),
        };
        Ok(RoomSetup::new(rules, opponent, first, clock, catalog)?)
    }
}

pub(super) async fn create(
    State(state): State<AppState>,
    body: RawBody,
) -> Result<Response, ApiError> {
    let request: CreateGame = parse_body(body)?;
    let setup = request.validate(state.hub().catalog())?;
    let name = player_name(request.name.as_deref())?;
    let seated = state.hub().create(setup, request.listed, name).await?;
    seated_response(StatusCode::CREATED, &seated)
}

pub(super) async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (handle, viewer) = state.hub().room_to_read(&game_id(&id)?).await?;
    Ok(json_response(
        StatusCode::OK,
        state
            .hub()
            .current_now(&handle, viewer)
            .json()
            .get()
            .to_owned(),
    ))
}

/// `POST /api/games/{id}/seats/o`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Join {
    /// The invite the creator was given.
    invite: Option<String>,
    /// The joiner's display name.
    name: Option<String>,
}

pub(super) async fn join(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
    body: RawBody,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let chose = chosen_token(&headers)?;
    let request: Join = parse_body(body)?;
    match Player::from_name(&seat) {
        Some(Player::O) => {}
        Some(Player::X) => {
            // Known rooms only; without the game, as a join's refusals are.
            state.hub().room(&id).await?;
            return Err(ApiError::Conflict {
                message: "seat x is taken (it is the creator's; a second person joins seat o)"
                    .into(),
                game: None,
            });
        }
        None => {
            return Err(ApiError::NoRoute(format!(
                "seat {} (the seats are x and o; a second person joins seat o)",
                crate::error::clipped(&seat)
            )));
        }
    }
    let name = player_name(request.name.as_deref())?;
    let seated = state
        .hub()
        .join(&id, request.invite.as_deref(), name, chose)
        .await?;
    seated_response(StatusCode::OK, &seated)
}

/// `POST /api/games/{id}/moves`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Move {
    row: Option<i64>,
    col: Option<i64>,
    pub(super) version: Option<u64>,
    /// The move's idempotency key, for clients that cannot send the
    /// header (the live socket's frames).
    pub(super) key: Option<String>,
}

impl Move {
    /// The cell played: a move without one is a 400.
    pub(super) fn cell(&self) -> Result<Coords, ApiError> {
        match (self.row, self.col) {
            (Some(row), Some(col)) => Ok(Coords::new(row, col)),
            _ => Err(ApiError::BadRequest(
                "a move needs \"row\" and \"col\" (from 0)".into(),
            )),
        }
    }
}

pub(super) async fn play(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: RawBody,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let request: Move = parse_body(body)?;
    let at = request.cell()?;
    let key = match (
        header_key(&headers)?,
        request.key.as_deref().map(key_of).transpose()?,
    ) {
        (Some(header), Some(body)) if header != body => {
            return Err(ApiError::BadRequest(
                "the Idempotency-Key header and the body's \"key\" differ".into(),
            ));
        }
        (header, body) => header.or(body),
    };
    let game = state
        .hub()
        .play(&id, bearer(&headers), at, request.version, key)
        .await?;
    game_response(&game)
}

/// `text` as an idempotency key, or a 400 that says what is wrong.
pub(super) fn key_of(text: &str) -> Result<IdempotencyKey, ApiError> {
    IdempotencyKey::parse(text).map_err(|e| ApiError::BadRequest(e.to_string()))
}

/// The seat token a joiner chose, sent as `Authorization: Bearer T`
/// ([`Token::chosen`](crate::id::Token::chosen)), if any; a bad one, or an
/// `Authorization` header of another form, is a 400 (taken for no choice,
/// it would seat the joiner under a token it does not know).
pub(super) fn chosen_token(headers: &HeaderMap) -> Result<Option<Token>, ApiError> {
    if !headers.contains_key(header::AUTHORIZATION) {
        return Ok(None);
    }
    let text = bearer(headers).ok_or_else(|| {
        ApiError::BadRequest(
            "the Authorization header of a join is `Bearer TOKEN`, TOKEN the seat token \
             you choose (or send none, and the server makes one)"
                .into(),
        )
    })?;
    Token::chosen(text)
        .map(Some)
        .map_err(|e| ApiError::BadRequest(e.to_string()))
}

/// The request's `Idempotency-Key` header, if it has one.
fn header_key(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, ApiError> {
    let mut values = headers.get_all("idempotency-key").iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::BadRequest(
            "send one Idempotency-Key header, not several".into(),
        ));
    }
    let text = value.to_str().map_err(|_| {
        ApiError::BadRequest(
            "an Idempotency-Key is printable ASCII without spaces (such as a UUID)".into(),
        )
    })?;
    key_of(text).map(Some)
}

/// The body of a seat's request other than a move (rematch, resign,
/// abort, draw, takeback, claim): optional, as is its version.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Versioned {
    version: Option<u64>,
}

/// `POST /api/games/{id}/rematch`, `/resign`, `/abort`, `/draw`,
/// `/takeback`, `/claim` and `DELETE /draw`, `/takeback`: `action` by the
/// seat whose token the request carries.
pub(super) async fn act(
    State(state): State<AppState>,
    id: String,
    headers: HeaderMap,
    body: RawBody,
    action: Action,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let request: Versioned = parse_body(body)?;
    let key = header_key(&headers)?;
    let game = state
        .hub()
        .act(&id, bearer(&headers), action, request.version, key)
        .await?;
    game_response(&game)
}

pub(super) async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let record = state.hub().record(&game_id(&id)?).await?;
    json_body(StatusCode::OK, &record)
}

/// `GET /api/games/{id}/hints`: the values of the room's position's
/// moves; where not every move has its value in time, the engine's
/// estimate beside those that do.
pub(super) async fn hints(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<HintsQuery>, axum::extract::rejection::QueryRejection>,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let Query(query) = query.map_err(|e| super::bad_query(&e))?;
    let client = client(&state, peer, &headers);
    let hold = Hold::new(state.edge().search_slot(client)?);
    let (mut version, mut advice) = state.hub().hints(&id, None, hold).await?;
    if query.longer == Some(true) && advice.reason.is_some_and(NoHints::longer_look_helps) {
        // As on the analysis board: the longer look holds the server's
        // slot for it, not this client's, and the room keeps its answer
        // even if this request has gone by then.
        let slot = admit_longer_look(&state, client)?;
        let hub = state.hub().clone();
        (version, advice) =
            to_the_end(async move { hub.hints(&id, Some(slot), Hold::default()).await }).await?;
    }
    #[derive(Serialize)]
    struct Body<'a> {
        version: u64,
        available: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        hints: &'a [Hint],
        /// Whether `longer=true` may value more moves.
        longer_helps: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        estimate: Option<&'a EstimateView>,
    }
    let body = Body {
        version,
        available: advice.reason.is_none(),
        longer_helps: advice.reason.is_some_and(NoHints::longer_look_helps),
        reason: advice.reason.map(|reason| reason.to_string()),
        hints: &advice.exact,
        estimate: advice.estimate.as_deref(),
    };
    json_body(StatusCode::OK, &body)
}

/// `GET /api/games/{id}/hints`: with `longer=true`, a longer look where
/// the hints left moves without a value
/// ([`Hub::values_longer`](crate::hub::Hub::values_longer)).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HintsQuery {
    longer: Option<bool>,
}

/// `GET /api/games/{id}/review`: which round (from 1; the current one
/// when left out).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReviewQuery {
    round: Option<u32>,
}

/// `GET /api/games/{id}/review?round=N`: every move of a round valued at
/// once, as `GET /api/review` values a line; refused while two people
/// play the round, as hints are.
pub(super) async fn review(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<ReviewQuery>, axum::extract::rejection::QueryRejection>,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let Query(query) = query.map_err(|e| super::bad_query(&e))?;
    let round = state.hub().round_to_review(&id, query.round).await?;
    let hold = Hold::new(state.edge().search_slot(client(&state, peer, &headers))?);
    #[derive(Serialize)]
    struct Body {
        round: u32,
        #[serde(flatten)]
        body: ReviewBody,
    }
    let position = Position::new(&round.game, round.start.to_move(), &round.moves);
    let position = match round.result() {
        Some((outcome, reason)) => position.ended(outcome, reason),
        None => position,
    };
    let review = state.hub().review(round.start, round.moves, hold).await?;
    let body = Body {
        round: round.number,
        body: ReviewBody { position, review },
    };
    json_body(StatusCode::OK, &body)
}
