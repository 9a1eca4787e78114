//! The shallow search that models of [`super::Scheme::Segments`] play
//! with: two plies, threats read exactly, the network's value beyond.

use oxo_core::Player;

use super::network::{Board, Features, MoveScore, Scratch};

/// Reusable buffers for [`two_ply`].
#[derive(Clone, Debug, Default)]
pub(crate) struct SearchScratch {
    ours: Vec<(usize, MoveScore)>,
    replies: Vec<(usize, MoveScore)>,
    wins: Vec<usize>,
}

/// The empty cells where `player` would complete a line on `board`.
fn win_cells(board: &Board, player: Player, out: &mut Vec<usize>) {
    out.clear();
    out.extend(
        (0..board.cells.len())
            .filter(|&c| board.cells[c].is_none() && board.wins_at_for(c, player)),
    );
}

/// Whether `player` has at least two cells to win at on `board`, where
/// `player` had none before marking `last`: any new one lies on a line
/// through `last`, within k−1 cells of it.
fn two_wins_through(board: &Board, player: Player, last: usize) -> bool {
    let rules = board.rules;
    let (rows, cols) = (i64::from(rules.rows()), i64::from(rules.cols()));
    let reach = i64::from(rules.k()) - 1;
    let (row, col) = (last as i64 / cols, last as i64 % cols);
    let mut found: [usize; 2] = [usize::MAX; 2];
    let mut count = 0;
    for direction in oxo_core::Direction::ALL {
        let (dr, dc) = direction.delta();
        let (dr, dc) = (i64::from(dr), i64::from(dc));
        for i in -reach..=reach {
            let (r, c) = (row + i * dr, col + i * dc);
            if i == 0 || !(0..rows).contains(&r) || !(0..cols).contains(&c) {
                continue;
            }
            let cell = (r * cols + c) as usize;
            if board.cells[cell].is_none()
                && !found[..count].contains(&cell)
                && board.wins_at_for(cell, player)
            {
                found[count] = cell;
                count += 1;
                if count == 2 {
                    return true;
                }
            }
        }
    }
    false
}

/// Every move [`Features::score_moves`] offers the player to move on
/// `board`, with its value after two plies, into `out` as (cell, value,
/// one-ply raw estimate): a move that wins at once is worth 1; otherwise
/// each reply the network would consider is read exactly where threats
/// decide it — a reply that wins, or leaves the opponent two cells to win
/// at while the mover has none, wins for the opponent; a reply that leaves
/// the mover a cell to win at loses for the opponent — and by the network
/// elsewhere, and the move is worth the worst of its replies.
pub(crate) fn two_ply(
    features: &Features,
    weights: &[f32],
    board: &Board,
    scratch: &mut Scratch,
    search: &mut SearchScratch,
    out: &mut Vec<(usize, f32, f32)>,
) {
    out.clear();
    let me = board.to_move;
    let opponent = me.other();
    features.score_moves(weights, board, scratch, &mut search.ours);
    if search.ours.iter().any(|&(_, s)| s == MoveScore::Win) {
        out.extend(
            search
                .ours
                .iter()
                .filter(|&&(_, s)| s == MoveScore::Win)
                .map(|&(c, _)| (c, 1.0, f32::INFINITY)),
        );
        return;
    }
    let mut after = board.clone();
    for &(cell, score) in &search.ours {
        let first = match score {
            MoveScore::Estimate(raw) => raw,
            _ => 0.0,
        };
        if score == MoveScore::Draw {
            out.push((cell, 0.0, first));
            continue;
        }
        after.play(cell);
        win_cells(&after, me, &mut search.wins);
        features.score_moves(weights, &after, scratch, &mut search.replies);
        let mut worst = f32::NEG_INFINITY;
        for &(reply, s) in &search.replies {
            let theirs = match s {
                MoveScore::Win => 1.0,
                MoveScore::Draw => 0.0,
                MoveScore::Estimate(raw) => {
                    if search.wins.iter().any(|&c| c != reply) {
                        -1.0
                    } else {
                        after.play(reply);
                        let double = two_wins_through(&after, opponent, reply);
                        after.unplay(reply);
                        if double { 1.0 } else { raw.tanh() }
                    }
                }
            };
            worst = worst.max(theirs);
            if worst >= 1.0 {
                break;
            }
        }
        after.unplay(cell);
        let value = if worst == f32::NEG_INFINITY {
            0.0
        } else {
            -worst
        };
        out.push((cell, value, first));
    }
}
