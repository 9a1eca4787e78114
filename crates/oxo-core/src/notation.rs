//! oxo's position notation: rows joined by `/`, cells `X`, `O` or `.`.
//!
//! `X.O/.X./..O` is a 3×3 board with X in the top-left corner and the
//! centre, O in the top-right and bottom-right corners (X to move). Reading
//! one is two steps, as in shakmaty's `Setup` and `Position`: [`Setup`]
//! checks the syntax (characters, equal rows), then
//! [`Game::from_setup`](crate::Game::from_setup) checks that the position
//! could arise in play. This module knows nothing of games: `game.rs`
//! reads a `Setup` and writes itself with [`write_cells`].

use std::fmt;
use std::str::FromStr;

use crate::player::Player;
use crate::rules::{BoardSize, MAX_SIDE, RulesError};

/// A board read from notation, not yet checked against any rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    rows: u32,
    cols: u32,
    cells: Vec<Option<Player>>,
}

/// Why text is not a board in oxo's notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// Nothing to read.
    #[error("empty position: expected rows of X, O and . joined by /")]
    Empty,
    /// A character that is not a cell.
    #[error("unexpected {found:?} in row {row}, column {col}: cells are X, O or .")]
    BadCell {
        /// The character found.
        found: char,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
    },
    /// Rows of different lengths.
    #[error("row {row} has {len} {} but row 1 has {expected}", if *.len == 1 { "cell" } else { "cells" })]
    Ragged {
        /// 1-based row.
        row: usize,
        /// Its length.
        len: usize,
        /// The first row's length.
        expected: usize,
    },
    /// A row with no cells (as in `XXX//OOO`).
    #[error("row {row} is empty")]
    EmptyRow {
        /// 1-based row.
        row: usize,
    },
    /// More rows or columns than any board has.
    #[error("the board is too large: each side may be at most {MAX_SIDE}")]
    TooLarge,
}

/// Why a well-formed board is not a position that play could reach.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The win length does not fit the board.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// X moves first, so X has as many marks as O or one more.
    #[error("X has {x} marks and O has {o}: with X moving first, X has as many as O or one more")]
    MarkCounts {
        /// X's marks.
        x: usize,
        /// O's marks.
        o: usize,
    },
    /// Both players have k in a row.
    #[error("both X and O have {k} in a row")]
    TwoWinners {
        /// The win length.
        k: u32,
    },
    /// The winner was not the last to move: the mark counts say the other
    /// player moved last.
    #[error(
        "{winner} has {k} in a row, but X has {x} marks and O has {o}, so {} moved last; \
         the winner must have moved last",
        .winner.other()
    )]
    WinnerDidNotMoveLast {
        /// The player with the line.
        winner: Player,
        /// The win length.
        k: u32,
        /// X's marks.
        x: usize,
        /// O's marks.
        o: usize,
    },
    /// The lines cannot all have been completed by one last move.
    #[error("{winner}'s winning lines share no cell, so no single last move made them")]
    DisjointWins {
        /// The player with the lines.
        winner: Player,
    },
}

/// Why a notation string could not be turned into a game: the syntax or the
/// position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// The text is not a board.
    #[error("bad position: {0}")]
    Syntax(#[from] SyntaxError),
    /// The board could not arise in play.
    #[error("impossible position: {0}")]
    Illegal(#[from] PositionError),
}

impl Setup {
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

    /// The board's size.
    #[must_use]
    pub const fn size(&self) -> BoardSize {
        BoardSize {
            rows: self.rows,
            cols: self.cols,
        }
    }

    /// The marks, row-major.
    #[must_use]
    pub fn cells(&self) -> &[Option<Player>] {
        &self.cells
    }
}

impl FromStr for Setup {
    type Err = SyntaxError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.is_empty() {
            return Err(SyntaxError::Empty);
        }
        let mut cells = Vec::new();
        let mut cols = 0;
        let mut rows = 0;
        for (r, text) in s.split('/').enumerate() {
            let before = cells.len();
            for (c, ch) in text.chars().enumerate() {
                let cell = match ch {
                    '.' | '-' => None,
                    _ => Some(Player::from_char(ch).ok_or(SyntaxError::BadCell {
                        found: ch,
                        row: r + 1,
                        col: c + 1,
                    })?),
                };
                cells.push(cell);
                if c >= MAX_SIDE as usize {
                    return Err(SyntaxError::TooLarge);
                }
            }
            let len = cells.len() - before;
            if len == 0 {
                return Err(SyntaxError::EmptyRow { row: r + 1 });
            }
            if r == 0 {
                cols = len;
            } else if len != cols {
                return Err(SyntaxError::Ragged {
                    row: r + 1,
                    len,
                    expected: cols,
                });
            }
            rows += 1;
            if rows > MAX_SIDE as usize {
                return Err(SyntaxError::TooLarge);
            }
        }
        Ok(Setup {
            // Both bounded by MAX_SIDE above.
            rows: rows as u32,
            cols: cols as u32,
            cells,
        })
    }
}

impl Setup {
    /// A setup of `rows` × `cols` cells, row by row (as a game holds them).
    pub(crate) fn from_cells(rows: u32, cols: u32, cells: Vec<Option<Player>>) -> Setup {
        debug_assert_eq!(cells.len(), rows as usize * cols as usize);
        Setup { rows, cols, cells }
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cells(f, self.cols, &self.cells)
    }
}

/// Write `cells` in notation, `cols` to a row.
pub(crate) fn write_cells(
    f: &mut fmt::Formatter<'_>,
    cols: u32,
    cells: &[Option<Player>],
) -> fmt::Result {
    use fmt::Write;
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 && i % cols as usize == 0 {
            f.write_char('/')?;
        }
        f.write_char(cell.map_or('.', Player::as_char))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_name_the_problem() {
        assert_eq!("".parse::<Setup>(), Err(SyntaxError::Empty));
        assert_eq!(
            "X.O/.Z./..O".parse::<Setup>(),
            Err(SyntaxError::BadCell {
                found: 'Z',
                row: 2,
                col: 2
            })
        );
        assert_eq!(
            "X.O/.X/..O".parse::<Setup>(),
            Err(SyntaxError::Ragged {
                row: 2,
                len: 2,
                expected: 3
            })
        );
        assert_eq!(
            "XO//..".parse::<Setup>(),
            Err(SyntaxError::EmptyRow { row: 2 })
        );
        let long = ".".repeat(MAX_SIDE as usize + 1);
        assert_eq!(long.parse::<Setup>(), Err(SyntaxError::TooLarge));
    }

    #[test]
    fn lenient_input_canonical_output() {
        let setup: Setup = " x-o/.X./--o ".parse().unwrap();
        assert_eq!(setup.to_string(), "X.O/.X./..O");
        assert_eq!((setup.rows(), setup.cols()), (3, 3));
    }
}
