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

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use oxo_ai::Solver;
use oxo_core::{Coords, Player, Rules, TimeControl};
use tokio::sync::{Semaphore, watch};

mod advice;
mod clocks;
mod lobby;
mod nodes;
mod presence;
mod search;
mod view;

pub use advice::{EstimateView, EstimatedMove, Forced, ReviewView, ReviewedMove};
pub use lobby::{LIVE_QUIET, shown as lobby_shows};
pub use nodes::ORPHAN_SWEEP;
pub use presence::{Attendance, Seats as PresenceSeats};
use search::Pool;
pub use search::{Advice, Hint};
pub use view::{Hints, LiveEntry, Lobby, OpenEntry, Published, Snapshot, TimeControlView};

use crate::id::{GameId, IdempotencyKey, Token};
use crate::name::PlayerName;
use crate::room::{
    Admission, Keyed, Opponent, Proposal, Recall, RecordView, Request, Room, RoomError, RoomRecord,
    Viewer,
};
use crate::store::{Change, ChangeKind, Store, StoreError};

/// Shards of the id → room map.
const SHARDS: usize = 64;

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
    /// The store held a newer state than memory; here it is.
    #[error("the game changed meanwhile; here it is as it stands")]
    Changed(Snapshot),
    /// The lobby's open game is no longer open: its creator has gone.
    #[error("the player who opened this game has left; choose another game in the lobby")]
    SeekGone,
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

/// A room read from the store, checked: the one step between loading a
/// record and installing it in memory.
fn restore(id: &GameId, record: Option<RoomRecord>) -> Result<Room, HubError> {
    let record = record.ok_or_else(|| HubError::NotFound(id.to_string()))?;
    Room::restore(record).map_err(HubError::Corrupt)
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
}

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
        }
    }
}

/// One live room.
#[derive(Debug)]
pub struct RoomHandle {
    room: tokio::sync::Mutex<Room>,
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
    /// When the room was last asked for, in seconds since the hub started.
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
            room: tokio::sync::Mutex::new(room),
            live,
            watchers,
            thinking: AtomicBool::new(false),
            hints: Mutex::new(None),
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
    started: Instant,
    shards: Vec<Mutex<HashMap<GameId, Arc<RoomHandle>>>>,
    /// Watch id → room id, for the rooms in `shards`.
    watch_index: Vec<Mutex<HashMap<GameId, GameId>>>,
    /// Slots for bounded searches: alphabeta moves and hints.
    searches: Semaphore,
    /// Slots for perfect play, which can take seconds on the bigger boards;
    /// kept apart so that it never holds up the quick searches.
    deep_searches: Semaphore,
    strategies: Pool<Box<dyn oxo_ai::Strategy>>,
    solvers: Pool<Solver>,
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
    /// See [`HubConfig::seek_grace`].
    seek_grace: Duration,
    /// Rooms whose seat X was seen connected, and when first in the
    /// hub's time (for the lobby's grace; `presence.rs`).
    creators_seen: Mutex<HashMap<GameId, u64>>,
    /// The clocks' time.
    time: crate::TimeSource,
    flag_sweep: Duration,
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
                started: Instant::now(),
                shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                watch_index: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                catalog: config.catalog.clone(),
                searches: Semaphore::new(config.search_threads.max(1)),
                deep_searches: Semaphore::new(config.search_threads.max(1)),
                strategies: Pool::new(),
                solvers: Pool::new(),
                remote: Mutex::new(HashMap::new()),
                seek_grace: config.seek_grace,
                creators_seen: Mutex::new(HashMap::new()),
                time: config.time.clone(),
                flag_sweep: config.flag_sweep,
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

    fn shard(&self, id: &GameId) -> MutexGuard<'_, HashMap<GameId, Arc<RoomHandle>>> {
        self.shared.shards[shard_of(id)]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn watch_shard(&self, watch: &GameId) -> MutexGuard<'_, HashMap<GameId, GameId>> {
        self.shared.watch_index[shard_of(watch)]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Put a loaded room in memory, unless another request got there first
    /// (then theirs is kept), and resume its computer move if it has one.
    fn install(&self, room: Room) -> Arc<RoomHandle> {
        let computer_turn = room.computer_to_move().is_some();
        let id = room.id().clone();
        let handle = {
            // Lock order, here and in eviction: the room's shard, then the
            // watch index's.
            let mut rooms = self.shard(&id);
            let handle = rooms
                .entry(id.clone())
                .or_insert_with(|| {
                    self.shared.in_memory.fetch_add(1, Ordering::Relaxed);
                    Arc::new(RoomHandle::new(room, self.now()))
                })
                .clone();
            self.watch_shard(&handle.watch_id)
                .insert(handle.watch_id.clone(), id);
            handle
        };
        // Players connected on other servers are there already: take what
        // those servers announced, so that no seat looks gone meanwhile.
        self.refresh_presence(&handle, false);
        if computer_turn {
            // It was the computer's turn when the room left memory (or the
            // server stopped): take it up again.
            self.schedule_computer(&handle);
        }
        if self.shared.in_memory.load(Ordering::Relaxed) > self.shared.max_in_memory {
            // Too many rooms held: let every unused one go now.
            let evicted = self.evict_idle(Duration::ZERO);
            tracing::warn!(evicted, "too many rooms in memory; let the unused ones go");
        }
        handle
    }

    /// The room behind `id`, which may be its id (a player's view) or its
    /// watch id (a spectator's), loaded from the store on first use.
    ///
    /// # Errors
    /// [`HubError::NotFound`] for an unknown id; a store failure.
    pub async fn room_to_read(&self, id: &GameId) -> Result<(Arc<RoomHandle>, Viewer), HubError> {
        let (handle, viewer) = self.find_room(id).await?;
        self.sync(&handle).await?;
        // A timed room past its deadline is ruled on being read; if that
        // fails, the read still shows the room, and the sweep rules it.
        if let Err(e) = self.rule_if_due(&handle).await {
            tracing::warn!(game = %handle.id.for_log(), error = %e, "cannot rule a game out of time");
        }
        Ok((handle, viewer))
    }

    /// [`Hub::room_to_read`] without the check against a shared store.
    async fn find_room(&self, id: &GameId) -> Result<(Arc<RoomHandle>, Viewer), HubError> {
        let known = self.watch_shard(id).get(id).cloned();
        if let Some(room_id) = known {
            return Ok((self.room(&room_id).await?, Viewer::Spectator));
        }
        match self.room(id).await {
            Err(HubError::NotFound(_)) => {}
            found => return found.map(|handle| (handle, Viewer::Player)),
        }
        let seen = self.shared.notices.load(Ordering::SeqCst);
        let record = self.shared.store.load_watch(id).await?;
        let handle = self.install(restore(id, record)?);
        self.settle(&handle, seen).await?;
        Ok((handle, Viewer::Spectator))
    }

    /// The room with this id, loaded from the store on first use.
    ///
    /// # Errors
    /// [`HubError::NotFound`] for an unknown id; a store failure.
    pub async fn room(&self, id: &GameId) -> Result<Arc<RoomHandle>, HubError> {
        let now = self.now();
        let held = self.shard(id).get(id).cloned();
        if let Some(handle) = held {
            handle.touched.store(now, Ordering::Relaxed);
            if !self.shared.fresh.load(Ordering::SeqCst) {
                self.reread(&handle).await?;
            }
            if handle.behind.load(Ordering::SeqCst) {
                let mut room = handle.room.lock().await;
                self.catch_up_locked(&handle, &mut room).await?;
            }
            return Ok(handle);
        }
        let seen = self.shared.notices.load(Ordering::SeqCst);
        let record = self.shared.store.load(id).await?;
        let handle = self.install(restore(id, record)?);
        self.settle(&handle, seen).await?;
        Ok(handle)
    }

    fn now(&self) -> u64 {
        self.shared.started.elapsed().as_secs()
    }

    /// Drop from memory the rooms nobody has asked for in `idle` and nobody
    /// is using (no request in flight, no live connection, no computer
    /// thinking); they stay in the store and load again on their next
    /// request. Returns how many were dropped.
    ///
    /// A room is only dropped under its shard's lock and when the map holds
    /// the last reference to it, so nobody can be left holding a copy that
    /// a later load would duplicate.
    pub fn evict_idle(&self, idle: Duration) -> usize {
        let now = self.now();
        let mut evicted = 0;
        for shard in &self.shared.shards {
            let mut rooms = shard.lock().unwrap_or_else(PoisonError::into_inner);
            rooms.retain(|_, handle| {
                let keep = Arc::strong_count(handle) > 1
                    || handle.live.receiver_count() > 0
                    || handle.watchers.receiver_count() > 0
                    || handle.thinking.load(Ordering::SeqCst)
                    || now.saturating_sub(handle.touched.load(Ordering::Relaxed)) < idle.as_secs();
                if !keep {
                    self.watch_shard(&handle.watch_id).remove(&handle.watch_id);
                    self.shared.in_memory.fetch_sub(1, Ordering::Relaxed);
                    evicted += 1;
                }
                keep
            });
        }
        evicted
    }

    /// Rooms in memory.
    #[must_use]
    pub fn rooms_in_memory(&self) -> usize {
        self.shared
            .shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len())
            .sum()
    }

    /// Open a new room; its creator holds seat X, named `name`. With a
    /// `clock`, its rounds are played under that time control.
    ///
    /// # Errors
    /// No randomness for the id or token; a store failure.
    pub async fn create(
        &self,
        rules: Rules,
        opponent: Opponent,
        first: Player,
        listed: bool,
        name: Option<PlayerName>,
        clock: Option<TimeControl>,
    ) -> Result<Seated, HubError> {
        let random = |id: Result<GameId, getrandom::Error>| {
            id.map_err(|e| HubError::Internal(e.to_string()))
        };
        let token = Token::random().map_err(|e| HubError::Internal(e.to_string()))?;
        let id = random(GameId::random())?;
        let watch = random(GameId::random_watch())?;
        let mut room = Room::new(id.clone(), watch, rules, opponent, first, token.hash())
            .named(Player::X, name);
        let invite = match opponent {
            Opponent::Human => {
                let invite = Token::random().map_err(|e| HubError::Internal(e.to_string()))?;
                room = room.invited(invite.hash());
                Some(invite)
            }
            Opponent::Computer(_) => None,
        };
        if listed {
            room = room.listed(random(GameId::random())?);
        }
        if let Some(control) = clock {
            room = room.timed(control);
        }
        let hub = self.clone();
        // In a task of its own, like every change: once saved, the room is
        // set up even if the client has gone.
        let handle = tokio::spawn(async move {
            hub.shared
                .store
                .commit(Change::new(&room, ChangeKind::Create))
                .await?;
            Ok::<_, HubError>(hub.install(room))
        })
        .await
        .map_err(|e| HubError::Internal(format!("create failed: {e}")))??;
        Ok(Seated {
            game: handle.current(Viewer::Player),
            seat: Player::X,
            token,
            invite,
        })
    }

    /// Commit `next` (the room after `kind`) and make it the room's state.
    /// The caller holds the room's lock, so nothing else changes it between
    /// the check that produced `next` and this.
    ///
    /// When the store already holds a newer state (another server changed
    /// the room, or, with one server, a bug), memory takes the store's
    /// state and [`HubError::Changed`] carries it.
    async fn commit(
        &self,
        handle: &Arc<RoomHandle>,
        room: &mut Room,
        next: Room,
        kind: ChangeKind,
    ) -> Result<Snapshot, HubError> {
        let saved = self.shared.store.commit(Change::new(&next, kind)).await;
        match saved {
            Ok(()) => {
                *room = next;
                Ok(handle.publish(room))
            }
            Err(StoreError::Conflict(reason)) => {
                if !self.shared.shared_store {
                    tracing::error!(game = %room.id().for_log(), reason, "memory behind the store; reloading");
                }
                self.reread_locked(handle, room).await?;
                Err(HubError::Changed(handle.current(Viewer::Player)))
            }
            Err(e @ StoreError::Unknown(_)) => {
                // The change may be stored: memory may be behind, and is
                // read again before the room is next used.
                handle.behind.store(true, Ordering::SeqCst);
                Err(e.into())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// When a commit's outcome was unknown, read the room again (with its
    /// lock held by the caller) so that memory holds what the store holds,
    /// and let the computer play if that is its turn: the lost change may
    /// have been a move it answers.
    pub(super) async fn catch_up_locked(
        &self,
        handle: &Arc<RoomHandle>,
        room: &mut Room,
    ) -> Result<(), HubError> {
        if !handle.behind.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.reread_locked(handle, room).await?;
        handle.behind.store(false, Ordering::SeqCst);
        if room.computer_to_move().is_some() {
            self.schedule_computer(handle);
        }
        Ok(())
    }

    /// Check a request against the room under its lock, commit the room
    /// `decide` returns, publish it, and let the computer answer if it is
    /// now its turn.
    ///
    /// With a shared store, memory may be a moment behind another server's
    /// change: a refusal is checked again against the stored room, and a
    /// commit that lost a race is decided again on the winner's state (so
    /// the loser gets the refusal that state gives, with the fresh game).
    ///
    /// A timed room whose seat to move has run out of time is ruled first
    /// (see `clocks.rs`), and the request decided on the ended round; the
    /// room `decide` returns keeps its clock ([`Room::clocked`]) at the
    /// time the attempt began.
    ///
    /// The work runs in a task of its own: a client that gives up (and so
    /// drops this future) cannot stop it between the commit and the update
    /// of memory, which would leave the two disagreeing.
    async fn change(
        &self,
        id: &GameId,
        kind: ChangeKind,
        decide: impl Fn(&Room) -> Result<Step, RoomError> + Send + 'static,
    ) -> Result<Snapshot, HubError> {
        /// Races lost in a row before giving up with the fresh game.
        const ATTEMPTS: usize = 3;
        let handle = self.room(id).await?;
        let hub = self.clone();
        tokio::spawn(async move {
            let mut room = handle.room.lock().await;
            hub.catch_up_locked(&handle, &mut room).await?;
            let mut reread = false;
            let mut attempt = 0;
            let game = loop {
                let now = hub.now_ms();
                if room.flagged(now).is_some() {
                    // Ruled here, or by another server first (memory then
                    // holds its ruling): either way the round has ended.
                    hub.rule_locked(&handle, &mut room, now).await?;
                    attempt += 1;
                    if attempt < ATTEMPTS {
                        continue;
                    }
                }
                let decided = decide(&room).and_then(|step| match step {
                    Step::Commit(next, kind) => next
                        .clocked(&room, now)
                        .map(|next| Step::Commit(Box::new(next), kind)),
                    Step::Repeat => Ok(Step::Repeat),
                });
                let (next, kind) = match decided {
                    Ok(Step::Commit(next, kind)) => (*next, kind),
                    Ok(Step::Repeat) => break handle.current(Viewer::Player),
                    Err(error) => {
                        if hub.shared.shared_store
                            && !reread
                            && hub.reread_locked(&handle, &mut room).await?
                        {
                            reread = true;
                            continue;
                        }
                        // 409s carry the current game so that the client
                        // can resync; a join's does not need it.
                        let game = (kind != ChangeKind::Join)
                            .then(|| hub.current_now(&handle, Viewer::Player));
                        return Err(HubError::Refused { error, game });
                    }
                };
                match hub.commit(&handle, &mut room, next, kind).await {
                    Err(HubError::Changed(_)) if attempt + 1 < ATTEMPTS => {
                        attempt += 1;
                        reread = true;
                    }
                    done => break done?,
                }
            };
            let computer_turn = room.computer_to_move().is_some();
            drop(room);
            if computer_turn {
                hub.schedule_computer(&handle);
            }
            Ok(game)
        })
        .await
        .map_err(|e| HubError::Internal(format!("change failed: {e}")))?
    }

    /// `action` by the holder of `token`, sent as `key` when given: a key
    /// this seat sent lately is answered with the game as it stands and
    /// changes nothing. Against the computer, a draw offer is answered by
    /// the solver: accepted when the computer cannot win from the position
    /// with best play, declined when it can or when the board is too big
    /// to tell.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, an action the room refuses
    /// now (409s carry the current game), a store failure.
    pub async fn act(
        &self,
        id: &GameId,
        token: Option<&str>,
        action: Action,
        version: Option<u64>,
        key: Option<IdempotencyKey>,
    ) -> Result<Snapshot, HubError> {
        let token = token.ok_or(HubError::NoToken)?.to_owned();
        let handle = self.room(id).await?;
        // The seat first: a request without one starts no search.
        let verdict = match action {
            Action::Propose(Proposal::Draw) if self.seat_in(&handle, &token).await.is_some() => {
                self.computer_accepts_draw(&handle).await?
            }
            _ => None,
        };
        let wait = self.shared.claim_after;
        let presence = handle.clone();
        self.change(id, ChangeKind::Offer, move |room| {
            let seat = room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            let request = Request::named(action.word());
            if let Some(step) = recalled(room, seat, key.as_ref(), &request)? {
                return Ok(step);
            }
            let next = match action {
                Action::Resign => room.resign(seat, version)?,
                Action::Abort => room.abort(version)?,
                Action::Claim => {
                    let gone = presence.gone_since()[seat.other().index()];
                    room.claim(seat, version, gone, Instant::now(), wait)?
                }
                Action::Propose(what) => {
                    // The computer's verdict holds for the state it was
                    // given; a room that moved on meanwhile is stale.
                    let accepts = match verdict {
                        Some((at, _)) if at != room.version() => {
                            return Err(RoomError::Stale {
                                sent: at,
                                current: room.version(),
                            });
                        }
                        Some((_, accepts)) => accepts,
                        None => false,
                    };
                    room.propose(seat, what, version, accepts)?
                }
                Action::Decline(what) => room.decline(what, version)?,
                Action::Rematch => room.rematch(seat, version)?,
            };
            let kind = match action {
                Action::Rematch => ChangeKind::Rematch,
                _ if next.moves().len() < room.moves().len() => ChangeKind::Takeback,
                _ if next.round_over() && !room.round_over() => ChangeKind::End,
                _ => ChangeKind::Offer,
            };
            Ok(Step::Commit(
                Box::new(remembered(next, seat, key.clone(), request)),
                kind,
            ))
        })
        .await
    }

    /// Against the computer, whether it accepts a draw in the room as it
    /// stands, with the version that verdict is for: it does when perfect
    /// play from the position gives it no win. `None` between people.
    async fn computer_accepts_draw(
        &self,
        handle: &Arc<RoomHandle>,
    ) -> Result<Option<(u64, bool)>, HubError> {
        let (game, version) = {
            let room = handle.room.lock().await;
            if room.opponent() == Opponent::Human || room.to_move().is_none() {
                return Ok(None);
            }
            (room.game().clone(), room.version())
        };
        let to_move = game.to_move();
        let Some(values) = self.values(game).await? else {
            // Too big to solve: it cannot tell, so it plays on.
            return Ok(Some((version, false)));
        };
        let best = |value: &str| values.iter().any(|hint| hint.value == value);
        // The side to move's best value, seen from the computer.
        let computer_wins = if to_move == Player::O {
            best("win")
        } else {
            !best("win") && !best("draw")
        };
        Ok(Some((version, !computer_wins)))
    }

    /// Every round of the room behind `id` (its id or watch id).
    ///
    /// # Errors
    /// Unknown room; a store failure; stored rounds that make no sense.
    pub async fn record(&self, id: &GameId) -> Result<RecordView, HubError> {
        let (handle, viewer) = self.room_to_read(id).await?;
        let room = handle.room.lock().await;
        let mut rounds = self.shared.store.rounds(room.id()).await?;
        let endings = self.shared.store.endings(room.id()).await?;
        // The store's current round is the room's (memory and store agree
        // under the lock); a round with no move yet may have no rows.
        let current = usize::try_from(room.round()).unwrap_or(usize::MAX);
        rounds.resize(current, Vec::new());
        room.record_view(&rounds, &endings, viewer)
            .map_err(HubError::Corrupt)
    }

    /// Seat O for a second person, named `name`, who shows the room's
    /// `invite`.
    ///
    /// # Errors
    /// Unknown room; [`RoomError::SeatTaken`]; [`RoomError::NoInvite`]; a
    /// store failure.
    pub async fn join(
        &self,
        id: &GameId,
        invite: Option<&str>,
        name: Option<PlayerName>,
    ) -> Result<Seated, HubError> {
        self.seat_o(id, Admission::Invite(invite.map(str::to_owned)), name)
            .await
    }

    async fn seat_o(
        &self,
        id: &GameId,
        admission: Admission,
        name: Option<PlayerName>,
    ) -> Result<Seated, HubError> {
        let token = Token::random().map_err(|e| HubError::Internal(e.to_string()))?;
        let hash = token.hash();
        let game = self
            .change(id, ChangeKind::Join, move |room| {
                room.join(hash.clone(), &admission)
                    .map(|joined| joined.named(Player::O, name.clone()))
                    .map(|next| Step::Commit(Box::new(next), ChangeKind::Join))
            })
            .await?;
        Ok(Seated {
            game,
            seat: Player::O,
            token,
            invite: None,
        })
    }

    /// The holder of `token` plays at (`row`, `col`), sent as `key` when
    /// given: a key this seat sent lately is answered with the game as it
    /// stands and plays nothing.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, a move the room refuses
    /// (409s carry the current game), a store failure.
    pub async fn play(
        &self,
        id: &GameId,
        token: Option<&str>,
        at: Coords,
        version: Option<u64>,
        key: Option<IdempotencyKey>,
    ) -> Result<Snapshot, HubError> {
        let token = token.ok_or(HubError::NoToken)?.to_owned();
        self.change(id, ChangeKind::Move, move |room| {
            let seat = room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            let request = Request::of_move(at);
            if let Some(step) = recalled(room, seat, key.as_ref(), &request)? {
                return Ok(step);
            }
            let (next, _) = room.play(seat, at, version)?;
            Ok(Step::Commit(
                Box::new(remembered(next, seat, key.clone(), request)),
                ChangeKind::Move,
            ))
        })
        .await
    }

    /// The next round in the room, for either seat.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, the round not over, a store
    /// failure.
    pub async fn rematch(
        &self,
        id: &GameId,
        token: Option<&str>,
        version: Option<u64>,
    ) -> Result<Snapshot, HubError> {
        self.act(id, token, Action::Rematch, version, None).await
    }
}

/// What a seat asks of its room, besides moves and joining.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Resign the round.
    Resign,
    /// Call the round off before both sides have moved.
    Abort,
    /// Offer a draw or a takeback, or accept the other seat's.
    Propose(Proposal),
    /// Withdraw one's own offer, or decline the other seat's.
    Decline(Proposal),
    /// Claim the round: the other seat has left on its move.
    Claim,
    /// Ask for (or accept) the next round.
    Rematch,
}

impl Action {
    /// The action's name, kept with its idempotency key.
    const fn word(self) -> &'static str {
        match self {
            Action::Resign => "resign",
            Action::Abort => "abort",
            Action::Propose(Proposal::Draw) => "draw",
            Action::Propose(Proposal::Takeback) => "takeback",
            Action::Decline(Proposal::Draw) => "no-draw",
            Action::Decline(Proposal::Takeback) => "no-takeback",
            Action::Claim => "claim",
            Action::Rematch => "rematch",
        }
    }
}

/// What a request comes to, decided under the room's lock.
enum Step {
    /// Commit this room, changed this way.
    Commit(Box<Room>, ChangeKind),
    /// A repeat of a change already made (its idempotency key): answer
    /// with the room as it stands.
    Repeat,
}

/// What a keyed request comes to before it is decided: a repeat of the
/// request its key was first sent with (answered with the room as it
/// stands), a key reused for another request (refused), or nothing to
/// recall (`None`: decide it).
fn recalled(
    room: &Room,
    seat: Player,
    key: Option<&IdempotencyKey>,
    request: &Request,
) -> Result<Option<Step>, RoomError> {
    match key.map(|key| room.recall(seat, key, request)) {
        Some(Recall::Repeat) => Ok(Some(Step::Repeat)),
        Some(Recall::Reused) => Err(RoomError::KeyReused),
        Some(Recall::New) | None => Ok(None),
    }
}

/// `room`, remembering `key` for `seat`'s `request` when there is one.
fn remembered(room: Room, seat: Player, key: Option<IdempotencyKey>, request: Request) -> Room {
    match key {
        Some(key) => room.remember(Keyed {
            seat,
            key,
            request: Some(request),
        }),
        None => room,
    }
}

#[cfg(test)]
mod tests;

fn shard_of(id: &GameId) -> usize {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)
}
