//! Chess clocks for a round: a time control and the two sides' time, kept
//! with time passed in.
//!
//! A [`Clock`] never reads the time: every call that depends on it takes
//! `now`, a count of milliseconds on whatever time line the caller keeps
//! (the web server counts from the Unix epoch, so that a clock stored by one
//! process is read correctly by another). The same calls with the same
//! times give the same clock, so every rule below has a deterministic test.
//!
//! The rules, as lichess keeps them:
//! - Each side's first move of a round is untimed: no clock runs before it
//!   and no increment follows it. The clock of the side to move starts
//!   when the second move of the round is made, so a round's third move is
//!   the first one timed.
//! - In a round with a clock of minutes ([`TimeControl::Fischer`]), each
//!   side's first move must still come within [`FIRST_MOVE_MS`] of its
//!   turn starting ([`Clock::awaiting_first_move`]); a side that misses it
//!   has not started the round, which is called off
//!   ([`Clock::missed_first_move`]). Correspondence sets no such limit.
//! - A move stops the mover's clock, charges it the time since it started,
//!   then gives the increment ([`TimeControl::Fischer`]) or a fresh
//!   allowance for the next move ([`TimeControl::Correspondence`]), and
//!   starts the other side's clock.
//! - A side whose time left reaches zero has flagged: exactly at its
//!   [deadline](Clock::deadline), a move arrives too late.
//!
//! ```
//! use oxo_core::{Clock, Player, TimeControl};
//!
//! // Three minutes each, two seconds a move.
//! let clock = Clock::new(TimeControl::fischer(180_000, 2_000));
//! // X's and O's first moves are untimed; O's starts X's clock.
//! let clock = clock.punch(Player::X, 1, 1_000)?;
//! let clock = clock.punch(Player::O, 2, 9_000)?;
//! assert_eq!(clock.running(), Some(Player::X));
//! // X thinks 10 s: 170 s left, plus 2 s.
//! let clock = clock.punch(Player::X, 3, 19_000)?;
//! assert_eq!(clock.left(Player::X, 19_000), 172_000);
//! // O's 180 s run out at 199 s.
//! assert_eq!(clock.deadline(), Some(199_000));
//! assert_eq!(clock.flagged(198_999), None);
//! assert_eq!(clock.flagged(199_000), Some(Player::O));
//! # Ok::<(), oxo_core::Flagged>(())
//! ```

use crate::player::Player;

/// Milliseconds in a day, the unit of correspondence games.
pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// The time each side has for its first move of a round with a clock of
/// minutes, from when its turn starts (lichess's 30 seconds for a casual
/// game): not on its clock, but a side that lets it pass has not started
/// the round.
pub const FIRST_MOVE_MS: u64 = 30_000;

/// How much time each side has, and what a move gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// Fischer: a budget for the whole round, and an increment after each
    /// timed move.
    Fischer {
        /// Each side's time at the start of a round, in milliseconds.
        initial: u64,
        /// Added to the mover's time after each timed move, in milliseconds.
        increment: u64,
    },
    /// Correspondence: each move has its own allowance, which does not
    /// carry over (time saved on one move is not kept for the next).
    Correspondence {
        /// Time for each move, in milliseconds.
        per_move: u64,
    },
}

impl TimeControl {
    /// [`TimeControl::Fischer`], `initial` and `increment` in milliseconds.
    #[must_use]
    pub const fn fischer(initial: u64, increment: u64) -> TimeControl {
        TimeControl::Fischer { initial, increment }
    }

    /// [`TimeControl::Correspondence`] with `days` for each move.
    #[must_use]
    pub const fn days(days: u32) -> TimeControl {
        TimeControl::Correspondence {
            per_move: days as u64 * DAY_MS,
        }
    }

    /// Each side's time when a round starts.
    #[must_use]
    pub const fn initial(self) -> u64 {
        match self {
            TimeControl::Fischer { initial, .. } => initial,
            TimeControl::Correspondence { per_move } => per_move,
        }
    }

    /// The mover's time after a timed move that left it `left`.
    const fn after_move(self, left: u64) -> u64 {
        match self {
            TimeControl::Fischer { increment, .. } => left.saturating_add(increment),
            TimeControl::Correspondence { per_move } => per_move,
        }
    }
}

/// The side whose clock runs, and since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Running {
    /// The side whose time is passing.
    pub side: Player,
    /// Since when its time left is counted (its clock's start, or the last
    /// change that counted it: [`Clock::rebased`]), in the caller's
    /// milliseconds.
    pub since: u64,
}

/// A side whose first move of the round is awaited, and the time left for
/// it ([`FIRST_MOVE_MS`] from when its turn started) as of `since`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FirstMove {
    /// The side to move.
    pub side: Player,
    /// When `left` was counted (its turn's start, or a later change:
    /// [`Clock::rebased`]), in the caller's milliseconds.
    pub since: u64,
    /// The time left for the move at `since`.
    pub left: u64,
}

impl FirstMove {
    /// When the time for the move runs out.
    #[must_use]
    pub const fn deadline(&self) -> u64 {
        self.since.saturating_add(self.left)
    }
}

/// A side ran out of time (or out of the time for its first move) before
/// the move or change asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{0} has run out of time")]
pub struct Flagged(pub Player);

/// The clocks of one round: its time control, each side's time left, and
/// whose clock runs since when. A small `Copy` value: every change returns
/// a new clock and leaves the old one as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    control: TimeControl,
    /// X's and O's time left; for the running side, as of `running.since`.
    left: [u64; 2],
    running: Option<Running>,
    /// The side whose first move is awaited, and the time it has left for
    /// it; never while a clock runs.
    first: Option<FirstMove>,
}

impl Clock {
    /// A round's clock before its first move: both sides at the control's
    /// initial time, neither running.
    #[must_use]
    pub const fn new(control: TimeControl) -> Clock {
        let initial = control.initial();
        Clock {
            control,
            left: [initial, initial],
            running: None,
            first: None,
        }
    }

    /// A clock as a store kept it: `left` is X's and O's time left, the
    /// running side's as of its [`Running::since`] ([`Clock::stored_left`]);
    /// then [`Clock::with_first_move`] for a first move awaited.
    #[must_use]
    pub const fn from_parts(
        control: TimeControl,
        left: [u64; 2],
        running: Option<Running>,
    ) -> Clock {
        Clock {
            control,
            left,
            running,
            first: None,
        }
    }

    /// The time control.
    #[must_use]
    pub const fn control(&self) -> TimeControl {
        self.control
    }

    /// Whose clock runs, and since when.
    #[must_use]
    pub const fn running_since(&self) -> Option<Running> {
        self.running
    }

    /// The side whose clock runs.
    #[must_use]
    pub const fn running(&self) -> Option<Player> {
        match self.running {
            Some(r) => Some(r.side),
            None => None,
        }
    }

    /// `side`'s time left as stored: for the running side, as of when its
    /// time was last counted, its [`Running::since`] (what
    /// [`Clock::from_parts`] takes back).
    #[must_use]
    pub const fn stored_left(&self, side: Player) -> u64 {
        self.left[side.index()]
    }

    /// `side`'s time left at `now` (zero once it has flagged). A `now`
    /// before the running clock started counts as that start.
    #[must_use]
    pub const fn left(&self, side: Player, now: u64) -> u64 {
        let left = self.left[side.index()];
        match self.running {
            Some(r) if r.side.index() == side.index() => {
                left.saturating_sub(now.saturating_sub(r.since))
            }
            _ => left,
        }
    }

    /// When the running side flags: the moment its time left reaches zero.
    /// `None` while no clock runs.
    #[must_use]
    pub const fn deadline(&self) -> Option<u64> {
        match self.running {
            Some(r) => Some(r.since.saturating_add(self.left[r.side.index()])),
            None => None,
        }
    }

    /// This clock awaiting `side`'s first move of the round, its turn
    /// started at `now`: unless it is made by [`FIRST_MOVE_MS`] later, the
    /// round is to be called off ([`Clock::missed_first_move`]). A first
    /// move of the same side already awaited keeps its time; a clock that
    /// runs, or one of correspondence, is returned as it is.
    #[must_use]
    pub const fn awaiting_first_move(&self, side: Player, now: u64) -> Clock {
        if let Some(first) = self.first
            && first.side.index() == side.index()
        {
            return *self;
        }
        self.with_first_move(FirstMove {
            side,
            since: now,
            left: FIRST_MOVE_MS,
        })
    }

    /// This clock awaiting `first` as a store kept it; a clock that runs,
    /// or one of correspondence, is returned as it is.
    #[must_use]
    pub const fn with_first_move(&self, first: FirstMove) -> Clock {
        let mut next = *self;
        if self.running.is_none() && matches!(self.control, TimeControl::Fischer { .. }) {
            next.first = Some(first);
        }
        next
    }

    /// The side whose first move is awaited, and the time it has left.
    #[must_use]
    pub const fn first_move_awaited(&self) -> Option<FirstMove> {
        self.first
    }

    /// When the side whose first move is awaited has let its time for it
    /// pass.
    #[must_use]
    pub const fn first_move_deadline(&self) -> Option<u64> {
        match self.first {
            Some(first) => Some(first.deadline()),
            None => None,
        }
    }

    /// The side whose time for its first move has passed by `now`, if one's
    /// has.
    #[must_use]
    pub const fn missed_first_move(&self, now: u64) -> Option<Player> {
        match self.first {
            Some(first) if now >= first.deadline() => Some(first.side),
            _ => None,
        }
    }

    /// The side that has run out of time at `now`, if one has: its time
    /// left is zero.
    #[must_use]
    pub const fn flagged(&self, now: u64) -> Option<Player> {
        match (self.running, self.deadline()) {
            (Some(r), Some(deadline)) if now >= deadline => Some(r.side),
            _ => None,
        }
    }

    /// `mover` made the round's move number `ply` (from 1) at `now`: the
    /// running clock is charged the time since it started, the mover is
    /// given its increment (or next allowance) if its clock was running,
    /// and the other side's clock starts, from the round's second move on.
    ///
    /// # Errors
    /// [`Flagged`] when the running side's time (or the awaited side's
    /// time for its first move) ran out at or before `now`: the move came
    /// too late and the clock is unchanged.
    pub const fn punch(&self, mover: Player, ply: usize, now: u64) -> Result<Clock, Flagged> {
        let mut next = match self.charged(now) {
            Ok(next) => next,
            Err(flag) => return Err(flag),
        };
        if let Some(r) = self.running
            && r.side.index() == mover.index()
        {
            let i = mover.index();
            next.left[i] = self.control.after_move(next.left[i]);
        }
        next.running = if ply >= 2 {
            Some(Running {
                side: mover.other(),
                since: now,
            })
        } else {
            None
        };
        Ok(next)
    }

    /// The round's last move was taken back at `now`, `plies` moves now
    /// standing and `to_move` to move: the running side is charged its
    /// time so far (without increment: time spent is not given back), and
    /// `to_move`'s clock starts if the round is still past its second move.
    /// In correspondence both sides have a whole allowance again: the time
    /// spent on a position taken back does not come off a later move.
    ///
    /// # Errors
    /// [`Flagged`] when the running side's time (or the awaited side's
    /// time for its first move) ran out at or before `now`.
    pub const fn taken_back(
        &self,
        to_move: Player,
        plies: usize,
        now: u64,
    ) -> Result<Clock, Flagged> {
        let mut next = match self.charged(now) {
            Ok(next) => next,
            Err(flag) => return Err(flag),
        };
        if let TimeControl::Correspondence { per_move } = self.control {
            next.left = [per_move, per_move];
        }
        next.running = if plies >= 2 {
            Some(Running {
                side: to_move,
                since: now,
            })
        } else {
            None
        };
        Ok(next)
    }

    /// The same clock with the running side's time (or the time left for
    /// an awaited first move) counted up to `now` and started again there:
    /// the deadline stays where it was, and the time left is as of `now`
    /// (what a view of the clock sent at `now` shows). A `now` before the
    /// count started leaves it as it was.
    #[must_use]
    pub const fn rebased(&self, now: u64) -> Clock {
        let mut next = *self;
        if let Some(first) = self.first
            && now > first.since
        {
            next.first = Some(FirstMove {
                side: first.side,
                since: now,
                left: first.left.saturating_sub(now - first.since),
            });
        }
        if let Some(r) = self.running
            && now > r.since
        {
            next.left[r.side.index()] = self.left(r.side, now);
            next.running = Some(Running {
                side: r.side,
                since: now,
            });
        }
        next
    }

    /// `side` given `ms` more (a courtesy of its opponent's, as lichess's
    /// "give 15 seconds"): if its clock runs, its deadline moves as much.
    #[must_use]
    pub const fn given(&self, side: Player, ms: u64) -> Clock {
        let mut next = *self;
        next.left[side.index()] = self.left[side.index()].saturating_add(ms);
        next
    }

    /// The round ended at `now` (a line, a full board, a resignation, an
    /// agreement, a flag): the running clock stops, charged its time up to
    /// `now` (down to zero at most), and no first move is awaited.
    #[must_use]
    pub const fn stopped(&self, now: u64) -> Clock {
        let mut next = *self;
        if let Some(r) = self.running {
            next.left[r.side.index()] = self.left(r.side, now);
        }
        next.running = None;
        next.first = None;
        next
    }

    /// The clock stopped at `now` with the running side charged, or the
    /// side that has flagged or let the time for its first move pass.
    const fn charged(&self, now: u64) -> Result<Clock, Flagged> {
        if let Some(side) = self.flagged(now) {
            return Err(Flagged(side));
        }
        if let Some(side) = self.missed_first_move(now) {
            return Err(Flagged(side));
        }
        Ok(self.stopped(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: Player = Player::X;
    const O: Player = Player::O;

    /// 1+2: a minute each, two seconds a move.
    fn blitz() -> Clock {
        Clock::new(TimeControl::fischer(60_000, 2_000))
    }

    /// The clock after X and O have made their untimed first moves, O's at
    /// `at`.
    fn started(clock: Clock, at: u64) -> Clock {
        clock
            .punch(X, 1, at.saturating_sub(500))
            .unwrap()
            .punch(O, 2, at)
            .unwrap()
    }

    #[test]
    fn first_moves_are_untimed_and_the_second_starts_the_first_movers_clock() {
        let clock = blitz();
        assert_eq!((clock.running(), clock.deadline()), (None, None));
        // X thinks for an hour: no clock runs yet, and no increment.
        let clock = clock.punch(X, 1, 3_600_000).unwrap();
        assert_eq!(clock.running(), None);
        assert_eq!(clock.left(X, 3_600_000), 60_000);
        assert_eq!(clock.flagged(u64::MAX), None);
        // So does O; its move starts X's clock.
        let clock = clock.punch(O, 2, 7_200_000).unwrap();
        assert_eq!(
            clock.running_since(),
            Some(Running {
                side: X,
                since: 7_200_000
            })
        );
        assert_eq!(
            (clock.left(X, 7_200_000), clock.left(O, 7_200_000)),
            (60_000, 60_000)
        );
        assert_eq!(clock.deadline(), Some(7_260_000));
    }

    #[test]
    fn each_first_move_is_awaited_for_thirty_seconds_off_the_clock() {
        // Both seats taken at 1 s: X's first move is awaited.
        let clock = blitz().awaiting_first_move(X, 1_000);
        let awaited = FirstMove {
            side: X,
            since: 1_000,
            left: FIRST_MOVE_MS,
        };
        assert_eq!(clock.first_move_awaited(), Some(awaited));
        assert_eq!(clock.first_move_deadline(), Some(1_000 + FIRST_MOVE_MS));
        assert_eq!((clock.running(), clock.deadline()), (None, None));
        // Awaited again (another change meanwhile): the wait keeps its time;
        // counted as of a later change, it has less left, the same deadline.
        assert_eq!(clock.awaiting_first_move(X, 9_000), clock);
        let rebased = clock.rebased(9_000).first_move_awaited().unwrap();
        assert_eq!(
            (rebased.since, rebased.left),
            (9_000, FIRST_MOVE_MS - 8_000)
        );
        assert_eq!(rebased.deadline(), 1_000 + FIRST_MOVE_MS);
        assert_eq!(clock.missed_first_move(30_999), None);
        assert_eq!(clock.missed_first_move(31_000), Some(X));
        // Made in time, it costs X nothing and ends the wait.
        let moved = clock.punch(X, 1, 30_999).unwrap();
        assert_eq!(moved.first_move_awaited(), None);
        assert_eq!(moved.left(X, 30_999), 60_000);
        // At the limit it is too late, as a move after a flag is.
        assert_eq!(clock.punch(X, 1, 31_000), Err(Flagged(X)));
        // Then O's; its move starts X's clock and no wait is left.
        let moved = moved.awaiting_first_move(O, 30_999);
        assert_eq!(moved.first_move_deadline(), Some(60_999));
        let started = moved.punch(O, 2, 40_000).unwrap();
        assert_eq!(started.first_move_awaited(), None);
        assert_eq!(started.running(), Some(X));
        // Nothing is awaited while a clock runs, nor by correspondence.
        assert_eq!(started.awaiting_first_move(X, 50_000), started);
        let days = Clock::new(TimeControl::days(1));
        assert_eq!(days.awaiting_first_move(X, 0), days);
        // An ended round awaits nothing.
        assert_eq!(clock.stopped(5_000).first_move_awaited(), None);
    }

    #[test]
    fn a_timed_move_is_charged_then_given_its_increment() {
        let clock = started(blitz(), 10_000);
        let clock = clock.punch(X, 3, 25_000).unwrap();
        assert_eq!(clock.left(X, 25_000), 60_000 - 15_000 + 2_000);
        assert_eq!(clock.running(), Some(O));
        // O's time passes, X's does not.
        assert_eq!(clock.left(O, 40_000), 45_000);
        assert_eq!(clock.left(X, 40_000), 47_000);
        let clock = clock.punch(O, 4, 40_000).unwrap();
        assert_eq!(clock.left(O, 40_000), 47_000);
        assert_eq!(clock.deadline(), Some(40_000 + 47_000));
        // A move faster than the increment gains time.
        let clock = clock.punch(X, 5, 40_500).unwrap();
        assert_eq!(clock.left(X, 40_500), 48_500);
    }

    #[test]
    fn a_side_flags_exactly_when_its_time_reaches_zero() {
        let clock = started(blitz(), 10_000);
        assert_eq!(clock.deadline(), Some(70_000));
        assert_eq!(clock.flagged(69_999), None);
        assert_eq!(clock.left(X, 69_999), 1);
        assert_eq!(clock.flagged(70_000), Some(X));
        assert_eq!(clock.left(X, 70_000), 0);
        assert_eq!(clock.left(X, 90_000), 0, "never below zero");
        // A move a millisecond before the flag counts, with its increment.
        let saved = clock.punch(X, 3, 69_999).unwrap();
        assert_eq!(saved.left(X, 69_999), 2_001);
        // At zero it is too late, and nothing changes.
        assert_eq!(clock.punch(X, 3, 70_000), Err(Flagged(X)));
        assert_eq!(Flagged(X).to_string(), "X has run out of time");
    }

    #[test]
    fn a_fractional_minute_with_no_increment() {
        // 0.25+0: fifteen seconds, nothing back.
        let clock = started(Clock::new(TimeControl::fischer(15_000, 0)), 0);
        let clock = clock.punch(X, 3, 14_000).unwrap();
        assert_eq!(clock.left(X, 14_000), 1_000);
        let clock = clock.punch(O, 4, 20_000).unwrap();
        assert_eq!(clock.deadline(), Some(21_000));
        assert_eq!(clock.flagged(21_000), Some(X));
    }

    #[test]
    fn correspondence_gives_each_move_a_fresh_allowance() {
        let clock = Clock::new(TimeControl::days(3));
        assert_eq!(clock.left(X, 0), 3 * DAY_MS);
        let clock = started(clock, DAY_MS);
        assert_eq!(clock.deadline(), Some(4 * DAY_MS));
        // X answers in a day; its next move again has three days, not five.
        let clock = clock.punch(X, 3, 2 * DAY_MS).unwrap();
        assert_eq!(clock.left(X, 2 * DAY_MS), 3 * DAY_MS);
        assert_eq!(clock.deadline(), Some(5 * DAY_MS));
        assert_eq!(clock.flagged(5 * DAY_MS), Some(O));
        assert_eq!(clock.punch(O, 4, 5 * DAY_MS), Err(Flagged(O)));
    }

    #[test]
    fn a_stopped_clock_keeps_the_time_used() {
        let clock = started(blitz(), 0).punch(X, 3, 5_000).unwrap();
        let stopped = clock.stopped(12_000);
        assert_eq!(stopped.running(), None);
        assert_eq!(
            (stopped.left(X, 99_999), stopped.left(O, 99_999)),
            (57_000, 53_000)
        );
        // Stopped after the flag, the time shows zero.
        assert_eq!(clock.stopped(999_999).left(O, 0), 0);
        // A stopped clock restarts with the next move (a takeback to the
        // second move, say).
        assert_eq!(stopped.punch(O, 4, 20_000).unwrap().running(), Some(X));
    }

    #[test]
    fn a_takeback_restarts_the_side_to_move_without_giving_time_back() {
        // X moved at 5 s (57 s left); O thinks until 9 s, then accepts X's
        // takeback: O is charged 4 s, X's clock runs again.
        let clock = started(blitz(), 0).punch(X, 3, 5_000).unwrap();
        let back = clock.taken_back(X, 2, 9_000).unwrap();
        assert_eq!(
            back.running_since(),
            Some(Running {
                side: X,
                since: 9_000
            })
        );
        assert_eq!((back.left(X, 9_000), back.left(O, 9_000)), (57_000, 56_000));
        // Taken back to before the second move: no clock runs.
        let early = started(blitz(), 0).taken_back(O, 1, 3_000).unwrap();
        assert_eq!(early.running(), None);
        assert_eq!(early.left(X, 3_000), 57_000);
        // After the flag, too late.
        assert_eq!(clock.taken_back(X, 2, 65_000), Err(Flagged(O)));
    }

    #[test]
    fn a_correspondence_takeback_gives_the_next_moves_their_whole_allowance() {
        // A day a move. X moves at 1 h; O thinks 5 h, then grants X's
        // takeback: X has a whole day for its move again, and O's next
        // move, after X's, a whole day too (the 5 h went on a position
        // taken back).
        const HOUR: u64 = DAY_MS / 24;
        let clock = started(Clock::new(TimeControl::days(1)), 0)
            .punch(X, 3, HOUR)
            .unwrap();
        let back = clock.taken_back(X, 2, 6 * HOUR).unwrap();
        assert_eq!(back.running(), Some(X));
        assert_eq!(back.deadline(), Some(6 * HOUR + DAY_MS));
        let again = back.punch(X, 3, 7 * HOUR).unwrap();
        assert_eq!(again.running(), Some(O));
        assert_eq!(again.deadline(), Some(7 * HOUR + DAY_MS));
        // Too late is still too late.
        assert_eq!(clock.taken_back(X, 2, HOUR + DAY_MS), Err(Flagged(O)));
    }

    #[test]
    fn a_rebased_clock_keeps_its_deadline() {
        let clock = started(blitz(), 1_000);
        let rebased = clock.rebased(21_000);
        assert_eq!(rebased.deadline(), clock.deadline());
        assert_eq!(rebased.stored_left(X), 40_000);
        assert_eq!(
            rebased.running_since(),
            Some(Running {
                side: X,
                since: 21_000
            })
        );
        // Not back in time, nor without a running clock.
        assert_eq!(clock.rebased(500), clock);
        assert_eq!(blitz().rebased(9_000), blitz());
    }

    #[test]
    fn time_given_moves_the_deadline_and_stays_with_the_side() {
        // X's clock runs from 0 with 60 s; O gives X 15 s at 10 s.
        let clock = started(blitz(), 0).given(X, 15_000);
        assert_eq!(clock.deadline(), Some(75_000));
        assert_eq!(clock.left(X, 10_000), 65_000);
        // Given to the side waiting, it is there when its clock starts.
        let clock = started(blitz(), 0).given(O, 15_000);
        assert_eq!(clock.deadline(), Some(60_000));
        let clock = clock.punch(X, 3, 5_000).unwrap();
        assert_eq!(clock.deadline(), Some(5_000 + 75_000));
    }

    #[test]
    fn a_stored_clock_comes_back_the_same() {
        let clock = started(blitz(), 0).punch(X, 3, 5_000).unwrap();
        let parts = Clock::from_parts(
            clock.control(),
            [clock.stored_left(X), clock.stored_left(O)],
            clock.running_since(),
        );
        assert_eq!(parts, clock);
        assert_eq!(parts.deadline(), Some(65_000));
    }

    #[test]
    fn a_time_before_the_clock_started_counts_as_its_start() {
        // A node whose clock is a little behind the one that moved.
        let clock = started(blitz(), 10_000);
        assert_eq!(clock.left(X, 9_000), 60_000);
        assert_eq!(clock.flagged(0), None);
        let clock = clock.punch(X, 3, 9_000).unwrap();
        assert_eq!(clock.left(X, 9_000), 62_000);
    }
}
