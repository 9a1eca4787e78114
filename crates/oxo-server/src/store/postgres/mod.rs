//! Rooms in PostgreSQL, shared by any number of `oxo serve` nodes.
//!
//! - **One writer per room.** Every change is one statement, committed
//!   before it is acknowledged, whose `UPDATE` only applies when the stored
//!   version is older than the new one. Two nodes
//!   racing to change a room both propose the same next version; the
//!   database applies exactly one and the other gets
//!   [`StoreError::Conflict`], rereads the room and answers from the fresh
//!   state. No lock is held between statements.
//! - **Group commit.** Changes reach the database through one committer
//!   per node: what arrives while a commit is under way goes together in
//!   the next transaction (`BEGIN`, the changes' statements, `COMMIT`,
//!   sent at once), so a busy node pays for one commit (and one wake-up of
//!   every listener) per batch, not per move. A statement that fails spoils
//!   its batch: the batch is rolled back and each of its changes committed
//!   again alone, so that only the bad one fails.
//! - **Live updates.** The same statement sends `NOTIFY oxo_rooms` with the
//!   room id and its new version, delivered to every node when (and only
//!   if) the change commits. Each node listens on a connection of its own
//!   ([`Store::follow`]), checked every few seconds, since a connection
//!   that dies silently looks just like a quiet one; when that connection
//!   drops or stops answering it reconnects, listens again and then asks
//!   the hub to reread every room it holds ([`StoreEvent::Resync`]), since
//!   notifications sent meanwhile are lost.
//! - **Computer moves exactly once.** A node searches the computer's move
//!   only after claiming the room's turn ([`Store::claim`]): a lease in the
//!   room's row, renewed while the search runs and ended by the commit. A
//!   node that dies stops renewing; once the lease runs out, any node's
//!   sweep ([`Store::computer_turns`]) finds the room and finishes the move.
//!
//! The schema is versioned in `oxo_schema` and migrated at start under an
//! advisory lock, so nodes starting together migrate once. Connections are
//! plain TCP (no TLS): keep the database on a private network or loopback.
//!
//! The code is in parts: the schema and its migrations ([`schema`]), the
//! connections ([`pool`]), the committer ([`commit`]), the reads and their
//! mapping of rows to rooms ([`rows`]) and the change feed ([`listen`]).

mod commit;
mod listen;
mod pool;
mod rows;
mod schema;

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Config;

pub use self::commit::CommitFault;
use self::commit::{Pending, commit_loop};
use self::listen::{PRESENCE, listen};
use self::pool::{Conn, Pool};
use self::rows::{column, decode, unsigned};
use super::record::int;
use super::{Change, Store, StoreError, StoreEvent, StoreFuture};
use crate::id::GameId;
use crate::room::RoomRecord;

/// The channel every change is announced on.
const CHANNEL: &str = "oxo_rooms";

/// The `application_name` of each node's listening connection (the others
/// are `oxo serve`), for operators and tests that look at `pg_stat_activity`.
pub const LISTENER_NAME: &str = "oxo serve changes";

/// How long to wait for the database to accept and answer a connection
/// (TCP, startup and login: see [`pool::open`]), unless the URL says
/// otherwise.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// TCP keepalives on every connection, unless the URL sets them: an idle
/// connection whose peer has silently gone (a host that crashed, a
/// failover, a NAT that forgot it) is found dead after about
/// 10 + 3 × 5 = 25 s rather than the system's two hours. (A connection
/// with a request outstanding is watched by its own timeouts: the change
/// feed's liveness check, the request's limit.)
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
const KEEPALIVE_RETRIES: u32 = 3;

/// tokio-postgres's default idle time before keepalives, which a URL that
/// does not mention `keepalives_idle` leaves.
const DEFAULT_KEEPALIVE_IDLE: Duration = Duration::from_secs(2 * 60 * 60);

struct Inner {
    /// The connections for requests.
    pool: Pool,
    /// Where changes wait for the committer ([`commit_loop`]).
    committer: mpsc::UnboundedSender<Pending>,
    /// Who claims computer turns: unique per process.
    node: String,
    /// Whether the last writes failed for the database's sake (see
    /// [`commit::storage_failed`]): readiness fails until a write works.
    writes_failing: AtomicBool,
    /// A failure a test asked for (see [`PgStore::inject`]).
    fault: std::sync::Mutex<Option<CommitFault>>,
    /// Set by [`CommitFault::Unreachable`] until its change is settled.
    unreachable: AtomicBool,
    /// How long a lost answer's outcome is looked for, in milliseconds
    /// (see [`PgStore::settle_within`]).
    settle_within: std::sync::atomic::AtomicU64,
}

/// Rooms in a PostgreSQL database that several servers may share. Cheap to
/// clone; clones share the connections.
#[derive(Clone)]
pub struct PgStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("node", &self.inner.node)
            .finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connect to the database at `url` (`postgres://USER@HOST:PORT/DB`,
    /// or any form tokio-postgres accepts) and bring its schema up to date.
    /// Must be called on a tokio runtime, which then drives the
    /// connections.
    ///
    /// # Errors
    /// A malformed URL, an unreachable or refusing database, a schema from
    /// a newer oxo.
    pub async fn connect(url: &str) -> Result<PgStore, StoreError> {
        let mut config: Config = url
            .parse()
            .map_err(|e| StoreError::Postgres(format!("bad database URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("oxo serve");
        }
        if config.get_keepalives_idle() == DEFAULT_KEEPALIVE_IDLE {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        if config.get_keepalives_interval().is_none() {
            config.keepalives_interval(KEEPALIVE_INTERVAL);
        }
        if config.get_keepalives_retries().is_none() {
            config.keepalives_retries(KEEPALIVE_RETRIES);
        }
        let (committer, pending) = mpsc::unbounded_channel();
        let store = PgStore {
            inner: Arc::new(Inner {
                pool: Pool::new(config),
                committer,
                node: node_name(),
                writes_failing: AtomicBool::new(false),
                fault: std::sync::Mutex::new(None),
                unreachable: AtomicBool::new(false),
                settle_within: std::sync::atomic::AtomicU64::new(
                    u64::try_from(commit::SETTLE_WITHIN.as_millis()).unwrap_or(u64::MAX),
                ),
            }),
        };
        // It ends when the store does (its last sender gone).
        tokio::spawn(commit_loop(Arc::downgrade(&store.inner), pending));
        schema::migrate(store.inner.pool.config()).await?;
        // Connect now, so that a database that cannot serve is found at
        // start and not on the first move.
        store.conn().await?;
        Ok(store)
    }

    /// Where the database is, without any password: `postgres://USER@HOST:PORT/DB`.
    #[must_use]
    pub fn describe(&self) -> String {
        let config = self.inner.pool.config();
        format!(
            "postgres://{}@{}/{}",
            config.get_user().unwrap_or(""),
            pool::address(config),
            config.get_dbname().unwrap_or("")
        )
    }

    /// How long the committer looks for the outcome of a change whose
    /// answer was lost before answering "outcome unknown" (5 s unless
    /// set; a test of that answer sets it small).
    pub fn settle_within(&self, within: Duration) {
        self.inner.settle_within.store(
            u64::try_from(within.as_millis()).unwrap_or(u64::MAX),
            std::sync::atomic::Ordering::SeqCst,
        );
    }

    /// Make the next change committed alone suffer `fault`, for tests of
    /// what a lost connection mid-commit answers (a change committed with
    /// others in one transaction does not take it).
    pub fn inject(&self, fault: CommitFault) {
        *self
            .inner
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(fault);
    }

    /// The name this node claims computer turns under.
    #[must_use]
    pub fn node(&self) -> &str {
        &self.inner.node
    }

    /// A connection from the pool.
    async fn conn(&self) -> Result<Arc<Conn>, StoreError> {
        self.inner.pool.get().await
    }

    fn run<T, F>(&self, work: impl FnOnce(Arc<Conn>) -> F + Send + 'static) -> StoreFuture<T>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
    {
        let store = self.clone();
        Box::pin(async move { work(store.conn().await?).await })
    }
}

/// `host:pid:random`, for the claims table and the logs.
fn node_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    let mut salt = [0u8; 3];
    let _ = getrandom::fill(&mut salt);
    format!(
        "{}:{}:{:02x}{:02x}{:02x}",
        if host.is_empty() { "oxo" } else { &host },
        std::process::id(),
        salt[0],
        salt[1],
        salt[2]
    )
}

impl Store for PgStore {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        let (reply, answer) = oneshot::channel();
        let sent = self.inner.committer.send((change, reply));
        Box::pin(async move {
            sent.map_err(|_| StoreError::Closed)?;
            // Handed over: from here a lost answer may hide a commit.
            answer
                .await
                .map_err(|_| StoreError::Unknown(super::LOST_ANSWER.into()))?
        })
    }

    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>> {
        let id = id.clone();
        self.run(move |conn| async move {
            let row = conn.client.query_opt(&conn.load, &[&id.as_str()]).await?;
            row.as_ref().map(decode).transpose()
        })
    }

    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>> {
        let watch = watch.clone();
        self.run(move |conn| async move {
            let row = conn
                .client
                .query_opt(&conn.load_watch, &[&watch.as_str()])
                .await?;
            row.as_ref().map(decode).transpose()
        })
    }

    fn lobby(&self, present: &[GameId]) -> StoreFuture<super::LobbyRows> {
        let present: Vec<String> = present.iter().map(|id| id.as_str().to_owned()).collect();
        self.run(move |conn| async move {
            let horizon = super::LOBBY_HORIZON.as_secs_f64();
            let limit = int(super::LOBBY_ROWS as u64);
            let open = int(super::OPEN_ROWS as u64);
            let shown = int(super::PRESENT_ROWS as u64);
            let rows = conn
                .client
                .query(&conn.lobby, &[&horizon, &limit, &open, &present, &shown])
                .await?;
            rows.iter()
                .map(|row| {
                    // The id first, to name the room if another column is
                    // damaged.
                    let id = column::<String>(row, 13).ok();
                    let listing = (|| -> Result<_, StoreError> {
                        Ok(super::record::StoredListing {
                            entry: column(row, 0)?,
                            watch: column(row, 1)?,
                            rows: unsigned(column(row, 2)?)?,
                            cols: unsigned(column(row, 3)?)?,
                            k: unsigned(column(row, 4)?)?,
                            opponent: column(row, 5)?,
                            first: column(row, 6)?,
                            round: unsigned(column(row, 7)?)?,
                            score: (column(row, 8)?, column(row, 9)?, column(row, 10)?),
                            seated: column(row, 11)?,
                            idle: column(row, 12)?,
                            id: column(row, 13)?,
                            names: [column(row, 14)?, column(row, 15)?],
                            clock: column(row, 16)?,
                        })
                    })();
                    super::record::StoredListing::decode_row(id.as_deref(), listing)
                })
                .collect()
        })
    }

    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>> {
        let entry = entry.clone();
        self.run(move |conn| async move {
            let row = conn
                .client
                .query_opt(&conn.load_entry, &[&entry.as_str()])
                .await?;
            row.map(|row| Ok(GameId::from_trusted(&column::<String>(&row, 0)?)))
                .transpose()
        })
    }

    fn seen(&self, id: &GameId) -> StoreFuture<()> {
        let id = id.clone();
        self.run(move |conn| async move {
            conn.client.execute(&conn.seen, &[&id.as_str()]).await?;
            Ok(())
        })
    }

    fn computer_turns(&self) -> StoreFuture<Vec<GameId>> {
        self.run(move |conn| async move {
            let rows = conn.client.query(&conn.orphans, &[]).await?;
            rows.iter()
                .map(|row| Ok(GameId::from_trusted(&column::<String>(row, 0)?)))
                .collect()
        })
    }

    fn due(&self, now: u64) -> StoreFuture<Vec<GameId>> {
        let now = crate::store::record::int(now);
        self.run(move |conn| async move {
            let rows = conn.client.query(rows::DUE, &[&now]).await?;
            rows.iter()
                .map(|row| Ok(GameId::from_trusted(&column::<String>(row, 0)?)))
                .collect()
        })
    }

    fn prune(&self, older_than: Duration, keep: HashSet<GameId>) -> StoreFuture<usize> {
        // Rooms looked at a statement, so that each is short on the
        // connection it shares with requests.
        const BATCH: i64 = 1024;
        let older_than = int(older_than.as_secs());
        self.run(move |conn| async move {
            let mut deleted = 0;
            let mut after = String::new();
            loop {
                let rows = conn
                    .client
                    .query(rows::UNPLAYED, &[&after, &older_than, &BATCH])
                    .await?;
                let Some(last) = rows.last() else {
                    return Ok(deleted);
                };
                after = column::<String>(last, 0)?;
                let mut ids = Vec::new();
                for row in &rows {
                    let id = column::<String>(row, 0)?;
                    if column::<bool>(row, 1)? && !keep.contains(&GameId::from_trusted(&id)) {
                        ids.push(id);
                    }
                }
                if !ids.is_empty() {
                    let gone = conn
                        .client
                        .query_one(rows::PRUNE, &[&ids, &older_than])
                        .await?;
                    // A count, never negative.
                    deleted += usize::try_from(column::<i64>(&gone, 0)?).unwrap_or(0);
                }
            }
        })
    }

    fn shared(&self) -> bool {
        true
    }

    fn announce(&self, id: &GameId, seats: [bool; 2]) -> StoreFuture<()> {
        let bit = |present: bool| if present { '1' } else { '0' };
        let note = format!(
            "{PRESENCE}{id} {} {} {}",
            self.inner.node,
            bit(seats[0]),
            bit(seats[1])
        );
        self.run(move |conn| async move {
            conn.client
                .execute(&conn.notify, &[&CHANNEL, &note])
                .await?;
            Ok(())
        })
    }

    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<oxo_core::Cell>>> {
        let id = id.clone();
        self.run(move |conn| async move {
            let rows = conn.client.query(&conn.rounds, &[&id.as_str()]).await?;
            let moves = rows
                .iter()
                .map(|row| {
                    Ok((
                        unsigned(column(row, 0)?)?,
                        i64::from(column::<i32>(row, 1)?),
                        unsigned(column(row, 2)?)?,
                        unsigned(column(row, 3)?)?,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            super::record::group_rounds(&id, moves)
        })
    }

    fn endings(&self, id: &GameId) -> StoreFuture<Vec<(u32, crate::room::Ending)>> {
        let id = id.clone();
        self.run(move |conn| async move {
            let rows = conn
                .client
                .query(
                    "SELECT round, reason, winner FROM endings WHERE room = $1 ORDER BY round",
                    &[&id.as_str()],
                )
                .await?;
            let rows = rows
                .iter()
                .map(|row| {
                    Ok((
                        unsigned(column(row, 0)?)?,
                        column::<String>(row, 1)?,
                        column::<Option<String>>(row, 2)?,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            super::record::decode_endings(&id, rows)
        })
    }

    fn version(&self, id: &GameId) -> StoreFuture<Option<u64>> {
        let id = id.clone();
        self.run(move |conn| async move {
            let row = conn
                .client
                .query_opt(&conn.version, &[&id.as_str()])
                .await?;
            row.map(|row| {
                let version: i64 = column(&row, 0)?;
                u64::try_from(version).map_err(|_| {
                    StoreError::Corrupt(format!("game {}: version {version}", id.for_log()))
                })
            })
            .transpose()
        })
    }

    fn follow(&self) -> Option<mpsc::Receiver<StoreEvent>> {
        let (events, receiver) = mpsc::channel(1024);
        let mut config = self.inner.pool.config().clone();
        config.application_name(LISTENER_NAME);
        tokio::spawn(listen(config, self.inner.node.clone(), events));
        Some(receiver)
    }

    fn claim(&self, id: &GameId, version: u64, lease: Duration) -> StoreFuture<bool> {
        let id = id.clone();
        let node = self.inner.node.clone();
        self.run(move |conn| async move {
            let claimed = conn
                .client
                .execute(
                    &conn.claim,
                    &[&id.as_str(), &int(version), &node, &lease.as_secs_f64()],
                )
                .await?;
            Ok(claimed == 1)
        })
    }

    /// A cheap query while writes work; while they fail, a write (of the
    /// schema's version, unchanged), so that readiness comes back as soon
    /// as writes can.
    fn ping(&self) -> StoreFuture<()> {
        let store = self.clone();
        self.run(move |conn| async move {
            if !store.inner.writes_failing.load(Ordering::Relaxed) {
                conn.client.simple_query("SELECT 1").await?;
                return Ok(());
            }
            conn.client
                .simple_query("UPDATE oxo_schema SET version = version")
                .await?;
            store.inner.writes_failing.store(false, Ordering::Relaxed);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_differ_between_stores_of_one_process() {
        assert_ne!(node_name(), node_name());
    }

    /// The lobby's open games can be found by the partial index
    /// `rooms_open` (which holds no cancelled game): the planner uses it
    /// once a scan of the whole table is ruled out. On a table this small
    /// it would scan the table, so the plan, not the planner's choice, is
    /// what is checked.
    #[tokio::test]
    async fn the_lobby_can_walk_the_index_of_open_games() {
        let db = oxo_test_support::Postgres::start().unwrap_or_else(|e| panic!("{e}"));
        drop(PgStore::connect(&db.url()).await.expect("migrated"));
        let plan = db
            .psql(&format!(
                "SET enable_seqscan = off; PREPARE lobby AS {}; \
                 EXPLAIN EXECUTE lobby(0, 0, 10, '{{}}', 0);",
                rows::LOBBY
            ))
            .unwrap();
        assert!(plan.contains("rooms_open"), "{plan}");
        // ...which holds open games only, none cancelled (ended).
        let index = db
            .psql("SELECT pg_get_indexdef('rooms_open'::regclass)")
            .unwrap();
        assert!(index.contains("(end_reason IS NULL)"), "{index}");
    }
}
