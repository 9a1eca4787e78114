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
//!   ([`Store::follow`]); when that connection drops it reconnects, listens
//!   again and then asks the hub to reread every room it holds
//!   ([`StoreEvent::Resync`]), since notifications sent meanwhile are lost.
//! - **Computer moves exactly once.** A node searches the computer's move
//!   only after claiming the room's turn ([`Store::claim`]): a lease in the
//!   room's row, renewed while the search runs and ended by the commit. A
//!   node that dies stops renewing; once the lease runs out, any node's
//!   sweep ([`Store::computer_turns`]) finds the room and finishes the move.
//!
//! The schema is versioned in `oxo_schema` and migrated at start under an
//! advisory lock, so nodes starting together migrate once. Connections are
//! plain TCP (no TLS): keep the database on a private network or loopback.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Statement};

use super::record::{Stored, checked, digest, int};
use super::{Change, ChangeKind, Store, StoreError, StoreEvent, StoreFuture};
use crate::id::GameId;
use crate::room::{RoomRecord, SeatName};

/// Schema migrations, in order; `oxo_schema.version` counts those applied.
/// Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: rooms (with their digest and the computer's claim) and every move
    // of every round. Room rows leave room on their pages and no index
    // covers what a move changes (except whose turn it is in a game against
    // the computer), so most updates are HOT: they add no index entries, and
    // the indexes do not bloat as games go on.
    "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        watch TEXT NOT NULL UNIQUE,
        rows INTEGER NOT NULL,
        cols INTEGER NOT NULL,
        k INTEGER NOT NULL,
        opponent TEXT NOT NULL,
        x_token TEXT NOT NULL,
        o_token TEXT,
        round INTEGER NOT NULL,
        first TEXT NOT NULL CHECK (first IN ('x', 'o')),
        x_wins BIGINT NOT NULL,
        o_wins BIGINT NOT NULL,
        draws BIGINT NOT NULL,
        version BIGINT NOT NULL,
        computer_turn BOOLEAN NOT NULL,
        digest TEXT NOT NULL,
        claimed_by TEXT,
        claimed_until TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    ) WITH (fillfactor = 70);
    CREATE TABLE moves (
        room TEXT NOT NULL REFERENCES rooms (id),
        round INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        row INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (room, round, ply)
    );
    CREATE INDEX rooms_computer_turn ON rooms (id) WHERE computer_turn;",
    // 2: the seat that offered a rematch, and the lobby: a listed room's
    // entry id (its open game is joined through it), found by recent change.
    "ALTER TABLE rooms ADD COLUMN offer TEXT CHECK (offer IN ('x', 'o'));
    ALTER TABLE rooms ADD COLUMN entry TEXT UNIQUE;
    CREATE INDEX rooms_listed ON rooms (updated_at) WHERE entry IS NOT NULL;",
    // 3: the hash of the invite that takes seat O of a game between two
    // people; rooms stored before it have none and admit anyone with the id.
    "ALTER TABLE rooms ADD COLUMN invite TEXT;",
];

/// The channel every change is announced on.
const CHANNEL: &str = "oxo_rooms";

/// The `application_name` of each node's listening connection (the others
/// are `oxo serve`), for operators and tests that look at `pg_stat_activity`.
pub const LISTENER_NAME: &str = "oxo serve changes";

/// Connections each node keeps for its requests. Statements from many
/// tasks are pipelined on each; several let commits share a WAL flush.
const POOL: usize = 8;

/// How long to wait for the database to accept a connection, unless the
/// URL says otherwise.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A change: the room's row upserted under the version guard, the move (if
/// any) appended, and the change announced (`ID VERSION NODE [ROW COL]`,
/// the cell for a move), in one statement. The claim on
/// the computer's turn ends with it. Answers one row, or none when the
/// guard refused the write.
const COMMIT: &str = "WITH room AS (
        INSERT INTO rooms (id, rows, cols, k, opponent, x_token, o_token, round, first,
                           x_wins, o_wins, draws, version, computer_turn, watch, digest,
                           offer, entry, invite)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $21, $22,
                $23)
        ON CONFLICT (id) DO UPDATE SET
            o_token = excluded.o_token, round = excluded.round, first = excluded.first,
            x_wins = excluded.x_wins, o_wins = excluded.o_wins, draws = excluded.draws,
            version = excluded.version, computer_turn = excluded.computer_turn,
            digest = excluded.digest, offer = excluded.offer,
            claimed_by = NULL, claimed_until = NULL,
            updated_at = now()
        WHERE rooms.version < excluded.version
        RETURNING id, version
    ), played AS (
        INSERT INTO moves (room, round, ply, row, col)
        SELECT id, $8, $17, $18, $19 FROM room WHERE $17 > 0
    )
    SELECT pg_notify('oxo_rooms', id || ' ' || version || ' ' || $20::text
        || CASE WHEN $17 > 0 THEN ' ' || $18::text || ' ' || $19::text ELSE '' END)
    FROM room";

/// A room and the moves of its round, read in one snapshot.
const LOAD: &str = "SELECT id, rows, cols, k, opponent, x_token, o_token, round, first,
        x_wins, o_wins, draws, version, watch, digest,
        ARRAY(SELECT ply FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        ARRAY(SELECT row FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        ARRAY(SELECT col FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        offer, entry, invite
    FROM rooms r";

/// Listed rooms changed lately, the latest first.
const LOBBY: &str = "SELECT entry, watch, rows, cols, k, opponent, first, round,
        x_wins, o_wins, draws, o_token IS NOT NULL OR opponent <> 'human',
        extract(epoch FROM now() - updated_at)::bigint
    FROM rooms WHERE entry IS NOT NULL AND updated_at > now() - make_interval(secs => $1)
    ORDER BY updated_at DESC LIMIT $2";

/// Take or renew the computer's turn: only at that version, only while it
/// is the computer's turn, and only when nobody else holds a live lease.
const CLAIM: &str = "UPDATE rooms
    SET claimed_by = $3, claimed_until = now() + make_interval(secs => $4)
    WHERE id = $1 AND version = $2 AND computer_turn
      AND (claimed_until IS NULL OR claimed_until < now() OR claimed_by = $3)";

/// Computer turns nobody is on: unclaimed or with a lapsed lease, and
/// untouched for a second (so that the node that just made the change has
/// time to claim it first).
const ORPHANS: &str = "SELECT id FROM rooms
    WHERE computer_turn AND updated_at < now() - interval '1 second'
      AND (claimed_until IS NULL OR claimed_until < now())";

/// One connection and its prepared statements.
struct Conn {
    client: Client,
    commit: Statement,
    load: Statement,
    load_watch: Statement,
    claim: Statement,
    orphans: Statement,
    version: Statement,
    rounds: Statement,
    lobby: Statement,
    load_entry: Statement,
}

struct Inner {
    config: Config,
    /// Where changes wait for the committer ([`commit_loop`]).
    committer: mpsc::UnboundedSender<Pending>,
    /// Who claims computer turns: unique per process.
    node: String,
    slots: Vec<Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
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
        let (committer, pending) = mpsc::unbounded_channel();
        let store = PgStore {
            inner: Arc::new(Inner {
                config,
                committer,
                node: node_name(),
                slots: (0..POOL).map(|_| Mutex::new(None)).collect(),
                next: AtomicUsize::new(0),
            }),
        };
        // It ends when the store does (its last sender gone).
        tokio::spawn(commit_loop(Arc::downgrade(&store.inner), pending));
        store.migrate().await?;
        // Connect now, so that a database that cannot serve is found at
        // start and not on the first move.
        store.conn().await?;
        Ok(store)
    }

    /// Where the database is, without any password: `postgres://USER@HOST:PORT/DB`.
    #[must_use]
    pub fn describe(&self) -> String {
        let config = &self.inner.config;
        let host = match config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
            None => "localhost".into(),
        };
        format!(
            "postgres://{}@{}:{}/{}",
            config.get_user().unwrap_or(""),
            host,
            config.get_ports().first().copied().unwrap_or(5432),
            config.get_dbname().unwrap_or("")
        )
    }

    /// The name this node claims computer turns under.
    #[must_use]
    pub fn node(&self) -> &str {
        &self.inner.node
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = connect(&self.inner.config).await?;
        let tx = client.transaction().await?;
        // Nodes starting together take turns; the lock ends with the
        // transaction.
        tx.batch_execute(
            "SELECT pg_advisory_xact_lock(7894130);
             CREATE TABLE IF NOT EXISTS oxo_schema (version INTEGER NOT NULL);",
        )
        .await?;
        let found: i64 = match tx.query_opt("SELECT version FROM oxo_schema", &[]).await? {
            Some(row) => i64::from(row.get::<_, i32>(0)),
            None => {
                tx.execute("INSERT INTO oxo_schema (version) VALUES (0)", &[])
                    .await?;
                0
            }
        };
        let known = i64::try_from(MIGRATIONS.len()).expect("a handful of migrations");
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        for (number, sql) in (1..)
            .zip(MIGRATIONS)
            .skip(usize::try_from(found).unwrap_or(0))
        {
            tx.batch_execute(sql).await?;
            tx.execute("UPDATE oxo_schema SET version = $1", &[&number])
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A connection, round robin over the pool, (re)connected as needed.
    async fn conn(&self) -> Result<Arc<Conn>, StoreError> {
        let at = self.inner.next.fetch_add(1, Ordering::Relaxed) % POOL;
        let slot = &self.inner.slots[at];
        let held = slot.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(conn) = held
            && !conn.client.is_closed()
        {
            return Ok(conn);
        }
        let client = connect(&self.inner.config).await?;
        let load_where = |clause: &str| format!("{LOAD} WHERE {clause} = $1");
        let conn = Arc::new(Conn {
            commit: client.prepare(COMMIT).await?,
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
            client,
        });
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn.clone());
        Ok(conn)
    }

    /// `work` on a pooled connection, as a store's answer.
    fn run<T, F>(&self, work: impl FnOnce(Arc<Conn>) -> F + Send + 'static) -> StoreFuture<T>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
    {
        let store = self.clone();
        Box::pin(async move { work(store.conn().await?).await })
    }
}

/// A change waiting for the committer, and where its outcome goes.
type Pending = (Change, oneshot::Sender<Result<(), StoreError>>);

/// Changes committed in one transaction, at most.
const BATCH: usize = 64;

/// The committer: takes whatever changes are waiting (at most [`BATCH`]),
/// commits them together, answers each, and again.
async fn commit_loop(inner: Weak<Inner>, mut pending: mpsc::UnboundedReceiver<Pending>) {
    let mut batch = Vec::with_capacity(BATCH);
    while pending.recv_many(&mut batch, BATCH).await > 0 {
        let Some(inner) = inner.upgrade() else {
            return;
        };
        PgStore { inner }.commit_batch(&mut batch).await;
        batch.clear();
    }
}

/// The values of [`COMMIT`]'s parameters for one change, owned.
struct Row {
    id: String,
    rows: i32,
    cols: i32,
    k: i32,
    opponent: &'static str,
    x_token: String,
    o_token: Option<String>,
    round: i32,
    first: &'static str,
    score: [i64; 3],
    version: i64,
    computer_turn: bool,
    watch: String,
    digest: String,
    ply: i32,
    row: i32,
    col: i32,
    offer: Option<&'static str>,
    entry: Option<String>,
    invite: Option<String>,
}

impl Row {
    fn new(change: &Change) -> Result<Row, StoreError> {
        let r = &change.room;
        let (ply, cell) = match change.kind {
            ChangeKind::Move => {
                let cell = r.moves.last().ok_or_else(|| {
                    StoreError::Corrupt(format!("game {}: a move with no moves", r.id.for_log()))
                })?;
                (
                    small(u32::try_from(r.moves.len()).unwrap_or(u32::MAX))?,
                    *cell,
                )
            }
            _ => (0, oxo_core::Cell::new(0, 0)),
        };
        Ok(Row {
            id: r.id.as_str().to_owned(),
            rows: small(r.rules.rows())?,
            cols: small(r.rules.cols())?,
            k: small(r.rules.k())?,
            opponent: r.opponent.name(),
            x_token: r.x_token.as_str().to_owned(),
            o_token: r.o_token.as_ref().map(|t| t.as_str().to_owned()),
            round: small(r.round)?,
            first: SeatName(r.first).as_str(),
            score: [
                int(r.score.wins(oxo_core::Player::X)),
                int(r.score.wins(oxo_core::Player::O)),
                int(r.score.draws()),
            ],
            version: int(r.version),
            computer_turn: change.computer_turn,
            watch: r.watch.as_str().to_owned(),
            digest: digest(r),
            ply,
            row: small(cell.row)?,
            col: small(cell.col)?,
            offer: r.offer.map(|seat| SeatName(seat).as_str()),
            entry: r.entry.as_ref().map(|e| e.as_str().to_owned()),
            invite: r.invite.as_ref().map(|i| i.as_str().to_owned()),
        })
    }

    /// The parameters in [`COMMIT`]'s order, `node` announcing the change.
    fn params<'a>(
        &'a self,
        node: &'a String,
    ) -> [&'a (dyn tokio_postgres::types::ToSql + Sync); 23] {
        [
            &self.id,
            &self.rows,
            &self.cols,
            &self.k,
            &self.opponent,
            &self.x_token,
            &self.o_token,
            &self.round,
            &self.first,
            &self.score[0],
            &self.score[1],
            &self.score[2],
            &self.version,
            &self.computer_turn,
            &self.watch,
            &self.digest,
            &self.ply,
            &self.row,
            &self.col,
            node,
            &self.offer,
            &self.entry,
            &self.invite,
        ]
    }
}

/// What one change's statement wrote: its row, or a conflict.
fn written(change: &Change, rows: u64) -> Result<(), StoreError> {
    if rows == 1 {
        Ok(())
    } else {
        Err(StoreError::Conflict(format!(
            "game {} is already stored at version {} or later",
            change.room.id.for_log(),
            change.room.version
        )))
    }
}

impl PgStore {
    /// Commit `batch` (see the module docs) and answer each change.
    async fn commit_batch(&self, batch: &mut Vec<Pending>) {
        let node = &self.inner.node;
        // A change that cannot even be written down is refused alone.
        let mut rows = Vec::with_capacity(batch.len());
        let mut ready = Vec::with_capacity(batch.len());
        for (change, reply) in batch.drain(..) {
            match Row::new(&change) {
                Ok(row) => {
                    rows.push(row);
                    ready.push((change, reply));
                }
                Err(e) => drop(reply.send(Err(e))),
            }
        }
        if ready.is_empty() {
            return;
        }
        let conn = match self.conn().await {
            Ok(conn) => conn,
            Err(e) => {
                let message = e.to_string();
                for (_, reply) in ready {
                    let _ = reply.send(Err(StoreError::Postgres(message.clone())));
                }
                return;
            }
        };
        if ready.len() > 1 {
            // Sent at once, in this order, on one connection: one round
            // trip and one commit for them all.
            let client = &conn.client;
            let params: Vec<_> = rows.iter().map(|row| row.params(node)).collect();
            let statements = params
                .iter()
                .map(|params| client.execute(&conn.commit, params));
            let (begun, done, committed) = tokio::join!(
                client.batch_execute("BEGIN"),
                futures_util::future::join_all(statements),
                client.batch_execute("COMMIT"),
            );
            if begun.is_ok() && committed.is_ok() && done.iter().all(Result::is_ok) {
                for ((change, reply), rows) in ready.into_iter().zip(done) {
                    let _ = reply.send(
                        rows.map_err(StoreError::from)
                            .and_then(|n| written(&change, n)),
                    );
                }
                return;
            }
            if client.is_closed() {
                // Whether it committed is unknown: say so to each, as a
                // single statement's lost answer would.
                let message = committed.err().map_or_else(
                    || "the connection closed".to_owned(),
                    |e| StoreError::from(e).to_string(),
                );
                for (_, reply) in ready {
                    let _ = reply.send(Err(StoreError::Postgres(message.clone())));
                }
                return;
            }
            // A statement failed and the batch was rolled back: each alone.
        }
        for ((change, reply), row) in ready.into_iter().zip(&rows) {
            let result = conn.client.execute(&conn.commit, &row.params(node)).await;
            let _ = reply.send(
                result
                    .map_err(StoreError::from)
                    .and_then(|n| written(&change, n)),
            );
        }
    }
}

/// One connection, driven by a task of its own; errors on it are logged
/// (the client sees the connection closed and the pool replaces it).
async fn connect(config: &Config) -> Result<Client, StoreError> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "a PostgreSQL connection failed");
        }
    });
    Ok(client)
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

fn small(n: u32) -> Result<i32, StoreError> {
    i32::try_from(n).map_err(|_| StoreError::Corrupt(format!("{n} is too large to store")))
}

fn unsigned(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative number {n}")))
}

/// The room in `row` (as [`LOAD`] reads it), checked against its digest.
fn decode(row: &tokio_postgres::Row) -> Result<RoomRecord, StoreError> {
    let id = GameId::from_trusted(&row.try_get::<_, String>(0)?);
    let plies: Vec<i32> = row.try_get(15)?;
    let rows: Vec<i32> = row.try_get(16)?;
    let cols: Vec<i32> = row.try_get(17)?;
    let moves = plies
        .into_iter()
        .zip(rows)
        .zip(cols)
        .map(|((ply, r), c)| Ok((i64::from(ply), unsigned(r)?, unsigned(c)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let stored = Stored {
        rows: unsigned(row.try_get(1)?)?,
        cols: unsigned(row.try_get(2)?)?,
        k: unsigned(row.try_get(3)?)?,
        opponent: row.try_get(4)?,
        x_token: row.try_get(5)?,
        o_token: row.try_get(6)?,
        round: unsigned(row.try_get(7)?)?,
        first: row.try_get(8)?,
        score: (row.try_get(9)?, row.try_get(10)?, row.try_get(11)?),
        version: row.try_get(12)?,
        watch: row.try_get(13)?,
        digest: row.try_get(14)?,
        offer: row.try_get(18)?,
        entry: row.try_get(19)?,
        invite: row.try_get(20)?,
    };
    checked(stored.decode(&id, moves)?)
}

impl Store for PgStore {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        let (reply, answer) = oneshot::channel();
        let sent = self.inner.committer.send((change, reply));
        Box::pin(async move {
            sent.map_err(|_| StoreError::Closed)?;
            answer.await.map_err(|_| StoreError::Closed)?
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

    fn lobby(&self) -> StoreFuture<Vec<super::Listing>> {
        self.run(move |conn| async move {
            let horizon = super::LOBBY_HORIZON.as_secs_f64();
            let limit = int(super::LOBBY_ROWS as u64);
            let rows = conn.client.query(&conn.lobby, &[&horizon, &limit]).await?;
            rows.iter()
                .map(|row| {
                    super::record::StoredListing {
                        entry: row.try_get(0)?,
                        watch: row.try_get(1)?,
                        rows: unsigned(row.try_get(2)?)?,
                        cols: unsigned(row.try_get(3)?)?,
                        k: unsigned(row.try_get(4)?)?,
                        opponent: row.try_get(5)?,
                        first: row.try_get(6)?,
                        round: unsigned(row.try_get(7)?)?,
                        score: (row.try_get(8)?, row.try_get(9)?, row.try_get(10)?),
                        seated: row.try_get(11)?,
                        idle: row.try_get(12)?,
                    }
                    .decode()
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
            row.map(|row| Ok(GameId::from_trusted(&row.try_get::<_, String>(0)?)))
                .transpose()
        })
    }

    fn computer_turns(&self) -> StoreFuture<Vec<GameId>> {
        self.run(move |conn| async move {
            let rows = conn.client.query(&conn.orphans, &[]).await?;
            rows.iter()
                .map(|row| Ok(GameId::from_trusted(&row.try_get::<_, String>(0)?)))
                .collect()
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
                .execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &note])
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
                        unsigned(row.try_get(0)?)?,
                        i64::from(row.try_get::<_, i32>(1)?),
                        unsigned(row.try_get(2)?)?,
                        unsigned(row.try_get(3)?)?,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            super::record::group_rounds(&id, moves)
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
                let version: i64 = row.try_get(0)?;
                u64::try_from(version).map_err(|_| {
                    StoreError::Corrupt(format!("game {}: version {version}", id.for_log()))
                })
            })
            .transpose()
        })
    }

    fn follow(&self) -> Option<mpsc::Receiver<StoreEvent>> {
        let (events, receiver) = mpsc::channel(1024);
        let mut config = self.inner.config.clone();
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

    fn ping(&self) -> StoreFuture<()> {
        self.run(move |conn| async move {
            conn.client.simple_query("SELECT 1").await?;
            Ok(())
        })
    }
}

/// Follow [`CHANNEL`] for as long as anyone reads `events`: listen on a
/// connection of its own, forward each notification, and after a lost
/// connection reconnect (ever more slowly, up to a few seconds apart) and
/// send [`StoreEvent::Resync`], since what was sent meanwhile is lost.
async fn listen(config: Config, node: String, events: mpsc::Sender<StoreEvent>) {
    let mut retry = Duration::from_millis(100);
    let mut first = true;
    loop {
        match follow_once(&config, &node, &events, first).await {
            // Nobody reads the events any more: the hub is gone.
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(error = %e, retry_ms = retry.as_millis(), "lost the PostgreSQL change feed; reconnecting");
                if events.send(StoreEvent::Interrupted).await.is_err() {
                    return;
                }
            }
        }
        first = false;
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(Duration::from_secs(3));
    }
}

/// One listening connection, until it fails (an error) or nobody reads the
/// events (`Ok`).
async fn follow_once(
    config: &Config,
    node: &str,
    events: &mpsc::Sender<StoreEvent>,
    first: bool,
) -> Result<(), StoreError> {
    let (client, mut connection) = config.connect(NoTls).await?;
    let (notes, mut received) = mpsc::unbounded_channel();
    // The connection yields the notifications; it must be polled for the
    // LISTEN below to complete, so it runs in a task of its own.
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(note)) => {
                    if notes.send(note.payload().to_owned()).is_err() {
                        return Ok(());
                    }
                }
                Ok(_) => {}
                Err(e) => return Err(StoreError::from(e)),
            }
        }
        Err(StoreError::Postgres(
            "the database closed the connection".into(),
        ))
    });
    let listening = client.batch_execute(&format!("LISTEN {CHANNEL}")).await;
    if let Err(e) = listening {
        driver.abort();
        return Err(e.into());
    }
    if !first && events.send(StoreEvent::Resync).await.is_err() {
        driver.abort();
        return Ok(());
    }
    while let Some(payload) = received.recv().await {
        let event = if payload.starts_with(PRESENCE) {
            match parse_presence(&payload, node) {
                Some(Some(event)) => Some(event),
                // This server's own word.
                Some(None) => continue,
                None => None,
            }
        } else {
            parse_note(&payload, node)
        };
        let Some(event) = event else {
            tracing::warn!(payload, "an unreadable change notice");
            continue;
        };
        if events.send(event).await.is_err() {
            driver.abort();
            return Ok(());
        }
    }
    drop(client);
    match driver.await {
        Ok(result) => result,
        Err(e) => Err(StoreError::Postgres(format!(
            "the change feed stopped: {e}"
        ))),
    }
}

/// The first word of a presence notice (never a room id, which has no `@`).
const PRESENCE: &str = "@presence ";

/// `"@presence ID NODE X O"` (X and O `0` or `1`), as
/// [`Store::announce`] sends it, read by the server named `me`: `None` when
/// unreadable, `Some(None)` for `me`'s own.
fn parse_presence(payload: &str, me: &str) -> Option<Option<StoreEvent>> {
    let mut words = payload.strip_prefix(PRESENCE)?.split(' ');
    let id = GameId::parse(words.next()?)?;
    let node = words.next()?;
    let seat = |word: Option<&str>| match word? {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    };
    let seats = [seat(words.next())?, seat(words.next())?];
    if words.next().is_some() {
        return None;
    }
    Some((node != me).then(|| StoreEvent::Presence {
        id,
        node: node.to_owned(),
        seats,
    }))
}

/// `"ID VERSION NODE [ROW COL]"`, as [`COMMIT`] announces a change, read
/// by the server named `me`.
fn parse_note(payload: &str, me: &str) -> Option<StoreEvent> {
    let mut words = payload.split(' ');
    let id = GameId::parse(words.next()?)?;
    let version = words.next()?.parse().ok()?;
    let own = words.next()? == me;
    let played = match (words.next(), words.next()) {
        (Some(row), Some(col)) => Some(oxo_core::Cell::new(row.parse().ok()?, col.parse().ok()?)),
        (None, None) => None,
        _ => return None,
    };
    if words.next().is_some() {
        return None;
    }
    Some(StoreEvent::Changed {
        id,
        version,
        own,
        played,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_notices_are_read_back() {
        let id = GameId::random().unwrap();
        assert_eq!(
            parse_note(&format!("{id} 17 a:1:ff 2 3"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 17,
                own: false,
                played: Some(oxo_core::Cell::new(2, 3)),
            })
        );
        assert_eq!(
            parse_note(&format!("{id} 4 b:2:00"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 4,
                own: true,
                played: None,
            })
        );
        for bad in [
            "nonsense".to_owned(),
            format!("{id} -1 a"),
            format!("{id} 3"),
            format!("{id} 3 a 1"),
            format!("{id} 3 a 1 2 3"),
        ] {
            assert_eq!(parse_note(&bad, "a"), None, "{bad}");
        }
    }

    #[test]
    fn presence_notices_are_read_back() {
        let id = GameId::random().unwrap();
        assert_eq!(
            parse_presence(&format!("@presence {id} a:1:ff 1 0"), "b:2:00"),
            Some(Some(StoreEvent::Presence {
                id: id.clone(),
                node: "a:1:ff".into(),
                seats: [true, false],
            }))
        );
        assert_eq!(
            parse_presence(&format!("@presence {id} b:2:00 0 1"), "b:2:00"),
            Some(None)
        );
        for bad in [
            format!("@presence {id} a 1"),
            format!("@presence {id} a 1 2"),
            format!("@presence {id} a 1 0 1"),
            "@presence nonsense!".to_owned(),
        ] {
            assert_eq!(parse_presence(&bad, "b"), None, "{bad}");
        }
    }

    #[test]
    fn node_names_differ_between_stores_of_one_process() {
        assert_ne!(node_name(), node_name());
    }
}
