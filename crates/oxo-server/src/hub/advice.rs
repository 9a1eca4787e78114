//! The engine's word where the solver does not reach: an estimate of a
//! position (for the analysis board and hints) and the review of a played
//! round, as the API shows them. Both run in the hub's search slots with a
//! budget of positions, so the same request always gets the same estimates
//! (a review's exact values come from the pooled hints' valuer, which may
//! answer more positions once it has valued some).

use std::sync::Arc;

use oxo_ai::hints::hint_valuer;
use oxo_ai::review::{
    ESTIMATE_BUDGET, ESTIMATE_MOVES, Judged, MISTAKE_MARGIN, Mistake, ReviewError, Reviewed,
};
use oxo_ai::{AlphaBeta, Estimate, Score, Strategy};
use oxo_core::{Cell, Game, Player};
use serde::Serialize;

use super::search::{Cost, Hold, StopWhenGone};
use super::{Hub, HubError};

/// The gauge (for X, from −1 to 1) within which neither side is called
/// better.
const EVEN: f64 = 0.1;

/// An engine evaluation as the API shows it (`"estimate"`): every score is
/// for X, from −1 (O wins) to 1 (X wins).
#[derive(Clone, Debug, Serialize)]
pub struct EstimateView {
    /// The engine: `"alphabeta"`.
    pub engine: &'static str,
    /// Positions searched.
    pub nodes: u64,
    /// Plies of the deepest full iteration.
    pub depth: u32,
    /// The position's score for X.
    pub score: f64,
    /// The side the score favours, `None` within 0.1 of 0.
    pub better: Option<Player>,
    /// A forced win the search found, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced: Option<Forced>,
    /// The best line, `[row, col]` from the position's next move.
    pub line: Vec<[u32; 2]>,
    /// The best few moves, best first.
    pub moves: Vec<EstimatedMove>,
}

/// A forced win the search found: who wins, in how many plies.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Forced {
    /// The winner.
    pub winner: Player,
    /// Plies to the win, the next move included.
    pub plies: u32,
}

/// One of the best moves of an [`EstimateView`].
#[derive(Clone, Copy, Debug, Serialize)]
pub struct EstimatedMove {
    /// Row.
    pub row: u32,
    /// Column.
    pub col: u32,
    /// The score after the move, for X.
    pub score: f64,
    /// A forced win the search found after it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced: Option<Forced>,
}

/// A score for `mover` as the API shows it: the gauge for X (to three
/// places) and the forced win, if any.
fn for_x(score: Score, mover: Player) -> (f64, Option<Forced>) {
    let forced = match score {
        Score::Win(plies) => Some(Forced {
            winner: mover,
            plies,
        }),
        Score::Loss(plies) => Some(Forced {
            winner: mover.other(),
            plies,
        }),
        Score::Gauge(_) => None,
    };
    (rounded(score.seen_by(mover, Player::X).gauge()), forced)
}

/// To three decimal places, so the JSON stays short.
fn rounded(gauge: f64) -> f64 {
    (gauge * 1000.0).round() / 1000.0
}

impl EstimateView {
    fn new(estimate: &Estimate, mover: Player) -> EstimateView {
        let (score, forced) = for_x(estimate.score, mover);
        let better = if score >= EVEN {
            Some(Player::X)
        } else if score <= -EVEN {
            Some(Player::O)
        } else {
            None
        };
        EstimateView {
            engine: "alphabeta",
            nodes: estimate.nodes,
            depth: estimate.depth,
            score,
            better,
            forced,
            line: estimate.line.iter().map(|c| [c.row, c.col]).collect(),
            moves: estimate
                .moves
                .iter()
                .map(|&(cell, score)| {
                    let (score, forced) = for_x(score, mover);
                    EstimatedMove {
                        row: cell.row,
                        col: cell.col,
                        score,
                        forced,
                    }
                })
                .collect(),
        }
    }
}

/// One move of a review as the API shows it (`"review"`): exact values
/// (`"value"`, `"best_value"`) or the engine's scores (`"played_score"`,
/// `"best_score"`, `"drop"`), all for the player who moved.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewedMove {
    /// The move's number, from 1.
    pub ply: usize,
    /// Row.
    pub row: u32,
    /// Column.
    pub col: u32,
    /// Who played it.
    pub player: Player,
    /// Whether the values are exact (the hints' valuer's; else the engine's estimate).
    pub exact: bool,
    /// Exact: what the move led to, `"win"`, `"draw"` or `"loss"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<&'static str>,
    /// Exact: what the best move led to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_value: Option<&'static str>,
    /// Estimate: the score after the move, from −1 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_score: Option<f64>,
    /// Estimate: the best move's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_score: Option<f64>,
    /// Estimate: how far the move fell short of the best (0 to 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop: Option<f64>,
    /// A best move, `[row, col]`.
    pub best: [u32; 2],
    /// Whether the move gave something away.
    pub mistake: bool,
    /// `"win"` or `"draw"` when the move gave one away (a win an estimate
    /// saw counts), else `None`.
    pub gave_away: Option<&'static str>,
}

impl ReviewedMove {
    fn new(ply: usize, reviewed: &Reviewed) -> ReviewedMove {
        let (mut value, mut best_value, mut played_score, mut best_score) =
            (None, None, None, None);
        match reviewed.judged {
            Judged::Exact { best, played } => {
                value = Some(played.value.as_str());
                best_value = Some(best.value.as_str());
            }
            Judged::Estimate { best, played } => {
                played_score = Some(rounded(played.gauge()));
                best_score = Some(rounded(best.gauge()));
            }
        }
        ReviewedMove {
            ply,
            row: reviewed.cell.row,
            col: reviewed.cell.col,
            player: reviewed.player,
            exact: matches!(reviewed.judged, Judged::Exact { .. }),
            value,
            best_value,
            played_score,
            best_score,
            drop: reviewed.drop().map(rounded),
            best: [reviewed.best_move.row, reviewed.best_move.col],
            mistake: reviewed.mistake.is_some(),
            gave_away: match reviewed.mistake {
                Some(Mistake::GaveAwayWin) => Some("win"),
                Some(Mistake::GaveAwayDraw) => Some("draw"),
                Some(Mistake::Dropped) | None => None,
            },
        }
    }
}

/// A reviewed round as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewView {
    /// The gauge drop past which an estimated move is a mistake.
    pub margin: f64,
    /// Positions the engine searched in all.
    pub nodes: u64,
    /// Every move, in order.
    pub review: Vec<ReviewedMove>,
}

impl Hub {
    /// The engine's estimate of `game`, within [`ESTIMATE_BUDGET`]
    /// positions, in a quick search slot; `None` when the game is over.
    ///
    /// # Errors
    /// The search failed.
    pub async fn estimate(
        &self,
        game: Game,
        hold: Hold,
    ) -> Result<Option<Arc<EstimateView>>, HubError> {
        if game.is_over() {
            return Ok(None);
        }
        // An estimate cut short would be kept for nobody: the request has
        // gone.
        let stop = StopWhenGone::default();
        let flag = stop.flag();
        self.search(Cost::Quick, hold, move |_| {
            let mover = game.to_move();
            let mut engine = AlphaBeta::new(0).with_budget(ESTIMATE_BUDGET);
            engine.set_stop(Some(flag));
            let estimate = engine.estimate(&game, ESTIMATE_MOVES);
            Ok(estimate.map(|e| Arc::new(EstimateView::new(&e, mover))))
        })
        .await
    }

    /// Every move of `moves` from `start` valued (exact where the hints'
    /// valuer answers, the engine's estimate elsewhere), within
    /// [`oxo_ai::review::REVIEW_BUDGET`] positions of each, in a deep
    /// search slot (it can take a few seconds).
    ///
    /// # Errors
    /// An illegal move ([`HubError::Internal`]: callers check the moves
    /// first); the search failed.
    pub async fn review(
        &self,
        start: Game,
        moves: Vec<Cell>,
        hold: Hold,
    ) -> Result<ReviewView, HubError> {
        // Stops once the request has gone, as a look at values does.
        let stop = StopWhenGone::default();
        let flag = stop.flag();
        self.search(Cost::Deep, hold, move |shared| {
            let rules = start.rules();
            // The hints' valuer (none on boards it does not take).
            let mut valuer = match shared.valuers.take(None, rules) {
                Some(valuer) => Some(valuer),
                None => hint_valuer(rules).ok(),
            };
            let review =
                oxo_ai::review::review_with_stop(&start, &moves, valuer.as_mut(), Some(flag));
            if let Some(valuer) = valuer {
                shared.valuers.give(None, rules, valuer);
            }
            let review = review.map_err(|e: ReviewError| HubError::Internal(e.to_string()))?;
            Ok(ReviewView {
                margin: MISTAKE_MARGIN,
                nodes: review.nodes,
                review: (review.moves.iter().enumerate())
                    .map(|(n, m)| ReviewedMove::new(n + 1, m))
                    .collect(),
            })
        })
        .await
    }
}
