//! The real game's wins: can the attacker force k in a row when the
//! defender's own lines count too?
//!
//! # The method
//!
//! A one-sided AND/OR search of the real game (the attacker's nodes OR,
//! the defender's AND) on the prover's boards, which asks the
//! Maker–Breaker search ([`Prover::prove`]) at every node as an oracle for
//! sound cuts:
//!
//! - **The oracle.** An attacker who cannot force a line against a mere
//!   blocker cannot win the real game (the module above): a node where the
//!   Maker–Breaker game is a Breaker win is a non-win at once. So at a
//!   defender's node any reply after which the attacker no longer wins the
//!   Maker–Breaker game refutes the node, and at an attacker's node a move
//!   `x` that fails there with a Breaker proof of zone `Z` rules out, by
//!   the zone lemma, every move outside `Z` as well (those positions are
//!   Breaker wins too): only the moves inside the intersection of those
//!   zones are searched. At a defender's node the oracle is first asked
//!   after every reply, in the search's order, before any reply is searched
//!   deeply (where the node's own question was left open within the
//!   oracle's budget): a reply it shows to break the Maker–Breaker win is
//!   a refutation found for a few thousand positions a reply asked, where
//!   searching the replies before it could take millions. The defender's
//!   replies that make a four of its own come first, then those in the
//!   oracle's zone.
//! - **The real game's own rules**, exactly: a complete line of either side
//!   ends the game, a side to move with a four (k − 1 stones and the last
//!   cell empty) wins, a side facing a four of the opponent must take its
//!   cell, two fours on different cells cannot both be blocked, and a full
//!   board is a draw (not a win).
//! - **Where the defender cannot get a line in time** the real game is the
//!   Maker–Breaker game. When the defender needs more moves to fill its
//!   nearest window than it has left before the board is full, the
//!   oracle's answer is the real one. When it needs `m` moves, a
//!   Maker–Breaker win within fewer attacker moves than that (`r` of them,
//!   with `r < m` when the defender moves first, `r ≤ m` otherwise) is a
//!   real win: the defender's stones only block before the attacker's line
//!   is complete. That short win is found by a small threat search
//!   ([`Prover::quick`], up to [`QUICK_MOVES`] attacker moves), where the
//!   attacker plays only in windows it could still fill in the moves left
//!   and the defender only in those windows: a defender's stone outside
//!   every such window is worth no more than a pass, and a pass no more
//!   than any stone (an extra stone never hurts its owner, in the
//!   Maker–Breaker game and in the real game alike, since lines are k *or
//!   more*). With two attacker moves left it searches nothing: the
//!   attacker wins exactly when one move makes two fours on different
//!   cells. These are the threat sequences (VCF, VCT) of the literature,
//!   taken as leaves.
//!
//! The results go to a table of their own, keyed like the Maker–Breaker
//! table by the canonical position under the board's symmetries; a
//! position symmetric under some of them searches one move of each orbit.
//! Unlike the Maker–Breaker results, real-game results carry no zone: a
//! defender's stone far from the attacker's threats can still make a four
//! the attacker must answer, so the real game has no cheap relevance zone;
//! the oracle's zones are where the pruning comes from.
//!
//! `tests::agrees_with_the_solver` checks both answers against the 64-bit
//! solver's alpha-beta search on random positions of small boards.

use super::Prover;
use super::board::{MAX_SYMMETRIES, bits};
use super::search::{Pos, Proof};
use super::table::{Entry, MAKER_TO_MOVE, MAKER_WINS, Table, USED};

/// Positions the oracle may visit at one node of the real game's search:
/// the replies to X's centre move on 7×7 k=5 took 0.9–4.6 s each with no
/// limit, 0.6–1.2 s with 30,000, 0.4–0.9 s with 3,000, 0.6–1.2 s with 300.
const ORACLE_BUDGET: u64 = 3_000;
/// Attacker moves the threat search at the leaves looks ahead.
const QUICK_MOVES: u32 = 3;

/// A real-game answer, and when the attacker's failure is a Breaker win of
/// the Maker–Breaker game, that proof's zone.
#[derive(Clone, Copy, Debug)]
pub(super) struct RealProof {
    pub wins: bool,
    pub breaker_zone: Option<u128>,
}

impl RealProof {
    const WIN: RealProof = RealProof {
        wins: true,
        breaker_zone: None,
    };
    const NO_WIN: RealProof = RealProof {
        wins: false,
        breaker_zone: None,
    };
}

/// How many distinct cells a set holds, capped at 2.
fn at_most_two(cells: u128) -> u32 {
    cells.count_ones().min(2)
}

impl Prover {
    /// Whether the attacker (the Maker's stones of `pos`) can force a win in
    /// the real game against the defender (the Breaker's stones), the
    /// attacker to move when `attacker_turn`; `None` when the budget ran
    /// out (nothing unfinished is stored).
    pub(super) fn real_wins(&mut self, pos: &Pos, attacker_turn: bool) -> Option<RealProof> {
        self.visit();
        if self.meter.aborted() {
            return None;
        }
        let board = &self.board;
        let (a, d) = (pos.maker[0], pos.breaker[0]);
        let empty = board.valid & !(a | d);
        let (mut a_fours, mut d_fours) = (0u128, 0u128);
        // The fewest moves the defender needs to fill a window.
        let mut d_margin = u32::MAX;
        for &w in &board.windows {
            let free = w & empty;
            let n = free.count_ones();
            if w & d == 0 {
                if n == 0 {
                    return Some(RealProof::WIN);
                }
                if n == 1 {
                    a_fours |= free;
                }
            }
            if w & a == 0 {
                if n == 0 {
                    return Some(RealProof::NO_WIN);
                }
                if n == 1 {
                    d_fours |= free;
                }
                d_margin = d_margin.min(n);
            }
        }
        if empty == 0 {
            return Some(RealProof::NO_WIN);
        }
        // The moves the rules leave: a four to answer.
        let forced = if attacker_turn {
            if a_fours != 0 {
                return Some(RealProof::WIN);
            }
            match at_most_two(d_fours) {
                0 => None,
                1 => Some(d_fours),
                _ => return Some(RealProof::NO_WIN),
            }
        } else {
            if d_fours != 0 {
                return Some(RealProof::NO_WIN);
            }
            match at_most_two(a_fours) {
                0 => None,
                1 => Some(a_fours),
                _ => return Some(RealProof::WIN),
            }
        };

        let turn = if attacker_turn { MAKER_TO_MOVE } else { 0 };
        let (_, ca, cd) = self.canonical(pos);
        if let Some(entry) = self.real_table().get(ca, cd, turn) {
            self.stats.table += 1;
            return Some(RealProof {
                wins: entry.flags & MAKER_WINS != 0,
                breaker_zone: None,
            });
        }
        let empties = empty.count_ones() as u8;
        let store = |prover: &mut Prover, wins: bool| {
            prover.real_table().put(Entry {
                maker: ca,
                breaker: cd,
                zone: 0,
                flags: USED | turn | if wins { MAKER_WINS } else { 0 },
                empties,
            });
            Some(RealProof {
                wins,
                breaker_zone: None,
            })
        };

        // The oracle, within a budget of its own: a Maker–Breaker question
        // it cannot settle quickly is left open, and the real game's search
        // goes on without its cut.
        let oracle = self.oracle(pos, attacker_turn)?;
        if let Some(proof) = oracle.filter(|proof| !proof.maker_wins) {
            return Some(RealProof {
                wins: false,
                breaker_zone: Some(proof.zone),
            });
        }
        // The defender's moves left before the board is full.
        let d_moves = (u32::from(empties) + u32::from(!attacker_turn)) / 2;
        if oracle.is_some() && d_margin > d_moves {
            // The defender never fills a line: the oracle's answer is real.
            return store(self, true);
        }
        let short = if attacker_turn {
            d_margin
        } else {
            d_margin - 1
        }
        .min(QUICK_MOVES);
        if short >= 2 && self.quick(a, d, attacker_turn, short)? {
            return store(self, true);
        }
        let oracle_zone = oracle.map_or(0, |proof| proof.zone);

        let board = &self.board;
        // The defender's cells of the oracle's zone (where its blocks may
        // refute the Maker–Breaker win) first.
        let candidates = forced.unwrap_or(empty);
        let mut scores = self.move_scores(pos, attacker_turn, candidates);
        if !attacker_turn {
            for c in bits(oracle_zone & candidates) {
                scores[c as usize] += 1 << 16;
            }
            // Before those, the replies that make a four of the defender's:
            // the attacker must block it, so its lines there are narrow.
            // A cell making two fours gets two bonuses. (The bonuses
            // outweigh the window scores while k is small, 5 and below by
            // far; beyond that they only blur the order.)
            for pair in board.four_makers(a, empty) {
                for c in bits(pair & candidates) {
                    scores[c as usize] += 1 << 17;
                }
            }
        }
        if !attacker_turn && forced.is_none() && oracle.is_none() {
            // A look at every reply before searching any deeply: one after
            // which the oracle shows a Breaker win refutes the node at
            // once, with no deep search of the replies before it (the
            // oracle's answers stay in its table for the search below).
            // Only where the node's own oracle question was left open: had
            // it shown a Maker win, every reply would leave one.
            let mut order: Vec<u32> = bits(candidates).collect();
            order.sort_by_key(|&c| {
                (
                    std::cmp::Reverse(scores[c as usize]),
                    board.rank[c as usize],
                )
            });
            for y in order {
                let mut child = *pos;
                self.board.place(&mut child.breaker, y);
                if let Some(proof) = self.oracle(&child, true)?
                    && !proof.maker_wins
                {
                    return store(self, false);
                }
            }
        }
        let board = &self.board;
        let mut stabilizer = [0usize; MAX_SYMMETRIES];
        let mut symmetric = 0;
        for s in 1..board.symmetry_count() {
            if pos.maker[s] == a && pos.breaker[s] == d {
                stabilizer[symmetric] = s;
                symmetric += 1;
            }
        }
        let mut allowed = candidates;
        let mut settled = 0u128;
        loop {
            let left = allowed & !settled;
            if left == 0 {
                break;
            }
            let board = &self.board;
            let x = bits(left)
                .max_by_key(|&c| {
                    (
                        scores[c as usize],
                        std::cmp::Reverse(board.rank[c as usize]),
                    )
                })
                .expect("left is not empty");
            let mut child = *pos;
            if attacker_turn {
                board.place(&mut child.maker, x);
            } else {
                board.place(&mut child.breaker, x);
            }
            let proof = self.real_wins(&child, !attacker_turn)?;
            if proof.wins == attacker_turn {
                // The mover's move x wins (for the attacker) or refutes
                // (for the defender).
                return store(self, attacker_turn);
            }
            settled |= 1 << x;
            for &s in &stabilizer[..symmetric] {
                settled |= 1 << self.board.map(s, x);
            }
            if let Some(zone) = proof.breaker_zone.filter(|_| attacker_turn) {
                // Every attacker move outside the zone leaves a Breaker win
                // too (the zone lemma), so no real win.
                allowed &= zone;
                for &s in &stabilizer[..symmetric] {
                    allowed &= self.board.map_set(s, zone);
                }
            }
        }
        store(self, !attacker_turn)
    }

    /// The real game's move order at `pos`, by cell: threats first. A cell
    /// of `candidates` scores, for the side to move (the attacker when
    /// `attacker_turn`), 4 to the power of its own stones in each window it
    /// could still fill through the cell, and as much again for the
    /// opponent's windows it blocks.
    pub(super) fn move_scores(
        &self,
        pos: &Pos,
        attacker_turn: bool,
        candidates: u128,
    ) -> [u32; 128] {
        let (a, d) = (pos.maker[0], pos.breaker[0]);
        let (own, other) = if attacker_turn { (a, d) } else { (d, a) };
        let mut scores = [0u32; 128];
        for &w in &self.board.windows {
            let add = if w & other == 0 {
                1 << (2 * (w & own).count_ones())
            } else if w & own == 0 {
                1 << (2 * (w & other).count_ones())
            } else {
                continue;
            };
            for c in bits(w & candidates) {
                scores[c as usize] += add;
            }
        }
        scores
    }

    /// Whether the attacker (`a`) wins the Maker–Breaker game against `d`
    /// within `moves` attacker moves, the attacker to move when
    /// `attacker_turn`; `None` over the budget. Only the windows the
    /// attacker could fill in the moves left matter: the attacker plays in
    /// them, and the defender too (a stone elsewhere is no better than a
    /// pass, which is no better than any stone).
    ///
    /// With two moves left and no four, the attacker wins exactly when one
    /// move makes two fours on different cells (the defender blocks one,
    /// the other completes a line): read from the windows at once, not
    /// searched. The defender tries first the cells in the most of those
    /// windows, where a refutation usually is.
    fn quick(&mut self, a: u128, d: u128, attacker_turn: bool, moves: u32) -> Option<bool> {
        self.visit();
        if self.meter.aborted() {
            return None;
        }
        let board = &self.board;
        let empty = board.valid & !(a | d);
        let mut cells = 0u128;
        let mut fours = 0u128;
        // Per cell, at the defender's turn: the short windows through it.
        let mut through = [0u8; 128];
        // With two attacker moves left, per cell: the first cell whose four
        // a move there makes (`NONE` if none yet), and the cells where one
        // move makes fours on two different cells.
        const NONE: u8 = u8::MAX;
        let two_left = attacker_turn && moves == 2;
        let mut partner = [NONE; 128];
        let mut doubles = 0u128;
        for &w in &board.windows {
            if w & d != 0 {
                continue;
            }
            let free = w & empty;
            let n = free.count_ones();
            if n == 0 {
                return Some(true);
            }
            if n <= moves {
                cells |= free;
                if !attacker_turn {
                    for c in bits(free) {
                        through[c as usize] = through[c as usize].saturating_add(1);
                    }
                } else if two_left && n == 2 {
                    let (p, q) = (free.trailing_zeros(), 127 - free.leading_zeros());
                    for (x, y) in [(p, q), (q, p)] {
                        let first = &mut partner[x as usize];
                        if *first == NONE {
                            *first = y as u8;
                        } else if u32::from(*first) != y {
                            doubles |= 1 << x;
                        }
                    }
                }
            }
            if n == 1 {
                fours |= free;
            }
        }
        if attacker_turn {
            if fours != 0 {
                return Some(true);
            }
            if moves <= 1 || cells == 0 {
                return Some(false);
            }
            if two_left {
                return Some(doubles != 0);
            }
            for x in bits(cells) {
                if self.quick(a | 1 << x, d, false, moves - 1)? {
                    return Some(true);
                }
            }
            Some(false)
        } else {
            match at_most_two(fours) {
                2 => return Some(true),
                1 => cells = fours,
                _ => {}
            }
            if cells == 0 {
                return Some(false);
            }
            let mut replies: Vec<u32> = bits(cells).collect();
            replies.sort_by_key(|&y| std::cmp::Reverse(through[y as usize]));
            for y in replies {
                if !self.quick(a, d | 1 << y, true, moves)? {
                    return Some(false);
                }
            }
            Some(true)
        }
    }

    /// The Maker–Breaker answer at `pos` if the prover finds it within
    /// [`ORACLE_BUDGET`] positions (`Some(None)` if not); `None` when the
    /// whole call's budget ran out.
    fn oracle(&mut self, pos: &Pos, attacker_turn: bool) -> Option<Option<Proof>> {
        let outer = self.meter.narrow(ORACLE_BUDGET);
        self.root_node = self.meter.nodes() + 1;
        let proof = self.prove(pos, attacker_turn);
        if self.meter.widen(outer) {
            return Some(None);
        }
        proof.map(Some)
    }

    /// The real game's table, made on first use.
    fn real_table(&mut self) -> &mut Table {
        let bytes = self.table_bytes;
        self.real_table
            .get_or_insert_with(|| Table::with_bytes(bytes / 2).unwrap_or_else(small_table))
    }
}

/// A table of a few buckets, when the memory for a large one is not there.
fn small_table() -> Table {
    Table::with_bytes(1 << 16).expect("64 KiB")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use oxo_core::{Game, Player, Rules};

    use super::super::Turns;
    use super::super::board::Board;
    use super::*;
    use crate::solver::Solver;
    use crate::value::Value;

    /// Numbers below `n`, a fixed sequence from `seed`.
    fn random_numbers(seed: u64) -> impl FnMut(usize) -> usize {
        let mut next = crate::testing::random_numbers(seed);
        move |n| next() as usize % n
    }

    /// A game of `rules` played at random for 1 to half the cells' moves,
    /// if it is not over.
    fn random_game(rules: Rules, random: &mut impl FnMut(usize) -> usize) -> Option<Game> {
        let mut game = Game::new(rules);
        let stones = 1 + random(rules.cell_count() / 2);
        while game.move_count() < stones && !game.is_over() {
            let moves: Vec<_> = game.legal_moves().collect();
            game.play_unchecked(moves[random(moves.len())]);
        }
        (!game.is_over()).then_some(game)
    }

    /// A stop flag raised while the 64-bit solver runs a round of a
    /// real-game question ends the call with the prover's own
    /// [`ProveError::Stopped`]; lowered, the question gets the answer a
    /// fresh prover gives.
    #[test]
    fn a_stop_in_the_solvers_round_ends_the_call() {
        use std::sync::atomic::AtomicBool;

        use crate::prover::ProveError;

        let rules = Rules::new(6, 6, 4).unwrap();
        let mut random = random_numbers(53);
        let (mut stopped, mut asked) = (0, 0);
        while asked < 12 {
            let Some(game) = random_game(rules, &mut random) else {
                continue;
            };
            let side = game.to_move();
            let mut prover = Prover::new(rules, 1 << 20).unwrap();
            if !prover.maker_wins(&game, side).unwrap() {
                continue;
            }
            asked += 1;
            let stop = Arc::new(AtomicBool::new(false));
            // Only the solver's reports raise the flag (the prover's own
            // meter reports every million positions).
            let mut solver = Solver::new(rules, 1 << 20).unwrap();
            solver.set_report_every(64);
            let raise = Arc::clone(&stop);
            solver.on_progress(move |_| raise.store(true, Ordering::Relaxed));
            prover.solver = Some(solver);
            prover.set_stop(Some(Arc::clone(&stop)));
            match prover.can_force(&game, side) {
                Err(ProveError::Stopped) => stopped += 1,
                // Answered before the solver's first report.
                Ok(_) => assert!(!stop.load(Ordering::Relaxed), "{game}"),
                Err(e) => panic!("{e}: {game}"),
            }
            stop.store(false, Ordering::Relaxed);
            prover.solver.as_mut().unwrap().on_progress(|_| {});
            let fresh = Prover::new(rules, 1 << 20)
                .unwrap()
                .can_force(&game, side)
                .unwrap();
            assert_eq!(prover.can_force(&game, side).unwrap(), fresh, "{game}");
        }
        assert!(stopped >= 3, "{stopped} of {asked} calls stopped");
    }

    /// Both sides' real-game answers agree with the 64-bit solver's
    /// alpha-beta search (which knows nothing of Maker–Breaker games) on
    /// random positions, and every kind of answer comes up: real wins,
    /// Maker–Breaker wins the defender's threats hold to no real win, and
    /// Maker–Breaker losses.
    #[test]
    fn agrees_with_the_solver() {
        let mut all_kinds = [0usize; 3];
        let mut random = random_numbers(29);
        for (rows, cols, k, positions) in [
            (4, 4, 3, 60),
            (4, 4, 4, 60),
            (5, 4, 4, 60),
            (5, 5, 4, 80),
            (6, 5, 4, 20),
            (6, 6, 4, 12),
            (6, 6, 5, 12),
        ] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let mut prover = Prover::new(rules, 1 << 20).unwrap();
            let mut solver = Solver::new(rules, 1 << 22).unwrap();
            let mut kinds = [0usize; 3];
            for _ in 0..positions {
                let Some(game) = random_game(rules, &mut random) else {
                    continue;
                };
                let value = solver.value_by_search(&game).unwrap();
                for side in [Player::X, Player::O] {
                    let expected = value
                        == if side == game.to_move() {
                            Value::Win
                        } else {
                            Value::Loss
                        };
                    // The real game's search itself (`can_force` asks the
                    // 64-bit solver first on its boards).
                    let pos = Pos {
                        maker: prover.board.oriented(&game, side),
                        breaker: prover.board.oriented(&game, side.other()),
                    };
                    prover.meter.start();
                    let wins = prover.real_wins(&pos, game.to_move() == side).unwrap().wins;
                    assert_eq!(wins, expected, "{rules} {side}: {game}");
                    let block_only = prover.maker_wins(&game, side).unwrap();
                    kinds[usize::from(wins) + usize::from(block_only)] += 1;
                }
            }
            for (all, kind) in all_kinds.iter_mut().zip(kinds) {
                *all += kind;
            }
        }
        // No line even against a mere blocker; a line against a blocker but
        // no real win; a real win.
        assert!(all_kinds.iter().all(|&n| n >= 60), "{all_kinds:?}");
    }

    /// The real-game question's two searches, taking turns from a cap of
    /// one position (so that both are cut again and again, and each round
    /// starts from what the last stored), answer as the 64-bit solver's
    /// alpha-beta search alone does, on random positions where the side
    /// forces a line against a mere blocker: once with the two caps equal
    /// (alpha-beta answers most), once with alpha-beta's 64 times smaller
    /// (the real game's search answers most, after being cut).
    #[test]
    fn the_searches_taking_turns_agree_with_the_solver() {
        for solver_shift in [0, 6] {
            let mut random = random_numbers(31);
            let mut asked = [0usize; 2];
            let mut turns = Turns::default();
            for (rows, cols, k, positions) in [(5, 5, 4, 60), (6, 5, 4, 30), (6, 6, 4, 16)] {
                let rules = Rules::new(rows, cols, k).unwrap();
                let mut prover = Prover::new(rules, 1 << 20).unwrap();
                prover.turns.first = 1;
                prover.turns.solver_shift = solver_shift;
                let mut solver = Solver::new(rules, 1 << 22).unwrap();
                for _ in 0..positions {
                    let Some(game) = random_game(rules, &mut random) else {
                        continue;
                    };
                    let value = solver.value_by_search(&game).unwrap();
                    for side in [Player::X, Player::O] {
                        if !prover.maker_wins(&game, side).unwrap() {
                            continue;
                        }
                        let expected = value
                            == if side == game.to_move() {
                                Value::Win
                            } else {
                                Value::Loss
                            };
                        let forces = prover.can_force(&game, side).unwrap();
                        assert_eq!(forces, expected, "{rules} {side}: {game}");
                        asked[usize::from(forces)] += 1;
                    }
                }
                turns.handovers += prover.turns.handovers;
                turns.solver_answers += prover.turns.solver_answers;
                turns.resumed_answers += prover.turns.resumed_answers;
            }
            // Real wins and draws held by the defender's threats both came
            // up, the searches were cut and handed over many times, and
            // each search gave answers of its own: the real game's after
            // being cut and resumed.
            assert!(asked.iter().all(|&n| n >= 20), "{asked:?}");
            assert!(turns.handovers >= 100, "{turns:?}");
            let answers = if solver_shift == 0 {
                turns.solver_answers
            } else {
                turns.resumed_answers
            };
            assert!(answers >= 60, "shift {solver_shift}: {turns:?}");
        }
    }

    /// Progress reports keep coming while alpha-beta takes its turn: the
    /// 64-bit solver's positions are reported in the prover's count, which
    /// only grows and stays within each call's positions, and in the time
    /// since the call began. The callback is set first and the solver made
    /// later, as a campaign does.
    #[test]
    fn progress_is_reported_during_alpha_beta_rounds() {
        const EVERY: u64 = 64;
        let rules = Rules::new(6, 6, 4).unwrap();
        let mut prover = Prover::new(rules, 1 << 20).unwrap();
        // (call, positions, time) of each report.
        let heard = Arc::new(Mutex::new(Vec::new()));
        let call = Arc::new(AtomicUsize::new(0));
        let (sink, now) = (Arc::clone(&heard), Arc::clone(&call));
        prover.on_progress(move |p| {
            let call = now.load(Ordering::Relaxed);
            sink.lock().unwrap().push((call, p.nodes, p.elapsed));
        });
        prover.meter.set_report_every(EVERY);
        prover.solver = Some(Solver::new(rules, 1 << 20).unwrap());
        prover.solver.as_mut().unwrap().set_report_every(EVERY);
        let mut random = random_numbers(37);
        // Each call's first and last position and its time.
        let mut calls = Vec::new();
        while calls.len() < 48 {
            let Some(game) = random_game(rules, &mut random) else {
                continue;
            };
            for side in [Player::X, Player::O] {
                let ask = |prover: &mut Prover, forces: bool| {
                    call.fetch_add(1, Ordering::Relaxed);
                    let first = prover.nodes() + 1;
                    let started = Instant::now();
                    let answer = if forces {
                        prover.can_force(&game, side)
                    } else {
                        prover.maker_wins(&game, side)
                    };
                    (answer.unwrap(), (first, prover.nodes(), started.elapsed()))
                };
                let (maker_wins, asked) = ask(&mut prover, false);
                calls.push(asked);
                if maker_wins {
                    calls.push(ask(&mut prover, true).1);
                }
            }
        }
        let heard = heard.lock().unwrap();
        for pair in heard.windows(2) {
            assert!(pair[0].1 < pair[1].1, "{pair:?}");
            if pair[0].0 == pair[1].0 {
                assert!(pair[0].2 <= pair[1].2, "{pair:?}");
            }
        }
        for &(call, nodes, elapsed) in heard.iter() {
            let (first, last, took) = calls[call - 1];
            assert!((first..=last).contains(&nodes), "{nodes} in call {call}");
            assert!(elapsed <= took, "{elapsed:?} in call {call}");
        }
        // Alpha-beta visits most positions; without its reports, those
        // would be one report a round at most.
        let solver_nodes = prover.solver.as_ref().unwrap().nodes();
        assert!(
            solver_nodes * 2 > prover.nodes(),
            "{solver_nodes} of {}",
            prover.nodes()
        );
        assert!(
            heard.len() as u64 * EVERY * 2 > prover.nodes(),
            "{} reports for {} positions",
            heard.len(),
            prover.nodes()
        );
    }

    /// The relay turns the 64-bit solver's reports into the prover's:
    /// its positions and time are added to the prover's count and time
    /// at the round's start, whatever they are (here an hour and a
    /// billion positions, which no solver call reaches alone).
    #[test]
    fn the_relay_adds_the_rounds_offsets() {
        use std::time::Duration;

        const HOUR: Duration = Duration::from_secs(3600);
        const BILLION: u64 = 1_000_000_000;
        let rules = Rules::new(4, 4, 3).unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&heard);
        let relay = Arc::new(Mutex::new(super::super::Relay {
            report: Box::new(move |p: super::super::Progress| sink.lock().unwrap().push(p)),
            nodes: BILLION,
            elapsed: HOUR,
        }));
        let mut solver = Solver::new(rules, 1 << 16).unwrap();
        solver.set_report_every(8);
        super::super::Relay::attach(&relay, &mut solver);
        let started = Instant::now();
        solver.value_by_search(&Game::new(rules)).unwrap();
        let took = started.elapsed();
        let heard = heard.lock().unwrap();
        assert!(heard.len() > 2, "{} reports", heard.len());
        for p in heard.iter() {
            assert!(
                p.nodes > BILLION && p.nodes <= BILLION + solver.nodes(),
                "{p:?}"
            );
            assert!(p.elapsed >= HOUR && p.elapsed <= HOUR + took, "{p:?}");
        }
    }

    /// The threat search's answer, with its shortcut for two moves left,
    /// is plain minimax's over every empty cell within the same number of
    /// attacker moves, on random positions of two boards, both sides to
    /// move, one to three moves.
    #[test]
    fn the_threat_search_agrees_with_plain_minimax() {
        fn minimax(board: &Board, a: u128, d: u128, attacker_turn: bool, moves: u32) -> bool {
            if board.windows.iter().any(|&w| w & !a == 0) {
                return true;
            }
            let empty = board.valid & !(a | d);
            if empty == 0 || (attacker_turn && moves == 0) {
                return false;
            }
            if attacker_turn {
                bits(empty).any(|x| minimax(board, a | 1 << x, d, false, moves - 1))
            } else {
                bits(empty).all(|y| minimax(board, a, d | 1 << y, true, moves))
            }
        }
        let mut rng = crate::rng_from_seed(5);
        let mut random = move |n: u32| rand::RngExt::random_range(&mut rng, 0..n);
        let mut answers = [0usize; 2];
        for (rows, cols, k, stones) in [(5, 5, 4, 8), (6, 6, 5, 12)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let mut prover = Prover::new(rules, 1 << 16).unwrap();
            let board = prover.board.clone();
            for _ in 0..150 {
                let (mut a, mut d) = (0u128, 0u128);
                for i in 0..stones {
                    let empty = board.valid & !(a | d);
                    let c = bits(empty)
                        .nth(random(empty.count_ones()) as usize)
                        .unwrap();
                    // The attacker gets the larger share, so that wins come up.
                    if i % 3 == 2 { d |= 1 << c } else { a |= 1 << c }
                }
                if board.windows.iter().any(|&w| w & !a == 0) {
                    continue;
                }
                let attacker_turn = random(2) == 0;
                let moves = 1 + random(if attacker_turn { 3 } else { 2 });
                prover.meter.start();
                let quick = prover.quick(a, d, attacker_turn, moves).unwrap();
                assert_eq!(
                    quick,
                    minimax(&board, a, d, attacker_turn, moves),
                    "{rules}: attacker {a:#x} defender {d:#x} to move {attacker_turn} moves {moves}"
                );
                answers[usize::from(quick)] += 1;
            }
        }
        assert!(answers.iter().all(|&n| n >= 30), "{answers:?}");
    }
}
