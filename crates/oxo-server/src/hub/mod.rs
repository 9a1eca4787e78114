//! The live rooms: a lock per room, never one for all of them.
//!
//! Each room sits behind its own async mutex, held while a change is checked,
//! committed to the store and published, so one room's changes happen
//! strictly one at a time while other rooms go on in parallel. The map from
//! ids to rooms is split into shards whose std mutexes are held only to look
//! up or insert an entry, never across an `.await`.
//!
//! Every room also has a `watch` channel carrying its latest GAME (a typed
//! [`Snapshot`], written as JSON once by the first reader that sends it):
//! readers and WebSocket clients take it from there without touching the
//! room's lock, and a slow client skips straight to the newest state.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use oxo_ai::Solver;
use oxo_core::Player;
use tokio::sync::{Semaphore, watch};

mod advice;
mod change;
mod clocks;
mod lobby;
mod nodes;
mod presence;
mod requests;
mod rooms;
mod search;
mod view;

pub use advice::{EstimateView, EstimatedMove, Forced, ReviewView, ReviewedMove};
pub use lobby::{LIVE_QUIET, shown as lobby_shows};
pub use nodes::ORPHAN_SWEEP;
pub use presence::{Attendance, Seats as PresenceSeats};
pub use requests::Action;
use rooms::SHARDS;
use search::Pool;
pub use search::{Advice, Exact, Hint, Hold, LONGER_RETRY, LongerSlot};
pub use view::{Hints, LiveEntry, Lobby, OpenEntry, Published, Recent, Snapshot, TimeControlView};

use crate::id::{GameId, Token};
use crate::room::{Room, RoomError, Viewer};
use crate::store::{Store, StoreError};

/// Why the hub refused or failed a request; the API maps each to its
/// status and JSON body (`error.rs`).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// No game with this id.
    #[error("no game {0}")]
    NotFound(String),
    /// A seat's request came without a token.
    #[error("this needs a seat's token: send Authorization: Bearer TOKEN")]
    NoToken,
    /// The room refused the request; `game` is the room as it stands, for
    /// the client to resync (none for a join).
    #[error("{error}")]
    Refused {
        /// Why.
        error: RoomError,
        /// The current GAME.
        game: Option<Snapshot>,
    },
    /// Hints asked for while two people play a round.
    #[error("{}", oxo_ai::hints::NoHints::BetweenPeople)]
    HintsWithheld,
    /// A review asked for while two people play the round.
    #[error(
        "a review is not available in a round between two people until it is over; it is for \
         games against the computer and finished rounds"
    )]
    ReviewWithheld,
    /// A round the room has not had.
    #[error("no round {asked}: this game has rounds 1 to {rounds}")]
    NoSuchRound {
        /// The round asked for.
        asked: u32,
        /// The rounds the room has had, the current one included.
        rounds: u32,
    },
    /// The store held a newer state than memory; here it is.
    #[error("the game changed meanwhile; here it is as it stands")]
    Changed(Snapshot),
    /// The lobby's open game is no longer open: its creator has gone.
    #[error("the player who opened this game has left; choose another game in the lobby")]
    SeekGone,
    /// The one slot for a longer look ([`Hub::values_longer`]) is taken:
    /// try again after this long.
    #[error(
        "another longer look is running on this server; try again in {} s",
        .0.as_secs()
    )]
    Busy(Duration),
    /// The store failed; nothing changed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored room makes no sense.
    #[error("a stored game is damaged: {0}")]
    Corrupt(String),
    /// A bug or an exhausted resource.
    #[error("{0}")]
    Internal(String),
}

/// Settings of a [`Hub`].
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// Searches (computer moves and hints) that may run at once; more wait.
    pub search_threads: usize,
    /// Rooms nobody has asked for in this long leave memory (they stay in
    /// the store); see [`Hub::evict_idle`].
    pub idle_after: Duration,
    /// The computer players on offer, with any models given for `learned`.
    pub catalog: oxo_ai::Catalog,
    /// Rooms held in memory before the unused ones are let go at once,
    /// however recently used (they stay in the store): a bound on the
    /// memory that rooms nobody joins can take.
    pub max_rooms_in_memory: usize,
    /// How long a new open game shows in the lobby with its creator not
    /// connected (a game made through the API has this long to open its
    /// live socket); see `hub/lobby.rs`.
    pub seek_grace: Duration,
    /// How long a seat must have been gone, on its move, before the other
    /// may claim the round ([`crate::room::CLAIM_AFTER`] by default).
    pub claim_after: Duration,
    /// Where the clocks read the time (the system's; tests pass their own).
    pub time: crate::TimeSource,
    /// How often the server looks for timed rooms whose seat to move has
    /// run out of time, to rule the round lost on time with nobody there.
    pub flag_sweep: Duration,
    /// Games never played (no move made, no round scored: never joined,
    /// cancelled, aborted, or joined with no move, correspondence too) that
    /// nobody has changed for this long are deleted
    /// ([`Hub::prune_unplayed`]); `None` keeps every game.
    pub prune_after: Option<Duration>,
}

/// How long a game never played is kept unchanged before it is deleted, by
/// default: 30 days, longer than any listing stays in the lobby (an open
/// correspondence game shows for one move's days, at most 14, after its
/// creator was last here).
pub const PRUNE_AFTER: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Positions the `perfect` opponent may search for one move (about half a
/// second on the 2-core machine kind, which visits some two million a
/// second); a position that needs more gets alphabeta's move instead, so no
/// computer move runs for seconds.
pub const PERFECT_BUDGET: u64 = 1_000_000;

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            search_threads: std::thread::available_parallelism().map_or(2, usize::from),
            idle_after: Duration::from_secs(15 * 60),
            catalog: oxo_ai::Catalog::default().with_perfect_budget(Some(PERFECT_BUDGET)),
            max_rooms_in_memory: 100_000,
            seek_grace: Duration::from_secs(20),
            claim_after: crate::room::CLAIM_AFTER,
            time: crate::TimeSource::system(),
            flag_sweep: Duration::from_secs(1),
            prune_after: Some(PRUNE_AFTER),
        }
    }
}

/// One live room.
#[derive(Debug)]
pub struct RoomHandle {
    room: tokio::sync::Mutex<Room>,
    /// Whether seat O is the computer (fixed when the room is made).
    computer: bool,
    /// The GAME players see...
    live: watch::Sender<Snapshot>,
    /// ...and the one spectators see.
    watchers: watch::Sender<Snapshot>,
    id: GameId,
    watch_id: GameId,
    thinking: AtomicBool,
    /// The version last published, readable without the room's lock.
    version: AtomicU64,
    hints: Mutex<Option<(u64, Advice)>>,
    /// Against the computer, its answer to a draw offer and the position it
    /// was for: an offer made again there (one declined can be) is answered
    /// without another search.
    draw_verdict: Mutex<Option<(oxo_core::Game, bool)>>,
    /// When the room was last asked for, in seconds by [`Hub::now`].
    touched: AtomicU64,
    /// This server's live connections of each seat (see `presence.rs`)...
    local: [AtomicUsize; 2],
    /// ...what it last told the other servers of them...
    told: Mutex<presence::Seats>,
    /// ...and each seat's presence on any server, for the connections...
    presence: watch::Sender<presence::Seats>,
    /// ...and since when each seat has had no connection on any server
    /// (`None` while it has one), for claims.
    lost: Mutex<[Option<Instant>; 2]>,
    /// The move the room was at when last published (round, moves played)
    /// and since when: a seat is gone on its move only from when it
    /// became its move, for claims. Not stored: after a load it counts
    /// from the load.
    turn: Mutex<(u32, usize, Instant)>,
    /// Whether memory may be behind the store: a commit's outcome was
    /// unknown, so the room is read again before it is next used.
    behind: AtomicBool,
}

impl RoomHandle {
    fn new(room: Room, now: u64) -> RoomHandle {
        let (room_round, room_moves) = (room.round(), room.moves().len());
        let (live, _) = watch::channel(snapshot(&room, Viewer::Player));
        let (watchers, _) = watch::channel(snapshot(&room, Viewer::Spectator));
        RoomHandle {
            id: room.id().clone(),
            watch_id: room.watch_id().clone(),
            version: AtomicU64::new(room.version()),
            computer: matches!(room.opponent(), crate::room::Opponent::Computer(_)),
            room: tokio::sync::Mutex::new(room),
            live,
            watchers,
            thinking: AtomicBool::new(false),
            hints: Mutex::new(None),
            draw_verdict: Mutex::new(None),
            touched: AtomicU64::new(now),
            local: [AtomicUsize::new(0), AtomicUsize::new(0)],
            told: Mutex::new([false; 2]),
            presence: watch::channel([false; 2]).0,
            // Nobody is connected to a room just loaded.
            lost: Mutex::new([Some(Instant::now()); 2]),
            behind: AtomicBool::new(false),
            turn: Mutex::new((room_round, room_moves, Instant::now())),
        }
    }

    /// Whether seat O is the computer, which is always here.
    #[must_use]
    pub const fn against_computer(&self) -> bool {
        self.computer
    }

    /// How long each seat has been gone this turn, X's first: since it
    /// lost its last live connection on any server or since the last
    /// move, whichever is later (`None`: it has a connection).
    #[must_use]
    pub fn absence(&self) -> [Option<Duration>; 2] {
        self.gone_since().map(|since| since.map(|t| t.elapsed()))
    }

    /// Since when each seat has been gone this turn (see
    /// [`RoomHandle::absence`]).
    fn gone_since(&self) -> [Option<Instant>; 2] {
        let lost = *self.lost.lock().unwrap_or_else(PoisonError::into_inner);
        let (_, _, turn) = *self.turn.lock().unwrap_or_else(PoisonError::into_inner);
        lost.map(|since| since.map(|t| t.max(turn)))
    }

    /// A receiver of each seat's presence, X's first: whether the seat has
    /// a live connection on any server.
    #[must_use]
    pub fn presence(&self) -> watch::Receiver<presence::Seats> {
        self.presence.subscribe()
    }

    fn channel(&self, viewer: Viewer) -> &watch::Sender<Snapshot> {
        match viewer {
            Viewer::Player => &self.live,
            Viewer::Spectator => &self.watchers,
        }
    }

    /// The latest GAME as `viewer` sees it.
    #[must_use]
    pub fn current(&self, viewer: Viewer) -> Snapshot {
        self.channel(viewer).borrow().clone()
    }

    /// A receiver of every later GAME (the latest one, for slow readers).
    #[must_use]
    pub fn subscribe(&self, viewer: Viewer) -> watch::Receiver<Snapshot> {
        self.channel(viewer).subscribe()
    }

    /// Send the room's state to every player and spectator; the players'
    /// GAME is returned.
    fn publish(&self, room: &Room) -> Snapshot {
        {
            let at = (room.round(), room.moves().len());
            let mut turn = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
            if (turn.0, turn.1) != at {
                *turn = (at.0, at.1, Instant::now());
            }
        }
        self.watchers
            .send_replace(snapshot(room, Viewer::Spectator));
        let game = snapshot(room, Viewer::Player);
        self.live.send_replace(game.clone());
        // Last: whoever reads this version finds at least it published.
        self.version.store(room.version(), Ordering::SeqCst);
        game
    }
}

fn snapshot(room: &Room, viewer: Viewer) -> Snapshot {
    Published::new(room.view(viewer))
}

/// A seat handed out: the game as it now is and the seat's secret.
#[derive(Debug)]
pub struct Seated {
    /// The GAME.
    pub game: Snapshot,
    /// The seat taken.
    pub seat: Player,
    /// The token that proves it.
    pub token: Token,
    /// For the creator of a game between two people: the invite that
    /// takes seat O, to send to a friend (the store keeps only its hash).
    pub invite: Option<Token>,
}

struct Shared {
    /// The computer players on offer.
    catalog: oxo_ai::Catalog,
    store: Arc<dyn Store>,
    shards: Vec<Mutex<HashMap<GameId, Arc<RoomHandle>>>>,
    /// Watch id → room id, for the rooms in `shards`.
    watch_index: Vec<Mutex<HashMap<GameId, GameId>>>,
    /// Slots for bounded searches: alphabeta moves and hints.
    searches: Arc<Semaphore>,
    /// Slots for perfect play, which can take seconds on the bigger boards;
    /// kept apart so that it never holds up the quick searches.
    deep_searches: Arc<Semaphore>,
    /// One slot for the longer looks at a position's values
    /// ([`Hub::values_longer`]), kept apart from both, held by the search
    /// itself until it ends (even if its request has gone).
    longer_searches: Arc<Semaphore>,
    strategies: Pool<Box<dyn oxo_ai::Strategy>>,
    solvers: Pool<Solver>,
    /// Hint valuers (the solver and the prover), kept warm like the solvers.
    valuers: Pool<oxo_ai::exact::Valuer>,
    /// Whether other servers change the rooms too (see `nodes.rs`).
    shared_store: bool,
    /// See [`HubConfig::claim_after`].
    claim_after: Duration,
    /// Whether memory is known to be fresh: false while a shared store's
    /// change feed is interrupted, when every request rereads its room.
    fresh: AtomicBool,
    /// Change notices received, to spot one that arrives while a room is
    /// being loaded.
    notices: AtomicU64,
    /// Rooms in `shards`, and how many may be.
    in_memory: AtomicUsize,
    max_in_memory: usize,
    /// What other servers said of their players' presence.
    remote: Mutex<presence::Remote>,
    /// Presence across an outage of the change feed (`presence.rs`).
    outage: Mutex<presence::Outage>,
    /// See [`HubConfig::seek_grace`].
    seek_grace: Duration,
    /// Rooms whose seat X was seen connected, and when first in the
    /// hub's time (for the lobby's grace; `presence.rs`).
    creators_seen: Mutex<HashMap<GameId, u64>>,
    /// The damage the lobby has logged, so that each damaged listed room
    /// is logged once, not on every poll (`lobby.rs`).
    damage_logged: Mutex<HashSet<String>>,
    /// When each listed room this server does not hold was last read for
    /// the lobby, in the hub's time, and whether it read back whole (see
    /// `lobby.rs`).
    lobby_checked: Mutex<HashMap<GameId, (u64, bool)>>,
    /// The clocks' time.
    time: crate::TimeSource,
    flag_sweep: Duration,
    prune_after: Option<Duration>,
}

/// Every live room, the store behind them and the computer players.
/// Cheap to clone: clones share everything.
#[derive(Clone)]
pub struct Hub {
    shared: Arc<Shared>,
    idle_after: Duration,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").finish_non_exhaustive()
    }
}

impl Hub {
    /// A hub keeping its rooms in `store`.
    pub fn new(store: Arc<dyn Store>, config: &HubConfig) -> Hub {
        Hub {
            shared: Arc::new(Shared {
                shared_store: store.shared(),
                claim_after: config.claim_after,
                in_memory: AtomicUsize::new(0),
                max_in_memory: config.max_rooms_in_memory.max(1),
                fresh: AtomicBool::new(true),
                notices: AtomicU64::new(0),
                store,
                shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                watch_index: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                catalog: config.catalog.clone(),
                searches: Arc::new(Semaphore::new(config.search_threads.max(1))),
                deep_searches: Arc::new(Semaphore::new(config.search_threads.max(1))),
                longer_searches: Arc::new(Semaphore::new(1)),
                strategies: Pool::new(),
                solvers: Pool::new(),
                valuers: Pool::new(),
                remote: Mutex::new(HashMap::new()),
                outage: Mutex::new(presence::Outage::default()),
                seek_grace: config.seek_grace,
                creators_seen: Mutex::new(HashMap::new()),
                damage_logged: Mutex::new(HashSet::new()),
                lobby_checked: Mutex::new(HashMap::new()),
                time: config.time.clone(),
                flag_sweep: config.flag_sweep,
                prune_after: config.prune_after,
            }),
            idle_after: config.idle_after,
        }
    }

    /// The computer players this hub offers.
    #[must_use]
    pub fn catalog(&self) -> &oxo_ai::Catalog {
        &self.shared.catalog
    }

    /// How long a seat must have been gone, on its move, before the other
    /// may claim the round.
    #[must_use]
    pub fn claim_after(&self) -> Duration {
        self.shared.claim_after
    }

    /// How long a room may sit unused before [`Hub::evict_idle`] may drop it.
    #[must_use]
    pub const fn idle_after(&self) -> Duration {
        self.idle_after
    }

    /// Start the computer's moves in every room where the computer was to
    /// move when the server last stopped. Call once the runtime is running.
    ///
    /// # Errors
    /// The store could not list them.
    pub async fn resume(&self) -> Result<usize, HubError> {
        let ids = self.shared.store.computer_turns().await?;
        let mut count = 0;
        for id in ids {
            // One damaged room must not keep the others waiting.
            match self.fresh_room(&id).await {
                Ok(handle) => {
                    self.schedule_computer(&handle);
                    count += 1;
                }
                Err(e) => {
                    tracing::error!(game = %id.for_log(), error = %e, "cannot resume this game")
                }
            }
        }
        Ok(count)
    }

    /// Now in whole seconds, by the hub's [`crate::TimeSource`], for what the hub
    /// keeps a while (idle rooms, the lobby's checks): a test that moves a
    /// [`crate::ManualTime`] moves these too.
    fn now(&self) -> u64 {
        self.now_ms() / 1000
    }
}

/// Whether a stamp made `at` (by [`Hub::now`]) is younger than `limit`
/// `now`. The hub's time is the system's wall clock, which can be set
/// back: a stamp from the future then counts as old, so that what it
/// guards (an idle room kept, a lobby check trusted) is done again rather
/// than held for as long as the clock went back.
fn within(now: u64, at: u64, limit: Duration) -> bool {
    now.checked_sub(at).is_some_and(|age| age < limit.as_secs())
}

#[cfg(test)]
mod tests;
