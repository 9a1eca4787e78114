//! The proof search: an AND/OR search of the Maker–Breaker game with
//! zones (the module above explains the method and why it is sound).

use super::board::{MAX_SYMMETRIES, bits};
use super::pairing::PAIRING_BUDGET;
use super::table::{Entry, MAKER_TO_MOVE, MAKER_WINS, USED};
use super::{Progress, Prover};
use crate::pairing::Budget;

/// A Maker–Breaker position in every symmetric orientation (index 0 is the
/// real one).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pos {
    pub maker: [u128; MAX_SYMMETRIES],
    pub breaker: [u128; MAX_SYMMETRIES],
}

/// A proven result: who wins, and the zone, the cells the proof depends
/// on. A Breaker win stays one with Maker stones added anywhere outside
/// its zone; a Maker win stays one with Breaker stones added anywhere
/// outside its zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Proof {
    pub maker_wins: bool,
    pub zone: u128,
}

impl Proof {
    const fn maker(zone: u128) -> Proof {
        Proof {
            maker_wins: true,
            zone,
        }
    }

    const fn breaker(zone: u128) -> Proof {
        Proof {
            maker_wins: false,
            zone,
        }
    }
}

/// Steps a Breaker node's pairing search may take, as a multiple of the
/// pairing module's budget for one search: 64 takes 3,471 positions to
/// prove (7,7,5) a draw, 8 took 12,325 (and before the domination rule
/// 24,243), 4 took 44,125, 1 took 182,182. Above 64 the searches that
/// fail have failed for good: 128 and 256 search the same positions on
/// the module doc's per-move proofs. A search costs up to 4,096 steps,
/// but the positions it saves cost as much: hints take the same time.
///
/// Where that finds none, a second search of 64 steps also tries any two
/// free cells of a window (the module doc has the figures). One search
/// over every pair instead, 4,096 steps, took twice the time (many more
/// ways to fail) and searched more positions than these two searches on
/// two of the four positions, fewer on the other two; a second search of 512
/// steps searches 7–14% fewer positions than 64 but made the hints
/// 6–9% slower than 64 (5.57 s for 40 positions against 5.12–5.25 s).
pub(super) const LOOKAHEAD_BUDGET: Budget = Budget {
    steps: 64 * PAIRING_BUDGET,
    any_steps: PAIRING_BUDGET,
};
/// The longest line the Erdős–Selfridge test is made for: its sum, scaled
/// by 2^k, over at most 256 windows then fits a `u128` (2^8 · 2^119).
const ES_MAX_K: u32 = 119;

/// What a live window `w` adds to the score of each of its empty cells
/// in the Breaker's move order: 2 where the Maker is at most two stones
/// from filling it, 1 otherwise. Counting windows alone took (7,7,5)
/// 3,471 positions and these 3,467; the module doc has the rest, and why
/// not more weight.
#[inline]
pub(super) fn breaker_weight(w: u128, maker: u128, k: u32) -> u32 {
    if (w & maker).count_ones() + 2 >= k {
        2
    } else {
        1
    }
}

impl Prover {
    #[inline]
    pub(super) fn visit(&mut self) {
        self.meter
            .visit(|nodes, elapsed| Progress { nodes, elapsed });
    }

    /// The orientation giving the smallest (maker, breaker) pair, and that
    /// pair.
    #[inline]
    pub(super) fn canonical(&self, pos: &Pos) -> (usize, u128, u128) {
        let mut best = (0, pos.maker[0], pos.breaker[0]);
        for s in 1..self.board.symmetry_count() {
            if (pos.maker[s], pos.breaker[s]) < (best.1, best.2) {
                best = (s, pos.maker[s], pos.breaker[s]);
            }
        }
        best
    }

    /// Who wins the Maker–Breaker game from `pos`, with the Maker to move
    /// or not, and the zone of the proof; `None` when the budget ran out
    /// (nothing unfinished is stored).
    pub(super) fn prove(&mut self, pos: &Pos, maker_turn: bool) -> Option<Proof> {
        // The cells the parent would rather this proof left out (only the
        // node the parent asked reads them).
        let avoid = std::mem::take(&mut self.avoid);
        self.visit();
        if self.meter.aborted() {
            return None;
        }
        let board = &self.board;
        let k = board.k;
        // The Erdős–Selfridge sum, scaled by 2^k, is exact in a u128 for
        // up to 256 windows while k ≤ ES_MAX_K; longer lines skip the test.
        let use_potential = k <= ES_MAX_K;
        let (maker, breaker) = (pos.maker[0], pos.breaker[0]);
        let empty = board.valid & !(maker | breaker);

        // One pass over the windows the Maker can still fill.
        let mut live = 0u128;
        let mut potential = 0u128;
        let mut fours = 0u128;
        for &w in &board.windows {
            if w & breaker != 0 {
                continue;
            }
            let free = w & empty;
            let n = free.count_ones();
            if n == 0 {
                self.stats.won += 1;
                return Some(Proof::maker(0));
            }
            live |= free;
            if use_potential {
                potential += 1 << (k - n);
            }
            if n == 1 {
                fours |= free;
            }
        }
        if fours != 0 {
            let first = fours & fours.wrapping_neg();
            if maker_turn {
                self.stats.won += 1;
                return Some(Proof::maker(first));
            }
            let rest = fours & !first;
            if rest != 0 {
                self.stats.won += 1;
                return Some(Proof::maker(first | (rest & rest.wrapping_neg())));
            }
        }
        if live == 0 {
            self.stats.blocked += 1;
            return Some(Proof::breaker(0));
        }
        // Erdős–Selfridge: the sum over live windows of 2^-(empty cells)
        // below 1/2 with the Maker to move, below 1 with the Breaker to
        // move, and the Breaker wins (here scaled by 2^k).
        if use_potential && potential < 1 << (k - u32::from(maker_turn)) {
            self.stats.potential += 1;
            return Some(Proof::breaker(live));
        }

        let turn = if maker_turn { MAKER_TO_MOVE } else { 0 };
        let (sym, cmaker, cbreaker) = self.canonical(pos);
        if let Some(entry) = self.table.get(cmaker, cbreaker, turn) {
            self.stats.table += 1;
            return Some(Proof {
                maker_wins: entry.flags & MAKER_WINS != 0,
                zone: self.board.unmap_set(sym, entry.zone),
            });
        }
        let board = &self.board;
        let empties = empty.count_ones() as u8;
        let store = |prover: &mut Prover, proof: Proof| {
            prover.table.put(Entry {
                maker: cmaker,
                breaker: cbreaker,
                zone: prover.board.map_set(sym, proof.zone),
                flags: USED | turn | if proof.maker_wins { MAKER_WINS } else { 0 },
                empties,
            });
            Some(proof)
        };

        // A pairing strategy settles the node for the Breaker: with the
        // Breaker to move, after a move of its own (the forced one if the
        // Maker threatens). A Maker node's parent has looked for that
        // already, so only the root looks without a move.
        let pairing = if maker_turn {
            if self.meter.nodes() == self.root_node {
                board.pairing(maker, breaker, PAIRING_BUDGET)
            } else {
                None
            }
        } else {
            let moves = if fours != 0 { fours } else { live };
            board.pairing_after_move(maker, breaker, moves, avoid, LOOKAHEAD_BUDGET)
        };
        self.stats.pairing_searches += 1;
        if let Some(cells) = pairing {
            self.stats.pairings += 1;
            return store(self, Proof::breaker(cells));
        }

        // The moves to prove: a Breaker facing a four must take its cell
        // (and that cell is part of the reason any other move loses); else
        // the live cells: a stone outside every live window changes nothing.
        let (mut allowed, mut zone) = if !maker_turn && fours != 0 {
            (fours, fours)
        } else {
            (live, 0)
        };
        // The Breaker takes first the cell in the most live windows, a
        // window the Maker is two stones from filling counting twice
        // (`breaker_weight`); the Maker the cell with the most weight, a
        // window weighing 2 to the power of the Maker's stones in it (the
        // Erdős–Selfridge potential it adds). The Breaker's order decides
        // the size of a draw's proof (see the module's measurements); the
        // Maker's that of a win's.
        //
        // Each cell's `common` is the cells in every live window through
        // it: a move whose live windows all hold another cell x is
        // dominated by x (see `prove`'s domination rule below).
        let mut scores = [0u32; 128];
        let mut common = [u128::MAX; 128];
        for &w in &board.windows {
            if w & breaker == 0 {
                let add = if maker_turn {
                    1 << (w & maker).count_ones()
                } else {
                    breaker_weight(w, maker, k)
                };
                for c in bits(w & empty & allowed) {
                    scores[c as usize] += add;
                    common[c as usize] &= w;
                }
            }
        }
        // The symmetries that leave the position as it is.
        let mut stabilizer = [0usize; MAX_SYMMETRIES];
        let mut symmetric = 0;
        for s in 1..board.symmetry_count() {
            if pos.maker[s] == maker && pos.breaker[s] == breaker {
                stabilizer[symmetric] = s;
                symmetric += 1;
            }
        }
        if maker_turn {
            self.stats.maker_nodes += 1;
        } else {
            self.stats.breaker_nodes += 1;
        }
        let mut settled = 0u128;
        loop {
            let candidates = allowed & !settled;
            if candidates == 0 {
                break;
            }
            let board = &self.board;
            let x = bits(candidates)
                .max_by_key(|&c| {
                    (
                        scores[c as usize],
                        std::cmp::Reverse(board.rank[c as usize]),
                    )
                })
                .expect("candidates is not empty");
            let mut child = *pos;
            if maker_turn {
                board.place(&mut child.maker, x);
            } else {
                board.place(&mut child.breaker, x);
            }
            if maker_turn {
                // The Maker's moves still to prove: a proof for this one
                // whose zone leaves them out settles them too, so the
                // child's pairing search tries to leave them out.
                self.avoid = candidates & !(1 << x);
            }
            let proof = self.prove(&child, !maker_turn)?;
            if proof.maker_wins == maker_turn {
                // The mover wins with x.
                if !maker_turn {
                    self.stats.breaker_first += u64::from(settled == 0);
                }
                return store(
                    self,
                    Proof {
                        maker_wins: maker_turn,
                        zone: proof.zone | 1 << x,
                    },
                );
            }
            // x loses for the mover, and so does every move outside its
            // proof's zone: the same proof holds with that stone added,
            // and without x's (the monotonicity of Maker–Breaker games).
            if maker_turn {
                self.stats.maker_moves += 1;
            } else {
                self.stats.breaker_failures += 1;
            }
            let mut lost = 1 << x;
            zone |= proof.zone;
            allowed &= proof.zone;
            for &s in &stabilizer[..symmetric] {
                let image = self.board.map_set(s, proof.zone);
                lost |= 1 << self.board.map(s, x);
                zone |= image;
                allowed &= image;
            }
            settled |= lost;
            // Domination: a move y whose every live window holds a lost
            // move x loses too (x does for the mover all that y does;
            // see the module doc). That argument needs x empty, so x
            // joins the zone.
            let mut dominated = 0;
            for y in bits(allowed & !settled) {
                if common[y as usize] & lost != 0 {
                    dominated |= 1 << y;
                }
            }
            if dominated != 0 {
                settled |= dominated;
                zone |= lost;
                self.stats.dominated += u64::from(dominated.count_ones());
            }
        }
        store(
            self,
            Proof {
                maker_wins: !maker_turn,
                zone,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use oxo_core::Rules;

    use super::super::board::Board;
    use super::*;
    use crate::testing::random_numbers;

    /// Plain minimax of the Maker–Breaker game, memoised: the reference.
    fn brute(
        board: &Board,
        maker: u128,
        breaker: u128,
        maker_turn: bool,
        memo: &mut HashMap<(u128, u128, bool), bool>,
    ) -> bool {
        if board.windows.iter().any(|&w| w & !maker == 0) {
            return true;
        }
        let empty = board.valid & !(maker | breaker);
        if empty == 0 {
            return false;
        }
        if let Some(&v) = memo.get(&(maker, breaker, maker_turn)) {
            return v;
        }
        let v = if maker_turn {
            bits(empty).any(|c| brute(board, maker | 1 << c, breaker, false, memo))
        } else {
            bits(empty).all(|c| brute(board, maker, breaker | 1 << c, true, memo))
        };
        memo.insert((maker, breaker, maker_turn), v);
        v
    }

    fn pos_of(board: &Board, maker: u128, breaker: u128) -> Pos {
        let mut pos = Pos {
            maker: [0; MAX_SYMMETRIES],
            breaker: [0; MAX_SYMMETRIES],
        };
        for b in bits(maker) {
            board.place(&mut pos.maker, b);
        }
        for b in bits(breaker) {
            board.place(&mut pos.breaker, b);
        }
        pos
    }

    /// `stones` stones on random empty cells, the Maker's and the
    /// Breaker's in turn, the Maker first; with `breaker_extra`, a quarter
    /// of the Maker's turns go to the Breaker instead.
    fn random_stones(
        board: &Board,
        stones: u32,
        breaker_extra: bool,
        random: &mut impl FnMut() -> u32,
    ) -> (u128, u128) {
        let (mut maker, mut breaker) = (0u128, 0u128);
        for i in 0..stones {
            let empty = board.valid & !(maker | breaker);
            let c = bits(empty)
                .nth((random() % empty.count_ones()) as usize)
                .unwrap();
            if i % 2 == 0 && !(breaker_extra && random().is_multiple_of(4)) {
                maker |= 1 << c;
            } else {
                breaker |= 1 << c;
            }
        }
        (maker, breaker)
    }

    /// Every answer agrees with plain minimax, and every zone is big
    /// enough: with stones of the loser added anywhere outside it (Maker
    /// stones to a Breaker win, Breaker stones to a Maker win), the winner
    /// still wins. A zone computed too small fails the second check.
    #[test]
    fn answers_and_zones_agree_with_minimax() {
        let mut random = random_numbers(7u64);
        let mut dominated = 0;
        for (rows, cols, k, positions, min_stones) in [
            (3, 3, 3, 600, 0),
            (4, 4, 3, 600, 3),
            (4, 4, 4, 150, 4),
            (5, 4, 4, 100, 8),
            (4, 5, 3, 100, 9),
            (5, 5, 4, 40, 14),
        ] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let mut prover = Prover::new(rules, 1 << 20).unwrap();
            let board = prover.board.clone();
            let cells = rows * cols;
            let mut memo = HashMap::new();
            let mut counts = [0usize; 2];
            for _ in 0..positions {
                let stones = min_stones + random() % (cells - min_stones);
                // The Breaker gets a few more stones than its share, so
                // that both answers come up.
                let (maker, breaker) = random_stones(&board, stones, true, &mut random);
                let maker_turn = random().is_multiple_of(2);
                let expected = brute(&board, maker, breaker, maker_turn, &mut memo);
                prover.root_node = prover.meter.nodes() + 1;
                let proof = prover
                    .prove(&pos_of(&board, maker, breaker), maker_turn)
                    .unwrap();
                assert_eq!(
                    proof.maker_wins, expected,
                    "{rules}: maker {maker:#x} breaker {breaker:#x} maker to move {maker_turn}"
                );
                counts[usize::from(expected)] += 1;
                let outside = board.valid & !(maker | breaker | proof.zone);
                for _ in 0..4 {
                    let extra = outside & (u128::from(random()) | u128::from(random()) << 32);
                    let (m, b) = if expected {
                        (maker, breaker | extra)
                    } else {
                        (maker | extra, breaker)
                    };
                    assert_eq!(
                        brute(&board, m, b, maker_turn, &mut memo),
                        expected,
                        "{rules}: zone {:#x} too small for maker {maker:#x} breaker {breaker:#x} \
                         maker to move {maker_turn}: fails with {extra:#x} added",
                        proof.zone
                    );
                }
            }
            assert!(counts[0] >= 10 && counts[1] >= 10, "{rules}: {counts:?}");
            dominated += prover.stats.dominated;
        }
        // The domination rule, which settles moves without a search of
        // their own, was put to the test.
        assert!(dominated >= 20, "{dominated}");
    }

    /// Pairings that only the search over any two cells of a window finds
    /// are sound, and so are the zones they give: on random positions with
    /// the Breaker to move where the search over neighbouring cells finds
    /// none, the Breaker wins under plain minimax, and still wins with
    /// Maker stones added anywhere outside the cells the pairing takes
    /// (the zone of a node a pairing settles). The prover, asked the same
    /// positions, agrees, and its own zone holds too.
    #[test]
    fn pairings_of_any_two_cells_and_their_zones_agree_with_minimax() {
        let neighbours = Budget::from(LOOKAHEAD_BUDGET.steps);
        let any_two = Budget {
            steps: 0,
            any_steps: LOOKAHEAD_BUDGET.any_steps,
        };
        let mut random = random_numbers(13u64);
        let mut found = Vec::new();
        for (rows, cols, k, positions) in [(5, 4, 4, 10000), (4, 5, 4, 10000)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let mut prover = Prover::new(rules, 1 << 20).unwrap();
            let board = prover.board.clone();
            let cells = rows * cols;
            let mut memo = HashMap::new();
            let mut count = 0;
            // 10 to 13 empty cells, few enough for plain minimax. Few
            // positions need the second search: 35 and 11 of these 10,000.
            for _ in 0..positions {
                let (maker, breaker) =
                    random_stones(&board, cells - 13 + random() % 4, false, &mut random);
                let free = board.valid & !(maker | breaker);
                if board.windows.iter().any(|&w| w & !maker == 0)
                    || board
                        .pairing_after_move(maker, breaker, free, 0, neighbours)
                        .is_some()
                {
                    continue;
                }
                let Some(zone) = board.pairing_after_move(maker, breaker, free, 0, any_two) else {
                    continue;
                };
                count += 1;
                let what = format!("{rules}: maker {maker:#x} breaker {breaker:#x}");
                assert!(!brute(&board, maker, breaker, false, &mut memo), "{what}");
                prover.root_node = prover.meter.nodes() + 1;
                let proof = prover
                    .prove(&pos_of(&board, maker, breaker), false)
                    .unwrap();
                assert!(!proof.maker_wins, "{what}");
                for zone in [zone, proof.zone] {
                    let outside = board.valid & !(maker | breaker | zone);
                    for i in 0..5 {
                        let extra = if i == 0 {
                            outside
                        } else {
                            outside & (u128::from(random()) | u128::from(random()) << 32)
                        };
                        assert!(
                            !brute(&board, maker | extra, breaker, false, &mut memo),
                            "{what}: zone {zone:#x} too small: fails with {extra:#x} added"
                        );
                    }
                }
            }
            found.push(count);
        }
        assert!(found.iter().all(|&n| n >= 8), "{found:?}");
    }

    /// The domination rule itself, against minimax: when every live
    /// window through y holds x, and x loses for the mover, so does y.
    #[test]
    fn a_dominated_move_loses_when_its_dominator_does() {
        let mut random = random_numbers(11u64);
        let mut checked = 0;
        for (rows, cols, k) in [(4, 4, 3), (4, 5, 4), (5, 5, 4)] {
            let board = Board::new(Rules::new(rows, cols, k).unwrap()).unwrap();
            let cells = rows * cols;
            let mut memo = HashMap::new();
            for _ in 0..300 {
                let (maker, breaker) = random_stones(&board, cells - 9, false, &mut random);
                let empty = board.valid & !(maker | breaker);
                let live: Vec<u128> = board
                    .windows
                    .iter()
                    .copied()
                    .filter(|w| w & breaker == 0)
                    .collect();
                for y in bits(empty) {
                    let through: Vec<u128> =
                        live.iter().copied().filter(|w| w >> y & 1 == 1).collect();
                    if through.is_empty() {
                        continue;
                    }
                    let common = through.iter().fold(u128::MAX, |a, w| a & w) & !(1 << y);
                    for x in bits(common & empty) {
                        for maker_turn in [true, false] {
                            let wins = |c: u32, memo: &mut HashMap<_, _>| {
                                if maker_turn {
                                    brute(&board, maker | 1 << c, breaker, false, memo)
                                } else {
                                    brute(&board, maker, breaker | 1 << c, true, memo)
                                }
                            };
                            // x loses for the mover: so does y.
                            if wins(x, &mut memo) != maker_turn {
                                checked += 1;
                                assert_ne!(
                                    wins(y, &mut memo),
                                    maker_turn,
                                    "{rows}x{cols} k={k}: maker {maker:#x} breaker {breaker:#x}: \
                                     {y} dominated by {x}, maker to move {maker_turn}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(checked >= 100, "{checked}");
    }
}
