//! A played round valued move by move, for the analysis board: exact
//! where the solver answers at once ([`Solver::answers_quickly`]), the
//! engine's estimate ([`AlphaBeta::estimate`]) elsewhere, within a budget
//! of positions for the whole round, and the moves that gave something away
//! marked.
//!
//! Exact moves are mistakes when they lower the position's value: a won
//! position left undecided or lost ("gave away a win"), a drawn one lost
//! ("gave away a draw"). Estimated moves are mistakes when they let go of a
//! forced win the engine saw, or when the engine's gauge for the player
//! who moved drops by more than [`MISTAKE_MARGIN`] from its best move's to
//! the move played. Either is only as good as its search, and is labelled
//! so.

use oxo_core::{Cell, Game, MoveError, Player};

use crate::{AlphaBeta, Eval, Score, SolveError, Solver, Value};

/// Positions the engine searches for one estimate on the analysis board
/// and in hints, as many as the computer's move
/// ([`AlphaBeta::DEFAULT_BUDGET`]): about a tenth of a second on 15×15 in
/// a release build (`cargo run --release -p oxo-ai --example estimate`).
pub const ESTIMATE_BUDGET: u64 = AlphaBeta::DEFAULT_BUDGET;

/// Positions the engine searches for a whole review, at most: each
/// position it values gets an equal share, up to [`ESTIMATE_BUDGET`] and
/// at least [`REVIEW_MIN_BUDGET`].
pub const REVIEW_BUDGET: u64 = 2_000_000;

/// The least share of [`REVIEW_BUDGET`] a position gets: enough for the
/// first iterations, so a long round is valued more shallowly, never not
/// at all (a 15×15 board's 225 positions cost at most 2.25 million).
pub const REVIEW_MIN_BUDGET: u64 = 10_000;

/// The drop of the engine's gauge (from the best move's to the move
/// played, for the player who moved, on its scale of −1 to 1) past which an
/// estimated move is marked a mistake.
pub const MISTAKE_MARGIN: f64 = 0.3;

/// How many best moves an estimate lists.
pub const ESTIMATE_MOVES: usize = 5;

/// Why a round could not be reviewed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// A move the rules refuse.
    #[error("move {number} ({}, {}): {error}", cell.row, cell.col)]
    Move {
        /// The move's number, from 1.
        number: usize,
        /// Its cell.
        cell: Cell,
        /// Why the rules refuse it.
        error: MoveError,
    },
    /// The solver failed on a position it said it answers.
    #[error(transparent)]
    Solve(#[from] SolveError),
}

/// How one move was valued.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// By the solver: what the best move and the move played lead to, for
    /// the player who moved.
    Exact {
        /// The best move's value.
        best: Eval,
        /// The move played's value.
        played: Eval,
    },
    /// By the engine: the best move's score and the move played's, for the
    /// player who moved (the best is never below the move played).
    Estimate {
        /// The best move's score.
        best: Score,
        /// The move played's score.
        played: Score,
    },
}

/// What a mistake gave away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mistake {
    /// A won position (or, estimated, a forced win the engine saw) let go.
    GaveAwayWin,
    /// A drawn position lost (exact only).
    GaveAwayDraw,
    /// The engine's gauge dropped by more than [`MISTAKE_MARGIN`].
    Dropped,
}

/// One move of a reviewed round.
#[derive(Clone, Debug, PartialEq)]
pub struct Reviewed {
    /// The move's cell.
    pub cell: Cell,
    /// Who played it.
    pub player: Player,
    /// Its value and the best move's.
    pub judged: Judged,
    /// A best move in the position (the solver's first, or the engine's).
    pub best_move: Cell,
    /// What it gave away, if anything.
    pub mistake: Option<Mistake>,
}

impl Reviewed {
    /// How far an estimated move's gauge fell short of the best move's, for
    /// the player who moved (0 to 2); `None` for exact moves.
    #[must_use]
    pub fn drop(&self) -> Option<f64> {
        match self.judged {
            Judged::Exact { .. } => None,
            Judged::Estimate { best, played } => Some(best.gauge() - played.gauge()),
        }
    }
}

/// A reviewed round.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// Every move, in order.
    pub moves: Vec<Reviewed>,
    /// Positions the engine searched in all.
    pub nodes: u64,
}

/// Value every move of `moves` played from `start`, with `solver` (for
/// `start`'s rules) where it answers at once and the engine elsewhere.
/// Deterministic: the same moves get the same review.
///
/// # Errors
/// [`ReviewError::Move`] for an illegal move; [`ReviewError::Solve`] when
/// the solver fails (other rules than the game's).
pub fn review(
    start: &Game,
    moves: &[Cell],
    mut solver: Option<&mut Solver>,
) -> Result<Review, ReviewError> {
    let mut positions = vec![start.clone()];
    for (n, &cell) in moves.iter().enumerate() {
        let mut next = positions[n].clone();
        next.play(cell).map_err(|error| ReviewError::Move {
            number: n + 1,
            cell,
            error,
        })?;
        positions.push(next);
    }
    let exact = |game: &Game, solver: &Option<&mut Solver>| {
        solver.is_some() && Solver::answers_quickly(game)
    };
    // The engine values each position before an inexact move, and the one
    // after it when that is neither over nor exact.
    let mut needed = vec![false; positions.len()];
    for i in 0..moves.len() {
        if !exact(&positions[i], &solver) {
            needed[i] = true;
            let after = &positions[i + 1];
            needed[i + 1] |= !after.is_over() && !exact(after, &solver);
        }
    }
    let count = needed.iter().filter(|&&n| n).count() as u64;
    let share = (REVIEW_BUDGET / count.max(1)).clamp(REVIEW_MIN_BUDGET, ESTIMATE_BUDGET);
    let mut engine = AlphaBeta::new(0).with_budget(share);
    let mut nodes = 0;
    let estimates: Vec<_> = positions
        .iter()
        .zip(&needed)
        .map(|(game, &needed)| {
            let estimate = needed.then(|| engine.estimate(game, 1)).flatten();
            nodes += estimate.as_ref().map_or(0, |e| e.nodes);
            estimate
        })
        .collect();

    let mut reviewed = Vec::with_capacity(moves.len());
    for (i, &cell) in moves.iter().enumerate() {
        let player = positions[i].to_move();
        let after = &positions[i + 1];
        let entry = if exact(&positions[i], &solver) {
            let solver = solver.as_deref_mut().expect("a solver for exact values");
            let analysis = solver.analyse(&positions[i])?;
            let (best_move, best) = analysis.moves[0];
            let played = analysis
                .moves
                .iter()
                .find(|m| m.0 == cell)
                .map(|m| m.1)
                .expect("the move played is legal");
            let mistake = match (best.value, played.value) {
                (Value::Win, Value::Draw | Value::Loss) => Some(Mistake::GaveAwayWin),
                (Value::Draw, Value::Loss) => Some(Mistake::GaveAwayDraw),
                _ => None,
            };
            Reviewed {
                cell,
                player,
                judged: Judged::Exact { best, played },
                best_move,
                mistake,
            }
        } else {
            let before = estimates[i].as_ref().expect("an estimate before the move");
            let played = if let Some(value) = Value::of_finished(after) {
                score_of(Eval {
                    value: -value,
                    plies: 1,
                })
            } else if let Some(estimate) = &estimates[i + 1] {
                -grow(estimate.score)
            } else {
                let solver = solver.as_deref_mut().expect("a solver for exact values");
                -grow(score_of(solver.evaluate(after)?))
            };
            let (best_move, best) = before.moves[0];
            let best = if best.gauge() >= played.gauge() {
                best
            } else {
                played
            };
            let mistake = if matches!(best, Score::Win(_)) && !matches!(played, Score::Win(_)) {
                Some(Mistake::GaveAwayWin)
            } else if best.gauge() - played.gauge() > MISTAKE_MARGIN {
                Some(Mistake::Dropped)
            } else {
                None
            };
            Reviewed {
                cell,
                player,
                judged: Judged::Estimate { best, played },
                best_move,
                mistake,
            }
        };
        reviewed.push(entry);
    }
    Ok(Review {
        moves: reviewed,
        nodes,
    })
}

/// An exact value as a score for the player to move.
fn score_of(eval: Eval) -> Score {
    match eval.value {
        Value::Win => Score::Win(eval.plies),
        Value::Draw => Score::Gauge(0.0),
        Value::Loss => Score::Loss(eval.plies),
    }
}

/// The score of the position before the opponent's move `score` is for,
/// one ply further from its end.
fn grow(score: Score) -> Score {
    match score {
        Score::Win(n) => Score::Win(n + 1),
        Score::Loss(n) => Score::Loss(n + 1),
        gauge @ Score::Gauge(_) => gauge,
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Rules;

    use super::*;

    fn cells(moves: &[(u32, u32)]) -> Vec<Cell> {
        moves.iter().map(|&(r, c)| Cell::new(r, c)).collect()
    }

    #[test]
    fn tic_tac_toe_is_reviewed_exactly() {
        // X in a corner, O beside it (a losing reply), X wins: O's move
        // gave away the draw; X then missed the quickest win but kept it.
        let start = Game::default();
        let moves = cells(&[(0, 0), (0, 1), (1, 1), (2, 2), (1, 0), (1, 2), (2, 0)]);
        let mut solver = Solver::new(start.rules(), 1 << 20).unwrap();
        let review = review(&start, &moves, Some(&mut solver)).unwrap();
        assert_eq!(review.moves.len(), 7);
        assert_eq!(review.nodes, 0, "no engine search");
        let first = &review.moves[0];
        assert!(
            matches!(first.judged, Judged::Exact { best, played } if best.value == Value::Draw && played.value == Value::Draw)
        );
        assert_eq!(first.mistake, None);
        assert_eq!(review.moves[1].player, Player::O);
        assert_eq!(review.moves[1].mistake, Some(Mistake::GaveAwayDraw));
        assert!(review.moves.iter().all(|m| m.drop().is_none()));
        // The last move wins: nothing given away.
        assert_eq!(review.moves[6].mistake, None);
    }

    #[test]
    fn a_missed_win_on_gomoku_is_marked_from_the_estimates() {
        // X makes an open four while O makes a four of its own; X plays
        // elsewhere instead of winning, and O wins.
        let start = Game::new(Rules::new(15, 15, 5).unwrap());
        let moves = cells(&[
            (7, 5),
            (3, 5),
            (7, 6),
            (3, 6),
            (7, 7),
            (3, 7),
            (7, 8),
            (3, 8),
            (10, 10),
            (3, 9),
        ]);
        let review = review(&start, &moves, None).unwrap();
        assert!(review.nodes > 0);
        assert!(review.nodes <= REVIEW_BUDGET + ESTIMATE_BUDGET);
        let missed = &review.moves[8];
        assert_eq!(missed.player, Player::X);
        assert!([Cell::new(7, 4), Cell::new(7, 9)].contains(&missed.best_move));
        assert_eq!(missed.mistake, Some(Mistake::GaveAwayWin), "{missed:?}");
        assert!(matches!(
            missed.judged,
            Judged::Estimate {
                best: Score::Win(1),
                ..
            }
        ));
        assert!(missed.drop().unwrap() > 0.0);
        assert!(matches!(
            missed.judged,
            Judged::Estimate {
                played: Score::Loss(2),
                ..
            }
        ));
        // O's win at the end gave nothing away.
        assert_eq!(review.moves[9].mistake, None, "{:?}", review.moves[9]);
        assert!(matches!(
            review.moves[9].judged,
            Judged::Estimate {
                played: Score::Win(1),
                ..
            }
        ));
        // The same moves, the same review.
        assert_eq!(super::review(&start, &moves, None).unwrap(), review);
    }

    #[test]
    fn a_seven_by_seven_round_turns_exact_when_sixteen_cells_are_empty() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let start = Game::new(rules);
        let mut game = start.clone();
        let mut moves = Vec::new();
        // Fill row by row, avoiding five in a row: a drawn-looking shape.
        let order: Vec<Cell> = (0..7)
            .flat_map(|r| (0..7).map(move |c| Cell::new(r, (c + 2 * r) % 7)))
            .collect();
        for cell in order.into_iter().take(34) {
            if game.is_over() {
                break;
            }
            game.play(cell).unwrap();
            moves.push(cell);
        }
        let mut solver = Solver::new(rules, 1 << 20).unwrap();
        let review = review(&start, &moves, Some(&mut solver)).unwrap();
        let exact: Vec<bool> = review
            .moves
            .iter()
            .map(|m| matches!(m.judged, Judged::Exact { .. }))
            .collect();
        // Moves made with at most 16 cells empty are exact, the rest not.
        assert_eq!(exact.iter().position(|&e| e), Some(49 - 16), "{exact:?}");
        assert!(exact[33..].iter().all(|&e| e));
    }

    #[test]
    fn an_illegal_move_is_named() {
        let error = review(&Game::default(), &cells(&[(0, 0), (0, 0)]), None).unwrap_err();
        assert!(error.to_string().starts_with("move 2 (0, 0)"), "{error}");
    }
}
