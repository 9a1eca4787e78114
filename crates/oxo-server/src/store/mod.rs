//! Where rooms are kept: a small trait, so game logic never sees SQL.
//!
//! A store saves each change as one atomic write and resolves the returned
//! future only once the write is durable; the server acknowledges nothing
//! before that. [`SqliteStore`] is the embedded default for one server;
//! [`PgStore`] lets several servers share one PostgreSQL database;
//! [`MemoryStore`] keeps nothing across restarts and serves tests and
//! benchmarks.
//!
//! A store shared by several servers ([`Store::shared`]) also tells each of
//! them about the others' changes ([`Store::follow`]) and hands out claims
//! on the computer's turns ([`Store::claim`]), so that each computer move is
//! searched by one server and a server that dies mid-search has its move
//! finished by another.

mod memory;
mod migrate;
mod postgres;
mod record;
mod sqlite;

use std::collections::HashSet;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

pub use memory::MemoryStore;
pub use postgres::{CommitFault, LISTENER_NAME, PgStore};
pub use sqlite::SqliteStore;

use crate::id::GameId;
use crate::room::RoomRecord;

/// A store's answer, resolved when the work is done (and durable, for writes).
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send>>;

/// One change to save: the room's whole small state after it (the board is
/// its current round's moves), and what kind of change it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The room as it now is.
    pub room: RoomRecord,
    /// What happened.
    pub kind: ChangeKind,
    /// Whether the computer is now to move, so that a restart can resume
    /// rooms that were waiting for it.
    pub computer_turn: bool,
    /// When the seat to move runs out of time (milliseconds since the Unix
    /// epoch), in a timed round whose clock runs, or of the time for its
    /// first move, before: what [`Store::due`] looks for.
    pub deadline: Option<u64>,
}

impl Change {
    /// `room`'s state after a change of `kind`, with what the store looks
    /// up besides: whether the computer is to move, and the deadline of the
    /// seat to move.
    #[must_use]
    pub fn new(room: &crate::room::Room, kind: ChangeKind) -> Change {
        Change {
            room: room.record(),
            kind,
            computer_turn: room.computer_to_move().is_some(),
            deadline: room.deadline(),
        }
    }
}

/// What a [`Change`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// A new room.
    Create,
    /// A person took seat O.
    Join,
    /// A move: the last of the room's moves.
    Move,
    /// A new round began, or a rematch was offered.
    Rematch,
    /// The round ended other than on the board (resigned, aborted, drawn
    /// by agreement, claimed): the ending is also kept in the record of
    /// rounds ([`Store::endings`]).
    End,
    /// A draw or takeback offer was made, withdrawn or declined.
    Offer,
    /// Moves were taken back: the current round's moves beyond the
    /// room's are removed.
    Takeback,
}

/// A room listed in the lobby, as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The room's id (never shown: presence is kept by it).
    pub id: GameId,
    /// Its lobby id: an open game is joined through it.
    pub entry: GameId,
    /// Its watch id: a game being played is watched through it.
    pub watch: GameId,
    /// Board and win length.
    pub rules: oxo_core::Rules,
    /// Who holds (or will hold) seat O.
    pub opponent: crate::room::Opponent,
    /// Who starts the current round.
    pub first: oxo_core::Player,
    /// The current round.
    pub round: u32,
    /// Finished rounds.
    pub score: oxo_core::Scoreboard,
    /// Whether both seats are held (else it waits for an opponent).
    pub seated: bool,
    /// Seconds since the room last changed; for an open game, since it
    /// was opened or its creator was last seen ([`Store::seen`]).
    pub idle: u64,
    /// The names seats X and O chose.
    pub names: [Option<crate::name::PlayerName>; 2],
    /// The time control of a timed room.
    pub clock: Option<oxo_core::TimeControl>,
}

/// How far back the lobby looks for games being played: those unchanged
/// for longer are not listed. Open games are listed however old (whether
/// the lobby shows one depends on its creator's presence, not its age).
pub const LOBBY_HORIZON: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The most games being played one lobby query returns.
pub const LOBBY_ROWS: usize = 100;

/// The most open games one lobby query returns, the most recently changed
/// first: enough that dead seeks (kept until their creator returns) do not
/// push out live ones, few enough to check each one's presence.
pub const OPEN_ROWS: usize = 1000;

/// At most this many of the listed rooms someone is at are read for the
/// lobby, the latest first: more than it shows.
pub const PRESENT_ROWS: usize = 100;

/// Why a store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed. The message carries SQLite's
    /// (which is not also a `source`, so it is said once).
    #[error("database error: {0}")]
    Database(rusqlite::Error),
    /// PostgreSQL refused or failed, or cannot be reached.
    #[error("PostgreSQL: {0}")]
    Postgres(String),
    /// PostgreSQL took a connection and did not answer it (the startup and
    /// login included) in time: a host that accepts TCP connections
    /// but whose server hangs, or a silently dropped network path.
    #[error("PostgreSQL at {at} did not answer within {} s", within.as_secs_f64())]
    NoAnswer {
        /// `HOST:PORT`.
        at: String,
        /// How long it had.
        within: std::time::Duration,
    },
    /// The database file failed its integrity check at start: the check
    /// ran and found these problems (each room is still checked on its own
    /// when loaded, so the intact ones could be served without the check).
    #[error("the database file is damaged ({0})")]
    Damaged(String),
    /// The database file is damaged where SQLite reads it first (its
    /// header or its list of tables), so nothing in it can be read, checked
    /// or not.
    #[error("the database file is damaged and cannot be read at all ({0})")]
    Unreadable(String),
    /// The database file cannot be opened (or made), for `reason`: a
    /// missing directory, one that cannot be written, a directory in the
    /// file's place, the system's refusal.
    #[error("cannot open the database file {}: {reason}", path.display())]
    CannotOpen {
        /// The database file, as given.
        path: PathBuf,
        /// Why, as far as can be found out.
        reason: String,
    },
    /// The file is not oxo's: not a SQLite database at all, or one with
    /// tables oxo did not make, or a schema version without oxo's tables.
    /// It is left as it was: oxo never adds its tables to another
    /// program's database.
    #[error("{} is not an oxo database ({why})", path.display())]
    NotOxo {
        /// The database file, as given.
        path: PathBuf,
        /// What makes it someone else's.
        why: String,
    },
    /// The database file exists but is empty. A truncated database looks
    /// the same, so it is refused rather than taken for a new store: a new
    /// database is made only where no file is.
    #[error(
        "the database file {} is empty (0 bytes), as a truncated database would be, so it is not taken as a new one; to start afresh, delete it",
        path.display()
    )]
    Empty {
        /// The database file, as given.
        path: PathBuf,
    },
    /// The database opens but cannot be written.
    #[error("the database cannot be written ({0}); oxo serve needs to write every move")]
    ReadOnly(String),
    /// The database was written by a newer oxo.
    #[error("the database has schema version {found}; this oxo knows up to {known}")]
    TooNew {
        /// The database's schema version.
        found: i64,
        /// The newest this build knows.
        known: i64,
    },
    /// Another process (another `oxo serve`) has the database file open:
    /// an embedded database serves one server, since each keeps rooms in
    /// memory and two would drift apart.
    #[error("the database {} is in use by {}", path.display(), holder(*pid))]
    InUse {
        /// The database file, as given.
        path: PathBuf,
        /// The other process, as its lock file says (`None` when it has
        /// not written it yet).
        pid: Option<u32>,
    },
    /// The lock file beside the database cannot be created or locked.
    #[error("cannot lock {}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// What the database holds does not make sense.
    #[error("corrupt record: {0}")]
    Corrupt(String),
    /// The store already holds this or a newer state of the room: the write
    /// was refused (it would have overwritten a newer state).
    #[error("refused write: {0}")]
    Conflict(String),
    /// The write was not saved: the transaction holding it failed as a
    /// whole, or the storage failed at an earlier write of its batch and
    /// it was not tried.
    #[error("commit failed: {0}")]
    CommitFailed(String),
    /// The write failed in a way that leaves its outcome unknown: the
    /// database may or may not have committed it (PostgreSQL: the
    /// connection failed after the change was sent and the database could
    /// not be asked in time; SQLite: an I/O error while committing). Memory
    /// keeps the state before it; a retry with the same idempotency key is
    /// safe.
    #[error("the outcome of the write is unknown: {0}")]
    Unknown(String),
    /// The store's worker has stopped (the server is shutting down).
    #[error("the store is closed")]
    Closed,
}

/// What [`Store::lobby`] reads: each listed room, or in its place the
/// damage that kept it from being read.
pub type LobbyRows = Vec<Result<Listing, StoreError>>;

/// Why a change handed to a store's worker has no answer: the worker
/// stopped between taking it and answering, so it may have been saved
/// ([`StoreError::Unknown`], never "nothing changed").
const LOST_ANSWER: &str = "the store stopped before answering whether the change was saved";

/// Who holds a database file, as [`StoreError::InUse`] says it: this very
/// process only where another of its stores has it (tests), or a child it
/// was starting held the lock past the wait.
fn holder(pid: Option<u32>) -> String {
    match pid {
        Some(pid) if pid == std::process::id() => {
            format!("this process (process {pid}: another of its stores, or a child it started)")
        }
        Some(pid) => format!("another server (process {pid})"),
        None => "another server".to_owned(),
    }
}

impl From<rusqlite::Error> for StoreError {
    /// A stored value that cannot be read as what its column holds (text
    /// that is not UTF-8, a number out of range) or a page SQLite finds
    /// malformed is damage ([`StoreError::Corrupt`]), not the database
    /// being unavailable: trying again cannot help.
    fn from(err: rusqlite::Error) -> StoreError {
        use rusqlite::Error as E;
        match &err {
            E::FromSqlConversionFailure(..)
            | E::InvalidColumnType(..)
            | E::IntegralValueOutOfRange(..)
            | E::Utf8Error(..) => {
                StoreError::Corrupt(format!("a stored value cannot be read: {err}"))
            }
            _ if err.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                StoreError::Corrupt(err.to_string())
            }
            _ => StoreError::Database(err),
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(err: tokio_postgres::Error) -> StoreError {
        StoreError::Postgres(postgres_detail(&err))
    }
}

/// What went wrong with PostgreSQL, said fully and without a prefix:
/// tokio-postgres's own message leaves out the server's detail ("db
/// error") and the cause of an I/O failure, so they are added.
pub(crate) fn postgres_detail(err: &tokio_postgres::Error) -> String {
    use std::error::Error as _;
    match (err.as_db_error(), err.source()) {
        (Some(db), _) => format!("{} ({})", db.message(), db.code().code()),
        (None, Some(source)) => format!("{err}: {source}"),
        (None, None) => err.to_string(),
    }
}

/// What a shared store tells a server about changes made by any server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreEvent {
    /// The room now stands at this version.
    Changed {
        /// The room.
        id: GameId,
        /// Its version after the change.
        version: u64,
        /// The change was this server's own (already in its memory).
        own: bool,
        /// The cell played, when the change was a move: a server holding
        /// the room at the version before can play it instead of reading
        /// the room again.
        played: Option<oxo_core::Cell>,
        /// With `played`: the room's newest idempotency key after the move
        /// and its seat (the move's own, if it was sent with one), so that
        /// the room played here is the stored one.
        key: Option<crate::room::Keyed>,
    },
    /// Another server's connections to a room, per seat (X's first): see
    /// [`Store::announce`].
    Presence {
        /// The room.
        id: GameId,
        /// The server that has them.
        node: String,
        /// Whether it has a live connection of each seat.
        seats: [bool; 2],
    },
    /// The feed is interrupted: changes may be missed until
    /// [`StoreEvent::Resync`], so what memory holds cannot be trusted.
    Interrupted,
    /// The feed is back after an interruption: every room held in memory
    /// must be read again, since changes made meanwhile were not announced.
    Resync,
}

/// Where rooms are kept.
pub trait Store: Send + Sync + 'static {
    /// Save `change`; resolves once it is durable.
    fn commit(&self, change: Change) -> StoreFuture<()>;

    /// The room with this id, if it exists.
    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>>;

    /// The room with this watch id, if it exists.
    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>>;

    /// Every round of room `id` so far, the moves of each in order (the
    /// last is the current round): the room's record.
    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<oxo_core::Cell>>>;

    /// The rounds of room `id` that ended other than on the board, by
    /// round number (the record's reasons; lines and full boards show in
    /// the moves).
    fn endings(&self, id: &GameId) -> StoreFuture<Vec<(u32, crate::room::Ending)>>;

    /// Listed rooms: the open ones (seat O empty, waiting for a person),
    /// at most [`OPEN_ROWS`], however old; then the others changed within
    /// [`LOBBY_HORIZON`], at most [`LOBBY_ROWS`]; each part the most
    /// recently changed first; then the listed rooms among `present`
    /// (those someone is at), at most [`PRESENT_ROWS`], the latest first,
    /// however many newer rooms there are, so that a flood of new listings
    /// cannot push them out (a room may come twice). A listed room whose row cannot be read or makes no sense is
    /// [`StoreError::Corrupt`] in its place, so that one damaged room does
    /// not hide the others; any other failure fails the call.
    fn lobby(&self, present: &[GameId]) -> StoreFuture<LobbyRows>;

    /// The id of the room listed under lobby id `entry`, if any.
    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>>;

    /// The creator of room `id` was here just now (a live socket of seat X
    /// opened or closed): if it is an open game (listed, seat O free, not
    /// cancelled), its listing's idle time counts from now, which keeps an
    /// open correspondence game listed for its days after its creator was
    /// last here (`hub/lobby.rs`). Nothing else of the room changes (not
    /// its version); any other room is left as it is.
    fn seen(&self, id: &GameId) -> StoreFuture<()>;

    /// Rooms where the computer is to move, to resume after a restart.
    /// A shared store lists only those no live server has claimed and
    /// nobody has touched for a moment (see [`Store::claim`]).
    fn computer_turns(&self) -> StoreFuture<Vec<GameId>>;

    /// Rooms whose seat to move ran out of time (or of the time for its
    /// first move) at or before `now` (milliseconds since the Unix
    /// epoch): their stored deadline has
    /// passed. Read from the store, so every server finds them, after a
    /// restart too.
    fn due(&self, now: u64) -> StoreFuture<Vec<GameId>>;

    /// Whether other servers may change the rooms too, so that what a
    /// server holds in memory can go stale.
    fn shared(&self) -> bool {
        false
    }

    /// The changes every server makes, as they commit: for a shared store,
    /// once; `None` otherwise.
    fn follow(&self) -> Option<tokio::sync::mpsc::Receiver<StoreEvent>> {
        None
    }

    /// Claim (or renew the claim on) the computer's turn in room `id` at
    /// `version` for `lease`: `true` when this server may search the move,
    /// `false` when another live server holds it or the room has moved on.
    /// A commit ends the claim. Only one server exists for an unshared
    /// store, so it always has the claim.
    fn claim(&self, id: &GameId, version: u64, lease: std::time::Duration) -> StoreFuture<bool> {
        let _ = (id, version, lease);
        Box::pin(std::future::ready(Ok(true)))
    }

    /// The stored version of room `id` (`None` for no such room), so that a
    /// server sharing the store can tell whether what it holds is current
    /// without reading the whole room. Only shared stores are asked.
    fn version(&self, id: &GameId) -> StoreFuture<Option<u64>> {
        let load = self.load(id);
        Box::pin(async move { Ok(load.await?.map(|room| room.version)) })
    }

    /// Tell the other servers sharing the store whether this one has live
    /// connections of each seat of room `id` (X's first); they receive it
    /// as [`StoreEvent::Presence`]. Nothing to do for an unshared store.
    fn announce(&self, id: &GameId, seats: [bool; 2]) -> StoreFuture<()> {
        let _ = (id, seats);
        Box::pin(std::future::ready(Ok(())))
    }

    /// Delete the rooms never played (see [`never_played`]) whose last
    /// change is more than `older_than` old by the clock that stamped it
    /// (the database's own, for SQL stores), but for those in `keep` (the
    /// rooms this server holds in memory), and say how many went. A room deleted while a server holds it in memory
    /// (another server's, or one loaded while this pruning ran) comes back
    /// with that server's next write of it, as it stands (a write inserts a
    /// room the store lacks; the ending of a first round aborted before any
    /// move is not written again), so a deletion damages no room: at worst
    /// one nobody writes again is forgotten. Meanwhile that server may still
    /// answer for the room, or find it gone, until it leaves memory.
    fn prune(&self, older_than: Duration, keep: HashSet<GameId>) -> StoreFuture<usize>;

    /// Whether the store answers at all (for readiness checks).
    fn ping(&self) -> StoreFuture<()>;
}

/// Whether a room was never played, so that pruning may delete it once
/// nobody has changed it for long: still in its first round, with no move
/// on the board and no round scored, and nothing pending that a server
/// would act on (the computer's turn, a deadline). Cancelled, aborted and
/// never joined games are such rooms; a game with a move never is. The
/// stores' queries say the same in SQL. `computer_turn` and `deadline`
/// say whether the store holds either for the room ([`Change`]'s fields).
#[must_use]
pub fn never_played(room: &RoomRecord, computer_turn: bool, deadline: bool) -> bool {
    room.round == 1
        && room.moves.is_empty()
        && room.score.games() == 0
        && !computer_turn
        && !deadline
}
