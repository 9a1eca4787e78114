//! Moves graded against perfect play by the solver.
//!
//! [`ValueKeeping`] grades a learned model's choices over a fixed set of
//! positions: the share of its moves that keep the position's true value (a
//! won position stays won, a drawn one drawn). It is the figure the learning
//! curve ([`crate::curve`]) follows from checkpoint to checkpoint, so the
//! positions are chosen once and every value looked up is remembered.

use std::collections::HashMap;

use oxo_core::{Game, Player, Rules};

use crate::learned::{self, ValueShare};
use crate::{Model, ModelError, SolveError, Solver, StrongSolution, Value};

/// Boards up to this many cells have their moves graded by the solver.
pub const GRADE_MAX_CELLS: usize = 25;

/// Boards up to this many cells are graded on every reachable position
/// (3×3: 4,520), others on positions from random games.
const GRADE_ALL_MAX_CELLS: usize = 9;

/// Memory for the grading solver's table.
const GRADE_TABLE_BYTES: usize = 64 << 20;

/// Grades a learned player's moves against perfect play on one board,
/// remembering every value it has looked up (the positions repeat at every
/// grading).
pub struct ValueKeeping {
    positions: Vec<Game>,
    strong: Option<StrongSolution>,
    solver: Option<Solver>,
    known: HashMap<Vec<Option<Player>>, Option<Value>>,
}

impl std::fmt::Debug for ValueKeeping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValueKeeping")
            .field("positions", &self.positions.len())
            .field("every_position", &self.strong.is_some())
            .finish_non_exhaustive()
    }
}

impl ValueKeeping {
    /// A grader for `rules`: on boards of up to 9 cells every reachable
    /// position, solved once; on boards of up to [`GRADE_MAX_CELLS`] cells,
    /// `sample` positions from random games drawn from `seed`, valued by the
    /// solver as they are met. `None` when `sample` is 0 or the board is
    /// too large for the solver to grade quickly.
    ///
    /// # Errors
    /// The solver refused a board it said it could solve (a bug).
    pub fn new(rules: Rules, sample: usize, seed: u64) -> Result<Option<ValueKeeping>, SolveError> {
        let cells = rules.cell_count();
        if sample == 0 || cells > GRADE_MAX_CELLS || !Solver::can_solve(rules) {
            return Ok(None);
        }
        Ok(Some(if cells <= GRADE_ALL_MAX_CELLS {
            ValueKeeping {
                positions: learned::reachable_positions(rules),
                strong: Some(StrongSolution::compute(rules)?),
                solver: None,
                known: HashMap::new(),
            }
        } else {
            ValueKeeping {
                positions: learned::sample_positions(rules, sample, seed),
                strong: None,
                solver: Some(Solver::new(rules, GRADE_TABLE_BYTES)?),
                known: HashMap::new(),
            }
        }))
    }

    /// The positions graded.
    #[must_use]
    pub fn positions(&self) -> &[Game] {
        &self.positions
    }

    /// How many of the moves the greedy player of `model` (tie-breaks by
    /// `seed`) makes in the positions keep their value (see
    /// [`learned::value_keeping_share`]).
    ///
    /// # Errors
    /// The model is for another board.
    pub fn grade(&mut self, model: &Model, seed: u64) -> Result<ValueShare, ModelError> {
        let ValueKeeping {
            positions,
            strong,
            solver,
            known,
        } = self;
        learned::value_keeping_share(model, positions, seed, |game| {
            match (strong.as_ref(), solver.as_mut()) {
                (Some(strong), _) => strong.get(game).map(|e| e.value),
                (None, Some(solver)) => *known
                    .entry(game.cells().to_vec())
                    .or_insert_with(|| solver.value(game).ok()),
                (None, None) => None,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_boards_grade_every_position_and_big_ones_none() {
        let mut grader = ValueKeeping::new(Rules::TIC_TAC_TOE, 100, 1)
            .unwrap()
            .unwrap();
        assert_eq!(grader.positions().len(), 4_520);
        let untrained = Model::new(Rules::TIC_TAC_TOE);
        let share = grader.grade(&untrained, 0).unwrap();
        assert_eq!(share.graded, 4_520);
        let four = Rules::new(4, 4, 4).unwrap();
        let sampled = ValueKeeping::new(four, 30, 1).unwrap().unwrap();
        assert_eq!(sampled.positions().len(), 30);
        assert!(ValueKeeping::new(four, 0, 1).unwrap().is_none());
        let big = Rules::new(7, 7, 5).unwrap();
        assert!(ValueKeeping::new(big, 100, 1).unwrap().is_none());
    }
}
