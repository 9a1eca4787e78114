//! The search that models of [`super::Scheme::Windows`] play with on
//! mid-sized boards: a few plies of alpha-beta over the network's values.

use crate::ntuple::{Features, MoveScore, Scratch};
use crate::windows::WindowBoard;

/// A won position's value in [`lookahead`]; a win `n` plies away is worth
/// a little less, so sooner wins and later losses are preferred.
const WON: f32 = 2.0;

/// Moves searched at each node of [`lookahead`] below the root, the best
/// first by the network's one-ply value.
const LOOKAHEAD_WIDTH: usize = 10;

/// Negamax with alpha-beta over the network's values: `plies` moves deep
/// (the last one scored by the network, at least one), the best
/// [`LOOKAHEAD_WIDTH`] replies at each node below the root and every move
/// at the root. Fills `out` with each root move and its value for the
/// player to move (wins above 1, losses below −1); the board must not be
/// finished.
pub(crate) fn lookahead(
    features: &Features,
    weights: &[f32],
    board: &mut WindowBoard,
    plies: u32,
    scratch: &mut Scratch,
    out: &mut Vec<(usize, f32)>,
) {
    out.clear();
    let mut moves = Vec::new();
    features.score_moves(weights, board, scratch, &mut moves);
    order(&mut moves);
    for &(cell, score) in &moves {
        let value = match score {
            MoveScore::Win => WON,
            MoveScore::Draw => 0.0,
            MoveScore::Estimate(_) if plies <= 1 => score.value(),
            MoveScore::Estimate(_) => {
                board.play(cell);
                let value = -negamax(features, weights, board, plies - 1, -WON, WON, 1, scratch);
                board.unplay(cell);
                value
            }
        };
        out.push((cell, value));
    }
}

/// Best first: wins, then by value (draws at 0), NaN last.
fn order(moves: &mut [(usize, MoveScore)]) {
    let key = |s: MoveScore| match s {
        MoveScore::Win => f32::INFINITY,
        other if other.value().is_nan() => f32::NEG_INFINITY,
        other => other.value(),
    };
    moves.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(&b.0)));
}

/// The value of `board` for the player to move, searched `plies` deep.
#[expect(clippy::too_many_arguments, reason = "a recursive search's state")]
fn negamax(
    features: &Features,
    weights: &[f32],
    board: &mut WindowBoard,
    plies: u32,
    mut alpha: f32,
    beta: f32,
    ply: u32,
    scratch: &mut Scratch,
) -> f32 {
    let mut moves = Vec::new();
    features.score_moves(weights, board, scratch, &mut moves);
    if moves.is_empty() {
        return 0.0;
    }
    if moves.iter().any(|&(_, s)| s == MoveScore::Win) {
        return WON - 0.01 * ply as f32;
    }
    order(&mut moves);
    if plies <= 1 {
        let best = moves[0].1;
        return if best == MoveScore::Draw {
            0.0
        } else {
            best.value()
        };
    }
    let mut best = f32::NEG_INFINITY;
    for &(cell, score) in moves.iter().take(LOOKAHEAD_WIDTH) {
        let value = if score == MoveScore::Draw {
            0.0
        } else {
            board.play(cell);
            let value = -negamax(
                features,
                weights,
                board,
                plies - 1,
                -beta,
                -alpha,
                ply + 1,
                scratch,
            );
            board.unplay(cell);
            value
        };
        if value > best {
            best = value;
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}
