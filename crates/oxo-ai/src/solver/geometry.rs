//! Bitboards for small boards: one `u64` per player.
//!
//! Cell (r, c) is bit `r * stride + c` with `stride = cols + 1`: the extra
//! column is always empty, so shifting a row never carries marks into the
//! next one. A line of k in direction `d` is then `k` bits spaced `d` apart,
//! with `d` one of 1 (row), `stride` (column), `stride + 1` (diagonal) and
//! `stride - 1` (anti-diagonal).

use oxo_core::{Cell, Rules, Symmetry};

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
    pub windows: Vec<u64>,
    /// For each bit, the windows through it, as a set of indexes into
    /// `windows` (at most 256: each of 64 cells starts at most 4).
    pub through: Box<[[u64; 4]; 64]>,
    /// Every index into `windows`, as such a set.
    pub all_windows: [u64; 4],
    /// `windows` again, in an array a window-set index (below 256) always
    /// fits: the pairing search reads it without bounds checks.
    pub window_at: Box<[u64; 256]>,
}

/// The symmetries of a `rows`×`cols` board, the identity first: the 8 of
/// a square, or a rectangle's two mirrors and half turn (in this order,
/// which the tables built from it keep).
pub(crate) fn transforms(rows: u32, cols: u32) -> Vec<Symmetry> {
    if rows == cols {
        Symmetry::ALL.to_vec()
    } else {
        vec![
            Symmetry::Identity,
            Symmetry::MirrorRows,
            Symmetry::MirrorColumns,
            Symmetry::HalfTurn,
        ]
    }
}

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
        let transforms = transforms(rows, cols);
        let mut syms = Vec::new();
        let mut inverse = Vec::new();
        for t in transforms {
            let mut map = [0u8; 64];
            let mut inv = [0u8; 64];
            for r in 0..rows {
                for c in 0..cols {
                    let (r2, c2) = t.map(rows, cols, r, c);
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
    /// steeply with that player's marks in it (eightfold a mark), making our
    /// lines and breaking theirs both count: ours weigh `own` to theirs' 3
    /// (below 24, a window of theirs with one mark more still outweighs one
    /// of ours).
    pub fn cell_scores(&self, me: u64, opp: u64, scores: &mut [u64; 64], own: u64) {
        let empty = self.valid & !(me | opp);
        for &w in &self.windows {
            let add = window_weight(w, me, opp, own);
            if add == 0 {
                continue;
            }
            let mut cells = w & empty;
            while cells != 0 {
                // No sum overflows: at most 256 windows of at most 2^52.
                scores[cells.trailing_zeros() as usize] += add;
                cells &= cells - 1;
            }
        }
    }

    /// The score [`Geometry::cell_scores`] gives the empty cell `b` alone,
    /// from the windows through it: cheaper when only a few cells need one.
    pub fn cell_score(&self, me: u64, opp: u64, b: u32, own: u64) -> u64 {
        let mut score = 0;
        for (word, &set) in self.through[b as usize].iter().enumerate() {
            let mut set = set;
            while set != 0 {
                let w = self.window_at[word * 64 + set.trailing_zeros() as usize];
                score += window_weight(w, me, opp, own);
                set &= set - 1;
            }
        }
        score
    }

    /// Where `stones` must play next to win within `moves` more of its
    /// moves and one more, against `blockers`: `None` when it cannot.
    ///
    /// A single threat (one cell that completes a window) is always
    /// blocked, so a win comes two plies after a double threat: two open
    /// windows each one mark short, on different cells. Filling windows
    /// `W1` and `W2` to that needs at least `max(a1, a2, a1 + a2 - s)`
    /// marks in their empty cells, with `a` a window's empty cells less
    /// one and `s` the empty cells they share. With a pair needing fewer
    /// than `moves`, there is time to spare and any cell may come next
    /// (all bits set); with pairs needing exactly `moves`, every move up to
    /// the double threat, this one included, goes into one of them: the
    /// answer is the empty cells of those pairs.
    pub fn double_threat_moves(&self, stones: u64, blockers: u64, moves: u32) -> Option<u64> {
        // The empty cells of the open windows short of at most `moves`
        // marks (a window is short of its empty cells less one), the first
        // few kept for the pairs.
        const KEPT: usize = 96;
        let mut near = [0u64; KEPT];
        let mut len = 0;
        let mut fewest = [u32::MAX; 2];
        for &w in &self.windows {
            if w & blockers != 0 {
                continue;
            }
            let gaps = w & !stones;
            let a = gaps.count_ones() - 1;
            if a > moves {
                continue;
            }
            if len < KEPT {
                near[len] = gaps;
            }
            len += 1;
            if a < fewest[0] {
                fewest = [a, fewest[0]];
            } else if a < fewest[1] {
                fewest[1] = a;
            }
            if fewest[1] != u32::MAX && fewest[0] + fewest[1] < moves {
                // Even with nothing shared, a pair has time to spare.
                return Some(!0);
            }
        }
        if len < 2 {
            return None;
        }
        if len > KEPT {
            // Too many to keep (large boards, few marks): every cell may
            // matter, which is always a correct answer.
            return Some(!0);
        }
        let mut short = [0u32; KEPT];
        for (a, &g) in short.iter_mut().zip(&near[..len]) {
            *a = g.count_ones() - 1;
        }
        let mut cells = 0;
        for (i, &g1) in near[..len].iter().enumerate() {
            let a1 = short[i];
            for (&g2, &a2) in near[i + 1..len].iter().zip(&short[i + 1..len]) {
                // Two windows sharing no empty cell need all their marks.
                let shared = g1 & g2;
                let needed = if shared == 0 {
                    a1 + a2
                } else {
                    a1.max(a2)
                        .max((a1 + a2).saturating_sub(shared.count_ones()))
                };
                if needed < moves {
                    return Some(!0);
                }
                if needed == moves {
                    cells |= g1 | g2;
                }
            }
        }
        (cells != 0).then_some(cells)
    }
}

/// What window `w` adds to the score of each of its empty cells (see
/// [`Geometry::cell_scores`]): 0 when both players have marks in it.
#[inline]
fn window_weight(w: u64, me: u64, opp: u64, own: u64) -> u64 {
    // Counting marks only in the windows still open to someone.
    match (w & me, w & opp) {
        (0, 0) => 1,
        // Capped so long windows on thin boards cannot overflow.
        (m, 0) => own << (3 * m.count_ones()).min(48),
        (0, t) => 3u64 << (3 * t.count_ones()).min(48),
        _ => 0,
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

    /// The bits of the cells at `list`'s (row, column) pairs.
    fn bits_at(geo: &Geometry, list: &[(u32, u32)]) -> u64 {
        list.iter()
            .fold(0, |acc, &(r, c)| acc | 1 << geo.bit(Cell::new(r, c)))
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
    fn ordering_to_win_extends_our_line_before_blocking_one_as_long() {
        let rules = Rules::new(6, 6, 4).unwrap();
        let geo = Geometry::new(rules).unwrap();
        let cells = |list: &[(u32, u32)]| bits_at(&geo, list);
        let score = |scores: &[u64; 64], r, c| scores[geo.bit(Cell::new(r, c)) as usize];
        // Two of ours in row 1 and two of theirs in row 4, both open: the
        // cell extending ours comes first, and so does the symmetric cell
        // for them (each side's own line first).
        let me = cells(&[(1, 1), (1, 2)]);
        let opp = cells(&[(4, 1), (4, 2)]);
        let mut scores = [0u64; 64];
        geo.cell_scores(me, opp, &mut scores, 16);
        assert!(score(&scores, 1, 3) > score(&scores, 4, 3));
        let mut theirs = [0u64; 64];
        geo.cell_scores(opp, me, &mut theirs, 16);
        assert!(score(&theirs, 4, 3) > score(&theirs, 1, 3));
        // Our line of two is extended before a cell where two of their
        // lines of two cross is blocked (with our windows weighing less
        // than twice theirs, the block would come first).
        let opp = cells(&[(4, 1), (4, 2), (2, 4), (3, 4)]);
        let mut scores = [0u64; 64];
        geo.cell_scores(me, opp, &mut scores, 16);
        assert!(score(&scores, 1, 3) > score(&scores, 4, 4));
        // Holding a draw (our windows weighing 4), the block comes first.
        let mut scores = [0u64; 64];
        geo.cell_scores(me, opp, &mut scores, 4);
        assert!(score(&scores, 4, 4) > score(&scores, 1, 3));
    }

    #[test]
    fn double_threats_need_two_windows_one_short() {
        let rules = Rules::new(6, 6, 4).unwrap();
        let geo = Geometry::new(rules).unwrap();
        let cells = |list: &[(u32, u32)]| bits_at(&geo, list);
        // Nothing on the board: three marks before a double threat.
        assert_eq!(geo.double_threat_moves(0, 0, 2), None);
        assert!(geo.double_threat_moves(0, 0, 3).is_some());
        assert_eq!(geo.double_threat_moves(0, 0, 4), Some(!0));
        // Two in a row with room on both sides: one move makes the double
        // threat, and it goes into the two windows holding both marks.
        let two = cells(&[(2, 1), (2, 2)]);
        assert_eq!(geo.double_threat_moves(two, 0, 0), None);
        assert_eq!(
            geo.double_threat_moves(two, 0, 1),
            Some(cells(&[(2, 0), (2, 3), (2, 4)]))
        );
        // Blocked on one side, only one window is left that short.
        let blocked = cells(&[(2, 0)]);
        assert_eq!(geo.double_threat_moves(two, blocked, 1), None);
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
            let mut random = crate::testing::random_numbers(12345);
            for _ in 0..200 {
                let mut game = Game::new(rules);
                while !game.is_over() {
                    let moves: Vec<Cell> = game.legal_moves().collect();
                    let pick = moves[random() as usize % moves.len()];
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
