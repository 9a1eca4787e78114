//! Cells as people and programs write them, read in two stages.
//!
//! Text from outside (a console line, a command stream, an engine's answer,
//! a URL) names a cell by two integers that may be anything: negative,
//! huge, or off this board. Reading is split the way shakmaty splits
//! `UciMove` from `Move`:
//!
//! 1. **Syntax**: [`Coords`] (from [`str::parse`], [`Coords::from_tokens`]
//!    or [`Coords::from_comma_pair`]) accepts any two integers, saturating
//!    to `i64`, and refuses only text that is not two integers
//!    ([`CoordsError`]).
//! 2. **Legality**: [`Coords::to_cell`] checks them against a board and
//!    refuses them with the game's own [`MoveError::OffBoard`];
//!    [`Game::play_at`](crate::Game::play_at) does the same on the way to
//!    a move, so the text front ends share one error for "no such cell".
//!
//! ```
//! use oxo_core::{Cell, Coords, MoveError, Rules};
//!
//! let rules = Rules::default();
//! let coords: Coords = "1 2".parse()?;
//! assert_eq!(coords.to_cell(rules), Ok(Cell::new(1, 2)));
//!
//! // Well formed, but not on a 3x3 board: the move's error, not a syntax error.
//! let far: Coords = "7 99999999999999999999".parse()?;
//! assert_eq!(far.to_cell(rules), Err(MoveError::OffBoard { row: 7, col: i64::MAX }));
//!
//! assert!("1".parse::<Coords>().is_err());
//! assert_eq!(Coords::from_comma_pair(" 4, 5 "), Ok(Coords::new(4, 5)));
//! # Ok::<(), oxo_core::CoordsError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::game::MoveError;
use crate::rules::{Cell, Rules};

/// An integer as written in untrusted text: an optional sign and ASCII
/// decimal digits, of any length.
///
/// The digits are kept as text, so a number too large for any integer type
/// still reads, and still prints as written (less its `+` and leading
/// zeros); [`Integer::saturating_i64`] clamps it for comparison, where every
/// value beyond `i64` is off every board anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Integer<'a> {
    negative: bool,
    /// Digits without leading zeros; `"0"` for zero.
    digits: &'a str,
}

impl<'a> Integer<'a> {
    /// Read `text` (no surrounding whitespace): `[+-]?[0-9]+`.
    #[must_use]
    pub fn parse(text: &'a str) -> Option<Integer<'a>> {
        let (negative, digits) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        let digits = if trimmed.is_empty() { "0" } else { trimmed };
        Some(Integer {
            negative: negative && digits != "0",
            digits,
        })
    }

    /// The value, clamped to the `i64` range.
    #[must_use]
    pub fn saturating_i64(&self) -> i64 {
        // At most 19 digits fit; parse() fails only beyond that.
        match self.digits.parse::<i64>() {
            Ok(v) if self.negative => -v,
            Ok(v) => v,
            Err(_) if self.negative => i64::MIN,
            Err(_) => i64::MAX,
        }
    }
}

/// The canonical spelling: no `+`, no leading zeros, no `-0`.
impl fmt::Display for Integer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        f.write_str(self.digits)
    }
}

/// A cell as written: a row and a column counted from 0, not yet checked
/// against any board.
///
/// Values beyond `i64` saturate, so text never overflows on its way to the
/// legality check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coords {
    /// The row, counted from the top.
    pub row: i64,
    /// The column, counted from the left.
    pub col: i64,
}

/// Why text does not name a cell.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoordsError {
    /// Not exactly two parts.
    #[error("expected a row and a column, found {found} part(s)")]
    Parts {
        /// How many parts the text had.
        found: usize,
    },
    /// A part that is not an integer.
    #[error("{text:?} is not an integer")]
    NotInteger {
        /// The part, as written.
        text: String,
    },
}

impl Coords {
    /// The coordinates `row`, `col`.
    #[must_use]
    pub const fn new(row: i64, col: i64) -> Coords {
        Coords { row, col }
    }

    /// Two integer tokens, the row's then the column's, already split from
    /// their line by the caller's own rule (each text contract splits its
    /// lines its own way).
    ///
    /// # Errors
    /// [`CoordsError::NotInteger`] for a token that is not
    /// `[+-]?[0-9]+`.
    pub fn from_tokens(row: &str, col: &str) -> Result<Coords, CoordsError> {
        let read = |text: &str| {
            Integer::parse(text)
                .map(|n| n.saturating_i64())
                .ok_or_else(|| CoordsError::NotInteger {
                    text: text.to_owned(),
                })
        };
        Ok(Coords::new(read(row)?, read(col)?))
    }

    /// `A,B`: two integers joined by one comma, each with optional
    /// whitespace around it, as the web API's move lists and the Gomocup
    /// protocol write them. The parts are returned in the order written;
    /// Gomocup's `X,Y` is a column first, which its caller swaps.
    ///
    /// # Errors
    /// [`CoordsError::Parts`] without exactly one comma,
    /// [`CoordsError::NotInteger`] for a part that is not an integer.
    pub fn from_comma_pair(text: &str) -> Result<Coords, CoordsError> {
        let mut parts = text.split(',');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) => Coords::from_tokens(a.trim(), b.trim()),
            _ => Err(CoordsError::Parts {
                found: text.split(',').count(),
            }),
        }
    }

    /// The cell these coordinates name on `rules`' board.
    ///
    /// # Errors
    /// [`MoveError::OffBoard`] with these numbers when they are not on it.
    pub fn to_cell(self, rules: Rules) -> Result<Cell, MoveError> {
        rules.cell(self.row, self.col).ok_or(MoveError::OffBoard {
            row: self.row,
            col: self.col,
        })
    }
}

impl From<Cell> for Coords {
    fn from(cell: Cell) -> Coords {
        Coords::new(cell.row.into(), cell.col.into())
    }
}

/// `ROW COL`: exactly two integers separated by whitespace, with any
/// whitespace around them (the console's move syntax).
impl FromStr for Coords {
    type Err = CoordsError;

    fn from_str(text: &str) -> Result<Coords, CoordsError> {
        let mut parts = text.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(row), Some(col), None) => Coords::from_tokens(row, col),
            _ => Err(CoordsError::Parts {
                found: text.split_whitespace().count(),
            }),
        }
    }
}

/// `ROW COL`, as [`FromStr`] reads it.
impl fmt::Display for Coords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.row, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_any_size_read() {
        let i = |s| Integer::parse(s).map(|n| (n.saturating_i64(), n.to_string()));
        assert_eq!(i("7"), Some((7, "7".into())));
        assert_eq!(i("+007"), Some((7, "7".into())));
        assert_eq!(i("-0"), Some((0, "0".into())));
        assert_eq!(i("-12"), Some((-12, "-12".into())));
        assert_eq!(
            i("99999999999999999999999"),
            Some((i64::MAX, "99999999999999999999999".into()))
        );
        assert_eq!(i("-99999999999999999999999").map(|p| p.0), Some(i64::MIN));
        assert_eq!(i("-9223372036854775807").map(|p| p.0), Some(i64::MIN + 1));
        for bad in ["", "-", "+", "1.0", "1e3", "0x10", " 1", "١"] {
            assert_eq!(Integer::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn syntax_then_legality() {
        let rules = Rules::new(3, 4, 3).unwrap();
        for (text, row, col) in [("0 3", 0, 3), ("  2\t+0 ", 2, 0), ("-1 1", -1, 1)] {
            assert_eq!(text.parse(), Ok(Coords::new(row, col)), "{text:?}");
        }
        assert_eq!(Coords::new(0, 3).to_cell(rules), Ok(Cell::new(0, 3)));
        assert_eq!(
            Coords::new(-1, 1).to_cell(rules),
            Err(MoveError::OffBoard { row: -1, col: 1 })
        );
        assert_eq!(
            Coords::new(3, 0).to_cell(rules),
            Err(MoveError::OffBoard { row: 3, col: 0 })
        );
        for (text, err) in [
            ("", CoordsError::Parts { found: 0 }),
            ("1", CoordsError::Parts { found: 1 }),
            ("1 2 3", CoordsError::Parts { found: 3 }),
            (
                "1 x",
                CoordsError::NotInteger {
                    text: "x".to_owned(),
                },
            ),
            ("1,2", CoordsError::Parts { found: 1 }),
        ] {
            assert_eq!(text.parse::<Coords>(), Err(err), "{text:?}");
        }
    }

    #[test]
    fn comma_pairs() {
        assert_eq!(Coords::from_comma_pair("3,4"), Ok(Coords::new(3, 4)));
        assert_eq!(Coords::from_comma_pair(" 3 , -4 "), Ok(Coords::new(3, -4)));
        assert_eq!(
            Coords::from_comma_pair("3,4,5"),
            Err(CoordsError::Parts { found: 3 })
        );
        assert_eq!(
            Coords::from_comma_pair("3 4"),
            Err(CoordsError::Parts { found: 1 })
        );
        assert!(Coords::from_comma_pair("3,").is_err());
    }

    #[test]
    fn round_trips_through_text() {
        for coords in [Coords::new(0, 0), Coords::new(-5, i64::MAX)] {
            assert_eq!(coords.to_string().parse(), Ok(coords));
        }
        assert_eq!(Coords::from(Cell::new(2, 7)), Coords::new(2, 7));
    }
}
