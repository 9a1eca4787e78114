//! The pairing search: whether the defender can answer every attacker
//! move inside a pair of cells so that no window is ever filled.

use super::geometry::Geometry;

impl Geometry {
    /// Whether `defender` has a pairing strategy against `attacker`: disjoint
    /// pairs of empty cells such that every window the attacker can still
    /// fill holds one whole pair. Answering each attacker move inside a pair
    /// with the pair's other cell then keeps the attacker from ever making k
    /// in a row, whoever is to move. A `false` may also mean the search for
    /// a pairing ran out of `budget` steps: the check is sound, not complete.
    pub fn has_pairing(&self, attacker: u64, defender: u64, budget: u32) -> bool {
        self.pairing_search(attacker, defender, 0, budget).is_some()
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
        self.pairing_search(attacker, defender, moves, budget)
    }

    /// The cells a pairing (after one stone from `spare`, if that helps)
    /// takes, if the search finds one.
    fn pairing_search(&self, attacker: u64, defender: u64, spare: u64, budget: u32) -> Option<u64> {
        let empty = self.valid & !(attacker | defender);
        let mut search = Search {
            geo: self,
            budget,
            left: 0,
        };
        // Most boards have at most 64 windows: one word holds the set.
        let found = if self.windows.len() <= 64 {
            let open = self.open_windows::<u64>(defender);
            cover(&mut search, open, open, empty, spare & empty, &mut 0)
        } else {
            let open = self.open_windows::<[u64; 4]>(defender);
            cover(&mut search, open, open, empty, spare & empty, &mut 0)
        };
        found.then_some(empty & !search.left)
    }

    /// The windows through the lowest set bit of `cells`.
    #[inline]
    fn through_cell<S: WindowSet>(&self, cells: u64) -> S {
        S::from_words(&self.through[cells.trailing_zeros() as usize % 64])
    }

    /// Window `i` (an index from a window set) as a mask of its cells.
    #[inline]
    fn window(&self, i: usize) -> u64 {
        self.window_at[i % 256]
    }

    /// The windows with none of `blockers` in them.
    fn open_windows<S: WindowSet>(&self, mut blockers: u64) -> S {
        let mut open = S::from_words(&self.all_windows);
        while blockers != 0 {
            open = open.and_not(self.through_cell(blockers));
            blockers &= blockers - 1;
        }
        open
    }
}

/// A set of window indexes: a `u64` when the board has at most 64 windows,
/// four words otherwise. The pairing search runs on these sets so that
/// settling the windows through a cell or a pair is a few word operations.
trait WindowSet: Copy {
    fn from_words(words: &[u64; 4]) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn and_not(self, other: Self) -> Self;
    fn is_empty(self) -> bool;
    fn without(self, i: usize) -> Self;
    /// The smallest index in the set and the set without it.
    fn pop(self) -> Option<(usize, Self)>;
}

impl WindowSet for u64 {
    #[inline]
    fn from_words(words: &[u64; 4]) -> Self {
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

impl WindowSet for [u64; 4] {
    fn from_words(words: &[u64; 4]) -> Self {
        *words
    }
    fn and(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & other[i])
    }
    fn or(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] | other[i])
    }
    fn and_not(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] & !other[i])
    }
    fn is_empty(self) -> bool {
        self == [0; 4]
    }
    fn without(mut self, i: usize) -> Self {
        self[i / 64] &= !(1 << (i % 64));
        self
    }
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
    geo: &'a Geometry,
    budget: u32,
    left: u64,
}

/// Backtracking search for disjoint pairs of `free` cells covering every
/// window in `open`, where the defender may first also take one cell of
/// `spare` (a subset of `free`; 0 for none), which blocks every window
/// through it.
///
/// When a search without a spare stone fails without running out of
/// budget, `why` gains the cells of every window the failure depended on.
/// (With a spare stone, `why` means nothing: no caller reads it.)
fn cover<S: WindowSet>(
    search: &mut Search,
    open: S,
    touched: S,
    free: u64,
    spare: u64,
    why: &mut u64,
) -> bool {
    if open.is_empty() {
        search.left = free;
        return true;
    }
    if search.budget == 0 {
        return false;
    }
    search.budget -= 1;
    let geo = search.geo;
    // The window with the fewest free cells is the most constrained. Without
    // a spare stone, the caller has checked that every open window outside
    // `touched` still has two free cells; when one of the touched windows
    // is down to two, nothing can beat it, and the other windows need not
    // be looked at.
    let mut pick = 0;
    let mut fewest = u32::MAX;
    if spare == 0 {
        let mut scan = open.and(touched);
        while let Some((i, rest)) = scan.pop() {
            scan = rest;
            let n = (geo.window(i) & free).count_ones();
            if n < 2 {
                *why |= geo.window(i);
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
            let w = geo.window(i);
            let n = (w & free).count_ones();
            if n < 2 && w & spare == 0 {
                // No pair fits and the spare stone cannot block it: this
                // window can never be settled.
                *why |= w;
                return false;
            }
            if n < fewest {
                fewest = n;
                pick = i;
                // Without a spare stone, every window has two free cells
                // (the touched ones were just checked): two is the least.
                if n == 2 && spare == 0 {
                    break;
                }
            }
        }
    }
    let through = |cell: u64| geo.through_cell::<S>(cell);
    if spare != 0 && fewest > 2 {
        // No window forces a pair yet, so there is no conflict to aim the
        // spare stone at, and branching on pairs first would make every
        // later stone retry them all. Place the stone first instead, best
        // cells first (one plain search per cell, as many as a search per
        // move would make): trying every spare cell leaves nothing out.
        //
        // A search that fails looks only at some windows: a stone outside
        // all of them leaves those windows and their free cells as they
        // were, so the same failure awaits it, and it is not tried. (Like
        // the budget, this can only make the search miss a pairing, never
        // claim one: a pairing is only ever claimed once built.)
        let mut hope = spare;
        for &b in &geo.order {
            let c = 1u64 << b;
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
    let window = geo.window(pick);
    let rest = open.without(pick);
    // A crowded window: the spare stone may block it, which settles every
    // window through its cell at once, or a pair may cover it. When several
    // moves fail for the same crowded windows, they fail here together.
    // (Stones outside the windows a failed stone's search looked at fail
    // too, as above.)
    let mut stones = window & spare;
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
    // Pairs of free cells next to each other along the window (skipping
    // the attacker's marks): the pairs classic pairing strategies use, and
    // far fewer to try than every two cells of the window. A pair settles
    // the windows holding both its cells.
    let mut cells = window & free;
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
    // Every way to settle this window failed.
    *why |= window;
    false
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
            let mut seed = 99u64;
            let mut random = || {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 33) as u32
            };
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
