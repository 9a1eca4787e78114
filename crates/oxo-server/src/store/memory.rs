//! A store in memory: nothing survives the process. For tests and as the
//! benchmark's no-durability baseline.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{Change, ChangeKind, Store, StoreError, StoreFuture};
use crate::id::GameId;
use crate::room::{Ending, RoomRecord};
use crate::time::TimeSource;

/// A room's rounds that ended other than on the board, by number.
type Endings = Vec<(u32, Ending)>;

/// Rooms in a map; cheap to clone (clones share the map).
#[derive(Clone, Debug)]
pub struct MemoryStore {
    rooms: Arc<Mutex<HashMap<GameId, (RoomRecord, bool)>>>,
    /// Each timed room's deadline ([`super::Change::deadline`]), while it
    /// has one.
    deadlines: Arc<Mutex<HashMap<GameId, u64>>>,
    /// Every round's moves, per room.
    rounds: Arc<Mutex<HashMap<GameId, Vec<Vec<oxo_core::Cell>>>>>,
    /// The rounds that ended other than on the board, per room.
    endings: Arc<Mutex<HashMap<GameId, Endings>>>,
    /// When each room last changed, in milliseconds (as `time` reads).
    updated: Arc<Mutex<HashMap<GameId, u64>>>,
    /// Commits that may still succeed; negative for no limit.
    allowed: Arc<AtomicI64>,
    /// Commits still to be saved and then answered as lost (outcome
    /// unknown).
    answers_lost: Arc<AtomicI64>,
    /// While true, commits wait (they are saved once it is false again).
    held: Arc<tokio::sync::watch::Sender<bool>>,
    /// The time each change is stamped with.
    time: TimeSource,
}

impl MemoryStore {
    /// An empty store on the system's clock.
    #[must_use]
    pub fn new() -> MemoryStore {
        MemoryStore::with_time(TimeSource::system())
    }

    /// An empty store that stamps each change with `time` (the hub's, so
    /// that a test moving a [`ManualTime`](crate::ManualTime) moves both).
    #[must_use]
    pub fn with_time(time: TimeSource) -> MemoryStore {
        MemoryStore {
            rooms: Arc::default(),
            rounds: Arc::default(),
            endings: Arc::default(),
            deadlines: Arc::default(),
            updated: Arc::default(),
            allowed: Arc::new(AtomicI64::new(-1)),
            answers_lost: Arc::new(AtomicI64::new(0)),
            held: Arc::new(tokio::sync::watch::Sender::new(false)),
            time,
        }
    }

    /// Make every later commit fail (or succeed again), to test that a
    /// failed write leaves the game as it was.
    pub fn set_failing(&self, failing: bool) {
        self.allowed
            .store(if failing { 0 } else { -1 }, Ordering::SeqCst);
    }

    /// Save the next `n` commits but answer each as lost
    /// ([`StoreError::Unknown`]), as a database whose connection fails
    /// after committing does.
    pub fn lose_answers(&self, n: u32) {
        self.answers_lost.store(i64::from(n), Ordering::SeqCst);
    }

    /// Let `n` more commits succeed, then fail every one after them.
    pub fn fail_after(&self, n: u32) {
        self.allowed.store(i64::from(n), Ordering::SeqCst);
    }

    /// Make every later commit wait (`true`) until let go (`false`), as
    /// a database that stalls does; the commits waiting are then saved.
    pub fn hold_commits(&self, held: bool) {
        self.held.send_replace(held);
    }

    /// The saved state of a room.
    #[must_use]
    pub fn get(&self, id: &GameId) -> Option<RoomRecord> {
        self.lock().get(id).map(|(room, _)| room.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, (RoomRecord, bool)>> {
        // A panic while holding the lock cannot leave a half-written record
        // (inserts are single calls), so a poisoned map is still sound.
        self.rooms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// Save `change` now (or fail, as the test controls ask).
    fn commit_now(&self, change: Change) -> Result<(), StoreError> {
        let allowed = self
            .allowed
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n > 0).then(|| n - 1)
            })
            .map_or_else(|n| n, |_| 1);
        let result = if allowed == 0 {
            Err(StoreError::Closed)
        } else {
            {
                let mut rounds = self
                    .rounds
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let rounds = rounds.entry(change.room.id.clone()).or_default();
                let at = usize::try_from(change.room.round.max(1) - 1).unwrap_or(0);
                if rounds.len() <= at {
                    rounds.resize(at + 1, Vec::new());
                }
                rounds[at].clone_from(&change.room.moves);
            }
            if let (ChangeKind::End, Some(ending)) = (change.kind, change.room.ending) {
                self.endings
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .entry(change.room.id.clone())
                    .or_default()
                    .push((change.room.round, ending));
            }
            {
                let mut deadlines = self
                    .deadlines
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match change.deadline {
                    Some(deadline) => deadlines.insert(change.room.id.clone(), deadline),
                    None => deadlines.remove(&change.room.id),
                };
            }
            self.updated
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(change.room.id.clone(), self.time.now());
            self.lock()
                .insert(change.room.id.clone(), (change.room, change.computer_turn));
            Ok(())
        };
        let lost = result.is_ok()
            && self
                .answers_lost
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    (n > 0).then(|| n - 1)
                })
                .is_ok();
        if lost {
            Err(StoreError::Unknown(
                "the answer was lost (a test's fault)".into(),
            ))
        } else {
            result
        }
    }
}

impl Store for MemoryStore {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        if *self.held.borrow() {
            let store = self.clone();
            let mut held = self.held.subscribe();
            return Box::pin(async move {
                // The sender lives as long as the store does.
                let _ = held.wait_for(|held| !*held).await;
                store.commit_now(change)
            });
        }
        Box::pin(std::future::ready(self.commit_now(change)))
    }

    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>> {
        Box::pin(std::future::ready(Ok(self.get(id))))
    }

    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>> {
        // A scan: this store serves tests and benchmarks, not many rooms.
        let room = self
            .lock()
            .values()
            .find(|(room, _)| room.watch == *watch)
            .map(|(room, _)| room.clone());
        Box::pin(std::future::ready(Ok(room)))
    }

    fn lobby(&self, present: &[GameId]) -> StoreFuture<super::LobbyRows> {
        let now = self.time.now();
        let updated = self
            .updated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let rooms: Vec<(u64, super::Listing)> = self
            .lock()
            .values()
            .filter_map(|(room, _)| {
                let entry = room.entry.clone()?;
                let seated =
                    room.o_token.is_some() || room.opponent != crate::room::Opponent::Human;
                // A cancelled open game is listed no more.
                if !seated && room.ending.is_some() {
                    return None;
                }
                let at = updated.get(&room.id).copied().unwrap_or(now);
                let listing = super::Listing {
                    id: room.id.clone(),
                    entry,
                    watch: room.watch.clone(),
                    rules: room.rules,
                    opponent: room.opponent,
                    first: room.first,
                    round: room.round,
                    score: room.score,
                    seated,
                    idle: now.saturating_sub(at) / 1000,
                    names: room.names.clone(),
                    clock: room.clock.map(|clock| clock.control()),
                };
                Some((at, listing))
            })
            .collect();
        let mut also: Vec<(u64, super::Listing)> = rooms
            .iter()
            .filter(|(_, listing)| present.contains(&listing.id))
            .cloned()
            .collect();
        also.sort_by_key(|&(at, _)| std::cmp::Reverse(at));
        also.truncate(super::PRESENT_ROWS);
        let (mut open, mut seated): (Vec<_>, Vec<_>) =
            rooms.into_iter().partition(|(_, listing)| !listing.seated);
        let horizon = super::LOBBY_HORIZON.as_secs();
        seated.retain(|(_, listing)| listing.idle < horizon);
        for (part, rows) in [
            (&mut open, super::OPEN_ROWS),
            (&mut seated, super::LOBBY_ROWS),
        ] {
            part.sort_by_key(|&(at, _)| std::cmp::Reverse(at));
            part.truncate(rows);
        }
        let listed = open
            .into_iter()
            .chain(seated)
            .chain(also)
            .map(|(_, listing)| Ok(listing))
            .collect();
        Box::pin(std::future::ready(Ok(listed)))
    }

    fn seen(&self, id: &GameId) -> StoreFuture<()> {
        let open = self.lock().get(id).is_some_and(|(room, _)| {
            room.entry.is_some()
                && room.o_token.is_none()
                && room.opponent == crate::room::Opponent::Human
                && room.ending.is_none()
        });
        if open {
            self.updated
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(id.clone(), self.time.now());
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>> {
        let id = self
            .lock()
            .values()
            .find(|(room, _)| room.entry.as_ref() == Some(entry))
            .map(|(room, _)| room.id.clone());
        Box::pin(std::future::ready(Ok(id)))
    }

    fn computer_turns(&self) -> StoreFuture<Vec<GameId>> {
        let ids = self
            .lock()
            .iter()
            .filter(|(_, (_, computer_turn))| *computer_turn)
            .map(|(id, _)| id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn due(&self, now: u64) -> StoreFuture<Vec<GameId>> {
        let ids = self
            .deadlines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|&(_, &deadline)| deadline <= now)
            .map(|(id, _)| id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<oxo_core::Cell>>> {
        let rounds = self
            .rounds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(rounds)))
    }

    fn endings(&self, id: &GameId) -> StoreFuture<Vec<(u32, Ending)>> {
        let endings = self
            .endings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(endings)))
    }

    fn prune(&self, older_than: Duration, keep: HashSet<GameId>) -> StoreFuture<usize> {
        use std::sync::PoisonError;
        let older_than = u64::try_from(older_than.as_millis()).unwrap_or(u64::MAX);
        let before = self.time.now().saturating_sub(older_than);
        let mut rooms = self.lock();
        let mut updated = self.updated.lock().unwrap_or_else(PoisonError::into_inner);
        let deadlines = self
            .deadlines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let gone: Vec<GameId> = rooms
            .iter()
            .filter(|&(id, (room, computer_turn))| {
                !keep.contains(id)
                    && updated.get(id).is_some_and(|&at| at < before)
                    && super::never_played(room, *computer_turn, deadlines.contains_key(id))
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in &gone {
            rooms.remove(id);
            updated.remove(id);
            let mut rounds = self.rounds.lock().unwrap_or_else(PoisonError::into_inner);
            rounds.remove(id);
            drop(rounds);
            let mut endings = self.endings.lock().unwrap_or_else(PoisonError::into_inner);
            endings.remove(id);
        }
        Box::pin(std::future::ready(Ok(gone.len())))
    }

    fn ping(&self) -> StoreFuture<()> {
        Box::pin(std::future::ready(Ok(())))
    }
}
