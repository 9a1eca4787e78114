//! Timed rooms: the round of a seat that runs out of time is ruled lost,
//! and a round whose seat to move lets the time for its first move pass is
//! called off, once, whoever is connected.
//!
//! Each change stores the deadline of the seat to move (an indexed column),
//! so a flag is found three ways, all ending in the same ruling committed
//! under the store's version guard:
//!
//! - every server sweeps the store for rooms past their deadline every
//!   [`HubConfig::flag_sweep`](super::HubConfig::flag_sweep)
//!   ([`Hub::rule_flags`]), so a round ends with nobody connected, after a
//!   restart, and when the server that held the room has died;
//! - a change that reaches a room past its deadline rules the flag first
//!   and is then decided on the ended round (a late move is refused with
//!   it), see `Hub::change`;
//! - a read of such a room rules it too, so a page whose clock shows zero
//!   sees the ruling as soon as it asks.
//!
//! When two servers rule the same flag, the second commit is refused as
//! stale; that server reads the room again and finds the round already
//! ended: exactly one ruling.

use std::sync::Arc;

use super::{Hub, HubError, RoomHandle, Snapshot};
use crate::room::{Reason, Room, Viewer};
use crate::store::ChangeKind;

use super::view::Published;

impl Hub {
    /// Now, in milliseconds since the Unix epoch, as the hub's clocks read
    /// it.
    #[must_use]
    pub fn now_ms(&self) -> u64 {
        self.shared.time.now()
    }

    /// How often [`Hub::rule_flags`] should run.
    #[must_use]
    pub fn flag_sweep(&self) -> std::time::Duration {
        self.shared.flag_sweep
    }

    /// The latest GAME as `viewer` sees it, its running clock measured now
    /// rather than when the room last changed: what a reader that was not
    /// watching the room is sent first.
    #[must_use]
    pub fn current_now(&self, handle: &RoomHandle, viewer: Viewer) -> Snapshot {
        let game = handle.current(viewer);
        match game.value().clock.and_then(|c| c.as_of(self.now_ms())) {
            Some(clock) => {
                let mut view = game.value().clone();
                view.clock = Some(clock);
                Published::new(view)
            }
            None => game,
        }
    }

    /// Rule every timed room whose seat to move has run out of time (or of
    /// the time for its first move: the round is called off), wherever it
    /// is held: the store says which; returns how many this server ruled.
    ///
    /// # Errors
    /// The store could not list them. A room that cannot be ruled now is
    /// logged and left for the next sweep.
    pub async fn rule_flags(&self) -> Result<usize, HubError> {
        let now = self.now_ms();
        let due = self.shared.store.due(now).await?;
        let mut ruled = 0;
        for id in due {
            let handle = match self.fresh_room(&id).await {
                Ok(handle) => handle,
                Err(e) => {
                    tracing::warn!(game = %id.for_log(), error = %e, "cannot read a game out of time");
                    continue;
                }
            };
            match self.rule_if_due(&handle).await {
                Ok(true) => ruled += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(game = %id.for_log(), error = %e, "cannot rule a game out of time");
                }
            }
        }
        Ok(ruled)
    }

    /// Rule the room if its seat to move has run out of time, or of the
    /// time for its first move: `true` when this server committed the
    /// ruling.
    ///
    /// # Errors
    /// The store failed (nothing changed).
    pub(super) async fn rule_if_due(&self, handle: &Arc<RoomHandle>) -> Result<bool, HubError> {
        // A glance at the published room first: most reads need no lock.
        let now = self.now_ms();
        let due = handle
            .current(Viewer::Player)
            .value()
            .clock
            .and_then(|c| c.deadline.or(c.first_move_deadline))
            .is_some_and(|deadline| deadline <= now);
        if !due {
            return Ok(false);
        }
        let mut room = handle.room.lock().await;
        self.rule_locked(handle, &mut room, now).await
    }

    /// [`Hub::rule_if_due`] with the room's lock held: `true` when this
    /// server committed the ruling; `false` when none was due, or another
    /// server's change got in first (memory then holds it).
    pub(super) async fn rule_locked(
        &self,
        handle: &Arc<RoomHandle>,
        room: &mut Room,
        now: u64,
    ) -> Result<bool, HubError> {
        let Some(ruled) = room.rule_flag(now) else {
            return Ok(false);
        };
        match self.commit(handle, room, ruled, ChangeKind::End).await {
            Ok(_) => {
                let game = room.id().for_log();
                if room.reason() == Some(Reason::NoStart) {
                    tracing::info!(game = %game, "called a round off: no first move in time");
                } else {
                    tracing::info!(game = %game, "ruled a round lost on time");
                }
                Ok(true)
            }
            Err(HubError::Changed(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
