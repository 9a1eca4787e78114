//! The two sides of the game.

use std::fmt;

/// One of the two players, and the mark that player puts on the board.
///
/// Tic-tac-toe needs no separate `Mark` type: a player owns exactly one mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Crosses, who move first unless told otherwise.
    X,
    /// Noughts.
    O,
}

impl Player {
    /// Both players, X first.
    pub const ALL: [Player; 2] = [Player::X, Player::O];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// The mark as a character: `'X'` or `'O'`.
    #[must_use]
    pub const fn as_char(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }

    /// The player whose mark is `c`, accepting either case.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Player> {
        match c {
            'X' | 'x' => Some(Player::X),
            'O' | 'o' => Some(Player::O),
            _ => None,
        }
    }

    /// The side's name where oxo writes it for programs (JSON, stored
    /// records): `"x"` or `"o"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Player::X => "x",
            Player::O => "o",
        }
    }

    /// The side `text` names: `"x"` or `"o"`, in either case.
    #[must_use]
    pub fn from_name(text: &str) -> Option<Player> {
        match text {
            "x" | "X" => Some(Player::X),
            "o" | "O" => Some(Player::O),
            _ => None,
        }
    }

    /// 0 for X, 1 for O: handy for arrays indexed by player.
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Player::X => 0,
            Player::O => 1,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::X => "X",
            Player::O => "O",
        })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Player {
    /// `"x"` or `"o"`: [`Player::name`].
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_is_an_involution() {
        for p in Player::ALL {
            assert_ne!(p, p.other());
            assert_eq!(p, p.other().other());
        }
    }

    #[test]
    fn chars_round_trip() {
        for p in Player::ALL {
            assert_eq!(Player::from_char(p.as_char()), Some(p));
            assert_eq!(p.to_string(), p.as_char().to_string());
        }
        assert_eq!(Player::from_char('x'), Some(Player::X));
        assert_eq!(Player::from_char('-'), None);
    }

    #[test]
    fn names_round_trip() {
        for p in Player::ALL {
            assert_eq!(Player::from_name(p.name()), Some(p));
            assert_eq!(Player::from_name(&p.name().to_uppercase()), Some(p));
        }
        assert_eq!(Player::from_name("xo"), None);
        assert_eq!(Player::from_name(""), None);
    }
}
