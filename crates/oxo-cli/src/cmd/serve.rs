//! `oxo serve`: the web game.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use oxo_cli::exit;
use tracing_subscriber::filter::LevelFilter;

use crate::args::ServeArgs;
use crate::failure::BadInput;

/// Where games are kept.
#[derive(Debug)]
enum Storage {
    Memory,
    /// The file, and whether to check its integrity first.
    Sqlite(PathBuf, bool),
    /// A PostgreSQL URL.
    Postgres(String),
}

/// The database when neither --db nor `OXO_DB` names one.
const DEFAULT_DB: &str = "oxo.db";

impl Storage {
    /// From the arguments and `OXO_DB` (`env_db`), which --db and --memory
    /// override.
    fn new(args: &ServeArgs, env_db: Option<OsString>) -> anyhow::Result<Storage> {
        if args.memory {
            return Ok(Storage::Memory);
        }
        let db = match (&args.db, env_db) {
            (Some(db), _) => db.clone(),
            (None, Some(env)) => env
                .into_string()
                .map_err(|_| BadInput("OXO_DB is not valid UTF-8".to_owned()))?,
            (None, None) => DEFAULT_DB.to_owned(),
        };
        let from = if args.db.is_some() { "--db" } else { "OXO_DB" };
        if db.is_empty() {
            // SQLite would take "" for a temporary database, deleted on close.
            return Err(BadInput(format!(
                "{from} is empty: name a SQLite file or a postgres:// URL"
            ))
            .into());
        }
        Ok(match url_scheme(&db) {
            // The scheme in any case, as URLs allow; the PostgreSQL client
            // reads only the lower-case one.
            Some(scheme)
                if scheme.eq_ignore_ascii_case("postgres")
                    || scheme.eq_ignore_ascii_case("postgresql") =>
            {
                if args.skip_check {
                    // PostgreSQL keeps its own pages whole: there is no file
                    // check to skip.
                    return Err(BadInput(format!(
                        "--skip-check skips the check of a SQLite file; {from} names a PostgreSQL database"
                    ))
                    .into());
                }
                Storage::Postgres(format!("postgres{}", &db[scheme.len()..]))
            }
            // Taken for a file name, a URL would be echoed in every error,
            // with any password it carries: only its scheme is said.
            Some(scheme) => {
                return Err(BadInput(format!(
                    "{from} is a {scheme}:// URL: name a SQLite file or a postgres:// URL"
                ))
                .into());
            }
            None => Storage::Sqlite(PathBuf::from(db), !args.skip_check),
        })
    }

    /// The store, opened (on the runtime, which drives a PostgreSQL
    /// store's connections), and a phrase saying where games are kept.
    async fn open(&self) -> anyhow::Result<(Arc<dyn oxo_server::Store>, String)> {
        Ok(match self {
            Storage::Memory => (
                Arc::new(oxo_server::MemoryStore::new()),
                "games kept in memory only".to_owned(),
            ),
            Storage::Sqlite(path, check) => (
                Arc::new(
                    if *check {
                        oxo_server::SqliteStore::open(path)
                    } else {
                        oxo_server::SqliteStore::open_without_check(path)
                    }
                    .map_err(|e| open_failed(path, e))?,
                ),
                // In full, so that the log says where the data is,
                // whatever directory the server was started from.
                format!(
                    "games kept in {}",
                    std::path::absolute(path)
                        .as_deref()
                        .unwrap_or(path)
                        .display()
                ),
            ),
            Storage::Postgres(url) => {
                let store = oxo_server::PgStore::connect(url)
                    .await
                    .context("cannot open the database")?;
                let kept = format!("games kept in {}, node {}", store.describe(), store.node());
                (Arc::new(store), kept)
            }
        })
    }
}

/// The scheme of `db` when it is a URL (`SCHEME://…`, the scheme a letter
/// then letters, digits, `+`, `-` or `.`), else `None`: a file name.
fn url_scheme(db: &str) -> Option<&str> {
    let (scheme, _) = db.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// What to do about a damaged database: a stale log beside a restored
/// file is replayed onto it, which undoes the restore or damages it.
const RESTORE: &str = "restore a backup (with the server stopped, and the file's -wal and -shm \
                       files deleted first: see Backups in docs/manual/serve.md)";

/// Why the database at `path` cannot be served, with what to do about it
/// in this command's terms (its flags).
fn open_failed(path: &Path, e: oxo_server::StoreError) -> anyhow::Error {
    use oxo_server::StoreError;
    let e = match e {
        // Says the file and the reason, once.
        StoreError::CannotOpen { path, reason } => {
            return anyhow::anyhow!("cannot open the database {}: {reason}", path.display());
        }
        // Names the file itself.
        e @ StoreError::NotOxo { .. } => {
            return anyhow::anyhow!(
                "{e}; name oxo's own database, or one where no file is for a new one"
            );
        }
        e @ StoreError::Unreadable(_) => anyhow::anyhow!("{e}; {RESTORE}"),
        // Names the file itself.
        StoreError::InUse { path, pid } => {
            return anyhow::anyhow!(
                "the database {} is in use by another oxo serve{}; stop it first, or give each \
             server its own --db (several servers on one database need PostgreSQL)",
                path.display(),
                pid.map(|pid| format!(" (process {pid})"))
                    .unwrap_or_default()
            );
        }
        e @ StoreError::Damaged(_) => anyhow::anyhow!(
            "{e}; {RESTORE}, or start with --skip-check to serve the rooms that are intact"
        ),
        e => anyhow::Error::new(e),
    };
    e.context(format!("cannot open the database {}", path.display()))
}

/// `oxo serve`, validated.
#[derive(Debug)]
struct Config {
    addr: SocketAddr,
    storage: Storage,
    log_level: LevelFilter,
    catalog: oxo_ai::Catalog,
    limits: oxo_server::Limits,
    claim_after: Duration,
    /// `None`: every game is kept.
    prune_after: Option<Duration>,
}

impl Config {
    fn new(args: &ServeArgs) -> anyhow::Result<Config> {
        let level = std::env::var("OXO_LOG").unwrap_or_else(|_| "info".into());
        let log_level = level.parse().map_err(|_| {
            BadInput(format!(
                "OXO_LOG={level:?}: use error, warn, info, debug, trace or off"
            ))
        })?;
        if let (Some(asked), Some(possible)) =
            (args.max_connections, oxo_server::connections_possible())
            && u64::from(asked) > possible
        {
            return Err(BadInput(format!(
                "--max-connections {asked} is more than this process can hold: its open-file \
                 limit allows {possible} connections with 64 descriptors kept for the database \
                 and logs; raise the limit (ulimit -n, or LimitNOFILE= for a systemd service) \
                 or give at most {possible}"
            ))
            .into());
        }
        Ok(Config {
            addr: args.addr,
            storage: Storage::new(args, std::env::var_os("OXO_DB"))?,
            log_level,
            // The web game bounds every computer move (the CLI's perfect
            // player stays unbounded).
            catalog: super::catalog(&args.model, None)?
                .with_perfect_budget(Some(oxo_server::PERFECT_BUDGET)),
            limits: limits(args),
            claim_after: Duration::from_secs(u64::from(args.claim_after)),
            prune_after: (args.prune_unplayed_after > 0)
                .then(|| Duration::from_secs(u64::from(args.prune_unplayed_after) * 24 * 60 * 60)),
        })
    }
}

/// The connection and rate limits the arguments ask for.
fn limits(args: &ServeArgs) -> oxo_server::Limits {
    let defaults = oxo_server::Limits::default();
    // Bursts of 40 s of creates and 3 s of writes, as the defaults.
    oxo_server::Limits {
        creates: defaults
            .creates
            .at(f64::from(args.creates_per_minute) / 60.0),
        writes: defaults.writes.at(f64::from(args.writes_per_second)),
        max_connections: args
            .max_connections
            .map_or(defaults.max_connections, |n| n as usize),
        max_per_address: args.max_connections_per_address as usize,
        trust_proxy: args.trust_proxy,
        ..defaults
    }
}

pub(super) fn run(args: &ServeArgs) -> anyhow::Result<u8> {
    let config = Config::new(args)?;
    // A request's log line is a copy into memory; a thread of its own
    // writes the lines to stderr (every 0.1 s). Dropped last, when `run`
    // returns, so every line is out before an error is printed.
    let (log, _flusher) = oxo_server::logbuf::LogBuffer::start(io::stderr())
        .context("cannot start the log writer")?;
    tracing_subscriber::fmt()
        .with_max_level(config.log_level)
        .with_writer(log)
        .with_ansi(io::stderr().is_terminal())
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        let (store, kept) = config.storage.open().await?;
        let listener =
            listen(config.addr).with_context(|| format!("cannot listen on {}", config.addr))?;
        let addr = listener
            .local_addr()
            .context("cannot read the bound address")?;
        let hub = oxo_server::Hub::new(
            store,
            &oxo_server::HubConfig {
                catalog: config.catalog.clone(),
                claim_after: config.claim_after,
                prune_after: config.prune_after,
                ..oxo_server::HubConfig::default()
            },
        );
        // Listened for before the address is out, so a signal sent as soon
        // as it is read still shuts down cleanly.
        let mut signals =
            oxo_cli::signals::Signals::new().context("cannot listen for Ctrl-C and SIGTERM")?;
        // Tests and scripts read the address from this line.
        let mut out = super::stdout();
        writeln!(out, "oxo serve: listening on http://{addr} ({kept})")?;
        out.flush()?;
        oxo_server::run(
            listener,
            oxo_server::AppState::with_limits(hub, config.limits.clone()),
            async move {
                signals.recv().await;
            },
        )
        .await
        .context("the server failed")
    });
    // A computer move still being searched is not worth waiting for: it was
    // not acknowledged, and the next start takes it up again.
    runtime.shutdown_timeout(Duration::from_millis(500));
    served?;
    Ok(exit::SUCCESS)
}

/// Connections the kernel may hold for the server before it accepts them
/// (the system caps it at `net.core.somaxconn`). The standard library's
/// 128 overflows in a burst of new connections, and a client whose
/// connection is dropped then waits a second for its retry.
const LISTEN_BACKLOG: u32 = 4096;

fn listen(addr: SocketAddr) -> io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}
