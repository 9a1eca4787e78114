//! Board geometry: the size of the board, the win length, cells and lines.

use std::fmt;
use std::str::FromStr;

/// The longest side a board may have.
///
/// Generous on purpose (the issue asks for at least 100×100); it keeps every
/// cell index and every coordinate far inside `u32` and `i64`.
pub const MAX_SIDE: u32 = 1024;

/// A cell of the board by 0-based row and column.
///
/// A `Cell` is only a pair of numbers: whether it lies on a particular board
/// is decided by [`Rules::contains`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// 0-based row, counted from the top.
    pub row: u32,
    /// 0-based column, counted from the left.
    pub col: u32,
}

impl Cell {
    /// The cell at `row`, `col`.
    #[must_use]
    pub const fn new(row: u32, col: u32) -> Cell {
        Cell { row, col }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.row, self.col)
    }
}

/// "a" or "an", whichever English puts before `n` read out: "an" before
/// 8, 11 and 18 and the tens and hundreds that begin with eight ("an 8x8
/// board", "an 11x11 board", "an 800x800 board"), and likewise before
/// thousands and millions of those; "a" before every other number.
#[must_use]
pub const fn a_or_an(n: u32) -> &'static str {
    // The first group of three digits is what is read out first.
    let mut lead = n;
    while lead >= 1000 {
        lead /= 1000;
    }
    match lead {
        8 | 11 | 18 | 80..=89 | 800..=899 => "an",
        _ => "a",
    }
}

/// Why a set of rules was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// A side of zero cells.
    #[error("a board needs at least one row and one column, not {rows}x{cols}")]
    EmptyBoard {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// A side longer than [`MAX_SIDE`].
    #[error("{} {rows}x{cols} board is too large: each side may be at most {MAX_SIDE}", a_or_an(*rows))]
    TooLarge {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
    },
    /// A win length that no line on the board could reach, or zero.
    #[error("k={k} is impossible on {} {rows}x{cols} board: k must be from 1 to {max}", a_or_an(*rows))]
    BadK {
        /// The win length asked for.
        k: u32,
        /// Rows of the board.
        rows: u32,
        /// Columns of the board.
        cols: u32,
        /// The longest win length the board allows: its longer side.
        max: u32,
    },
}

/// Why a board size such as `3x3` could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad board size {text:?}: {}", if *.too_large {
    format!("a side is from 1 to {MAX_SIDE} cells")
} else {
    "expected N or ROWSxCOLS, such as 3 or 4x5".to_owned()
})]
pub struct ParseSizeError {
    text: String,
    /// The form is right but a number is past any board's side.
    too_large: bool,
}

impl ParseSizeError {
    /// The size had the right form, but a side had more digits than any
    /// number a board could be (past `u32`, so past [`MAX_SIDE`] too), so a
    /// caller with a smaller limit can say its own. A side that fits a
    /// `u32` reads, and [`Rules::new`] refuses it if it is too long.
    #[must_use]
    pub fn too_large(&self) -> bool {
        self.too_large
    }
}

/// The dimensions of a board, read from `N` (square) or `RxC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
}

impl FromStr for BoardSize {
    type Err = ParseSizeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |too_large| ParseSizeError {
            text: s.to_owned(),
            too_large,
        };
        let number = |t: &str| -> Result<u32, ParseSizeError> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(false));
            }
            // All digits: only too many of them fail.
            t.parse().map_err(|_| err(true))
        };
        let t = s.trim();
        match t.split_once(['x', 'X', '×']) {
            Some((r, c)) => Ok(BoardSize {
                rows: number(r)?,
                cols: number(c)?,
            }),
            None => {
                let n = number(t)?;
                Ok(BoardSize { rows: n, cols: n })
            }
        }
    }
}

impl BoardSize {
    /// The k a board is played with when none is given: its shorter side,
    /// up to five ([`BoardSize::MAX_DEFAULT_K`]), so `3x3` gives tic-tac-toe,
    /// `4x4` k=4, and every larger board five in a row, as gomoku does.
    #[must_use]
    pub const fn default_k(self) -> u32 {
        let shorter = if self.rows < self.cols {
            self.rows
        } else {
            self.cols
        };
        if shorter < Self::MAX_DEFAULT_K {
            shorter
        } else {
            Self::MAX_DEFAULT_K
        }
    }

    /// The longest default k: five in a row.
    pub const MAX_DEFAULT_K: u32 = 5;
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// The rules of an m,n,k-game: a `rows`×`cols` board, `k` in a row wins
/// (at least k, "freestyle"; or, with [`Rules::exactly`], exactly k, so
/// that a run longer than k, an overline, wins nothing, as in gomoku's
/// exactly-five rule).
///
/// Always valid once built: every constructor checks its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    rows: u32,
    cols: u32,
    k: u32,
    exact: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::TIC_TAC_TOE
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{} k={}", self.rows, self.cols, self.k)?;
        if self.exact {
            f.write_str(" exactly")?;
        }
        Ok(())
    }
}

impl Rules {
    /// Classic tic-tac-toe: 3×3, three in a row.
    pub const TIC_TAC_TOE: Rules = Rules {
        rows: 3,
        cols: 3,
        k: 3,
        exact: false,
    };

    /// Rules for a `rows`×`cols` board where `k` in a row wins.
    ///
    /// # Errors
    /// A side of zero or longer than [`MAX_SIDE`], or `k` outside
    /// `1..=max(rows, cols)`.
    pub fn new(rows: u32, cols: u32, k: u32) -> Result<Rules, RulesError> {
        if rows == 0 || cols == 0 {
            return Err(RulesError::EmptyBoard { rows, cols });
        }
        if rows > MAX_SIDE || cols > MAX_SIDE {
            return Err(RulesError::TooLarge { rows, cols });
        }
        let max = rows.max(cols);
        if k == 0 || k > max {
            return Err(RulesError::BadK { k, rows, cols, max });
        }
        Ok(Rules {
            rows,
            cols,
            k,
            exact: false,
        })
    }

    /// The same board where only a run of exactly k wins: a longer run (an
    /// overline) wins nothing.
    #[must_use]
    pub const fn exactly(self) -> Rules {
        Rules {
            exact: true,
            ..self
        }
    }

    /// Whether only a run of exactly k wins (see [`Rules::exactly`]).
    #[must_use]
    pub const fn is_exact(&self) -> bool {
        self.exact
    }

    /// Rules for a board of `size`, with `k` defaulting to
    /// [`BoardSize::default_k`] (so `3x3` gives tic-tac-toe, `4x4` k=4 and
    /// `15x15` k=5).
    ///
    /// # Errors
    /// As [`Rules::new`].
    pub fn with_size(size: BoardSize, k: Option<u32>) -> Result<Rules, RulesError> {
        Rules::new(size.rows, size.cols, k.unwrap_or(size.default_k()))
    }

    /// Number of rows.
    #[must_use]
    pub const fn rows(&self) -> u32 {
        self.rows
    }

    /// Number of columns.
    #[must_use]
    pub const fn cols(&self) -> u32 {
        self.cols
    }

    /// Marks in a row needed to win.
    #[must_use]
    pub const fn k(&self) -> u32 {
        self.k
    }

    /// The board's dimensions.
    #[must_use]
    pub const fn size(&self) -> BoardSize {
        BoardSize {
            rows: self.rows,
            cols: self.cols,
        }
    }

    /// Number of cells on the board.
    #[must_use]
    pub const fn cell_count(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Whether `cell` lies on the board.
    #[must_use]
    pub const fn contains(&self, cell: Cell) -> bool {
        cell.row < self.rows && cell.col < self.cols
    }

    /// The cell at signed coordinates, or `None` when they are off the board.
    ///
    /// Any `i64` is accepted, so coordinates read from untrusted text never
    /// overflow on their way here.
    #[must_use]
    pub fn cell(&self, row: i64, col: i64) -> Option<Cell> {
        let row = u32::try_from(row).ok()?;
        let col = u32::try_from(col).ok()?;
        let cell = Cell::new(row, col);
        self.contains(cell).then_some(cell)
    }

    /// The cell with 1-based, row-major `number` (1 2 3 / 4 5 6 / 7 8 9 on
    /// 3×3), or `None` when there is no such cell.
    #[must_use]
    pub fn cell_numbered(&self, number: i64) -> Option<Cell> {
        let index = usize::try_from(number.checked_sub(1)?).ok()?;
        (index < self.cell_count()).then(|| self.cell_at(index))
    }

    /// The 1-based, row-major number of `cell`.
    #[must_use]
    pub const fn number_of(&self, cell: Cell) -> usize {
        self.index(cell) + 1
    }

    /// The row-major index of `cell` (0-based).
    #[must_use]
    pub const fn index(&self, cell: Cell) -> usize {
        cell.row as usize * self.cols as usize + cell.col as usize
    }

    /// The cell at row-major `index`.
    ///
    /// # Panics
    /// Never for an index below [`Rules::cell_count`]; for others the cell
    /// returned is off the board.
    #[must_use]
    pub const fn cell_at(&self, index: usize) -> Cell {
        // Both parts are below MAX_SIDE for on-board indices.
        Cell::new(
            (index / self.cols as usize) as u32,
            (index % self.cols as usize) as u32,
        )
    }

    /// Every cell, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + use<> {
        let rules = *self;
        (0..self.cell_count()).map(move |i| rules.cell_at(i))
    }

    /// The cell one step from `cell` in `direction` (`forward` or back), if
    /// that is on the board.
    #[must_use]
    pub fn step(&self, cell: Cell, direction: Direction, forward: bool) -> Option<Cell> {
        let (dr, dc) = direction.delta();
        let (dr, dc) = if forward { (dr, dc) } else { (-dr, -dc) };
        let row = cell.row.checked_add_signed(dr)?;
        let col = cell.col.checked_add_signed(dc)?;
        let next = Cell::new(row, col);
        self.contains(next).then_some(next)
    }
}

/// The four directions a line can run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Along a row, left to right.
    Horizontal,
    /// Down a column.
    Vertical,
    /// Down and to the right.
    Diagonal,
    /// Down and to the left.
    AntiDiagonal,
}

impl Direction {
    /// All four, in the order wins are looked for.
    pub const ALL: [Direction; 4] = [
        Direction::Horizontal,
        Direction::Vertical,
        Direction::Diagonal,
        Direction::AntiDiagonal,
    ];

    /// (row step, column step) going forward.
    #[must_use]
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::Horizontal => (0, 1),
            Direction::Vertical => (1, 0),
            Direction::Diagonal => (1, 1),
            Direction::AntiDiagonal => (1, -1),
        }
    }
}

/// A straight run of cells: `len` cells from `start` in `direction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Line {
    /// The first cell (topmost; leftmost for horizontal lines).
    pub start: Cell,
    /// Which way the line runs from `start`.
    pub direction: Direction,
    /// Number of cells.
    pub len: u32,
}

impl Line {
    /// The line's cells, from `start`.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + use<> {
        let (dr, dc) = self.direction.delta();
        let start = self.start;
        (0..self.len).map(move |i| {
            let i = i64::from(i);
            // A Line is only built from on-board cells, so these stay in range.
            Cell::new(
                (i64::from(start.row) + i * i64::from(dr)) as u32,
                (i64::from(start.col) + i * i64::from(dc)) as u32,
            )
        })
    }

    /// Whether `cell` is one of the line's cells.
    #[must_use]
    pub fn contains(&self, cell: Cell) -> bool {
        self.cells().any(|c| c == cell)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Cell {
    /// `[row, col]`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.row, self.col].serialize(s)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for BoardSize {
    /// `"RxC"`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_k_is_the_shorter_side_up_to_five() {
        for ((rows, cols), k) in [
            ((3, 3), 3),
            ((4, 4), 4),
            ((4, 9), 4),
            ((9, 4), 4),
            ((5, 5), 5),
            ((7, 9), 5),
            ((15, 15), 5),
            ((1, 20), 1),
        ] {
            assert_eq!(BoardSize { rows, cols }.default_k(), k, "{rows}x{cols}");
        }
    }

    #[test]
    fn an_goes_before_the_numbers_read_with_a_vowel() {
        for n in [
            8, 11, 18, 80, 86, 89, 800, 899, 8000, 11_000, 18_500, 86_000, 8_000_000,
        ] {
            assert_eq!(a_or_an(n), "an", "{n}");
        }
        for n in [
            0, 1, 3, 7, 9, 10, 12, 15, 19, 90, 100, 108, 111, 180, 1000, 1024, 1800,
        ] {
            assert_eq!(a_or_an(n), "a", "{n}");
        }
        assert_eq!(
            Rules::new(8, 8, 9).unwrap_err().to_string(),
            "k=9 is impossible on an 8x8 board: k must be from 1 to 8"
        );
    }

    #[test]
    fn new_validates() {
        assert!(Rules::new(1, 1, 1).is_ok());
        assert!(Rules::new(100, 100, 5).is_ok());
        assert!(Rules::new(3, 7, 7).is_ok());
        assert_eq!(
            Rules::new(0, 3, 1),
            Err(RulesError::EmptyBoard { rows: 0, cols: 3 })
        );
        assert!(matches!(
            Rules::new(MAX_SIDE + 1, 3, 3),
            Err(RulesError::TooLarge { .. })
        ));
        assert!(matches!(
            Rules::new(3, 3, 4),
            Err(RulesError::BadK { max: 3, .. })
        ));
        assert!(matches!(Rules::new(3, 3, 0), Err(RulesError::BadK { .. })));
        let msg = Rules::new(3, 3, 4).unwrap_err().to_string();
        assert_eq!(
            msg,
            "k=4 is impossible on a 3x3 board: k must be from 1 to 3"
        );
    }

    #[test]
    fn sizes_parse() {
        assert_eq!("3".parse::<BoardSize>(), Ok(BoardSize { rows: 3, cols: 3 }));
        assert_eq!(
            "4x5".parse::<BoardSize>(),
            Ok(BoardSize { rows: 4, cols: 5 })
        );
        assert_eq!(
            "15X15".parse::<BoardSize>(),
            Ok(BoardSize { rows: 15, cols: 15 })
        );
        for bad in [
            "",
            "x",
            "3x",
            "-3",
            "3x-1",
            "3 x 3",
            "3x3x3",
            "+3",
            "99999999999",
        ] {
            assert!(bad.parse::<BoardSize>().is_err(), "{bad:?}");
        }
        // The right form with a number past any side says so.
        assert_eq!(
            "99999999999x3"
                .parse::<BoardSize>()
                .unwrap_err()
                .to_string(),
            "bad board size \"99999999999x3\": a side is from 1 to 1024 cells"
        );
        assert_eq!(
            "3y3".parse::<BoardSize>().unwrap_err().to_string(),
            "bad board size \"3y3\": expected N or ROWSxCOLS, such as 3 or 4x5"
        );
        assert_eq!(BoardSize { rows: 4, cols: 5 }.to_string(), "4x5");
    }

    #[test]
    fn numbering_is_row_major_from_one() {
        let r = Rules::TIC_TAC_TOE;
        assert_eq!(r.cell_numbered(1), Some(Cell::new(0, 0)));
        assert_eq!(r.cell_numbered(6), Some(Cell::new(1, 2)));
        assert_eq!(r.cell_numbered(9), Some(Cell::new(2, 2)));
        for bad in [0, 10, -1, i64::MIN, i64::MAX] {
            assert_eq!(r.cell_numbered(bad), None);
        }
        for cell in r.cells() {
            assert_eq!(r.cell_numbered(r.number_of(cell) as i64), Some(cell));
        }
        let wide = Rules::new(2, 4, 2).unwrap();
        assert_eq!(wide.cell_numbered(5), Some(Cell::new(1, 0)));
    }

    #[test]
    fn signed_coordinates_never_overflow() {
        let r = Rules::new(4, 5, 3).unwrap();
        assert_eq!(r.cell(3, 4), Some(Cell::new(3, 4)));
        for (row, col) in [(4, 0), (0, 5), (-1, 0), (i64::MAX, i64::MIN), (1 << 40, 0)] {
            assert_eq!(r.cell(row, col), None);
        }
    }

    #[test]
    fn line_cells_follow_direction() {
        let line = Line {
            start: Cell::new(0, 2),
            direction: Direction::AntiDiagonal,
            len: 3,
        };
        let cells: Vec<_> = line.cells().collect();
        assert_eq!(cells, [Cell::new(0, 2), Cell::new(1, 1), Cell::new(2, 0)]);
        assert!(line.contains(Cell::new(1, 1)));
        assert!(!line.contains(Cell::new(0, 0)));
    }

    #[test]
    fn steps_stop_at_edges() {
        let r = Rules::TIC_TAC_TOE;
        let corner = Cell::new(0, 0);
        assert_eq!(r.step(corner, Direction::Diagonal, false), None);
        assert_eq!(
            r.step(corner, Direction::Diagonal, true),
            Some(Cell::new(1, 1))
        );
        assert_eq!(r.step(Cell::new(0, 2), Direction::Horizontal, true), None);
        assert_eq!(
            r.step(Cell::new(0, 2), Direction::AntiDiagonal, true),
            Some(Cell::new(1, 1))
        );
    }
}
