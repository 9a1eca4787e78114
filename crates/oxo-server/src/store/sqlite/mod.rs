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
//!
//! The code is in four parts: the schema and its migrations
//! ([`schema`]), the worker thread and its writes ([`worker`]), the
//! reads with their mapping of rows to rooms ([`rows`]), and the lock
//! ([`lock`]).

mod lock;
mod rows;
mod schema;
mod worker;

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io;
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use oxo_core::Cell;
use rusqlite::{Connection, OpenFlags};
use tokio::sync::oneshot;

use self::lock::{lock, lock_path};
use self::worker::Request;
use super::{Change, Store, StoreError, StoreFuture};
use crate::id::GameId;
use crate::room::RoomRecord;

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
    /// date. `":memory:"` opens a private in-memory database; any other
    /// `path` is a file name, never a URI (`file:x.db` is the file of that
    /// name).
    ///
    /// A file store locks `<path>.lock` (an advisory `flock`, which holds the
    /// store's process id) until it is dropped; the operating system
    /// releases the lock when the process dies, even by SIGKILL, and the
    /// file, left behind, is harmless: only the lock on it counts. A lock
    /// this process let go of but a child process it is starting still
    /// holds a copy of is waited for, up to 10 s (see `lock.rs`), blocking
    /// the caller as the integrity check does.
    ///
    /// A new database is made only where no file is: an empty file is
    /// refused ([`StoreError::Empty`]), since a truncated database looks
    /// the same.
    ///
    /// # Errors
    /// The file cannot be opened ([`StoreError::CannotOpen`], with the
    /// reason), is in use by another store ([`StoreError::InUse`]), is
    /// empty, is not oxo's ([`StoreError::NotOxo`]: not a SQLite database,
    /// or another program's, which is left as it was), cannot be read at
    /// all ([`StoreError::Unreadable`]), fails its integrity check, cannot
    /// be written, or is from a newer oxo.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_checked(path.as_ref(), true)
    }

    /// [`SqliteStore::open`] without the integrity check of the whole file
    /// (`PRAGMA integrity_check`, which reads every page and checks every
    /// index against its table: about 0.7 CPU seconds for 100,000 rooms,
    /// seconds on a file of gigabytes). Each room is still checked against
    /// its digest when it is loaded, and a room found through its watch or
    /// lobby id but missing by its id is reported as damage; a room whose
    /// entry in the id index is damaged, though, reads as absent.
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn open_without_check(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_checked(path.as_ref(), false)
    }

    fn open_checked(given: &Path, check: bool) -> Result<SqliteStore, StoreError> {
        let path = &*plain_file_name(given);
        // Opened before the lock is taken, so a path SQLite refuses (a
        // directory, a missing folder) is reported as before and leaves no
        // lock file beside it; nothing is read before the lock is held.
        // Looked at before SQLite opens it, which makes a missing file and
        // leaves it empty until the first write.
        let was_empty = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0);
        let mut conn = Connection::open_with_flags(path, OPEN_FLAGS)
            .map_err(|e| cannot_open(given, path, e))?;
        let lock_was_there = lock_path(path).exists();
        let lock = lock(path, given)?;
        // Another program's file is refused as it was found: a lock file
        // this open made beside it goes too.
        let refuse = |why: String| {
            if lock.is_some() && !lock_was_there {
                let _ = std::fs::remove_file(lock_path(path));
            }
            StoreError::NotOxo {
                path: given.to_owned(),
                why,
            }
        };
        // Checked again under the lock: another store may have been
        // creating it.
        if was_empty && std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
            return Err(StoreError::Empty {
                path: given.to_owned(),
            });
        }
        // The first read of the file: whose it is. Another program's file
        // is refused (after the check, which names damage first) before
        // anything is written to it, not even the switch to WAL.
        let not_oxo = match schema::not_oxo(&conn) {
            Ok(why) => why,
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) => {
                return Err(refuse("it is not a SQLite database".to_owned()));
            }
            // Damage where SQLite starts reading: skipping the integrity
            // check cannot get past it.
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                return Err(StoreError::Unreadable(e.to_string()));
            }
            // Reading a WAL database makes files beside it: a directory
            // that cannot be written shows here.
            Err(e) => return Err(cannot_open(given, path, e)),
        };
        if check {
            // A damaged file is refused before anything is served from it.
            // `integrity_check` rather than `quick_check`: only it finds an
            // index that disagrees with its table, through which a stored
            // room would read as absent.
            let problems: Vec<String> = conn
                .prepare("PRAGMA integrity_check(5)")
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
        if let Some(why) = not_oxo {
            return Err(refuse(why));
        }
        // WAL lets the worker append without rewriting pages; FULL syncs the
        // log on every commit, so an acknowledged move survives even a power
        // cut, not only a killed process.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        schema::migrate(&mut conn)?;
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
                worker::worker(&mut conn, &queue);
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
        self.ask_or(make, || StoreError::Closed)
    }

    /// [`SqliteStore::ask`], answering `lost()` when the worker takes the
    /// request and stops without answering it.
    fn ask_or<T: Send + 'static>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, StoreError>>) -> Request,
        lost: fn() -> StoreError,
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
            rx.await.map_err(|_| lost())?
        })
    }
}

#[cfg(test)]
impl SqliteStore {
    /// Run `work` on the store's connection, between its requests.
    async fn with(&self, work: impl FnOnce(&mut Connection) + Send + 'static) {
        self.ask(|reply| {
            Request::With(Box::new(move |conn| {
                work(conn);
                let _ = reply.send(Ok(()));
            }))
        })
        .await
        .unwrap();
    }
}

impl Store for SqliteStore {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        // Once the worker has the change, no answer means it may have
        // been saved: the outcome is unknown, not "nothing changed".
        self.ask_or(
            |tx| Request::Commit(Box::new(change), tx),
            || StoreError::Unknown(super::LOST_ANSWER.into()),
        )
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

    fn due(&self, now: u64) -> StoreFuture<Vec<GameId>> {
        self.ask(|reply| Request::Due(now, reply))
    }

    fn lobby(&self, present: &[GameId]) -> StoreFuture<super::LobbyRows> {
        let present = present.to_vec();
        self.ask(|reply| Request::Lobby(present, reply))
    }

    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>> {
        let entry = entry.clone();
        self.ask(|tx| Request::LoadEntry(entry, tx))
    }

    fn seen(&self, id: &GameId) -> StoreFuture<()> {
        let id = id.clone();
        self.ask(|tx| Request::Seen(id, tx))
    }

    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<Cell>>> {
        let id = id.clone();
        self.ask(|tx| Request::Rounds(id, tx))
    }

    fn endings(&self, id: &GameId) -> StoreFuture<Vec<(u32, crate::room::Ending)>> {
        let id = id.clone();
        self.ask(|tx| Request::Endings(id, tx))
    }

    fn prune(&self, older_than: Duration, keep: HashSet<GameId>) -> StoreFuture<usize> {
        let older_than = older_than.as_secs();
        // A span of room numbers a request, so that other requests are
        // answered between them.
        let store = self.clone();
        let keep = Arc::new(keep);
        Box::pin(async move {
            let (mut deleted, mut after) = (0, None);
            loop {
                let keep = Arc::clone(&keep);
                let (gone, next) = store
                    .ask(|reply| Request::Prune(after, older_than, keep, reply))
                    .await?;
                deleted += gone;
                match next {
                    Some(next) => after = Some(next),
                    None => return Ok(deleted),
                }
            }
        })
    }

    fn ping(&self) -> StoreFuture<()> {
        self.ask(Request::Ping)
    }
}

/// How long a write waits for the file while another program holds it
/// (`sqlite3` with a transaction open, a backup) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How the store opens its file: to read and write, made when missing,
/// and as a plain file name, never a URI (`SQLITE_OPEN_URI` is left out).
const OPEN_FLAGS: OpenFlags = OpenFlags::SQLITE_OPEN_READ_WRITE
    .union(OpenFlags::SQLITE_OPEN_CREATE)
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX);

/// `path` as a name SQLite takes for a plain file. SQLite reads a name that
/// starts with `file:` as a URI, and the bundled SQLite is built with URIs
/// on for every connection (`SQLITE_USE_URI`), which no open flag turns
/// off: `file:x.db` would open `x.db` while the lock was taken on
/// `file:x.db.lock`, and a second server on `x.db` would start. With `./`
/// in front it is the file literally named `file:x.db`, which the lock
/// beside it guards.
fn plain_file_name(path: &Path) -> std::borrow::Cow<'_, Path> {
    if path.as_os_str().as_encoded_bytes().starts_with(b"file:") {
        Path::new(".").join(path).into()
    } else {
        path.into()
    }
}

/// The error for SQLite's refusal `e` to open `path` (named `given`): its
/// "unable to open database file" says neither which file nor why, so
/// the reason is looked for here, without making or changing anything.
fn cannot_open(given: &Path, path: &Path, e: rusqlite::Error) -> StoreError {
    if e.sqlite_error_code() != Some(rusqlite::ErrorCode::CannotOpen) {
        return e.into();
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let reason = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => "it is a directory".to_owned(),
        // The system's reason, where it refuses the file itself.
        Ok(_) => match OpenOptions::new().read(true).write(true).open(path) {
            Err(os) => os.to_string(),
            Ok(_) => format!(
                "{e}; check that the directory {} is writable, as SQLite keeps its journal beside the file",
                dir.display()
            ),
        },
        Err(missing) if missing.kind() == io::ErrorKind::NotFound => match std::fs::metadata(dir) {
            Err(os) if os.kind() == io::ErrorKind::NotFound => {
                format!("the directory {} does not exist", dir.display())
            }
            Err(os) => format!("the directory {}: {os}", dir.display()),
            Ok(meta) if !meta.is_dir() => format!("{} is not a directory", dir.display()),
            Ok(_) => format!(
                "it cannot be made; check that the directory {} is writable",
                dir.display()
            ),
        },
        Err(os) => os.to_string(),
    };
    StoreError::CannotOpen {
        path: given.to_owned(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use oxo_ai::StrategyKind;
    use oxo_core::{Player, Rules, Scoreboard};

    use super::*;
    use crate::room::{Opponent, Room};
    use crate::store::ChangeKind;

    pub(super) fn room(id: &str, opponent: Opponent) -> Room {
        Room::new(
            GameId::from_trusted(id),
            GameId::from_trusted(&format!("watch-{id}")),
            Rules::default(),
            opponent,
            Player::X,
            crate::id::Token::from_trusted("tx").hash(),
        )
    }

    pub(super) fn change(room: &Room, kind: ChangeKind) -> Change {
        Change::new(room, kind)
    }

    /// The lobby finds its open games by the partial index `rooms_open`,
    /// which holds no cancelled game (one keeps its entry and empty seat
    /// O): the walk does not grow with every seek ever cancelled.
    #[test]
    fn the_lobby_walks_an_index_of_open_games_without_cancelled_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        drop(SqliteStore::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        let index: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'rooms_open'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert!(
            index.contains("o_token IS NULL AND end_reason IS NULL"),
            "{index}"
        );
        let mut plan = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", rows::LOBBY))
            .unwrap();
        let steps: Vec<String> = plan
            .query_map(rusqlite::params![0, 0, 0, "[]", 0], |row| row.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            steps
                .iter()
                .any(|step| step.contains("USING INDEX rooms_open")),
            "{steps:#?}"
        );
    }

    #[tokio::test]
    async fn a_change_taken_and_never_answered_has_an_unknown_outcome() {
        let store = SqliteStore::open(":memory:").unwrap();
        let (started, taken) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        // The worker stops (here, a panic) after the change is queued.
        let stop = store.ask::<()>(|_reply| {
            Request::With(Box::new(move |_| {
                started.send(()).unwrap();
                let _ = wait.recv();
                panic!("the worker stops (a test's fault)");
            }))
        });
        tokio::task::spawn_blocking(move || taken.recv().unwrap())
            .await
            .unwrap();
        let r = room("lost", Opponent::Human);
        let commit = store.commit(change(&r, ChangeKind::Create));
        go.send(()).unwrap();
        assert!(matches!(stop.await, Err(StoreError::Closed)));
        let answer = commit.await;
        assert!(matches!(answer, Err(StoreError::Unknown(_))), "{answer:?}");
        // Nothing is taken once it has stopped: that is certain.
        let refused = store.commit(change(&r, ChangeKind::Create)).await;
        assert!(matches!(refused, Err(StoreError::Closed)), "{refused:?}");
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
        let (r3, _) = r2
            .play(Player::X, oxo_core::Coords::new(1, 1), None)
            .unwrap();
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

    /// Room "a" as created, joined, and after X's move and O's reply: each
    /// stage, to store in turn.
    fn two_moves_in() -> [Room; 4] {
        let created =
            room("a", Opponent::Human).invited(crate::id::Token::from_trusted("inv").hash());
        let joined = created
            .join(
                crate::id::Token::from_trusted("to").hash(),
                &crate::room::Admission::Invite(Some("inv".into())),
            )
            .unwrap();
        let (one, _) = joined
            .play(Player::X, oxo_core::Coords::new(1, 1), None)
            .unwrap();
        let (moved, _) = one
            .play(Player::O, oxo_core::Coords::new(0, 0), None)
            .unwrap();
        [created, joined, one, moved]
    }

    #[tokio::test]
    async fn a_room_stored_before_position_versions_reads_as_changed_at_its_version() {
        // Before migration 12 an offer after a move was stored with no
        // position version (and a digest without one): read back, its
        // position counts from its version, so a move sent against the
        // version before the offer is refused, as it was then.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let store = SqliteStore::open(&path).unwrap();
        let [created, joined, one, moved] = two_moves_in();
        let offered = moved
            .propose(Player::X, crate::room::Proposal::Draw, None, false)
            .unwrap();
        let mut before = offered.record();
        assert_eq!(before.position_version, moved.version());
        before.position_version = before.version;
        let as_before = Room::restore(before).unwrap();
        for (room, kind) in [
            (&created, ChangeKind::Create),
            (&joined, ChangeKind::Join),
            (&one, ChangeKind::Move),
            (&moved, ChangeKind::Move),
            (&as_before, ChangeKind::Offer),
        ] {
            store.commit(change(room, kind)).await.unwrap();
        }
        drop(store);
        let unset: bool = Connection::open(&path)
            .unwrap()
            .query_row("SELECT position_version IS NULL FROM rooms", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert!(unset, "stored as the code before the column stored it");
        let store = SqliteStore::open(&path).unwrap();
        let read = store.load(created.id()).await.unwrap().unwrap();
        assert_eq!(read.position_version, read.version);
        let read = Room::restore(read).unwrap();
        assert!(matches!(
            read.play(
                Player::X,
                oxo_core::Coords::new(2, 2),
                Some(moved.version())
            ),
            Err(crate::room::RoomError::Stale { .. })
        ));
        // The same room with its position version set is stored with it.
        store
            .commit(change(
                &offered.decline(crate::room::Proposal::Draw, None).unwrap(),
                ChangeKind::Offer,
            ))
            .await
            .unwrap();
        let read = store.load(created.id()).await.unwrap().unwrap();
        assert_eq!(read.position_version, moved.version());
    }

    /// The offers made are kept under the room's digest: a changed or
    /// missing value is damage. A room in which none was made is stored as
    /// before the column (empty, and nothing of it in the digest), so rooms
    /// stored before it keep their digests.
    #[tokio::test]
    async fn offers_made_are_kept_under_the_digest_and_a_room_without_keeps_its_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let store = SqliteStore::open(&path).unwrap();
        let [created, joined, one, moved] = two_moves_in();
        // The digest of this room as oxo computed it before the column
        // (the same text: no offer, nothing added).
        assert_eq!(
            crate::store::record::digest(&moved.record()),
            "228284b106760b4b4714750650bdb4ae1d3c6471bd9202f642380bc71a30185b"
        );
        let declined = moved
            .propose(Player::X, crate::room::Proposal::Draw, None, false)
            .unwrap()
            .decline(crate::room::Proposal::Draw, None)
            .unwrap();
        for (room, kind) in [
            (&created, ChangeKind::Create),
            (&joined, ChangeKind::Join),
            (&one, ChangeKind::Move),
            (&moved, ChangeKind::Move),
        ] {
            store.commit(change(room, kind)).await.unwrap();
        }
        let stored = |sql: &str| {
            Connection::open(&path)
                .unwrap()
                .query_row(sql, [], |row| row.get::<_, Option<String>>(0))
                .unwrap()
        };
        assert_eq!(stored("SELECT offers_made FROM rooms"), None);
        store
            .commit(change(&declined, ChangeKind::Offer))
            .await
            .unwrap();
        assert_eq!(
            stored("SELECT offers_made FROM rooms").as_deref(),
            Some("draw/x:1")
        );
        assert_eq!(
            store.load(created.id()).await.unwrap(),
            Some(declined.record())
        );
        drop(store);
        for tampered in ["'draw/x:7'", "NULL", "'draw/x:1 draw/o:1'"] {
            Connection::open(&path)
                .unwrap()
                .execute(&format!("UPDATE rooms SET offers_made = {tampered}"), [])
                .unwrap();
            let store = SqliteStore::open(&path).unwrap();
            let err = store.load(created.id()).await.unwrap_err();
            assert!(matches!(err, StoreError::Corrupt(_)), "{tampered}: {err}");
        }
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

    #[tokio::test]
    async fn a_version_1_database_is_migrated_with_watch_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        {
            // A database as the first schema left it, with one room.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(schema::MIGRATIONS[0].sql).unwrap();
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
        assert_eq!(old.names, [None, None], "nobody was named before names");
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
        assert_eq!(version, i64::try_from(schema::MIGRATIONS.len()).unwrap());
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
            r = r
                .play(mover, oxo_core::Coords::new(row, col), None)
                .unwrap()
                .0;
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
        drop(SqliteStore::open(&path).unwrap());
        {
            // Oxo's database (another program's would be refused as such),
            // filled with endings of rooms that need not exist for this.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "PRAGMA foreign_keys = OFF;
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                 INSERT INTO endings (room, round, reason) SELECT i, 1, printf('%0100d', i) FROM n;",
            )
            .unwrap();
        }
        assert_eq!(
            std::fs::metadata(&path).unwrap().len() % 4096,
            0,
            "pages of 4096 bytes"
        );
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
            err.to_string().contains(&format!(
                "in use by this process (process {me}: another of its stores"
            )),
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

    /// A SQLite file another program made, with `sql` run in it: its bytes.
    fn foreign(path: &Path, sql: &str) -> Vec<u8> {
        Connection::open(path).unwrap().execute_batch(sql).unwrap();
        std::fs::read(path).unwrap()
    }

    #[test]
    fn another_programs_database_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        for (name, sql, why) in [
            (
                "notes.db",
                "CREATE TABLE notes (text); CREATE TABLE tags (name);",
                "it has tables oxo did not make: notes, tags",
            ),
            // A version oxo knows, without oxo's tables.
            (
                "v11.db",
                "PRAGMA user_version = 11;",
                "its schema version is 11, but it has none of oxo's tables",
            ),
            (
                "v5.db",
                "PRAGMA user_version = 5; CREATE TABLE notes (text);",
                "it has tables oxo did not make: notes",
            ),
            (
                "v3.db",
                "PRAGMA user_version = 3; CREATE TABLE rooms (id);",
                "its schema version is 3, but it lacks oxo's table moves",
            ),
            (
                "v99.db",
                "PRAGMA user_version = 99; CREATE TABLE notes (text);",
                "its schema version is 99, and it has none of oxo's tables",
            ),
        ] {
            let path = dir.path().join(name);
            let before = foreign(&path, sql);
            for open in [SqliteStore::open, SqliteStore::open_without_check] {
                let err = open(&path).unwrap_err();
                assert!(
                    matches!(&err, StoreError::NotOxo { path: p, .. } if *p == path),
                    "{err}"
                );
                assert_eq!(
                    err.to_string(),
                    format!("{} is not an oxo database ({why})", path.display())
                );
                assert_eq!(std::fs::read(&path).unwrap(), before, "{name} untouched");
                assert!(
                    !lock_path(&path).exists(),
                    "no lock file left beside {name}"
                );
            }
        }
        // Oxo's own database is its own, new and opened again (the
        // migration test opens one of version 1), also with Litestream's
        // tables beside oxo's.
        let path = dir.path().join("oxo.db");
        drop(SqliteStore::open(&path).unwrap());
        drop(SqliteStore::open(&path).unwrap());
        foreign(&path, "CREATE TABLE _litestream_seq (id, seq);");
        foreign(&path, "CREATE TABLE _litestream_lock (id);");
        drop(SqliteStore::open(&path).unwrap());
    }

    #[test]
    fn a_file_that_is_not_sqlite_is_not_called_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("text.db");
        std::fs::write(&path, "some notes, not a database\n".repeat(100)).unwrap();
        for open in [SqliteStore::open, SqliteStore::open_without_check] {
            let err = open(&path).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "{} is not an oxo database (it is not a SQLite database)",
                    path.display()
                )
            );
        }
    }

    #[test]
    fn a_file_damaged_in_its_header_cannot_be_read_checked_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        drop(SqliteStore::open(&path).unwrap());
        // The first page past the header: the list of tables.
        let mut bytes = std::fs::read(&path).unwrap();
        for b in &mut bytes[100..4096] {
            *b = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        for open in [SqliteStore::open, SqliteStore::open_without_check] {
            let err = open(&path).unwrap_err();
            assert!(matches!(err, StoreError::Unreadable(_)), "{err}");
        }
    }

    #[test]
    fn a_file_that_cannot_be_opened_says_which_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/oxo.db");
        let err = SqliteStore::open(&missing).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot open the database file {}: the directory {} does not exist",
                missing.display(),
                dir.path().join("no/such/dir").display()
            )
        );
        let err = SqliteStore::open(dir.path()).unwrap_err();
        assert!(err.to_string().ends_with(": it is a directory"), "{err}");
        assert!(!dir.path().join("no").exists(), "nothing was made");
    }

    #[test]
    fn a_file_name_is_never_read_as_a_uri() {
        assert_eq!(
            plain_file_name(Path::new("file:x.db")),
            Path::new("./file:x.db")
        );
        for plain in ["x.db", "/srv/file:x.db", "./file:x.db", ":memory:"] {
            assert_eq!(plain_file_name(Path::new(plain)), Path::new(plain));
        }
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
        let (moved, _) = computer
            .play(Player::X, oxo_core::Coords::new(0, 0), None)
            .unwrap();
        store
            .commit(change(&moved, ChangeKind::Move))
            .await
            .unwrap();
        assert_eq!(
            store.computer_turns().await.unwrap(),
            vec![GameId::from_trusted("c")]
        );
    }

    #[tokio::test]
    async fn games_never_played_are_pruned_whole_and_come_back_whole_if_written() {
        let store = SqliteStore::open(":memory:").unwrap();
        let waiting =
            room("waiting", Opponent::Human).invited(crate::id::Token::from_trusted("inv").hash());
        let cancelled = room("cancelled", Opponent::Human).abort(None).unwrap();
        let held = room("held", Opponent::Human);
        let [_, _, played, _] = two_moves_in();
        let computer = Room::new(
            GameId::from_trusted("computer"),
            GameId::from_trusted("watch-computer"),
            Rules::default(),
            Opponent::Computer(StrategyKind::Random),
            Player::O,
            crate::id::Token::from_trusted("tx").hash(),
        );
        for (r, kind) in [
            (&waiting, ChangeKind::Create),
            (&cancelled, ChangeKind::End),
            (&held, ChangeKind::Create),
            (&played, ChangeKind::Move),
            (&computer, ChangeKind::Create),
        ] {
            store.commit(change(r, kind)).await.unwrap();
        }
        assert_eq!(store.endings(cancelled.id()).await.unwrap().len(), 1);
        let now = crate::TimeSource::system().now();
        // Kept, each for one part of the rule alone: a second round not
        // begun after a first called off (nothing scored), a round scored,
        // and a timed round waiting for its first move.
        let mut rematched = change(&room("rematched", Opponent::Human), ChangeKind::Create);
        rematched.room.round = 2;
        let mut scored = change(&room("scored", Opponent::Human), ChangeKind::Create);
        scored.room.score = Scoreboard::from_counts(1, 0, 0);
        let timed = Change {
            deadline: Some(now + 86_400_000),
            ..change(&room("timed", Opponent::Human), ChangeKind::Create)
        };
        let kept_too = [
            rematched.room.id.clone(),
            scored.room.id.clone(),
            timed.room.id.clone(),
        ];
        for kept in [rematched, scored, timed] {
            store.commit(kept).await.unwrap();
        }
        // Enough more for a pruning of several spans of room numbers.
        let filler = usize::try_from(rows::PRUNE_SPAN).unwrap() + 300;
        for i in 0..filler {
            let r = room(&format!("filler{i}"), Opponent::Human);
            store.commit(change(&r, ChangeKind::Create)).await.unwrap();
        }
        let keep: HashSet<GameId> = [held.id().clone()].into();
        // Everything is a moment old: nothing is an hour old.
        let hour = Duration::from_secs(3600);
        assert_eq!(store.prune(hour, keep.clone()).await.unwrap(), 0);
        // Made two hours older, by SQLite's own clock, which stamped them.
        store
            .with(|conn| {
                conn.execute("UPDATE rooms SET updated_at = updated_at - 7200", [])
                    .unwrap();
            })
            .await;
        let pruned = store.prune(hour, keep.clone()).await.unwrap();
        assert_eq!(pruned, 2 + filler);
        for id in &kept_too {
            assert!(store.load(id).await.unwrap().is_some(), "{id}");
        }
        for (r, kept) in [
            (&waiting, false),
            (&cancelled, false),
            (&held, true),
            (&played, true),
            (&computer, true),
        ] {
            assert_eq!(
                store.load(r.id()).await.unwrap().is_some(),
                kept,
                "{}",
                r.id()
            );
        }
        assert!(store.endings(cancelled.id()).await.unwrap().is_empty());
        // A server that still held a deleted room writes it back whole.
        let joined = waiting
            .join(
                crate::id::Token::from_trusted("to").hash(),
                &crate::room::Admission::Invite(Some("inv".into())),
            )
            .unwrap();
        let (moved, _) = joined
            .play(Player::X, oxo_core::Coords::new(2, 2), None)
            .unwrap();
        store
            .commit(change(&joined, ChangeKind::Join))
            .await
            .unwrap();
        store
            .commit(change(&moved, ChangeKind::Move))
            .await
            .unwrap();
        assert_eq!(store.load(moved.id()).await.unwrap(), Some(moved.record()));
        // Old again, the room written back is kept: it has a move.
        store
            .with(|conn| {
                conn.execute("UPDATE rooms SET updated_at = updated_at - 7200", [])
                    .unwrap();
            })
            .await;
        assert_eq!(store.prune(hour, keep).await.unwrap(), 0);
        assert!(store.load(moved.id()).await.unwrap().is_some());
    }

    /// Replace every `from` in the file at `path` (closed) by `to`, of the
    /// same length, within bytes `range`; how many were replaced.
    fn patch(path: &Path, range: std::ops::Range<usize>, from: &[u8], to: &[u8]) -> usize {
        let mut bytes = std::fs::read(path).unwrap();
        let end = range.end.min(bytes.len());
        let mut count = 0;
        let mut at = range.start;
        while let Some(found) = bytes[at..end].windows(from.len()).position(|w| w == from) {
            let start = at + found;
            bytes[start..start + to.len()].copy_from_slice(to);
            count += 1;
            at = start + from.len();
        }
        std::fs::write(path, &bytes).unwrap();
        count
    }

    /// A file store holding room `id`, closed (so its log is checkpointed
    /// into the file).
    async fn stored(path: &Path, id: &str) -> Room {
        let store = SqliteStore::open(path).unwrap();
        let r = room(id, Opponent::Human);
        store.commit(change(&r, ChangeKind::Create)).await.unwrap();
        drop(store);
        assert!(!path.with_extension("db-wal").exists());
        r
    }

    #[tokio::test]
    async fn an_empty_file_is_refused_and_only_a_missing_one_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        std::fs::write(&path, b"").unwrap();
        for open in [SqliteStore::open, SqliteStore::open_without_check] {
            let err = open(&path).unwrap_err();
            assert!(
                matches!(&err, StoreError::Empty { path: p } if *p == path),
                "{err}"
            );
            assert!(err.to_string().contains("is empty"), "{err}");
            assert!(
                err.to_string().ends_with("to start afresh, delete it"),
                "{err}"
            );
            assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "left as it was");
        }
        // Deleted, it is made anew.
        std::fs::remove_file(&path).unwrap();
        let store = SqliteStore::open(&path).unwrap();
        store.ping().await.unwrap();
        drop(store);
        assert!(std::fs::metadata(&path).unwrap().len() > 0);
        SqliteStore::open(&path).unwrap();
    }

    #[tokio::test]
    async fn text_that_is_not_utf8_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let r = stored(&path, "g").await;
        // The opponent's name, in the room's row only (no index holds it).
        assert_eq!(patch(&path, 0..usize::MAX, b"human", b"hu\xffan"), 1);
        let store = SqliteStore::open(&path).expect("the file itself is sound");
        for err in [
            store.load(r.id()).await.unwrap_err(),
            store.load_watch(&r.record().watch).await.unwrap_err(),
        ] {
            assert!(matches!(err, StoreError::Corrupt(_)), "{err}");
        }
        // It is still ready: the other rooms are served.
        store.ping().await.unwrap();
    }

    #[tokio::test]
    async fn a_damaged_id_index_is_refused_at_start_and_never_read_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let id = "gggggggggggggggg";
        let r = stored(&path, id).await;
        // Change the room's id in its entry of the id index only.
        let (page, size): (usize, usize) = {
            let conn = Connection::open(&path).unwrap();
            let page: i64 = conn
                .query_row(
                    "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_rooms_1'",
                    [],
                    |row| row.get(0),
                )
                .unwrap();
            let size: i64 = conn
                .pragma_query_value(None, "page_size", |row| row.get(0))
                .unwrap();
            (page.try_into().unwrap(), size.try_into().unwrap())
        };
        let index = (page - 1) * size..page * size;
        assert_eq!(patch(&path, index, id.as_bytes(), b"gggggggggggggggh"), 1);
        let quick: String = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA quick_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(quick, "ok", "the damage quick_check cannot see");
        // The check at start finds it.
        let err = SqliteStore::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::Damaged(_)), "{err}");
        assert!(
            err.to_string().contains("sqlite_autoindex_rooms_1"),
            "{err}"
        );
        // Unchecked, the room is missing by its id, but found by its watch
        // id it is damage, not absent.
        let store = SqliteStore::open_without_check(&path).unwrap();
        assert_eq!(store.load(r.id()).await.unwrap(), None);
        let err = store.load_watch(&r.record().watch).await.unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(_)), "{err}");
        assert!(err.to_string().contains("the id index is damaged"), "{err}");
    }

    #[tokio::test]
    async fn readiness_fails_while_writes_fail_and_comes_back_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let store = SqliteStore::open(&path).unwrap();
        store.ping().await.unwrap();
        // A full disk, as SQLite meets it: the file cannot grow by a page.
        store
            .with(|conn| {
                let count: i64 = conn
                    .query_row("PRAGMA page_count", [], |row| row.get(0))
                    .unwrap();
                conn.pragma_update(None, "max_page_count", count).unwrap();
            })
            .await;
        let mut failed = None;
        for n in 0..2000 {
            let r = room(&format!("room{n:04}"), Opponent::Human);
            if let Err(e) = store.commit(change(&r, ChangeKind::Create)).await {
                failed = Some(e);
                break;
            }
        }
        let err = failed.expect("the file filled up");
        assert!(matches!(err, StoreError::Database(_)), "{err}");
        assert!(err.to_string().contains("full"), "{err}");
        let err = store.ping().await.unwrap_err();
        assert!(err.to_string().contains("full"), "{err}");
        assert!(store.ping().await.is_err(), "still not ready");
        // Space again: readiness comes back, and so do writes.
        store
            .with(|conn| {
                conn.pragma_update(None, "max_page_count", 1_000_000)
                    .unwrap();
            })
            .await;
        store.ping().await.unwrap();
        let r = room("after", Opponent::Human);
        store.commit(change(&r, ChangeKind::Create)).await.unwrap();
        assert_eq!(store.load(r.id()).await.unwrap(), Some(r.record()));
    }

    /// Another program holding the file locked past the busy timeout fails
    /// writes, and readiness with them, until it lets go. A batch meets it
    /// at its first write and fails the others without waiting again; the
    /// readiness probe leaves the writes' busy timeout as it was.
    #[tokio::test]
    async fn readiness_fails_while_another_program_holds_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let store = SqliteStore::open(&path).unwrap();
        store
            .with(|conn| conn.busy_timeout(Duration::from_millis(10)).unwrap())
            .await;
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE").unwrap();
        // Three writes queued behind a request that holds the worker, so
        // that they are committed as one batch.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let holding = store.ask(|reply| {
            Request::With(Box::new(move |_| {
                wait.recv().ok();
                let _ = reply.send(Ok(()));
            }))
        });
        let rooms: Vec<Room> = (0..3)
            .map(|n| room(&format!("held{n}"), Opponent::Human))
            .collect();
        let commits: Vec<_> = rooms
            .iter()
            .map(|r| store.commit(change(r, ChangeKind::Create)))
            .collect();
        go.send(()).unwrap();
        holding.await.unwrap();
        let mut errors = Vec::new();
        for commit in commits {
            errors.push(commit.await.unwrap_err());
        }
        assert!(matches!(&errors[0], StoreError::Database(_)), "{errors:?}");
        for err in &errors {
            assert!(err.to_string().contains("locked"), "{err}");
        }
        assert!(
            errors[1..]
                .iter()
                .all(|e| matches!(e, StoreError::CommitFailed(_))),
            "not tried: {errors:?}"
        );
        let err = store.ping().await.unwrap_err();
        assert!(err.to_string().contains("locked"), "{err}");
        store
            .with(|conn| {
                let ms: i64 = conn
                    .query_row("PRAGMA busy_timeout", [], |row| row.get(0))
                    .unwrap();
                assert_eq!(ms, 5000);
            })
            .await;
        other.execute_batch("COMMIT").unwrap();
        let r = &rooms[0];
        store.ping().await.unwrap();
        store.commit(change(r, ChangeKind::Create)).await.unwrap();
        assert_eq!(store.load(r.id()).await.unwrap(), Some(r.record()));
    }
}
