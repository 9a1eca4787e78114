//! Pairing strategies on the prover's boards (the search itself is
//! [`crate::pairing`]): disjoint pairs of empty cells such that every
//! window the Maker can still fill holds one whole pair. The Breaker,
//! answering each Maker stone in a pair with the pair's other cell, then
//! never lets a window fill, whoever is to move.

use super::board::{Board, WindowSet};
use crate::pairing::{Budget, Windows, pairing, pairing_avoiding};

/// Steps one pairing search may take before giving up.
pub(super) const PAIRING_BUDGET: u32 = 64;

impl Board {
    /// The cells of a pairing strategy of the Breaker (stones `breaker`)
    /// against the Maker (stones `maker`), if the search finds one.
    pub fn pairing(&self, maker: u128, breaker: u128, budget: u32) -> Option<u128> {
        pairing(self, maker, breaker, self.valid, 0, budget)
    }

    /// With the Breaker to move and its move among `moves`: the cells of a
    /// move (if one is needed) and a pairing after it, if the search finds
    /// them. An extra Breaker stone never spoils a pairing, so when none is
    /// needed any move keeps it.
    ///
    /// Pairs with cells in `avoid` are tried last (see
    /// [`pairing_avoiding`]).
    pub fn pairing_after_move(
        &self,
        maker: u128,
        breaker: u128,
        moves: u128,
        avoid: u128,
        budget: Budget,
    ) -> Option<u128> {
        if moves & self.valid & !(maker | breaker) == 0 {
            return None;
        }
        pairing_avoiding(self, maker, breaker, self.valid, moves, avoid, budget)
    }
}

impl Windows for Board {
    type Cells = u128;

    #[inline]
    fn window(&self, i: usize) -> u128 {
        self.windows[i]
    }

    #[inline]
    fn through(&self, cells: u128) -> &WindowSet {
        &self.through[cells.trailing_zeros() as usize]
    }

    fn all_windows(&self) -> &WindowSet {
        &self.all_windows
    }

    fn window_count(&self) -> usize {
        self.windows.len()
    }

    fn order(&self) -> &[u8] {
        &self.order
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Rules;

    use super::*;
    use crate::pairing::pairing_strategy;

    /// The strategy written out is the one the search finds: the same
    /// cells, disjoint pairs of free cells, and after its stone every
    /// window without a Breaker stone holds a whole pair; with a second
    /// search over any two cells of a window too, which finds more.
    #[test]
    fn written_strategies_are_the_pairings_found() {
        let neighbours = Budget::from(PAIRING_BUDGET);
        let any = Budget {
            steps: PAIRING_BUDGET,
            any_steps: PAIRING_BUDGET,
        };
        let found = [neighbours, any].map(written_strategies);
        assert!(found[0] > 50, "{found:?}");
        assert!(found[1] > found[0], "{found:?}");
    }

    /// How many of a fixed set of positions have a pairing the search
    /// finds within `budget`, each checked as above.
    fn written_strategies(budget: Budget) -> usize {
        let mut next = crate::testing::random_numbers(29);
        let mut random = move |n: u32| next() % n;
        let mut found = 0;
        for (rows, cols, k) in [(5, 5, 4), (7, 7, 5), (9, 8, 6), (11, 11, 6)] {
            let board = Board::new(Rules::new(rows, cols, k).unwrap()).unwrap();
            let cells = rows * cols;
            for _ in 0..200 {
                let (mut maker, mut breaker) = (0u128, 0u128);
                for i in 0..random(cells / 3) {
                    let c = random(cells);
                    if (maker | breaker) & 1 << c == 0 {
                        if i % 2 == 0 {
                            maker |= 1 << c;
                        } else {
                            breaker |= 1 << c;
                        }
                    }
                }
                let empty = board.valid & !(maker | breaker);
                let spare = if random(2) == 0 { 0 } else { empty };
                let cells_found =
                    pairing_avoiding(&board, maker, breaker, board.valid, spare, 0, budget);
                let strategy = pairing_strategy(&board, maker, breaker, board.valid, spare, budget);
                assert_eq!(cells_found.is_some(), strategy.is_some());
                let (Some(cells_found), Some(strategy)) = (cells_found, strategy) else {
                    continue;
                };
                found += 1;
                let mut used = 0u128;
                let mut defender = breaker;
                if let Some(stone) = strategy.stone {
                    assert!(spare & 1 << stone != 0);
                    used |= 1 << stone;
                    defender |= 1 << stone;
                }
                for &(a, b) in &strategy.pairs {
                    let pair = 1u128 << a | 1 << b;
                    assert_eq!(pair & used, 0, "pairs overlap");
                    assert_eq!(pair & !empty, 0, "a pair on a stone");
                    used |= pair;
                }
                assert_eq!(used, cells_found);
                for &w in &board.windows {
                    if w & defender == 0 {
                        assert!(
                            strategy
                                .pairs
                                .iter()
                                .any(|&(a, b)| w & (1 << a) != 0 && w & (1 << b) != 0),
                            "an open window without a pair"
                        );
                    }
                }
            }
        }
        found
    }
}
