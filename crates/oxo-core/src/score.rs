//! A scoreboard across rounds, fed by game-over events.

use std::fmt;

use crate::game::Outcome;
use crate::player::Player;

/// Wins and draws over a series of rounds.
///
/// It only hears about games through [`Outcome`]s, the game-over events
/// that [`MoveResult::outcome`](crate::MoveResult::outcome) and
/// [`Game::outcome`](crate::Game::outcome) give: games know nothing about
/// scoreboards.
///
/// ```
/// use oxo_core::{Outcome, Player, Scoreboard};
///
/// let mut score = Scoreboard::default();
/// score.record(Outcome::Win(Player::O));
/// score.record(Outcome::Draw);
/// assert_eq!(score.wins(Player::O), 1);
/// assert_eq!(score.to_string(), "X 0, O 1, draws 1");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Scoreboard {
    wins: [u64; 2],
    draws: u64,
}

impl Scoreboard {
    /// A scoreboard that has already counted these results (one kept in a
    /// file or database, say).
    #[must_use]
    pub const fn from_counts(x_wins: u64, o_wins: u64, draws: u64) -> Scoreboard {
        Scoreboard {
            wins: [x_wins, o_wins],
            draws,
        }
    }

    /// Count one finished game.
    pub fn record(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win(p) => self.wins[p.index()] += 1,
            Outcome::Draw => self.draws += 1,
        }
    }

    /// Games won by `player`.
    #[must_use]
    pub const fn wins(&self, player: Player) -> u64 {
        self.wins[player.index()]
    }

    /// Drawn games.
    #[must_use]
    pub const fn draws(&self) -> u64 {
        self.draws
    }

    /// Games recorded.
    #[must_use]
    pub const fn games(&self) -> u64 {
        self.wins[0] + self.wins[1] + self.draws
    }
}

impl fmt::Display for Scoreboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "X {}, O {}, draws {}",
            self.wins[0], self.wins[1], self.draws
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cell, Game};

    #[test]
    fn records_events_from_real_games() {
        let mut score = Scoreboard::default();
        let mut game = Game::default();
        for cell in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)] {
            let result = game.play(Cell::new(cell.0, cell.1)).unwrap();
            if let Some(outcome) = result.outcome() {
                score.record(outcome);
            }
        }
        assert_eq!(score.wins(Player::X), 1);
        assert_eq!(score.games(), 1);
        score.record(Outcome::Draw);
        assert_eq!(score.draws(), 1);
        assert_eq!(score.to_string(), "X 1, O 0, draws 1");
    }
}
