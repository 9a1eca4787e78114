//! Game-theoretic values: win, draw or loss, and how far away.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Neg;

/// The result of perfect play, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

impl Value {
    /// The value of a finished game for the player to move: a loss when
    /// the game was won (by the other player, who moved last), a draw when
    /// it was drawn; `None` while the game is still being played.
    #[must_use]
    pub fn of_finished(game: &oxo_core::Game) -> Option<Value> {
        game.outcome().map(|outcome| match outcome {
            oxo_core::Outcome::Win(_) => Value::Loss,
            oxo_core::Outcome::Draw => Value::Draw,
        })
    }

    /// `"win"`, `"draw"` or `"loss"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }

    /// +1, 0 or −1.
    #[must_use]
    pub const fn sign(self) -> i8 {
        match self {
            Value::Win => 1,
            Value::Draw => 0,
            Value::Loss => -1,
        }
    }
}

/// The same position seen by the other player.
impl Neg for Value {
    type Output = Value;

    fn neg(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Draw => Value::Draw,
            Value::Loss => Value::Win,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value and the number of plies (single moves) to the end of the game
/// when both sides play perfectly: the winner as fast as possible, the loser
/// as slowly as possible. A drawn game ends when the board is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Eval {
    /// Win, draw or loss for the player to move.
    pub value: Value,
    /// Plies to the end under perfect play.
    pub plies: u32,
}

impl Eval {
    /// The evaluation one ply earlier, from the mover's side: the value
    /// negates and the game lasts one ply longer.
    #[must_use]
    pub fn parent(self) -> Eval {
        Eval {
            value: -self.value,
            plies: self.plies + 1,
        }
    }

    /// A score that orders evaluations from the mover's point of view:
    /// faster wins above slower ones, every win above a draw, slower losses
    /// above faster ones.
    #[must_use]
    pub const fn score(self) -> i64 {
        match self.value {
            Value::Win => 1_000_000 - self.plies as i64,
            Value::Draw => 0,
            Value::Loss => -1_000_000 + self.plies as i64,
        }
    }
}

impl PartialOrd for Eval {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Better for the player to move is greater.
impl Ord for Eval {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score()
            .cmp(&other.score())
            .then(self.plies.cmp(&other.plies))
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}", self.value, self.plies)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Value {
    /// `"win"`, `"draw"` or `"loss"`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_game_is_lost_or_drawn_for_the_player_to_move() {
        let of = |text| Value::of_finished(&oxo_core::Game::from_notation(text, 3).unwrap());
        assert_eq!(of("XXX/OO./..."), Some(Value::Loss));
        assert_eq!(of("XOX/XOO/OXX"), Some(Value::Draw));
        assert_eq!(of("XX./OO./..."), None);
    }

    #[test]
    fn negation_and_order() {
        assert_eq!(-Value::Win, Value::Loss);
        assert_eq!(-Value::Draw, Value::Draw);
        let win1 = Eval {
            value: Value::Win,
            plies: 1,
        };
        let win5 = Eval {
            value: Value::Win,
            plies: 5,
        };
        let draw = Eval {
            value: Value::Draw,
            plies: 4,
        };
        let loss2 = Eval {
            value: Value::Loss,
            plies: 2,
        };
        let loss6 = Eval {
            value: Value::Loss,
            plies: 6,
        };
        let mut all = [loss2, win5, draw, loss6, win1];
        all.sort();
        assert_eq!(all, [loss2, loss6, draw, win5, win1]);
        assert_eq!(
            win1.parent(),
            Eval {
                value: Value::Loss,
                plies: 2
            }
        );
    }
}
