//! A game with the moves that made it: what taking moves back needs, since
//! a [`Game`] keeps no history of its own.

use crate::{Cell, Game, MoveError, MoveResult, Player};

/// A game and the moves played in it since the position it started from.
///
/// ```
/// use oxo_core::{Cell, Game, History, Player, Rules};
///
/// let mut round = History::new(Game::new(Rules::TIC_TAC_TOE));
/// round.play(Cell::new(1, 1))?;
/// round.play(Cell::new(0, 0))?;
/// assert_eq!(round.last_move_of(Player::X), Some(0));
/// round.truncate(1);
/// assert_eq!(round.game().to_string(), ".../.X./...");
/// assert_eq!(round.undo(), Some(Cell::new(1, 1)));
/// assert_eq!(round.game(), round.start());
/// # Ok::<(), oxo_core::MoveError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    start: Game,
    game: Game,
    moves: Vec<Cell>,
}

impl History {
    /// No move yet, from `start`.
    #[must_use]
    pub fn new(start: Game) -> History {
        History {
            game: start.clone(),
            start,
            moves: Vec::new(),
        }
    }

    /// The position the moves start from.
    #[must_use]
    pub const fn start(&self) -> &Game {
        &self.start
    }

    /// The position the moves have made.
    #[must_use]
    pub const fn game(&self) -> &Game {
        &self.game
    }

    /// The moves, in order.
    #[must_use]
    pub fn moves(&self) -> &[Cell] {
        &self.moves
    }

    /// Play `cell`, as [`Game::play`] does; a refused move is not kept.
    ///
    /// # Errors
    /// As [`Game::play`].
    pub fn play(&mut self, cell: Cell) -> Result<MoveResult, MoveError> {
        let result = self.game.play(cell)?;
        self.moves.push(cell);
        Ok(result)
    }

    /// Who makes move number `ply` (from 0): the moves alternate from the
    /// start's player to move.
    #[must_use]
    pub const fn mover(&self, ply: usize) -> Player {
        if ply.is_multiple_of(2) {
            self.start.to_move()
        } else {
            self.start.to_move().other()
        }
    }

    /// The number (from 0) of `player`'s last move, if they have made one.
    #[must_use]
    pub fn last_move_of(&self, player: Player) -> Option<usize> {
        (0..self.moves.len())
            .rev()
            .find(|&ply| self.mover(ply) == player)
    }

    /// Keep only the first `keep` moves (all of them if there are fewer):
    /// the game is played again from the start.
    pub fn truncate(&mut self, keep: usize) {
        if keep >= self.moves.len() {
            return;
        }
        self.moves.truncate(keep);
        let mut game = self.start.clone();
        for &cell in &self.moves {
            // Each was checked when it was played, from the same start.
            game.play_unchecked(cell);
        }
        self.game = game;
    }

    /// Take back the last move, if there is one.
    pub fn undo(&mut self) -> Option<Cell> {
        let last = self.moves.last().copied()?;
        self.truncate(self.moves.len() - 1);
        Some(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    #[test]
    fn taking_back_replays_from_the_start_whoever_began() {
        let start = Game::starting_with(Rules::new(3, 4, 3).expect("3x4"), Player::O);
        let mut round = History::new(start.clone());
        let moves = [Cell::new(0, 0), Cell::new(1, 1), Cell::new(0, 1)];
        for cell in moves {
            round.play(cell).expect("legal");
        }
        assert_eq!(round.mover(0), Player::O);
        assert_eq!(round.last_move_of(Player::X), Some(1));
        assert_eq!(round.last_move_of(Player::O), Some(2));
        // A refused move is not kept.
        assert!(round.play(Cell::new(0, 0)).is_err());
        assert_eq!(round.moves(), moves);

        round.truncate(1);
        let mut expected = start.clone();
        expected.play(moves[0]).expect("legal");
        assert_eq!(round.game(), &expected);
        assert_eq!(round.last_move_of(Player::X), None);
        round.truncate(5);
        assert_eq!(round.moves(), &moves[..1]);
        assert_eq!(round.undo(), Some(moves[0]));
        assert_eq!(round.undo(), None);
        assert_eq!(round.game(), &start);
    }
}
