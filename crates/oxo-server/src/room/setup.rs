//! What a new room may be: the server's limits on boards and clocks, and who
//! may be timed. Checked here, once, before a room exists, so that every way
//! into [`Hub::create`](crate::hub::Hub::create) keeps them.

use std::ops::RangeInclusive;

use oxo_ai::{BuildError, Catalog};
use oxo_core::{BoardSize, Player, Rules, RulesError, TimeControl};

use super::{Opponent, SERVER_MAX_SIDE};

/// A game's clock, from a quarter of a minute (a bullet game of 15 s) to
/// three hours a seat...
pub const MINUTES: RangeInclusive<f64> = 0.25..=180.0;
/// ...with up to a minute's increment...
pub const INCREMENT_SECONDS: RangeInclusive<u32> = 0..=60;
/// ...or, for correspondence, one day to two weeks a move.
pub const DAYS: RangeInclusive<u32> = 1..=14;

/// A time control as a creator asks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClockAsk {
    /// Minutes a seat (fractions allowed) and seconds added after each move.
    Minutes {
        /// Each seat's time.
        minutes: f64,
        /// Seconds a move.
        increment: u32,
    },
    /// Correspondence: days a move.
    Days(u32),
}

/// Why a new room cannot be made as asked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SetupError {
    /// A side longer than the server offers.
    #[error(
        "{} {size} board is too large: the server offers at most {SERVER_MAX_SIDE} a side",
        oxo_core::a_or_an(.size.rows)
    )]
    TooLarge {
        /// The size asked for.
        size: BoardSize,
    },
    /// Rules that cannot be.
    #[error("bad {part}: {0}", part = rules_part(.0))]
    Rules(RulesError),
    /// The computer asked for cannot play the board.
    #[error("{0}")]
    Unplayable(BuildError),
    /// Minutes outside [`MINUTES`].
    #[error("clock minutes must be from {} to {}, not {}", MINUTES.start(), MINUTES.end(), shortest(*.0))]
    Minutes(f64),
    /// An increment outside [`INCREMENT_SECONDS`].
    #[error(
        "clock increment must be from {} to {} seconds, not {}",
        INCREMENT_SECONDS.start(),
        INCREMENT_SECONDS.end(),
        .0
    )]
    Increment(u32),
    /// Days outside [`DAYS`].
    #[error("days must be from {} to {}, not {}", DAYS.start(), DAYS.end(), .0)]
    Days(u32),
    /// A clock against the computer, which takes no time.
    #[error(
        "clocks are for games between two people: leave out \"clock\" and \"days\" against the computer"
    )]
    TimedComputer,
}

/// Which part of the rules `error` is about, as a request names it.
fn rules_part(error: &RulesError) -> &'static str {
    if matches!(error, RulesError::BadK { .. }) {
        "k"
    } else {
        "size"
    }
}

/// `x` in its shortest readable form: 1e308 rather than its 309 digits,
/// 1e-320 rather than its 320 zeros.
fn shortest(x: f64) -> String {
    if x.abs() >= 1e9 || (x != 0.0 && x.abs() < 1e-6) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// The rules of a board of `size` with `k` in a row (by default the shorter
/// side, at most five), within [`SERVER_MAX_SIDE`].
///
/// # Errors
/// [`SetupError::TooLarge`]; [`SetupError::Rules`].
pub fn server_rules(size: BoardSize, k: Option<u32>) -> Result<Rules, SetupError> {
    if size.rows.max(size.cols) > SERVER_MAX_SIDE {
        return Err(SetupError::TooLarge { size });
    }
    let k = k.unwrap_or(size.default_k());
    Rules::new(size.rows, size.cols, k).map_err(SetupError::Rules)
}

impl ClockAsk {
    /// The time control asked for, within the server's limits.
    ///
    /// # Errors
    /// [`SetupError::Minutes`], [`SetupError::Increment`], [`SetupError::Days`].
    pub fn control(self) -> Result<TimeControl, SetupError> {
        match self {
            ClockAsk::Minutes { minutes, increment } => {
                if !MINUTES.contains(&minutes) {
                    return Err(SetupError::Minutes(minutes));
                }
                if !INCREMENT_SECONDS.contains(&increment) {
                    return Err(SetupError::Increment(increment));
                }
                // In range, so a whole number of milliseconds well within u64.
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "0.25 to 180 minutes, rounded to the millisecond"
                )]
                let initial = (minutes * 60_000.0).round() as u64;
                Ok(TimeControl::fischer(initial, u64::from(increment) * 1000))
            }
            ClockAsk::Days(days) => {
                if !DAYS.contains(&days) {
                    return Err(SetupError::Days(days));
                }
                Ok(TimeControl::days(days))
            }
        }
    }
}

/// A new room's settings, checked: only [`RoomSetup::new`] makes one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoomSetup {
    rules: Rules,
    opponent: Opponent,
    first: Player,
    clock: Option<TimeControl>,
}

/// Whether `opponent` can play on a board of `rules` (a computer that
/// `catalog` can field there, or a person).
///
/// # Errors
/// [`SetupError::Unplayable`].
pub fn check_opponent(
    rules: Rules,
    opponent: Opponent,
    catalog: &Catalog,
) -> Result<(), SetupError> {
    match opponent {
        Opponent::Computer(kind) => catalog.check(kind, rules).map_err(SetupError::Unplayable),
        Opponent::Human => Ok(()),
    }
}

impl RoomSetup {
    /// A room of `rules` (within [`SERVER_MAX_SIDE`]; see [`server_rules`])
    /// against `opponent`, whom `catalog` must be able to field on the
    /// board, `first` to move, timed as `clock` asks (only between two
    /// people).
    ///
    /// # Errors
    /// [`SetupError::TooLarge`]; [`SetupError::Unplayable`]; a clock out of
    /// range; [`SetupError::TimedComputer`].
    pub fn new(
        rules: Rules,
        opponent: Opponent,
        first: Player,
        clock: Option<ClockAsk>,
        catalog: &Catalog,
    ) -> Result<RoomSetup, SetupError> {
        if rules.rows().max(rules.cols()) > SERVER_MAX_SIDE {
            return Err(SetupError::TooLarge { size: rules.size() });
        }
        check_opponent(rules, opponent, catalog)?;
        let clock = clock.map(ClockAsk::control).transpose()?;
        if clock.is_some() && opponent != Opponent::Human {
            return Err(SetupError::TimedComputer);
        }
        Ok(RoomSetup {
            rules,
            opponent,
            first,
            clock,
        })
    }

    /// The board and k.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Who holds seat O.
    #[must_use]
    pub const fn opponent(&self) -> Opponent {
        self.opponent
    }

    /// Who moves first in the first round.
    #[must_use]
    pub const fn first(&self) -> Player {
        self.first
    }

    /// The time control, if the room is timed.
    #[must_use]
    pub const fn clock(&self) -> Option<TimeControl> {
        self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::default()
    }

    #[test]
    fn the_server_picks_k_and_keeps_its_side_limit() {
        let rules = |size: &str, k| server_rules(size.parse().expect("a size"), k);
        assert_eq!(rules("3x3", None).map(|r| r.k()), Ok(3));
        assert_eq!(rules("15x15", None).map(|r| r.k()), Ok(5));
        assert_eq!(rules("4x7", None).map(|r| r.k()), Ok(4));
        assert_eq!(
            rules("33x3", None).map_err(|e| e.to_string()),
            Err("a 33x3 board is too large: the server offers at most 32 a side".into())
        );
        assert!(matches!(rules("3x3", Some(4)), Err(SetupError::Rules(_))));
    }

    #[test]
    fn clocks_are_in_range_and_only_between_people() {
        let rules = Rules::new(3, 3, 3).expect("3x3");
        let setup = |opponent, clock| RoomSetup::new(rules, opponent, Player::X, clock, &catalog());
        let blitz = ClockAsk::Minutes {
            minutes: 3.0,
            increment: 2,
        };
        assert_eq!(
            setup(Opponent::Human, Some(blitz)).map(|s| s.clock()),
            Ok(Some(TimeControl::fischer(180_000, 2000)))
        );
        assert_eq!(
            setup(Opponent::Human, Some(ClockAsk::Days(15))),
            Err(SetupError::Days(15))
        );
        let tiny = ClockAsk::Minutes {
            minutes: 1e-320,
            increment: 0,
        };
        assert_eq!(
            setup(Opponent::Human, Some(tiny)).map_err(|e| e.to_string()),
            Err("clock minutes must be from 0.25 to 180, not 1e-320".into())
        );
        // Every way in keeps the side limit, not only the HTTP request's.
        let big = Rules::new(33, 33, 5).expect("33x33");
        assert_eq!(
            RoomSetup::new(big, Opponent::Human, Player::X, None, &catalog()),
            Err(SetupError::TooLarge { size: big.size() })
        );
        let computer = Opponent::Computer(oxo_ai::StrategyKind::Random);
        assert_eq!(setup(computer, Some(blitz)), Err(SetupError::TimedComputer));
        assert!(setup(computer, None).is_ok());
    }
}
