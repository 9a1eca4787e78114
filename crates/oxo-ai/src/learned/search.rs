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

/// Whether `player` marking the empty `cell` leaves them two cells to win
/// at (an open four, in gomoku), when they had none.
fn fork_at(board: &mut Board, cell: usize, player: Player) -> bool {
    board.cells[cell] = Some(player);
    let fork = two_wins_through(board, player, cell);
    board.cells[cell] = None;
    fork
}

/// The empty cells within two of a mark where `player` would make a
/// fork (see [`fork_at`]).
fn fork_cells(board: &mut Board, player: Player, out: &mut Vec<usize>) {
    out.clear();
    for cell in 0..board.cells.len() {
        if board.cells[cell].is_none() && board.near_a_mark(cell, 2) && fork_at(board, cell, player)
        {
            out.push(cell);
        }
    }
}

/// The empty cells on the lines through `cell`, within k−1 of it.
fn line_cells(board: &Board, cell: usize, out: &mut Vec<usize>) {
    out.clear();
    let rules = board.rules;
    let (rows, cols) = (i64::from(rules.rows()), i64::from(rules.cols()));
    let reach = i64::from(rules.k()) - 1;
    let (row, col) = (cell as i64 / cols, cell as i64 % cols);
    for direction in oxo_core::Direction::ALL {
        let (dr, dc) = direction.delta();
        let (dr, dc) = (i64::from(dr), i64::from(dc));
        for i in -reach..=reach {
            let (r, c) = (row + i * dr, col + i * dc);
            if (0..rows).contains(&r) && (0..cols).contains(&c) {
                let at = (r * cols + c) as usize;
                if board.cells[at].is_none() {
                    out.push(at);
                }
            }
        }
    }
}

/// The first cell on a line through `last` where `player` would win, and
/// whether there is a second.
fn wins_through(
    board: &Board,
    player: Player,
    last: usize,
    line: &mut Vec<usize>,
) -> (Option<usize>, bool) {
    line_cells(board, last, line);
    let mut first = None;
    for &cell in line.iter() {
        if board.wins_at_for(cell, player) {
            match first {
                None => first = Some(cell),
                Some(f) if f != cell => return (first, true),
                Some(_) => {}
            }
        }
    }
    (first, false)
}

/// The empty cells where `player` would make a fork that `last`, their
/// latest mark, helps make: on `last`'s lines, in the directions where
/// they have two more marks within k−1 of it.
fn forks_through(board: &mut Board, player: Player, last: usize, out: &mut Vec<usize>) {
    out.clear();
    let rules = board.rules;
    let (rows, cols) = (i64::from(rules.rows()), i64::from(rules.cols()));
    let reach = i64::from(rules.k()) - 1;
    let (row, col) = (last as i64 / cols, last as i64 % cols);
    for direction in oxo_core::Direction::ALL {
        let (dr, dc) = direction.delta();
        let (dr, dc) = (i64::from(dr), i64::from(dc));
        let at = |i: i64| {
            let (r, c) = (row + i * dr, col + i * dc);
            ((0..rows).contains(&r) && (0..cols).contains(&c)).then(|| (r * cols + c) as usize)
        };
        let support = (-reach..=reach)
            .filter(|&i| i != 0 && at(i).is_some_and(|c| board.cells[c] == Some(player)))
            .count();
        if support < 2 {
            continue;
        }
        for i in -reach..=reach {
            if let Some(cell) = at(i)
                && board.cells[cell].is_none()
                && !out.contains(&cell)
                && fork_at(board, cell, player)
            {
                out.push(cell);
            }
        }
    }
}

/// The opponent's value of the position after the mover's move and the
/// opponent's `reply` on `board` (the mover to move), where threats decide
/// it: 1 when the reply leaves the opponent two cells to win at, or one
/// that the mover must block after which the opponent can make two, or
/// threats to make two that no single move stops; −1 when the mover has a
/// fork to make and the opponent nothing to win at; `None` when the
/// network must judge.
fn threats_after_reply(
    board: &mut Board,
    reply: usize,
    mover: Player,
    our_forks: &[usize],
    their_forks: &mut Option<Vec<usize>>,
    line: &mut Vec<usize>,
) -> Option<f32> {
    let opponent = mover.other();
    let (first, second) = wins_through(board, opponent, reply, line);
    if second {
        return Some(1.0);
    }
    if let Some(block) = first {
        board.cells[block] = Some(mover);
        let mut verdict = None;
        let (ours, _) = wins_through(board, mover, block, line);
        if ours.is_none() {
            let known = their_forks.get_or_insert_with(|| {
                let mut cells = Vec::new();
                // Forks the opponent had before the reply and the block.
                board.cells[block] = None;
                board.cells[reply] = None;
                fork_cells(board, opponent, &mut cells);
                board.cells[reply] = Some(opponent);
                board.cells[block] = Some(mover);
                cells
            });
            let mut candidates: Vec<usize> = known.clone();
            line_cells(board, reply, line);
            candidates.extend_from_slice(line);
            if candidates
                .iter()
                .any(|&c| board.cells[c].is_none() && fork_at(board, c, opponent))
            {
                verdict = Some(1.0);
            }
        }
        board.cells[block] = None;
        return verdict;
    }
    if our_forks
        .iter()
        .any(|&c| board.cells[c].is_none() && fork_at(board, c, mover))
    {
        return Some(-1.0);
    }
    // Two threats to fork (a double three), which one move cannot both
    // stop, win for the opponent.
    let mut forks = Vec::new();
    forks_through(board, opponent, reply, &mut forks);
    if forks.len() >= 2 {
        let stopped = forks.clone().into_iter().any(|stop| {
            board.cells[stop] = Some(mover);
            let all = forks
                .iter()
                .all(|&c| c == stop || !fork_at(board, c, opponent));
            board.cells[stop] = None;
            all
        });
        if !stopped {
            return Some(1.0);
        }
    }
    None
}

/// Every move [`Features::score_moves`] offers the player to move on
/// `board`, with its value after two plies, into `out` as (cell, value,
/// one-ply raw estimate). A move that wins at once is worth 1. Otherwise
/// each reply the network would consider is read exactly where threats
/// decide it — a reply that wins, or leaves the opponent two cells to win
/// at while the mover has none, or one the mover must block after which
/// the opponent can make two, wins for the opponent; a reply that leaves
/// the mover a cell to win at, or a fork to make while the opponent has
/// no cell to win at, loses for the opponent — and by the network
/// elsewhere; the move is worth the worst of its replies.
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
    let mut our_forks = Vec::new();
    let mut line = Vec::new();
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
        if search.wins.is_empty() {
            fork_cells(&mut after, me, &mut our_forks);
        } else {
            our_forks.clear();
        }
        let mut their_forks = None;
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
                        let exact = threats_after_reply(
                            &mut after,
                            reply,
                            me,
                            &our_forks,
                            &mut their_forks,
                            &mut line,
                        );
                        after.unplay(reply);
                        exact.unwrap_or_else(|| raw.tanh())
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

/// A victory by continuous fours: a chain of moves that each leave one
/// cell to win at (which the defender must take) and end in two, or in a
/// win.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fours {
    /// The board's k-windows, built once per board.
    windows: Vec<Vec<u32>>,
    rules: Option<oxo_core::Rules>,
    /// Nodes left to search in this call.
    budget: u32,
}

/// Deepest chain of fours read.
const FOURS_DEPTH: u32 = 8;
/// Positions read per question, at most.
const FOURS_BUDGET: u32 = 4000;

impl Fours {
    fn load(&mut self, rules: oxo_core::Rules) {
        if self.rules != Some(rules) {
            self.windows = super::network::windows(rules);
            self.rules = Some(rules);
        }
    }

    /// The first move of a victory by continuous fours for `attacker` on
    /// `board` with `attacker` to move, if one is found within the depth
    /// and budget.
    pub(crate) fn find(&mut self, board: &mut Board, attacker: Player) -> Option<usize> {
        self.load(board.rules);
        self.budget = FOURS_BUDGET;
        self.search(board, attacker, FOURS_DEPTH)
    }

    fn search(&mut self, board: &mut Board, attacker: Player, depth: u32) -> Option<usize> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let defender = attacker.other();
        // Windows with no defender mark and one or two empty cells.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut defender_wins = false;
        for window in &self.windows {
            let (mut mine, mut empty) = (0, [usize::MAX; 2]);
            let mut theirs = 0;
            let mut empties = 0;
            for &c in window {
                match board.cells[c as usize] {
                    Some(p) if p == attacker => mine += 1,
                    Some(_) => theirs += 1,
                    None => {
                        if empties < 2 {
                            empty[empties] = c as usize;
                        }
                        empties += 1;
                    }
                }
            }
            if theirs == 0 && empties == 1 {
                return Some(empty[0]);
            }
            if mine == 0 && empties == 1 {
                defender_wins = true;
            }
            if theirs == 0 && empties == 2 {
                pairs.push((empty[0], empty[1]));
                pairs.push((empty[1], empty[0]));
            }
        }
        if depth == 0 || defender_wins {
            return None;
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut i = 0;
        while i < pairs.len() {
            let four = pairs[i].0;
            let mut j = i;
            while j < pairs.len() && pairs[j].0 == four {
                j += 1;
            }
            // Two windows left one short: two cells to win at.
            if j - i >= 2 {
                return Some(four);
            }
            let block = pairs[i].1;
            board.cells[four] = Some(attacker);
            board.cells[block] = Some(defender);
            let found = self.search(board, attacker, depth - 1).is_some();
            board.cells[block] = None;
            board.cells[four] = None;
            if found {
                return Some(four);
            }
            i = j;
        }
        None
    }
}

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
    board: &mut Board,
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
    board: &mut Board,
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
