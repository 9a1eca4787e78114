//! Several servers on one shared store: keeping memory fresh and taking
//! up computer turns that nobody is on.
//!
//! A server holds the rooms it serves in memory; with a shared store
//! ([`Store::shared`](crate::store::Store::shared)) other servers change
//! them too. Memory is kept fresh three ways:
//!
//! - every change any server commits is announced by the store; a server
//!   holding that room at an older version rereads it and publishes it to
//!   its players and spectators ([`Hub::follow_store`]);
//! - while the store's feed is interrupted (closed, or silent: the store
//!   checks it every few seconds), every request rereads its room first,
//!   claims against seats that may be on other servers are refused, and
//!   when the feed is back every room held is reread;
//! - a change decided on a stale room is caught by the store's version
//!   guard and decided again on the stored state (`Hub::change`).
//!
//! The computer's turns are claimed in the store, so each move is searched
//! by one server; every few seconds each server asks the store for turns
//! whose claim has lapsed (a server died mid-search) and takes them up.

use oxo_core::Coords;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::rooms::restore;
use super::{Hub, HubError, RoomHandle};
use crate::id::GameId;
use crate::room::Room;
use crate::store::StoreEvent;

/// How long a claim on a computer turn lasts unless renewed...
pub(super) const LEASE: Duration = Duration::from_secs(5);
/// ...and how often a server renews it while its search runs.
pub(super) const RENEW_EVERY: Duration = Duration::from_millis(1500);
/// How often each server looks for computer turns nobody is on.
pub const ORPHAN_SWEEP: Duration = Duration::from_secs(2);

impl Hub {
    /// Every room held in memory.
    pub(super) fn held_rooms(&self) -> Vec<Arc<RoomHandle>> {
        self.shared
            .shards
            .iter()
            .flat_map(|shard| {
                shard
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .values()
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Whether other servers may change this hub's rooms.
    #[must_use]
    pub fn store_is_shared(&self) -> bool {
        self.shared.shared_store
    }

    /// Whether the store answers (for readiness checks).
    ///
    /// # Errors
    /// The store's failure.
    pub async fn ping(&self) -> Result<(), crate::store::StoreError> {
        self.shared.store.ping().await
    }

    /// Whether this server hears the other servers sharing its store: false
    /// while the store's change feed is down (and until the rooms held have
    /// been read again after it), when their changes and presence cannot
    /// reach it. Always true for an unshared store.
    #[must_use]
    pub fn in_touch(&self) -> bool {
        !self.shared.shared_store || self.shared.fresh.load(Ordering::SeqCst)
    }

    /// Follow the store's announcements of changes, if it is shared, for as
    /// long as the hub lives; call once, on the runtime.
    pub fn follow_store(&self) {
        let Some(mut events) = self.shared.store.follow() else {
            return;
        };
        // The follower holds only a weak reference: it ends with the hub.
        let weak = Arc::downgrade(&self.shared);
        let idle_after = self.idle_after;
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                let hub = Hub { shared, idle_after };
                match event {
                    StoreEvent::Changed {
                        id,
                        version,
                        own,
                        played,
                        key,
                    } => {
                        hub.shared.notices.fetch_add(1, Ordering::SeqCst);
                        if own {
                            // Published by this server as it committed.
                            continue;
                        }
                        let held = hub.shard(&id).get(&id).cloned();
                        if let Some(handle) = held
                            && handle.version.load(Ordering::SeqCst) < version
                        {
                            tokio::spawn(async move {
                                if let Err(e) = hub.catch_up(&handle, version, played, key).await {
                                    tracing::warn!(game = %id.for_log(), error = %e, "cannot reread a changed game");
                                }
                            });
                        }
                    }
                    StoreEvent::Interrupted => {
                        hub.presence_lost(Instant::now());
                        hub.shared.fresh.store(false, Ordering::SeqCst);
                    }
                    StoreEvent::Presence { id, node, seats } => {
                        hub.remote_presence(id, node, seats);
                    }
                    StoreEvent::Resync => {
                        let held = hub.held_rooms();
                        tracing::info!(
                            rooms = held.len(),
                            "change feed back; rereading the rooms held"
                        );
                        for handle in held {
                            if let Err(e) = hub.reread(&handle).await {
                                tracing::warn!(error = %e, "cannot reread a game after the feed came back");
                            }
                        }
                        hub.presence_regained(Instant::now());
                        hub.shared.fresh.store(true, Ordering::SeqCst);
                    }
                }
            }
        });
    }

    /// Bring the room to `version`, announced by another server: by playing
    /// the announced move when memory holds the version just before it (the
    /// same move on the same untimed room, with the newest idempotency key
    /// the notice names, gives the same room), else by reading the room
    /// again.
    async fn catch_up(
        &self,
        handle: &Arc<RoomHandle>,
        version: u64,
        played: Option<oxo_core::Cell>,
        key: Option<crate::room::Keyed>,
    ) -> Result<(), HubError> {
        let mut room = handle.room.lock().await;
        if room.version() >= version {
            return Ok(());
        }
        // A timed room's clock depends on when the other server took the
        // move, which the notice does not say: read it.
        if let Some(cell) = played
            && room.clock().is_none()
            && room.version() + 1 == version
            && let oxo_core::Status::InProgress { to_move } = room.game().status()
            && let Ok((next, _)) = room.play(to_move, Coords::from(cell), Some(room.version()))
            && next.version() == version
        {
            // The key the stored room has newest, if this one lacks it.
            *room = match key {
                Some(keyed) if !next.knows(keyed.seat, &keyed.key) => next.remember(keyed),
                _ => next,
            };
            handle.publish(&room);
            // The server that made the change answers for the computer (or,
            // if it dies, the sweep finds the turn).
            return Ok(());
        }
        self.reread_locked(handle, &mut room).await.map(drop)
    }

    /// Read the room again from the store, and make memory and everyone
    /// watching follow if it has moved on.
    pub(super) async fn reread(&self, handle: &Arc<RoomHandle>) -> Result<(), HubError> {
        let mut room = handle.room.lock().await;
        self.reread_locked(handle, &mut room).await.map(drop)
    }

    /// [`Hub::reread`] with the room's lock held by the caller: `true` when
    /// the stored room differed from memory (which now holds it), even at
    /// the same version.
    pub(super) async fn reread_locked(
        &self,
        handle: &Arc<RoomHandle>,
        room: &mut Room,
    ) -> Result<bool, HubError> {
        let id = room.id().clone();
        let stored = restore(&id, self.shared.store.load(&id).await?)?;
        // The whole record, not only the version: a move learnt from
        // another server's notice is played here without the idempotency
        // key it was sent with, which the stored room keeps.
        if stored.record() == room.record() {
            return Ok(false);
        }
        *room = stored;
        handle.publish(room);
        // With a shared store, the server that made the change answers for
        // the computer (or, if it dies, the sweep finds the turn); with one
        // server, memory was behind by a bug, and the computer answers here.
        if room.computer_to_move().is_some() && !self.shared.shared_store {
            self.schedule_computer(handle);
        }
        Ok(true)
    }

    /// With a shared store, make sure memory holds the room's latest
    /// committed state before it is read: one look at the stored version,
    /// and a reread when another server has moved the room on and its
    /// notice has not arrived yet. So a reader never sees a state older
    /// than a change already acknowledged to anyone.
    pub(super) async fn sync(&self, handle: &Arc<RoomHandle>) -> Result<(), HubError> {
        if !self.shared.shared_store {
            return Ok(());
        }
        let stored = self.shared.store.version(&handle.id).await?;
        if stored.is_some_and(|v| v > handle.version.load(Ordering::SeqCst)) {
            self.reread(handle).await?;
        }
        Ok(())
    }

    /// After installing a room loaded while notices were arriving, read it
    /// again in case one of them was about this room (it would have found
    /// the room not yet in memory and been dropped).
    pub(super) async fn settle(&self, handle: &Arc<RoomHandle>, seen: u64) -> Result<(), HubError> {
        if self.shared.shared_store && self.shared.notices.load(Ordering::SeqCst) != seen {
            self.reread(handle).await?;
        }
        Ok(())
    }

    /// The room with this id, read again from a shared store when it was
    /// already in memory.
    pub(super) async fn fresh_room(&self, id: &GameId) -> Result<Arc<RoomHandle>, HubError> {
        let held = self.shard(id).get(id).cloned();
        match held {
            Some(handle) if self.shared.shared_store => {
                self.reread(&handle).await?;
                Ok(handle)
            }
            _ => self.room(id).await,
        }
    }
}
