//! The clocks of a timed room: kept through each change, ruled on when a
//! seat's time runs out, and shown as the API's clock object.

use oxo_core::{Clock, Flagged, Player, TimeControl};
use serde::Serialize;

use super::{Ending, Reason, Room, RoomError};

/// The time one seat may give the other, as lichess's "give 15 seconds".
pub const GIFT_MS: u64 = 15_000;

/// The clocks of a timed room: each change keeps them
/// ([`Room::clocked`]), and a seat whose time runs out loses the round.
/// Time is passed in, in milliseconds since the Unix
/// epoch.
impl Room {
    /// The current round's clock, for a timed room.
    #[must_use]
    pub const fn clock(&self) -> Option<&Clock> {
        self.rec.clock.as_ref()
    }

    /// Whether the round is being played: both seats held, not yet over.
    fn round_on(&self) -> bool {
        self.to_move().is_some()
    }

    /// When the seat to move runs out of time, while a timed round is
    /// being played and its clock runs (from the round's second move); or,
    /// before, when the round is called off if the seat to move has not
    /// made its first move ([`Room::missed_first_move`]).
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        let clock = self.rec.clock.filter(|_| self.round_on())?;
        clock.deadline().or(clock.first_move_deadline())
    }

    /// The seat to move that has let the time for its first move of the
    /// round ([`oxo_core::FIRST_MOVE_MS`]) pass by `now`, in a round with a
    /// clock of minutes: lichess calls such a round off.
    #[must_use]
    pub fn missed_first_move(&self, now: u64) -> Option<Player> {
        self.rec
            .clock
            .filter(|_| self.round_on())?
            .missed_first_move(now)
    }

    /// Whether a ruling is due at `now`: the seat to move has run out of
    /// time, or of the time for its first move ([`Room::rule_flag`]).
    #[must_use]
    pub fn overdue(&self, now: u64) -> bool {
        self.flagged(now).is_some() || self.missed_first_move(now).is_some()
    }

    /// `seat` gives the other seat [`GIFT_MS`] more, while a round with a
    /// clock of minutes is played (correspondence has days a move, and
    /// nothing to give).
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::NoTimeToGive`].
    pub fn give_time(&self, seat: Player, version: Option<u64>) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        let clock = self
            .rec
            .clock
            .filter(|clock| matches!(clock.control(), TimeControl::Fischer { .. }))
            .ok_or(RoomError::NoTimeToGive)?;
        let mut next = self.clone();
        next.rec.clock = Some(clock.given(seat.other(), GIFT_MS));
        next.rec.version += 1;
        Ok(next)
    }

    /// The seat that has run out of time at `now`, while the round is on.
    #[must_use]
    pub fn flagged(&self, now: u64) -> Option<Player> {
        self.rec.clock.filter(|_| self.round_on())?.flagged(now)
    }

    /// The round ruled at `now` when the seat to move has run out of time:
    /// lost on time, or drawn when the other seat has no window left that
    /// it could complete (it could not have won; see
    /// [`Game::can_still_win`](oxo_core::Game::can_still_win)). The
    /// flagged seat's clock stops at zero. A seat that let the time for its
    /// first move pass has not started the round: it is called off
    /// ([`Reason::NoStart`]), counting for nobody. `None` when no ruling is
    /// due.
    #[must_use]
    pub fn rule_flag(&self, now: u64) -> Option<Room> {
        if self.missed_first_move(now).is_some() {
            let clock = self.rec.clock?;
            let mut next = self.finish(Ending {
                reason: Reason::NoStart,
                winner: None,
            });
            next.rec.clock = Some(clock.stopped(now));
            return Some(next);
        }
        let side = self.flagged(now)?;
        let clock = self.rec.clock?;
        let winner = side.other();
        let mut next = self.finish(Ending {
            reason: Reason::Time,
            winner: self.game.can_still_win(winner).then_some(winner),
        });
        next.rec.clock = Some(clock.stopped(now));
        Some(next)
    }

    /// This room, made from `before` by a change at `now`, with its clock
    /// kept: a move made charges the mover's clock and starts the other's
    /// (from the round's second move; see [`oxo_core::Clock`]), moves taken
    /// back restart the clock of the seat to move, a round that ended
    /// stops its clock, and a new round starts with a fresh one. Until both
    /// seats have made their first move, the first move of the seat to
    /// move is awaited from when its turn started (a clock of minutes:
    /// [`Room::missed_first_move`]).
    ///
    /// # Errors
    /// [`RoomError::OutOfTime`] when the seat whose clock runs had run out
    /// of time by `now`, or the seat to move let the time for its first
    /// move pass: the change came too late.
    pub fn clocked(mut self, before: &Room, now: u64) -> Result<Room, RoomError> {
        let Some(clock) = self.rec.clock else {
            return Ok(self);
        };
        let out = |Flagged(side)| RoomError::OutOfTime(side);
        let plies = self.rec.moves.len();
        let clock = if self.rec.round != before.rec.round {
            Clock::new(clock.control())
        } else if plies > before.rec.moves.len() {
            let mover = self.game.to_move().other();
            clock.punch(mover, plies, now).map_err(out)?
        } else if plies < before.rec.moves.len() {
            clock
                .taken_back(self.game.to_move(), plies, now)
                .map_err(out)?
        } else {
            // Anything else (an offer, time given): too late once the seat
            // to move has run out of time, as a move would be (time given
            // must not revive a flagged clock); else the running clock as
            // of now, so that the GAME sent for the change shows the time
            // left now, as a read would.
            if let Some(side) = before.flagged(now).or(before.missed_first_move(now)) {
                return Err(out(Flagged(side)));
            }
            clock.rebased(now)
        };
        let mut clock = if self.round_on() || !self.seated() {
            clock
        } else {
            clock.stopped(now)
        };
        // (Timed rooms are between people: no computer seat is waited for.)
        if let Some(side) = self.to_move().filter(|_| plies < 2) {
            clock = clock.awaiting_first_move(side, now);
        }
        self.rec.clock = Some(clock);
        Ok(self)
    }
}

/// A timed room's clocks as the API shows them. Times are milliseconds;
/// `x_ms` and `o_ms` are each seat's time left at `at`, the server's time
/// (since the Unix epoch) they were measured, and the seat in `running`
/// loses a millisecond for each one after it, until `deadline`. Before the
/// round's second move no clock runs, but the seat to move has
/// `first_move_ms` at `at` to make its first move, until
/// `first_move_deadline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// Each seat's time when a round starts (for correspondence, the time
    /// for each move).
    pub initial_ms: u64,
    /// Time added after each timed move (0 for correspondence).
    pub increment_ms: u64,
    /// Days for each move, for correspondence; `null` for a clock of
    /// minutes.
    pub days: Option<u64>,
    /// X's time left at `at`.
    pub x_ms: u64,
    /// O's time left at `at`.
    pub o_ms: u64,
    /// The seat whose clock runs (`null`: none, before the round's second
    /// move and once it is over).
    pub running: Option<Player>,
    /// When `x_ms` and `o_ms` (or `first_move_ms`) were measured, while a
    /// clock runs (or a first move is awaited).
    pub at: Option<u64>,
    /// When the running seat's time runs out.
    pub deadline: Option<u64>,
    /// Before the round's second move, with a clock of minutes against a
    /// person: the time the seat to move has left at `at` to make its first
    /// move (from [`oxo_core::FIRST_MOVE_MS`] when its turn started).
    pub first_move_ms: Option<u64>,
    /// When that time runs out and the round is called off (reason
    /// `nostart`).
    pub first_move_deadline: Option<u64>,
}

impl ClockView {
    /// The view of `clock`, as of when its running side's time left was
    /// last counted (its start, or the last change since).
    #[must_use]
    pub fn of(clock: &Clock) -> ClockView {
        let (initial_ms, increment_ms, days) = match clock.control() {
            TimeControl::Fischer { initial, increment } => (initial, increment, None),
            TimeControl::Correspondence { per_move } => {
                (per_move, 0, Some(per_move / oxo_core::DAY_MS))
            }
        };
        let running = clock.running_since();
        let first = clock.first_move_awaited();
        ClockView {
            initial_ms,
            increment_ms,
            days,
            x_ms: clock.stored_left(Player::X),
            o_ms: clock.stored_left(Player::O),
            running: running.map(|r| r.side),
            at: running.map(|r| r.since).or(first.map(|f| f.since)),
            deadline: clock.deadline(),
            first_move_ms: first.map(|f| f.left),
            first_move_deadline: first.map(|f| f.deadline()),
        }
    }

    /// The same clocks measured at `now` (a later time), or `None` when no
    /// clock runs, no first move is awaited, or `now` is not later.
    #[must_use]
    pub fn as_of(&self, now: u64) -> Option<ClockView> {
        let passed = now.checked_sub(self.at?).filter(|&passed| passed > 0)?;
        let mut later = *self;
        let left = match self.running {
            Some(Player::X) => Some(&mut later.x_ms),
            Some(Player::O) => Some(&mut later.o_ms),
            None => later.first_move_ms.as_mut(),
        };
        let left = left?;
        *left = left.saturating_sub(passed);
        later.at = Some(now);
        Some(later)
    }
}
