//! Where rooms are kept: a small trait, so game logic never sees SQL.
//!
//! A store saves each change as one atomic write and resolves the returned
//! future only once the write is durable; the server acknowledges nothing
//! before that. [`SqliteStore`] is the embedded default; [`MemoryStore`]
//! keeps nothing across restarts and serves tests and benchmarks.

mod memory;
mod sqlite;

use std::future::Future;
use std::pin::Pin;

pub use memory::MemoryStore;
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
    /// A new round began.
    Rematch,
}

/// Why a store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed. The message carries SQLite's
    /// (which is not also a `source`, so it is said once).
    #[error("database error: {0}")]
    Database(rusqlite::Error),
    /// The database file failed its integrity check at start.
    #[error(
        "the database file is damaged ({0}); restore a backup, or start with --skip-check to serve the rooms that are intact"
    )]
    Damaged(String),
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
    /// What the database holds does not make sense.
    #[error("corrupt record: {0}")]
    Corrupt(String),
    /// The store already holds this or a newer state of the room: the write
    /// was refused (it would have overwritten a newer state).
    #[error("refused write: {0}")]
    Conflict(String),
    /// The transaction holding the write failed as a whole; nothing of it
    /// was saved.
    #[error("commit failed: {0}")]
    CommitFailed(String),
    /// The store's worker has stopped (the server is shutting down).
    #[error("the store is closed")]
    Closed,
}

impl From<rusqlite::Error> for StoreError {
    fn from(err: rusqlite::Error) -> StoreError {
        StoreError::Database(err)
    }
}

/// Where rooms are kept.
pub trait Store: Send + Sync + 'static {
    /// Save `change`; resolves once it is durable.
    fn commit(&self, change: Change) -> StoreFuture<()>;

    /// The room with this id, if it exists.
    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>>;

    /// The room with this watch id, if it exists.
    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>>;

    /// Rooms where the computer is to move, to resume after a restart.
    fn computer_turns(&self) -> StoreFuture<Vec<GameId>>;
}
