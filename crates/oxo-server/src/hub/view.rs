//! What the hub hands out: typed views of its rooms, written as JSON only
//! where they leave the server.

use oxo_core::Player;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::value::RawValue;

use super::search::Hint;
use crate::room::{GameView, Players, Score, Summary};

/// A view many readers take: a room's GAME, which every request and live
/// socket on the room is sent. The hub publishes the typed value; the
/// first reader to send it writes its JSON, which every later reader
/// shares, so an update that goes to a thousand sockets is written once.
#[derive(Debug)]
pub struct Published<T> {
    value: T,
    json: OnceLock<Box<RawValue>>,
}

impl<T: Serialize> Published<T> {
    /// `value`, published.
    #[must_use]
    pub fn new(value: T) -> Arc<Published<T>> {
        Arc::new(Published {
            value,
            json: OnceLock::new(),
        })
    }

    /// The view.
    #[must_use]
    pub const fn value(&self) -> &T {
        &self.value
    }

    /// The view as JSON, written on first use.
    ///
    /// # Panics
    /// Never: the views are plain data that always serialise.
    #[must_use]
    pub fn json(&self) -> &RawValue {
        self.json.get_or_init(|| {
            serde_json::value::to_raw_value(&self.value).expect("the hub's views always serialise")
        })
    }
}

/// A room's GAME as one viewer (a player or a spectator) sees it.
pub type Snapshot = Arc<Published<GameView>>;

/// Perfect-play values of a position's empty cells, kept for reuse.
pub type Hints = Arc<[Hint]>;

/// The lobby: games to join, games to watch, and the caller's own.
#[derive(Debug, Serialize)]
pub struct Lobby {
    /// Listed games waiting for an opponent.
    pub open: Vec<OpenEntry>,
    /// Listed games being played.
    pub live: Vec<LiveEntry>,
    /// The rooms the caller named, as summaries (unknown ones left out,
    /// damaged ones said to be).
    pub recent: Vec<Recent>,
    /// Listed rooms left out because their stored rows are damaged (the
    /// server's log names each once).
    pub damaged: usize,
}

/// A room the caller named in a lobby request.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Recent {
    /// Its summary.
    Game(Summary),
    /// Its stored record is damaged: `{"id", "damaged": true}`.
    Damaged {
        /// The id as the caller gave it.
        id: String,
        /// Always `true`.
        damaged: bool,
    },
}

/// A lobby's open game: joined through its entry id.
#[derive(Debug, Serialize)]
pub struct OpenEntry {
    /// The id that takes seat O.
    pub entry: String,
    /// `"RxC"`.
    pub size: String,
    /// Marks in a row that win.
    pub k: u32,
    /// The seat that starts.
    pub first: Player,
    /// Seconds since it was opened; by correspondence, since its creator
    /// was last here (see `hub/lobby.rs`).
    pub waiting: u64,
    /// The name its creator chose, if any.
    pub name: Option<String>,
    /// Its time control, if it is timed.
    pub clock: Option<TimeControlView>,
}

/// A time control as the lobby shows it: what a GAME's `"clock"` says of
/// it, without the times left.
#[derive(Debug, Serialize)]
pub struct TimeControlView {
    /// Each seat's time at the start of a round (by correspondence, the
    /// time for each move), in milliseconds.
    pub initial_ms: u64,
    /// Added after each timed move, in milliseconds.
    pub increment_ms: u64,
    /// Days a move, for correspondence.
    pub days: Option<u64>,
}

impl From<oxo_core::TimeControl> for TimeControlView {
    fn from(control: oxo_core::TimeControl) -> TimeControlView {
        let view = crate::room::ClockView::of(&oxo_core::Clock::new(control));
        TimeControlView {
            initial_ms: view.initial_ms,
            increment_ms: view.increment_ms,
            days: view.days,
        }
    }
}

/// A lobby's game being played: watched through its watch id.
#[derive(Debug, Serialize)]
pub struct LiveEntry {
    /// The id that shows the game read-only.
    pub watch: String,
    /// `"RxC"`.
    pub size: String,
    /// Marks in a row that win.
    pub k: u32,
    /// `"human"` or the computer's strategy.
    pub opponent: &'static str,
    /// The round, from 1.
    pub round: u32,
    /// The running score.
    pub score: Score,
    /// Seconds since the last change.
    pub idle: u64,
    /// What each seat is called.
    pub players: Players,
    /// Its time control, if it is timed.
    pub clock: Option<TimeControlView>,
}
