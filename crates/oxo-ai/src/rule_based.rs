//! The rule-based player of "Yet Another Tic Tac Toe" (the seeds' AI class),
//! carried over from 3×3 to any m,n,k board.
//!
//! The seed's player has four rules, tried in order: win if possible, block
//! the opponent's win, make a "best bet" move that sets up a future win, and
//! otherwise make any legal move. Here the lines of three become the board's
//! k-cell windows (see [`crate::windows`]), and the best bet is spelled out
//! as the classic fork rules followed by a preference for the moves that add
//! most to windows we can still fill.

use oxo_core::{Cell, Game, Player, Rules};
use rand::seq::IndexedRandom;

use crate::windows::WindowBoard;
use crate::{SeededRng, Strategy, rng_from_seed};

/// Plays by fixed rules, in order of priority:
///
/// 1. **Win**: complete a window of k if it can.
/// 2. **Block**: take the cell where the opponent would complete one.
/// 3. **Best bet**, itself in three steps:
///    - make a *fork*: a move after which it has two or more different
///      cells to win at, which one reply cannot both block;
///    - stop the opponent's forks: a move after which the opponent has no
///      fork left, or one that makes a threat whose forced answer gives the
///      opponent no fork (on 3×3 this is the edge reply to X in opposite
///      corners, which a plain block would lose);
///    - among the moves left, the one adding most to its *live* windows
///      (no opponent mark), a window counting more the fuller it is; ties go
///      to a centre cell, then a corner.
/// 4. **Any** legal move, when no window can still be won.
///
/// Whatever ties remain are broken by a seeded generator (or any generator
/// passed in), so a game is reproducible from its seed.
#[derive(Clone, Debug)]
pub struct RuleBased<R = SeededRng> {
    rng: R,
    /// Kept between moves so that the window tables are built once per
    /// board size, not once per move.
    board: Option<WindowBoard>,
}

impl RuleBased {
    /// A rule-based player whose tie-breaks are fixed by `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RuleBased {
        RuleBased::with_rng(rng_from_seed(seed))
    }
}

impl<R: rand::Rng> RuleBased<R> {
    /// A rule-based player breaking ties with `rng`.
    pub fn with_rng(rng: R) -> RuleBased<R> {
        RuleBased { rng, board: None }
    }
}

impl<R: rand::Rng + Send> Strategy for RuleBased<R> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        if game.is_over() {
            return None;
        }
        let board = self
            .board
            .get_or_insert_with(|| WindowBoard::new(game.rules()));
        board.load(game);
        let shortlist = shortlist(board, game.to_move());
        let &pick = shortlist.cells.choose(&mut self.rng)?;
        Some(game.rules().cell_at(pick))
    }

    fn name(&self) -> &str {
        "rules"
    }
}

/// Which of the rules chose the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Win,
    Block,
    Fork,
    BlockFork,
    BestBet,
    Any,
}

/// The equally good moves the first rule that applies allows, as cell
/// indices in row-major order.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shortlist {
    rule: Rule,
    cells: Vec<usize>,
}

/// The moves the rules allow `me` on `board` (a game in progress), before
/// the random tie-break.
fn shortlist(board: &mut WindowBoard, me: Player) -> Shortlist {
    let opponent = me.other();
    let empty: Vec<usize> = board.empty_cells().collect();
    let found = |rule, cells: Vec<usize>| (!cells.is_empty()).then_some(Shortlist { rule, cells });

    let wins = empty.iter().copied().filter(|&c| board.wins_at(c, me));
    if let Some(list) = found(Rule::Win, wins.collect()) {
        return list;
    }
    let blocks = empty
        .iter()
        .copied()
        .filter(|&c| board.wins_at(c, opponent));
    if let Some(list) = found(Rule::Block, blocks.collect()) {
        return list;
    }

    let ours = forks(board, &empty, me);
    if !ours.is_empty() {
        let cells = best_bets(board, me, &ours);
        return Shortlist {
            rule: Rule::Fork,
            cells,
        };
    }
    let their_forks = forks(board, &empty, opponent);
    if !their_forks.is_empty() {
        let safe: Vec<usize> = empty
            .iter()
            .copied()
            .filter(|&m| defuses_forks(board, m, me, &their_forks))
            .collect();
        // With no safe move the game is lost against good play; taking a
        // fork cell at least makes the opponent find the other one.
        let candidates = if safe.is_empty() { &their_forks } else { &safe };
        return Shortlist {
            rule: Rule::BlockFork,
            cells: best_bets(board, me, candidates),
        };
    }

    if empty.iter().any(|&c| extension(board, c, me) > 0) {
        return Shortlist {
            rule: Rule::BestBet,
            cells: best_bets(board, me, &empty),
        };
    }
    Shortlist {
        rule: Rule::Any,
        cells: empty,
    }
}

/// The cells among `empty` where `player` makes a fork: two or more
/// different cells to win at next turn.
fn forks(board: &WindowBoard, empty: &[usize], player: Player) -> Vec<usize> {
    empty
        .iter()
        .copied()
        .filter(|&c| board.threats_made(c, player, 2).len() >= 2)
        .collect()
}

/// Whether `me` marking `m` leaves the opponent, whose fork cells are
/// `their_forks`, without a fork on their next move.
///
/// Either the move makes a threat, and the opponent's forced answer must not
/// be a fork, or it makes none, and every fork cell must be spoiled (a mark
/// can only spoil the opponent's windows, never add fork cells).
fn defuses_forks(board: &mut WindowBoard, m: usize, me: Player, their_forks: &[usize]) -> bool {
    let opponent = me.other();
    let threats = board.threats_made(m, me, 2);
    board.place(m, me);
    let safe = match threats.as_slice() {
        [] => their_forks
            .iter()
            .all(|&f| f == m || board.threats_made(f, opponent, 2).len() < 2),
        &[forced] => board.threats_made(forced, opponent, 2).len() < 2,
        _ => true,
    };
    board.clear(m);
    safe
}

/// How much `player` marking the empty cell `cell` adds to the windows it
/// can still fill: each live window through the cell counts, eight times
/// more for each of the player's marks already in it.
fn extension(board: &WindowBoard, cell: usize, player: Player) -> u64 {
    let (p, q) = (player.index(), player.other().index());
    board
        .windows_through(cell)
        .iter()
        .map(|&w| board.counts(w))
        .filter(|c| c[q] == 0)
        // Capped so that sums saturate instead of wrapping on huge k.
        .map(|c| 1u64 << (3 * u32::from(c[p]).min(20)))
        .fold(0, u64::saturating_add)
}

/// 2 for a centre cell, 1 for a corner, 0 for the rest: the seed's
/// preference when the windows do not decide.
fn placement(rules: Rules, cell: usize) -> u8 {
    let Cell { row, col } = rules.cell_at(cell);
    let middle = |x: u32, len: u32| x == (len - 1) / 2 || x == len / 2;
    let edge = |x: u32, len: u32| x == 0 || x == len - 1;
    if middle(row, rules.rows()) && middle(col, rules.cols()) {
        2
    } else if edge(row, rules.rows()) && edge(col, rules.cols()) {
        1
    } else {
        0
    }
}

/// The cells of `candidates` with the best [`extension`] for `me`, then the
/// best [`placement`].
fn best_bets(board: &WindowBoard, me: Player, candidates: &[usize]) -> Vec<usize> {
    let rules = board.rules();
    let key = |c: usize| (extension(board, c, me), placement(rules, c));
    let Some(best) = candidates.iter().map(|&c| key(c)).max() else {
        return Vec::new();
    };
    candidates
        .iter()
        .copied()
        .filter(|&c| key(c) == best)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Random;

    /// The shortlist for the player to move in `text` with `k` in a row,
    /// as cells.
    fn list(text: &str, k: u32) -> (Rule, Vec<Cell>) {
        let game = Game::from_notation(text, k).unwrap();
        let mut board = WindowBoard::new(game.rules());
        board.load(&game);
        let found = shortlist(&mut board, game.to_move());
        let cells = found
            .cells
            .iter()
            .map(|&i| game.rules().cell_at(i))
            .collect();
        (found.rule, cells)
    }

    fn cells(list: &[(u32, u32)]) -> Vec<Cell> {
        list.iter().map(|&(r, c)| Cell::new(r, c)).collect()
    }

    #[test]
    fn wins_rather_than_blocks() {
        assert_eq!(list("XX./OO./...", 3), (Rule::Win, cells(&[(0, 2)])));
        // Both ends of an open four on a big board win.
        let row = "...XXXX.........";
        let text = format!("{row}/{}/{}", "OOO.....O.......", ".".repeat(16));
        assert_eq!(list(&text, 5), (Rule::Win, cells(&[(0, 2), (0, 7)])));
    }

    #[test]
    fn blocks_the_opponents_win() {
        assert_eq!(list("XX./O../...", 3), (Rule::Block, cells(&[(0, 2)])));
        // Down a column of a 15x15 gomoku board.
        let mut rows = vec![".".repeat(15); 15];
        for row in &mut rows[3..7] {
            row.replace_range(7..8, "X");
        }
        rows[3].replace_range(8..9, "O");
        rows[2].replace_range(7..8, "O");
        rows[10].replace_range(0..1, "O");
        assert_eq!(list(&rows.join("/"), 5), (Rule::Block, cells(&[(7, 7)])));
    }

    #[test]
    fn makes_a_fork() {
        // X at the bottom-left corner threatens both the left column and
        // the bottom row; O's marks make no threat.
        let (rule, found) = list("XO./.O./.X.", 3);
        assert_eq!(rule, Rule::Fork, "{found:?}");
        assert_eq!(found, cells(&[(2, 0)]));
        // 4x4, k=3: (2, 0) threatens (0, 0) and (3, 0) down the first
        // column, though (1, 1) adds more to X's windows.
        assert_eq!(
            list("..O./X..X/...O/....", 3),
            (Rule::Fork, cells(&[(2, 0)]))
        );
    }

    #[test]
    fn takes_the_fork_cell_when_that_is_safe() {
        // X would fork at the centre (row and column); the corner that adds
        // most to O's windows would lose to it.
        assert_eq!(list(".../..X/.XO", 3), (Rule::BlockFork, cells(&[(1, 1)])));
    }

    #[test]
    fn stops_the_opposite_corner_fork_from_an_edge() {
        // X in opposite corners threatens forks at the two free corners;
        // O taking one forces X into the other, which is a fork. The safe
        // replies are the edges, which force X to answer harmlessly.
        let (rule, found) = list("X../.O./..X", 3);
        assert_eq!(rule, Rule::BlockFork);
        assert_eq!(found, cells(&[(0, 1), (1, 0), (1, 2), (2, 1)]));
    }

    #[test]
    fn opens_in_the_centre_and_answers_in_a_corner() {
        assert_eq!(list(".../.../...", 3), (Rule::BestBet, cells(&[(1, 1)])));
        assert_eq!(
            list(".../.X./...", 3),
            (Rule::BestBet, cells(&[(0, 0), (0, 2), (2, 0), (2, 2)]))
        );
    }

    #[test]
    fn ties_go_to_the_centre_then_the_corners() {
        // 4x4, k=4: the four centre cells tie with the corners on windows
        // (row, column, diagonal each).
        let empty4 = "..../..../..../....";
        assert_eq!(
            list(empty4, 4),
            (Rule::BestBet, cells(&[(1, 1), (1, 2), (2, 1), (2, 2)]))
        );
        // 5x5, k=5, X in the centre: corners tie with (0,1), (1,1) and
        // others on two live windows each, and win the tie.
        let centre = "...../...../..X../...../.....";
        assert_eq!(
            list(centre, 5),
            (Rule::BestBet, cells(&[(0, 0), (0, 4), (4, 0), (4, 4)]))
        );
    }

    #[test]
    fn fuller_windows_count_more() {
        // 1x9, k=3: (0, 2) shares a window with X's mark and sits in two
        // empty ones; (0, 3) to (0, 5) sit in three empty windows each.
        assert_eq!(list("X.......O", 3), (Rule::BestBet, cells(&[(0, 2)])));
    }

    #[test]
    fn plays_anywhere_when_no_window_is_live() {
        // 1x4, k=3: both windows hold both marks.
        assert_eq!(list("X.O.", 3), (Rule::Any, cells(&[(0, 1), (0, 3)])));
    }

    #[test]
    fn works_on_rectangular_boards_with_short_lines() {
        // 3x6, k=3: O must block the diagonal; X wins at either end of a row.
        assert_eq!(
            list("X...../.X.O../......", 3),
            (Rule::Block, cells(&[(2, 2)]))
        );
        assert_eq!(
            list("...XX./O.O.../......", 3),
            (Rule::Win, cells(&[(0, 2), (0, 5)]))
        );
        // 6x2, k=4 (longer than the rows): only columns count.
        assert_eq!(
            list("O./X./X./X./../.O", 4),
            (Rule::Block, cells(&[(4, 0)]))
        );
    }

    #[test]
    fn never_loses_tic_tac_toe() {
        // Every move the rules allow, against every reply, as either side.
        fn worst(game: &mut Game, me: Player) -> i8 {
            if let Some(outcome) = game.outcome() {
                return match outcome.winner() {
                    None => 0,
                    Some(p) if p == me => 1,
                    Some(_) => -1,
                };
            }
            let moves: Vec<Cell> = if game.to_move() == me {
                list(&game.to_string(), 3).1
            } else {
                game.legal_moves().collect()
            };
            let mut result = 1;
            for cell in moves {
                let mut next = game.clone();
                next.play(cell).unwrap();
                result = result.min(worst(&mut next, me));
            }
            result
        }
        for me in Player::ALL {
            assert_eq!(worst(&mut Game::default(), me), 0, "{me} can lose");
        }
    }

    #[test]
    fn same_seed_same_game() {
        let play = |seed| {
            let mut game = Game::new(Rules::new(7, 7, 4).unwrap());
            let mut x = RuleBased::new(seed);
            let mut o = RuleBased::new(seed + 100);
            crate::play_out(&mut game, &mut x, &mut o).unwrap()
        };
        assert_eq!(play(1), play(1));
        let distinct: std::collections::HashSet<_> = (0..6).map(play).collect();
        assert!(distinct.len() > 1, "seeds should change tie-breaks");
    }

    #[test]
    fn plays_only_legal_moves_and_none_when_over() {
        crate::testing::plays_legally_everywhere(
            &[
                (3, 3, 3),
                (4, 6, 3),
                (6, 4, 4),
                (1, 5, 2),
                (2, 2, 1),
                (9, 9, 5),
            ],
            4,
            |seed| Box::new(RuleBased::new(seed)),
        );
    }

    #[test]
    fn beats_random_on_gomoku() {
        let rules = Rules::new(15, 15, 5).unwrap();
        for seed in 0..4 {
            let mut game = Game::new(rules);
            let mut me = RuleBased::new(seed);
            let mut other = Random::new(seed);
            let mine = if seed % 2 == 0 { Player::X } else { Player::O };
            match mine {
                Player::X => crate::play_out(&mut game, &mut me, &mut other),
                Player::O => crate::play_out(&mut game, &mut other, &mut me),
            }
            .unwrap();
            assert_eq!(
                game.outcome().and_then(|o| o.winner()),
                Some(mine),
                "seed {seed}"
            );
        }
    }
}
