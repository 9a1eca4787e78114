//! The random player.

use oxo_core::{Cell, Game};
use rand::RngExt;

use crate::{SeededRng, Strategy, rng_from_seed};

/// Plays a uniformly random legal move, from a seeded generator (or any
/// generator passed in), so tests can fix its choices.
#[derive(Clone, Debug)]
pub struct Random<R = SeededRng> {
    rng: R,
}

impl Random {
    /// A random player whose choices are fixed by `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Random {
        Random::with_rng(rng_from_seed(seed))
    }
}

impl<R: rand::Rng> Random<R> {
    /// A random player drawing from `rng`.
    pub fn with_rng(rng: R) -> Random<R> {
        Random { rng }
    }
}

impl<R: rand::Rng + Send> Strategy for Random<R> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        let empty = game.legal_moves().count();
        if empty == 0 {
            return None;
        }
        let pick = self.rng.random_range(0..empty);
        game.legal_moves().nth(pick)
    }

    fn name(&self) -> &str {
        "random"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_core::Rules;

    #[test]
    fn plays_legal_moves_to_the_end() {
        let mut game = Game::new(Rules::new(4, 5, 3).unwrap());
        let mut player = Random::new(7);
        while !game.is_over() {
            let cell = player.choose(&game).unwrap();
            game.play(cell).unwrap();
        }
        assert_eq!(player.choose(&game), None);
    }

    #[test]
    fn same_seed_same_game_different_seed_different_games() {
        let moves = |seed| {
            let mut game = Game::new(Rules::new(5, 5, 4).unwrap());
            let mut player = Random::new(seed);
            let mut moves = Vec::new();
            while let Some(cell) = player.choose(&game) {
                game.play(cell).unwrap();
                moves.push(cell);
            }
            moves
        };
        assert_eq!(moves(1), moves(1));
        let distinct: std::collections::HashSet<_> = (0..10).map(moves).collect();
        assert!(distinct.len() > 5, "seeds should give different games");
    }

    #[test]
    fn covers_every_legal_move() {
        let game = Game::default();
        let mut player = Random::new(3);
        let seen: std::collections::HashSet<_> =
            (0..500).filter_map(|_| player.choose(&game)).collect();
        assert_eq!(seen.len(), 9);
    }
}
