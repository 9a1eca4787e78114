//! Boards of up to 128 cells: one `u128` per player, cell (r, c) at bit
//! `r * cols + c`, and every k-window an explicit mask (no shift tricks, so
//! no padding column: 11×11 fits).

use oxo_core::{Cell, Game, Player, Rules, Symmetry};

/// Most cells a board may have.
pub(crate) const MAX_CELLS: u32 = 128;
/// Most k-windows a board may have: window sets are four words.
pub(crate) const MAX_WINDOWS: usize = 256;
/// Largest number of board symmetries (the dihedral group of a square).
pub(crate) const MAX_SYMMETRIES: usize = 8;

/// A set of window indexes, four words (see [`MAX_WINDOWS`]).
pub(crate) type WindowSet = [u64; 4];

/// The fixed facts of one board shape, precomputed.
#[derive(Clone, Debug)]
pub(crate) struct Board {
    pub cols: u32,
    pub k: u32,
    /// Every on-board bit.
    pub valid: u128,
    /// Every k-window as a mask of its cells.
    pub windows: Vec<u128>,
    /// For each cell, the windows through it.
    pub through: Vec<WindowSet>,
    /// Every index into `windows`, as a set.
    pub all_windows: WindowSet,
    /// The symmetries of the board ([`crate::solver::transforms`]'s order).
    symmetries: Vec<Symmetry>,
    /// The symmetries of the board, each a map from cell to cell.
    syms: Vec<[u8; MAX_CELLS as usize]>,
    /// The inverse of each map in `syms`.
    inverse: Vec<[u8; MAX_CELLS as usize]>,
    /// Cells, most promising first (most windows through, then nearest the
    /// centre): ties in move ordering are broken by this.
    pub order: Vec<u8>,
    /// Each cell's place in `order` (0 = first).
    pub rank: Vec<u8>,
}

/// Why a board shape does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// More than [`MAX_CELLS`] cells.
    Cells,
    /// More than [`MAX_WINDOWS`] windows.
    Windows(usize),
}

impl Board {
    pub fn new(rules: Rules) -> Result<Board, Unfit> {
        let (rows, cols, k) = (rules.rows(), rules.cols(), rules.k());
        if rows * cols > MAX_CELLS {
            return Err(Unfit::Cells);
        }
        let bit = |r: i32, c: i32| (r * cols as i32 + c) as u32;
        let mut windows = Vec::new();
        for (dr, dc) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)] {
            for r in 0..rows as i32 {
                for c in 0..cols as i32 {
                    let end = (r + dr * (k as i32 - 1), c + dc * (k as i32 - 1));
                    if (0..rows as i32).contains(&end.0) && (0..cols as i32).contains(&end.1) {
                        windows.push(
                            (0..k as i32).fold(0u128, |w, j| w | 1 << bit(r + dr * j, c + dc * j)),
                        );
                    }
                }
            }
        }
        if windows.len() > MAX_WINDOWS {
            return Err(Unfit::Windows(windows.len()));
        }
        let cells = (rows * cols) as usize;
        let valid = if cells == 128 {
            u128::MAX
        } else {
            (1u128 << cells) - 1
        };
        let mut through = vec![[0u64; 4]; cells];
        let mut all_windows = [0u64; 4];
        for (i, &w) in windows.iter().enumerate() {
            all_windows[i / 64] |= 1 << (i % 64);
            for c in bits(w) {
                through[c as usize][i / 64] |= 1 << (i % 64);
            }
        }
        let symmetries = crate::solver::transforms(rows, cols);
        let mut syms = Vec::new();
        let mut inverse = Vec::new();
        for &t in &symmetries {
            let mut map = [0u8; MAX_CELLS as usize];
            let mut inv = [0u8; MAX_CELLS as usize];
            for r in 0..rows {
                for c in 0..cols {
                    let (r2, c2) = t.map(rows, cols, r, c);
                    map[(r * cols + c) as usize] = (r2 * cols + c2) as u8;
                    inv[(r2 * cols + c2) as usize] = (r * cols + c) as u8;
                }
            }
            syms.push(map);
            inverse.push(inv);
        }
        let mut order: Vec<u8> = (0..cells as u8).collect();
        let centre = |b: u8| {
            let (r, c) = (u32::from(b) / cols, u32::from(b) % cols);
            (2 * r).abs_diff(rows - 1) + (2 * c).abs_diff(cols - 1)
        };
        let through_count = |b: u8| set_len(&through[b as usize]);
        order.sort_by_key(|&b| (std::cmp::Reverse(through_count(b)), centre(b), b));
        let mut rank = vec![0u8; cells];
        for (i, &b) in order.iter().enumerate() {
            rank[b as usize] = i as u8;
        }
        Ok(Board {
            cols,
            k,
            valid,
            windows,
            through,
            all_windows,
            symmetries,
            syms,
            inverse,
            order,
            rank,
        })
    }

    /// For each window where a stone of the side whose opponent holds
    /// `other` makes a four (k − 2 of its stones, none of `other`'s, two
    /// cells of `empty`), those two cells.
    pub fn four_makers(&self, other: u128, empty: u128) -> impl Iterator<Item = u128> + '_ {
        self.windows
            .iter()
            .filter(move |&&w| w & other == 0 && (w & empty).count_ones() == 2)
            .map(move |&w| w & empty)
    }

    /// Number of symmetries in use (8 for square boards, 4 otherwise).
    #[inline]
    pub fn symmetry_count(&self) -> usize {
        self.syms.len()
    }

    /// Symmetry `s` (the index [`Board::map`] takes) as the core names it.
    pub fn symmetry(&self, s: usize) -> Symmetry {
        self.symmetries[s]
    }

    /// Where symmetry `s` sends cell `b`.
    #[inline]
    pub fn map(&self, s: usize, b: u32) -> u32 {
        u32::from(self.syms[s][b as usize])
    }

    /// Symmetry `s` applied to a set of cells.
    pub fn map_set(&self, s: usize, cells: u128) -> u128 {
        if s == 0 {
            return cells;
        }
        bits(cells).fold(0, |out, b| out | 1 << self.map(s, b))
    }

    /// The inverse of symmetry `s` applied to a set of cells.
    pub fn unmap_set(&self, s: usize, cells: u128) -> u128 {
        if s == 0 {
            return cells;
        }
        let inv = &self.inverse[s];
        bits(cells).fold(0, |out, b| out | 1 << inv[b as usize])
    }

    /// Add cell `b` (of the real orientation) to every orientation of a set
    /// kept in all its symmetric forms.
    #[inline]
    pub fn place(&self, sets: &mut [u128; MAX_SYMMETRIES], b: u32) {
        for (s, set) in sets.iter_mut().enumerate().take(self.syms.len()) {
            *set |= 1 << self.map(s, b);
        }
    }

    /// `player`'s stones in `game`, in every orientation.
    pub fn oriented(&self, game: &Game, player: Player) -> [u128; MAX_SYMMETRIES] {
        let mut sets = [0; MAX_SYMMETRIES];
        for cell in game.rules().cells() {
            if game.get(cell) == Some(player) {
                self.place(&mut sets, self.bit(cell));
            }
        }
        sets
    }

    /// The bit of `cell`.
    #[inline]
    pub fn bit(&self, cell: Cell) -> u32 {
        cell.row * self.cols + cell.col
    }
}

/// The set bits of `set`, lowest first.
#[inline]
pub(crate) fn bits(mut set: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let b = set.trailing_zeros();
            set &= set - 1;
            b
        })
    })
}

/// Number of windows in a set.
pub(crate) fn set_len(set: &WindowSet) -> u32 {
    set.iter().map(|w| w.count_ones()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_symmetries() {
        let board = Board::new(Rules::new(7, 7, 5).unwrap()).unwrap();
        // Rows and columns: 3 windows each of 7; diagonals of 5, 6, 7, 6, 5
        // cells: 9 a direction.
        assert_eq!(board.windows.len(), 2 * 21 + 2 * 9);
        for s in 0..board.symmetry_count() {
            // Every symmetry sends windows to windows and is undone.
            for &w in &board.windows {
                assert!(board.windows.contains(&board.map_set(s, w)));
                assert_eq!(board.unmap_set(s, board.map_set(s, w)), w);
            }
        }
        let wide = Board::new(Rules::new(11, 11, 5).unwrap()).unwrap();
        assert_eq!(wide.windows.len(), 2 * 77 + 2 * 49);
        assert_eq!(wide.symmetry_count(), 8);
        assert_eq!(
            Board::new(Rules::new(10, 10, 3).unwrap()).err(),
            Some(Unfit::Windows(2 * 80 + 2 * 64))
        );
        assert_eq!(
            Board::new(Rules::new(12, 11, 5).unwrap()).err(),
            Some(Unfit::Cells)
        );
        let rect = Board::new(Rules::new(6, 5, 4).unwrap()).unwrap();
        assert_eq!(rect.symmetry_count(), 4);
    }
}
