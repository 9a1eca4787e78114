//! How a request changes a room: decided under the room's lock, committed
//! to the store, published, with idempotency keys recalled first and
//! remembered with the change.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use oxo_core::Player;

use super::{Hub, HubError, RoomHandle, Snapshot};
use crate::id::{GameId, IdempotencyKey};
use crate::room::{Keyed, Recall, Request, Room, RoomError, Viewer};
use crate::store::{Change, ChangeKind, StoreError};

impl Hub {
    /// Commit `next` (the room after `kind`) and make it the room's state.
    /// The caller holds the room's lock, so nothing else changes it between
    /// the check that produced `next` and this.
    ///
    /// When the store already holds a newer state (another server changed
    /// the room, or, with one server, a bug), memory takes the store's
    /// state and [`HubError::Changed`] carries it.
    pub(super) async fn commit(
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
    pub(super) async fn change(
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
                if room.overdue(now) {
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
}

/// What a request comes to, decided under the room's lock.
pub(super) enum Step {
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
pub(super) fn recalled(
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
pub(super) fn remembered(
    room: Room,
    seat: Player,
    key: Option<IdempotencyKey>,
    request: Request,
) -> Room {
    match key {
        Some(key) => room.remember(Keyed {
            seat,
            key,
            request: Some(request),
        }),
        None => room,
    }
}
