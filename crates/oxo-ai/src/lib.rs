//! Computer players for oxo, behind one [`Strategy`] trait, and the solver
//! that makes the perfect one perfect.
//!
//! Every strategy is deterministic given its seed: the same seed and the
//! same game give the same move.
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

use std::fmt;
use std::str::FromStr;

use oxo_core::{Cell, Game, Rules};

mod alphabeta;
mod catalog;
pub mod learned;
mod perfect;
mod random;
mod rules;
pub mod solver;
mod value;
mod windows;

pub use alphabeta::AlphaBeta;
pub use catalog::Catalog;
pub use learned::{Learned, Model, ModelError, builtin_model};
pub use perfect::{PERFECT_MAX_SIDE, Perfect};
pub use random::Random;
pub use rules::RuleBased;
pub use solver::{Analysis, SolveError, Solver, StrongSolution};
pub use value::{Eval, Value};

/// A computer player: given a game in progress, choose a move for the
/// player to move.
///
/// The game loop depends only on this trait, so adding a strategy never
/// changes the loop (the seeds' Strategy pattern).
pub trait Strategy: Send {
    /// A legal move for `game.to_move()`, or `None` when the game is over.
    fn choose(&mut self, game: &Game) -> Option<Cell>;

    /// The strategy's name, as `--x`/`--o` spell it.
    fn name(&self) -> &str;
}

impl<S: Strategy + ?Sized> Strategy for Box<S> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        (**self).choose(game)
    }

    fn name(&self) -> &str {
        (**self).name()
    }
}

/// The strategies oxo has, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrategyKind {
    /// A uniformly random legal move.
    Random,
    /// The seeds' rule-based player: win, block, fork or stop a fork, then
    /// the move that adds most to its open lines ([`RuleBased`]).
    Rules,
    /// A heuristic alpha-beta search for boards too large to solve, such as
    /// gomoku ([`AlphaBeta`]).
    AlphaBeta,
    /// Perfect play from the solver: never loses a game that can be held,
    /// wins fastest, loses slowest ([`Perfect`]).
    Perfect,
    /// A value function trained by self-play, played greedily
    /// ([`Learned`]); built in for the boards [`builtin_model`] knows.
    Learned,
}

/// Why a strategy could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// No strategy has this name.
    #[error("unknown strategy {0:?}: choose one of {names}", names = StrategyKind::NAMES.join(", "))]
    Unknown(String),
    /// The strategy cannot play on this board.
    #[error("{strategy} cannot play on a {rules} board: {reason}")]
    Unsupported {
        /// The strategy asked for.
        strategy: StrategyKind,
        /// The board.
        rules: Rules,
        /// Why not.
        reason: String,
    },
}

impl StrategyKind {
    /// Every kind, in the order they are listed in help texts.
    pub const ALL: [StrategyKind; 5] = [
        StrategyKind::Random,
        StrategyKind::Rules,
        StrategyKind::AlphaBeta,
        StrategyKind::Perfect,
        StrategyKind::Learned,
    ];

    /// Every kind's name.
    pub const NAMES: [&'static str; 5] = ["random", "rules", "alphabeta", "perfect", "learned"];

    /// The name `--x`/`--o` accept.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            StrategyKind::Random => "random",
            StrategyKind::Rules => "rules",
            StrategyKind::AlphaBeta => "alphabeta",
            StrategyKind::Perfect => "perfect",
            StrategyKind::Learned => "learned",
        }
    }

    /// Whether this kind can play under `rules`, without building a player
    /// (which for `perfect` means allocating a solver's table).
    ///
    /// # Errors
    /// [`BuildError::Unsupported`], with the reason.
    pub fn check(self, rules: Rules) -> Result<(), BuildError> {
        if self == StrategyKind::Perfect && rules.rows().max(rules.cols()) > PERFECT_MAX_SIDE {
            return Err(BuildError::Unsupported {
                strategy: self,
                rules,
                reason: format!(
                    "perfect play is offered on boards of at most {PERFECT_MAX_SIDE} a side \
                     that the solver can finish quickly; try alphabeta"
                ),
            });
        }
        if self == StrategyKind::Learned && !learned::has_builtin_model(rules) {
            return Err(BuildError::Unsupported {
                strategy: self,
                rules,
                reason: "oxo has no built-in model for this board; train one with `oxo train` \
                         and play it with --model FILE"
                    .to_owned(),
            });
        }
        Ok(())
    }

    /// A player of this kind for games under `rules`, its random choices
    /// fixed by `seed`.
    ///
    /// # Errors
    /// A strategy that cannot play under `rules` (see [`StrategyKind::check`]).
    pub fn build(self, rules: Rules, seed: u64) -> Result<Box<dyn Strategy>, BuildError> {
        self.check(rules)?;
        Ok(match self {
            StrategyKind::Random => Box::new(Random::new(seed)),
            StrategyKind::Rules => Box::new(RuleBased::new(seed)),
            StrategyKind::AlphaBeta => Box::new(AlphaBeta::new(seed)),
            StrategyKind::Perfect => {
                Box::new(
                    Perfect::new(rules, seed).map_err(|e| BuildError::Unsupported {
                        strategy: self,
                        rules,
                        reason: e.to_string(),
                    })?,
                )
            }
            StrategyKind::Learned => {
                Box::new(
                    Learned::builtin(rules, seed).ok_or_else(|| BuildError::Unsupported {
                        strategy: self,
                        rules,
                        reason: "the built-in model cannot be read".to_owned(),
                    })?,
                )
            }
        })
    }
}

impl FromStr for StrategyKind {
    type Err = BuildError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| BuildError::Unknown(s.to_owned()))
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who sits in a seat: a person, or the computer playing a strategy.
///
/// The CLI's `--x`/`--o` and the server's `opponent` both spell it the
/// same way: `human` or a strategy's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerKind {
    /// A person.
    Human,
    /// The computer, playing this strategy.
    Computer(StrategyKind),
}

impl PlayerKind {
    /// The name: `human` or the strategy's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            PlayerKind::Human => "human",
            PlayerKind::Computer(kind) => kind.name(),
        }
    }
}

impl fmt::Display for PlayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PlayerKind {
    type Err = BuildError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("human") {
            Ok(PlayerKind::Human)
        } else {
            s.parse().map(PlayerKind::Computer)
        }
    }
}

/// Why [`play_out`] stopped before the end of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {strategy} player {problem}")]
pub struct PlayOutError {
    /// The strategy at fault.
    pub strategy: String,
    /// What it did.
    pub problem: String,
}

/// Play `game` to its end, `x` choosing X's moves and `o` choosing O's, and
/// return the moves made.
///
/// # Errors
/// A strategy that offers no move, or an illegal one, while the game goes
/// on (a bug in that strategy).
pub fn play_out(
    game: &mut Game,
    x: &mut dyn Strategy,
    o: &mut dyn Strategy,
) -> Result<Vec<Cell>, PlayOutError> {
    let mut moves = Vec::new();
    while !game.is_over() {
        let player: &mut dyn Strategy = match game.to_move() {
            oxo_core::Player::X => &mut *x,
            oxo_core::Player::O => &mut *o,
        };
        let choice = player.choose(game);
        let fault = |problem: String| PlayOutError {
            strategy: player.name().to_owned(),
            problem,
        };
        let cell = choice.ok_or_else(|| fault(format!("offered no move in {game}")))?;
        game.play(cell)
            .map_err(|e| fault(format!("offered {cell} in {game}: {e}")))?;
        moves.push(cell);
    }
    Ok(moves)
}

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
}
