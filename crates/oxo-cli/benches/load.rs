//! `oxo serve` under load: N concurrent games, two players each, on loopback.
//!
//! For each game count (default 100 and 1000) the bench starts the real
//! `oxo` binary twice, once keeping games in SQLite (every move committed,
//! with a full sync, before it is acknowledged) and once in memory only,
//! and drives it from this process: every game has an X client and an O
//! client, each with its own WebSocket on `/api/games/{id}/live` and its own
//! keep-alive HTTP/1.1 connection for POSTs. A player whose turn an update
//! shows posts a random empty cell with the version it saw; when a round
//! ends, X asks for a rematch. After a warm-up, the bench counts moves and
//! finished rounds for a fixed time and prints:
//!
//! - moves/s and rounds/s;
//! - p50 and p99 move latency: from sending the POST to receiving, on the
//!   mover's own WebSocket, the update that contains the move;
//! - the server's CPU time per move (utime + stime from `/proc`) and its
//!   peak resident memory (`VmHWM`).
//!
//! Run with `cargo bench -p oxo-cli --bench load [-- GAMES...]`;
//! `OXO_BENCH_SECS` sets the measured time per configuration (default 10).
//! Linux only (it reads `/proc`).

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use futures_util::StreamExt;
use oxo_test_support::{Client, ServeProcess, seated_game};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// Warm-up before each measured window.
const WARM_UP: Duration = Duration::from_secs(1);
/// Default measured time per configuration.
const DEFAULT_SECS: f64 = 10.0;
/// Bound on connecting and on any one request or handshake.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// A player that hears nothing for this long while playing reports a stall.
const STALL: Duration = Duration::from_secs(15);
/// Games being set up at once.
const SETUP_CONCURRENCY: usize = 64;
/// boardgame.io 0.50.2's server CPU per move for the same protocol work
/// without storage, in milliseconds (low and high ends).
const BGIO_MS: (f64, f64) = (0.5, 0.9);

fn main() {
    if let Err(e) = run() {
        eprintln!("load bench: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> anyhow::Result<()> {
    let started = Instant::now();
    let mut counts = Vec::new();
    for arg in std::env::args().skip(1) {
        // cargo passes --bench (and perhaps other flags) to harness-less benches.
        if arg.starts_with('-') {
            continue;
        }
        let n: usize = arg
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| anyhow!("bad game count {arg:?}: give positive whole numbers"))?;
        counts.push(n);
    }
    if counts.is_empty() {
        counts = vec![100, 1000];
    }
    let secs = match std::env::var("OXO_BENCH_SECS") {
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| anyhow!("OXO_BENCH_SECS={text:?}: give a positive number of seconds"))?,
        Err(_) => DEFAULT_SECS,
    };
    let window = Duration::from_secs_f64(secs);

    // Each game needs four descriptors here (two WebSockets, two HTTP
    // connections) and four in the server, which inherits this limit.
    let max_games = counts.iter().copied().max().unwrap_or(0);
    let needed = 4 * max_games as u64 + 256;
    let limit = open_files_limit()?;
    if limit < needed {
        bail!(
            "{max_games} games need about {needed} open files per process, but the soft \
             limit is {limit}: run `ulimit -n 8192` (or more) in this shell first"
        );
    }
    let (ticks, ticks_note) = clock_ticks();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);

    println!("oxo serve load: 3x3 k=3 human-vs-human games, two WebSocket clients per game,");
    println!(
        "random legal moves, X asks for a rematch after every round; {:.1} s warm-up, \
         {secs} s measured per configuration.",
        WARM_UP.as_secs_f64()
    );
    println!(
        "Server and clients share this machine's {cores} core(s) on loopback; \
         open-file limit {limit}; clock ticks {ticks}/s{ticks_note}."
    );
    println!(
        "sqlite = `oxo serve --db FILE` (every move committed with a full sync, group commit); \
         memory = `oxo serve --memory` (nothing stored).\n"
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the client runtime")?;
    let mut results = Vec::new();
    for &games in &counts {
        for store in [Store::Sqlite, Store::Memory] {
            let t = Instant::now();
            let result = runtime
                .block_on(run_config(store, games, window, ticks))
                .with_context(|| format!("{} with {games} games", store.name()))?;
            eprintln!(
                "  {:>6} {:>5} games: done in {:.1} s (setup {:.2} s)",
                store.name(),
                games,
                t.elapsed().as_secs_f64(),
                result.setup.as_secs_f64()
            );
            results.push(result);
        }
    }
    runtime.shutdown_timeout(Duration::from_secs(2));
    print_report(&results, cores);
    println!("\nwhole bench: {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    Sqlite,
    Memory,
}

impl Store {
    const fn name(self) -> &'static str {
        match self {
            Store::Sqlite => "sqlite",
            Store::Memory => "memory",
        }
    }
}

/// What one configuration measured.
#[derive(Debug)]
struct Measured {
    store: Store,
    games: usize,
    setup: Duration,
    window: Duration,
    moves: u64,
    rounds: u64,
    conflicts: u64,
    latencies_us: Vec<u32>,
    server_cpu: Duration,
    client_cpu: Duration,
    /// CPU time every process on the machine used in the window.
    machine_cpu: Duration,
    peak_rss_kib: u64,
    /// The database's file system, for SQLite.
    fs: Option<String>,
    errors: Vec<String>,
    server_log: Vec<String>,
}

// ---------------------------------------------------------------------------
// The server process.

/// The child server (the shared harness's `oxo serve` process, killed
/// when dropped) and the directory holding its database.
struct Server {
    process: ServeProcess,
    dir: Option<tempfile::TempDir>,
}

impl Server {
    fn start(store: Store) -> anyhow::Result<Server> {
        let dir = match store {
            Store::Sqlite => {
                Some(tempfile::tempdir().context("cannot create a temporary directory")?)
            }
            Store::Memory => None,
        };
        let db = dir.as_ref().map(|d| d.path().join("bench.db"));
        let args: Vec<&str> = match &db {
            Some(db) => vec![
                "--db",
                db.to_str().context("a temporary path that is not UTF-8")?,
            ],
            None => vec!["--memory"],
        };
        let process = ServeProcess::start(Path::new(env!("CARGO_BIN_EXE_oxo")), &args)
            .map_err(|e| anyhow!(e))?;
        Ok(Server { process, dir })
    }

    fn addr(&self) -> SocketAddr {
        self.process.addr
    }

    fn pid(&self) -> u32 {
        self.process.pid()
    }

    fn log_text(&self) -> String {
        self.process.log_text()
    }

    fn log_summary(&self) -> Vec<String> {
        self.process.log_summary()
    }
}

/// The soft limit on open files, from `/proc/self/limits`.
fn open_files_limit() -> anyhow::Result<u64> {
    let text = std::fs::read_to_string("/proc/self/limits")
        .context("cannot read /proc/self/limits (this bench needs Linux)")?;
    let line = text
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .context("no \"Max open files\" in /proc/self/limits")?;
    let soft = line
        .trim_start_matches("Max open files")
        .split_whitespace()
        .next()
        .unwrap_or("");
    Ok(if soft == "unlimited" {
        u64::MAX
    } else {
        soft.parse()
            .with_context(|| format!("cannot read the open-file limit in {line:?}"))?
    })
}

/// Clock ticks per second for `/proc/*/stat`, and a note if it was assumed.
fn clock_ticks() -> (u64, &'static str) {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .filter(|t| *t > 0)
        .map_or((100, " (assumed: getconf failed)"), |t| (t, ""))
}

/// User plus system CPU time of process `pid` (`self` for this one), in
/// clock ticks.
fn cpu_ticks(pid: &str) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/stat");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    // The command name may hold spaces and parentheses: fields are counted
    // from the last ')', after which field 3 (the state) comes first.
    let rest = text
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .with_context(|| format!("unexpected {path}"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> anyhow::Result<u64> {
        fields
            .get(n - 3)
            .and_then(|f| f.parse().ok())
            .with_context(|| format!("no field {n} in {path}"))
    };
    Ok(field(14)? + field(15)?)
}

fn ticks_to_duration(ticks: u64, per_second: u64) -> Duration {
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// CPU time all processes on the machine have used (busy, not idle or
/// waiting for I/O), in clock ticks, from `/proc/stat`.
fn machine_ticks() -> anyhow::Result<u64> {
    let text = std::fs::read_to_string("/proc/stat").context("cannot read /proc/stat")?;
    let line = text
        .lines()
        .find(|l| l.starts_with("cpu "))
        .context("no cpu line in /proc/stat")?;
    // user nice system idle iowait irq softirq steal guest guest_nice; guest
    // time is already counted in user.
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let total: u64 = fields.iter().sum();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    Ok(total.saturating_sub(idle))
}

/// The type of the file system holding `path` (longest mount point that
/// is a prefix of it), from `/proc/mounts`.
fn fs_type(path: &std::path::Path) -> Option<String> {
    let path = path.canonicalize().ok()?;
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, point, kind) = (f.next()?, f.next()?, f.next()?);
            path.starts_with(point)
                .then(|| (point.len(), kind.to_owned()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, kind)| kind)
}

/// Peak resident set size of process `pid`, in KiB.
fn peak_rss_kib(pid: u32) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    text.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("no VmHWM in {path}"))
}

// ---------------------------------------------------------------------------
// Connections.

async fn connect(addr: SocketAddr) -> anyhow::Result<TcpStream> {
    let stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| anyhow!("connecting to {addr} timed out after {IO_TIMEOUT:?}"))?
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_nodelay(true).context("cannot set TCP_NODELAY")?;
    Ok(stream)
}

// ---------------------------------------------------------------------------
// The players.

type Ws = WebSocketStream<TcpStream>;

async fn open_live(addr: SocketAddr, id: &str) -> anyhow::Result<Ws> {
    let stream = connect(addr).await?;
    let url = format!("ws://{addr}/api/games/{id}/live");
    // tungstenite zero-fills its whole read buffer (128 KiB by default)
    // before every read; the updates are a few hundred bytes.
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let handshake = tokio_tungstenite::client_async_with_config(url, stream, Some(config));
    let (ws, _) = tokio::time::timeout(IO_TIMEOUT, handshake)
        .await
        .map_err(|_| anyhow!("WebSocket handshake timed out after {IO_TIMEOUT:?}"))?
        .context("WebSocket handshake failed")?;
    Ok(ws)
}

/// Counters shared by every player of one configuration.
#[derive(Debug, Default)]
struct Shared {
    /// Moves the server accepted (200).
    moves: AtomicU64,
    /// Rounds a move finished.
    rounds: AtomicU64,
    /// Moves refused with 409 (stale version or not one's turn).
    conflicts: AtomicU64,
    /// Whether moves sent now count towards the latency figures.
    measuring: AtomicBool,
}

/// The parts of a GAME a player needs.
#[derive(Debug)]
struct GameState {
    version: u64,
    status: String,
    next: Option<String>,
    board: String,
}

impl GameState {
    fn parse(text: &str) -> anyhow::Result<GameState> {
        let value: serde_json::Value =
            serde_json::from_str(text).with_context(|| format!("bad GAME {text:?}"))?;
        let game = value.get("game").unwrap_or(&value);
        let field = |name: &str| {
            game.get(name)
                .with_context(|| format!("GAME without {name:?}: {text}"))
        };
        Ok(GameState {
            version: field("version")?
                .as_u64()
                .with_context(|| format!("bad version in {text}"))?,
            status: field("status")?.as_str().unwrap_or_default().to_owned(),
            next: field("next")?.as_str().map(str::to_owned),
            board: field("board")?.as_str().unwrap_or_default().to_owned(),
        })
    }

    fn over(&self) -> bool {
        self.status == "won" || self.status == "draw"
    }

    /// The empty cells, (row, col).
    fn empty_cells(&self) -> Vec<(usize, usize)> {
        self.board
            .split('/')
            .enumerate()
            .flat_map(|(r, row)| {
                row.bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'.')
                    .map(move |(c, _)| (r, c))
            })
            .collect()
    }
}

/// xorshift64*: plenty for picking cells.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (((x >> 32) * n as u64) >> 32) as usize
    }
}

/// One seat of one game.
struct Player {
    seat: &'static str,
    id: String,
    token: String,
    /// Its own HTTP client (and so its own keep-alive connection).
    http: Client,
    ws: Ws,
    rng: Rng,
}

/// What the request in flight was.
#[derive(Clone, Copy, Debug)]
enum Sent {
    Move {
        at: Instant,
        expect: u64,
        measured: bool,
    },
    Rematch,
}

type InFlight = Pin<Box<dyn Future<Output = anyhow::Result<(u16, String)>> + Send>>;

/// Set up one game: X creates it, O joins, both open their WebSockets.
async fn set_up(addr: SocketAddr, seed: u64) -> anyhow::Result<(Player, Player)> {
    let (x_http, o_http) = (Client::new(addr), Client::new(addr));
    let seated = seated_game(&x_http, &serde_json::json!({"size": "3x3", "k": 3}))
        .await
        .map_err(|e| anyhow!(e))?;
    let (id, x_token, o_token) = (seated.id, seated.x, seated.o);
    let x_ws = open_live(addr, &id).await?;
    let o_ws = open_live(addr, &id).await?;
    Ok((
        Player {
            seat: "x",
            id: id.clone(),
            token: x_token,
            http: x_http,
            ws: x_ws,
            rng: Rng::new(seed),
        },
        Player {
            seat: "o",
            id,
            token: o_token,
            http: o_http,
            ws: o_ws,
            rng: Rng::new(seed ^ 0x5555_5555_5555_5555),
        },
    ))
}

/// Play until `stop`; the latencies (µs) of measured moves.
async fn play(
    mut player: Player,
    shared: Arc<Shared>,
    mut go: watch::Receiver<bool>,
    mut stop: watch::Receiver<bool>,
) -> anyhow::Result<Vec<u32>> {
    let mut latencies = Vec::new();
    if go.wait_for(|go| *go).await.is_err() {
        return Ok(latencies);
    }
    let move_path = format!("/api/games/{}/moves", player.id);
    let rematch_path = format!("/api/games/{}/rematch", player.id);
    let mut latest: Option<GameState> = None;
    // The version last acted on, so that each state is acted on once.
    let mut acted = 0;
    let mut in_flight: Option<(Sent, InFlight)> = None;
    // A move waiting for its update on this player's WebSocket.
    let mut pending: Option<(Instant, u64, bool)> = None;
    loop {
        if in_flight.is_none()
            && let Some(state) = latest.as_ref().filter(|s| s.version > acted)
        {
            let mine = state.next.as_deref() == Some(player.seat);
            if state.status == "playing" && mine {
                let cells = state.empty_cells();
                if cells.is_empty() {
                    bail!(
                        "game {}: my turn on a full board {}",
                        player.id,
                        state.board
                    );
                }
                let (row, col) = cells[player.rng.below(cells.len())];
                acted = state.version;
                let body = format!(r#"{{"row":{row},"col":{col},"version":{}}}"#, state.version);
                let sent = Sent::Move {
                    at: Instant::now(),
                    expect: state.version + 1,
                    measured: shared.measuring.load(Ordering::Relaxed),
                };
                in_flight = Some((sent, send(&player, move_path.clone(), body)));
            } else if state.over() && player.seat == "x" {
                acted = state.version;
                in_flight = Some((
                    Sent::Rematch,
                    send(&player, rematch_path.clone(), String::new()),
                ));
            }
        }
        tokio::select! {
            _ = stop.changed() => return Ok(latencies),
            message = tokio::time::timeout(STALL, player.ws.next()) => {
                let text = match message {
                    Err(_) => bail!(
                        "game {} seat {}: no update for {STALL:?} (last state: {:?}, request in flight: {:?})",
                        player.id, player.seat, latest, in_flight.as_ref().map(|f| f.0)
                    ),
                    Ok(None) => bail!("game {} seat {}: the server closed the WebSocket", player.id, player.seat),
                    Ok(Some(Err(e))) => bail!("game {} seat {}: WebSocket error: {e}", player.id, player.seat),
                    Ok(Some(Ok(Message::Text(text)))) => text,
                    Ok(Some(Ok(Message::Close(frame)))) => bail!(
                        "game {} seat {}: the server closed the WebSocket: {frame:?}", player.id, player.seat
                    ),
                    Ok(Some(Ok(_))) => continue,
                };
                let state = GameState::parse(text.as_str())?;
                if let Some((at, expect, measured)) = pending
                    && state.version >= expect
                {
                    if measured {
                        latencies.push(u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX));
                    }
                    pending = None;
                }
                if latest.as_ref().is_none_or(|l| state.version > l.version) {
                    latest = Some(state);
                }
            }
            answer = async { in_flight.as_mut().expect("guarded").1.as_mut().await }, if in_flight.is_some() => {
                let (sent, _) = in_flight.take().expect("guarded");
                let (status, body) = answer
                    .with_context(|| format!("game {} seat {}", player.id, player.seat))?;
                match (sent, status) {
                    (Sent::Move { at, expect, measured }, 200) => {
                        shared.moves.fetch_add(1, Ordering::Relaxed);
                        if body.contains(r#""status":"won""#) || body.contains(r#""status":"draw""#) {
                            shared.rounds.fetch_add(1, Ordering::Relaxed);
                        }
                        // Unless the update already came.
                        if latest.as_ref().is_none_or(|l| l.version < expect) {
                            pending = Some((at, expect, measured));
                        } else if measured {
                            latencies.push(u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX));
                        }
                    }
                    (Sent::Move { .. }, 409) => {
                        // Stale or not our turn: the next update says what to do.
                        shared.conflicts.fetch_add(1, Ordering::Relaxed);
                    }
                    (Sent::Rematch, 200 | 409) => {}
                    (_, status) => bail!(
                        "game {} seat {}: {sent:?} answered {status}: {body}",
                        player.id, player.seat
                    ),
                }
            }
        }
    }
}

/// Start a POST on the player's connection.
fn send(player: &Player, path: String, body: String) -> InFlight {
    let http = player.http.clone();
    let token = player.token.clone();
    Box::pin(async move {
        let response = http
            .send("POST", &path, Some(&token), &body)
            .await
            .map_err(|e| anyhow!(e))?;
        Ok((response.status, response.body))
    })
}

// ---------------------------------------------------------------------------
// One configuration.

async fn run_config(
    store: Store,
    games: usize,
    window: Duration,
    ticks: u64,
) -> anyhow::Result<Measured> {
    let server = Server::start(store)?;
    let addr = server.addr();
    let pid = server.pid().to_string();
    let fs = server.dir.as_ref().and_then(|d| fs_type(d.path()));

    let setup_start = Instant::now();
    let limit = Arc::new(Semaphore::new(SETUP_CONCURRENCY));
    let mut setups = Vec::with_capacity(games);
    for i in 0..games {
        let limit = limit.clone();
        setups.push(tokio::spawn(async move {
            let _permit = limit.acquire_owned().await?;
            set_up(addr, 0x0123_4567_89AB_CDEF ^ (i as u64 + 1)).await
        }));
    }
    let mut players = Vec::with_capacity(2 * games);
    for setup in setups {
        let (x, o) = setup
            .await
            .context("a setup task failed")?
            .with_context(|| {
                format!("setting up the games; server stderr: {}", server.log_text())
            })?;
        players.push(x);
        players.push(o);
    }
    let setup = setup_start.elapsed();

    let shared = Arc::new(Shared::default());
    let (go_tx, go_rx) = watch::channel(false);
    let (stop_tx, stop_rx) = watch::channel(false);
    let tasks: Vec<_> = players
        .into_iter()
        .map(|p| tokio::spawn(play(p, shared.clone(), go_rx.clone(), stop_rx.clone())))
        .collect();
    go_tx.send_replace(true);
    tokio::time::sleep(WARM_UP).await;

    let cpu0 = cpu_ticks(&pid)?;
    let client0 = cpu_ticks("self")?;
    let machine0 = machine_ticks()?;
    let moves0 = shared.moves.load(Ordering::Relaxed);
    let rounds0 = shared.rounds.load(Ordering::Relaxed);
    let conflicts0 = shared.conflicts.load(Ordering::Relaxed);
    let t0 = Instant::now();
    shared.measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(window).await;
    shared.measuring.store(false, Ordering::Relaxed);
    let elapsed = t0.elapsed();
    let moves = shared.moves.load(Ordering::Relaxed) - moves0;
    let rounds = shared.rounds.load(Ordering::Relaxed) - rounds0;
    let conflicts = shared.conflicts.load(Ordering::Relaxed) - conflicts0;
    let cpu1 = cpu_ticks(&pid)?;
    let client1 = cpu_ticks("self")?;
    let machine1 = machine_ticks()?;
    let peak = peak_rss_kib(server.pid())?;
    stop_tx.send_replace(true);

    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    let deadline = Instant::now() + IO_TIMEOUT;
    for task in tasks {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, task).await {
            Ok(Ok(Ok(mut l))) => latencies.append(&mut l),
            Ok(Ok(Err(e))) => errors.push(format!("{e:#}")),
            Ok(Err(e)) => errors.push(format!("a player task failed: {e}")),
            Err(_) => errors.push("a player did not stop in time".into()),
        }
    }
    latencies.sort_unstable();
    let server_log = server.log_summary();
    drop(server);
    Ok(Measured {
        store,
        games,
        setup,
        window: elapsed,
        moves,
        rounds,
        conflicts,
        latencies_us: latencies,
        server_cpu: ticks_to_duration(cpu1.saturating_sub(cpu0), ticks),
        client_cpu: ticks_to_duration(client1.saturating_sub(client0), ticks),
        machine_cpu: ticks_to_duration(machine1.saturating_sub(machine0), ticks),
        peak_rss_kib: peak,
        fs,
        errors,
        server_log,
    })
}

// ---------------------------------------------------------------------------
// The report.

fn percentile_ms(sorted: &[u32], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(f64::from(sorted[rank.clamp(1, sorted.len()) - 1]) / 1000.0)
}

fn cpu_per_move_us(m: &Measured) -> Option<f64> {
    (m.moves > 0).then(|| m.server_cpu.as_secs_f64() * 1e6 / m.moves as f64)
}

fn print_report(results: &[Measured], cores: usize) {
    let header = [
        ("store", ""),
        ("games", ""),
        ("moves", ""),
        ("moves/s", ""),
        ("rounds/s", ""),
        ("p50", "ms"),
        ("p99", "ms"),
        ("srv CPU", "ms"),
        ("CPU/move", "µs"),
        ("CPU/move", "ms"),
        ("srv peak", "RSS MiB"),
        ("srv", "cores"),
        ("bench", "cores"),
        ("others", "cores"),
    ];
    let widths = [6, 5, 8, 8, 8, 7, 7, 8, 8, 8, 8, 6, 6, 6];
    for row in [0, 1] {
        let mut line = String::new();
        for (i, (top, bottom)) in header.iter().enumerate() {
            let text = if row == 0 { top } else { bottom };
            if i == 0 {
                line += &format!("{text:<w$}", w = widths[i]);
            } else {
                line += &format!(" {text:>w$}", w = widths[i]);
            }
        }
        println!("{}", line.trim_end());
    }
    for m in results {
        let secs = m.window.as_secs_f64();
        let ms = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
        let per_move = cpu_per_move_us(m);
        let cores_of = |d: Duration| d.as_secs_f64() / secs;
        let others =
            (m.machine_cpu.as_secs_f64() - m.server_cpu.as_secs_f64() - m.client_cpu.as_secs_f64())
                .max(0.0)
                / secs;
        let cells = [
            m.store.name().to_owned(),
            m.games.to_string(),
            m.moves.to_string(),
            format!("{:.0}", m.moves as f64 / secs),
            format!("{:.1}", m.rounds as f64 / secs),
            ms(percentile_ms(&m.latencies_us, 50.0)),
            ms(percentile_ms(&m.latencies_us, 99.0)),
            format!("{:.0}", m.server_cpu.as_secs_f64() * 1e3),
            per_move.map_or_else(|| "-".into(), |v| format!("{v:.1}")),
            per_move.map_or_else(|| "-".into(), |v| format!("{:.4}", v / 1e3)),
            format!("{:.1}", m.peak_rss_kib as f64 / 1024.0),
            format!("{:.2}", cores_of(m.server_cpu)),
            format!("{:.2}", cores_of(m.client_cpu)),
            format!("{others:.2}"),
        ];
        let mut line = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i == 0 {
                line += &format!("{cell:<w$}", w = widths[i]);
            } else {
                line += &format!(" {cell:>w$}", w = widths[i]);
            }
        }
        println!("{line}");
    }
    println!(
        "\nLatency: POST sent -> the update with that move received on the mover's own \
         WebSocket.\nsrv/bench/others cores: CPU time of the server, of this client process and \
         of every other process on the machine, over wall time ({cores} core(s) in all; \
         CPU time has the clock-tick resolution of /proc)."
    );
    if let Some(fs) = results.iter().find_map(|m| m.fs.as_deref()) {
        println!("The SQLite database was on a {fs} file system (a temporary directory).");
    }
    let mut games: Vec<usize> = results.iter().map(|m| m.games).collect();
    games.dedup();
    for n in games {
        let find = |store| {
            results
                .iter()
                .find(|m| m.games == n && m.store == store)
                .and_then(cpu_per_move_us)
        };
        let (sqlite, memory) = (find(Store::Sqlite), find(Store::Memory));
        let versus = |us: f64| {
            format!(
                "{:.1}% of {} ms, {:.1}% of {} ms",
                us / (BGIO_MS.0 * 10.0),
                BGIO_MS.0,
                us / (BGIO_MS.1 * 10.0),
                BGIO_MS.1
            )
        };
        println!("\n{n} games, server CPU per move:");
        if let Some(sqlite) = sqlite {
            println!(
                "  sqlite {sqlite:7.1} µs = {} (boardgame.io 0.50.2, no storage)",
                versus(sqlite)
            );
        }
        if let Some(memory) = memory {
            println!("  memory {memory:7.1} µs = {}", versus(memory));
        }
        if let (Some(sqlite), Some(memory)) = (sqlite, memory) {
            println!("  sqlite / memory = {:.2}x", sqlite / memory);
        }
    }
    for m in results {
        let others =
            (m.machine_cpu.as_secs_f64() - m.server_cpu.as_secs_f64() - m.client_cpu.as_secs_f64())
                / m.window.as_secs_f64();
        if others > 0.2 {
            println!(
                "WARNING: {} {} games: other processes used {others:.2} cores meanwhile: \
                 moves/s and latency understate the server; CPU per move is less affected",
                m.store.name(),
                m.games
            );
        }
        if m.conflicts > 0 {
            println!(
                "note: {} {} games: {} moves refused with 409 (stale or not one's turn)",
                m.store.name(),
                m.games,
                m.conflicts
            );
        }
        if !m.errors.is_empty() {
            println!(
                "WARNING: {} {} games: {} player(s) failed; the first: {}",
                m.store.name(),
                m.games,
                m.errors.len(),
                m.errors[0]
            );
        }
        if !m.server_log.is_empty() {
            println!(
                "server stderr ({} {} games): {}",
                m.store.name(),
                m.games,
                m.server_log.join(" | ")
            );
        }
    }
}
