//! The node's connections for requests: a fixed number, each with the
//! store's statements prepared, handed out round robin and replaced when
//! they close.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, Config, Connection, NoTls, Socket, Statement};

use super::commit::{Commit, PARAMS};
use super::rows::{CLAIM, LOAD, LOBBY, ORPHANS, SEEN};
use crate::store::StoreError;

/// Connections each node keeps for its requests. Statements from many
/// tasks are pipelined on each; several let commits share a WAL flush.
const SIZE: usize = 8;

/// One connection and its prepared statements.
pub(super) struct Conn {
    pub client: Client,
    /// Which server process serves it, so that a connection lost mid-commit
    /// can be fenced off (see `commit::settle`).
    pub backend: Backend,
    /// [`Commit::SQL`], in its order.
    commits: Vec<Statement>,
    pub load: Statement,
    pub load_watch: Statement,
    pub claim: Statement,
    pub orphans: Statement,
    pub version: Statement,
    pub rounds: Statement,
    pub lobby: Statement,
    pub load_entry: Statement,
    /// [`SEEN`]: an open game's creator was here.
    pub seen: Statement,
    /// `pg_notify` on a channel, as presence is announced.
    pub notify: Statement,
}

impl Conn {
    /// The prepared statement that writes a change of kind `commit`.
    pub(super) fn commit(&self, commit: Commit) -> &Statement {
        &self.commits[commit as usize]
    }
}

/// [`SIZE`] connection slots, each empty until first used and refilled
/// when its connection has closed.
pub(super) struct Pool {
    config: Config,
    slots: Vec<Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
}

impl Pool {
    /// A pool of connections to the database `config` names; none is made
    /// yet.
    pub(super) fn new(config: Config) -> Pool {
        Pool {
            config,
            slots: (0..SIZE).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// Where the connections go.
    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// A connection, round robin over the slots, (re)connected as needed.
    pub(super) async fn get(&self) -> Result<Arc<Conn>, StoreError> {
        let at = self.next.fetch_add(1, Ordering::Relaxed) % SIZE;
        let slot = &self.slots[at];
        let held = slot.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(conn) = held
            && !conn.client.is_closed()
        {
            return Ok(conn);
        }
        let client = connect(&self.config).await?;
        let backend = Backend::of(&client).await?;
        let load_where = |clause: &str| format!("{LOAD} WHERE {clause} = $1");
        let mut commits = Vec::with_capacity(Commit::SQL.len());
        for sql in Commit::SQL {
            commits.push(client.prepare_typed(sql, &PARAMS).await?);
        }
        let conn = Arc::new(Conn {
            commits,
            load: client.prepare(&load_where("id")).await?,
            load_watch: client.prepare(&load_where("watch")).await?,
            claim: client.prepare(CLAIM).await?,
            orphans: client.prepare(ORPHANS).await?,
            version: client
                .prepare("SELECT version FROM rooms WHERE id = $1")
                .await?,
            rounds: client
                .prepare(
                    "SELECT round, ply, row, col FROM moves WHERE room = $1 ORDER BY round, ply",
                )
                .await?,
            lobby: client.prepare(LOBBY).await?,
            load_entry: client
                .prepare("SELECT id FROM rooms WHERE entry = $1")
                .await?,
            seen: client.prepare(SEEN).await?,
            notify: client
                .prepare_typed("SELECT pg_notify($1, $2)", &[Type::TEXT, Type::TEXT])
                .await?,
            client,
            backend,
        });
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn.clone());
        Ok(conn)
    }
}

/// The server process behind a connection: its pid and when it started
/// (pids are reused, the pair is not).
#[derive(Clone, Copy, Debug)]
pub(super) struct Backend {
    pub pid: i32,
    pub started: f64,
}

impl Backend {
    /// The process serving `client`.
    async fn of(client: &Client) -> Result<Backend, StoreError> {
        let row = client
            .query_one(
                "SELECT pid, extract(epoch FROM backend_start)::float8 FROM pg_stat_activity
                 WHERE pid = pg_backend_pid()",
                &[],
            )
            .await?;
        Ok(Backend {
            pid: row.try_get(0)?,
            started: row.try_get(1)?,
        })
    }
}

/// A connection to the database `config` names, not yet driven: the TCP
/// connect, the startup and the login all within the config's connect
/// timeout (tokio-postgres bounds only the TCP connect by it, so a host
/// that accepts connections and never answers would hold a node forever).
pub(super) async fn open(
    config: &Config,
) -> Result<(Client, Connection<Socket, NoTlsStream>), StoreError> {
    let within = config
        .get_connect_timeout()
        .copied()
        .unwrap_or(super::CONNECT_TIMEOUT);
    match tokio::time::timeout(within, config.connect(NoTls)).await {
        Ok(connected) => Ok(connected?),
        Err(_) => Err(StoreError::NoAnswer {
            at: address(config),
            within,
        }),
    }
}

/// `HOST:PORT` of the (first) server `config` names, for messages.
pub(super) fn address(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".into(),
    };
    format!(
        "{host}:{}",
        config.get_ports().first().copied().unwrap_or(5432)
    )
}

/// One connection ([`open`]), driven by a task of its own; errors on it
/// are logged with their cause (the client sees the connection closed and
/// the pool replaces it).
pub(super) async fn connect(config: &Config) -> Result<Client, StoreError> {
    let (client, connection) = open(config).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %StoreError::from(e), "a PostgreSQL connection failed");
        }
    });
    Ok(client)
}
