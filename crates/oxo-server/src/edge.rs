//! The edge policy: what every request goes through on its way in and out,
//! whether it comes as an HTTP request or as a move on a player's live
//! socket.
//!
//! [`Edge`] holds the policy and its state: which client a request is
//! counted against ([`Edge::client`]), the write rates ([`Edge::admit`]),
//! the time a request may take ([`Edge::deadline`]), the searches a client
//! may have in flight ([`Edge::search_slot`]) and the log line of each
//! answer ([`Visit`]). The HTTP middleware ([`layer`]) and the WebSocket
//! message loop (`routes/live.rs`) both call it, so a move counts, times
//! out and is logged the same way whichever way it came.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};

use crate::error::ApiError;
use crate::listen::{self, Limits};
use crate::rate::{Limiter, Rate};
use crate::routes::{BODY_LIMIT, json_response};
use crate::state::AppState;

/// Hint searches one client address may have in flight at once.
pub const HINTS_IN_FLIGHT: usize = 2;

/// What a request does, for the rate it is counted against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Reads are not counted.
    Read,
    /// Creating a game, the costliest write to hold: a rate of its own.
    Create,
    /// Every other write: joins, moves (by `POST` or on a socket), rematches,
    /// resignations, offers and their withdrawals.
    Write,
    /// Opening a seat's live socket (its presence told, an open game's
    /// creator noted): at the writes' rate, in a bucket of its own, so that
    /// pages reconnecting all at once (after a restart, many players behind
    /// one address) never take the tokens their moves need.
    Connect,
    /// Starting a longer look at a position's values (`longer=true`): at
    /// [`LONGER_LOOKS`], in a bucket of its own.
    LongerLook,
}

/// The policy every request goes through, and its per-client state.
#[derive(Debug)]
pub(crate) struct Edge {
    limits: Limits,
    creates: Limiter,
    writes: Limiter,
    connects: Limiter,
    /// Hint searches in flight per client address.
    searches: listen::PerAddress,
    /// Longer looks started per client address.
    longer: Limiter,
}

/// How often one address may start a longer look (`longer=true`) where
/// writes are limited at all: two, then one every 30 s, so that the
/// server's one slot for them goes round.
pub(crate) const LONGER_LOOKS: Rate = Rate {
    burst: 2,
    per_second: 1.0 / 30.0,
};

impl Edge {
    pub(crate) fn new(limits: Limits) -> Edge {
        Edge {
            creates: Limiter::new(limits.creates),
            writes: Limiter::new(limits.writes),
            connects: Limiter::new(limits.writes),
            searches: listen::PerAddress::default(),
            longer: Limiter::new(if limits.writes.is_unlimited() {
                Rate::UNLIMITED
            } else {
                LONGER_LOOKS
            }),
            limits,
        }
    }

    /// The limits the policy applies.
    pub(crate) const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The client's address: the connection's (`peer`), or with
    /// `trust_proxy` the last `X-Forwarded-For` entry (the one the load
    /// balancer in front added). `None` for a request that did not come
    /// through the server's accept loop (tests calling the router
    /// directly): such a request is not counted.
    pub(crate) fn client(&self, peer: Option<SocketAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer?.ip();
        if self.limits.trust_proxy
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

    /// Count `action` against `client`'s rate: writes beyond it are
    /// refused with [`ApiError::TooMany`] (429 with `Retry-After`), counted
    /// before the request is read.
    pub(crate) fn admit(&self, action: Action, client: Option<IpAddr>) -> Result<(), ApiError> {
        let limiter = match action {
            Action::Read => return Ok(()),
            Action::Create => &self.creates,
            Action::Write => &self.writes,
            Action::Connect => &self.connects,
            Action::LongerLook => &self.longer,
        };
        match client {
            Some(ip) => limiter.take(ip, Instant::now()).map_err(ApiError::TooMany),
            None => Ok(()),
        }
    }

    /// `answer` within the request time limit, or else, when
    /// `waiting_on_client` says the server was waiting for the rest of the
    /// request, [`ApiError::TimedOut`] (408: the client was slow), and
    /// [`ApiError::Overdue`] (503: the server was) when it was not. The work
    /// it started (a move being saved) still finishes. `write` says whether
    /// the request asks for a change.
    pub(crate) async fn deadline<T>(
        &self,
        answer: impl Future<Output = T>,
        waiting_on_client: impl FnOnce() -> bool,
        write: bool,
    ) -> Result<T, ApiError> {
        let limit = self.limits.request_timeout;
        tokio::time::timeout(limit, answer).await.map_err(|_| {
            if waiting_on_client() {
                ApiError::TimedOut(limit)
            } else {
                ApiError::Overdue { limit, write }
            }
        })
    }

    /// One of `client`'s [`HINTS_IN_FLIGHT`] places for a search (hints or
    /// the analysis board), held until dropped: a client asking for values
    /// in many positions at once would otherwise queue a search for each.
    /// `None` for a request with no address.
    pub(crate) fn search_slot(
        &self,
        client: Option<IpAddr>,
    ) -> Result<Option<listen::Counted>, ApiError> {
        client
            .map(|ip| {
                self.searches
                    .take(ip, HINTS_IN_FLIGHT)
                    .ok_or(ApiError::TooMany(Duration::from_secs(1)))
            })
            .transpose()
    }

    /// Forget the clients whose rates have recovered, so memory stays with
    /// the active ones.
    pub(crate) fn prune(&self, now: Instant) {
        self.creates.prune(now);
        self.longer.prune(now);
        self.writes.prune(now);
        self.connects.prune(now);
    }
}

/// One request being answered (or one move on a live socket), logged once
/// with its status when the answer is known.
#[derive(Debug)]
pub(crate) struct Visit<'a> {
    method: &'a str,
    path: &'a str,
    client: Option<IpAddr>,
    start: Instant,
}

/// The paths of the health checks, which a load balancer asks for every
/// second or so.
const PROBES: [&str; 2] = ["/healthz", "/readyz"];

impl<'a> Visit<'a> {
    /// A request to `path` as [`loggable`] wrote it, from `client` (as
    /// [`Edge::client`] names it), starting now; a move on a live socket
    /// has the method `WS`.
    pub(crate) fn begin(method: &'a str, path: &'a str, client: Option<IpAddr>) -> Visit<'a> {
        Visit {
            method,
            path,
            client,
            start: Instant::now(),
        }
    }

    /// The log line: method, path, status, time, client (`-` for a request
    /// that came through no socket). Never headers, which carry tokens.
    /// A health check that succeeds is logged at debug: at info, a load
    /// balancer's would be most of the log (86,400 lines a day at one a
    /// second).
    pub(crate) fn log(self, status: StatusCode) {
        let micros = u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX);
        let client = Client(self.client);
        if status.is_success() && PROBES.contains(&self.path) {
            tracing::debug!(
                method = %self.method,
                path = self.path,
                status = status.as_u16(),
                micros,
                client = %client,
                "request"
            );
        } else {
            tracing::info!(
                method = %self.method,
                path = self.path,
                status = status.as_u16(),
                micros,
                client = %client,
                "request"
            );
        }
    }
}

/// A request's client as its log line shows it: the address, or `-`.
struct Client(Option<IpAddr>);

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(ip) => ip.fmt(f),
            None => f.write_str("-"),
        }
    }
}

/// The HTTP side of the edge, in one layer (each layer of its own costs a
/// boxed service and future per request): the JSON check and the rate
/// limit on writes, the time limit, JSON bodies for the errors axum itself
/// answers, and the log line.
pub(crate) async fn layer(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = loggable(request.uri().path());
    let edge = state.edge();
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|peer| peer.0);
    let client = edge.client(peer, request.headers());
    let visit = Visit::begin(method.as_str(), &path, client);
    let response = match json_only(&request)
        .and_then(|()| within_limit(&request))
        .and_then(|()| edge.admit(action(&request), client))
    {
        Err(refused) => refused.into_response(),
        Ok(()) => {
            let write = asks_for_change(&request);
            let (request, waiting) = Watched::wrap(request);
            let response = edge
                .deadline(next.run(request), || waiting.load(Ordering::Relaxed), write)
                .await
                .unwrap_or_else(IntoResponse::into_response);
            if write {
                response
            } else {
                ApiError::answering_read(response)
            }
        }
    };
    let response = json_errors(response).await;
    visit.log(response.status());
    response
}

/// A request's body that notes whether the server is waiting for more of
/// it, so that a request over its time can be told apart: the server
/// waiting on the client's bytes (the client was slow), or not (the body
/// came whole, or the server never needed it: the server was slow).
struct Watched {
    inner: Body,
    waiting: Arc<AtomicBool>,
}

impl Watched {
    /// `request` with its body watched, and the flag that says the server
    /// is waiting for more of it.
    fn wrap(request: Request) -> (Request, Arc<AtomicBool>) {
        let (parts, inner) = request.into_parts();
        let waiting = Arc::new(AtomicBool::new(false));
        let body = Body::new(Watched {
            inner,
            waiting: Arc::clone(&waiting),
        });
        (Request::from_parts(parts, body), waiting)
    }
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        self.waiting.store(polled.is_pending(), Ordering::Relaxed);
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// What `request` does: every request that may change something (every
/// method but `GET` and `HEAD`) is a write, `POST /api/games` a creation.
fn action(request: &Request) -> Action {
    if !asks_for_change(request) {
        Action::Read
    } else if request.method() == Method::POST && request.uri().path() == "/api/games" {
        Action::Create
    } else {
        Action::Write
    }
}

/// Whether `request` may change something, which what a 503 tells the
/// client depends on: every method but `GET` and `HEAD` (a `DELETE`
/// declines an offer).
fn asks_for_change(request: &Request) -> bool {
    !matches!(*request.method(), Method::GET | Method::HEAD)
}

/// `path` as logs show it: a game's id (or watch id) is a secret that
/// takes a seat or shows a game, so logs carry a short hash of it instead
/// (`/api/games/#3f9a2c/moves`), enough to follow one game through a log;
/// a lobby entry id too, as the manual says of every id.
pub(crate) fn loggable(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut previous = "";
    for (n, part) in path.split('/').enumerate() {
        if n > 0 {
            out.push('/');
        }
        if matches!(previous, "games" | "g" | "lobby") && !part.is_empty() {
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
/// has. (The HTML 404 page for browsers is written so on purpose.)
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_ours = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| {
            v.as_bytes().starts_with(b"application/json") || v.as_bytes().starts_with(b"text/html")
        });
    if !(status.is_client_error() || status.is_server_error()) || is_ours {
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

/// A body its `Content-Length` says is over [`BODY_LIMIT`] is refused at
/// once (413), before any of it is read: the body's own limit would only
/// find out as the bytes arrive, and wait for them until the deadline.
fn within_limit(request: &Request) -> Result<(), ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(length) if length > BODY_LIMIT as u64 => Err(ApiError::TooLarge(BODY_LIMIT)),
        _ => Ok(()),
    }
}

/// Every `POST` must say `Content-Type: application/json`, even with an
/// empty body. A page on another site can make a browser send a form or
/// plain text without asking first, but not JSON, so no other site can
/// create, join or play games in a visitor's name.
fn json_only(request: &Request) -> Result<(), ApiError> {
    if request.method() == Method::POST {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::NotJson);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listen::Rate;

    /// Every request that may change a game counts against the writes'
    /// rate, a `DELETE` (declining an offer) as a `POST` does.
    #[test]
    fn what_a_request_does_by_its_method() {
        let request = |method: Method, path: &str| {
            Request::builder()
                .method(method)
                .uri(path)
                .body(axum::body::Body::empty())
                .unwrap()
        };
        let draw = "/api/games/abc/draw";
        assert_eq!(action(&request(Method::GET, draw)), Action::Read);
        assert_eq!(action(&request(Method::HEAD, draw)), Action::Read);
        assert_eq!(action(&request(Method::POST, draw)), Action::Write);
        assert_eq!(action(&request(Method::DELETE, draw)), Action::Write);
        assert_eq!(action(&request(Method::POST, "/api/games")), Action::Create);
    }

    /// Over its time, a request is the client's fault while the server
    /// waits for its body (408) and the server's otherwise (503), which
    /// says a change may have been saved only for a write.
    #[tokio::test]
    async fn a_late_answer_is_blamed_on_whoever_was_slow() {
        // Answers that never come: the time runs out however fast.
        let edge = Edge::new(Limits {
            request_timeout: Duration::from_millis(5),
            ..Limits::default()
        });
        let never = std::future::pending::<()>;
        let late = edge.deadline(never(), || true, true).await.unwrap_err();
        assert_eq!(late.status(), StatusCode::REQUEST_TIMEOUT);
        let late = edge.deadline(never(), || false, true).await.unwrap_err();
        assert_eq!(late.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            late.body(false),
            r#"{"error":"the server took longer than 0.005 s to answer; a change it was making may still be saved: retry with the same Idempotency-Key, or reload the game to see","outcome":"unknown"}"#
        );
        let late = edge.deadline(never(), || false, false).await.unwrap_err();
        assert_eq!(late.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            late.body(false),
            r#"{"error":"the server took longer than 0.005 s to answer; try again"}"#
        );
    }

    #[test]
    fn writes_are_counted_per_client_and_reads_never() {
        let once = Rate {
            burst: 1,
            per_second: 0.001,
        };
        let edge = Edge::new(Limits {
            creates: once,
            writes: once,
            ..Limits::default()
        });
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(edge.admit(Action::Write, Some(ip)).is_ok());
        assert!(matches!(
            edge.admit(Action::Write, Some(ip)),
            Err(ApiError::TooMany(_))
        ));
        // Creation has a bucket of its own; reads and requests with no
        // address are not counted.
        assert!(edge.admit(Action::Create, Some(ip)).is_ok());
        for _ in 0..3 {
            assert!(edge.admit(Action::Read, Some(ip)).is_ok());
            assert!(edge.admit(Action::Write, None).is_ok());
        }
    }

    #[test]
    fn the_client_is_the_proxys_last_entry_only_behind_a_trusted_proxy() {
        let peer: SocketAddr = "10.0.0.9:4000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", "1.1.1.1, 2.2.2.2".parse().unwrap());
        let direct = Edge::new(Limits::default());
        assert_eq!(direct.client(Some(peer), &headers), Some(peer.ip()));
        assert_eq!(direct.client(None, &headers), None);
        let proxied = Edge::new(Limits {
            trust_proxy: true,
            ..Limits::default()
        });
        assert_eq!(
            proxied.client(Some(peer), &headers),
            Some("2.2.2.2".parse().unwrap())
        );
    }

    /// What `log` writes at level info, one line each.
    fn logged_at_info(log: impl FnOnce()) -> Vec<String> {
        #[derive(Clone, Default)]
        struct Lines(Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, log);
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn health_checks_are_logged_only_when_they_fail_and_every_line_names_its_client() {
        let client: IpAddr = "203.0.113.7".parse().unwrap();
        let lines = logged_at_info(|| {
            Visit::begin("GET", "/readyz", Some(client)).log(StatusCode::OK);
            Visit::begin("GET", "/healthz", Some(client)).log(StatusCode::OK);
            Visit::begin("GET", "/readyz", Some(client)).log(StatusCode::SERVICE_UNAVAILABLE);
            Visit::begin("GET", "/api/info", Some(client)).log(StatusCode::OK);
            Visit::begin("GET", "/api/lobby", None).log(StatusCode::OK);
        });
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines[0].contains("path=\"/readyz\" status=503")
                && lines[0].contains("client=203.0.113.7"),
            "{lines:#?}"
        );
        assert!(
            lines[1].contains("path=\"/api/info\" status=200")
                && lines[1].contains("client=203.0.113.7"),
            "{lines:#?}"
        );
        assert!(lines[2].contains("client=-"), "{lines:#?}");
    }

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
        let joined = loggable("/api/lobby/2xdayp9tacnf/join");
        assert!(
            joined.starts_with("/api/lobby/#") && !joined.contains("2xdayp9tacnf"),
            "{joined}"
        );
        for path in [
            "/",
            "/api/games",
            "/api/lobby",
            "/api/info",
            "/healthz",
            "/assets/main.js",
        ] {
            assert_eq!(loggable(path), path);
        }
    }
}
