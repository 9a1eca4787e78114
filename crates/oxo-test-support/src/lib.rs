//! What oxo's tests and benchmarks share, so each exists once:
//!
//! - [`InProcess`]: `oxo_server` on a free port of this process, for tests
//!   that need a real socket (WebSockets, a browser) and the server's state.
//! - [`ServeProcess`]: the real `oxo serve` binary, for tests that kill it
//!   and for the load benchmark; it hands back the address the server
//!   printed and the tail of its log.
//! - [`Client`]: one HTTP/1.1 client (hyper's, keeping connections alive)
//!   with JSON helpers, usable from async code or, through
//!   [`BlockingClient`], from plain threads.
//! - [`seated_game`]: a game with both seats taken, the common start of
//!   many tests.
//! - [`Postgres`] and [`Haproxy`]: the services multi-node tests run
//!   against, each started on a free port and a temp dir of its own from
//!   Debian's packages (`scripts/install-services.sh` installs them; a
//!   test without them fails, it is never skipped).
//!
//! Everything here is for tests: failures panic with a message saying
//! what did not happen, or return errors where a benchmark must report
//! them.

/// How long a test waits for what a server or a program does on its own (a
/// computer's reply, a change reaching another node, a process stopping):
/// long, so that a busy machine does not fail a test; the tests check that
/// it happens, not how soon.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use oxo_server::{AppState, Hub, HubConfig, Store};
use serde_json::Value;

mod haproxy;
mod postgres;

pub use haproxy::Haproxy;
pub use postgres::Postgres;

/// How long anything here waits for the server.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// `oxo_server` serving on a free port of 127.0.0.1 in this process, on
/// the current tokio runtime; stopped when dropped.
#[derive(Debug)]
pub struct InProcess {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its state, for calls that skip the socket.
    pub state: AppState,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl InProcess {
    /// Serve games kept in `store`, with the default hub settings.
    pub async fn start(store: Arc<dyn Store>) -> InProcess {
        InProcess::start_with(store, &HubConfig::default()).await
    }

    /// Serve games kept in `store`, with these hub settings.
    /// (No rate limits: tests play many games from one address; see
    /// [`InProcess::start_limited`].)
    pub async fn start_with(store: Arc<dyn Store>, config: &HubConfig) -> InProcess {
        let hub = Hub::new(store, config);
        InProcess::serve(
            AppState::with_limits(hub, oxo_server::Limits::without_rates()),
            "127.0.0.1:0".parse().expect("an address"),
        )
        .await
    }

    /// Like [`InProcess::start_with`], on `addr`: a server started again
    /// where a stopped one listened, as after a restart.
    pub async fn start_at(
        addr: SocketAddr,
        store: Arc<dyn Store>,
        config: &HubConfig,
    ) -> InProcess {
        let hub = Hub::new(store, config);
        InProcess::serve(
            AppState::with_limits(hub, oxo_server::Limits::without_rates()),
            addr,
        )
        .await
    }

    /// Serve games kept in `store` under these connection limits.
    pub async fn start_limited(store: Arc<dyn Store>, limits: oxo_server::Limits) -> InProcess {
        let hub = Hub::new(store, &HubConfig::default());
        InProcess::serve(
            AppState::with_limits(hub, limits),
            "127.0.0.1:0".parse().expect("an address"),
        )
        .await
    }

    async fn serve(state: AppState, addr: SocketAddr) -> InProcess {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .unwrap_or_else(|e| panic!("the server's port {addr}: {e}"));
        let addr = listener.local_addr().expect("the server's address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(oxo_server::run(listener, state.clone(), async {
            let _ = stopped.await;
        }));
        InProcess {
            addr,
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Ask the server to stop (it closes live connections and finishes
    /// the requests in flight); [`InProcess::wait`] waits for it.
    pub fn request_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Wait until the server has stopped (after [`InProcess::request_stop`]).
    ///
    /// # Errors
    /// The server failed.
    pub async fn wait(mut self) -> std::io::Result<()> {
        match self.task.take() {
            Some(task) => task.await.map_err(std::io::Error::other)?,
            None => Ok(()),
        }
    }

    /// Stop the server and wait until it has.
    ///
    /// # Errors
    /// The server failed.
    pub async fn stop(mut self) -> std::io::Result<()> {
        self.request_stop();
        self.wait().await
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The last lines a child process wrote to stderr, and how many.
#[derive(Debug, Default)]
struct LogTail {
    lines: u64,
    last: VecDeque<String>,
}

/// The real `oxo serve`, started with `--addr 127.0.0.1:0` and the
/// arguments given; killed (SIGKILL) when dropped.
#[derive(Debug)]
pub struct ServeProcess {
    child: Child,
    /// Where it listens, as it printed.
    pub addr: SocketAddr,
    log: Arc<Mutex<LogTail>>,
}

impl ServeProcess {
    /// Start `binary serve --addr 127.0.0.1:0 ARGS` with `OXO_LOG=warn`
    /// (or the caller's `OXO_LOG`),
    /// and wait for the line with its address.
    ///
    /// # Errors
    /// It could not start, or printed no address within [`TIMEOUT`]
    /// (the error quotes its stderr).
    pub fn start(binary: &Path, args: &[&str]) -> Result<ServeProcess, String> {
        let level = std::env::var("OXO_LOG").unwrap_or_else(|_| "warn".into());
        ServeProcess::start_logging(binary, args, &level)
    }

    /// [`ServeProcess::start`] with `OXO_LOG=level`.
    ///
    /// # Errors
    /// As [`ServeProcess::start`].
    pub fn start_logging(
        binary: &Path,
        args: &[&str],
        level: &str,
    ) -> Result<ServeProcess, String> {
        let mut child = Command::new(binary)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .env("OXO_LOG", level)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let log = Arc::new(Mutex::new(LogTail::default()));
        if let Some(stderr) = child.stderr.take() {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                    log.lines += 1;
                    if log.last.len() == 5 {
                        log.last.pop_front();
                    }
                    log.last.push_back(line);
                }
            });
        }
        let stdout = child.stdout.take().ok_or("no stdout from the server")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = tx.send(reader.read_line(&mut line).map(|_| line));
            // Keep reading so the server never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let mut server = ServeProcess {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            log,
        };
        let line = match rx.recv_timeout(TIMEOUT) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(format!("cannot read the server's stdout: {e}")),
            Err(_) => {
                return Err(format!(
                    "the server printed no address within {TIMEOUT:?}; its stderr: {}",
                    server.log_text()
                ));
            }
        };
        server.addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|text| text.parse().ok())
            .ok_or_else(|| {
                format!(
                    "unexpected first line from the server: {:?}; its stderr: {}",
                    line.trim_end(),
                    server.log_text()
                )
            })?;
        Ok(server)
    }

    /// The server's process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its exit status, if it has exited.
    ///
    /// # Errors
    /// The status could not be read.
    pub fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.child.try_wait()
    }

    /// Kill it with SIGKILL (no chance to flush anything) and reap it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last lines of its stderr, joined, or `(empty)`.
    #[must_use]
    pub fn log_text(&self) -> String {
        // Give the reader thread a moment to catch the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        if log.last.is_empty() {
            "(empty)".into()
        } else {
            log.last.iter().cloned().collect::<Vec<_>>().join(" | ")
        }
    }

    /// How many lines it wrote to stderr, then the last few; empty when
    /// it wrote none.
    #[must_use]
    pub fn log_summary(&self) -> Vec<String> {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        if log.lines == 0 {
            return Vec::new();
        }
        let mut out = vec![format!("{} line(s) on stderr; the last:", log.lines)];
        out.extend(log.last.iter().cloned());
        out
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 client for a server at `addr`, keeping connections alive.
#[derive(Clone, Debug)]
pub struct Client {
    addr: SocketAddr,
    http: HyperClient<HttpConnector, Full<Bytes>>,
}

/// A response: status and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

impl Response {
    /// The body as JSON (`Value::Null` when it is not JSON).
    #[must_use]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

impl Client {
    /// A client of the server at `addr`.
    #[must_use]
    pub fn new(addr: SocketAddr) -> Client {
        Client::connector(addr, None)
    }

    /// A client of the server at `addr` whose connections come from the
    /// local address `from` (on Linux every 127.x.y.z is loopback), so a
    /// test can play a client other than the ones it abuses the server with.
    #[must_use]
    pub fn new_from(addr: SocketAddr, from: std::net::IpAddr) -> Client {
        Client::connector(addr, Some(from))
    }

    fn connector(addr: SocketAddr, from: Option<std::net::IpAddr>) -> Client {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_local_address(from);
        Client {
            addr,
            http: HyperClient::builder(TokioExecutor::new()).build(connector),
        }
    }

    /// The server's address.
    #[must_use]
    pub const fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `method path` with `body` (every method but `GET` says JSON) and a seat's
    /// token; the answer within [`TIMEOUT`].
    ///
    /// # Errors
    /// The connection failed or timed out, in words.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> Result<Response, String> {
        let mut request = http::Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr));
        if method != "GET" {
            request = request.header(http::header::CONTENT_TYPE, "application/json");
        }
        if let Some(token) = token {
            request = request.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_owned())))
            .map_err(|e| format!("{method} {path}: {e}"))?;
        let exchange = async {
            let response = self
                .http
                .request(request)
                .await
                .map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?
                .to_bytes();
            let body = String::from_utf8(bytes.to_vec()).map_err(|e| e.to_string())?;
            Ok::<_, String>(Response { status, body })
        };
        tokio::time::timeout(TIMEOUT, exchange)
            .await
            .map_err(|_| format!("{method} {path}: no answer within {TIMEOUT:?}"))?
            .map_err(|e| format!("{method} {path}: {e}"))
    }

    /// Like [`Client::send`] with a JSON body (`Value::Null` for none); the
    /// status and the JSON answer.
    ///
    /// # Errors
    /// The server could not be reached, in words.
    pub async fn try_call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> Result<(u16, Value), String> {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let response = self.send(method, path, token, &body).await?;
        Ok((response.status, response.json()))
    }

    /// [`Client::try_call`], panicking when the server cannot be reached.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> (u16, Value) {
        self.try_call(method, path, token, body)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `GET path`, which must answer 200 with JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let (status, body) = self.call("GET", path, None, &Value::Null).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }
}

/// A [`Client`] for code without a runtime (plain `#[test]`s and threads):
/// each request runs on a small runtime of its own.
#[derive(Debug)]
pub struct BlockingClient {
    client: Client,
    runtime: tokio::runtime::Runtime,
}

impl BlockingClient {
    /// A client of the server at `addr`.
    #[must_use]
    pub fn new(addr: SocketAddr) -> BlockingClient {
        BlockingClient::with(|| Client::new(addr))
    }

    /// See [`Client::new_from`].
    #[must_use]
    pub fn new_from(addr: SocketAddr, from: std::net::IpAddr) -> BlockingClient {
        BlockingClient::with(|| Client::new_from(addr, from))
    }

    fn with(make: impl FnOnce() -> Client) -> BlockingClient {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the client");
        let client = {
            let _inside = runtime.enter();
            make()
        };
        BlockingClient { client, runtime }
    }

    /// See [`Client::send`].
    ///
    /// # Errors
    /// The connection failed or timed out.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> Result<Response, String> {
        self.runtime
            .block_on(self.client.send(method, path, token, body))
    }

    /// See [`Client::try_call`].
    ///
    /// # Errors
    /// The server could not be reached.
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> Result<(u16, Value), String> {
        self.runtime
            .block_on(self.client.try_call(method, path, token, body))
    }

    /// See [`Client::call`].
    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> (u16, Value) {
        self.runtime
            .block_on(self.client.call(method, path, token, body))
    }

    /// See [`seated_game`].
    ///
    /// # Errors
    /// As [`seated_game`].
    pub fn seated_game(&self, settings: &Value) -> Result<Seated, String> {
        self.runtime.block_on(seated_game(&self.client, settings))
    }

    /// See [`Client::get_json`].
    pub fn get_json(&self, path: &str) -> Value {
        self.runtime.block_on(self.client.get_json(path))
    }
}

/// A game whose two seats are taken: its id and each seat's token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seated {
    /// The room's id.
    pub id: String,
    /// Seat X's token.
    pub x: String,
    /// Seat O's token.
    pub o: String,
    /// The GAME after both joined.
    pub game: Value,
}

/// Create a game between two people with `settings` (the body of
/// `POST /api/games`, `opponent` forced to `human`) and take seat O.
///
/// # Errors
/// A request that did not answer as the API promises, in words.
pub async fn seated_game(client: &Client, settings: &Value) -> Result<Seated, String> {
    let mut body = settings.clone();
    if let Some(map) = body.as_object_mut() {
        map.insert("opponent".into(), Value::from("human"));
    }
    let created = client
        .send("POST", "/api/games", None, &body.to_string())
        .await?;
    let created_json = created.json();
    let id = created_json["game"]["id"]
        .as_str()
        .filter(|_| created.status == 201)
        .ok_or_else(|| format!("create: {} {}", created.status, created.body))?
        .to_owned();
    let x = created_json["token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let invite = serde_json::json!({ "invite": created_json["invite"] }).to_string();
    let joined = client
        .send("POST", &format!("/api/games/{id}/seats/o"), None, &invite)
        .await?;
    let joined_json = joined.json();
    let o = joined_json["token"]
        .as_str()
        .filter(|_| joined.status == 200)
        .ok_or_else(|| format!("join: {} {}", joined.status, joined.body))?
        .to_owned();
    Ok(Seated {
        id,
        x,
        o,
        game: joined_json["game"].clone(),
    })
}

/// A port of 127.0.0.1 that was free a moment ago (bound, then released),
/// for a program that must be told its port; it may be taken again before
/// the program binds it, so callers try again on a clash.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

/// The last 20 lines of the log file at `path` (empty when there is none).
fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
