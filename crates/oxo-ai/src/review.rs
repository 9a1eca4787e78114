//! A played round valued move by move, for the analysis board: exact
//! where the hints' valuer answers ([`Valuer::values`]: at once where the
//! solver does, and on 7×7 k=5 within the hints' budget a position), the
//! engine's estimate ([`AlphaBeta::estimate`]) elsewhere, each within a
//! budget of positions for the whole round, and the moves that gave
//! something away marked.
//!
//! Exact moves are mistakes when they lower the position's value: a won
//! position left undecided or lost ("gave away a win"), a drawn one lost
//! ("gave away a draw"). Estimated moves are mistakes when they let go of a
//! forced win the engine saw, or when the engine's gauge for the player
//! who moved drops by more than [`MISTAKE_MARGIN`] from its best move's to
//! the move played. Either is only as good as its search, and is labelled
//! so.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oxo_core::{Cell, Game, MoveError, Player};

use crate::exact::{Valued, Valuer, Values, ValuesError};
use crate::hints::HINT_BUDGET;
use crate::{AlphaBeta, Score, Solver, Strategy, Value};

/// Positions the engine searches for one estimate on the analysis board
/// and in hints, as many as the computer's move
/// ([`AlphaBeta::DEFAULT_BUDGET`]): about a tenth of a second on 15×15 in
/// a release build (`cargo run --release -p oxo-ai --example estimate`).
pub const ESTIMATE_BUDGET: u64 = AlphaBeta::DEFAULT_BUDGET;

/// Positions the engine searches for a whole review, at most (and a few
/// more: each search stops one position past its share): each position it
/// values gets an equal share, up to [`ESTIMATE_BUDGET`], so a long round
/// is valued more shallowly; a share too small for a search still gives
/// the engine's first look at every candidate move. The exact values'
/// searches get as many positions again (on the prover's boards, each
/// position at most [`HINT_BUDGET`] of them, in the round's order).
pub const REVIEW_BUDGET: u64 = 2_000_000;

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
    /// The valuer failed other than by running out of its budget (a game
    /// under other rules than the valuer's).
    #[error(transparent)]
    Values(ValuesError),
    /// The caller raised the stop flag ([`review_with_stop`]).
    #[error("the review was stopped before it was done")]
    Stopped,
}

impl From<ValuesError> for ReviewError {
    fn from(error: ValuesError) -> ReviewError {
        if error.is_stopped() {
            ReviewError::Stopped
        } else {
            ReviewError::Values(error)
        }
    }
}

/// How one move was valued.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// Exactly: what the best move and the move played lead to, for the
    /// player who moved (with the distance where it is known).
    Exact {
        /// The best move's value.
        best: Valued,
        /// The move played's value.
        played: Valued,
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

/// Value every move of `moves` played from `start`, with `valuer` (for
/// `start`'s rules) where it answers ([`Valuer::answers_quickly`], within
/// the budgets of [`REVIEW_BUDGET`]) and the engine elsewhere. The same
/// moves get the same review from a fresh valuer; one that has valued
/// positions before may answer more of them exactly (what it proved stays
/// in its tables). The valuer's budget is left as it was.
///
/// # Errors
/// [`ReviewError::Move`] for an illegal move; [`ReviewError::Values`] when
/// the valuer fails (other rules than the game's).
pub fn review(
    start: &Game,
    moves: &[Cell],
    valuer: Option<&mut Valuer>,
) -> Result<Review, ReviewError> {
    review_with_stop(start, moves, valuer, None)
}

/// [`review`], stopped once `stop` is raised: the valuer's searches and the
/// engine's both read the flag (every 16,384 and 256 positions), and a
/// review stopped answers [`ReviewError::Stopped`], never one made of
/// searches cut short. The valuer is left without a stop flag.
///
/// # Errors
/// As [`review`]; [`ReviewError::Stopped`].
pub fn review_with_stop(
    start: &Game,
    moves: &[Cell],
    valuer: Option<&mut Valuer>,
    stop: Option<Arc<AtomicBool>>,
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
    let exact = match valuer {
        Some(valuer) => {
            valuer.set_stop(stop.clone());
            let exact = exact_values(&positions, valuer);
            valuer.set_stop(None);
            exact?
        }
        None => vec![None; positions.len()],
    };
    // The engine values each position before an inexact move, and the one
    // after it when that is neither over nor exact.
    let mut needed = vec![false; positions.len()];
    for i in 0..moves.len() {
        if exact[i].is_none() {
            needed[i] = true;
            let after = &positions[i + 1];
            needed[i + 1] |= !after.is_over() && exact[i + 1].is_none();
        }
    }
    let count = needed.iter().filter(|&&n| n).count() as u64;
    let share = (REVIEW_BUDGET / count.max(1)).min(ESTIMATE_BUDGET);
    let mut engine = AlphaBeta::new(0).with_budget(share);
    engine.set_stop(stop.clone());
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
    if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err(ReviewError::Stopped);
    }

    let mut reviewed = Vec::with_capacity(moves.len());
    for (i, &cell) in moves.iter().enumerate() {
        let player = positions[i].to_move();
        let after = &positions[i + 1];
        let entry = if let Some(values) = &exact[i] {
            let (best_move, best) = values.moves[0];
            let played = values
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
                score_of(
                    Valued {
                        value: -value,
                        plies: Some(1),
                    },
                    after,
                )
            } else if let Some(estimate) = &estimates[i + 1] {
                -grow(estimate.score)
            } else {
                let values = exact[i + 1].as_ref().expect("exact where not estimated");
                -grow(score_of(values.value, after))
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

/// The exact values of each of `positions` the valuer gives within the
/// review's budgets (`None` for the others, and for finished positions).
fn exact_values(
    positions: &[Game],
    valuer: &mut Valuer,
) -> Result<Vec<Option<Values>>, ValuesError> {
    let budget = valuer.budget();
    let mut left = REVIEW_BUDGET;
    let mut exact = Vec::with_capacity(positions.len());
    for game in positions {
        let values = if game.is_over() || !Valuer::answers_quickly(game) {
            None
        } else if Solver::answers_quickly(game) {
            // The solver's full analysis, at once: not counted.
            valuer.set_budget(None);
            Some(valuer.values(game))
        } else if left > 0 {
            valuer.set_budget(Some(HINT_BUDGET.min(left)));
            let values = valuer.values(game);
            left = left.saturating_sub(match &values {
                Ok(values) => values.nodes,
                Err(_) => HINT_BUDGET.min(left),
            });
            Some(values)
        } else {
            None
        };
        exact.push(match values {
            Some(Ok(values)) => Some(values),
            Some(Err(e)) if e.is_over_budget() => None,
            Some(Err(e)) => {
                valuer.set_budget(budget);
                return Err(e);
            }
            None => None,
        });
    }
    valuer.set_budget(budget);
    Ok(exact)
}

/// An exact value as a score for the player to move in `game`; a win or a
/// loss whose distance is unknown is given the most plies it can take
/// (the empty cells).
fn score_of(valued: Valued, game: &Game) -> Score {
    let plies = valued.plies.unwrap_or_else(|| {
        u32::try_from(game.rules().cell_count() - game.move_count()).unwrap_or(u32::MAX)
    });
    match valued.value {
        Value::Win => Score::Win(plies),
        Value::Draw => Score::Gauge(0.0),
        Value::Loss => Score::Loss(plies),
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
        let mut valuer = Valuer::new(start.rules(), 1 << 20).unwrap();
        let review = review(&start, &moves, Some(&mut valuer)).unwrap();
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
    fn a_seven_by_seven_round_is_exact_from_its_first_move() {
        // X builds a row in the middle while O plays along the top edge;
        // X completes five.
        let rules = Rules::new(7, 7, 5).unwrap();
        let start = Game::new(rules);
        let moves = cells(&[
            (3, 3),
            (0, 0),
            (3, 4),
            (0, 1),
            (3, 2),
            (0, 2),
            (3, 1),
            (0, 6),
            (3, 5),
        ]);
        let mut valuer = Valuer::new(rules, 1 << 24).unwrap();
        valuer.set_budget(Some(1));
        let review = review(&start, &moves, Some(&mut valuer)).unwrap();
        assert_eq!(
            valuer.budget(),
            Some(1),
            "the valuer's budget is left as it was"
        );
        // Exact where the hints' budget reaches: the first four moves, from
        // the opening table, which shows O's second, (0, 1), turning the
        // draw into a loss; O's last move, once X's row wins whatever O
        // does, and X's last. The engine's estimate where a position's
        // every move takes longer to value: after O's second move X wins,
        // but a proof that each of its 44 moves keeps the win or not is
        // long, and so are the proofs for O's third move, at a loss
        // whatever it plays (they came within the budget only while the
        // position after three moves was searched rather than read from
        // the table, its search leaving them in the valuer's memory).
        let values: Vec<Option<(Value, Value)>> = review
            .moves
            .iter()
            .map(|m| match m.judged {
                Judged::Exact { best, played } => Some((best.value, played.value)),
                Judged::Estimate { .. } => None,
            })
            .collect();
        let (draw, win, loss) = (Value::Draw, Value::Win, Value::Loss);
        assert_eq!(
            values,
            [
                Some((draw, draw)),
                Some((draw, draw)),
                Some((draw, draw)),
                Some((draw, loss)),
                None,
                None,
                None,
                Some((loss, loss)),
                Some((win, win)),
            ]
        );
        // The mistakes: O's second, exactly; O's third, (0, 2), which lets
        // X's open three through (a win in four) where blocking it holds
        // out longer, by the estimate.
        let mistakes: Vec<Option<Mistake>> = review.moves.iter().map(|m| m.mistake).collect();
        let mut expected = [None; 9];
        expected[3] = Some(Mistake::GaveAwayDraw);
        expected[5] = Some(Mistake::Dropped);
        assert_eq!(mistakes, expected, "{review:?}");
    }

    #[test]
    fn a_long_round_keeps_to_the_reviews_budget() {
        // 250 moves on a board where nobody makes a line: 251 positions to
        // estimate, each with an equal share of the budget (one search may
        // go a position past its share).
        let rules = Rules::new(20, 20, 20).unwrap();
        let moves: Vec<Cell> = (0..250).map(|i| Cell::new(i / 20, i % 20)).collect();
        let review = review(&Game::new(rules), &moves, None).unwrap();
        assert_eq!(review.moves.len(), 250);
        assert!(review.nodes <= REVIEW_BUDGET + 251, "{}", review.nodes);
        assert!(review.nodes >= REVIEW_BUDGET / 2, "{}", review.nodes);
    }

    /// A review whose flag is raised answers that it was stopped, whether
    /// the engine or the valuer was searching, and leaves the valuer
    /// without the flag for the next.
    #[test]
    fn a_stopped_review_says_so_and_the_valuer_goes_on_without_the_flag() {
        let raised = Some(Arc::new(AtomicBool::new(true)));
        let rules = Rules::new(20, 20, 20).unwrap();
        let moves: Vec<Cell> = (0..40).map(|i| Cell::new(i / 20, i % 20)).collect();
        let stopped = review_with_stop(&Game::new(rules), &moves, None, raised.clone());
        assert!(matches!(stopped, Err(ReviewError::Stopped)), "{stopped:?}");
        let rules = Rules::new(4, 4, 3).unwrap();
        let moves = cells(&[(1, 1), (0, 0), (2, 2)]);
        let mut valuer = crate::hints::hint_valuer(rules).unwrap();
        let stopped = review_with_stop(&Game::new(rules), &moves, Some(&mut valuer), raised);
        assert!(matches!(stopped, Err(ReviewError::Stopped)), "{stopped:?}");
        assert!(valuer.values(&Game::new(rules)).is_ok());
    }

    #[test]
    fn an_illegal_move_is_named() {
        let error = review(&Game::default(), &cells(&[(0, 0), (0, 0)]), None).unwrap_err();
        assert!(error.to_string().starts_with("move 2 (0, 0)"), "{error}");
    }
}
