//! When a player may see hints: the solver's value of every move.
//!
//! One rule for every front end (the web game, the terminal game): hints
//! come only where [`Valuer`] answers at once (every position of a board
//! of up to 25 cells, every position of 7×7 k=5, and other boards up to
//! 7×7 once at most 16 cells are empty), and never while two people play a
//! round, since a hint is then help for one of them against the other.
//! Games against the computer and finished rounds get them.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use oxo_core::{Game, Rules};

use crate::exact::{SomeValues, Valuer, ValuesError};
use crate::solver::{QUICK_MAX_CELLS, QUICK_MAX_EMPTY, Solver};

/// The transposition table each of a hint valuer's searches keeps: 16 MiB
/// answers any position [`Valuer::answers_quickly`] admits in well under a
/// second.
pub const HINT_TABLE_BYTES: usize = 16 << 20;

/// The positions a hint's searches may visit in all where the prover
/// values the moves: well under a second of its search on this machine
/// kind (a second pass, where the first runs out, as many again). A
/// position beyond the opening table that needs more (on 7×7 k=5, some
/// positions after three moves that the table does not hold, and some
/// later ones, where a side forces a line against a mere blocker and the
/// real game's search is long) gets the values of the moves a second pass
/// of the same budget reaches ([`Valuer::some_values`]) rather
/// than a long wait.
pub const HINT_BUDGET: u64 = 300_000;

/// The budget of a longer look, asked for where the hints' budget left
/// moves without a value (the web game's "Look further"), two passes at
/// most as for [`HINT_BUDGET`]: seconds of search on this machine kind,
/// well within a server's 30 s for a request even when it is busy; how far
/// it reaches is measured in `docs/benchmarks.md` ("A longer look").
pub const LONGER_BUDGET: u64 = 5_000_000;

/// A valuer as hints use it: tables of [`HINT_TABLE_BYTES`], each call
/// within [`HINT_BUDGET`] positions (twice that for
/// [`Valuer::some_values`]).
///
/// # Errors
/// As [`Valuer::new`].
pub fn hint_valuer(rules: Rules) -> Result<Valuer, ValuesError> {
    let mut valuer = Valuer::new(rules, HINT_TABLE_BYTES)?;
    valuer.set_budget(Some(HINT_BUDGET));
    Ok(valuer)
}

/// Run `look` with `valuer` at `budget` positions a pass and stopping once
/// `stop` is raised, then leave the valuer as hints keep it: at
/// [`HINT_BUDGET`], with no stop flag (the server's pool and the terminal
/// game's thread keep one valuer for every look).
pub fn with_look<T>(
    valuer: &mut Valuer,
    budget: u64,
    stop: Option<Arc<AtomicBool>>,
    look: impl FnOnce(&mut Valuer) -> T,
) -> T {
    valuer.set_budget(Some(budget));
    valuer.set_stop(stop);
    let answer = look(valuer);
    valuer.set_budget(Some(HINT_BUDGET));
    valuer.set_stop(None);
    answer
}

/// Why there are no hints for a position, or not every move's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoHints {
    /// Two people are playing the round.
    #[error(
        "hints are not available in a round between two people until it is over; they are for games against the computer and finished rounds"
    )]
    BetweenPeople,
    /// No search here would answer at once.
    #[error(
        "values are given on boards of up to {QUICK_MAX_CELLS} cells and on 7x7 k=5 at every stage, and on other boards that fit the solver (up to 8x7 or 7x8) once at most {QUICK_MAX_EMPTY} cells are empty"
    )]
    TooSlow,
    /// The hints' budget ran out before every move had its value: `valued`
    /// of the position's `moves` have theirs.
    #[error("{}", over_budget(*valued, *moves))]
    OverBudget {
        /// Moves with their value.
        valued: usize,
        /// Legal moves.
        moves: usize,
    },
    /// As [`NoHints::OverBudget`], after a longer look ([`LONGER_BUDGET`]).
    #[error(
        "{}; looking again may value more (oxo solve values every move without a limit)",
        after_longer(*valued, *moves)
    )]
    OverLongerBudget {
        /// Moves with their value.
        valued: usize,
        /// Legal moves.
        moves: usize,
    },
}

/// [`NoHints::OverBudget`]'s message.
fn over_budget(valued: usize, moves: usize) -> String {
    if valued == 0 {
        format!(
            "none of the {moves} moves has its exact value within the hints' budget; they need a longer search"
        )
    } else {
        format!(
            "exact values for {valued} of the {moves} moves within the hints' budget; the others need a longer search"
        )
    }
}

/// The start of [`NoHints::OverLongerBudget`]'s message.
fn after_longer(valued: usize, moves: usize) -> String {
    if valued == 0 {
        format!("none of the {moves} moves has its exact value after a longer search")
    } else {
        format!("exact values for {valued} of the {moves} moves after a longer search")
    }
}

/// The moves `values` valued, and all the position's legal moves.
fn counts(values: &SomeValues) -> (usize, usize) {
    (
        values.moves.len(),
        values.moves.len() + values.unvalued.len(),
    )
}

impl NoHints {
    /// Why `values`, found within the hints' budget ([`HINT_BUDGET`]),
    /// leave moves without a value, if they do.
    #[must_use]
    pub fn of(values: &SomeValues) -> Option<NoHints> {
        let (valued, moves) = counts(values);
        (!values.is_complete()).then_some(NoHints::OverBudget { valued, moves })
    }

    /// [`NoHints::of`] values found by a longer look ([`LONGER_BUDGET`]).
    #[must_use]
    pub fn of_longer(values: &SomeValues) -> Option<NoHints> {
        let (valued, moves) = counts(values);
        (!values.is_complete()).then_some(NoHints::OverLongerBudget { valued, moves })
    }

    /// Whether a longer look ([`LONGER_BUDGET`]) may value more moves:
    /// wherever a budget ran out, a longer look's too (a valuer keeps what
    /// its searches proved, so asking it again goes on from there).
    #[must_use]
    pub const fn longer_look_helps(self) -> bool {
        matches!(
            self,
            NoHints::OverBudget { .. } | NoHints::OverLongerBudget { .. }
        )
    }
}

/// Whether hints may be shown for `game`, whose two sides are both people
/// when `between_people`.
///
/// # Errors
/// [`NoHints::BetweenPeople`] while two people play a round that is not
/// over; [`NoHints::TooSlow`] where [`Valuer`] would not answer at once.
pub fn hints_allowed(game: &Game, between_people: bool) -> Result<(), NoHints> {
    if between_people && !game.is_over() {
        return Err(NoHints::BetweenPeople);
    }
    if !Valuer::answers_quickly(game) {
        return Err(NoHints::TooSlow);
    }
    Ok(())
}

/// Whether any position on a board of `rules` gets hints: on every board
/// the solver holds, at once on the small ones and 7x7 k=5, elsewhere
/// once at most [`QUICK_MAX_EMPTY`] cells are empty (so a board whose
/// positions [`hints_allowed`] refuses as [`NoHints::TooSlow`] may still
/// get them later in a game); never on the others (larger boards, the
/// exactly-k rule).
#[must_use]
pub fn hints_ever(rules: Rules) -> bool {
    Solver::can_solve(rules)
}

#[cfg(test)]
mod tests {
    use oxo_core::{Game, Rules};

    use super::*;

    #[test]
    fn people_get_hints_once_their_round_is_over() {
        let live = Game::from_notation("X../.O./...", 3).unwrap();
        assert_eq!(hints_allowed(&live, true), Err(NoHints::BetweenPeople));
        assert_eq!(hints_allowed(&live, false), Ok(()));
        let over = Game::from_notation("XXX/OO./...", 3).unwrap();
        assert_eq!(hints_allowed(&over, true), Ok(()));
    }

    #[test]
    fn big_boards_wait_until_the_solver_is_quick() {
        let empty = Game::new(Rules::new(7, 7, 4).unwrap());
        assert_eq!(hints_allowed(&empty, false), Err(NoHints::TooSlow));
        let eight = Game::new(Rules::new(8, 8, 5).unwrap());
        assert_eq!(hints_allowed(&eight, false), Err(NoHints::TooSlow));
        let gomoku = Game::new(Rules::new(15, 15, 5).unwrap());
        assert_eq!(hints_allowed(&gomoku, false), Err(NoHints::TooSlow));
        assert!(NoHints::TooSlow.to_string().contains("up to 25 cells"));
        assert!(hints_ever(Rules::new(7, 7, 4).unwrap()));
        assert!(hints_ever(Rules::new(8, 7, 5).unwrap()));
        assert!(!hints_ever(Rules::new(15, 15, 5).unwrap()));
        assert!(!hints_ever(Rules::new(9, 9, 5).unwrap()));
    }

    #[test]
    fn over_budget_says_how_many_moves_have_their_values() {
        let some = NoHints::OverBudget {
            valued: 10,
            moves: 46,
        };
        assert!(
            some.to_string()
                .starts_with("exact values for 10 of the 46 moves")
        );
        let none = NoHints::OverBudget {
            valued: 0,
            moves: 46,
        };
        assert!(
            none.to_string()
                .starts_with("none of the 46 moves has its exact value")
        );
        assert!(some.longer_look_helps());
        let longer = NoHints::OverLongerBudget {
            valued: 10,
            moves: 46,
        };
        assert_eq!(
            longer.to_string(),
            "exact values for 10 of the 46 moves after a longer search; looking again may value more (oxo solve values every move without a limit)"
        );
        assert!(longer.longer_look_helps());
        assert!(!NoHints::TooSlow.longer_look_helps());
    }

    #[test]
    fn seven_by_seven_k5_has_hints_from_the_first_move() {
        let rules = Rules::new(7, 7, 5).unwrap();
        assert!(crate::exact::every_stage_boards().contains(&rules));
        assert_eq!(hints_allowed(&Game::new(rules), false), Ok(()));
        let mut game = Game::new(rules);
        game.play(oxo_core::Cell::new(3, 3)).unwrap();
        assert_eq!(hints_allowed(&game, false), Ok(()));
        assert_eq!(hints_allowed(&game, true), Err(NoHints::BetweenPeople));
    }
}
