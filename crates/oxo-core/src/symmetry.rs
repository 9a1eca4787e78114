//! The symmetries of a board: the eight of a square (turns and
//! reflections), of which a board that is not square keeps four. One type
//! and one numbering for every table built from them (the solver's and the
//! prover's transpositions, the learned players' shared weights, the shipped
//! opening table, long proofs' plans) and for proof certificates, whose
//! image nodes name a symmetry by its [`Symmetry::number`].

use crate::Rules;

/// One symmetry of a board, numbered as certificates number them.
///
/// ```
/// use oxo_core::{Rules, Symmetry};
///
/// // A quarter turn takes the top-left corner to the top-right one.
/// assert_eq!(Symmetry::QuarterTurn.map(3, 3, 0, 0), (0, 2));
/// assert_eq!(Symmetry::QuarterTurn.then(Symmetry::QuarterTurn), Symmetry::HalfTurn);
/// assert_eq!(Symmetry::QuarterTurn.inverse(), Symmetry::ThreeQuarterTurn);
/// assert_eq!(Rules::new(3, 4, 3)?.symmetries().count(), 4);
/// # Ok::<(), oxo_core::RulesError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symmetry {
    /// Every cell stays.
    Identity,
    /// A quarter turn clockwise: row `r`, column `c` goes to row `c`,
    /// column `n - 1 - r`.
    QuarterTurn,
    /// A half turn.
    HalfTurn,
    /// Three quarter turns clockwise (a quarter turn back).
    ThreeQuarterTurn,
    /// The mirror left to right: the columns reversed.
    MirrorColumns,
    /// The mirror top to bottom: the rows reversed.
    MirrorRows,
    /// The reflection in the main diagonal: rows become columns.
    Transpose,
    /// The reflection in the other diagonal.
    AntiTranspose,
}

impl Symmetry {
    /// All eight, by number.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::QuarterTurn,
        Symmetry::HalfTurn,
        Symmetry::ThreeQuarterTurn,
        Symmetry::MirrorColumns,
        Symmetry::MirrorRows,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// Its number, 0 to 7 (the identity 0), as certificates write it.
    #[must_use]
    pub const fn number(self) -> usize {
        self as usize
    }

    /// The symmetry numbered `number`, if any.
    #[must_use]
    pub const fn from_number(number: usize) -> Option<Symmetry> {
        if number < Symmetry::ALL.len() {
            Some(Symmetry::ALL[number])
        } else {
            None
        }
    }

    /// Whether it swaps rows and columns, which only a square board allows.
    #[must_use]
    pub const fn transposes(self) -> bool {
        matches!(
            self,
            Symmetry::QuarterTurn
                | Symmetry::ThreeQuarterTurn
                | Symmetry::Transpose
                | Symmetry::AntiTranspose
        )
    }

    /// Whether it maps a `rows`×`cols` board onto itself.
    #[must_use]
    pub const fn fits(self, rows: u32, cols: u32) -> bool {
        rows == cols || !self.transposes()
    }

    /// As a matrix acting on a cell's offsets from the centre, `[[a, b],
    /// [c, d]]`: the new row offset is `a·row + b·col`, the new column
    /// offset `c·row + d·col`.
    const fn matrix(self) -> [[i8; 2]; 2] {
        match self {
            Symmetry::Identity => [[1, 0], [0, 1]],
            Symmetry::QuarterTurn => [[0, 1], [-1, 0]],
            Symmetry::HalfTurn => [[-1, 0], [0, -1]],
            Symmetry::ThreeQuarterTurn => [[0, -1], [1, 0]],
            Symmetry::MirrorColumns => [[1, 0], [0, -1]],
            Symmetry::MirrorRows => [[-1, 0], [0, 1]],
            Symmetry::Transpose => [[0, 1], [1, 0]],
            Symmetry::AntiTranspose => [[0, -1], [-1, 0]],
        }
    }

    /// The symmetry whose matrix is `m`: each of the eight has its own.
    fn of_matrix(m: [[i8; 2]; 2]) -> Symmetry {
        let found = Symmetry::ALL.into_iter().find(|s| s.matrix() == m);
        // The eight matrices are the whole group of signed 2×2
        // permutation matrices, closed under products and transposes.
        found.unwrap_or(Symmetry::Identity)
    }

    /// Where it takes row `row`, column `col` of a `rows`×`cols` board,
    /// for a symmetry that [fits](Symmetry::fits) the board (one that does
    /// not is taken as the identity).
    #[must_use]
    pub fn map(self, rows: u32, cols: u32, row: u32, col: u32) -> (u32, u32) {
        if !self.fits(rows, cols) {
            return (row, col);
        }
        // Offsets from the centre, doubled so that they are whole.
        let (x, y) = (
            2 * i64::from(row) - i64::from(rows) + 1,
            2 * i64::from(col) - i64::from(cols) + 1,
        );
        let [[a, b], [c, d]] = self.matrix().map(|r| r.map(i64::from));
        let (x2, y2) = (a * x + b * y, c * x + d * y);
        let back = |offset: i64, side: u32| {
            // In range: a signed permutation keeps the offset's size, and
            // a fitting symmetry keeps the side.
            u32::try_from((offset + i64::from(side) - 1) / 2).unwrap_or(0)
        };
        (back(x2, rows), back(y2, cols))
    }

    /// Where it takes the cell of row-major index `cell` on a board of
    /// `rules`, if the cell is on the board and the symmetry fits it.
    #[must_use]
    pub fn cell(self, rules: Rules, cell: usize) -> Option<usize> {
        let (rows, cols) = (rules.rows(), rules.cols());
        let (r, c) = (cell / cols as usize, cell % cols as usize);
        if cell >= rules.cell_count() || !self.fits(rows, cols) {
            return None;
        }
        // In range: below the board's side.
        let (r2, c2) = self.map(rows, cols, r as u32, c as u32);
        Some(r2 as usize * cols as usize + c2 as usize)
    }

    /// This symmetry and then `next`.
    #[must_use]
    pub fn then(self, next: Symmetry) -> Symmetry {
        let (p, q) = (next.matrix(), self.matrix());
        let mut m = [[0i8; 2]; 2];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, entry) in row.iter_mut().enumerate() {
                *entry = p[i][0] * q[0][j] + p[i][1] * q[1][j];
            }
        }
        Symmetry::of_matrix(m)
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub fn inverse(self) -> Symmetry {
        // An orthogonal matrix's inverse is its transpose.
        let [[a, b], [c, d]] = self.matrix();
        Symmetry::of_matrix([[a, c], [b, d]])
    }
}

impl Rules {
    /// The symmetries of this board, by number: all eight on a square
    /// board, else the identity, the half turn and the two mirrors.
    pub fn symmetries(self) -> impl Iterator<Item = Symmetry> {
        let (rows, cols) = (self.rows(), self.cols());
        Symmetry::ALL
            .into_iter()
            .filter(move |s| s.fits(rows, cols))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each symmetry by the formula it is named for, on an n×n board.
    fn by_formula(s: Symmetry, n: u32, r: u32, c: u32) -> (u32, u32) {
        let m = n - 1;
        match s {
            Symmetry::Identity => (r, c),
            Symmetry::QuarterTurn => (c, m - r),
            Symmetry::HalfTurn => (m - r, m - c),
            Symmetry::ThreeQuarterTurn => (m - c, r),
            Symmetry::MirrorColumns => (r, m - c),
            Symmetry::MirrorRows => (m - r, c),
            Symmetry::Transpose => (c, r),
            Symmetry::AntiTranspose => (m - c, m - r),
        }
    }

    #[test]
    fn each_symmetry_moves_cells_as_its_name_says() {
        for n in 1..=6 {
            for s in Symmetry::ALL {
                for r in 0..n {
                    for c in 0..n {
                        assert_eq!(s.map(n, n, r, c), by_formula(s, n, r, c), "{s:?} on {n}");
                    }
                }
            }
        }
        // On a rectangle the four that fit.
        assert_eq!(Symmetry::HalfTurn.map(2, 5, 0, 1), (1, 3));
        assert_eq!(Symmetry::MirrorColumns.map(2, 5, 0, 1), (0, 3));
        assert_eq!(Symmetry::MirrorRows.map(2, 5, 0, 1), (1, 1));
        let rect = Rules::new(2, 5, 2).expect("2x5");
        assert_eq!(Symmetry::Transpose.cell(rect, 1), None);
        assert_eq!(Symmetry::HalfTurn.cell(rect, 10), None);
    }

    #[test]
    fn composition_and_inverse_agree_with_applying_one_after_another() {
        let n = 5;
        for s in Symmetry::ALL {
            assert_eq!(Symmetry::from_number(s.number()), Some(s));
            for t in Symmetry::ALL {
                let st = s.then(t);
                for r in 0..n {
                    for c in 0..n {
                        let (r1, c1) = s.map(n, n, r, c);
                        assert_eq!(st.map(n, n, r, c), t.map(n, n, r1, c1), "{s:?} then {t:?}");
                    }
                }
            }
            assert_eq!(s.then(s.inverse()), Symmetry::Identity, "{s:?}");
        }
        assert_eq!(Symmetry::from_number(8), None);
        let numbers: Vec<usize> = Rules::new(3, 4, 3)
            .expect("3x4")
            .symmetries()
            .map(Symmetry::number)
            .collect();
        assert_eq!(numbers, [0, 2, 4, 5]);
    }
}
