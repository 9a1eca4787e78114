//! What the server's test files share.

use std::fmt::Display;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tower::ServiceExt;

pub use oxo_test_support::PATIENCE;

/// Ask `probe` every 10 ms until it answers `Ok`, and return that; fail
/// the test after [`PATIENCE`] with `what` and the last `Err` (what was
/// seen instead).
pub async fn eventually<T, E: Display>(
    what: impl Display,
    mut probe: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match probe().await {
            Ok(done) => return done,
            Err(seen) => assert!(Instant::now() < deadline, "{what}: {seen}"),
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A live socket as `tokio_tungstenite::connect_async` opens it.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The next text message (a GAME, presence, a refusal) `socket` receives
/// within `within`, as JSON; pings and pongs are passed over, anything
/// else fails the test.
pub async fn next_text(socket: &mut Socket, within: Duration) -> Value {
    loop {
        let message = tokio::time::timeout(within, socket.next())
            .await
            .unwrap_or_else(|_| panic!("a message within {within:?}"))
            .expect("the socket stays open")
            .unwrap();
        match message {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected message {other:?}"),
        }
    }
}

/// [`next_text`] that is not a presence message: a GAME or a refusal.
pub async fn next_update(socket: &mut Socket, within: Duration) -> Value {
    loop {
        let message = next_text(socket, within).await;
        if message.get("presence").is_none() {
            return message;
        }
    }
}

/// One request through `router`: the status and the body as JSON (or as a
/// JSON string when it is not JSON). A `POST` says its body is JSON.
pub async fn call(
    router: &Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let json = (method == "POST").then_some("application/json");
    call_with(router, method, path, token, json, body).await
}

/// [`call`] with this `Content-Type`, or none.
pub async fn call_with(
    router: &Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    content_type: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let headers: Vec<_> = content_type
        .map(|value| (header::CONTENT_TYPE.as_str(), value))
        .into_iter()
        .collect();
    call_with_headers(router, method, path, token, &headers, body).await
}

/// [`call`] with these headers (name, value) besides the token's.
pub async fn call_with_headers(
    router: &Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::from(body.to_owned())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, value)
}
