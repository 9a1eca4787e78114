//! An engine evaluation of a position where the solver does not reach:
//! alphabeta's score of the position, its best few moves with their scores
//! and its principal variation, all found within a budget of nodes, so the
//! same position always gets the same estimate on any machine.

use std::ops::Neg;

use oxo_core::{Cell, Game, Player};

use super::{AlphaBeta, Engine, INFINITY, MAX_DEPTH, ROOT_WIDTH, WIN, WON};

/// What the search makes of a position, for the player to move: a forced
/// result it saw, or a gauge of the evaluation. It is an estimate: the
/// search is cut at a budget of nodes and looks at only the most promising
/// moves, so a forced result may be missed (never invented: a win it reports
/// is a sequence of moves it checked, against the replies it considered).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// The player to move wins within this many plies, its own next move
    /// included, against the replies the search considered.
    Win(u32),
    /// The opponent wins within this many plies, likewise.
    Loss(u32),
    /// No forced result found: the evaluation squashed into (−1, 1),
    /// positive when the position favours the player to move.
    Gauge(f64),
}

impl Score {
    /// The score as one number in [−1, 1]: 1 for a win, −1 for a loss.
    #[must_use]
    pub fn gauge(self) -> f64 {
        match self {
            Score::Win(_) => 1.0,
            Score::Loss(_) => -1.0,
            Score::Gauge(g) => g,
        }
    }

    /// The score as `viewer` sees it, when it is `mover`'s.
    #[must_use]
    pub fn seen_by(self, mover: Player, viewer: Player) -> Score {
        if mover == viewer { self } else { -self }
    }
}

/// The same position seen by the other player.
impl Neg for Score {
    type Output = Score;

    fn neg(self) -> Score {
        match self {
            Score::Win(n) => Score::Loss(n),
            Score::Loss(n) => Score::Win(n),
            Score::Gauge(g) => Score::Gauge(-g),
        }
    }
}

/// An engine evaluation of a position (see [`AlphaBeta::estimate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The position's score for the player to move: its best move's.
    pub score: Score,
    /// The principal variation: the best move and the replies the search
    /// expects, as far as its table holds them.
    pub line: Vec<Cell>,
    /// The best few moves, best first, each with its score for the player
    /// making it.
    pub moves: Vec<(Cell, Score)>,
    /// Plies of the deepest full iteration (forced moves and the
    /// quiescence search go beyond it); 0 when only the evaluation after
    /// each move was read.
    pub depth: u32,
    /// Positions searched.
    pub nodes: u64,
}

impl<R: rand::Rng> AlphaBeta<R> {
    /// The engine's evaluation of `game` and its best `top` moves (at least
    /// one), searching at most [`AlphaBeta::budget`] positions whatever its
    /// deadline: a function of the position and the budget alone (ties
    /// between moves go to the earlier cell, not to the seed). `None` when
    /// the game is over.
    ///
    /// Every move near the marks is ordered by what it changes, the best
    /// 20 are searched by iterative deepening, each with a window wide
    /// enough to score it exactly while it may be one of the best `top`,
    /// and the last iteration that finished gives the scores.
    pub fn estimate(&mut self, game: &Game, top: usize) -> Option<Estimate> {
        if game.is_over() {
            return None;
        }
        let engine = Engine::ready(&mut self.engine, self.learned.as_ref(), game);
        engine.deadline = None;
        Some(engine.estimate(self.budget, top.max(1)))
    }
}

impl Engine {
    /// See [`AlphaBeta::estimate`]; the position is loaded.
    fn estimate(&mut self, budget: u64, top: usize) -> Estimate {
        self.nodes = 0;
        self.budget = budget;
        self.stopped = false;
        let me = self.board.to_move();
        let rules = self.board.rules();
        let finish = |engine: &Engine, scored: &[(usize, i64)], depth: u32, line: Vec<usize>| {
            let moves: Vec<(Cell, Score)> = scored
                .iter()
                .take(top)
                .map(|&(c, s)| (rules.cell_at(c), engine.score_of(s)))
                .collect();
            Estimate {
                score: moves.first().map_or(Score::Gauge(0.0), |m| m.1),
                line: line.into_iter().map(|c| rules.cell_at(c)).collect(),
                moves,
                depth,
                nodes: engine.nodes.min(budget),
            }
        };
        // A win now needs no search, and the search could not see it: it
        // stops at a four, never at a line of k.
        let mut wins = self.win_cells(me, usize::MAX);
        wins.sort_unstable();
        if let Some(&first) = wins.first() {
            let scored: Vec<_> = wins.iter().map(|&c| (c, WIN)).collect();
            return finish(self, &scored, 0, vec![first]);
        }
        let mut blocks = self.win_cells(me.other(), usize::MAX);
        blocks.sort_unstable();
        let mut moves = match blocks.len() {
            0 => match self.defences() {
                Some(defences) => self.best_of(defences, usize::MAX, None),
                None => self.root_moves(),
            },
            _ => blocks,
        };
        // Depth 0: the evaluation after each move, best first (the order
        // is stable, so ties keep the order by gain).
        let mut scored: Vec<(usize, i64)> = moves
            .iter()
            .map(|&c| {
                self.make(c);
                let score = match self.threats(1) {
                    super::Threat::Decided(s) => -s,
                    _ => -self.evaluate(),
                };
                self.unmake(c);
                (c, score)
            })
            .collect();
        scored.sort_by_key(|m| std::cmp::Reverse(m.1));
        let Some(&(first, _)) = scored.first() else {
            return finish(self, &[], 0, Vec::new());
        };
        let mut best = (scored, 0, vec![first]);
        moves = best.0.iter().map(|m| m.0).collect();

        let empty = self.board.cell_count() - self.board.stones();
        for depth in 1..=MAX_DEPTH.min(empty as i32) {
            let mut scored: Vec<(usize, i64)> = Vec::with_capacity(moves.len());
            for &cell in &moves {
                // Once `top` moves are scored, a move only needs its score
                // when it beats the worst of them.
                let floor = if scored.len() >= top {
                    let mut scores: Vec<i64> = scored.iter().map(|m| m.1).collect();
                    scores.sort_unstable_by(|a, b| b.cmp(a));
                    scores[top - 1]
                } else {
                    -INFINITY
                };
                self.make(cell);
                let score = -self.search(depth - 1, -INFINITY, -floor, 1);
                self.unmake(cell);
                if self.stopped {
                    break;
                }
                scored.push((cell, score));
            }
            if self.stopped {
                break;
            }
            scored.sort_by_key(|m| std::cmp::Reverse(m.1));
            moves = scored.iter().map(|m| m.0).collect();
            let lead = scored[0];
            let line = self.principal_line(lead.0, depth as usize);
            let decided = lead.1.abs() > WON;
            best = (scored, depth as u32, line);
            if decided {
                break;
            }
        }
        let (scored, depth, line) = best;
        finish(self, &scored, depth, line)
    }

    /// The moves the estimate searches when nothing forces them: the best
    /// [`ROOT_WIDTH`] by gain, ties going to the cell nearer the centre
    /// (then the earlier one), so that an empty or quiet board is read
    /// from its middle, as players open, not from its top rows.
    fn root_moves(&self) -> Vec<usize> {
        let (rows, cols) = (self.rows as i64, self.cols as i64);
        // Twice the distance from the centre, so it stays whole.
        let off_centre = |c: usize| {
            let (r, k) = ((c / self.cols) as i64, (c % self.cols) as i64);
            (2 * r - (rows - 1)).abs().max((2 * k - (cols - 1)).abs())
        };
        let mut ranked: Vec<_> = (self.candidates(usize::MAX, None).into_iter())
            .map(|c| (std::cmp::Reverse(self.gain(c)), off_centre(c), c))
            .collect();
        ranked.sort_unstable();
        ranked.into_iter().take(ROOT_WIDTH).map(|m| m.2).collect()
    }

    /// A search score as a [`Score`] for the player to move at the root:
    /// a win in `n` plies, the next move included, is `WIN - n + 1`.
    fn score_of(&self, score: i64) -> Score {
        if score > WON {
            Score::Win((WIN - score + 1) as u32)
        } else if score < -WON {
            Score::Loss((WIN + score + 1) as u32)
        } else {
            Score::Gauge((score as f64 / self.gauge_scale()).tanh())
        }
    }

    /// The evaluation that reads as a gauge of about 0.76 (tanh 1): twice
    /// the worth of a window one mark short of k, when windows are counted
    /// (an open four, in gomoku, is near it); a learned model's values are
    /// in fixed point already.
    fn gauge_scale(&self) -> f64 {
        if self.learned.is_some() || self.tally.learned.is_some() {
            return f64::from(crate::ntuple::TRACKER_SCALE);
        }
        let k = u32::from(self.tally.k);
        2.0 * f64::from(1u32 << (3 * k.saturating_sub(2).min(6)))
    }

    /// The line the search expects after `first`: forced moves, the win
    /// when one side has a four, and otherwise the best move its table
    /// remembers, for at most `depth` remembered moves. The position is
    /// left as it was.
    fn principal_line(&mut self, first: usize, depth: usize) -> Vec<usize> {
        let mut line = vec![first];
        self.make(first);
        let mut remembered = 1;
        while line.len() < depth + super::QUIESCENCE_PLIES as usize {
            let me = self.board.to_move();
            let mut wins = self.win_cells(me, usize::MAX);
            wins.sort_unstable();
            if let Some(&win) = wins.first() {
                line.push(win);
                break; // the game is over
            }
            let mut blocks = self.win_cells(me.other(), usize::MAX);
            blocks.sort_unstable();
            let next = match blocks.first() {
                Some(&block) => block,
                None => {
                    let entry = self.table[(self.hash as usize) & (super::TABLE_SIZE - 1)];
                    let Some(cell) = entry.best.checked_sub(1).map(|c| c as usize) else {
                        break;
                    };
                    if entry.key != self.hash || remembered >= depth || !self.board.is_empty(cell) {
                        break;
                    }
                    remembered += 1;
                    cell
                }
            };
            line.push(next);
            self.make(next);
        }
        let made = if self.board.is_empty(*line.last().expect("a first move")) {
            &line[..line.len() - 1]
        } else {
            &line[..]
        };
        for &cell in made.iter().rev() {
            self.unmake(cell);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Rules;

    use super::*;

    fn gomoku(x: &[(u32, u32)], o: &[(u32, u32)]) -> Game {
        let mut rows = vec![vec!['.'; 15]; 15];
        for &(r, c) in x {
            rows[r as usize][c as usize] = 'X';
        }
        for &(r, c) in o {
            rows[r as usize][c as usize] = 'O';
        }
        let rows: Vec<String> = rows.into_iter().map(String::from_iter).collect();
        Game::from_notation(&rows.join("/"), 5).unwrap()
    }

    fn estimate(game: &Game, budget: u64) -> Estimate {
        AlphaBeta::new(0)
            .with_budget(budget)
            .estimate(game, 5)
            .expect("a game being played")
    }

    #[test]
    fn the_same_position_gets_the_same_estimate_whatever_the_seed() {
        let game = gomoku(&[(7, 7), (7, 8), (8, 9)], &[(6, 6), (8, 8)]);
        let first = AlphaBeta::new(1).with_budget(20_000).estimate(&game, 5);
        let mut reused = AlphaBeta::new(99).with_budget(20_000);
        // An engine that searched another position first answers the same.
        reused.estimate(&gomoku(&[(3, 3)], &[(4, 4)]), 5);
        assert_eq!(first, reused.estimate(&game, 5));
        let first = first.unwrap();
        assert_eq!(first.moves.len(), 5);
        assert!(first.depth >= 2, "{first:?}");
        assert!(first.nodes <= 20_000);
        assert_eq!(first.line[0], first.moves[0].0);
        assert_eq!(first.score, first.moves[0].1);
        // Best first.
        let gauges: Vec<f64> = first.moves.iter().map(|m| m.1.gauge()).collect();
        assert!(gauges.windows(2).all(|w| w[0] >= w[1]), "{gauges:?}");
    }

    #[test]
    fn a_line_is_legal_play_from_the_position() {
        for game in [
            gomoku(&[(7, 7), (7, 8), (8, 9)], &[(6, 6), (8, 8)]),
            Game::new(Rules::new(7, 7, 5).unwrap()),
            Game::new(Rules::new(15, 15, 5).unwrap()),
        ] {
            let found = estimate(&game, 10_000);
            let mut after = game.clone();
            for &cell in &found.line {
                after.play(cell).unwrap_or_else(|e| panic!("{game}: {e}"));
            }
            assert!(!found.line.is_empty());
        }
    }

    #[test]
    fn a_four_is_a_win_in_one_and_two_are_a_loss() {
        // X to move with four in a row: every best move wins at once.
        let x = [(7, 5), (7, 6), (7, 7), (7, 8)];
        let o = [(0, 0), (0, 2), (14, 14), (0, 14)];
        let won = estimate(&gomoku(&x, &o), 1_000);
        assert_eq!(won.score, Score::Win(1));
        assert_eq!(won.moves.len(), 2);
        assert_eq!(won.line, [Cell::new(7, 4)]);
        // O to move facing an open four: whatever it blocks, X wins next.
        let lost = estimate(&gomoku(&x, &o[..3]), 1_000);
        assert_eq!(lost.score, Score::Loss(2));
        assert_eq!(lost.line.len(), 2);
        assert_eq!(-lost.score, Score::Win(2));
        assert_eq!(lost.score.seen_by(Player::O, Player::X), Score::Win(2));
    }

    #[test]
    fn an_open_three_is_seen_as_a_win() {
        // X to move with an open three: the open four wins in 3 plies.
        let x = [(7, 5), (7, 6), (7, 7)];
        let o = [(0, 0), (14, 14), (0, 14)];
        let found = estimate(&gomoku(&x, &o), 50_000);
        assert_eq!(found.score, Score::Win(3), "{found:?}");
        assert!(
            [Cell::new(7, 4), Cell::new(7, 8)].contains(&found.line[0]),
            "{found:?}"
        );
        assert_eq!(found.line.len(), 3, "{found:?}");
    }

    #[test]
    fn a_quiet_opening_is_near_even_and_favours_the_side_ahead() {
        let quiet = estimate(&gomoku(&[(7, 7)], &[(7, 8)]), 20_000);
        assert!(
            matches!(quiet.score, Score::Gauge(g) if g.abs() < 0.5),
            "{quiet:?}"
        );
        // X with two more marks in a row than O, O to move.
        let ahead = estimate(
            &gomoku(&[(7, 7), (8, 8), (9, 9)], &[(0, 0), (0, 14)]),
            20_000,
        );
        assert!(
            ahead.score.gauge() < quiet.score.gauge(),
            "{ahead:?} {quiet:?}"
        );
    }

    #[test]
    fn an_empty_board_is_read_from_its_centre() {
        let found = estimate(&Game::new(Rules::new(15, 15, 5).unwrap()), 20_000);
        for (cell, _) in &found.moves {
            assert!(
                (5..=9).contains(&cell.row) && (5..=9).contains(&cell.col),
                "{found:?}"
            );
        }
    }

    #[test]
    fn a_tiny_budget_still_orders_the_moves() {
        let found = estimate(&gomoku(&[(7, 7), (7, 8)], &[(8, 8)]), 1);
        assert_eq!(found.depth, 0);
        assert_eq!(found.moves.len(), 5);
        assert_eq!(found.line.len(), 1);
    }

    #[test]
    fn nothing_to_estimate_once_the_game_is_over() {
        let x = [(7, 4), (7, 5), (7, 6), (7, 7), (7, 8)];
        let o = [(0, 0), (0, 2), (14, 14), (0, 14)];
        assert_eq!(AlphaBeta::new(0).estimate(&gomoku(&x, &o), 3), None);
    }
}
