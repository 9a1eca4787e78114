//! The live rooms: a lock per room, never one for all of them.
//!
//! Each room sits behind its own async mutex, held while a change is checked,
//! committed to the store and published, so one room's changes happen
//! strictly one at a time while other rooms go on in parallel. The map from
//! ids to rooms is split into shards whose std mutexes are held only to look
//! up or insert an entry, never across an `.await`.
//!
//! Every room also has a `watch` channel carrying its latest GAME as JSON:
//! readers and WebSocket clients take it from there without touching the
//! room's lock, and a slow client skips straight to the newest state.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use oxo_ai::{Solver, StrategyKind};
use oxo_core::{Game, Player, Rules};
use serde::Serialize;
use tokio::sync::{Semaphore, watch};

use crate::error::ApiError;
use crate::id::{GameId, Token};
use crate::room::{Opponent, Room, RoomError, Viewer};
use crate::store::{Change, ChangeKind, Store, StoreError};

/// Shards of the id → room map.
const SHARDS: usize = 64;

/// Searches kept warm for reuse (strategies and hint solvers), in all.
const POOL_SIZE: usize = 4;

/// Pooled searches unused for this long are dropped.
const POOL_IDLE: Duration = Duration::from_secs(60);

/// Hints are offered on boards of at most this many cells, where a whole
/// empty board is analysed in well under a second (5×5 k=4 takes about
/// 40 ms)...
pub const HINT_MAX_CELLS: usize = 25;

/// ...and on larger boards the solver handles once at most this many cells
/// are empty (a few milliseconds on the boards tried, up to 7×7).
pub const HINT_MAX_EMPTY: usize = 16;

/// The table a hint solver gets.
const HINT_TABLE_BYTES: usize = 16 << 20;

/// Settings of a [`Hub`].
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// Searches (computer moves and hints) that may run at once; more wait.
    pub search_threads: usize,
    /// Rooms nobody has asked for in this long leave memory (they stay in
    /// the store); see [`Hub::evict_idle`].
    pub idle_after: Duration,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            search_threads: std::thread::available_parallelism().map_or(2, usize::from),
            idle_after: Duration::from_secs(15 * 60),
        }
    }
}

/// One live room.
#[derive(Debug)]
pub struct RoomHandle {
    room: tokio::sync::Mutex<Room>,
    /// The GAME players see...
    live: watch::Sender<Arc<str>>,
    /// ...and the one spectators see.
    watchers: watch::Sender<Arc<str>>,
    watch_id: GameId,
    thinking: AtomicBool,
    hints: Mutex<Option<(u64, Arc<str>)>>,
    /// When the room was last asked for, in seconds since the hub started.
    touched: AtomicU64,
}

impl RoomHandle {
    fn new(room: Room, now: u64) -> RoomHandle {
        let (live, _) = watch::channel(game_json(&room, Viewer::Player));
        let (watchers, _) = watch::channel(game_json(&room, Viewer::Spectator));
        RoomHandle {
            watch_id: room.watch_id().clone(),
            room: tokio::sync::Mutex::new(room),
            live,
            watchers,
            thinking: AtomicBool::new(false),
            hints: Mutex::new(None),
            touched: AtomicU64::new(now),
        }
    }

    fn channel(&self, viewer: Viewer) -> &watch::Sender<Arc<str>> {
        match viewer {
            Viewer::Player => &self.live,
            Viewer::Spectator => &self.watchers,
        }
    }

    /// The latest GAME as `viewer` sees it, as JSON.
    #[must_use]
    pub fn current(&self, viewer: Viewer) -> Arc<str> {
        self.channel(viewer).borrow().clone()
    }

    /// A receiver of every later GAME (the latest one, for slow readers).
    #[must_use]
    pub fn subscribe(&self, viewer: Viewer) -> watch::Receiver<Arc<str>> {
        self.channel(viewer).subscribe()
    }

    /// Send the room's state to every player and spectator; the players'
    /// GAME is returned.
    fn publish(&self, room: &Room) -> Arc<str> {
        self.watchers
            .send_replace(game_json(room, Viewer::Spectator));
        let json = game_json(room, Viewer::Player);
        self.live.send_replace(json.clone());
        json
    }
}

fn game_json(room: &Room, viewer: Viewer) -> Arc<str> {
    serde_json::to_string(&room.view(viewer))
        .expect("a game view always serialises")
        .into()
}

/// A seat handed out: the game as it now is and the seat's secret.
#[derive(Debug)]
pub struct Seated {
    /// The GAME, as JSON.
    pub game: Arc<str>,
    /// The seat taken.
    pub seat: Player,
    /// The token that proves it.
    pub token: Token,
}

/// The value of one empty cell, for hints.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Hint {
    /// The cell's row.
    pub row: u32,
    /// The cell's column.
    pub col: u32,
    /// What playing there leads to for the side to move.
    pub value: &'static str,
    /// Plies to the end under perfect play, this move included.
    pub plies: u32,
}

/// Searches kept for reuse, keyed by what they were built for. A perfect
/// player or hint solver holds a table of up to 64 MiB, so the pool is small
/// and lets go of what has not been used for a while.
struct Pool<T> {
    idle: Mutex<Vec<Pooled<T>>>,
}

/// A pooled search: what it was built for (a strategy, or `None` for a
/// hint solver), since when it is idle, and the search itself.
type Pooled<T> = (Option<StrategyKind>, Rules, Instant, T);

impl<T> Pool<T> {
    fn new() -> Pool<T> {
        Pool {
            idle: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pooled<T>>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take(&self, kind: Option<StrategyKind>, rules: Rules) -> Option<T> {
        let mut idle = self.lock();
        let at = idle
            .iter()
            .position(|(k, r, _, _)| *k == kind && *r == rules)?;
        Some(idle.swap_remove(at).3)
    }

    fn give(&self, kind: Option<StrategyKind>, rules: Rules, value: T) {
        let mut idle = self.lock();
        if idle.len() >= POOL_SIZE {
            idle.remove(0);
        }
        idle.push((kind, rules, Instant::now(), value));
    }

    /// Drop what has sat unused for `age`.
    fn expire(&self, age: Duration) {
        // Dropping a table can take a moment: do it outside the lock.
        let old: Vec<_> = {
            let mut idle = self.lock();
            let (old, keep) = idle
                .drain(..)
                .partition(|(_, _, since, _)| since.elapsed() >= age);
            *idle = keep;
            old
        };
        drop(old);
    }
}

struct Shared {
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
                store,
                started: Instant::now(),
                shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                watch_index: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                searches: Semaphore::new(config.search_threads.max(1)),
                deep_searches: Semaphore::new(config.search_threads.max(1)),
                strategies: Pool::new(),
                solvers: Pool::new(),
            }),
            idle_after: config.idle_after,
        }
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
    pub async fn resume(&self) -> Result<usize, ApiError> {
        let ids = self.shared.store.computer_turns().await?;
        let mut count = 0;
        for id in ids {
            // Loading a room schedules its computer move; one damaged room
            // must not keep the others waiting.
            match self.room(&id).await {
                Ok(_) => count += 1,
                Err(e) => tracing::error!(game = %id, error = %e, "cannot resume this game"),
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
                .or_insert_with(|| Arc::new(RoomHandle::new(room, self.now())))
                .clone();
            self.watch_shard(&handle.watch_id)
                .insert(handle.watch_id.clone(), id);
            handle
        };
        if computer_turn {
            // It was the computer's turn when the room left memory (or the
            // server stopped): take it up again.
            self.schedule_computer(&handle);
        }
        handle
    }

    /// The room behind `id`, which may be its id (a player's view) or its
    /// watch id (a spectator's), loaded from the store on first use.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] for an unknown id; a store failure.
    pub async fn room_to_read(&self, id: &GameId) -> Result<(Arc<RoomHandle>, Viewer), ApiError> {
        let known = self.watch_shard(id).get(id).cloned();
        if let Some(room_id) = known {
            return Ok((self.room(&room_id).await?, Viewer::Spectator));
        }
        match self.room(id).await {
            Err(ApiError::NotFound(_)) => {}
            found => return found.map(|handle| (handle, Viewer::Player)),
        }
        let record = self
            .shared
            .store
            .load_watch(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let room = Room::restore(record).map_err(ApiError::Corrupt)?;
        Ok((self.install(room), Viewer::Spectator))
    }

    /// The room with this id, loaded from the store on first use.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] for an unknown id; a store failure.
    pub async fn room(&self, id: &GameId) -> Result<Arc<RoomHandle>, ApiError> {
        let now = self.now();
        if let Some(handle) = self.shard(id).get(id) {
            handle.touched.store(now, Ordering::Relaxed);
            return Ok(handle.clone());
        }
        let record = self
            .shared
            .store
            .load(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let room = Room::restore(record).map_err(ApiError::Corrupt)?;
        Ok(self.install(room))
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

    /// Open a new room; its creator holds seat X.
    ///
    /// # Errors
    /// No randomness for the id or token; a store failure.
    pub async fn create(
        &self,
        rules: Rules,
        opponent: Opponent,
        first: Player,
    ) -> Result<Seated, ApiError> {
        let token = Token::random().map_err(|e| ApiError::Internal(e.to_string()))?;
        let id = GameId::random().map_err(|e| ApiError::Internal(e.to_string()))?;
        let watch = GameId::random_watch().map_err(|e| ApiError::Internal(e.to_string()))?;
        let room = Room::new(id.clone(), watch, rules, opponent, first, token.hash());
        let hub = self.clone();
        // In a task of its own, like every change: once saved, the room is
        // set up even if the client has gone.
        let handle = tokio::spawn(async move {
            hub.shared
                .store
                .commit(Change {
                    room: room.record(),
                    kind: ChangeKind::Create,
                    computer_turn: room.computer_to_move().is_some(),
                })
                .await?;
            Ok::<_, ApiError>(hub.install(room))
        })
        .await
        .map_err(|e| ApiError::Internal(format!("create failed: {e}")))??;
        Ok(Seated {
            game: handle.current(Viewer::Player),
            seat: Player::X,
            token,
        })
    }

    /// Commit `next` (the room after `kind`) and make it the room's state.
    /// The caller holds the room's lock, so nothing else changes it between
    /// the check that produced `next` and this.
    async fn commit(
        &self,
        handle: &Arc<RoomHandle>,
        room: &mut Room,
        next: Room,
        kind: ChangeKind,
    ) -> Result<Arc<str>, ApiError> {
        let saved = self
            .shared
            .store
            .commit(Change {
                room: next.record(),
                kind,
                computer_turn: next.computer_to_move().is_some(),
            })
            .await;
        match saved {
            Ok(()) => {
                *room = next;
                Ok(handle.publish(room))
            }
            Err(StoreError::Conflict(reason)) => {
                // The store holds a newer state than memory (which only a
                // bug could cause): believe the store, and let the client
                // resync.
                tracing::error!(game = %room.id(), reason, "memory behind the store; reloading");
                let record = self
                    .shared
                    .store
                    .load(room.id())
                    .await?
                    .ok_or_else(|| ApiError::NotFound(room.id().to_string()))?;
                *room = Room::restore(record).map_err(ApiError::Corrupt)?;
                let json = handle.publish(room);
                if room.computer_to_move().is_some() {
                    self.schedule_computer(handle);
                }
                Err(ApiError::Conflict {
                    message: "the game changed meanwhile; here it is as it stands".into(),
                    game: Some(json),
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Check a request against the room under its lock, commit the room
    /// `decide` returns, publish it, and let the computer answer if it is
    /// now its turn.
    ///
    /// The work runs in a task of its own: a client that gives up (and so
    /// drops this future) cannot stop it between the commit and the update
    /// of memory, which would leave the two disagreeing.
    async fn change(
        &self,
        id: &GameId,
        kind: ChangeKind,
        decide: impl FnOnce(&Room) -> Result<Room, RoomError> + Send + 'static,
    ) -> Result<Arc<str>, ApiError> {
        let handle = self.room(id).await?;
        let hub = self.clone();
        tokio::spawn(async move {
            let mut room = handle.room.lock().await;
            // 409s carry the current game so that the client can resync; a
            // join's does not need it.
            let next = decide(&room).map_err(|e| {
                let game = (kind != ChangeKind::Join).then(|| handle.current(Viewer::Player));
                ApiError::room(e, game)
            })?;
            let game = hub.commit(&handle, &mut room, next, kind).await?;
            let computer_turn = room.computer_to_move().is_some();
            drop(room);
            if computer_turn {
                hub.schedule_computer(&handle);
            }
            Ok(game)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("change failed: {e}")))?
    }

    /// Seat O for a second person.
    ///
    /// # Errors
    /// Unknown room; [`RoomError::SeatTaken`]; a store failure.
    pub async fn join(&self, id: &GameId) -> Result<Seated, ApiError> {
        let token = Token::random().map_err(|e| ApiError::Internal(e.to_string()))?;
        let hash = token.hash();
        let game = self
            .change(id, ChangeKind::Join, move |room| room.join(hash))
            .await?;
        Ok(Seated {
            game,
            seat: Player::O,
            token,
        })
    }

    /// The holder of `token` plays at (`row`, `col`).
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, a move the room refuses
    /// (409s carry the current game), a store failure.
    pub async fn play(
        &self,
        id: &GameId,
        token: Option<&str>,
        row: i64,
        col: i64,
        version: Option<u64>,
    ) -> Result<Arc<str>, ApiError> {
        let token = token.ok_or(ApiError::NoToken)?.to_owned();
        self.change(id, ChangeKind::Move, move |room| {
            let seat = room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            room.play(seat, row, col, version).map(|(next, _)| next)
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
    ) -> Result<Arc<str>, ApiError> {
        let token = token.ok_or(ApiError::NoToken)?.to_owned();
        self.change(id, ChangeKind::Rematch, move |room| {
            room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            room.rematch(version)
        })
        .await
    }

    /// Let the computer move in this room if it is its turn, in the
    /// background: the search runs on a blocking thread (at most
    /// `search_threads` at once) so it never stalls other rooms.
    fn schedule_computer(&self, handle: &Arc<RoomHandle>) {
        if handle.thinking.swap(true, Ordering::SeqCst) {
            return; // already on it
        }
        let hub = self.clone();
        let handle = handle.clone();
        tokio::spawn(async move {
            let mut retry = Duration::from_millis(100);
            loop {
                match hub.computer_move(&handle).await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        // Most likely the store is failing: try again, ever
                        // more slowly, so the game goes on once it recovers.
                        tracing::error!(error = %e, retry_ms = retry.as_millis(), "computer move failed");
                        tokio::time::sleep(retry).await;
                        retry = (retry * 2).min(Duration::from_secs(30));
                    }
                }
            }
            handle.thinking.store(false, Ordering::SeqCst);
            // A change that arrived while the flag was still set would
            // otherwise go unanswered.
            if handle.room.lock().await.computer_to_move().is_some()
                && !handle.thinking.load(Ordering::SeqCst)
            {
                hub.schedule_computer(&handle);
            }
        });
    }

    /// Run `work` on a blocking thread, so that searches never hold up the
    /// async runtime. Searches as costly as `cost`'s wait for a slot of
    /// their kind, so that at most `search_threads` of them compete for the
    /// cores: quick ones (alphabeta, hints) and deep ones (perfect play) in
    /// separate queues, so a long solve never delays a quick reply. Random
    /// and rule-based moves take microseconds and need no slot.
    async fn search<T: Send + 'static>(
        &self,
        cost: StrategyKind,
        work: impl FnOnce(&Shared) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let slots = match cost {
            StrategyKind::Random | StrategyKind::Rules | StrategyKind::Learned => None,
            StrategyKind::AlphaBeta => Some(&self.shared.searches),
            StrategyKind::Perfect => Some(&self.shared.deep_searches),
        };
        let _permit = match slots {
            Some(slots) => Some(
                slots
                    .acquire()
                    .await
                    .map_err(|_| ApiError::Internal("search pool closed".into()))?,
            ),
            None => None,
        };
        let shared = self.shared.clone();
        tokio::task::spawn_blocking(move || work(&shared))
            .await
            .map_err(|e| ApiError::Internal(format!("search failed: {e}")))?
    }

    /// Let idle pooled searches go, freeing their tables.
    pub fn expire_pools(&self) {
        self.shared.strategies.expire(POOL_IDLE);
        self.shared.solvers.expire(POOL_IDLE);
    }

    /// One computer move, if it is the computer's turn; `Ok(true)` when a
    /// move was made.
    async fn computer_move(&self, handle: &Arc<RoomHandle>) -> Result<bool, ApiError> {
        let (kind, game, version) = {
            let room = handle.room.lock().await;
            match room.computer_to_move() {
                Some(kind) => (kind, room.game().clone(), room.version()),
                None => return Ok(false),
            }
        };
        let rules = game.rules();
        let cell = self
            .search(kind, move |shared| {
                let mut strategy = match shared.strategies.take(Some(kind), rules) {
                    Some(strategy) => strategy,
                    None => {
                        let seed = u64::from_le_bytes(random_bytes());
                        kind.build(rules, seed)
                            .map_err(|e| ApiError::Internal(e.to_string()))?
                    }
                };
                let cell = strategy.choose(&game);
                shared.strategies.give(Some(kind), rules, strategy);
                Ok(cell)
            })
            .await?;
        let cell = cell.ok_or_else(|| ApiError::Internal(format!("{kind} found no move")))?;
        let mut room = handle.room.lock().await;
        if room.version() != version {
            // Changed while thinking (cannot happen while it is the
            // computer's turn, but a stale move must never be played).
            return Ok(true);
        }
        let (next, _) = room
            .play(
                Player::O,
                i64::from(cell.row),
                i64::from(cell.col),
                Some(version),
            )
            .map_err(|e| ApiError::Internal(format!("{kind} chose an illegal move: {e}")))?;
        self.commit(handle, &mut room, next, ChangeKind::Move)
            .await?;
        Ok(true)
    }

    /// Perfect-play values of every empty cell, where the position is small
    /// enough to solve quickly: `(version, Some(hints))`, or `(version,
    /// None)` when it is not. Cached per version.
    ///
    /// # Errors
    /// Unknown room.
    pub async fn hints(&self, id: &GameId) -> Result<(u64, Option<Arc<str>>), ApiError> {
        let (handle, _) = self.room_to_read(id).await?;
        let game: Game;
        let version;
        {
            let room = handle.room.lock().await;
            version = room.version();
            game = room.game().clone();
        }
        if let Some((v, json)) = &*handle.hints.lock().unwrap_or_else(PoisonError::into_inner)
            && *v == version
        {
            return Ok((version, Some(json.clone())));
        }
        let empty = game.rules().cell_count() - game.move_count();
        let small = game.rules().cell_count() <= HINT_MAX_CELLS;
        if !(small || empty <= HINT_MAX_EMPTY) || !Solver::can_solve(game.rules()) {
            return Ok((version, None));
        }
        let json = self
            .search(StrategyKind::AlphaBeta, move |shared| {
                let rules = game.rules();
                let mut solver = match shared.solvers.take(None, rules) {
                    Some(solver) => solver,
                    None => Solver::new(rules, HINT_TABLE_BYTES)
                        .map_err(|e| ApiError::Internal(e.to_string()))?,
                };
                let analysis = solver.analyse(&game);
                shared.solvers.give(None, rules, solver);
                let hints: Vec<Hint> = analysis
                    .map_err(|e| ApiError::Internal(e.to_string()))?
                    .moves
                    .iter()
                    .map(|&(cell, eval)| Hint {
                        row: cell.row,
                        col: cell.col,
                        value: eval.value.as_str(),
                        plies: eval.plies,
                    })
                    .collect();
                Ok(Arc::<str>::from(
                    serde_json::to_string(&hints).expect("hints serialise"),
                ))
            })
            .await?;
        *handle.hints.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((version, json.clone()));
        Ok((version, Some(json)))
    }
}

fn shard_of(id: &GameId) -> usize {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)
}

fn random_bytes() -> [u8; 8] {
    let mut bytes = [0; 8];
    // Only tie-breaks depend on it: a fixed seed is a fine fallback.
    let _ = getrandom::fill(&mut bytes);
    bytes
}
