//! The rooms in memory: the maps from ids and watch ids to live rooms,
//! split into shards; a room loaded from the store on first use; and
//! eviction of the rooms nobody uses.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard, PoisonError};
use std::time::Duration;

use super::{Hub, HubError, RoomHandle};
use crate::id::GameId;
use crate::room::{Room, RoomRecord, Viewer};

/// How often a server looks for games never played to delete.
const PRUNE_SWEEP: Duration = Duration::from_secs(60 * 60);

/// Shards of the id → room map.
pub(super) const SHARDS: usize = 64;

/// A room read from the store, checked: the one step between loading a
/// record and installing it in memory.
pub(super) fn restore(id: &GameId, record: Option<RoomRecord>) -> Result<Room, HubError> {
    let record = record.ok_or_else(|| HubError::NotFound(id.to_string()))?;
    Room::restore(record).map_err(HubError::Corrupt)
}

impl Hub {
    pub(super) fn shard(&self, id: &GameId) -> MutexGuard<'_, HashMap<GameId, Arc<RoomHandle>>> {
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
    pub(super) fn install(&self, room: Room) -> Arc<RoomHandle> {
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
                    || super::within(now, handle.touched.load(Ordering::Relaxed), idle);
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

    /// Delete from the store the games never played that nobody has
    /// changed for [`HubConfig::prune_after`](super::HubConfig::prune_after)
    /// (none when it is `None`), but for the rooms held in memory, which
    /// someone may be looking at; how many went. A link to one then finds
    /// no game.
    ///
    /// # Errors
    /// The store failed; what it deleted before stays deleted.
    pub async fn prune_unplayed(&self) -> Result<usize, HubError> {
        let Some(after) = self.shared.prune_after else {
            return Ok(0);
        };
        let keep = self
            .shared
            .shards
            .iter()
            .flat_map(|shard| {
                let rooms = shard.lock().unwrap_or_else(PoisonError::into_inner);
                rooms.keys().cloned().collect::<Vec<_>>()
            })
            .collect();
        Ok(self.shared.store.prune(after, keep).await?)
    }

    /// How often the server prunes games never played (`None`: never).
    #[must_use]
    pub fn prunes(&self) -> Option<Duration> {
        self.shared.prune_after.map(|_| PRUNE_SWEEP)
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
}

fn shard_of(id: &GameId) -> usize {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)
}
