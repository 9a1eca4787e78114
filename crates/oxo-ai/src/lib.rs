//! Computer players for oxo, behind one [`Strategy`] trait, and the solver
//! that makes the perfect one perfect.
//!
//! Every strategy is deterministic given its seed: the same seed and the
//! same game give the same move.
//!
//! Around the players: [`arena`] runs matches between them on every core,
//! [`tournament`] round robins ranked by [`rating`] (Elo), [`curve`] trains
//! a learned player with its learning curve, and [`grade`] grades moves
//! against the solver's perfect play.
//!
//! ```
//! use oxo_ai::StrategyKind;
//! use oxo_core::{Game, Rules};
//!
//! let rules = Rules::default();
//! let mut x = StrategyKind::Perfect.build(rules, 1)?;
//! let mut o = StrategyKind::Random.build(rules, 2)?;
//! let mut game = Game::new(rules);
//! let moves = oxo_ai::play_out(&mut game, &mut x, &mut o)?;
//! assert_eq!(moves.len(), game.move_count());
//! // Perfect play never loses: X (perfect) did not lose to random.
//! assert_ne!(game.outcome().and_then(|o| o.winner()), Some(oxo_core::Player::O));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod alphabeta;
pub mod arena;
mod buckets;
mod catalog;
pub mod checksum;
pub mod curve;
pub mod exact;
pub mod grade;
pub mod hints;
mod kind;
pub mod learned;
mod meter;
mod ntuple;
mod pairing;
mod perfect;
pub mod prover;
mod random;
pub mod rating;
pub mod review;
mod rule_based;
pub mod solver;
mod strategy;
pub mod tournament;
mod value;
mod windows;

pub use alphabeta::{AlphaBeta, Estimate, Score};
pub use catalog::Catalog;
pub use kind::{BuildError, PlayerKind, StrategyKind};
pub use learned::{Learned, Model, ModelError, builtin_model};
pub use perfect::{PERFECT_MAX_SIDE, Perfect};
pub use prover::{ProveError, Prover};
pub use random::Random;
pub use rule_based::RuleBased;
pub use solver::{
    Analysis, MAX_PROOF_NODES, SolveError, Solver, StrongSolution, StrongTableError, certify,
};
pub use strategy::{Clock, Deadline, PlayOutError, Strategy, opening_room, play_out};
pub use value::{Eval, Value};

/// A seedable random number generator, the same on every platform and
/// every run: ChaCha8.
pub type SeededRng = rand::rngs::ChaCha8Rng;

/// The generator for `seed`.
#[must_use]
pub fn rng_from_seed(seed: u64) -> SeededRng {
    rand::SeedableRng::seed_from_u64(seed)
}

/// Checks shared by the strategies' tests.
#[cfg(test)]
pub(crate) mod testing {
    use oxo_core::{Game, Rules};

    use crate::{Random, Strategy};

    /// Play `make(seed)` against a random player on every board, on X's
    /// side for even seeds and O's for odd ones: every move must be legal
    /// ([`crate::play_out`] checks), and no move may be offered once the
    /// game is over.
    pub fn plays_legally_everywhere(
        boards: &[(u32, u32, u32)],
        seeds: u64,
        make: impl Fn(u64) -> Box<dyn Strategy>,
    ) {
        for &(rows, cols, k) in boards {
            let rules = Rules::new(rows, cols, k).unwrap();
            for seed in 0..seeds {
                let mut game = Game::new(rules);
                let mut me = make(seed);
                let mut other = Random::new(seed);
                if seed % 2 == 0 {
                    crate::play_out(&mut game, &mut me, &mut other).unwrap();
                } else {
                    crate::play_out(&mut game, &mut other, &mut me).unwrap();
                }
                assert_eq!(me.choose(&game), None, "{rules}");
            }
        }
        let drawn = Game::from_notation("XOX/XOO/OXX", 3).unwrap();
        assert_eq!(make(0).choose(&drawn), None);
    }

    /// A fixed sequence of 31-bit pseudo-random numbers from `seed` (a
    /// linear congruential generator), for tests that draw positions
    /// without the `rand` crate's version deciding which.
    pub fn random_numbers(mut seed: u64) -> impl FnMut() -> u32 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        }
    }
}
