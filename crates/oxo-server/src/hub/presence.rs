//! Who is at the board: each seat's live connections (WebSockets opened
//! with the seat's token), on this server and, with a shared store, on the
//! others.
//!
//! A server counts its own connections per room and seat. With a shared
//! store it announces a room's seats whenever they change here, and again
//! every [`HEARTBEAT`] while anyone is connected; what other servers
//! announce counts for [`REMOTE_FRESH`], so a server that dies takes its
//! players' presence with it within that time. A seat is present when it
//! has a connection on any server.
//!
//! While the store's change feed is down, what other servers say cannot
//! arrive: their seats are unknown, not absent. Their last word then
//! stands as it stood when the outage began: what still counted then
//! counts until the feed is back (so players are not told that an
//! opponent on another server left), what had stopped counting stays so
//! (a dead server's word is not brought back), and a claim against a seat
//! with no connection here is refused ([`RoomError::OutOfTouch`]). Once
//! the feed is back, the outage does not age their word: each counts for
//! what was left of its [`REMOTE_FRESH`] when the outage began, so a
//! flapping feed does not keep a dead server's word alive. An absence
//! then counts toward a claim only from a [`HEARTBEAT`] after the feed came
//! back, by when the others have repeated what holds.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use oxo_core::Player;

use super::{Hub, RoomHandle};
use crate::id::GameId;
use crate::room::{RoomError, RoundStatus, Viewer};

/// How often a server repeats the presence it holds...
pub(super) const HEARTBEAT: Duration = Duration::from_secs(10);
/// ...and how long another server's word counts without being repeated.
pub(super) const REMOTE_FRESH: Duration = Duration::from_secs(25);

/// Each seat's presence, X's first.
pub type Seats = [bool; 2];

/// What other servers said of each room: per server, its seats and when.
pub(super) type Remote = HashMap<GameId, HashMap<String, (Seats, Instant)>>;

/// Presence across outages of the store's change feed.
#[derive(Debug, Default)]
pub(super) struct Outage {
    /// When the current outage began (`None`: the feed is up).
    since: Option<Instant>,
    /// When absences start to count toward a claim, after the last outage.
    absence_counts_from: Option<Instant>,
}

/// Whether another server's word on presence, said at `at`, counts when
/// judged at `judged_at` (see [`Hub::presence_judged_at`]).
fn still_counts(at: Instant, judged_at: Instant) -> bool {
    judged_at.saturating_duration_since(at) < REMOTE_FRESH
}

/// A live connection of a seat, counted until dropped.
#[derive(Debug)]
pub struct Attendance {
    hub: Hub,
    handle: Arc<RoomHandle>,
    seat: Player,
}

impl Drop for Attendance {
    fn drop(&mut self) {
        self.handle.local[self.seat.index()].fetch_sub(1, Ordering::SeqCst);
        self.hub.refresh_presence(&self.handle, true);
        if self.seat == Player::X {
            self.hub.creator_here(&self.handle);
        }
    }
}

impl Hub {
    /// Count a connection of `seat` in the room behind `handle` until the
    /// returned guard is dropped.
    #[must_use]
    pub fn attend(&self, handle: &Arc<RoomHandle>, seat: Player) -> Attendance {
        if seat == Player::X {
            self.saw_creator(&handle.id);
            self.creator_here(handle);
        }
        handle.local[seat.index()].fetch_add(1, Ordering::SeqCst);
        self.refresh_presence(handle, true);
        Attendance {
            hub: self.clone(),
            handle: Arc::clone(handle),
            seat,
        }
    }

    /// The seat `token` holds in the room behind `handle`, if any.
    pub async fn seat_in(&self, handle: &RoomHandle, token: &str) -> Option<Player> {
        handle.room.lock().await.seat_of(token)
    }

    /// This server's connections to the room, per seat.
    fn local_seats(handle: &RoomHandle) -> Seats {
        [0, 1].map(|i| handle.local[i].load(Ordering::SeqCst) > 0)
    }

    /// Publish the room's presence if it changed; `announce` also tells the
    /// other servers when this server's part changed.
    pub(super) fn refresh_presence(&self, handle: &Arc<RoomHandle>, announce: bool) {
        let local = Self::local_seats(handle);
        let remote = self.remote_seats(&handle.id);
        let seats = [local[0] || remote[0], local[1] || remote[1]];
        {
            let mut lost = handle.lost.lock().unwrap_or_else(PoisonError::into_inner);
            for (since, present) in lost.iter_mut().zip(seats) {
                if present {
                    *since = None;
                } else if since.is_none() {
                    *since = Some(Instant::now());
                }
            }
        }
        handle.presence.send_if_modified(|shown| {
            let changed = *shown != seats;
            *shown = seats;
            changed
        });
        let mut told = handle.told.lock().unwrap_or_else(PoisonError::into_inner);
        if announce && self.shared.shared_store && *told != local {
            *told = local;
            self.announce(&handle.id, local);
        }
    }

    /// The rooms where some seat is present, on this server or (as they
    /// said lately) another.
    pub(super) fn present_rooms(&self) -> Vec<GameId> {
        let mut rooms: std::collections::HashSet<GameId> = self
            .held_rooms()
            .into_iter()
            .filter(|handle| Self::local_seats(handle) != [false; 2])
            .map(|handle| handle.id.clone())
            .collect();
        let judged_at = self.presence_judged_at(Instant::now());
        let remote = self
            .shared
            .remote
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (id, nodes) in remote.iter() {
            let here = nodes
                .values()
                .any(|(seats, at)| still_counts(*at, judged_at) && seats != &[false; 2]);
            if here {
                rooms.insert(id.clone());
            }
        }
        rooms.into_iter().collect()
    }

    /// What the other servers said of room `id`'s seats and still counts.
    fn remote_seats(&self, id: &GameId) -> Seats {
        self.remote_seats_at(id, Instant::now())
    }

    /// What the other servers said of room `id`'s seats and still counts
    /// at `now`.
    pub(super) fn remote_seats_at(&self, id: &GameId, now: Instant) -> Seats {
        let judged_at = self.presence_judged_at(now);
        self.shared
            .remote
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .map(|nodes| {
                nodes
                    .values()
                    .filter(|(_, at)| still_counts(*at, judged_at))
                    .fold([false; 2], |acc, (seats, _)| {
                        [acc[0] || seats[0], acc[1] || seats[1]]
                    })
            })
            .unwrap_or_default()
    }

    /// The instant as of which the other servers' word on presence is
    /// judged at `now`: `now` while the feed is up; while it is down, when
    /// the outage began (see the module docs).
    fn presence_judged_at(&self, now: Instant) -> Instant {
        if self.shared.fresh.load(Ordering::SeqCst) {
            return now;
        }
        self.outage().since.unwrap_or(now)
    }

    fn outage(&self) -> std::sync::MutexGuard<'_, Outage> {
        self.shared
            .outage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The store's feed was found down at `now` (see the module docs);
    /// call before memory is marked not fresh.
    pub(super) fn presence_lost(&self, now: Instant) {
        self.outage().since.get_or_insert(now);
    }

    /// The store's feed is back after an outage, at `now`: each word the
    /// other servers said before the outage is moved on by its length, so
    /// the outage does not age it; and absences count toward a claim only
    /// from a [`HEARTBEAT`] from now, when the others will have repeated
    /// what holds: a seat that came back on another server meanwhile could
    /// not be heard of. Call before memory is marked fresh.
    pub(super) fn presence_regained(&self, now: Instant) {
        let since = {
            let mut outage = self.outage();
            outage.absence_counts_from = Some(now + HEARTBEAT);
            outage.since.take()
        };
        let Some(since) = since else {
            return;
        };
        let length = now.saturating_duration_since(since);
        for nodes in self
            .shared
            .remote
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values_mut()
        {
            // Words heard since the outage began (as the feed came back)
            // are new, and left as they are.
            for (_, at) in nodes.values_mut() {
                if *at < since {
                    *at += length;
                }
            }
        }
    }

    /// Since when `seat` has been gone this turn in the room behind
    /// `handle` (`None`: it is connected), and from when its absence
    /// counts toward a claim if later (after an outage of the feed), for a
    /// claim against it.
    ///
    /// # Errors
    /// [`RoomError::OutOfTouch`] while the store's feed is down and the
    /// seat has no connection here: it may have one on another server,
    /// which this server cannot hear of.
    pub(super) fn claim_absence(
        &self,
        handle: &RoomHandle,
        seat: Player,
    ) -> Result<(Option<Instant>, Option<Instant>), RoomError> {
        let here = Self::local_seats(handle)[seat.index()];
        if self.shared.shared_store && !here && !self.shared.fresh.load(Ordering::SeqCst) {
            return Err(RoomError::OutOfTouch(seat));
        }
        let counts_from = self.outage().absence_counts_from;
        Ok((handle.gone_since()[seat.index()], counts_from))
    }

    /// Seat X of the room behind `handle` connected or left here: an open
    /// correspondence game's time in the lobby with its creator away counts
    /// from now, in the store, so that every server (and a restart) reads
    /// it (see `lobby.rs`). Other rooms write nothing.
    fn creator_here(&self, handle: &RoomHandle) {
        let game = handle.current(Viewer::Player);
        let view = game.value();
        let correspondence = view.clock.as_ref().is_some_and(|c| c.days.is_some());
        if !(view.listed && view.status == RoundStatus::Waiting && correspondence) {
            return;
        }
        // As for `announce`: no runtime, nobody to tell.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let seen = self.shared.store.seen(&handle.id);
        let id = handle.id.clone();
        runtime.spawn(async move {
            if let Err(e) = seen.await {
                tracing::warn!(game = %id.for_log(), error = %e, "an open game's creator not noted");
            }
        });
    }

    /// Note that seat X of room `id` is connected (on any server): its open
    /// game's grace in the lobby is over (see `lobby.rs`).
    fn saw_creator(&self, id: &GameId) {
        /// Entries kept before the stale ones are let go here too (the
        /// lobby lets them go whenever it is read).
        const KEPT: usize = 4096;
        let grace = self.shared.seek_grace;
        let mut seen = self
            .shared
            .creators_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = self.shared.time.now();
        if seen.len() >= KEPT {
            seen.retain(|_, at| now.saturating_sub(*at) < grace_ms(grace));
        }
        seen.entry(id.clone()).or_insert(now);
    }

    /// Whether seat X of room `id` has been seen connected lately.
    pub(super) fn creator_seen(&self, id: &GameId) -> bool {
        self.shared
            .creators_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }

    /// Forget the creators seen longer ago than the lobby's grace: past it,
    /// whether they were seen no longer matters.
    pub(super) fn forget_creators_seen(&self) {
        let grace = grace_ms(self.shared.seek_grace);
        let now = self.shared.time.now();
        self.shared
            .creators_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, at| now.saturating_sub(*at) < grace);
    }

    /// Each seat's presence in room `id` on any server, whether or not
    /// this server holds the room in memory.
    pub(super) fn present(&self, id: &GameId) -> Seats {
        let held = self.shard(id).get(id).cloned();
        let local = held.map_or([false; 2], |handle| Self::local_seats(&handle));
        let remote = self.remote_seats(id);
        [local[0] || remote[0], local[1] || remote[1]]
    }

    /// Tell the other servers this server's part of a room's presence.
    fn announce(&self, id: &GameId, seats: Seats) {
        // A connection dropped as the runtime shuts down has no one to
        // tell, and no runtime to tell them from.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let sent = self.shared.store.announce(id, seats);
        let id = id.clone();
        runtime.spawn(async move {
            if let Err(e) = sent.await {
                tracing::debug!(game = %id.for_log(), error = %e, "presence not announced");
            }
        });
    }

    /// Another server's part of a room's presence.
    pub(super) fn remote_presence(&self, id: GameId, node: String, seats: Seats) {
        {
            let mut remote = self
                .shared
                .remote
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let nodes = remote.entry(id.clone()).or_default();
            if seats == [false; 2] {
                nodes.remove(&node);
                if nodes.is_empty() {
                    remote.remove(&id);
                }
            } else {
                nodes.insert(node, (seats, Instant::now()));
            }
        }
        if seats[Player::X.index()] {
            self.saw_creator(&id);
        }
        let held = self.shard(&id).get(&id).cloned();
        if let Some(handle) = held {
            self.refresh_presence(&handle, false);
        }
    }

    /// Forget what other servers said that no longer counts at `now`
    /// (judged as of when the feed went down, while it is down: see the
    /// module docs), and publish the presence of the rooms held that it
    /// changes.
    pub(super) fn forget_stale_presence(&self, now: Instant) {
        let judged_at = self.presence_judged_at(now);
        let stale: Vec<GameId> = {
            let mut remote = self
                .shared
                .remote
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let mut stale = Vec::new();
            remote.retain(|id, nodes| {
                let before = nodes.len();
                nodes.retain(|_, (_, at)| still_counts(*at, judged_at));
                if nodes.len() != before {
                    stale.push(id.clone());
                }
                !nodes.is_empty()
            });
            stale
        };
        for id in stale {
            let held = self.shard(&id).get(&id).cloned();
            if let Some(handle) = held {
                self.refresh_presence(&handle, false);
            }
        }
    }

    /// With a shared store, for as long as the hub lives: repeat this
    /// server's presence every 10 s (`HEARTBEAT`), and forget what other servers
    /// said and did not repeat. Call once, on the runtime.
    pub fn keep_presence(&self) {
        if !self.shared.shared_store {
            return;
        }
        let weak = Arc::downgrade(&self.shared);
        let idle_after = self.idle_after;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(HEARTBEAT);
            loop {
                tick.tick().await;
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                let hub = Hub { shared, idle_after };
                for handle in hub.held_rooms() {
                    let local = Self::local_seats(&handle);
                    if local != [false; 2] {
                        hub.announce(&handle.id, local);
                    }
                }
                hub.forget_stale_presence(Instant::now());
            }
        });
    }
}

/// `grace` in milliseconds, as the hub's time counts.
fn grace_ms(grace: Duration) -> u64 {
    u64::try_from(grace.as_millis()).unwrap_or(u64::MAX)
}
