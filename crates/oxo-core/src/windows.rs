//! The board's windows: every run of k cells in a row, column or diagonal.
//!
//! Under the "at least k in a row" rule a player has won exactly when one of
//! these windows holds only that player's marks, so counting the marks in
//! each window is how the computer players see threats. The rules own the
//! list so that every player reads the same windows in the same order.

use std::iter::FusedIterator;

use crate::game::Game;
use crate::player::Player;
use crate::rules::{Direction, Line, Rules};

impl Rules {
    /// Every window of the board: each straight run of k cells, as a
    /// [`Line`] of length k.
    ///
    /// The order is fixed: by direction in [`Direction::ALL`] order, then by
    /// the first cell, row by row. With k = 1 every direction would give the
    /// same one-cell windows, so only the horizontal ones are listed and
    /// each cell is in exactly one window.
    ///
    /// ```
    /// use oxo_core::{Cell, Direction, Rules};
    ///
    /// let rules = Rules::new(3, 4, 3)?;
    /// let windows = rules.windows();
    /// // Two per row, four columns, two diagonals each way.
    /// assert_eq!(windows.len(), 3 * 2 + 4 + 2 + 2);
    /// let last = windows.last().unwrap();
    /// assert_eq!(last.direction, Direction::AntiDiagonal);
    /// assert_eq!(last.cells().collect::<Vec<_>>(), [Cell::new(0, 3), Cell::new(1, 2), Cell::new(2, 1)]);
    /// # Ok::<(), oxo_core::RulesError>(())
    /// ```
    #[must_use]
    pub fn windows(&self) -> Windows {
        Windows {
            rules: *self,
            direction: 0,
            row: 0,
            col: 0,
        }
    }

    /// How far apart two neighbouring cells of a line running in
    /// `direction` are in row-major index order ([`Rules::index`]): 1
    /// along a row, `cols` down a column, `cols + 1` and `cols − 1` along
    /// the diagonals. Every direction runs forward in that order, so a
    /// line's cells are at `index(start) + i * stride`.
    #[must_use]
    pub const fn stride(&self, direction: Direction) -> usize {
        let cols = self.cols() as usize;
        match direction {
            Direction::Horizontal => 1,
            Direction::Vertical => cols,
            Direction::Diagonal => cols + 1,
            Direction::AntiDiagonal => cols - 1,
        }
    }
}

/// The windows of a board, from [`Rules::windows`].
#[derive(Clone, Debug)]
pub struct Windows {
    rules: Rules,
    /// Index into [`Windows::directions`] of the direction being listed.
    direction: usize,
    /// The first cell of the next window to look at.
    row: u32,
    col: u32,
}

impl Windows {
    /// The directions windows run in: all four, or only the horizontal
    /// with k = 1.
    fn directions(&self) -> &'static [Direction] {
        if self.rules.k() == 1 {
            &Direction::ALL[..1]
        } else {
            &Direction::ALL
        }
    }

    /// The first rows and columns a window in `direction` can start at:
    /// `rows.0..rows.1` and `cols.0..cols.1`.
    fn starts(&self, direction: Direction) -> ((u32, u32), (u32, u32)) {
        let (rows, cols, span) = (self.rules.rows(), self.rules.cols(), self.rules.k() - 1);
        // k is at most the longer side, so one of these may be empty.
        let fit = |side: u32| side.saturating_sub(span);
        match direction {
            Direction::Horizontal => ((0, rows), (0, fit(cols))),
            Direction::Vertical => ((0, fit(rows)), (0, cols)),
            Direction::Diagonal => ((0, fit(rows)), (0, fit(cols))),
            Direction::AntiDiagonal => ((0, fit(rows)), (span.min(cols), cols)),
        }
    }

    /// Windows in `direction` that start at or after (`row`, `col`).
    fn left_in(&self, direction: Direction, row: u32, col: u32) -> usize {
        let ((top, bottom), (left, right)) = self.starts(direction);
        if top >= bottom || left >= right {
            return 0;
        }
        let width = (right - left) as usize;
        let (row, col) = (row.max(top), col.max(left));
        if row >= bottom {
            return 0;
        }
        let whole_rows = (bottom - row) as usize * width;
        whole_rows - (col.min(right) - left) as usize
    }
}

impl Iterator for Windows {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let directions = self.directions();
        while let Some(&direction) = directions.get(self.direction) {
            let ((top, bottom), (left, right)) = self.starts(direction);
            let (row, col) = (self.row.max(top), self.col.max(left));
            let (row, col) = if col >= right {
                (row + 1, left)
            } else {
                (row, col)
            };
            if row < bottom && left < right {
                self.row = row;
                self.col = col + 1;
                return Some(Line {
                    start: crate::Cell::new(row, col),
                    direction,
                    len: self.rules.k(),
                });
            }
            self.direction += 1;
            self.row = 0;
            self.col = 0;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let directions = self.directions();
        let mut left = 0;
        for (i, &direction) in directions.iter().enumerate().skip(self.direction) {
            left += if i == self.direction {
                self.left_in(direction, self.row, self.col)
            } else {
                self.left_in(direction, 0, 0)
            };
        }
        (left, Some(left))
    }
}

impl Game {
    /// Whether `player` still has a window free of the other side's marks:
    /// a line it could yet complete if the other side stopped moving. A
    /// side with none cannot win whatever happens, so a round lost by the
    /// other side on time is a draw rather than its win (as chess scores a
    /// flag against a bare king). Under the exactly-k rule an open window
    /// may still be unwinnable; it counts as open.
    #[must_use]
    pub fn can_still_win(&self, player: Player) -> bool {
        let other = Some(player.other());
        self.rules()
            .windows()
            .any(|window| window.cells().all(|cell| self.get(cell) != other))
    }
}

impl ExactSizeIterator for Windows {}

impl FusedIterator for Windows {}

#[cfg(test)]
mod tests {
    use crate::{Cell, Direction, Rules};

    /// The windows found the slow way: every line of k cells from every
    /// cell in every direction that stays on the board.
    fn brute_force(rules: Rules) -> Vec<(Direction, Cell)> {
        let directions: &[Direction] = if rules.k() == 1 {
            &Direction::ALL[..1]
        } else {
            &Direction::ALL
        };
        let mut found = Vec::new();
        for &direction in directions {
            for start in rules.cells() {
                let mut end = Some(start);
                for _ in 1..rules.k() {
                    end = end.and_then(|c| rules.step(c, direction, true));
                }
                if end.is_some() {
                    found.push((direction, start));
                }
            }
        }
        found
    }

    #[test]
    fn windows_are_every_run_of_k_in_order() {
        for (rows, cols, k) in [
            (3, 3, 3),
            (1, 1, 1),
            (2, 3, 1),
            (4, 1, 2),
            (1, 5, 3),
            (3, 5, 4),
            (4, 6, 3),
            (7, 2, 2),
            (2, 7, 7),
            (15, 15, 5),
        ] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let listed: Vec<_> = rules.windows().map(|w| (w.direction, w.start)).collect();
            assert_eq!(listed, brute_force(rules), "{rules}");
            let mut windows = rules.windows();
            for left in (0..=listed.len()).rev() {
                assert_eq!(windows.len(), left, "{rules}");
                windows.next();
            }
            assert!(windows.next().is_none());
            for window in rules.windows() {
                assert_eq!(window.len, k);
                let stride = rules.stride(window.direction);
                let first = rules.index(window.start);
                for (i, cell) in window.cells().enumerate() {
                    assert!(rules.contains(cell), "{rules}: {window:?}");
                    assert_eq!(rules.index(cell), first + i * stride);
                }
            }
        }
        // Rows × (cols − k + 1) along the rows, and so on.
        let gomoku = Rules::new(15, 15, 5).unwrap();
        assert_eq!(gomoku.windows().len(), 2 * 15 * 11 + 2 * 11 * 11);
        assert_eq!(Rules::default().windows().len(), 8);
    }

    #[test]
    fn a_side_can_still_win_while_a_window_is_free_of_the_other_sides_marks() {
        use crate::{Game, Player};
        // On 1x4 with k=3, X's mark blocks both of O's windows.
        let game = Game::from_notation("OX..", 3).unwrap();
        assert!(game.can_still_win(Player::X));
        assert!(!game.can_still_win(Player::O));
        let game = Game::from_notation("XOX/XOO/OXX", 3).unwrap();
        assert!(!game.can_still_win(Player::X) && !game.can_still_win(Player::O));
        let empty = Game::new(Rules::default());
        assert!(empty.can_still_win(Player::X) && empty.can_still_win(Player::O));
    }
}
