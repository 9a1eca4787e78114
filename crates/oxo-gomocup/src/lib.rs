//! The Gomocup engine protocol (the Piskvork protocol: a manager talks to
//! an engine, a "brain", one command a line over its standard input and
//! output), both sides of it:
//!
//! - [`brain`]: oxo's players as a brain ([`Brain`], [`brain::run`]), so
//!   gomoku managers and GUIs can run oxo like any other engine
//!   (`oxo brain`).
//! - [`manager`]: an external brain as an oxo player ([`External`], an
//!   [`oxo_ai::Strategy`]), so oxo's arena can referee it (`oxo arena --x
//!   brain:PATH`).
//! - [`psq`]: Piskvork's game record, the `.psq` file, of a game an arena
//!   played (`oxo arena --psq DIR`).
//! - [`log`]: what the arena and its engines said to each other, their
//!   standard error too (`oxo arena --engine-log FILE`).
//!
//! Coordinates are the protocol's: `X,Y` is the column and the row, both
//! from 0, where oxo's own [`Cell`] is (row, column).
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Instant;
//!
//! use oxo_ai::StrategyKind;
//! use oxo_gomocup::{Brain, brain};
//!
//! // The rule-based player as a brain, on a clock of the caller's choosing.
//! let build = |rules| StrategyKind::Rules.build(rules, 1).map_err(|e| e.to_string());
//! let mut brain = Brain::new(Box::new(build), Arc::new(Instant::now), "rules");
//! let mut out = Vec::new();
//! brain::run(&mut brain, &b"START 15\nBOARD\n7,7,2\nDONE\nEND\n"[..], &mut out)?;
//! let answers = String::from_utf8(out).unwrap();
//! let mut lines = answers.lines();
//! assert_eq!(lines.next(), Some("OK"));
//! // Its move: a free cell, X,Y from 0 to 14.
//! let (x, y) = lines.next().unwrap().split_once(',').unwrap();
//! let (x, y): (u32, u32) = (x.parse().unwrap(), y.parse().unwrap());
//! assert!(x < 15 && y < 15 && (x, y) != (7, 7));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Whose stones are whose in `BOARD`
//! `BOARD` gives a whole position, one `X,Y,FIELD` line a stone (field 1:
//! the brain's own, 2: its opponent's), then `DONE`. Gomocup managers list
//! the stones in the order they were played, and some brains rely on it to
//! tell who began (and so which colour is theirs). Both sides here keep to
//! that:
//!
//! - The manager side ([`manager::board`]) sends the stones in the order
//!   played: those the engine saw played (its own moves and the `TURN`s it
//!   was told) in that order; an arena's opening, placed before its first
//!   move, in the order the arena played it (handed over by
//!   [`oxo_ai::Strategy::start_from`], since an [`oxo_core::Game`] keeps no
//!   move history). Only stones of which neither is known (a position
//!   given with no history) follow in turn order, the two sides
//!   alternating so that the opponent's stone comes last, each side's in
//!   board order.
//! - The brain side reads the fields, not the order, to know whose stone
//!   is whose, and rebuilds the game by alternating the two sides' stones,
//!   each side's in the order listed: whoever has one stone more began,
//!   and with as many each the brain began (it is to move). A position in
//!   which the brain cannot be the player to move (two stones more for one
//!   side, or more for the brain) is refused with `ERROR`. A `TAKEBACK`
//!   after a `BOARD` takes back the last stone of that rebuilt order.

#![warn(missing_docs)]

pub mod brain;
pub mod log;
pub mod manager;
pub mod psq;

pub use brain::{Brain, ExactlyK, K};
pub use log::{EngineLog, EngineLogger};
pub use manager::{EngineError, External};

use oxo_core::{BoardSize, Cell, Coords, Integer, Rules};

/// Whether `rules` are Gomocup's game: five in a row ([`K`]) on a board of
/// at least five a side, which engines play and `.psq` files describe.
#[must_use]
pub fn is_gomoku(rules: Rules) -> bool {
    rules.k() == K && rules.rows() >= K && rules.cols() >= K
}

/// A point as the protocol writes it, `X,Y` with X the column, read as a
/// cell's coordinates: the syntax only, which [`Coords::to_cell`] then
/// checks against the board. `None` unless it is two integers, neither
/// negative (the protocol has no signed coordinates), and one comma.
#[must_use]
pub fn read_point(text: &str) -> Option<Coords> {
    let written = Coords::from_comma_pair(text).ok()?;
    (written.row >= 0 && written.col >= 0).then(|| Coords::new(written.col, written.row))
}

/// Why an opening book was refused: the line (from 1) and what is wrong
/// with it, the offsets as numbers (a `+` and leading zeros dropped, however
/// many digits they have).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    /// A field that is not an integer.
    #[error("line {line}: {field:?} is not an offset")]
    NotAnOffset {
        /// The line.
        line: usize,
        /// The field.
        field: String,
    },
    /// A line with no stone.
    #[error("line {line}: no stone: X,Y pairs wanted")]
    NoStone {
        /// The line.
        line: usize,
    },
    /// A line whose offsets do not pair up.
    #[error("line {line}: an odd number of offsets: X,Y pairs wanted")]
    OddOffsets {
        /// The line.
        line: usize,
    },
    /// A stone off the board.
    #[error("line {line}: {x},{y} is off the {size} board from its centre")]
    OffBoard {
        /// The line.
        line: usize,
        /// The column's offset.
        x: String,
        /// The row's offset.
        y: String,
        /// The board.
        size: BoardSize,
    },
    /// Two stones on one cell.
    #[error("line {line}: {x},{y} is played twice")]
    Twice {
        /// The line.
        line: usize,
        /// The column's offset.
        x: String,
        /// The row's offset.
        y: String,
    },
    /// No opening at all.
    #[error("no opening in it")]
    Empty,
}

/// An opening book in the offset form Gomocup tools use (c-gomoku-cli's
/// `offset` openings): one opening a line, its stones in the order played
/// as `X,Y` pairs of offsets from the centre stone (`cols / 2`, `rows /
/// 2`), X the column, all separated by commas and spaces (`0,0, 1,-1,
/// -2,1`). Blank lines and lines starting with `#` are skipped, and a
/// byte-order mark before the first. Checked against the board here;
/// whether each leaves a game to play is the arena's check.
///
/// # Errors
/// A line that is not pairs of integers, has none, puts a stone off the
/// board or two on one cell; a book with no opening.
pub fn read_openings(text: &str, rules: Rules) -> Result<Vec<Vec<Cell>>, OpeningsError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut openings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_number = n + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let numbers = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|field| !field.is_empty())
            .map(|field| {
                Integer::parse(field).ok_or_else(|| OpeningsError::NotAnOffset {
                    line: line_number,
                    field: field.to_owned(),
                })
            })
            .collect::<Result<Vec<Integer>, OpeningsError>>()?;
        if numbers.is_empty() {
            return Err(OpeningsError::NoStone { line: line_number });
        }
        if numbers.len() % 2 == 1 {
            return Err(OpeningsError::OddOffsets { line: line_number });
        }
        let (centre_row, centre_col) = (i64::from(rules.rows() / 2), i64::from(rules.cols() / 2));
        let mut cells: Vec<Cell> = Vec::with_capacity(numbers.len() / 2);
        for pair in numbers.chunks(2) {
            let (x, y) = (|| pair[0].to_string(), || pair[1].to_string());
            let cell = Coords::new(
                centre_row.saturating_add(pair[1].saturating_i64()),
                centre_col.saturating_add(pair[0].saturating_i64()),
            )
            .to_cell(rules)
            .map_err(|_| OpeningsError::OffBoard {
                line: line_number,
                x: x(),
                y: y(),
                size: rules.size(),
            })?;
            if cells.contains(&cell) {
                return Err(OpeningsError::Twice {
                    line: line_number,
                    x: x(),
                    y: y(),
                });
            }
            cells.push(cell);
        }
        openings.push(cells);
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(openings)
}

/// `cell` as the protocol writes it: `X,Y`, the column first.
#[must_use]
pub fn write_point(cell: Cell) -> String {
    format!("{},{}", cell.col, cell.row)
}
