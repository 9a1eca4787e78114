//! The embedded store: one SQLite file, written by one thread with group
//! commit.
//!
//! Every request goes to a worker thread that owns the connection. The
//! worker takes all the writes waiting in its queue, applies them in one
//! transaction (each inside a savepoint, so one bad write cannot spoil the
//! others), commits with a full sync, and only then answers each writer.
//! Under load, many moves share one fsync; alone, a move costs one.
//!
//! One file serves one store at a time: each server keeps its rooms in
//! memory, so two on one file would drift apart. The store holds an
//! exclusive lock on a file beside the database for as long as its worker
//! lives, and a second store on the same file is refused.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::thread;

use oxo_core::{Cell, Player};
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::oneshot;

use super::record::{Stored, checked, digest, int};
use super::{Change, ChangeKind, Store, StoreError, StoreFuture};
use crate::id::{GameId, Token, TokenHash};
use crate::room::{RoomRecord, SeatName};

/// One schema migration: SQL, or a step SQLite cannot express alone.
enum Migration {
    Sql(&'static str),
    Rust(fn(&rusqlite::Transaction<'_>) -> Result<(), StoreError>),
}

/// Schema migrations, in order; `PRAGMA user_version` counts those applied.
/// Never edit one that has shipped: add another.
const MIGRATIONS: &[Migration] = &[
    // 1: rooms and every move of every round.
    Migration::Sql(
        "CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        rows INTEGER NOT NULL,
        cols INTEGER NOT NULL,
        k INTEGER NOT NULL,
        opponent TEXT NOT NULL,
        x_token TEXT NOT NULL,
        o_token TEXT,
        round INTEGER NOT NULL,
        first TEXT NOT NULL CHECK (first IN ('x', 'o')),
        x_wins INTEGER NOT NULL,
        o_wins INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        version INTEGER NOT NULL,
        computer_turn INTEGER NOT NULL,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch())
    ) STRICT;
    CREATE TABLE moves (
        room TEXT NOT NULL REFERENCES rooms (id),
        round INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        row INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (room, round, ply)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX rooms_computer_turn ON rooms (computer_turn) WHERE computer_turn = 1;",
    ),
    // 2: a read-only watch id per room for spectators; rooms made before it
    // get a random one.
    Migration::Sql(
        "ALTER TABLE rooms ADD COLUMN watch TEXT;
    UPDATE rooms SET watch = lower(hex(randomblob(8))) WHERE watch IS NULL;
    CREATE UNIQUE INDEX rooms_watch ON rooms (watch);",
    ),
    // 3: seat tokens kept as their SHA-256 (SQLite has no SHA-256, so the
    // hashing is done here). Tokens are 32 characters, hashes 64.
    Migration::Rust(hash_stored_tokens),
    // 4: a digest of each room's row and the moves of its round, checked on
    // every load, so a damaged page or a lost row is reported as damage
    // instead of being served as the game.
    Migration::Rust(add_digests),
    // 5: the seat that offered a rematch, and the lobby: a listed room's
    // entry id (its open game is joined through it), found by recent change.
    Migration::Sql(
        "ALTER TABLE rooms ADD COLUMN offer TEXT CHECK (offer IN ('x', 'o'));
    ALTER TABLE rooms ADD COLUMN entry TEXT;
    CREATE UNIQUE INDEX rooms_entry ON rooms (entry);
    CREATE INDEX rooms_listed ON rooms (updated_at) WHERE entry IS NOT NULL;",
    ),
    // 6: the hash of the invite that takes seat O of a game between two
    // people; rooms stored before it have none and admit anyone with the id.
    Migration::Sql("ALTER TABLE rooms ADD COLUMN invite TEXT;"),
    // 7: each room gets a number in the order rooms are made, and its moves
    // are kept under that number instead of its random id, so the moves of
    // the games being played share a few pages at the end of the table and
    // a commit writes those few instead of a page for every move.
    Migration::Sql(
        "ALTER TABLE rooms ADD COLUMN key INTEGER;
    UPDATE rooms SET key = rowid;
    CREATE UNIQUE INDEX rooms_key ON rooms (key);
    CREATE TABLE moves_by_key (
        room INTEGER NOT NULL REFERENCES rooms (key),
        round INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        row INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (room, round, ply)
    ) STRICT, WITHOUT ROWID;
    INSERT INTO moves_by_key (room, round, ply, row, col)
        SELECT rooms.key, moves.round, moves.ply, moves.row, moves.col
        FROM moves JOIN rooms ON rooms.id = moves.room;
    DROP TABLE moves;
    ALTER TABLE moves_by_key RENAME TO moves;",
    ),
];

fn add_digests(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch("ALTER TABLE rooms ADD COLUMN digest TEXT;")?;
    let ids: Vec<String> = tx
        .prepare("SELECT id FROM rooms")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut update = tx.prepare("UPDATE rooms SET digest = ?2 WHERE id = ?1")?;
    for id in ids {
        if let Some((record, _)) = read_as_of(tx, &GameId::from_trusted(&id), Schema::V4)? {
            update.execute(params![id, digest(&record)])?;
        }
    }
    Ok(())
}

fn hash_stored_tokens(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    let plain: Vec<(String, String, Option<String>)> = tx
        .prepare("SELECT id, x_token, o_token FROM rooms")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let hashed = |token: &str| {
        if TokenHash::is_hash(token) {
            token.to_owned()
        } else {
            Token::from_trusted(token).hash().as_str().to_owned()
        }
    };
    let mut update = tx.prepare("UPDATE rooms SET x_token = ?2, o_token = ?3 WHERE id = ?1")?;
    for (id, x, o) in plain {
        update.execute(params![id, hashed(&x), o.as_deref().map(hashed)])?;
    }
    Ok(())
}

/// The most writes committed in one transaction.
const MAX_BATCH: usize = 512;

enum Request {
    Commit(Box<Change>, oneshot::Sender<Result<(), StoreError>>),
    Load(
        GameId,
        oneshot::Sender<Result<Option<RoomRecord>, StoreError>>,
    ),
    LoadWatch(
        GameId,
        oneshot::Sender<Result<Option<RoomRecord>, StoreError>>,
    ),
    ComputerTurns(oneshot::Sender<Result<Vec<GameId>, StoreError>>),
    Lobby(oneshot::Sender<Result<Vec<super::Listing>, StoreError>>),
    LoadEntry(GameId, oneshot::Sender<Result<Option<GameId>, StoreError>>),
    Rounds(GameId, oneshot::Sender<Result<Vec<Vec<Cell>>, StoreError>>),
    Ping(oneshot::Sender<Result<(), StoreError>>),
}

/// Rooms in a SQLite database file. Cheap to clone. Dropping the last clone
/// closes the database: it waits for the worker thread to finish what it
/// was given, then closes the file and releases its lock.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    worker: Arc<Worker>,
}

/// The way to the worker thread, which owns the connection and the lock.
#[derive(Debug)]
struct Worker {
    /// `None` only once dropped.
    requests: Option<mpsc::Sender<Request>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Hanging up ends the worker's queue; joining it means that once the
        // store is gone, the file is closed and unlocked, so it can be
        // opened again at once.
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl SqliteStore {
    /// Open (or create) the database at `path` and bring its schema up to
    /// date. `":memory:"` opens a private in-memory database.
    ///
    /// A file store locks `<path>.lock` (an advisory `flock`, which holds the
    /// store's process id) until it is dropped; the operating system
    /// releases the lock when the process dies, even by SIGKILL, and the
    /// file, left behind, is harmless: only the lock on it counts.
    ///
    /// # Errors
    /// The file cannot be opened, is in use by another store
    /// ([`StoreError::InUse`]), is not a database, fails its integrity
    /// check, cannot be written, or is from a newer oxo.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_checked(path.as_ref(), true)
    }

    /// [`SqliteStore::open`] without the integrity check of the whole file
    /// (`PRAGMA quick_check`, which reads every page: seconds on a file of
    /// gigabytes). Each room is still checked against its digest when it
    /// is loaded.
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn open_without_check(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_checked(path.as_ref(), false)
    }

    fn open_checked(path: &Path, check: bool) -> Result<SqliteStore, StoreError> {
        // Opened before the lock is taken, so a path SQLite refuses (a
        // directory, a missing folder) is reported as before and leaves no
        // lock file beside it; nothing is read before the lock is held.
        let mut conn = Connection::open(path)?;
        let lock = lock(path)?;
        if check {
            // A damaged file is refused before anything is served from it.
            let problems: Vec<String> = conn
                .prepare("PRAGMA quick_check(5)")
                .and_then(|mut check| {
                    check
                        .query_map([], |row| row.get(0))?
                        .collect::<Result<_, _>>()
                })
                // A file too damaged to check at all is damaged too.
                .unwrap_or_else(|e| vec![e.to_string()]);
            if problems != ["ok"] {
                return Err(StoreError::Damaged(problems.join("; ")));
            }
        }
        // WAL lets the worker append without rewriting pages; FULL syncs the
        // log on every commit, so an acknowledged move survives even a power
        // cut, not only a killed process.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut conn)?;
        // A database that opens but cannot be written (a read-only file or
        // mount, an immutable file) would answer every move with 503:
        // refuse it now, with the reason.
        conn.execute_batch(
            "BEGIN IMMEDIATE; CREATE TABLE oxo_write_check(x); DROP TABLE oxo_write_check; COMMIT;",
        )
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            StoreError::ReadOnly(e.to_string())
        })?;
        let (requests, queue) = mpsc::channel();
        let thread = thread::Builder::new()
            .name("oxo-sqlite".into())
            .spawn(move || {
                worker(&mut conn, &queue);
                // Closed before unlocked: whoever takes the lock next finds
                // the file as this store left it.
                drop(conn);
                drop(lock);
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok(SqliteStore {
            worker: Arc::new(Worker {
                requests: Some(requests),
                thread: Some(thread),
            }),
        })
    }

    fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, StoreError>>) -> Request,
    ) -> StoreFuture<T> {
        let (tx, rx) = oneshot::channel();
        let sent = match &self.worker.requests {
            Some(requests) => requests.send(make(tx)).is_ok(),
            None => false,
        };
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            rx.await.map_err(|_| StoreError::Closed)?
        })
    }
}

impl Store for SqliteStore {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        self.ask(|tx| Request::Commit(Box::new(change), tx))
    }

    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>> {
        let id = id.clone();
        self.ask(|tx| Request::Load(id, tx))
    }

    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>> {
        let watch = watch.clone();
        self.ask(|tx| Request::LoadWatch(watch, tx))
    }

    fn computer_turns(&self) -> StoreFuture<Vec<GameId>> {
        self.ask(Request::ComputerTurns)
    }

    fn lobby(&self) -> StoreFuture<Vec<super::Listing>> {
        self.ask(Request::Lobby)
    }

    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>> {
        let entry = entry.clone();
        self.ask(|tx| Request::LoadEntry(entry, tx))
    }

    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<Cell>>> {
        let id = id.clone();
        self.ask(|tx| Request::Rounds(id, tx))
    }

    fn ping(&self) -> StoreFuture<()> {
        self.ask(Request::Ping)
    }
}

/// Lock the file beside the database at `path` for this store, and write
/// this process's id into it; `None` for a private database, which no
/// other store can open.
fn lock(path: &Path) -> Result<Option<File>, StoreError> {
    if path.as_os_str().is_empty() || path == Path::new(":memory:") {
        return Ok(None);
    }
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    let failed = |source: io::Error| StoreError::Lock {
        path: lock_path.clone(),
        source,
    };
    // Not truncated on opening: while another process holds the lock, the
    // file holds its id.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            // Empty (so `None`) if the other process has not written it yet.
            let pid = io::read_to_string(&file)
                .ok()
                .and_then(|text| text.trim().parse().ok());
            return Err(StoreError::InUse {
                path: path.to_owned(),
                pid,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
    }
    file.set_len(0).map_err(failed)?;
    writeln!(file, "{}", std::process::id()).map_err(failed)?;
    Ok(Some(file))
}

/// Apply the migrations the database lacks, each in its own transaction.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let known = i64::try_from(MIGRATIONS.len()).expect("a handful of migrations");
    let found: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (number, migration) in (1..)
        .zip(MIGRATIONS)
        .skip(usize::try_from(found).unwrap_or(0))
    {
        let tx = conn.transaction()?;
        match migration {
            Migration::Sql(sql) => tx.execute_batch(sql)?,
            Migration::Rust(step) => step(&tx)?,
        }
        tx.pragma_update(None, "user_version", number)?;
        tx.commit()?;
    }
    Ok(())
}

fn worker(conn: &mut Connection, queue: &mpsc::Receiver<Request>) {
    let mut writes = Vec::new();
    // `recv` fails once every sender is gone: the store has been dropped.
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        while let Some(request) = next.take() {
            match request {
                Request::Commit(change, reply) => writes.push((change, reply)),
                Request::Load(id, reply) => {
                    let _ = reply.send(load(conn, &id));
                }
                Request::LoadWatch(watch, reply) => {
                    let _ = reply.send(load_watch(conn, &watch));
                }
                Request::ComputerTurns(reply) => {
                    let _ = reply.send(computer_turns(conn));
                }
                Request::Lobby(reply) => {
                    let _ = reply.send(lobby(conn));
                }
                Request::LoadEntry(entry, reply) => {
                    let id = conn
                        .query_row(
                            "SELECT id FROM rooms WHERE entry = ?1",
                            [entry.as_str()],
                            |row| row.get::<_, String>(0),
                        )
                        .optional()
                        .map(|id| id.map(|id| GameId::from_trusted(&id)));
                    let _ = reply.send(id.map_err(StoreError::from));
                }
                Request::Rounds(id, reply) => {
                    let _ = reply.send(rounds(conn, &id));
                }
                Request::Ping(reply) => {
                    let ping = conn.query_row("SELECT 1", [], |_| Ok(()));
                    let _ = reply.send(ping.map_err(StoreError::from));
                }
            }
            if writes.len() < MAX_BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !writes.is_empty() {
            commit_batch(conn, &mut writes);
        }
    }
}

type Pending = (Box<Change>, oneshot::Sender<Result<(), StoreError>>);

fn commit_batch(conn: &mut Connection, writes: &mut Vec<Pending>) {
    let mut results: Vec<Result<(), StoreError>> = Vec::with_capacity(writes.len());
    let outcome = (|| -> Result<(), rusqlite::Error> {
        let mut tx = conn.transaction()?;
        for (change, _) in writes.iter() {
            let sp = tx.savepoint()?;
            match apply(&sp, change) {
                Ok(()) => {
                    sp.commit()?;
                    results.push(Ok(()));
                }
                Err(e) => {
                    drop(sp); // rolls the savepoint back
                    results.push(Err(e));
                }
            }
        }
        tx.commit()
    })();
    for (i, (_, reply)) in writes.drain(..).enumerate() {
        let result = match &outcome {
            // The transaction failed as a whole: nothing of it is durable.
            Err(e) => Err(StoreError::CommitFailed(e.to_string())),
            Ok(()) => results
                .get_mut(i)
                .map_or(Err(StoreError::Closed), |r| std::mem::replace(r, Ok(()))),
        };
        let _ = reply.send(result);
    }
}

fn apply(conn: &Connection, change: &Change) -> Result<(), StoreError> {
    let r = &change.room;
    let score = (
        int(r.score.wins(Player::X)),
        int(r.score.wins(Player::O)),
        int(r.score.draws()),
    );
    let version = int(r.version);
    // One statement for every kind of change: a new room is inserted, an
    // existing one updated. The version guard makes a lost, repeated or
    // reordered write (or a new room reusing an id) fail instead of
    // silently overwriting a newer state.
    // The room's number comes back from the write itself, for its move.
    let key: Option<i64> = conn
        .prepare_cached(
            "INSERT INTO rooms (id, rows, cols, k, opponent, x_token, o_token, round, first,
                            x_wins, o_wins, draws, version, computer_turn, watch, digest,
                            offer, entry, invite, key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19, (SELECT coalesce(max(key), 0) + 1 FROM rooms))
         ON CONFLICT (id) DO UPDATE SET
            o_token = excluded.o_token, round = excluded.round, first = excluded.first,
            x_wins = excluded.x_wins, o_wins = excluded.o_wins, draws = excluded.draws,
            version = excluded.version, computer_turn = excluded.computer_turn,
            digest = excluded.digest, offer = excluded.offer, updated_at = unixepoch()
         WHERE rooms.version < excluded.version
         RETURNING key",
        )?
        .query_row(
            params![
                r.id.as_str(),
                r.rules.rows(),
                r.rules.cols(),
                r.rules.k(),
                r.opponent.name(),
                r.x_token.as_str(),
                r.o_token.as_ref().map(TokenHash::as_str),
                r.round,
                SeatName(r.first).as_str(),
                score.0,
                score.1,
                score.2,
                version,
                i64::from(change.computer_turn),
                r.watch.as_str(),
                digest(r),
                r.offer.map(|seat| SeatName(seat).as_str()),
                r.entry.as_ref().map(GameId::as_str),
                r.invite.as_ref().map(TokenHash::as_str),
            ],
            |row| row.get(0),
        )
        .optional()?;
    let Some(key) = key else {
        return Err(StoreError::Conflict(format!(
            "game {} is already stored at version {} or later",
            r.id.for_log(),
            r.version
        )));
    };
    if change.kind == ChangeKind::Move {
        let cell = r.moves.last().ok_or_else(|| {
            StoreError::Corrupt(format!("game {}: a move with no moves", r.id.for_log()))
        })?;
        conn.prepare_cached(
            "INSERT INTO moves (room, round, ply, row, col) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            key,
            r.round,
            int(r.moves.len() as u64),
            cell.row,
            cell.col
        ])?;
    }
    Ok(())
}

/// The room `id` as stored, checked against its digest: a room whose row
/// or moves were damaged is [`StoreError::Corrupt`], never served.
fn load(conn: &Connection, id: &GameId) -> Result<Option<RoomRecord>, StoreError> {
    read(conn, id)?.map(checked).transpose()
}

/// The room `id` as stored, and the digest stored with it (unchecked).
fn read(
    conn: &Connection,
    id: &GameId,
) -> Result<Option<(RoomRecord, Option<String>)>, StoreError> {
    read_as_of(conn, id, Schema::Current)
}

/// Which columns a room's row has: a migration reads rooms as the schema
/// stood when it was written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schema {
    /// Before migration 5 (no rematch offer, no lobby entry, no invite;
    /// moves kept under the room's id).
    V4,
    Current,
}

fn read_as_of(
    conn: &Connection,
    id: &GameId,
    schema: Schema,
) -> Result<Option<(RoomRecord, Option<String>)>, StoreError> {
    let sql = match schema {
        Schema::V4 => {
            "SELECT rows, cols, k, opponent, x_token, o_token, round, first,
                    x_wins, o_wins, draws, version, watch, digest, NULL, NULL, NULL
             FROM rooms WHERE id = ?1"
        }
        Schema::Current => {
            "SELECT rows, cols, k, opponent, x_token, o_token, round, first,
                    x_wins, o_wins, draws, version, watch, digest, offer, entry, invite
             FROM rooms WHERE id = ?1"
        }
    };
    let stored = conn
        .query_row(sql, [id.as_str()], |row| {
            Ok(Stored {
                rows: row.get(0)?,
                cols: row.get(1)?,
                k: row.get(2)?,
                opponent: row.get(3)?,
                x_token: row.get(4)?,
                o_token: row.get(5)?,
                round: row.get(6)?,
                first: row.get(7)?,
                score: (row.get(8)?, row.get(9)?, row.get(10)?),
                version: row.get(11)?,
                watch: row.get(12)?,
                digest: row.get(13)?,
                offer: row.get(14)?,
                entry: row.get(15)?,
                invite: row.get(16)?,
            })
        })
        .optional()?;
    let Some(stored) = stored else {
        return Ok(None);
    };
    // Moves were kept under the room's id until migration 7.
    let mut stmt = conn.prepare_cached(match schema {
        Schema::V4 => "SELECT ply, row, col FROM moves WHERE room = ?1 AND round = ?2 ORDER BY ply",
        Schema::Current => {
            "SELECT ply, row, col FROM moves
             WHERE room = (SELECT key FROM rooms WHERE id = ?1) AND round = ?2 ORDER BY ply"
        }
    })?;
    let moves = stmt
        .query_map(params![id.as_str(), stored.round], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    stored.decode(id, moves).map(Some)
}

fn load_watch(conn: &Connection, watch: &GameId) -> Result<Option<RoomRecord>, StoreError> {
    let id: Option<String> = conn
        .query_row(
            "SELECT id FROM rooms WHERE watch = ?1",
            [watch.as_str()],
            |row| row.get(0),
        )
        .optional()?;
    match id {
        Some(id) => load(conn, &GameId::from_trusted(&id)),
        None => Ok(None),
    }
}

fn rounds(conn: &Connection, id: &GameId) -> Result<Vec<Vec<Cell>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT round, ply, row, col FROM moves
         WHERE room = (SELECT key FROM rooms WHERE id = ?1) ORDER BY round, ply",
    )?;
    let moves = stmt
        .query_map([id.as_str()], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<Vec<(u32, i64, u32, u32)>, _>>()?;
    super::record::group_rounds(id, moves)
}

fn lobby(conn: &Connection) -> Result<Vec<super::Listing>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT entry, watch, rows, cols, k, opponent, first, round, x_wins, o_wins, draws,
                o_token IS NOT NULL OR opponent <> 'human', unixepoch() - updated_at
         FROM rooms WHERE entry IS NOT NULL AND updated_at > unixepoch() - ?1
         ORDER BY updated_at DESC LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(
            params![
                int(super::LOBBY_HORIZON.as_secs()),
                int(super::LOBBY_ROWS as u64)
            ],
            |row| {
                Ok(super::record::StoredListing {
                    entry: row.get(0)?,
                    watch: row.get(1)?,
                    rows: row.get(2)?,
                    cols: row.get(3)?,
                    k: row.get(4)?,
                    opponent: row.get(5)?,
                    first: row.get(6)?,
                    round: row.get(7)?,
                    score: (row.get(8)?, row.get(9)?, row.get(10)?),
                    seated: row.get(11)?,
                    idle: row.get(12)?,
                })
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(super::record::StoredListing::decode)
        .collect()
}

fn computer_turns(conn: &Connection) -> Result<Vec<GameId>, StoreError> {
    let mut stmt = conn.prepare("SELECT id FROM rooms WHERE computer_turn = 1")?;
    let ids = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .map(|id| id.map(|id| GameId::from_trusted(&id)))
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use oxo_ai::StrategyKind;
    use oxo_core::{Rules, Scoreboard};

    use super::*;
    use crate::room::{Opponent, Room};

    fn room(id: &str, opponent: Opponent) -> Room {
        Room::new(
            GameId::from_trusted(id),
            GameId::from_trusted(&format!("watch-{id}")),
            Rules::default(),
            opponent,
            Player::X,
            crate::id::Token::from_trusted("tx").hash(),
        )
    }

    fn change(room: &Room, kind: ChangeKind) -> Change {
        Change {
            room: room.record(),
            kind,
            computer_turn: room.computer_to_move().is_some(),
        }
    }

    #[tokio::test]
    async fn writes_come_back_and_stale_or_repeated_ones_are_refused() {
        let store = SqliteStore::open(":memory:").unwrap();
        let r1 = room("a", Opponent::Human).invited(crate::id::Token::from_trusted("inv").hash());
        store.commit(change(&r1, ChangeKind::Create)).await.unwrap();
        assert!(
            store.commit(change(&r1, ChangeKind::Create)).await.is_err(),
            "an id is created once"
        );
        assert_eq!(store.load(r1.id()).await.unwrap(), Some(r1.record()));
        let r2 = r1
            .join(
                crate::id::Token::from_trusted("to").hash(),
                &crate::room::Admission::Invite(Some("inv".into())),
            )
            .unwrap();
        let (r3, _) = r2.play(Player::X, 1, 1, None).unwrap();
        store.commit(change(&r2, ChangeKind::Join)).await.unwrap();
        store.commit(change(&r3, ChangeKind::Move)).await.unwrap();
        let err = store
            .commit(change(&r2, ChangeKind::Join))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("version 2 or later"), "{err}");
        assert_eq!(store.load(r1.id()).await.unwrap(), Some(r3.record()));
        assert_eq!(store.load(&GameId::from_trusted("zz")).await.unwrap(), None);
    }

    #[tokio::test]
    async fn one_bad_write_in_a_batch_spoils_no_other() {
        let store = SqliteStore::open(":memory:").unwrap();
        let a = room("a", Opponent::Human);
        store.commit(change(&a, ChangeKind::Create)).await.unwrap();
        // Sent together, so the worker takes them in one transaction.
        let b = room("b", Opponent::Human);
        let repeat = store.commit(change(&a, ChangeKind::Create));
        let fresh = store.commit(change(&b, ChangeKind::Create));
        assert!(repeat.await.is_err());
        fresh.await.unwrap();
        assert_eq!(store.load(b.id()).await.unwrap(), Some(b.record()));
    }

    #[test]
    fn a_write_failing_part_way_is_undone_and_spoils_no_other() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let send = |conn: &mut Connection, changes: Vec<Change>| {
            let (mut writes, mut answers) = (Vec::new(), Vec::new());
            for change in changes {
                let (tx, rx) = oneshot::channel();
                writes.push((Box::new(change), tx));
                answers.push(rx);
            }
            commit_batch(conn, &mut writes);
            answers
                .into_iter()
                .map(|mut rx| rx.try_recv().expect("every writer answered"))
                .collect::<Vec<_>>()
        };
        let a = room("a", Opponent::Computer(StrategyKind::Random));
        let (played, _) = a.play(Player::X, 1, 1, None).unwrap();
        let answers = send(
            &mut conn,
            vec![
                change(&a, ChangeKind::Create),
                change(&played, ChangeKind::Move),
            ],
        );
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        // A newer version of the room whose move repeats a stored ply: its
        // row is written before its move is refused.
        let mut bad = change(&played, ChangeKind::Move);
        bad.room.version += 1;
        let b = room("b", Opponent::Human);
        let stale = change(&a, ChangeKind::Create);
        let answers = send(&mut conn, vec![stale, bad, change(&b, ChangeKind::Create)]);
        assert!(
            matches!(answers[0], Err(StoreError::Conflict(_))),
            "{answers:?}"
        );
        assert!(answers[1].is_err(), "{answers:?}");
        assert!(answers[2].is_ok(), "{answers:?}");
        // The bad write left nothing behind; the others are as sent.
        assert_eq!(load(&conn, a.id()).unwrap(), Some(played.record()));
        assert_eq!(load(&conn, b.id()).unwrap(), Some(b.record()));
    }

    #[tokio::test]
    async fn a_version_1_database_is_migrated_with_watch_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        {
            // A database as the first schema left it, with one room.
            let conn = Connection::open(&path).unwrap();
            let Migration::Sql(first) = MIGRATIONS[0] else {
                panic!("the first migration is SQL");
            };
            conn.execute_batch(first).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute(
                "INSERT INTO rooms (id, rows, cols, k, opponent, x_token, round, first,
                                    x_wins, o_wins, draws, version, computer_turn)
                 VALUES ('old', 3, 3, 3, 'human', 'tx', 2, 'x', 2, 0, 1, 7, 0)",
                [],
            )
            .unwrap();
            // Its current round, and one before it; and a second room made
            // earlier, whose moves must stay its own.
            conn.execute_batch(
                "INSERT INTO rooms (rowid, id, rows, cols, k, opponent, x_token, round, first,
                                    x_wins, o_wins, draws, version, computer_turn)
                 VALUES (-5, 'older', 3, 3, 3, 'human', 'ty', 1, 'x', 0, 0, 0, 1, 0);
                 INSERT INTO moves VALUES ('old', 1, 1, 0, 0), ('old', 1, 2, 1, 1),
                                          ('old', 2, 1, 2, 2), ('old', 2, 2, 0, 2),
                                          ('older', 1, 1, 1, 1);",
            )
            .unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let old = store
            .load(&GameId::from_trusted("old"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(old.version, 7);
        assert_eq!(old.score, Scoreboard::from_counts(2, 0, 1));
        // Its moves came through the move to room numbers.
        assert_eq!(old.moves, [Cell::new(2, 2), Cell::new(0, 2)]);
        assert_eq!(
            store.rounds(&old.id).await.unwrap(),
            [
                vec![Cell::new(0, 0), Cell::new(1, 1)],
                vec![Cell::new(2, 2), Cell::new(0, 2)]
            ]
        );
        let older = store.load(&GameId::from_trusted("older")).await.unwrap();
        assert_eq!(older.unwrap().moves, [Cell::new(1, 1)]);
        assert_eq!(old.watch.as_str().len(), 16, "a watch id was made");
        assert_eq!(GameId::parse(old.watch.as_str()), Some(old.watch.clone()));
        let by_watch = store.load_watch(&old.watch).await.unwrap().unwrap();
        assert_eq!(by_watch, old);
        // The token the old database held in the clear still holds seat X,
        // and only its hash is kept now.
        let room = Room::restore(old.clone()).unwrap();
        assert_eq!(room.seat_of("tx"), Some(Player::X));
        assert_eq!(old.x_token, crate::id::Token::from_trusted("tx").hash());
        // It has no invite: its id alone still takes seat O, as the link
        // its player sent before invites existed.
        assert_eq!(old.invite, None);
        let joined = room
            .join(
                crate::id::Token::from_trusted("to").hash(),
                &crate::room::Admission::Invite(None),
            )
            .unwrap();
        assert_eq!(joined.seat_of("to"), Some(Player::O));
        drop(store);
        let conn = Connection::open(&path).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, 7);
        // Every move points at its room by number.
        let dangling: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(dangling, 0);
    }

    #[tokio::test]
    async fn a_damaged_room_is_reported_never_served() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let store = SqliteStore::open(&path).unwrap();
        let created = room("g", Opponent::Human);
        let mut r = created
            .join(
                crate::id::Token::from_trusted("to").hash(),
                &crate::room::Admission::Invite(None),
            )
            .unwrap();
        store
            .commit(change(&created, ChangeKind::Create))
            .await
            .unwrap();
        store.commit(change(&r, ChangeKind::Join)).await.unwrap();
        for (i, (row, col)) in [(0, 0), (1, 1), (0, 1)].into_iter().enumerate() {
            let mover = if i % 2 == 0 { Player::X } else { Player::O };
            r = r.play(mover, row, col, None).unwrap().0;
            store.commit(change(&r, ChangeKind::Move)).await.unwrap();
        }
        let other = room("h", Opponent::Human);
        store
            .commit(change(&other, ChangeKind::Create))
            .await
            .unwrap();
        assert_eq!(store.load(r.id()).await.unwrap(), Some(r.record()));
        drop(store);
        // A lost move row, as a damaged page can lose it: same version,
        // fewer marks (the last one, so the others are still in order).
        Connection::open(&path)
            .unwrap()
            .execute(
                "DELETE FROM moves WHERE ply = 3 AND room = (SELECT key FROM rooms WHERE id = 'g')",
                [],
            )
            .unwrap();
        let store = SqliteStore::open(&path).unwrap();
        let err = store.load(r.id()).await.unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(_)), "{err}");
        assert!(
            err.to_string().contains("does not match its digest"),
            "{err}"
        );
        // The other room is intact and served.
        assert_eq!(store.load(other.id()).await.unwrap(), Some(other.record()));
        drop(store);
        // A changed score, too.
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE rooms SET x_wins = 5 WHERE id = 'h'", [])
            .unwrap();
        let store = SqliteStore::open(&path).unwrap();
        assert!(matches!(
            store.load(other.id()).await,
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn a_file_that_fails_its_integrity_check_is_refused_unless_told() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "PRAGMA page_size = 4096; CREATE TABLE t (x TEXT);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                 INSERT INTO t SELECT printf('%0100d', i) FROM n;",
            )
            .unwrap();
        }
        // Scribble over the middle of the file: b-tree pages of the table.
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2 / 4096 * 4096;
        for b in &mut bytes[middle..middle + 4096] {
            *b = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        let err = SqliteStore::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::Damaged(_)), "{err}");
        assert!(
            err.to_string().starts_with("the database file is damaged"),
            "{err}"
        );
        // Told to skip the check, it opens (its rooms are checked one by one).
        assert!(SqliteStore::open_without_check(&path).is_ok());
    }

    #[tokio::test]
    async fn one_file_serves_one_store_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let first = SqliteStore::open(&path).unwrap();
        let me = std::process::id();
        let err = SqliteStore::open_without_check(&path).unwrap_err();
        let StoreError::InUse { path: named, pid } = &err else {
            panic!("{err}");
        };
        assert_eq!((named, *pid), (&path, Some(me)));
        assert!(
            err.to_string()
                .contains(&format!("in use by another oxo serve (process {me})")),
            "{err}"
        );
        // The refused store left the lock file as the holder wrote it.
        let lock_file = dir.path().join("oxo.db.lock");
        assert_eq!(
            std::fs::read_to_string(&lock_file).unwrap(),
            format!("{me}\n")
        );
        // A clone keeps the file open; the last one closes it, and the next
        // store opens it at once.
        let clone = first.clone();
        drop(first);
        assert!(matches!(
            SqliteStore::open(&path),
            Err(StoreError::InUse { .. })
        ));
        clone.ping().await.unwrap();
        drop(clone);
        let again = SqliteStore::open(&path).unwrap();
        again.ping().await.unwrap();
        assert!(lock_file.exists(), "left behind: only the lock counts");
        // Private databases take no lock.
        let (a, b) = (
            SqliteStore::open(":memory:").unwrap(),
            SqliteStore::open(":memory:").unwrap(),
        );
        a.ping().await.unwrap();
        b.ping().await.unwrap();
    }

    #[tokio::test]
    async fn rooms_awaiting_the_computer_are_listed() {
        let store = SqliteStore::open(":memory:").unwrap();
        let human = room("h", Opponent::Human);
        let computer = room("c", Opponent::Computer(StrategyKind::Random));
        store
            .commit(change(&human, ChangeKind::Create))
            .await
            .unwrap();
        store
            .commit(change(&computer, ChangeKind::Create))
            .await
            .unwrap();
        assert!(store.computer_turns().await.unwrap().is_empty());
        let (moved, _) = computer.play(Player::X, 0, 0, None).unwrap();
        store
            .commit(change(&moved, ChangeKind::Move))
            .await
            .unwrap();
        assert_eq!(
            store.computer_turns().await.unwrap(),
            vec![GameId::from_trusted("c")]
        );
    }
}
