//! The HTTP routes: JSON in, JSON out, one WebSocket per client.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use oxo_ai::StrategyKind;
use oxo_core::{BoardSize, Cell, Game, Player, Rules, RulesError, Status};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::assets;
use crate::error::ApiError;
use crate::hub::{HINT_MAX_CELLS, HINT_MAX_EMPTY, Hub, Json, ORPHAN_SWEEP, Seated};
use crate::id::{GameId, Token};
use crate::listen::{self, Limits};
use crate::rate::Limiter;
use crate::room::{Opponent, SERVER_MAX_SIDE, SeatName, Viewer};

/// How long `/readyz` waits for the store.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// The largest request body accepted; a move is about 40 bytes.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The server's state: the rooms, and a signal that tells live connections
/// the server is stopping. Cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

/// What [`AppState`] shares: one reference count to bump per request and
/// layer, not one per field.
#[derive(Debug)]
struct Shared {
    hub: Hub,
    limits: Limits,
    creates: Limiter,
    writes: Limiter,
    /// Hint searches in flight per client address.
    hint_searches: listen::PerAddress,
    closing: watch::Receiver<bool>,
    close: watch::Sender<bool>,
}

impl AppState {
    /// State around `hub`, with the default [`Limits`].
    #[must_use]
    pub fn new(hub: Hub) -> AppState {
        AppState::with_limits(hub, Limits::default())
    }

    /// State around `hub`, serving under `limits`.
    #[must_use]
    pub fn with_limits(hub: Hub, limits: Limits) -> AppState {
        let (close, closing) = watch::channel(false);
        AppState(Arc::new(Shared {
            hub,
            creates: Limiter::new(limits.creates),
            writes: Limiter::new(limits.writes),
            hint_searches: listen::PerAddress::default(),
            limits,
            closing,
            close,
        }))
    }

    /// The limits the server keeps to.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.0.limits
    }

    /// The rooms.
    #[must_use]
    pub fn hub(&self) -> &Hub {
        &self.0.hub
    }

    /// Tell every live connection to close.
    pub fn shut_down(&self) {
        self.0.close.send_replace(true);
    }
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
        .route("/readyz", get(ready))
        .route("/api/info", get(info))
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/seats/{seat}", post(join))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/hints", get(hints))
        .route("/api/games/{id}/record", get(record))
        .route("/api/analysis", get(analysis))
        .route("/analysis", get(assets::index))
        .route("/api/games/{id}/live", get(live))
        .route("/api/lobby", get(lobby))
        .route("/api/lobby/{entry}/join", post(join_entry))
        .fallback(
            |request: Request| async move { ApiError::NoRoute(request.uri().path().to_owned()) },
        )
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), edge))
        .with_state(state)
}

/// Serve `state` on `listener` until `shutdown` resolves, then close live
/// connections and finish the requests in flight.
///
/// # Errors
/// The listener failed.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    state.0.hub.follow_store();
    state.0.hub.keep_presence();
    match state.0.hub.resume().await {
        Ok(0) => {}
        Ok(n) => tracing::info!(rooms = n, "resuming computer moves"),
        Err(e) => tracing::error!(error = %e, "could not resume computer moves"),
    }
    if state.0.hub.store_is_shared() {
        // Computer turns left by a server that died mid-search (or whose
        // claim lapsed) are taken up by whichever server looks first.
        let sweeper = state.0.hub.clone();
        let mut closing = state.0.closing.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(ORPHAN_SWEEP) => {
                        match sweeper.resume().await {
                            Ok(0) => {}
                            Ok(n) => tracing::info!(rooms = n, "took up computer turns nobody was on"),
                            Err(e) => tracing::warn!(error = %e, "cannot look for computer turns nobody is on"),
                        }
                    }
                    () = closed(&mut closing) => return,
                }
            }
        });
    }
    // Rooms nobody uses leave memory now and then; the store keeps them.
    let sweeper = state.0.hub.clone();
    let pruner = state.clone();
    let mut closing = state.0.closing.clone();
    tokio::spawn(async move {
        let every = (sweeper.idle_after() / 4).max(Duration::from_secs(1));
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {
                    let evicted = sweeper.evict_idle(sweeper.idle_after());
                    pruner.0.creates.prune(Instant::now());
                    pruner.0.writes.prune(Instant::now());
                    sweeper.expire_pools();
                    if evicted > 0 {
                        tracing::debug!(evicted, in_memory = sweeper.rooms_in_memory(), "idle rooms left memory");
                    }
                }
                () = closed(&mut closing) => return,
            }
        }
    });
    let closer = state.clone();
    let limits = state.0.limits.clone();
    listen::serve(
        listener,
        app(state),
        &limits,
        async move {
            shutdown.await;
            tracing::info!("shutting down");
            closer.shut_down();
        },
        SHUTDOWN_GRACE,
    )
    .await
}

/// How long requests in flight have to finish once the server stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What every request goes through, in one layer (each layer of its own
/// costs a boxed service and future per request): a log line, the JSON
/// check and the rate limit on writes, the time limit, and JSON bodies for
/// the errors axum itself answers.
async fn edge(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = loggable(request.uri().path());
    let start = Instant::now();
    let response = match json_only(&request).or_else(|| rate_limit(&state, &request)) {
        Some(refused) => refused,
        None => time_limit(&state, next.run(request))
            .await
            .unwrap_or_else(IntoResponse::into_response),
    };
    let response = json_errors(response).await;
    log_request(method.as_str(), &path, response.status(), start);
    response
}

/// One log line per request (and per move on a live socket, whose method
/// is `WS`): method, path, status, time. Never headers, which carry tokens.
fn log_request(method: &str, path: &str, status: StatusCode, start: Instant) {
    tracing::info!(
        %method,
        path,
        status = status.as_u16(),
        micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX),
        "request"
    );
}

/// Writes beyond an address's rate are answered 429 with `Retry-After`.
/// Requests that did not come through the server's accept loop (tests
/// calling the router directly) carry no address and are not counted.
fn rate_limit(state: &AppState, request: &Request) -> Option<Response> {
    if request.method() == axum::http::Method::POST
        && let Some(ip) = client_address(
            request
                .extensions()
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|peer| peer.0),
            request.headers(),
            state.0.limits.trust_proxy,
        )
    {
        let limiter = if request.uri().path() == "/api/games" {
            &state.0.creates
        } else {
            &state.0.writes
        };
        if let Err(wait) = limiter.take(ip, Instant::now()) {
            return Some(ApiError::TooMany(wait).into_response());
        }
    }
    None
}

/// The client's address: the connection's, or with `trust_proxy` the last
/// `X-Forwarded-For` entry (the one the load balancer in front added).
fn client_address(
    peer: Option<std::net::SocketAddr>,
    headers: &HeaderMap,
    trust_proxy: bool,
) -> Option<std::net::IpAddr> {
    let peer = peer?.ip();
    if trust_proxy
        && let Some(forwarded) = headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return Some(forwarded);
    }
    Some(peer)
}

/// A request (its body included, or a move on a live socket) that takes
/// longer than the limit is answered 408; the work it started (a move being
/// saved) still finishes.
async fn time_limit<T>(state: &AppState, answer: impl Future<Output = T>) -> Result<T, ApiError> {
    let limit = state.0.limits.request_timeout;
    tokio::time::timeout(limit, answer)
        .await
        .map_err(|_| ApiError::TimedOut(limit))
}

/// `path` as logs show it: a game's id (or watch id) is a secret that
/// takes a seat or shows a game, so logs carry a short hash of it instead
/// (`/api/games/#3f9a2c/moves`), enough to follow one game through a log.
fn loggable(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut previous = "";
    for (n, part) in path.split('/').enumerate() {
        if n > 0 {
            out.push('/');
        }
        if (previous == "games" || previous == "g") && !part.is_empty() {
            out.push_str(&crate::id::log_hash(part));
        } else {
            out.push_str(part);
        }
        previous = part;
    }
    out
}

/// Errors that axum's own extractors produce (a path segment that is not
/// UTF-8, say) come as plain text; give them the JSON body every other error
/// has.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let text = match axum::body::to_bytes(response.into_body(), BODY_LIMIT).await {
        Ok(bytes) if !bytes.is_empty() => String::from_utf8_lossy(&bytes).into_owned(),
        _ => status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_lowercase(),
    };
    json_response(status, serde_json::json!({ "error": text }).to_string())
}

/// Every `POST` must say `Content-Type: application/json`, even with an
/// empty body. A page on another site can make a browser send a form or
/// plain text without asking first, but not JSON, so no other site can
/// create, join or play games in a visitor's name.
fn json_only(request: &Request) -> Option<Response> {
    if request.method() == axum::http::Method::POST {
        let json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Some(ApiError::NotJson.into_response());
        }
    }
    None
}

/// A request body as axum hands it over: the bytes, or why they could not
/// be read (too large, say).
type RawBody = Result<Bytes, axum::extract::rejection::BytesRejection>;

/// The body as `T`; an empty body is `T::default()`.
fn parse_body<T: DeserializeOwned + Default>(body: RawBody) -> Result<T, ApiError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge(BODY_LIMIT)
        } else {
            ApiError::BadRequest(rejection.body_text())
        }
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))
}

fn game_id(text: &str) -> Result<GameId, ApiError> {
    GameId::parse(text).ok_or_else(|| ApiError::NotFound(text.to_owned()))
}

/// The token of `Authorization: Bearer TOKEN`, if there is one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `body` as a JSON response: every body is written by serde.
fn json_body(status: StatusCode, body: &impl Serialize) -> Result<Response, ApiError> {
    let text = serde_json::to_string(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(json_response(status, text))
}

/// 200 `{"game": GAME}`.
fn game_response(game: &RawValue) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    struct Body<'a> {
        game: &'a RawValue,
    }
    json_body(StatusCode::OK, &Body { game })
}

fn seated_response(status: StatusCode, seated: &Seated) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    struct Body<'a> {
        game: &'a RawValue,
        seat: SeatName,
        token: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        invite: Option<&'a str>,
    }
    json_body(
        status,
        &Body {
            game: &seated.game,
            seat: SeatName(seated.seat),
            token: seated.token.expose(),
            invite: seated.invite.as_ref().map(Token::expose),
        },
    )
}

/// Readiness for load balancers: 200 when the store answers within
/// [`READY_TIMEOUT`] and the server is not shutting down, else 503 with
/// the reason. (`/healthz` is liveness: it
/// answers whenever the process does.)
async fn ready(State(state): State<AppState>) -> Result<&'static str, ApiError> {
    if *state.0.closing.borrow() {
        return Err(ApiError::NotReady("the server is shutting down".into()));
    }
    match tokio::time::timeout(READY_TIMEOUT, state.0.hub.ping()).await {
        Ok(Ok(())) => Ok("ready"),
        Ok(Err(e)) => Err(ApiError::NotReady(e.to_string())),
        Err(_) => Err(ApiError::NotReady(format!(
            "the database did not answer within {} s",
            READY_TIMEOUT.as_secs()
        ))),
    }
}

async fn info(State(state): State<AppState>) -> Response {
    let strategies: Vec<_> = StrategyKind::ALL
        .into_iter()
        .map(|kind| {
            serde_json::json!({
                "name": kind.name(),
                "description": match kind {
                    StrategyKind::Random => "random — any legal move",
                    StrategyKind::Rules => "rules — wins, blocks, forks",
                    StrategyKind::AlphaBeta => "alphabeta — searches ahead; strong on big boards",
                    StrategyKind::Perfect => "perfect — cannot lose (boards up to 6×6)",
                    StrategyKind::Learned => "learned — taught itself by self-play",
                },
                // Where it can play, when not everywhere: a longest side,
                // or a list of boards.
                "max_side": (kind == StrategyKind::Perfect).then_some(oxo_ai::PERFECT_MAX_SIDE),
                "boards": match kind {
                    StrategyKind::Learned => Some(
                        state.0.hub.catalog().learned_boards().into_iter()
                            .map(|rules| serde_json::json!({"size": rules.size().to_string(), "k": rules.k()}))
                            .collect::<Vec<_>>(),
                    ),
                    _ => None,
                },
            })
        })
        .collect();
    let body = serde_json::json!({
        "strategies": StrategyKind::NAMES,
        "opponents": strategies,
        "presets": [
            {"size": "3x3", "k": 3},
            {"size": "4x4", "k": 4},
            {"size": "7x7", "k": 5},
            {"size": "15x15", "k": 5},
        ],
        "max_side": SERVER_MAX_SIDE,
        "hint_max_cells": HINT_MAX_CELLS,
        "hint_max_empty": HINT_MAX_EMPTY,
    });
    json_response(StatusCode::OK, body.to_string())
}

/// The rules a request asks for: `size` (default 3×3, at most
/// [`SERVER_MAX_SIDE`] a side) and `k` (default: the shorter side, at most 5).
fn rules_of(size: Option<&str>, k: Option<u32>) -> Result<Rules, ApiError> {
    let size: BoardSize = size
        .unwrap_or("3x3")
        .parse()
        .map_err(|e| ApiError::BadRequest(format!("bad size: {e}")))?;
    if size.rows.max(size.cols) > SERVER_MAX_SIDE {
        return Err(ApiError::BadRequest(format!(
            "a {size} board is too large: the server offers at most {SERVER_MAX_SIDE} a side"
        )));
    }
    // Five in a row on the big boards (gomoku), the board's side on
    // small ones.
    let k = k.unwrap_or_else(|| size.rows.min(size.cols).min(5));
    Rules::new(size.rows, size.cols, k).map_err(|e| {
        let what = if matches!(e, RulesError::BadK { .. }) {
            "k"
        } else {
            "size"
        };
        ApiError::BadRequest(format!("bad {what}: {e}"))
    })
}

/// `GET /api/analysis`: a position given by its moves.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisQuery {
    size: Option<String>,
    k: Option<u32>,
    first: Option<String>,
    /// `r,c;r,c;…`, rows and columns from 0.
    moves: Option<String>,
}

/// The most moves an analysis request may list (a 32×32 board's cells).
const MAX_ANALYSIS_MOVES: usize = 1024;

impl AnalysisQuery {
    /// The game the moves make, and the moves.
    fn game(&self) -> Result<(Game, Vec<Cell>), ApiError> {
        let rules = rules_of(self.size.as_deref(), self.k)?;
        let first = match self.first.as_deref() {
            None => Player::X,
            Some(text) => SeatName::parse(text).ok_or_else(|| {
                ApiError::BadRequest(format!("bad first {text:?}: use \"x\" or \"o\""))
            })?,
        };
        let mut game = Game::starting_with(rules, first);
        let mut played = Vec::new();
        let moves = self.moves.as_deref().unwrap_or("");
        for (n, text) in moves.split(';').filter(|m| !m.is_empty()).enumerate() {
            if n >= MAX_ANALYSIS_MOVES {
                return Err(ApiError::BadRequest(format!(
                    "at most {MAX_ANALYSIS_MOVES} moves"
                )));
            }
            let cell = text
                .split_once(',')
                .and_then(|(r, c)| Some(Cell::new(r.trim().parse().ok()?, c.trim().parse().ok()?)))
                .ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "move {}: {:?} is not ROW,COL (from 0)",
                        n + 1,
                        quoted_prefix(text)
                    ))
                })?;
            game.play(cell).map_err(|e| {
                ApiError::BadRequest(format!("move {} ({},{}): {e}", n + 1, cell.row, cell.col))
            })?;
            played.push(cell);
        }
        Ok((game, played))
    }
}

/// At most 20 characters of `text`, for error messages.
fn quoted_prefix(text: &str) -> String {
    text.chars().take(20).collect()
}

/// `POST /api/games`: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateGame {
    size: Option<String>,
    k: Option<u32>,
    opponent: Option<String>,
    first: Option<String>,
    /// List the game in the lobby (open to anyone until seat O is taken,
    /// then watchable from the lobby).
    #[serde(default)]
    listed: bool,
}

impl CreateGame {
    /// The validated request: rules, opponent and starter.
    fn validate(&self, catalog: &oxo_ai::Catalog) -> Result<(Rules, Opponent, Player), ApiError> {
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
        if let Opponent::Computer(kind) = opponent {
            catalog
                .check(kind, rules)
                .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        }
        let first = match self.first.as_deref() {
            None => Player::X,
            Some(text) => SeatName::parse(text).ok_or_else(|| {
                ApiError::BadRequest(format!("bad first {text:?}: use \"x\" or \"o\""))
            })?,
        };
        Ok((rules, opponent, first))
    }
}

async fn create(State(state): State<AppState>, body: RawBody) -> Result<Response, ApiError> {
    let request: CreateGame = parse_body(body)?;
    let (rules, opponent, first) = request.validate(state.0.hub.catalog())?;
    let seated = state
        .0
        .hub
        .create(rules, opponent, first, request.listed)
        .await?;
    seated_response(StatusCode::CREATED, &seated)
}

/// `GET /api/lobby?recent=ID,ID,…`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LobbyQuery {
    recent: Option<String>,
}

/// Ids a lobby request may name in `recent`.
const LOBBY_RECENT: usize = 20;

async fn lobby(
    State(state): State<AppState>,
    query: Result<axum::extract::Query<LobbyQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let recent: Vec<GameId> = query
        .recent
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|id| !id.is_empty())
        .map(|id| {
            GameId::parse(id)
                .ok_or_else(|| ApiError::BadRequest(format!("bad id {id:?} in recent")))
        })
        .collect::<Result<_, _>>()?;
    if recent.len() > LOBBY_RECENT {
        return Err(ApiError::BadRequest(format!(
            "recent names {} games; at most {LOBBY_RECENT}",
            recent.len()
        )));
    }
    let json = state.0.hub.lobby(&recent).await?;
    Ok(json_response(StatusCode::OK, json.get().to_owned()))
}

/// `POST /api/lobby/{entry}/join`: seat O of an open game.
async fn join_entry(
    State(state): State<AppState>,
    Path(entry): Path<String>,
) -> Result<Response, ApiError> {
    let seated = state.0.hub.join_entry(&game_id(&entry)?).await?;
    seated_response(StatusCode::OK, &seated)
}

async fn show(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (handle, viewer) = state.0.hub.room_to_read(&game_id(&id)?).await?;
    Ok(json_response(
        StatusCode::OK,
        handle.current(viewer).get().to_owned(),
    ))
}

/// `POST /api/games/{id}/seats/o`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Join {
    /// The invite the creator was given.
    invite: Option<String>,
}

async fn join(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, String)>,
    body: RawBody,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let request: Join = parse_body(body)?;
    match SeatName::parse(&seat) {
        Some(Player::O) => {}
        Some(Player::X) => {
            let handle = state.0.hub.room(&id).await?;
            return Err(ApiError::Conflict {
                message: "seat x is taken".into(),
                game: Some(handle.current(Viewer::Player)),
            });
        }
        None => return Err(ApiError::NoRoute(format!("seat {seat}"))),
    }
    let seated = state.0.hub.join(&id, request.invite.as_deref()).await?;
    seated_response(StatusCode::OK, &seated)
}

/// `POST /api/games/{id}/moves`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Move {
    row: Option<i64>,
    col: Option<i64>,
    version: Option<u64>,
}

impl Move {
    /// The cell played: a move without one is a 400.
    fn cell(&self) -> Result<(i64, i64), ApiError> {
        match (self.row, self.col) {
            (Some(row), Some(col)) => Ok((row, col)),
            _ => Err(ApiError::BadRequest(
                "a move needs \"row\" and \"col\" (from 0)".into(),
            )),
        }
    }
}

async fn play(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: RawBody,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let request: Move = parse_body(body)?;
    let (row, col) = request.cell()?;
    let game = state
        .0
        .hub
        .play(&id, bearer(&headers), row, col, request.version)
        .await?;
    game_response(&game)
}

/// `POST /api/games/{id}/rematch`: the body is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rematch {
    version: Option<u64>,
}

async fn rematch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: RawBody,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let request: Rematch = parse_body(body)?;
    let game = state
        .0
        .hub
        .rematch(&id, bearer(&headers), request.version)
        .await?;
    game_response(&game)
}

async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let record = state.0.hub.record(&game_id(&id)?).await?;
    Ok(json_response(StatusCode::OK, record.get().to_owned()))
}

/// The analysis board's position: the game its moves make, and (where the
/// solver is quick) the perfect-play value of every empty cell.
async fn analysis(
    State(state): State<AppState>,
    query: Result<axum::extract::Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let (game, played) = query.game()?;
    let _in_flight = search_slot(&state, peer, &headers)?;
    let (status, next, winner) = match game.status() {
        Status::InProgress { to_move } => ("playing", Some(SeatName(to_move)), None),
        Status::Over(oxo_core::Outcome::Win(p)) => ("won", None, Some(SeatName(p))),
        Status::Over(oxo_core::Outcome::Draw) => ("draw", None, None),
    };
    let rules = game.rules();
    let moves: Vec<[u32; 2]> = played.iter().map(|c| [c.row, c.col]).collect();
    let line: Option<Vec<[u32; 2]>> = game
        .winning_line()
        .map(|line| line.cells().map(|c| [c.row, c.col]).collect());
    let board = game.to_string();
    let over = status != "playing";
    let values = if over {
        None
    } else {
        state.0.hub.values(game).await?
    };
    #[derive(Serialize)]
    struct Body<'a> {
        size: String,
        rows: u32,
        cols: u32,
        k: u32,
        board: String,
        moves: Vec<[u32; 2]>,
        next: Option<SeatName>,
        status: &'static str,
        winner: Option<SeatName>,
        line: Option<Vec<[u32; 2]>>,
        available: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        values: &'a RawValue,
    }
    let empty: Json = crate::hub::to_json(&Vec::<()>::new());
    let body = Body {
        size: rules.size().to_string(),
        rows: rules.rows(),
        cols: rules.cols(),
        k: rules.k(),
        board,
        moves,
        next,
        status,
        winner,
        line,
        available: over || values.is_some(),
        reason: (!over && values.is_none()).then(|| {
            format!(
                "values are given on boards of up to {HINT_MAX_CELLS} cells, and on boards up to \
                 7x7 once at most {HINT_MAX_EMPTY} cells are empty"
            )
        }),
        values: values.as_deref().unwrap_or(&empty),
    };
    let text = serde_json::to_string(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(json_response(StatusCode::OK, text))
}

/// Hint searches one client address may have in flight at once.
pub const HINTS_IN_FLIGHT: usize = 2;

/// One of the client's [`HINTS_IN_FLIGHT`] places for a search (hints or
/// the analysis board), held until dropped: a client asking for values in
/// many positions at once would otherwise queue a search for each. `None`
/// for a request with no address (the router called directly, in tests).
fn search_slot(
    state: &AppState,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    headers: &HeaderMap,
) -> Result<Option<listen::Counted>, ApiError> {
    client_address(peer.map(|p| p.0.0), headers, state.0.limits.trust_proxy)
        .map(|ip| {
            state
                .0
                .hint_searches
                .take(ip, HINTS_IN_FLIGHT)
                .ok_or(ApiError::TooMany(Duration::from_secs(1)))
        })
        .transpose()
}

async fn hints(
    State(state): State<AppState>,
    Path(id): Path<String>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let _in_flight = search_slot(&state, peer, &headers)?;
    let (version, hints) = state.0.hub.hints(&id).await?;
    let body = match hints {
        Some(hints) => {
            #[derive(Serialize)]
            struct Body<'a> {
                version: u64,
                available: bool,
                hints: &'a RawValue,
            }
            serde_json::to_string(&Body {
                version,
                available: true,
                hints: &hints,
            })
            .map_err(|e| ApiError::Internal(e.to_string()))?
        }
        None => serde_json::json!({
            "version": version,
            "available": false,
            "reason": format!(
                "hints are offered on boards of up to {HINT_MAX_CELLS} cells, and on boards up to 7x7 \
                 once at most {HINT_MAX_EMPTY} cells are empty"
            ),
            "hints": [],
        })
        .to_string(),
    };
    Ok(json_response(StatusCode::OK, body))
}

/// `GET /api/games/{id}/live?token=T&presence=true`: both optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LiveQuery {
    /// A seat's token: the connection counts as that seat's presence (and
    /// receives presence messages).
    token: Option<String>,
    /// Receive presence messages without a seat (spectators).
    #[serde(default)]
    presence: bool,
}

async fn live(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<LiveQuery>, axum::extract::rejection::QueryRejection>,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
    connection: Option<axum::Extension<listen::Held>>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let id = game_id(&id)?;
    let (handle, viewer) = state.0.hub.room_to_read(&id).await?;
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
                .0
                .hub
                .seat_in(&handle, token)
                .await
                .ok_or(ApiError::NotASeat)?,
        ),
        (Some(_), Viewer::Spectator) => return Err(ApiError::NotASeat),
        (None, _) => None,
    };
    let presence = (seat.is_some() || query.presence).then(|| handle.presence());
    let attendance = seat.map(|seat| state.0.hub.attend(&handle, seat));
    let updates = handle.subscribe(viewer);
    let closing = state.0.closing.clone();
    let send_timeout = state.0.limits.send_timeout;
    let mover = match (seat, query.token) {
        (Some(_), Some(token)) => Some(Mover {
            ip: client_address(peer.map(|p| p.0.0), &headers, state.0.limits.trust_proxy),
            state: state.clone(),
            log_path: loggable(&format!("/api/games/{id}/moves")),
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
            push_updates(socket, updates, presence, closing, send_timeout, mover).await;
        }))
}

/// A player's live socket, which may also carry that player's moves.
struct Mover {
    state: AppState,
    id: GameId,
    token: String,
    /// Counted against the same write rate as `POST`s from this address.
    ip: Option<std::net::IpAddr>,
    /// The path its moves are logged under, as a `POST`'s would be.
    log_path: String,
}

impl Mover {
    /// Play the move in `frame` (the body `POST /moves` takes) as this
    /// socket's seat. `None` once it is played: the GAME with it comes as
    /// every change does. Otherwise the refusal to send back, as
    /// `{"error", "status"[, "game"]}`.
    async fn play(&self, frame: &[u8]) -> Option<String> {
        let start = Instant::now();
        let answer = async {
            // Counted before it is read, as a POST is.
            if let Some(ip) = self.ip {
                self.state
                    .0
                    .writes
                    .take(ip, Instant::now())
                    .map_err(ApiError::TooMany)?;
            }
            let request: Move = serde_json::from_slice(frame)
                .map_err(|e| ApiError::BadRequest(format!("a move on this socket: {e}")))?;
            let (row, col) = request.cell()?;
            let played =
                self.state
                    .0
                    .hub
                    .play(&self.id, Some(&self.token), row, col, request.version);
            time_limit(&self.state, played)
                .await?
                .map(drop)
                .map_err(ApiError::from)
        };
        let result = answer.await;
        let status = result
            .as_ref()
            .err()
            .map_or(StatusCode::OK, ApiError::status);
        log_request("WS", &self.log_path, status, start);
        let error = result.err()?;
        Some(error.socket_body())
    }
}

/// How often a live connection is pinged, so that a client that vanished
/// without closing (a phone that lost its network) is noticed...
const PING_EVERY: Duration = Duration::from_secs(30);

/// ...and dropped when nothing, not even a pong, came back for this long.
const SILENT_FOR: Duration = Duration::from_secs(75);

/// Send the current GAME, then every change, until the client goes away or
/// the server stops; with `presence`, also each seat's presence as
/// `{"presence": {"x": bool, "o": bool}}`, at once and on every change.
/// A client that does not take an update within
/// `send_timeout` is dropped (its unread updates would otherwise pile up in
/// the server's socket buffers). A player's socket (`mover`) takes moves as
/// text frames, each answered only when refused; on any other socket a data
/// frame closes the connection with 1008.
async fn push_updates(
    mut socket: WebSocket,
    mut updates: watch::Receiver<Json>,
    mut presence: Option<watch::Receiver<crate::hub::PresenceSeats>>,
    mut closing: watch::Receiver<bool>,
    send_timeout: Duration,
    mover: Option<Mover>,
) {
    let presence_message = |seats: crate::hub::PresenceSeats| {
        Message::Text(
            serde_json::json!({"presence": {"x": seats[0], "o": seats[1]}})
                .to_string()
                .into(),
        )
    };
    let mut game = updates.borrow_and_update().clone();
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
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
        if !send(&mut socket, Message::Text(game.get().into())).await {
            return;
        }
        if first {
            first = false;
            if let Some(seats) = presence.as_mut().map(|p| *p.borrow_and_update())
                && !send(&mut socket, presence_message(seats)).await
            {
                return;
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
                    if !send(&mut socket, presence_message(seats)).await {
                        return;
                    }
                }
                message = socket.recv() => {
                    match (message, &mover) {
                        (None | Some(Err(_) | Ok(Message::Close(_))), _) => return,
                        (Some(Ok(Message::Text(frame))), Some(mover)) => {
                            heard = Instant::now();
                            // The server stopping does not wait for a move
                            // to be saved (its own request time limit).
                            let refused = tokio::select! {
                                refused = mover.play(frame.as_bytes()) => refused,
                                () = closed(&mut closing) => {
                                    let _ = send(&mut socket, shutting_down()).await;
                                    return;
                                }
                            };
                            if let Some(refused) = refused
                                && !send(&mut socket, Message::Text(refused.into())).await
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
                    if heard.elapsed() > SILENT_FOR
                        || !send(&mut socket, Message::Ping(Default::default())).await
                    {
                        return;
                    }
                }
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
async fn presence_changed(
    presence: &mut Option<watch::Receiver<crate::hub::PresenceSeats>>,
) -> crate::hub::PresenceSeats {
    if let Some(receiver) = presence
        && receiver.changed().await.is_ok()
    {
        return *receiver.borrow_and_update();
    }
    std::future::pending().await
}

/// Resolves once the server starts shutting down.
async fn closed(closing: &mut watch::Receiver<bool>) {
    // An error means the sender is gone, which also means shutting down.
    let _ = closing.wait_for(|closing| *closing).await;
}

#[cfg(test)]
mod tests {
    use super::loggable;

    #[test]
    fn logs_carry_no_game_ids() {
        let logged = loggable("/api/games/7cphw5cxfzcr/moves");
        assert!(!logged.contains("7cphw5cxfzcr"), "{logged}");
        assert!(
            logged.starts_with("/api/games/#") && logged.ends_with("/moves"),
            "{logged}"
        );
        assert_eq!(logged.len(), "/api/games/#123456/moves".len());
        // The same id, the same hash: one game can be followed.
        assert_eq!(
            loggable("/g/7cphw5cxfzcr").replace("/g/", "/api/games/") + "/moves",
            logged
        );
        for path in ["/", "/api/games", "/api/info", "/healthz", "/assets/app.js"] {
            assert_eq!(loggable(path), path);
        }
    }
}
