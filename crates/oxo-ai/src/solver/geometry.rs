//! Bitboards for small boards: one `u64` per player.
//!
//! Cell (r, c) is bit `r * stride + c` with `stride = cols + 1`: the extra
//! column is always empty, so shifting a row never carries marks into the
//! next one. A line of k in direction `d` is then `k` bits spaced `d` apart,
//! with `d` one of 1 (row), `stride` (column), `stride + 1` (diagonal) and
//! `stride - 1` (anti-diagonal).

use oxo_core::{Cell, Rules};

/// Largest number of board symmetries (the dihedral group of a square).
pub(crate) const MAX_SYMMETRIES: usize = 8;

/// The fixed facts of one board shape, precomputed.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    pub rows: u32,
    pub cols: u32,
    pub k: u32,
    stride: u32,
    /// Every on-board bit.
    pub valid: u64,
    /// Shift for each direction.
    dirs: [u32; 4],
    /// Whether k − 1 steps in any direction shift by less than 64 bits, so
    /// the line scans need no checked shifts.
    short_shifts: bool,
    /// For each direction, the bits where a k-window starts and fits.
    window_starts: [u64; 4],
    /// The symmetries of the board, each a map from bit to bit.
    syms: Vec<[u8; 64]>,
    /// The inverse of each map in `syms`.
    inverse: Vec<[u8; 64]>,
    /// On-board bits, most promising first (centre out, by lines through).
    pub order: Vec<u8>,
    /// Every k-window as a mask of its cells.
    windows: Vec<u64>,
    /// For each bit, the windows through it, as a set of indexes into
    /// `windows` (at most 256: each of 64 cells starts at most 4).
    through: Box<[[u64; 4]; 64]>,
    /// Every index into `windows`, as such a set.
    all_windows: [u64; 4],
    /// `windows` again, in an array a window-set index (below 256) always
    /// fits: the pairing search reads it without bounds checks.
    window_at: Box<[u64; 256]>,
}

/// A symmetry as a map of (row, col) given (rows, cols): the arguments are
/// `(r, c, rows, cols)`.
type Transform = fn(u32, u32, u32, u32) -> (u32, u32);

/// A board shape the bitboard solver cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge;

impl Geometry {
    /// The geometry for `rules`, if the board fits 64 bits with its padding
    /// column (`rows * (cols + 1) <= 64`): up to 7×7, 8×6 or 6×8, for example.
    pub fn new(rules: Rules) -> Result<Geometry, TooLarge> {
        let (rows, cols, k) = (rules.rows(), rules.cols(), rules.k());
        let stride = cols + 1;
        if rows * stride > 64 {
            return Err(TooLarge);
        }
        let bit = |r: u32, c: u32| r * stride + c;
        let mut valid = 0u64;
        for r in 0..rows {
            for c in 0..cols {
                valid |= 1 << bit(r, c);
            }
        }
        let deltas: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
        let dirs = [1, stride, stride + 1, stride - 1];
        let mut window_starts = [0u64; 4];
        for (i, &(dr, dc)) in deltas.iter().enumerate() {
            for r in 0..rows as i32 {
                for c in 0..cols as i32 {
                    let end_r = r + dr * (k as i32 - 1);
                    let end_c = c + dc * (k as i32 - 1);
                    if (0..rows as i32).contains(&end_r) && (0..cols as i32).contains(&end_c) {
                        window_starts[i] |= 1 << bit(r as u32, c as u32);
                    }
                }
            }
        }
        let transforms: Vec<Transform> = if rows == cols {
            vec![
                |r, c, _, _| (r, c),
                |r, c, n, _| (c, n - 1 - r),
                |r, c, n, _| (n - 1 - r, n - 1 - c),
                |r, c, n, _| (n - 1 - c, r),
                |r, c, n, _| (r, n - 1 - c),
                |r, c, n, _| (n - 1 - r, c),
                |r, c, _, _| (c, r),
                |r, c, n, _| (n - 1 - c, n - 1 - r),
            ]
        } else {
            vec![
                |r, c, _, _| (r, c),
                |r, c, rows, _| (rows - 1 - r, c),
                |r, c, _, cols| (r, cols - 1 - c),
                |r, c, rows, cols| (rows - 1 - r, cols - 1 - c),
            ]
        };
        let mut syms = Vec::new();
        let mut inverse = Vec::new();
        for t in transforms {
            let mut map = [0u8; 64];
            let mut inv = [0u8; 64];
            for r in 0..rows {
                for c in 0..cols {
                    let (r2, c2) = t(r, c, rows, cols);
                    map[bit(r, c) as usize] = bit(r2, c2) as u8;
                    inv[bit(r2, c2) as usize] = bit(r, c) as u8;
                }
            }
            syms.push(map);
            inverse.push(inv);
        }
        let mut windows = Vec::new();
        for (i, &d) in dirs.iter().enumerate() {
            let mut starts = window_starts[i];
            while starts != 0 {
                let b = starts.trailing_zeros();
                starts &= starts - 1;
                windows.push((0..k).fold(0u64, |w, j| w | 1 << (b + j * d)));
            }
        }
        assert!(
            windows.len() <= 256,
            "each of 64 cells starts at most 4 windows"
        );
        let mut window_at = Box::new([0u64; 256]);
        window_at[..windows.len()].copy_from_slice(&windows);
        let mut through = Box::new([[0u64; 4]; 64]);
        let mut all_windows = [0u64; 4];
        for (i, &w) in windows.iter().enumerate() {
            all_windows[i / 64] |= 1 << (i % 64);
            let mut cells = w;
            while cells != 0 {
                through[cells.trailing_zeros() as usize][i / 64] |= 1 << (i % 64);
                cells &= cells - 1;
            }
        }
        let mut geometry = Geometry {
            rows,
            cols,
            k,
            stride,
            valid,
            dirs,
            short_shifts: (k - 1) * (stride + 1) < 64,
            window_starts,
            syms,
            inverse,
            order: Vec::new(),
            windows,
            through,
            all_windows,
            window_at,
        };
        geometry.order = geometry.static_order();
        Ok(geometry)
    }

    /// On-board bits sorted by the number of k-windows through them, then
    /// by closeness to the centre: good first guesses for move ordering.
    fn static_order(&self) -> Vec<u8> {
        let mut bits: Vec<u8> = (0..64u8).filter(|&b| self.valid >> b & 1 == 1).collect();
        let windows_through = |b: u8| -> u32 {
            (0..4)
                .map(|d| {
                    (0..self.k)
                        .filter(|&i| {
                            let shift = i * self.dirs[d];
                            u32::from(b) >= shift
                                && self.window_starts[d] >> (u32::from(b) - shift) & 1 == 1
                        })
                        .count() as u32
                })
                .sum()
        };
        let centre_distance = |b: u8| -> u32 {
            let (r, c) = (u32::from(b) / self.stride, u32::from(b) % self.stride);
            // Twice the Chebyshev-ish distance, to stay in integers.
            (2 * r).abs_diff(self.rows - 1) + (2 * c).abs_diff(self.cols - 1)
        };
        bits.sort_by_key(|&b| (std::cmp::Reverse(windows_through(b)), centre_distance(b), b));
        bits
    }

    /// Number of symmetries in use (8 for square boards, 4 otherwise).
    pub fn symmetry_count(&self) -> usize {
        self.syms.len()
    }

    /// Where symmetry `s` sends bit `b`.
    pub fn map(&self, s: usize, b: u32) -> u32 {
        u32::from(self.syms[s][b as usize])
    }

    /// Where the inverse of symmetry `s` sends bit `b`.
    pub fn unmap(&self, s: usize, b: u32) -> u32 {
        u32::from(self.inverse[s][b as usize])
    }

    /// Add bit `b` (of the real orientation) to every orientation of a
    /// board kept in all its symmetric forms.
    #[inline]
    pub fn place(&self, boards: &mut [u64; MAX_SYMMETRIES], b: u32) {
        for (s, board) in boards.iter_mut().enumerate().take(self.symmetry_count()) {
            *board |= 1 << self.map(s, b);
        }
    }

    /// `player`'s marks in `game`, in every orientation (index 0 is the
    /// board as it stands).
    pub fn oriented(
        &self,
        game: &oxo_core::Game,
        player: oxo_core::Player,
    ) -> [u64; MAX_SYMMETRIES] {
        let mut boards = [0; MAX_SYMMETRIES];
        for cell in game.rules().cells() {
            if game.get(cell) == Some(player) {
                self.place(&mut boards, self.bit(cell));
            }
        }
        boards
    }

    /// Apply symmetry `s` to a whole bitboard.
    #[cfg(test)]
    pub fn transform(&self, s: usize, mut board: u64) -> u64 {
        let mut out = 0;
        while board != 0 {
            let b = board.trailing_zeros();
            board &= board - 1;
            out |= 1 << self.map(s, b);
        }
        out
    }

    /// The bit of `cell`.
    pub fn bit(&self, cell: Cell) -> u32 {
        cell.row * self.stride + cell.col
    }

    /// Whether `stones` holds k in a row anywhere.
    #[inline]
    pub fn has_line(&self, stones: u64) -> bool {
        self.dirs.iter().any(|&d| {
            let mut m = stones;
            for i in 1..self.k {
                m &= shr(stones, i * d);
            }
            m != 0
        })
    }

    /// The empty cells where `stones` would complete k in a row.
    ///
    /// Per direction: `left[j]` marks cells with j own stones just before
    /// them, `right[j]` with j just after; a cell completes a line when it
    /// has j before and k−1−j after for some j.
    #[inline]
    pub fn winning_cells(&self, stones: u64, empty: u64) -> u64 {
        // The search asks this twice a node: with k known at compile time
        // the loops unroll and the arrays stay in registers.
        match self.k {
            3 if self.short_shifts => self.winning_cells_k::<3>(stones, empty),
            4 if self.short_shifts => self.winning_cells_k::<4>(stones, empty),
            5 if self.short_shifts => self.winning_cells_k::<5>(stones, empty),
            6 if self.short_shifts => self.winning_cells_k::<6>(stones, empty),
            k if k <= 16 => self.winning_cells_short(stones, empty),
            _ => self.winning_cells_long(stones, empty),
        }
    }

    #[inline]
    fn winning_cells_k<const K: usize>(&self, stones: u64, empty: u64) -> u64 {
        let mut wins = 0u64;
        for &d in &self.dirs {
            let mut left = [u64::MAX; K];
            let mut right = [u64::MAX; K];
            // Every shift is below 64 (`short_shifts`).
            for j in 1..K {
                let shift = j as u32 * d;
                left[j] = left[j - 1] & stones << shift;
                right[j] = right[j - 1] & stones >> shift;
            }
            for j in 0..K {
                wins |= left[j] & right[K - 1 - j];
            }
        }
        wins & empty
    }

    /// `winning_cells` for any k up to 16.
    fn winning_cells_short(&self, stones: u64, empty: u64) -> u64 {
        let k = self.k as usize;
        let mut wins = 0u64;
        for &d in &self.dirs {
            let mut left = [u64::MAX; 16];
            let mut right = [u64::MAX; 16];
            for j in 1..k {
                let shift = j as u32 * d;
                left[j] = left[j - 1] & shl(stones, shift);
                right[j] = right[j - 1] & shr(stones, shift);
            }
            for j in 0..k {
                wins |= left[j] & right[k - 1 - j];
            }
        }
        wins & empty
    }

    /// `winning_cells` for k above 16 (long thin boards such as 1×40):
    /// every offset of the cell in its window tried in turn.
    fn winning_cells_long(&self, stones: u64, empty: u64) -> u64 {
        let k = self.k as i64;
        let mut wins = 0u64;
        for &d in &self.dirs {
            for j in 0..k {
                let mut m = empty;
                for i in (0..k).filter(|&i| i != j) {
                    let offset = (i - j) * i64::from(d);
                    m &= if offset > 0 {
                        shr(stones, offset as u32)
                    } else {
                        shl(stones, (-offset) as u32)
                    };
                }
                wins |= m;
            }
        }
        wins
    }

    /// Cells lying in at least one k-window with none of `blockers` in it:
    /// the windows the other player can still fill.
    #[inline]
    pub fn live_cells(&self, blockers: u64) -> u64 {
        // Twice a node, as `winning_cells`: unrolled for the usual k.
        match self.k {
            3 if self.short_shifts => self.live_cells_k::<3>(blockers),
            4 if self.short_shifts => self.live_cells_k::<4>(blockers),
            5 if self.short_shifts => self.live_cells_k::<5>(blockers),
            6 if self.short_shifts => self.live_cells_k::<6>(blockers),
            _ => self.live_cells_any(blockers),
        }
    }

    #[inline]
    fn live_cells_k<const K: u32>(&self, blockers: u64) -> u64 {
        let free = self.valid & !blockers;
        let mut cells = 0u64;
        for (i, &d) in self.dirs.iter().enumerate() {
            // Every shift is below 64 (`short_shifts`).
            let mut starts = free & self.window_starts[i];
            for j in 1..K {
                starts &= free >> (j * d);
            }
            let mut spread = starts;
            for j in 1..K {
                spread |= starts << (j * d);
            }
            cells |= spread;
        }
        cells
    }

    fn live_cells_any(&self, blockers: u64) -> u64 {
        let k = self.k;
        let free = self.valid & !blockers;
        let mut cells = 0u64;
        for (i, &d) in self.dirs.iter().enumerate() {
            let mut starts = free & self.window_starts[i];
            for j in 1..k {
                starts &= shr(free, j * d);
            }
            let mut spread = starts;
            for j in 1..k {
                spread |= shl(starts, j * d);
            }
            cells |= spread;
        }
        cells
    }
}

impl Geometry {
    /// A promise score for every empty cell, for move ordering: each window
    /// still open to one player adds to its empty cells a weight that grows
    /// steeply with that player's marks in it (making our lines and breaking
    /// theirs both count, ours slightly more).
    pub fn cell_scores(&self, me: u64, opp: u64, scores: &mut [u64; 64]) {
        let empty = self.valid & !(me | opp);
        for &w in &self.windows {
            // Counting marks only in the windows still open to someone.
            let (mine, theirs) = (w & me, w & opp);
            let add = match (mine, theirs) {
                (0, 0) => 1,
                // Capped so long windows on thin boards cannot overflow.
                (m, 0) => 4u64 << (3 * m.count_ones()).min(48),
                (0, t) => 3u64 << (3 * t.count_ones()).min(48),
                _ => continue,
            };
            let mut cells = w & empty;
            while cells != 0 {
                let score = &mut scores[cells.trailing_zeros() as usize];
                *score = score.saturating_add(add);
                cells &= cells - 1;
            }
        }
    }

    /// The most of `stones` in any window free of `blockers`, or `None` if
    /// every window is blocked.
    pub fn best_window(&self, stones: u64, blockers: u64) -> Option<u32> {
        self.windows
            .iter()
            .filter(|&&w| w & blockers == 0)
            .map(|&w| (w & stones).count_ones())
            .max()
    }

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

/// `x << n`, and 0 once every bit has been shifted out.
#[inline]
fn shl(x: u64, n: u32) -> u64 {
    x.checked_shl(n).unwrap_or(0)
}

/// `x >> n`, and 0 once every bit has been shifted out.
#[inline]
fn shr(x: u64, n: u32) -> u64 {
    x.checked_shr(n).unwrap_or(0)
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
    use oxo_core::Game;

    fn bits_of(geo: &Geometry, game: &Game, player: oxo_core::Player) -> u64 {
        game.rules()
            .cells()
            .filter(|&c| game.get(c) == Some(player))
            .fold(0, |acc, c| acc | 1 << geo.bit(c))
    }

    #[test]
    fn long_thin_boards_use_the_general_path() {
        let rules = Rules::new(1, 40, 20).unwrap();
        let geo = Geometry::new(rules).unwrap();
        let stones = (0..19).fold(0u64, |acc, c| acc | 1 << geo.bit(Cell::new(0, c)));
        let empty = geo.valid & !stones;
        assert_eq!(
            geo.winning_cells(stones, empty),
            1 << geo.bit(Cell::new(0, 19))
        );
    }

    #[test]
    fn sizes_that_fit() {
        assert!(Geometry::new(Rules::new(7, 7, 5).unwrap()).is_ok());
        assert!(Geometry::new(Rules::new(8, 6, 4).unwrap()).is_ok());
        assert!(Geometry::new(Rules::new(8, 8, 5).unwrap()).is_err());
        assert!(Geometry::new(Rules::new(1, 1, 1).unwrap()).is_ok());
    }

    #[test]
    fn lines_and_winning_cells_match_the_core() {
        // Every position from a few random games: compare against the
        // core's own scan and its move results. The k from 3 to 6 take the
        // unrolled paths, 2 and 7 the general one, and so does 2x31 k=3,
        // whose diagonals shift by more than 64 bits.
        for rules in [
            Rules::TIC_TAC_TOE,
            Rules::new(4, 4, 3).unwrap(),
            Rules::new(3, 5, 3).unwrap(),
            Rules::new(5, 4, 4).unwrap(),
            Rules::new(6, 6, 5).unwrap(),
            Rules::new(6, 7, 6).unwrap(),
            Rules::new(7, 7, 7).unwrap(),
            Rules::new(3, 4, 2).unwrap(),
            Rules::new(2, 31, 3).unwrap(),
        ] {
            let geo = Geometry::new(rules).unwrap();
            let mut seed = 12345u64;
            for _ in 0..200 {
                let mut game = Game::new(rules);
                while !game.is_over() {
                    let moves: Vec<Cell> = game.legal_moves().collect();
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let pick = moves[(seed >> 33) as usize % moves.len()];
                    let me = game.to_move();
                    let stones = bits_of(&geo, &game, me);
                    let empty = geo.valid & !(stones | bits_of(&geo, &game, me.other()));
                    let wins = geo.winning_cells(stones, empty);
                    for cell in game.legal_moves() {
                        let mut probe = game.clone();
                        let won =
                            probe.play(cell).unwrap().outcome() == Some(oxo_core::Outcome::Win(me));
                        assert_eq!(wins >> geo.bit(cell) & 1 == 1, won, "{game} {cell}");
                    }
                    game.play(pick).unwrap();
                    let has = geo.has_line(bits_of(&geo, &game, me));
                    assert_eq!(has, game.outcome() == Some(oxo_core::Outcome::Win(me)));
                }
            }
        }
    }

    #[test]
    fn live_cells_are_the_open_windows() {
        let mut seed = 7u64;
        for (rows, cols, k) in [
            (3, 3, 3),
            (5, 4, 4),
            (6, 6, 5),
            (6, 7, 6),
            (7, 7, 7),
            (3, 4, 2),
        ] {
            let geo = Geometry::new(Rules::new(rows, cols, k).unwrap()).unwrap();
            for _ in 0..200 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // About one cell in eight blocked.
                let blockers = geo.valid & seed & seed >> 13 & seed >> 27;
                let open = geo
                    .windows
                    .iter()
                    .filter(|&&w| w & blockers == 0)
                    .fold(0, |acc, &w| acc | w);
                assert_eq!(geo.live_cells(blockers), open, "{blockers:#x}");
            }
        }
    }

    #[test]
    fn live_cells_exclude_blocked_windows() {
        let rules = Rules::TIC_TAC_TOE;
        let geo = Geometry::new(rules).unwrap();
        // O in the centre blocks both diagonals, the middle row and column.
        let o = 1 << geo.bit(Cell::new(1, 1));
        let live_for_x = geo.live_cells(o);
        // Corners and edges still have their outer row or column.
        assert_eq!(live_for_x.count_ones(), 8);
        // O on all four edges' middles leaves X no line at all.
        let edges = [(0, 1), (1, 0), (1, 2), (2, 1)]
            .iter()
            .fold(0u64, |acc, &(r, c)| acc | 1 << geo.bit(Cell::new(r, c)));
        // Only the two diagonals remain: the corners and the centre.
        assert_eq!(geo.live_cells(edges).count_ones(), 5);
        assert_eq!(geo.live_cells(edges) & edges, 0);
    }

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

    #[test]
    fn symmetries_are_permutations_with_inverses() {
        for rules in [Rules::TIC_TAC_TOE, Rules::new(4, 5, 3).unwrap()] {
            let geo = Geometry::new(rules).unwrap();
            assert_eq!(
                geo.symmetry_count(),
                if rules.rows() == rules.cols() { 8 } else { 4 }
            );
            for s in 0..geo.symmetry_count() {
                assert_eq!(geo.transform(s, geo.valid), geo.valid);
                for cell in rules.cells() {
                    let b = geo.bit(cell);
                    assert_eq!(geo.unmap(s, geo.map(s, b)), b);
                }
            }
        }
    }
}
