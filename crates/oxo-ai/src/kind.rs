//! Oxo's strategies by name ([`StrategyKind`]), how to build them, and who
//! sits in a seat ([`PlayerKind`]).

use std::fmt;
use std::str::FromStr;

use oxo_core::Rules;

use crate::learned::{self, Learned};
use crate::{AlphaBeta, PERFECT_MAX_SIDE, Perfect, Random, RuleBased, Strategy};

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
    /// ([`Learned`]); built in for the boards [`builtin_model`](crate::builtin_model) knows.
    Learned,
}

/// Why a strategy could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// No strategy has this name.
    #[error("unknown strategy {0:?}: choose one of {names}", names = StrategyKind::NAMES.join(", "))]
    Unknown(String),
    /// The strategy cannot play on this board.
    #[error("{strategy} cannot play on {} {rules} board: {reason}", oxo_core::a_or_an(rules.rows()))]
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
        if self == StrategyKind::Perfect && rules.is_exact() {
            return Err(BuildError::Unsupported {
                strategy: self,
                rules,
                reason: "the solver plays k or more in a row, not exactly k; try alphabeta"
                    .to_owned(),
            });
        }
        if self == StrategyKind::Learned && !learned::has_builtin_model(rules) {
            return Err(BuildError::Unsupported {
                strategy: self,
                rules,
                reason: learned::NO_BUILTIN_MODEL.to_owned(),
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
