//! The pairing search on the solver's boards (the search itself is
//! [`crate::pairing`]): whether the defender can answer every attacker
//! move inside a pair of cells so that no window is ever filled.

use super::geometry::Geometry;
use crate::pairing::{Windows, pairing};

impl Geometry {
    /// Whether `defender` has a pairing strategy against `attacker`: disjoint
    /// pairs of empty cells such that every window the attacker can still
    /// fill holds one whole pair. Answering each attacker move inside a pair
    /// with the pair's other cell then keeps the attacker from ever making k
    /// in a row, whoever is to move. A `false` may also mean the search for
    /// a pairing ran out of `budget` steps: the check is sound, not complete.
    pub fn has_pairing(&self, attacker: u64, defender: u64, budget: u32) -> bool {
        pairing(self, attacker, defender, self.valid, 0, budget).is_some()
    }

    /// Whether `defender`, to move, has a move in `moves` after which it has
    /// a pairing strategy against `attacker` (see [`Geometry::has_pairing`]):
    /// if so, the cells the strategy takes, its move (if it needs one) and
    /// the cells of its pairs.
    ///
    /// One search with a spare stone to place, rather than one pairing
    /// search per move: the searches for different moves share most of
    /// their work (the same crowded windows fail them all), and a window
    /// the move would block is simply one more way to settle that window.
    /// Sound, not complete, as `has_pairing`.
    pub fn has_pairing_after_move(
        &self,
        attacker: u64,
        defender: u64,
        moves: u64,
        budget: u32,
    ) -> Option<u64> {
        // The search may leave the stone unplaced: an extra defender stone
        // never spoils a pairing (it blocks every window through it, and
        // the windows its pair covered all hold it), so any move will do.
        if moves & self.valid & !(attacker | defender) == 0 {
            return None;
        }
        pairing(self, attacker, defender, self.valid, moves, budget)
    }
}

impl Windows for Geometry {
    type Cells = u64;

    #[inline]
    fn window(&self, i: usize) -> u64 {
        self.window_at[i % 256]
    }

    #[inline]
    fn through(&self, cells: u64) -> &[u64; 4] {
        &self.through[cells.trailing_zeros() as usize % 64]
    }

    fn all_windows(&self) -> &[u64; 4] {
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
    use super::*;
    use oxo_core::Rules;

    /// An independent, complete pairing search: open windows as lists of
    /// cells, the least free window first, any two of its free cells as the
    /// pair that covers it, no budget but a cap on steps (`None` when it
    /// runs out). Finds the pairs themselves, so they can be checked.
    fn reference_pairing(geo: &Geometry, attacker: u64, defender: u64) -> Option<bool> {
        fn go(
            windows: &[Vec<u32>],
            free: u64,
            pairs: &mut Vec<u64>,
            steps: &mut u32,
        ) -> Option<bool> {
            *steps = steps.checked_sub(1)?;
            let covered = |w: &Vec<u32>| {
                pairs
                    .iter()
                    .any(|&p| w.iter().filter(|&&c| p >> c & 1 == 1).count() == 2)
            };
            let Some(window) = windows
                .iter()
                .filter(|w| !covered(w))
                .min_by_key(|w| w.iter().filter(|&&c| free >> c & 1 == 1).count())
            else {
                return Some(true);
            };
            let cells: Vec<u32> = window
                .iter()
                .copied()
                .filter(|&c| free >> c & 1 == 1)
                .collect();
            for (i, &a) in cells.iter().enumerate() {
                for &b in &cells[i + 1..] {
                    let pair = 1 << a | 1 << b;
                    pairs.push(pair);
                    if go(windows, free & !pair, pairs, steps)? {
                        return Some(true);
                    }
                    pairs.pop();
                }
            }
            Some(false)
        }
        let windows: Vec<Vec<u32>> = geo
            .windows
            .iter()
            .filter(|&&w| w & defender == 0)
            .map(|&w| (0..64).filter(|&c| w >> c & 1 == 1).collect())
            .collect();
        let free = geo.valid & !(attacker | defender);
        let mut pairs = Vec::new();
        if !go(&windows, free, &mut pairs, &mut 100_000)? {
            return Some(false);
        }
        // The pairs are disjoint free cells and every open window holds one.
        let used = pairs.iter().fold(0u64, |acc, &p| {
            assert_eq!(acc & p, 0);
            acc | p
        });
        assert_eq!(used & !free, 0);
        for w in geo.windows.iter().filter(|&&w| w & defender == 0) {
            assert!(pairs.iter().any(|&p| w & p == p), "window {w:#x} uncovered");
        }
        Some(true)
    }

    #[test]
    fn pairing_search_is_sound_and_finds_most_pairings() {
        // 6x6 k=3 has more than 64 windows: the four-word window sets.
        for (rows, cols, k) in [(4, 4, 3), (5, 5, 4), (4, 5, 4), (6, 6, 5), (6, 6, 3)] {
            let geo = Geometry::new(Rules::new(rows, cols, k).unwrap()).unwrap();
            let mut random = crate::testing::random_numbers(99);
            // Pairings that exist, and those the search finds: without and
            // with a move first.
            let mut exist = [0; 2];
            let mut found = [0; 2];
            for _ in 0..300 {
                // Each position fills cells at its own rates, the defender's
                // the higher, so that pairings are neither rare nor certain.
                let (pa, pd) = (random() % 30, 10 + random() % 60);
                let (mut attacker, mut defender) = (0u64, 0u64);
                for b in 0..64 {
                    if geo.valid >> b & 1 == 1 {
                        let roll = random() % 100;
                        if roll < pa {
                            attacker |= 1 << b;
                        } else if roll < pa + pd {
                            defender |= 1 << b;
                        }
                    }
                }
                let free = geo.valid & !(attacker | defender);
                if let Some(exists) = reference_pairing(&geo, attacker, defender) {
                    let claimed = geo.has_pairing(attacker, defender, u32::MAX);
                    assert!(exists || !claimed, "{attacker:#x} {defender:#x}");
                    exist[0] += usize::from(exists);
                    found[0] += usize::from(claimed);
                }
                let moves = free & u64::from(random()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut any = Some(false);
                for b in (0..64).filter(|&b| moves >> b & 1 == 1) {
                    match reference_pairing(&geo, attacker, defender | 1 << b) {
                        None => any = None,
                        Some(true) => {
                            any = Some(true);
                            break;
                        }
                        Some(false) => {}
                    }
                }
                let strategy = geo.has_pairing_after_move(attacker, defender, moves, u32::MAX);
                if let Some(exists) = any {
                    assert!(
                        exists || strategy.is_none(),
                        "{attacker:#x} {defender:#x} {moves:#x}"
                    );
                    exist[1] += usize::from(exists);
                    found[1] += usize::from(strategy.is_some());
                }
                // The cells the strategy takes are all it needs: after an
                // attacker move elsewhere, the defender still has a move
                // among them (or none at all) that leaves a pairing.
                if let Some(cells) = strategy {
                    assert_eq!(cells & !free, 0);
                    // With every other free cell taken by the attacker, the
                    // cells still make a pairing after a move among them.
                    let only = attacker | (free & !cells);
                    let whole = std::iter::once(0)
                        .chain(
                            (0..64)
                                .filter(|&b| (cells & moves) >> b & 1 == 1)
                                .map(|b| 1 << b),
                        )
                        .any(|b| reference_pairing(&geo, only, defender | b) != Some(false));
                    assert!(whole, "{attacker:#x} {defender:#x} {moves:#x} {cells:#x}");
                    let elsewhere = free & !cells;
                    for m in (0..64).filter(|&m| elsewhere >> m & 1 == 1) {
                        let attacker = attacker | 1 << m;
                        let holds = std::iter::once(0)
                            .chain(
                                (0..64)
                                    .filter(|&b| (cells & moves) >> b & 1 == 1)
                                    .map(|b| 1 << b),
                            )
                            .map(|b| reference_pairing(&geo, attacker, defender | b))
                            .any(|r| r != Some(false));
                        assert!(holds, "{attacker:#x} {defender:#x} {moves:#x} {cells:#x}");
                    }
                }
            }
            // Enough of both answers to mean something, and the search
            // (adjacent pairs only) misses few pairings.
            for i in 0..2 {
                assert!(
                    exist[i] >= 10 && found[i] * 10 >= exist[i] * 9,
                    "{rows}x{cols} k={k}: found {found:?} of {exist:?}"
                );
            }
        }
    }
}
