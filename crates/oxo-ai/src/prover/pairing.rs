//! Pairing strategies on the prover's boards (the search itself is
//! [`crate::pairing`]): disjoint pairs of empty cells such that every
//! window the Maker can still fill holds one whole pair. The Breaker,
//! answering each Maker stone in a pair with the pair's other cell, then
//! never lets a window fill, whoever is to move.

use super::board::{Board, WindowSet};
use crate::pairing::{Windows, pairing};

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
    pub fn pairing_after_move(
        &self,
        maker: u128,
        breaker: u128,
        moves: u128,
        budget: u32,
    ) -> Option<u128> {
        if moves & self.valid & !(maker | breaker) == 0 {
            return None;
        }
        pairing(self, maker, breaker, self.valid, moves, budget)
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
