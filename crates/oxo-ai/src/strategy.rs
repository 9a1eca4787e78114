//! The [`Strategy`] trait every computer player implements, and
//! [`play_out`], which plays a game between two of them.
//!
//! This module knows no particular strategy: the strategies depend on it,
//! and [`StrategyKind`](crate::StrategyKind) (in `kind.rs`) builds them.

use oxo_core::{Cell, Game};

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
