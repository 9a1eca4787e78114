//! The lobby: which listed rooms it shows, and seat O of an open one.
//!
//! The store lists the latest open games, the games being played lately,
//! and every listed game someone is at however old (`Store::lobby`, given
//! the rooms present); the lobby shows only those someone is at, by
//! presence (`presence.rs`, shared between servers), those first:
//!
//! - an **open game** (seat O empty) shows while its creator has a live
//!   connection to it on any server, and, until they first connect, during
//!   a short grace after it was opened
//!   ([`HubConfig::seek_grace`](super::HubConfig::seek_grace)), so that a
//!   game made through the API has time to connect; it leaves the lobby as
//!   soon as its creator's last connection closes (grace or not), and
//!   comes back when they return; a cancelled one never shows;
//! - an **open correspondence game** also shows while its creator is away,
//!   for one move's allowance (its days) since they were last here (their
//!   connection to it opened or closed, on any server: kept in the store,
//!   [`Store::seen`](crate::store::Store::seen)). Correspondence is played
//!   by players who come and go, so its seek must outlive a closed tab; but
//!   a creator away for longer than a move's allowance would have lost the
//!   game they ask for on time, so their seek is taken for dead (and shows
//!   again when they come back);
//! - a **game being played** shows while either seat has a live
//!   connection, or while its last change is under [`LIVE_QUIET`] old (a
//!   game played through the API alone, with no socket); against the
//!   computer only seat X counts.
//!
//! A server that dies takes its players' presence with it within
//! `REMOTE_FRESH`, so its open games leave every other server's lobby then.

use std::sync::PoisonError;
use std::time::Duration;

use oxo_core::{Player, TimeControl};

use super::{Hub, HubError, LiveEntry, Lobby, OpenEntry, PresenceSeats, Recent, Seated};
use crate::id::{GameId, Token};
use crate::name::PlayerName;
use crate::room::{Admission, Players, Viewer};
use crate::store::{Listing, StoreError};

/// A game being played with no live connection still shows this long
/// after its last change.
pub const LIVE_QUIET: Duration = Duration::from_secs(2 * 60);

/// Entries in each of the lobby's lists.
const SHOWN: usize = 20;

/// How long a listed room this server does not hold counts as read back
/// whole for the lobby.
const RECHECK: Duration = Duration::from_secs(60);

/// Whether the lobby shows `listing`, whose seats' presence is `present`
/// and whose creator has been `seen` connected since it was made: see the
/// module docs. `grace` is how long a new open game shows before its
/// creator first connects.
#[must_use]
pub fn shown(listing: &Listing, present: PresenceSeats, seen: bool, grace: Duration) -> bool {
    let idle = Duration::from_secs(listing.idle);
    if listing.seated {
        present[0] || present[1] || idle < LIVE_QUIET
    } else {
        // Waiting since it was made (or, by correspondence, since its
        // creator was last here): its idle time is that long.
        present[Player::X.index()]
            || (!seen && idle < grace)
            || listing
                .clock
                .and_then(kept_away)
                .is_some_and(|kept| idle < kept)
    }
}

/// How long an open game under `control` stays listed with its creator
/// away: by correspondence, one move's allowance; else not at all.
fn kept_away(control: TimeControl) -> Option<Duration> {
    match control {
        TimeControl::Correspondence { per_move } => Some(Duration::from_millis(per_move)),
        TimeControl::Fischer { .. } => None,
    }
}

impl Hub {
    /// Whether the lobby shows `listing` now.
    fn listing_shown(&self, listing: &Listing) -> bool {
        shown(
            listing,
            self.present(&listing.id),
            self.creator_seen(&listing.id),
            self.shared.seek_grace,
        )
    }

    /// The lobby: listed games waiting for an opponent (under their entry
    /// ids) and listed games being played (under their watch ids), as far
    /// as someone is at them (see the module docs), and the rooms in
    /// `recent` (ids or watch ids the caller keeps; unknown ones are left
    /// out), each as a short summary.
    ///
    /// # Errors
    /// A store failure.
    pub async fn lobby(&self, recent: &[GameId]) -> Result<Lobby, HubError> {
        self.forget_creators_seen();
        let (listed, mut damaged) = self.listings().await?;
        let (mut seated, mut waiting): (Vec<&Listing>, Vec<&Listing>) = listed
            .iter()
            .filter(|l| self.listing_shown(l))
            .partition(|l| l.seated);
        // Those someone is at first (then those shown for being new), each
        // part the latest first: new listings cannot crowd them out.
        waiting.sort_by_cached_key(|l| !self.present(&l.id)[Player::X.index()]);
        seated.sort_by_cached_key(|l| self.present(&l.id) == [false; 2]);
        let waiting = self.sound(waiting, &mut damaged).await?;
        let seated = self.sound(seated, &mut damaged).await?;
        let open = waiting
            .into_iter()
            .map(|l| OpenEntry {
                entry: l.entry.to_string(),
                size: l.rules.size().to_string(),
                k: l.rules.k(),
                first: l.first,
                waiting: l.idle,
                name: l.names[0].as_ref().map(|n| n.as_str().to_owned()),
                clock: l.clock.map(Into::into),
            })
            .collect();
        let live = seated
            .into_iter()
            .map(|l| LiveEntry {
                watch: l.watch.to_string(),
                size: l.rules.size().to_string(),
                k: l.rules.k(),
                opponent: l.opponent.name(),
                round: l.round,
                score: crate::room::Score {
                    x: l.score.wins(Player::X),
                    o: l.score.wins(Player::O),
                    draws: l.score.draws(),
                },
                idle: l.idle,
                players: Players::new(l.opponent, l.rules, &l.names),
                clock: l.clock.map(Into::into),
            })
            .collect();
        let mut mine = Vec::new();
        for id in recent.iter().take(SHOWN) {
            match self.room_to_read(id).await {
                Ok((handle, viewer)) => {
                    mine.push(Recent::Game(handle.room.lock().await.summary(viewer)));
                }
                Err(HubError::NotFound(_)) => {}
                Err(HubError::Corrupt(e) | HubError::Store(StoreError::Corrupt(e))) => {
                    tracing::error!(game = %id.for_log(), error = %e, "a recent game is damaged");
                    mine.push(Recent::Damaged {
                        id: id.to_string(),
                        damaged: true,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Lobby {
            open,
            live,
            recent: mine,
            damaged,
        })
    }

    /// The first [`SHOWN`] of `listings` whose rooms read back whole: a
    /// listing row can look right while the room's moves fail its digest
    /// (which only reading the room checks, as opening it would), and a
    /// damaged room is left out, counted in `damaged` and logged, not
    /// shown as a game nobody can open. A room this server holds was
    /// checked when it was loaded; any other is read (not loaded for
    /// serving) at most once every [`RECHECK`], so lobby polls cost the
    /// store a few reads a minute, not one a listing each time.
    async fn sound<'a>(
        &self,
        listings: Vec<&'a Listing>,
        damaged: &mut usize,
    ) -> Result<Vec<&'a Listing>, HubError> {
        let mut kept = Vec::new();
        for listing in listings {
            if kept.len() == SHOWN {
                break;
            }
            let id = &listing.id;
            if self.shard(id).contains_key(id) {
                kept.push(listing);
                continue;
            }
            let sound = match self.checked_lately(id) {
                Some(sound) => sound,
                None => {
                    let read = match self.shared.store.load(id).await {
                        Ok(record) => super::rooms::restore(id, record).map(drop),
                        Err(e) => Err(e.into()),
                    };
                    match read {
                        Ok(()) => self.note_checked(id, true),
                        // Gone since the listing was read.
                        Err(HubError::NotFound(_)) => continue,
                        Err(HubError::Corrupt(e) | HubError::Store(StoreError::Corrupt(e))) => {
                            self.log_damage_once(&StoreError::Corrupt(format!(
                                "listed game {}: {e}",
                                id.for_log()
                            )));
                            self.note_checked(id, false)
                        }
                        // Not damage: this room is left out of this lobby only.
                        Err(e) => {
                            tracing::warn!(game = %id.for_log(), error = %e, "could not read a listed game");
                            continue;
                        }
                    }
                }
            };
            if sound {
                kept.push(listing);
            } else {
                *damaged += 1;
            }
        }
        Ok(kept)
    }

    /// What reading the listed room `id` found, if it was read within
    /// [`RECHECK`]: whether it read back whole.
    fn checked_lately(&self, id: &GameId) -> Option<bool> {
        let checked = self
            .shared
            .lobby_checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = self.now();
        checked
            .get(id)
            .filter(|&&(at, _)| super::within(now, at, RECHECK))
            .map(|&(_, sound)| sound)
    }

    /// Keep what reading the listed room `id` found (`sound`: it read back
    /// whole), and return it.
    fn note_checked(&self, id: &GameId, sound: bool) -> bool {
        let mut checked = self
            .shared
            .lobby_checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Listings come and go: the stale ones are let go now and then.
        let now = self.now();
        if checked.len() >= 16 * SHOWN {
            checked.retain(|_, &mut (at, _)| super::within(now, at, RECHECK));
        }
        checked.insert(id.clone(), (now, sound));
        sound
    }

    /// The store's listed rooms (the latest, and those someone is at
    /// however old), each once; those it could not read left out (and
    /// logged, as damage), so that one damaged room does not take the
    /// lobby down for everyone; and how many were left out.
    async fn listings(&self) -> Result<(Vec<Listing>, usize), HubError> {
        let mut damaged = std::collections::HashSet::new();
        let mut seen = std::collections::HashSet::new();
        let listed = self
            .shared
            .store
            .lobby(&self.present_rooms())
            .await?
            .into_iter()
            .filter_map(|row| {
                // A room may come twice (the latest, and someone is at
                // it): counted once (the damage names it).
                row.inspect_err(|e| {
                    if damaged.insert(e.to_string()) {
                        self.log_damage_once(e);
                    }
                })
                .ok()
            })
            .filter(|listing| seen.insert(listing.id.clone()))
            .collect();
        Ok((listed, damaged.len()))
    }

    /// Log a damaged listed room (its error names it) the first time the
    /// lobby meets it: pages ask for the lobby every few seconds.
    fn log_damage_once(&self, damage: &StoreError) {
        /// Entries kept before the set starts again (each damaged room is
        /// then logged once more).
        const KEPT: usize = 10_000;
        let mut logged = self
            .shared
            .damage_logged
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if logged.len() >= KEPT {
            logged.clear();
        }
        if logged.insert(damage.to_string()) {
            tracing::error!(error = %damage, "a listed game is damaged; the lobby leaves it out");
        }
    }

    /// Seat O, named `name`, of the open game listed under lobby id `entry`
    /// (with the token the joiner `chose`, if any, as [`Hub::join`]), while
    /// the lobby would show it: a game whose creator has gone is refused with
    /// [`HubError::SeekGone`], never joined to wait for nobody.
    ///
    /// # Errors
    /// Unknown entry; [`HubError::SeekGone`];
    /// [`RoomError::SeatTaken`](crate::room::RoomError::SeatTaken) once
    /// someone has joined;
    /// [`RoomError::Cancelled`](crate::room::RoomError::Cancelled) once its
    /// creator has cancelled it; a store failure.
    pub async fn join_entry(
        &self,
        entry: &GameId,
        name: Option<PlayerName>,
        chose: Option<Token>,
    ) -> Result<Seated, HubError> {
        let id = self
            .shared
            .store
            .load_entry(entry)
            .await?
            .ok_or_else(|| HubError::NotFound(entry.to_string()))?;
        let handle = self.room(&id).await?;
        {
            let room = handle.room.lock().await;
            // This join again, its answer lost: the seat it took, even once
            // the game has left the lobby.
            if let Some(token) = &chose
                && room.seat_of(token.expose()) == Some(Player::O)
            {
                drop(room);
                return Ok(Seated {
                    game: self.current_now(&handle, Viewer::Player),
                    seat: Player::O,
                    token: token.clone(),
                    invite: None,
                });
            }
            // Said as such, not as a creator gone: they may still be here.
            if room.cancelled() {
                return Err(HubError::Refused {
                    error: crate::room::RoomError::Cancelled,
                    game: None,
                });
            }
        }
        if !self.present(&id)[Player::X.index()] {
            // Away: still open only within its grace, which its listing
            // tells (a room too old to be listed is past it).
            let (listed, _) = self.listings().await?;
            let fresh = listed
                .iter()
                .find(|l| l.id == id)
                .is_some_and(|l| l.seated || self.listing_shown(l));
            if !fresh {
                return Err(HubError::SeekGone);
            }
        }
        self.seat_o(&id, Admission::Lobby, name, chose).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_core::{Rules, Scoreboard};

    fn listing(seated: bool, idle: u64) -> Listing {
        Listing {
            id: GameId::from_trusted("g"),
            entry: GameId::from_trusted("e"),
            watch: GameId::from_trusted("w"),
            rules: Rules::default(),
            opponent: crate::room::Opponent::Human,
            first: Player::X,
            round: 1,
            score: Scoreboard::default(),
            seated,
            idle,
            names: [None, None],
            clock: None,
        }
    }

    const GRACE: Duration = Duration::from_secs(20);
    const NOBODY: PresenceSeats = [false, false];

    #[test]
    fn an_open_game_shows_while_its_creator_is_there_or_in_its_grace() {
        let open = |idle, present, seen| shown(&listing(false, idle), present, seen, GRACE);
        assert!(open(0, NOBODY, false), "just made");
        assert!(open(19, NOBODY, false));
        assert!(!open(20, NOBODY, false), "grace over");
        assert!(!open(5, NOBODY, true), "connected, then left: no grace");
        assert!(open(600, [true, false], true), "creator there");
        assert!(!open(600, [false, true], true), "only the creator counts");
        assert!(!shown(&listing(false, 0), NOBODY, false, Duration::ZERO));
    }

    #[test]
    fn an_open_correspondence_game_shows_for_its_days_since_its_creator_was_here() {
        let day = 24 * 60 * 60;
        let by = |control, idle| {
            let mut open = listing(false, idle);
            open.clock = Some(control);
            shown(&open, NOBODY, true, GRACE)
        };
        assert!(by(TimeControl::days(3), 3 * day - 1));
        assert!(!by(TimeControl::days(3), 3 * day), "away for its days");
        assert!(by(TimeControl::days(1), day - 1));
        assert!(!by(TimeControl::days(1), day));
        assert!(
            !by(TimeControl::fischer(180_000, 2_000), 1),
            "a clock of minutes: only while its creator is here"
        );
    }

    #[test]
    fn a_game_being_played_shows_while_a_seat_is_there_or_it_moved_lately() {
        let quiet = LIVE_QUIET.as_secs();
        let live = |idle, present| shown(&listing(true, idle), present, true, GRACE);
        assert!(live(quiet - 1, NOBODY));
        assert!(!live(quiet, NOBODY), "all gone");
        assert!(live(quiet * 5, [false, true]));
        assert!(live(quiet * 5, [true, false]));
    }
}
