//! The [`Strategy`] trait every computer player implements, and
//! [`play_out`], which plays a game between two of them.
//!
//! This module knows no particular strategy: the strategies depend on it,
//! and [`StrategyKind`](crate::StrategyKind) (in `kind.rs`) builds them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxo_core::{Cell, Game, Rules};

/// A clock: the time now. Passed in, so that tests need no real time.
pub type Clock = Arc<dyn Fn() -> Instant + Send + Sync>;

/// The time by which a search must answer, read from a [`Clock`].
///
/// Clones share the time: [`Deadline::reset`] or [`Deadline::stop`] on one
/// moves them all, so a search running on another thread (pondering on
/// the opponent's time) can be given its real time once the opponent's
/// move is known, or called off.
#[derive(Clone)]
pub struct Deadline {
    shared: Arc<Shared>,
    clock: Clock,
}

/// What the clones of a [`Deadline`] share.
struct Shared {
    at: Mutex<Instant>,
    /// Set by [`Deadline::stop`]; never cleared.
    stopped: AtomicBool,
}

impl std::fmt::Debug for Deadline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deadline")
            .field("left", &self.left())
            .finish()
    }
}

impl Deadline {
    /// `limit` from now, by `clock`.
    #[must_use]
    pub fn after(limit: Duration, clock: Clock) -> Deadline {
        let at = clock() + limit;
        Deadline {
            shared: Arc::new(Shared {
                at: Mutex::new(at),
                stopped: AtomicBool::new(false),
            }),
            clock,
        }
    }

    /// Move the deadline (and its clones') to `limit` from now; a stopped
    /// deadline stays passed.
    pub fn reset(&self, limit: Duration) {
        let at = (self.clock)() + limit;
        *self.at() = at;
    }

    /// Pass the deadline (and its clones') now and for good.
    pub fn stop(&self) {
        self.shared.stopped.store(true, Ordering::Release);
    }

    /// Whether the time is up.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.shared.stopped.load(Ordering::Acquire) || (self.clock)() >= *self.at()
    }

    /// The time left (zero once passed).
    #[must_use]
    pub fn left(&self) -> Duration {
        if self.shared.stopped.load(Ordering::Acquire) {
            return Duration::ZERO;
        }
        self.at().saturating_duration_since((self.clock)())
    }

    fn at(&self) -> std::sync::MutexGuard<'_, Instant> {
        // An Instant cannot be left half-written: a poisoned lock's value
        // is whole.
        self.shared
            .at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A computer player: given a game in progress, choose a move for the
/// player to move.
///
/// The game loop depends only on this trait, so adding a strategy never
/// changes the loop (the seeds' Strategy pattern).
pub trait Strategy: Send {
    /// A legal move for `game.to_move()`, or `None` when the game is over.
    fn choose(&mut self, game: &Game) -> Option<Cell>;

    /// The strategy's name, as `--x`/`--o` spell it.
    fn name(&self) -> &str;

    /// Answer every later [`Strategy::choose`] by `deadline` (`None`: no
    /// limit but the strategy's own). A strategy that searches uses the
    /// time it has and stops in time; the others are quick and need not
    /// look (the default does nothing).
    fn set_deadline(&mut self, deadline: Option<Deadline>) {
        let _ = deadline;
    }

    /// Whether [`Strategy::choose`] searches until the deadline it is
    /// given and stops soon after it passes: such a strategy gains from
    /// more time (pondering on the opponent's) and can be called off. The
    /// default says no: the strategy answers in its own time, whatever
    /// the deadline.
    fn searches_to_deadline(&self) -> bool {
        false
    }

    /// Call off any later [`Strategy::choose`] once `stop` is set (`None`
    /// takes the flag away), as for Ctrl-C: a strategy that
    /// [searches to a deadline](Strategy::searches_to_deadline) reads it as
    /// often as its deadline and soon answers with the best move it has,
    /// which the caller, having stopped it, may discard. A flag left set
    /// cuts every later search short. The default ignores it: the others
    /// answer quickly anyway.
    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        let _ = stop;
    }

    /// Why the last [`Strategy::choose`] gave no move in a game still on,
    /// if there is more to say than that (an external engine that timed
    /// out or died, say). Taken: a second call says nothing.
    fn failure(&mut self) -> Option<String> {
        None
    }

    /// The moves, in the order played, that made the position of the
    /// first [`Strategy::choose`] to come (an arena's opening, say), since
    /// a [`Game`] keeps no history. A strategy that must tell another
    /// program the order stones were played in (a Gomocup engine's
    /// `BOARD`) keeps it; the default ignores it.
    fn start_from(&mut self, moves: &[Cell]) {
        let _ = moves;
    }
}

impl<S: Strategy + ?Sized> Strategy for Box<S> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        (**self).choose(game)
    }

    fn name(&self) -> &str {
        (**self).name()
    }

    fn set_deadline(&mut self, deadline: Option<Deadline>) {
        (**self).set_deadline(deadline);
    }

    fn searches_to_deadline(&self) -> bool {
        (**self).searches_to_deadline()
    }

    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        (**self).set_stop(stop);
    }

    fn failure(&mut self) -> Option<String> {
        (**self).failure()
    }

    fn start_from(&mut self, moves: &[Cell]) {
        (**self).start_from(moves);
    }
}

/// Why [`play_out`] stopped before the end of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {strategy} player {problem}")]
pub struct PlayOutError {
    /// The strategy at fault.
    pub strategy: String,
    /// What it did.
    pub problem: String,
}

/// Play `game` to its end, `x` choosing X's moves and `o` choosing O's, and
/// return the moves made.
///
/// # Errors
/// A strategy that offers no move, or an illegal one, while the game goes
/// on (a bug in that strategy).
pub fn play_out(
    game: &mut Game,
    x: &mut dyn Strategy,
    o: &mut dyn Strategy,
) -> Result<Vec<Cell>, PlayOutError> {
    let mut moves = Vec::new();
    while !game.is_over() {
        let player: &mut dyn Strategy = match game.to_move() {
            oxo_core::Player::X => &mut *x,
            oxo_core::Player::O => &mut *o,
        };
        let choice = player.choose(game);
        let fault = |problem: String| PlayOutError {
            strategy: player.name().to_owned(),
            problem,
        };
        let cell = choice.ok_or_else(|| fault(format!("offered no move in {game}")))?;
        game.play(cell)
            .map_err(|e| fault(format!("offered {cell} in {game}: {e}")))?;
        moves.push(cell);
    }
    Ok(moves)
}

/// The cells random openings are drawn from: a box around the centre of
/// the board, reaching `moves.div_ceil(2) + 1` cells each way (wider for
/// longer openings; cut by the board's edges), in row-major order. `oxo
/// arena --opening` and searched self-play ([`crate::learned::refit`])
/// open their games from it.
#[must_use]
pub fn opening_room(rules: Rules, moves: u32) -> Vec<Cell> {
    let reach = moves.div_ceil(2) + 1;
    let span = |n: u32| ((n / 2).saturating_sub(reach), (n / 2 + reach).min(n - 1));
    let ((top, bottom), (left, right)) = (span(rules.rows()), span(rules.cols()));
    (top..=bottom)
        .flat_map(|r| (left..=right).map(move |c| Cell::new(r, c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;

    use super::*;

    /// A clock standing at `now` milliseconds after a fixed start.
    fn manual() -> (Clock, Arc<AtomicU64>) {
        let start = Instant::now();
        let now = Arc::new(AtomicU64::new(0));
        let read = Arc::clone(&now);
        let clock: Clock =
            Arc::new(move || start + Duration::from_millis(read.load(Ordering::SeqCst)));
        (clock, now)
    }

    #[test]
    fn clones_share_a_reset_and_a_stop() {
        let (clock, now) = manual();
        let deadline = Deadline::after(Duration::from_millis(100), clock);
        let searching = deadline.clone();
        now.store(150, Ordering::SeqCst);
        assert!(searching.passed());
        // Given its time afresh, as a pondering search is on a hit.
        deadline.reset(Duration::from_millis(40));
        assert!(!searching.passed());
        assert_eq!(searching.left(), Duration::from_millis(40));
        now.store(190, Ordering::SeqCst);
        assert!(searching.passed());
        // Stopped is passed for good, whatever reset says after.
        deadline.reset(Duration::from_secs(60));
        deadline.stop();
        deadline.reset(Duration::from_secs(60));
        assert!(searching.passed());
        assert_eq!(searching.left(), Duration::ZERO);
    }
}
