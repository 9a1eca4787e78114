//! A series of rounds between two sides: the round being played, who
//! starts it, and the score of the rounds finished.

use crate::game::{Game, Outcome};
use crate::player::Player;
use crate::rules::Rules;
use crate::score::Scoreboard;

/// Rounds played one after another by the same two sides, the starter
/// alternating: the web game's rooms and both terminal front ends count
/// their rounds with it.
///
/// A series knows nothing of the moves of a round, only which round it is,
/// who starts it and what the finished rounds scored. Rounds given up
/// before their end go to the next round without a score.
///
/// ```
/// use oxo_core::{Outcome, Player, Rules, Series};
///
/// let mut series = Series::new(Player::X);
/// let game = series.game(Rules::default());
/// assert_eq!(game.to_move(), Player::X);
///
/// series.finish_round(Outcome::Win(Player::X));
/// assert_eq!((series.round(), series.starter()), (2, Player::O));
/// assert_eq!(series.score().wins(Player::X), 1);
/// assert_eq!(series.mover(0), Player::O);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Series {
    round: u32,
    starter: Player,
    score: Scoreboard,
}

impl Series {
    /// Round 1, started by `first`, nothing scored.
    #[must_use]
    pub const fn new(first: Player) -> Series {
        Series::resume(1, first, Scoreboard::from_counts(0, 0, 0))
    }

    /// A series already under way (read back from a store, say): `round`
    /// (from 1) being played, started by `starter`, after rounds that
    /// scored `score`.
    #[must_use]
    pub const fn resume(round: u32, starter: Player, score: Scoreboard) -> Series {
        Series {
            round,
            starter,
            score,
        }
    }

    /// The round being played, from 1.
    #[must_use]
    pub const fn round(&self) -> u32 {
        self.round
    }

    /// Who makes the first move of the current round.
    #[must_use]
    pub const fn starter(&self) -> Player {
        self.starter
    }

    /// The finished rounds' results.
    #[must_use]
    pub const fn score(&self) -> Scoreboard {
        self.score
    }

    /// The current round's empty board, `starter` to move.
    #[must_use]
    pub fn game(&self, rules: Rules) -> Game {
        Game::starting_with(rules, self.starter)
    }

    /// Who started round `round` (from 1), or starts it: the starters
    /// alternate, so it follows from the current round's.
    #[must_use]
    pub const fn starter_of(&self, round: u32) -> Player {
        if self.round.abs_diff(round).is_multiple_of(2) {
            self.starter
        } else {
            self.starter.other()
        }
    }

    /// Who makes the current round's move number `ply` (from 0).
    #[must_use]
    pub const fn mover(&self, ply: usize) -> Player {
        if ply.is_multiple_of(2) {
            self.starter
        } else {
            self.starter.other()
        }
    }

    /// Score the current round's `outcome`, without starting the next one
    /// (a finished round stays on show until someone asks for more).
    pub fn record(&mut self, outcome: Outcome) {
        self.score.record(outcome);
    }

    /// Go on to the next round, the other side starting. A round that did
    /// not end is not scored.
    pub fn next_round(&mut self) {
        self.round = self.round.saturating_add(1);
        self.starter = self.starter.other();
    }

    /// [`record`](Series::record) `outcome`, then
    /// [`next_round`](Series::next_round).
    pub fn finish_round(&mut self, outcome: Outcome) {
        self.record(outcome);
        self.next_round();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starters_alternate_and_only_finished_rounds_score() {
        let mut series = Series::new(Player::O);
        let mut starters = Vec::new();
        for round in 1..=4 {
            assert_eq!(series.round(), round);
            starters.push(series.starter());
            if round == 2 {
                series.next_round(); // abandoned: not scored
            } else {
                series.finish_round(Outcome::Draw);
            }
        }
        assert_eq!(starters, [Player::O, Player::X, Player::O, Player::X]);
        assert_eq!(series.score(), Scoreboard::from_counts(0, 0, 3));
        assert_eq!(series.round(), 5);
        let past: Vec<_> = (1..=5).map(|round| series.starter_of(round)).collect();
        assert_eq!(
            past,
            [Player::O, Player::X, Player::O, Player::X, Player::O]
        );
    }

    #[test]
    fn movers_follow_the_starter() {
        let series = Series::resume(7, Player::O, Scoreboard::default());
        let game = series.game(Rules::default());
        assert_eq!(game.to_move(), Player::O);
        assert_eq!(
            (0..4).map(|ply| series.mover(ply)).collect::<Vec<_>>(),
            [Player::O, Player::X, Player::O, Player::X]
        );
    }
}
