//! oxo's position notation: rows joined by `/`, cells `X`, `O` or `.`.
//!
//! `X.O/.X./..O` is a 3×3 board with X in three corners' diagonal and O on
//! the right. Reading one is two steps, as in shakmaty's `Setup` and
//! `Position`: [`Setup`] checks the syntax (characters, equal rows), then
//! [`Game::from_setup`] checks that the position could arise in play.

use std::fmt;
use std::str::FromStr;

use crate::game::{Game, Outcome};
use crate::player::Player;
use crate::rules::{Cell, Direction, Line, MAX_SIDE, Rules, RulesError};

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
    #[error("row {row} has {len} cells but row 1 has {expected}")]
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
    /// The winner was not the last to move.
    #[error(
        "{winner} has {k} in a row but O has as many marks as X; the winner must have moved last"
    )]
    WinnerDidNotMoveLast {
        /// The player with the line.
        winner: Player,
        /// The win length.
        k: u32,
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

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cells(f, self.cols, &self.cells)
    }
}

impl From<&Game> for Setup {
    fn from(game: &Game) -> Setup {
        Setup {
            rows: game.rules().rows(),
            cols: game.rules().cols(),
            cells: game.cells().to_vec(),
        }
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

impl Game {
    /// The game at `setup` with `k` in a row to win, X having moved first.
    ///
    /// The player to move follows from the mark counts. A position that is
    /// already won or drawn gives a finished game.
    ///
    /// # Errors
    /// A `k` that does not fit the board, mark counts that alternate play
    /// cannot give, two winners, a winner who did not move last, or winning
    /// lines that no single last move could have completed.
    pub fn from_setup(setup: &Setup, k: u32) -> Result<Game, PositionError> {
        let rules = Rules::new(setup.rows, setup.cols, k)?;
        let x = setup
            .cells
            .iter()
            .filter(|&&c| c == Some(Player::X))
            .count();
        let o = setup
            .cells
            .iter()
            .filter(|&&c| c == Some(Player::O))
            .count();
        let to_move = if x == o {
            Player::X
        } else if x == o + 1 {
            Player::O
        } else {
            return Err(PositionError::MarkCounts { x, o });
        };
        let unchecked = Game::from_parts(rules, setup.cells.clone(), to_move, None, None);
        let lines = unchecked.scan_lines();
        let Some(&(winner, _)) = lines.first() else {
            let outcome = unchecked.is_full().then_some(Outcome::Draw);
            return Ok(Game::from_parts(
                rules,
                setup.cells.clone(),
                to_move,
                outcome,
                None,
            ));
        };
        if lines.iter().any(|&(p, _)| p != winner) {
            return Err(PositionError::TwoWinners { k });
        }
        if winner != to_move.other() {
            return Err(PositionError::WinnerDidNotMoveLast { winner, k });
        }
        let last = last_move_candidates(k, &lines).ok_or(PositionError::DisjointWins { winner })?;
        // Report the run through the last move as play would have found it:
        // the first direction in `Direction::ALL` order (every line holds
        // `last`), clipped to k-1 cells either side of it.
        let first_direction = lines
            .iter()
            .map(|&(_, l)| l)
            .min_by_key(|l| Direction::ALL.iter().position(|&d| d == l.direction))
            .expect("at least one line");
        let line = clip_to_window(first_direction, last, k);
        Ok(Game::from_parts(
            rules,
            setup.cells.clone(),
            to_move,
            Some(Outcome::Win(winner)),
            Some(line),
        ))
    }

    /// Read a position in oxo's notation, with `k` in a row to win.
    ///
    /// ```
    /// use oxo_core::{Game, Player};
    ///
    /// let game = Game::from_notation("X.O/.X./..O", 3).unwrap();
    /// assert_eq!(game.to_move(), Player::X);
    /// assert_eq!(game.to_string(), "X.O/.X./..O");
    /// assert!(Game::from_notation("XXX/OOO/...", 3).is_err()); // two winners
    /// ```
    ///
    /// # Errors
    /// [`NotationError::Syntax`] for text that is not a board,
    /// [`NotationError::Illegal`] for a board play cannot reach.
    pub fn from_notation(text: &str, k: u32) -> Result<Game, NotationError> {
        let setup: Setup = text.parse()?;
        Ok(Game::from_setup(&setup, k)?)
    }
}

/// A cell that lies in every k-window of every line: the only cells that
/// could have been the last move. `None` if there is none.
fn last_move_candidates(k: u32, lines: &[(Player, Line)]) -> Option<Cell> {
    let mut candidates: Vec<Cell> = core_cells(lines[0].1, k).collect();
    for &(_, line) in &lines[1..] {
        candidates.retain(|&c| core_cells(line, k).any(|d| d == c));
    }
    candidates.first().copied()
}

/// The cells of `line` shared by all its k-cell windows: empty when the line
/// is 2k or longer, so no one move can have made it.
fn core_cells(line: Line, k: u32) -> impl Iterator<Item = Cell> {
    let skip = line.len - k;
    line.cells()
        .skip(skip as usize)
        .take(k.saturating_sub(skip) as usize)
}

/// The part of `line` within k−1 cells of `cell`, as play reports it.
fn clip_to_window(line: Line, cell: Cell, k: u32) -> Line {
    let offset = line.cells().position(|c| c == cell).unwrap_or(0) as u32;
    let first = offset.saturating_sub(k - 1);
    let last = (offset + k - 1).min(line.len - 1);
    Line {
        start: line.cells().nth(first as usize).unwrap_or(line.start),
        direction: line.direction,
        len: last - first + 1,
    }
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

    #[test]
    fn turn_follows_counts() {
        assert_eq!(
            Game::from_notation(".../.../...", 3).unwrap().to_move(),
            Player::X
        );
        assert_eq!(
            Game::from_notation("X../.../...", 3).unwrap().to_move(),
            Player::O
        );
        assert_eq!(
            Game::from_notation("XX./.../...", 3),
            Err(NotationError::Illegal(PositionError::MarkCounts {
                x: 2,
                o: 0
            }))
        );
        assert_eq!(
            Game::from_notation("O../.../...", 3),
            Err(NotationError::Illegal(PositionError::MarkCounts {
                x: 0,
                o: 1
            }))
        );
    }

    #[test]
    fn legality_of_won_positions() {
        let won = Game::from_notation("XXX/OO./...", 3).unwrap();
        assert_eq!(won.outcome(), Some(Outcome::Win(Player::X)));
        assert!(won.winning_line().is_some());
        assert!(matches!(
            Game::from_notation("XXX/OOO/X..", 3),
            Err(NotationError::Illegal(PositionError::TwoWinners { k: 3 }))
        ));
        assert!(matches!(
            Game::from_notation("XXX/OO./..O", 3),
            Err(NotationError::Illegal(
                PositionError::WinnerDidNotMoveLast { .. }
            ))
        ));
        // Two X lines that cross at the corner: one last move made both.
        let fork = Game::from_notation("XXX/XOO/XOO", 3).unwrap();
        assert_eq!(fork.outcome(), Some(Outcome::Win(Player::X)));
        // Two parallel X lines cannot come from one move.
        assert!(matches!(
            Game::from_notation("XXX..../......./XXX..../OO.OO../O......", 3),
            Err(NotationError::Illegal(PositionError::DisjointWins {
                winner: Player::X
            }))
        ));
        assert!(matches!(
            Game::from_notation("XXX/OO./...", 4),
            Err(NotationError::Illegal(PositionError::Rules(_)))
        ));
    }

    #[test]
    fn a_double_line_reads_back_as_play_reported_it() {
        let mut played = Game::default();
        for (r, c) in [
            (0, 2),
            (0, 0),
            (1, 2),
            (1, 0),
            (2, 0),
            (1, 1),
            (2, 1),
            (0, 1),
            (2, 2),
        ] {
            played.play(Cell::new(r, c)).unwrap();
        }
        let parsed = Game::from_notation("OOX/OOX/XXX", 3).unwrap();
        assert_eq!(
            parsed.winning_line().unwrap().direction,
            Direction::Horizontal
        );
        assert_eq!(parsed, played);
    }

    #[test]
    fn full_board_is_a_draw() {
        let game = Game::from_notation("XOX/XOO/OXX", 3).unwrap();
        assert_eq!(game.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn long_runs_need_a_shared_window() {
        // Five in a row with k=3: the middle cell is in every window.
        let ok = Game::from_notation("XXXXX/OO.../OO.../.....", 3).unwrap();
        let line = ok.winning_line().unwrap();
        assert!(line.contains(Cell::new(0, 2)));
        // Six in a row with k=3: no single cell is in every window.
        assert!(matches!(
            Game::from_notation("XXXXXX/OO.OO./O.....", 3),
            Err(NotationError::Illegal(PositionError::DisjointWins { .. }))
        ));
    }
}
