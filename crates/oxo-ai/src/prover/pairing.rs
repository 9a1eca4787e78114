//! Pairing strategies on wide boards: disjoint pairs of empty cells such
//! that every window the Maker can still fill holds one whole pair. The
//! Breaker, answering each Maker stone in a pair with the pair's other
//! cell, then never lets a window fill, whoever is to move.
//!
//! The search is the one of the 64-bit solver's pairing module, on `u128`
//! cells: the most crowded open window first, its pairs of neighbouring
//! free cells tried in turn, a budget of steps (sound, not complete).

use super::board::{Board, WindowSet};

/// Steps one pairing search may take before giving up.
pub(super) const PAIRING_BUDGET: u32 = 64;

impl Board {
    /// The cells of a pairing strategy of the Breaker (stones `breaker`)
    /// against the Maker (stones `maker`), if the search finds one.
    pub fn pairing(&self, maker: u128, breaker: u128, budget: u32) -> Option<u128> {
        self.pairing_search(maker, breaker, 0, budget)
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
        self.pairing_search(maker, breaker, moves, budget)
    }

    fn pairing_search(&self, maker: u128, breaker: u128, spare: u128, budget: u32) -> Option<u128> {
        let free = self.valid & !(maker | breaker);
        let mut search = Search {
            board: self,
            budget,
            left: 0,
        };
        let found = if self.windows.len() <= 64 {
            let open = self.open_windows::<u64>(breaker);
            cover(&mut search, open, open, free, spare & free, &mut 0)
        } else {
            let open = self.open_windows::<WindowSet>(breaker);
            cover(&mut search, open, open, free, spare & free, &mut 0)
        };
        found.then_some(free & !search.left)
    }

    #[inline]
    fn through_set<S: Set>(&self, cell: u128) -> S {
        S::from_words(&self.through[cell.trailing_zeros() as usize])
    }

    /// The windows with none of `blockers` in them.
    fn open_windows<S: Set>(&self, blockers: u128) -> S {
        let mut open = S::from_words(&self.all_windows);
        let mut rest = blockers & self.valid;
        while rest != 0 {
            open = open.and_not(self.through_set(rest));
            rest &= rest - 1;
        }
        open
    }
}

/// A set of window indexes: one word when the board has at most 64
/// windows, four otherwise.
trait Set: Copy {
    fn from_words(words: &WindowSet) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn and_not(self, other: Self) -> Self;
    fn is_empty(self) -> bool;
    fn without(self, i: usize) -> Self;
    /// The smallest index in the set and the set without it.
    fn pop(self) -> Option<(usize, Self)>;
}

impl Set for u64 {
    #[inline]
    fn from_words(words: &WindowSet) -> Self {
        words[0]
    }
    #[inline]
    fn and(self, other: Self) -> Self {
        self & other
    }
    #[inline]
    fn or(self, other: Self) -> Self {
        self | other
    }
    #[inline]
    fn and_not(self, other: Self) -> Self {
        self & !other
    }
    #[inline]
    fn is_empty(self) -> bool {
        self == 0
    }
    #[inline]
    fn without(self, i: usize) -> Self {
        self & !(1 << i)
    }
    #[inline]
    fn pop(self) -> Option<(usize, Self)> {
        (self != 0).then(|| (self.trailing_zeros() as usize, self & (self - 1)))
    }
}

impl Set for WindowSet {
    #[inline]
    fn from_words(words: &WindowSet) -> Self {
        *words
    }
    #[inline]
    fn and(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & other[i])
    }
    #[inline]
    fn or(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] | other[i])
    }
    #[inline]
    fn and_not(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & !other[i])
    }
    #[inline]
    fn is_empty(self) -> bool {
        self == [0; 4]
    }
    #[inline]
    fn without(mut self, i: usize) -> Self {
        self[i / 64] &= !(1 << (i % 64));
        self
    }
    #[inline]
    fn pop(mut self) -> Option<(usize, Self)> {
        let word = self.iter().position(|&w| w != 0)?;
        let i = word * 64 + self[word].trailing_zeros() as usize;
        self[word] &= self[word] - 1;
        Some((i, self))
    }
}

/// A pairing search under way: its steps left, and once it succeeds, the
/// cells its pairs and stone left free.
struct Search<'a> {
    board: &'a Board,
    budget: u32,
    left: u128,
}

/// Backtracking search for disjoint pairs of `free` cells covering every
/// window in `open`, where the Breaker may first also take one cell of
/// `spare` (a subset of `free`; 0 for none), which blocks every window
/// through it. A failure without a spare stone adds to `why` the cells of
/// the windows it depended on (with a spare stone, `why` means nothing).
fn cover<S: Set>(
    search: &mut Search,
    open: S,
    touched: S,
    free: u128,
    spare: u128,
    why: &mut u128,
) -> bool {
    if open.is_empty() {
        search.left = free;
        return true;
    }
    if search.budget == 0 {
        return false;
    }
    search.budget -= 1;
    let board = search.board;
    let window = |i: usize| board.windows[i];
    // The most crowded open window. Without a spare stone, windows outside
    // `touched` are known to keep two free cells: when a touched one is
    // down to two, nothing beats it.
    let mut pick = 0;
    let mut fewest = u32::MAX;
    if spare == 0 {
        let mut scan = open.and(touched);
        while let Some((i, rest)) = scan.pop() {
            scan = rest;
            let n = (window(i) & free).count_ones();
            if n < 2 {
                *why |= window(i);
                return false;
            }
            if n < fewest {
                fewest = n;
                pick = i;
            }
        }
    }
    if fewest > 2 {
        let mut scan = open;
        while let Some((i, rest)) = scan.pop() {
            scan = rest;
            let w = window(i);
            let n = (w & free).count_ones();
            if n < 2 && w & spare == 0 {
                *why |= w;
                return false;
            }
            if n < fewest {
                fewest = n;
                pick = i;
                if n == 2 && spare == 0 {
                    break;
                }
            }
        }
    }
    let through = |cell: u128| board.through_set::<S>(cell);
    if spare != 0 && fewest > 2 {
        // No window forces a pair yet: place the stone first, best cells
        // first; a stone outside every window a failed search looked at
        // fails the same way and is not tried.
        let mut hope = spare;
        for &b in &board.order {
            let c = 1u128 << b;
            if hope & c != 0 {
                let left = open.and_not(through(c));
                let mut seen = 0;
                if cover(search, left, left, free & !c, 0, &mut seen) {
                    return true;
                }
                if search.budget == 0 {
                    return false;
                }
                hope &= seen;
            }
        }
        return false;
    }
    let w = window(pick);
    let rest = open.without(pick);
    // The spare stone may block the crowded window...
    let mut stones = w & spare;
    while stones != 0 {
        let c = stones & stones.wrapping_neg();
        stones &= stones - 1;
        let left = rest.and_not(through(c));
        let mut seen = 0;
        if cover(search, left, left, free & !c, 0, &mut seen) {
            return true;
        }
        if search.budget == 0 {
            return false;
        }
        stones &= seen;
    }
    // ...or a pair of free cells next to each other along it.
    let mut cells = w & free;
    while cells != 0 {
        let a = cells & cells.wrapping_neg();
        cells &= cells - 1;
        if cells == 0 {
            break;
        }
        let b = cells & cells.wrapping_neg();
        let pair = a | b;
        let settled = through(a).and(through(b));
        if cover(
            search,
            rest.and_not(settled),
            through(a).or(through(b)),
            free & !pair,
            spare & !pair,
            why,
        ) {
            return true;
        }
        if search.budget == 0 {
            return false;
        }
    }
    *why |= w;
    false
}
