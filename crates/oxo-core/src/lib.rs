//! The rules of tic-tac-toe and its m,n,k relatives, with no I/O.
//!
//! Two players, [`Player::X`] and [`Player::O`], take turns marking cells of
//! a `rows`×`cols` board; the first with `k` marks in a row, column or
//! diagonal wins ([`Rules`]; 3×3 with k=3 by default). A [`Game`] accepts
//! legal moves and refuses the rest with a typed [`MoveError`] that changes
//! nothing. Wins are found by looking only through the last move, so a move
//! costs O(k) whatever the board size.
//!
//! ```
//! use oxo_core::{Cell, Game, MoveError, MoveResult, Outcome, Player, Rules, Scoreboard};
//!
//! let mut game = Game::new(Rules::new(3, 3, 3)?);
//! game.play(Cell::new(1, 1))?;
//! assert_eq!(
//!     game.play(Cell::new(1, 1)),
//!     Err(MoveError::Occupied { cell: Cell::new(1, 1), by: Player::X })
//! );
//! assert_eq!(game.to_move(), Player::O); // a refused move does not pass the turn
//!
//! // Positions read and write as rows joined by '/'.
//! let mut game = Game::from_notation("XX./OO./...", 3)?;
//! let result = game.play(Cell::new(0, 2))?;
//! assert!(matches!(result, MoveResult::Won { winner: Player::X, .. }));
//!
//! // Game-over events feed a scoreboard that the game knows nothing about.
//! let mut score = Scoreboard::default();
//! score.record(result.outcome().unwrap());
//! assert_eq!(score.wins(Player::X), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod clock;
mod coords;
mod game;
mod history;
mod notation;
mod player;
pub mod proof;
mod rules;
mod score;
mod series;
mod symmetry;
mod windows;

pub use clock::{Clock, DAY_MS, FIRST_MOVE_MS, FirstMove, Flagged, Running, TimeControl};
pub use coords::{Coords, CoordsError, Integer};
pub use game::{Game, MoveError, MoveResult, Outcome, Status};
pub use history::History;
pub use notation::{NotationError, PositionError, Setup, SyntaxError};
pub use player::Player;
pub use rules::{
    BoardSize, Cell, Direction, Line, MAX_SIDE, ParseSizeError, Rules, RulesError, a_or_an,
};
pub use score::Scoreboard;
pub use series::Series;
pub use symmetry::Symmetry;
pub use windows::Windows;

/// The README's code blocks, compiled and run as doctests so the front door
/// stays true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
