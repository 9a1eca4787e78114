//! Moves graded against perfect play by the solver.
//!
//! [`ValueKeeping`] grades a learned model's choices over a fixed set of
//! positions: the share of its moves that keep the position's true value (a
//! won position stays won, a drawn one drawn). It is the figure the learning
//! curve ([`crate::curve`]) follows from checkpoint to checkpoint, so the
//! positions are chosen once and every value looked up is remembered.
//!
//! [`GameGrader`] grades every move of played games (such as the arena's,
//! [`crate::arena::run_recorded`]): which moves let a won position go, which
//! turned a draw into a loss; [`GradeSummary`] adds the games up.

use std::collections::HashMap;

use oxo_core::{Cell, Game, Player, Rules};

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

/// Memory for the game grader's solver table.
const GAME_TABLE_BYTES: usize = 256 << 20;

/// A losing move, as the solver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mistake {
    /// From a won position to one not won.
    WinLetGo,
    /// From a drawn position to a lost one.
    DrawLost,
}

impl std::fmt::Display for Mistake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mistake::WinLetGo => "let a won position go",
            Mistake::DrawLost => "turned a draw into a loss",
        })
    }
}

/// One game's moves as the solver graded them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GradedGame {
    /// Per side (X, O): moves that let a won position go.
    pub wins_let_go: [u64; 2],
    /// Per side: moves that turned a draw into a loss.
    pub draws_lost: [u64; 2],
    /// Per side: whether it ever had a won position to move from.
    pub stood_on_win: [bool; 2],
    /// Positions left out for having too few marks (see [`GameGrader`]).
    pub early: u64,
    /// Positions the solver gave up on, over its node budget.
    pub over_budget: u64,
    /// The first mistake: its ply (from the start given), the side that
    /// made it, and what it was.
    pub first: Option<(usize, Player, Mistake)>,
}

/// Grades every move of played games by the solver: which moves let a won
/// position go, which turned a draw into a loss.
///
/// On boards of more than [`QUICK_MAX_CELLS`](crate::solver::QUICK_MAX_CELLS)
/// cells, positions with fewer than [`GameGrader::FROM_MARKS`] marks are not
/// graded (on 7×7 they take the solver minutes, the empty board a quarter of
/// an hour), and a position over [`GameGrader::BUDGET`] nodes is left
/// ungraded.
#[derive(Debug)]
pub struct GameGrader {
    solver: Solver,
}

impl GameGrader {
    /// Positions the solver may search before calling one ungraded.
    pub const BUDGET: u64 = 20_000_000;

    /// On boards the solver is not quick on, positions with fewer marks are
    /// not graded.
    pub const FROM_MARKS: usize = 2;

    /// A grader for games of `rules`.
    ///
    /// # Errors
    /// The solver cannot solve this board.
    pub fn new(rules: Rules) -> Result<GameGrader, SolveError> {
        let mut solver = Solver::new(rules, GAME_TABLE_BYTES)?;
        solver.set_budget(Some(Self::BUDGET));
        Ok(GameGrader { solver })
    }

    /// Grade `moves` played from `start`.
    ///
    /// # Errors
    /// A move that is not legal where it was played, or a solver failure
    /// other than running over its budget.
    pub fn grade(&mut self, start: &Game, moves: &[Cell]) -> Result<GradedGame, GradeError> {
        // The value of each position for its player to move, and who moved.
        let mut values = Vec::with_capacity(moves.len() + 1);
        let mut movers = Vec::with_capacity(moves.len());
        let mut game = start.clone();
        let from = if game.rules().cell_count() > crate::solver::QUICK_MAX_CELLS {
            Self::FROM_MARKS
        } else {
            0
        };
        let mut graded = GradedGame::default();
        for ply in 0..=moves.len() {
            values.push(match Value::of_finished(&game) {
                Some(value) => Some(value),
                None if game.move_count() < from => {
                    graded.early += 1;
                    None
                }
                None => match self.solver.value(&game) {
                    Ok(value) => Some(value),
                    Err(SolveError::OverBudget { .. }) => {
                        graded.over_budget += 1;
                        None
                    }
                    Err(e) => return Err(e.into()),
                },
            });
            if let Some(&cell) = moves.get(ply) {
                movers.push(game.to_move());
                game.play(cell)?;
            }
        }
        for (ply, &mover) in movers.iter().enumerate() {
            let side = mover.index();
            if values[ply] == Some(Value::Win) {
                graded.stood_on_win[side] = true;
            }
            let (Some(before), Some(after)) = (values[ply], values[ply + 1]) else {
                continue;
            };
            let mistake = match (before, -after) {
                (Value::Win, Value::Draw | Value::Loss) => {
                    graded.wins_let_go[side] += 1;
                    Mistake::WinLetGo
                }
                (Value::Draw, Value::Loss) => {
                    graded.draws_lost[side] += 1;
                    Mistake::DrawLost
                }
                _ => continue,
            };
            graded.first.get_or_insert((ply, mover, mistake));
        }
        Ok(graded)
    }
}

/// Why a game could not be graded.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// The solver failed on a position.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A move of the game was not legal.
    #[error(transparent)]
    Move(#[from] oxo_core::MoveError),
}

/// Graded games added up, side by side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GradeSummary {
    /// Games graded.
    pub games: u64,
    /// Per side (X, O): moves that let a won position go.
    pub wins_let_go: [u64; 2],
    /// Per side: moves that turned a draw into a loss.
    pub draws_lost: [u64; 2],
    /// Per side: games in which it stood on a won position and did not win.
    pub won_games_not_won: [u64; 2],
    /// Drawn games.
    pub draws: u64,
    /// Drawn games in which neither side ever stood on a won position (and
    /// no position was over the solver's budget: it might have been won).
    pub clean_draws: u64,
    /// Positions left out for having too few marks.
    pub early: u64,
    /// Positions the solver gave up on.
    pub over_budget: u64,
}

impl GradeSummary {
    /// Count one graded game, won by `winner` (`None` for a draw).
    pub fn add(&mut self, game: &GradedGame, winner: Option<Player>) {
        self.games += 1;
        self.early += game.early;
        self.over_budget += game.over_budget;
        for side in [Player::X, Player::O] {
            let i = side.index();
            self.wins_let_go[i] += game.wins_let_go[i];
            self.draws_lost[i] += game.draws_lost[i];
            if game.stood_on_win[i] && winner != Some(side) {
                self.won_games_not_won[i] += 1;
            }
        }
        if winner.is_none() {
            self.draws += 1;
            if !game.stood_on_win.contains(&true) && game.over_budget == 0 {
                self.clean_draws += 1;
            }
        }
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

    #[test]
    fn a_losing_reply_is_found_and_counted() {
        let rules = Rules::TIC_TAC_TOE;
        let start = Game::new(rules);
        // X takes the centre and O answers on an edge: a lost position,
        // from which X moves on.
        let moves = [Cell::new(1, 1), Cell::new(0, 1), Cell::new(0, 0)];
        let mut grader = GameGrader::new(rules).unwrap();
        let graded = grader.grade(&start, &moves).unwrap();
        assert_eq!(graded.draws_lost, [0, 1], "{graded:?}");
        assert_eq!(graded.first, Some((1, Player::O, Mistake::DrawLost)));
        assert!(graded.stood_on_win[Player::X.index()]);
        assert_eq!((graded.early, graded.over_budget), (0, 0));
        let mut summary = GradeSummary::default();
        summary.add(&graded, None);
        summary.add(&GradedGame::default(), None);
        assert_eq!(summary.games, 2);
        assert_eq!(summary.draws_lost, [0, 1]);
        assert_eq!(summary.won_games_not_won, [1, 0]);
        assert_eq!((summary.draws, summary.clean_draws), (2, 1));
        assert_eq!(Mistake::WinLetGo.to_string(), "let a won position go");
        let mut wrong = moves;
        wrong[1] = wrong[0];
        assert!(matches!(
            grader.grade(&start, &wrong),
            Err(GradeError::Move(_))
        ));
    }
}
