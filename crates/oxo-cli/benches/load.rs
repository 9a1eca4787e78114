//! `oxo serve` under load: N concurrent games, two players each, on loopback.
//!
//! For each game count (default 100 and 1000) the bench runs the real `oxo`
//! binary in four configurations, one after the other:
//!
//! - `sqlite`: one node with `--db FILE` (every move committed, with a full
//!   sync, before it is acknowledged);
//! - `memory`: one node with `--memory` (nothing stored);
//! - `pg1`: one node on a PostgreSQL database;
//! - `pg3`: three nodes on one PostgreSQL database.
//!
//! Each PostgreSQL configuration gets a throwaway cluster of its own
//! (`oxo_test_support::Postgres`); without PostgreSQL installed the bench
//! fails, saying how to install it.
//!
//! The bench drives the nodes from this process: every game has an X client
//! and an O client, each with its own WebSocket on `/api/games/{id}/live`
//! and its own keep-alive HTTP/1.1 connection for POSTs. With three nodes
//! the clients are spread as a load balancer without sticky sessions might
//! spread them: game g's X talks to node g mod 3 and its O to node
//! g + 1 mod 3, so every move reaches the opponent through another node
//! (the database's change notifications). A player whose turn an update
//! shows posts a random empty cell with the version it saw; when a round
//! ends, X offers a rematch and O accepts it. After a warm-up, the bench counts moves and
//! finished rounds for a fixed time and prints:
//!
//! - moves/s and rounds/s;
//! - p50 and p99 move latency: from sending the POST to receiving the
//!   update that contains the move, on the mover's own WebSocket and on the
//!   opponent's;
//! - CPU time per move (utime + stime from `/proc`) of the oxo node(s), of
//!   the database (the postmaster and its children, the ended ones
//!   included) and in total; the nodes' peak resident memory (`VmHWM`);
//! - how busy the machine was, and who kept it busy.
//!
//! Run with `cargo bench -p oxo-cli --bench load [-- GAMES...]`;
//! `OXO_BENCH_SECS` sets the measured time per configuration (default 10),
//! `OXO_BENCH_STORES` the configurations to run (names from the list above,
//! comma-separated; default all four), `OXO_BENCH_SHAPES` the shapes
//! (`rounds`, `life`, `socket`; default all three), `OXO_LOG` the servers' log level
//! (default `info`, a line a request, as `oxo serve` logs by default),
//! `OXO_BENCH_BIN` another `oxo` binary to measure instead of this build's.
//! Linux only (it reads `/proc`).

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use futures_util::{SinkExt, StreamExt};
use oxo_test_support::{Client, Postgres, ServeProcess, seated_game};
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
/// Nodes in the multi-node configuration.
const NODES: usize = 3;
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
    let configs = match std::env::var("OXO_BENCH_STORES") {
        Ok(text) => Config::parse_list(&text)?,
        Err(_) => Config::ALL.to_vec(),
    };
    let shapes = match std::env::var("OXO_BENCH_SHAPES") {
        Ok(text) => Shape::parse_list(&text)?,
        Err(_) => Shape::ALL.to_vec(),
    };
    // Fail before minutes of other configurations, not after.
    if configs.iter().any(|c| c.postgres()) {
        Postgres::check_installed().map_err(|e| anyhow!(e))?;
    }

    // Each game needs four descriptors here (two WebSockets, two HTTP
    // connections) and four in the server, which inherits this limit.
    let max_games = counts.iter().copied().max().unwrap_or(0);
    let needed = 4 * max_games as u64 + 256;
    let limit = oxo_server::listen::open_files_limit().context(
        "cannot read the open-file limit from /proc/self/limits (this bench needs Linux)",
    )?;
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
        "random legal moves; rounds = games set up first, then X offers a rematch after every \
         round and O accepts;\nlife = each game slot again and again creates a game, joins it, \
         opens both WebSockets, plays one round, closes them; {:.1} s warm-up, \
         {secs} s measured per configuration.",
        WARM_UP.as_secs_f64()
    );
    println!(
        "Server and clients share this machine's {cores} core(s) on loopback; \
         open-file limit {limit}; clock ticks {ticks}/s{ticks_note}."
    );
    println!(
        "sqlite = one node, `oxo serve --db FILE` (every move committed with a full sync, \
         group commit); memory = one node, `oxo serve --memory` (nothing stored);\n\
         pg1 = one node, `oxo serve --db postgres://...`; pg3 = {NODES} nodes on one database, \
         game g's X on node g mod {NODES}, its O on node g+1 mod {NODES}\n\
         (a fresh PostgreSQL cluster for each, fsync on, default settings).\n"
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the client runtime")?;
    let mut results = Vec::new();
    for &shape in &shapes {
        for &games in &counts {
            for &config in &configs {
                let t = Instant::now();
                let context = || format!("{} {} with {games} games", config.name(), shape.name());
                let deployment = Deployment::start(config).with_context(context)?;
                let result = runtime
                    .block_on(run_config(&deployment, shape, games, window, ticks))
                    .with_context(context)?;
                drop(deployment);
                eprintln!(
                    "  {:>6} {:>6} {:>5} games: done in {:.1} s (setup {:.2} s)",
                    config.name(),
                    shape.name(),
                    games,
                    t.elapsed().as_secs_f64(),
                    result.setup.as_secs_f64()
                );
                results.push(result);
            }
        }
    }
    runtime.shutdown_timeout(Duration::from_secs(2));
    print_report(&results, cores);
    println!("\nwhole bench: {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// What each game's clients do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Games set up before the window, then round after round in the same
    /// room (X offers a rematch, O accepts): the cost of moves.
    Rounds,
    /// A game's whole life, again and again in each slot: create it over
    /// HTTP, join it, open both WebSockets, play one round to its end,
    /// close the sockets (the shape boardgame.io was measured on).
    Life,
    /// [`Shape::Life`] with each player's moves sent on its WebSocket
    /// (opened with its seat's token) instead of as `POST`s, as
    /// boardgame.io's clients send theirs.
    Socket,
}

impl Shape {
    const ALL: [Shape; 3] = [Shape::Rounds, Shape::Life, Shape::Socket];

    const fn name(self) -> &'static str {
        match self {
            Shape::Rounds => "rounds",
            Shape::Life => "life",
            Shape::Socket => "socket",
        }
    }

    /// Whether each game lives for one round.
    fn whole_life(self) -> bool {
        matches!(self, Shape::Life | Shape::Socket)
    }

    fn parse_list(text: &str) -> anyhow::Result<Vec<Shape>> {
        let shapes: Vec<Shape> = text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| {
                Shape::ALL
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| anyhow!("OXO_BENCH_SHAPES: unknown shape {name:?}; the shapes are rounds, life and socket"))
            })
            .collect::<anyhow::Result<_>>()?;
        if shapes.is_empty() {
            bail!("OXO_BENCH_SHAPES={text:?} names no shape");
        }
        Ok(shapes)
    }
}

/// Where games are kept, and by how many nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Config {
    Sqlite,
    Memory,
    Pg1,
    Pg3,
}

impl Config {
    /// In the order the report shows them.
    const ALL: [Config; 4] = [Config::Sqlite, Config::Memory, Config::Pg1, Config::Pg3];

    const fn name(self) -> &'static str {
        match self {
            Config::Sqlite => "sqlite",
            Config::Memory => "memory",
            Config::Pg1 => "pg1",
            Config::Pg3 => "pg3",
        }
    }

    const fn postgres(self) -> bool {
        matches!(self, Config::Pg1 | Config::Pg3)
    }

    const fn nodes(self) -> usize {
        match self {
            Config::Pg3 => NODES,
            Config::Sqlite | Config::Memory | Config::Pg1 => 1,
        }
    }

    /// The configurations named in `text` (comma-separated), in the
    /// report's order.
    fn parse_list(text: &str) -> anyhow::Result<Vec<Config>> {
        let mut chosen = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let config = Config::ALL
                .into_iter()
                .find(|c| c.name() == name)
                .ok_or_else(|| {
                    let names: Vec<_> = Config::ALL.iter().map(|c| c.name()).collect();
                    anyhow!(
                        "OXO_BENCH_STORES: unknown configuration {name:?}; the configurations \
                         are {}",
                        names.join(", ")
                    )
                })?;
            chosen.push(config);
        }
        if chosen.is_empty() {
            bail!("OXO_BENCH_STORES={text:?} names no configuration");
        }
        Ok(Config::ALL
            .into_iter()
            .filter(|c| chosen.contains(c))
            .collect())
    }
}

/// What one configuration measured.
#[derive(Debug)]
struct Measured {
    config: Config,
    shape: Shape,
    games: usize,
    setup: Duration,
    window: Duration,
    moves: u64,
    rounds: u64,
    conflicts: u64,
    /// Sorted, in µs.
    latencies: Latencies,
    /// The oxo nodes' CPU time, summed.
    oxo_cpu: Duration,
    /// PostgreSQL's CPU time (all its processes), for the configurations
    /// that use it.
    db_cpu: Option<Duration>,
    /// Database transactions (one per statement outside a transaction
    /// block) in about the window.
    db_xacts: Option<u64>,
    client_cpu: Duration,
    /// CPU time every process on the machine used in the window.
    machine_cpu: Duration,
    /// Each node's.
    peak_rss_kib: Vec<u64>,
    /// The database's file system, for SQLite.
    fs: Option<String>,
    errors: Vec<String>,
    server_log: Vec<String>,
    /// The end of PostgreSQL's log, when players failed.
    db_log: Option<String>,
}

// ---------------------------------------------------------------------------
// The server process.

/// The nodes of one configuration (the shared harness's `oxo serve`
/// processes, killed when dropped) and where they keep games: a temporary
/// directory for SQLite or a PostgreSQL cluster, which goes when dropped,
/// after the nodes (fields drop in order).
struct Deployment {
    config: Config,
    nodes: Vec<ServeProcess>,
    dir: Option<tempfile::TempDir>,
    postgres: Option<Postgres>,
}

impl Deployment {
    fn start(config: Config) -> anyhow::Result<Deployment> {
        // Another build may be measured against this one (an A/B run).
        let built = std::env::var_os("OXO_BENCH_BIN");
        let binary = built
            .as_deref()
            .map_or_else(|| Path::new(env!("CARGO_BIN_EXE_oxo")), Path::new);
        // Every client of the bench comes from 127.0.0.1: no limits per
        // address (the connection limit stays what the open-file limit
        // allows).
        let node = |args: &[&str]| {
            let mut args = args.to_vec();
            args.extend([
                "--creates-per-minute",
                "0",
                "--writes-per-second",
                "0",
                "--max-connections-per-address",
                "100000",
            ]);
            // Logging as `oxo serve` does by default (a line a request),
            // unless OXO_LOG says otherwise.
            let level = std::env::var("OXO_LOG").unwrap_or_else(|_| "info".into());
            ServeProcess::start_logging(binary, &args, &level).map_err(|e| anyhow!(e))
        };
        let mut deployment = Deployment {
            config,
            nodes: Vec::with_capacity(config.nodes()),
            dir: None,
            postgres: None,
        };
        match config {
            Config::Sqlite => {
                let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
                let db = dir.path().join("bench.db");
                let db = db.to_str().context("a temporary path that is not UTF-8")?;
                deployment.nodes.push(node(&["--db", db])?);
                deployment.dir = Some(dir);
            }
            Config::Memory => deployment.nodes.push(node(&["--memory"])?),
            Config::Pg1 | Config::Pg3 => {
                let postgres = Postgres::start().map_err(|e| anyhow!(e))?;
                let url = postgres.url();
                deployment.postgres = Some(postgres);
                for _ in 0..config.nodes() {
                    deployment.nodes.push(node(&["--db", &url])?);
                }
            }
        }
        Ok(deployment)
    }

    fn addrs(&self) -> Vec<SocketAddr> {
        self.nodes.iter().map(|n| n.addr).collect()
    }

    /// The nodes' CPU time, summed, in clock ticks.
    fn oxo_ticks(&self) -> anyhow::Result<u64> {
        self.nodes
            .iter()
            .map(|n| cpu_ticks(&n.pid().to_string()))
            .sum()
    }

    /// The database's CPU time in clock ticks: every process of the
    /// cluster, and those that ended (backends come and go with
    /// connections, autovacuum workers with work) through the postmaster,
    /// which waited for them.
    fn db_ticks(&self) -> anyhow::Result<Option<u64>> {
        let Some(postgres) = &self.postgres else {
            return Ok(None);
        };
        let pids = postgres.pids().map_err(|e| anyhow!(e))?;
        let mut total = 0;
        for (i, pid) in pids.iter().enumerate() {
            let pid = pid.to_string();
            if i == 0 {
                total += cpu_ticks(&pid)? + ended_children_ticks(&pid)?;
            } else if let Ok(ticks) = cpu_ticks(&pid) {
                // Else it ended since the listing.
                total += ticks;
            }
        }
        Ok(Some(total))
    }

    /// Transactions the database `oxo` has committed or rolled back, as
    /// its statistics say (each backend reports within a second or so).
    fn db_xacts(&self) -> anyhow::Result<Option<u64>> {
        let Some(postgres) = &self.postgres else {
            return Ok(None);
        };
        let text = postgres
            .psql(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database \
                 WHERE datname = current_database()",
            )
            .map_err(|e| anyhow!(e))?;
        let xacts = text
            .trim()
            .parse()
            .with_context(|| format!("unexpected transaction count {text:?}"))?;
        Ok(Some(xacts))
    }

    fn peak_rss_kib(&self) -> anyhow::Result<Vec<u64>> {
        self.nodes.iter().map(|n| peak_rss_kib(n.pid())).collect()
    }

    /// Each node's last lines of stderr.
    fn log_text(&self) -> String {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("node {i}: {}", n.log_text()))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// How much each node that wrote to stderr wrote, and its last lines.
    fn log_summary(&self) -> Vec<String> {
        let many = self.nodes.len() > 1;
        self.nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| {
                let lines = n.log_summary();
                let mut lines = lines.into_iter();
                let first = lines.next().map(|l| {
                    if many {
                        format!("node {i} ({}): {l}", n.addr)
                    } else {
                        l
                    }
                });
                first.into_iter().chain(lines)
            })
            .collect()
    }
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
    stat_sum(pid, [14, 15])
}

/// User plus system CPU time of the children of process `pid` that ended
/// and that it waited for, in clock ticks.
fn ended_children_ticks(pid: &str) -> anyhow::Result<u64> {
    stat_sum(pid, [16, 17])
}

/// The sum of two numeric fields of `/proc/{pid}/stat`, numbered from 1
/// as in proc(5).
fn stat_sum(pid: &str, numbers: [usize; 2]) -> anyhow::Result<u64> {
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
    Ok(field(numbers[0])? + field(numbers[1])?)
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

/// The game's live socket; with `token`, a seat's (which takes its moves).
async fn open_live(addr: SocketAddr, id: &str, token: Option<&str>) -> anyhow::Result<Ws> {
    let stream = connect(addr).await?;
    let url = match token {
        Some(token) => format!("ws://{addr}/api/games/{id}/live?token={token}"),
        None => format!("ws://{addr}/api/games/{id}/live"),
    };
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
    /// The seat that offered a rematch, if one has.
    rematch: Option<String>,
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
            rematch: game
                .get("rematch")
                .and_then(|seat| seat.as_str())
                .map(str::to_owned),
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

/// A move on its way to the opponent's WebSocket.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    /// The mover's seat.
    seat: &'static str,
    /// The version the move makes.
    expect: u64,
    at: Instant,
    measured: bool,
}

/// The move a game's two players last sent, shared between them.
type CrossingSlot = Arc<Mutex<Option<Crossing>>>;

/// One seat of one game.
struct Player {
    seat: &'static str,
    id: String,
    token: String,
    /// Its own HTTP client (and so its own keep-alive connection).
    http: Client,
    ws: Ws,
    rng: Rng,
    crossing: CrossingSlot,
}

/// Move latencies in µs: to the mover's WebSocket and to the opponent's.
#[derive(Debug, Default)]
struct Latencies {
    own: Vec<u32>,
    opponent: Vec<u32>,
}

fn micros(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX)
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

/// Set up one game: X creates it and O joins, both through X's node, then
/// each opens its WebSocket on its own node.
async fn set_up(
    (x_http, o_http): (Client, Client),
    x_addr: SocketAddr,
    o_addr: SocketAddr,
    seed: u64,
    seated_sockets: bool,
) -> anyhow::Result<(Player, Player)> {
    let seated = seated_game(&x_http, &serde_json::json!({"size": "3x3", "k": 3}))
        .await
        .map_err(|e| anyhow!(e))?;
    let (id, x_token, o_token) = (seated.id, seated.x, seated.o);
    let token = |t: &str| seated_sockets.then(|| t.to_owned());
    let x_ws = open_live(x_addr, &id, token(&x_token).as_deref()).await?;
    let o_ws = open_live(o_addr, &id, token(&o_token).as_deref()).await?;
    let crossing = CrossingSlot::default();
    Ok((
        Player {
            seat: "x",
            id: id.clone(),
            token: x_token,
            http: x_http,
            ws: x_ws,
            rng: Rng::new(seed),
            crossing: crossing.clone(),
        },
        Player {
            seat: "o",
            id,
            token: o_token,
            http: o_http,
            ws: o_ws,
            rng: Rng::new(seed ^ 0x5555_5555_5555_5555),
            crossing,
        },
    ))
}

/// Play until `stop`; the latencies of measured moves: this player's to its
/// own WebSocket, the opponent's to this player's. With `socket_moves`,
/// moves go on the WebSocket (a move is done when its update comes back,
/// refused when an error comes instead).
async fn play(
    mut player: Player,
    shared: Arc<Shared>,
    mut go: watch::Receiver<bool>,
    mut stop: watch::Receiver<bool>,
    one_round: bool,
    socket_moves: bool,
) -> anyhow::Result<Latencies> {
    let mut latencies = Latencies::default();
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
    // A move sent on the WebSocket, not yet answered: the version it makes.
    let mut on_socket: Option<u64> = None;
    loop {
        if one_round
            && in_flight.is_none()
            && on_socket.is_none()
            && latest.as_ref().is_some_and(GameState::over)
        {
            // The game's life ends: hang up as a browser tab closing does.
            let _ = player.ws.close(None).await;
            return Ok(latencies);
        }
        if in_flight.is_none()
            && on_socket.is_none()
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
                let (at, expect) = (Instant::now(), state.version + 1);
                let measured = shared.measuring.load(Ordering::Relaxed);
                *lock(&player.crossing) = Some(Crossing {
                    seat: player.seat,
                    expect,
                    at,
                    measured,
                });
                if socket_moves {
                    tokio::time::timeout(IO_TIMEOUT, player.ws.send(Message::Text(body.into())))
                        .await
                        .map_err(|_| anyhow!("game {}: sending a move timed out", player.id))?
                        .with_context(|| format!("game {}: cannot send a move", player.id))?;
                    on_socket = Some(expect);
                    pending = Some((at, expect, measured));
                } else {
                    let sent = Sent::Move {
                        at,
                        expect,
                        measured,
                    };
                    in_flight = Some((sent, send(&player, move_path.clone(), body)));
                }
            } else if state.over() && (player.seat == "x") == state.rematch.is_none() {
                // X offers the rematch, O accepts it.
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
                if text.starts_with(r#"{"presence""#) {
                    // A seat's socket also says who is here.
                    continue;
                }
                if socket_moves && text.starts_with(r#"{"error""#) {
                    // The move on the socket was refused.
                    let Some(expect) = on_socket.take() else {
                        bail!("game {} seat {}: an error with no move sent: {text}", player.id, player.seat);
                    };
                    if !text.contains(r#""status":409"#) {
                        bail!("game {} seat {}: a move on the socket refused: {text}", player.id, player.seat);
                    }
                    pending = None;
                    refused(&player, &shared, expect);
                    continue;
                }
                let state = GameState::parse(text.as_str())?;
                if let Some(expect) = on_socket
                    && state.version >= expect
                {
                    // Done: the update with it (or a later one) came.
                    on_socket = None;
                    shared.moves.fetch_add(1, Ordering::Relaxed);
                    if state.version == expect && state.over() {
                        shared.rounds.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if let Some((at, expect, measured)) = pending
                    && state.version >= expect
                {
                    if measured {
                        latencies.own.push(micros(at));
                    }
                    pending = None;
                }
                {
                    let mut crossing = lock(&player.crossing);
                    if let Some(c) = *crossing
                        && c.seat != player.seat
                        && state.version >= c.expect
                    {
                        if c.measured {
                            latencies.opponent.push(micros(c.at));
                        }
                        *crossing = None;
                    }
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
                            latencies.own.push(micros(at));
                        }
                    }
                    (Sent::Move { expect, .. }, 409) => {
                        // Stale or not our turn: the next update says what to do.
                        refused(&player, &shared, expect);
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

/// A move of `player`'s that was to make version `expect` was refused 409:
/// counted, and no longer on its way to the opponent.
fn refused(player: &Player, shared: &Shared, expect: u64) {
    shared.conflicts.fetch_add(1, Ordering::Relaxed);
    let mut crossing = lock(&player.crossing);
    if crossing.is_some_and(|c| c.seat == player.seat && c.expect == expect) {
        *crossing = None;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
    deployment: &Deployment,
    shape: Shape,
    games: usize,
    window: Duration,
    ticks: u64,
) -> anyhow::Result<Measured> {
    let addrs = deployment.addrs();
    let fs = deployment.dir.as_ref().and_then(|d| fs_type(d.path()));
    let shared = Arc::new(Shared::default());
    let (go_tx, go_rx) = watch::channel(false);
    let (stop_tx, stop_rx) = watch::channel(false);
    let (tasks, setup) = match shape {
        Shape::Rounds => {
            let (players, setup) = set_up_all(deployment, &addrs, games).await?;
            let tasks: Vec<_> = players
                .into_iter()
                .map(|p| {
                    tokio::spawn(play(
                        p,
                        shared.clone(),
                        go_rx.clone(),
                        stop_rx.clone(),
                        false,
                        false,
                    ))
                })
                .collect();
            (tasks, setup)
        }
        Shape::Life | Shape::Socket => {
            let tasks: Vec<_> = (0..games)
                .map(|i| {
                    let (x_addr, o_addr) = (addrs[i % addrs.len()], addrs[(i + 1) % addrs.len()]);
                    tokio::spawn(lives(
                        i,
                        shape == Shape::Socket,
                        (x_addr, o_addr),
                        shared.clone(),
                        go_rx.clone(),
                        stop_rx.clone(),
                    ))
                })
                .collect();
            (tasks, Duration::ZERO)
        }
    };
    go_tx.send_replace(true);
    tokio::time::sleep(WARM_UP).await;

    // psql's own backend ends before the CPU time is read here, and starts
    // after it is read at the end.
    let xacts0 = deployment.db_xacts()?;
    let oxo0 = deployment.oxo_ticks()?;
    let db0 = deployment.db_ticks()?;
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
    let oxo1 = deployment.oxo_ticks()?;
    let db1 = deployment.db_ticks()?;
    let client1 = cpu_ticks("self")?;
    let machine1 = machine_ticks()?;
    let xacts1 = deployment.db_xacts()?;
    let peak = deployment.peak_rss_kib()?;
    stop_tx.send_replace(true);

    let mut latencies = Latencies::default();
    let mut errors = Vec::new();
    let deadline = Instant::now() + IO_TIMEOUT;
    for task in tasks {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, task).await {
            Ok(Ok(Ok(mut l))) => {
                latencies.own.append(&mut l.own);
                latencies.opponent.append(&mut l.opponent);
            }
            Ok(Ok(Err(e))) => errors.push(format!("{e:#}")),
            Ok(Err(e)) => errors.push(format!("a player task failed: {e}")),
            Err(_) => errors.push("a player did not stop in time".into()),
        }
    }
    latencies.own.sort_unstable();
    latencies.opponent.sort_unstable();
    let db_log = deployment
        .postgres
        .as_ref()
        .filter(|_| !errors.is_empty())
        .map(Postgres::log_tail);
    let to_duration = |t0: u64, t1: u64| ticks_to_duration(t1.saturating_sub(t0), ticks);
    Ok(Measured {
        config: deployment.config,
        shape,
        games,
        setup,
        window: elapsed,
        moves,
        rounds,
        conflicts,
        latencies,
        oxo_cpu: to_duration(oxo0, oxo1),
        db_cpu: db0.zip(db1).map(|(d0, d1)| to_duration(d0, d1)),
        db_xacts: xacts0.zip(xacts1).map(|(x0, x1)| x1.saturating_sub(x0)),
        client_cpu: to_duration(client0, client1),
        machine_cpu: to_duration(machine0, machine1),
        peak_rss_kib: peak,
        fs,
        errors,
        server_log: deployment.log_summary(),
        db_log,
    })
}

/// Set up `games` games for [`Shape::Rounds`], `SETUP_CONCURRENCY` at a
/// time: their players, and how long that took.
async fn set_up_all(
    deployment: &Deployment,
    addrs: &[SocketAddr],
    games: usize,
) -> anyhow::Result<(Vec<Player>, Duration)> {
    let setup_start = Instant::now();
    let limit = Arc::new(Semaphore::new(SETUP_CONCURRENCY));
    let mut setups = Vec::with_capacity(games);
    for i in 0..games {
        let limit = limit.clone();
        // Like a load balancer without sticky sessions: X and O on
        // different nodes when there are several.
        let x_addr = addrs[i % addrs.len()];
        let o_addr = addrs[(i + 1) % addrs.len()];
        setups.push(tokio::spawn(async move {
            let _permit = limit.acquire_owned().await?;
            let clients = (Client::new(x_addr), Client::new(o_addr));
            set_up(
                clients,
                x_addr,
                o_addr,
                0x0123_4567_89AB_CDEF ^ (i as u64 + 1),
                false,
            )
            .await
        }));
    }
    let mut players = Vec::with_capacity(2 * games);
    for setup in setups {
        let (x, o) = setup
            .await
            .context("a setup task failed")?
            .with_context(|| {
                format!(
                    "setting up the games; server stderr: {}",
                    deployment.log_text()
                )
            })?;
        players.push(x);
        players.push(o);
    }
    Ok((players, setup_start.elapsed()))
}

/// One slot of [`Shape::Life`]: game after game until `stop`, each set up
/// (through X's node), played to the end of its first round and hung up.
async fn lives(
    slot: usize,
    socket_moves: bool,
    (x_addr, o_addr): (SocketAddr, SocketAddr),
    shared: Arc<Shared>,
    mut go: watch::Receiver<bool>,
    mut stop: watch::Receiver<bool>,
) -> anyhow::Result<Latencies> {
    let mut latencies = Latencies::default();
    if go.wait_for(|go| *go).await.is_err() {
        return Ok(latencies);
    }
    // Each player keeps its HTTP connection from game to game, as a
    // browser does.
    let clients = (Client::new(x_addr), Client::new(o_addr));
    for n in 0u64.. {
        if *stop.borrow() {
            break;
        }
        let seed = ((slot as u64 + 1) << 32) | n;
        let (x, o) = tokio::select! {
            players = set_up(clients.clone(), x_addr, o_addr, seed, socket_moves) => players?,
            _ = stop.changed() => break,
        };
        let player = |p| {
            play(
                p,
                shared.clone(),
                go.clone(),
                stop.clone(),
                true,
                socket_moves,
            )
        };
        let (a, b) = tokio::join!(player(x), player(o));
        for mut l in [a?, b?] {
            latencies.own.append(&mut l.own);
            latencies.opponent.append(&mut l.opponent);
        }
    }
    Ok(latencies)
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

impl Measured {
    fn per_second(&self, count: u64) -> f64 {
        count as f64 / self.window.as_secs_f64()
    }

    /// Cores' worth of `cpu` over the window.
    fn cores(&self, cpu: Duration) -> f64 {
        cpu.as_secs_f64() / self.window.as_secs_f64()
    }

    fn per_move_us(&self, cpu: Duration) -> Option<f64> {
        (self.moves > 0).then(|| cpu.as_secs_f64() * 1e6 / self.moves as f64)
    }

    /// The nodes' CPU time and the database's.
    fn total_cpu(&self) -> Duration {
        self.oxo_cpu + self.db_cpu.unwrap_or_default()
    }

    /// Cores' worth of CPU time other processes used meanwhile.
    fn others_cores(&self) -> f64 {
        self.cores(
            self.machine_cpu
                .saturating_sub(self.total_cpu() + self.client_cpu),
        )
    }

    fn label(&self) -> String {
        format!(
            "{} {} {} games",
            self.config.name(),
            self.shape.name(),
            self.games
        )
    }
}

/// A table: a header of two lines per column, then rows, the first column
/// left-aligned and the others right-aligned.
fn print_table(header: &[(&str, &str)], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            let (top, bottom) = header[i];
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([top.chars().count(), bottom.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut line = String::new();
        for (i, cell) in cells.enumerate() {
            if i == 0 {
                line += &format!("{cell:<w$}", w = widths[i]);
            } else {
                line += &format!("  {cell:>w$}", w = widths[i]);
            }
        }
        println!("{}", line.trim_end());
    };
    line(&mut header.iter().map(|h| h.0));
    line(&mut header.iter().map(|h| h.1));
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
}

fn print_report(results: &[Measured], cores: usize) {
    let ms = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    let us = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.1}"));
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|m| {
            let (own, opponent) = (&m.latencies.own, &m.latencies.opponent);
            vec![
                m.config.name().to_owned(),
                m.shape.name().to_owned(),
                m.games.to_string(),
                m.moves.to_string(),
                format!("{:.0}", m.per_second(m.moves)),
                format!("{:.1}", m.per_second(m.rounds)),
                ms(percentile_ms(own, 50.0)),
                ms(percentile_ms(own, 99.0)),
                ms(percentile_ms(opponent, 50.0)),
                ms(percentile_ms(opponent, 99.0)),
            ]
        })
        .collect();
    print_table(
        &[
            ("config", ""),
            ("shape", ""),
            ("games", ""),
            ("moves", ""),
            ("moves/s", ""),
            ("rounds/s", "(games)"),
            ("mover", "p50 ms"),
            ("mover", "p99 ms"),
            ("opponent", "p50 ms"),
            ("opponent", "p99 ms"),
        ],
        &rows,
    );
    println!();
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|m| {
            vec![
                m.config.name().to_owned(),
                m.shape.name().to_owned(),
                m.games.to_string(),
                us(m.per_move_us(m.oxo_cpu)),
                m.db_cpu
                    .map_or_else(|| "-".into(), |db| us(m.per_move_us(db))),
                us(m.per_move_us(m.total_cpu())),
                m.db_xacts.filter(|_| m.moves > 0).map_or_else(
                    || "-".into(),
                    |x| format!("{:.2}", x as f64 / m.moves as f64),
                ),
                format!("{:.1}", m.peak_rss_kib.iter().sum::<u64>() as f64 / 1024.0),
                format!("{:.2}", m.cores(m.oxo_cpu)),
                m.db_cpu
                    .map_or_else(|| "-".into(), |db| format!("{:.2}", m.cores(db))),
                format!("{:.2}", m.cores(m.client_cpu)),
                format!("{:.2}", m.others_cores()),
                format!("{:.2}", m.cores(m.machine_cpu)),
            ]
        })
        .collect();
    print_table(
        &[
            ("config", ""),
            ("shape", ""),
            ("games", ""),
            ("CPU/move", "oxo µs"),
            ("CPU/move", "db µs"),
            ("CPU/move", "total µs"),
            ("db xacts", "/move"),
            ("oxo peak", "RSS MiB"),
            ("cores", "oxo"),
            ("cores", "db"),
            ("cores", "bench"),
            ("cores", "others"),
            ("cores", "machine"),
        ],
        &rows,
    );
    println!(
        "\nLatency: move sent (a POST; in socket, a frame on the mover's WebSocket) -> the \
         update with that move received on the mover's own WebSocket (mover) and on the \
         opponent's (opponent; in pg3 it comes through another node).\nCPU/move: CPU time over moves in the window; oxo = the node(s), summed; db = \
         every process of the PostgreSQL cluster (postmaster, backends, background workers, \
         the ended ones included); total = oxo + db.\ndb xacts/move: transactions \
         (each statement its own) the database counted in about the window (its statistics \
         lag by up to a second), over moves.\noxo peak RSS: VmHWM, summed over the \
         nodes. cores: CPU time over wall time of the oxo node(s), the database, this client \
         process, every other process, and the whole machine ({cores} core(s) in all; CPU \
         time has the clock-tick resolution of /proc)."
    );
    if let Some(fs) = results.iter().find_map(|m| m.fs.as_deref()) {
        println!("The SQLite database was on a {fs} file system (a temporary directory).");
    }
    for m in results.iter().filter(|m| m.peak_rss_kib.len() > 1) {
        let each: Vec<String> = m
            .peak_rss_kib
            .iter()
            .map(|k| format!("{:.1}", *k as f64 / 1024.0))
            .collect();
        println!("{}: peak RSS per node {} MiB.", m.label(), each.join(" / "));
    }

    let mut runs: Vec<(Shape, usize)> = results.iter().map(|m| (m.shape, m.games)).collect();
    runs.dedup();
    for (shape, n) in runs {
        let find = |config| {
            results
                .iter()
                .find(|m| m.shape == shape && m.games == n && m.config == config)
        };
        let total_per_move = |config| find(config).and_then(|m| m.per_move_us(m.total_cpu()));
        println!("\n{} {n} games, total CPU per move:", shape.name());
        if let Some(games) = find(Config::Sqlite).or_else(|| find(Config::Memory))
            && shape.whole_life()
            && games.rounds > 0
        {
            println!(
                "  (a game's whole life, about {:.1} moves: {:.0} µs of oxo's CPU per game)",
                games.moves as f64 / games.rounds as f64,
                games.oxo_cpu.as_secs_f64() * 1e6 / games.rounds as f64
            );
        }
        let mut first = true;
        for config in Config::ALL {
            let Some(us) = total_per_move(config) else {
                continue;
            };
            let source = match (first, shape) {
                (true, Shape::Life | Shape::Socket) => {
                    " (boardgame.io 0.50.2, no storage, the life shape)"
                }
                (true, Shape::Rounds) => {
                    " (boardgame.io 0.50.2, no storage, measured on the life shape)"
                }
                _ => "",
            };
            first = false;
            println!(
                "  {:<6} {us:7.1} µs = {:.1}% of {} ms, {:.1}% of {} ms{source}",
                config.name(),
                us / (BGIO_MS.0 * 10.0),
                BGIO_MS.0,
                us / (BGIO_MS.1 * 10.0),
                BGIO_MS.1
            );
        }
        if let (Some(sqlite), Some(memory)) = (
            total_per_move(Config::Sqlite),
            total_per_move(Config::Memory),
        ) {
            println!("  sqlite / memory CPU per move = {:.2}x", sqlite / memory);
        }
        if let (Some(pg1), Some(pg3)) = (find(Config::Pg1), find(Config::Pg3))
            && pg1.moves > 0
        {
            println!(
                "  pg3 / pg1 moves/s = {:.0} / {:.0} = {:.2}x (aim: above 2x given the cores; \
                 this machine has {cores}, shared by the nodes, PostgreSQL and the clients)",
                pg3.per_second(pg3.moves),
                pg1.per_second(pg1.moves),
                pg3.per_second(pg3.moves) / pg1.per_second(pg1.moves)
            );
        }
        if let (Some(pg1), Some(sqlite)) =
            (total_per_move(Config::Pg1), total_per_move(Config::Sqlite))
        {
            println!(
                "  pg1 total CPU per move / sqlite CPU per move = {pg1:.1} / {sqlite:.1} µs = \
                 {:.2}x (aim: within 2x)",
                pg1 / sqlite
            );
        }
    }

    let mut notes = Vec::new();
    for m in results {
        let others = m.others_cores();
        if others > 0.2 {
            notes.push(format!(
                "WARNING: {}: other processes used {others:.2} cores meanwhile: moves/s and \
                 latency understate the server; CPU per move is less affected",
                m.label()
            ));
        }
        if m.conflicts > 0 {
            notes.push(format!(
                "note: {}: {} moves refused with 409 (stale or not one's turn)",
                m.label(),
                m.conflicts
            ));
        }
        if !m.errors.is_empty() {
            notes.push(format!(
                "WARNING: {}: {} player(s) failed; the first ones:",
                m.label(),
                m.errors.len()
            ));
            for error in m.errors.iter().take(3) {
                notes.push(format!("  {error}"));
            }
        }
        // Request lines are expected at the info level; anything worse, or
        // a failed player, is worth showing.
        let alarming = m
            .server_log
            .iter()
            .any(|line| line.contains(" WARN ") || line.contains(" ERROR "));
        if !m.server_log.is_empty() && (alarming || !m.errors.is_empty()) {
            notes.push(format!(
                "server stderr ({}): {}",
                m.label(),
                m.server_log.join(" | ")
            ));
        }
        if let Some(log) = &m.db_log {
            notes.push(format!("PostgreSQL's log ({}), the end:\n{log}", m.label()));
        }
    }
    if !notes.is_empty() {
        println!("\n{}", notes.join("\n"));
    }
}
