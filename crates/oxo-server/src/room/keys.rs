//! Idempotency keys: what a room remembers of the keyed changes it made,
//! so that a retried request is answered instead of acted on twice.

use oxo_core::{Coords, Player};

use super::Room;
use crate::id::IdempotencyKey;

/// The idempotency keys a room remembers (both seats together, the newest
/// kept): a retry comes within moments of the request it repeats, long
/// before this many later changes.
pub const KEYS_KEPT: usize = 32;

/// A change a seat asked for under an idempotency key, remembered so that
/// the key sent again is answered rather than acted on twice, and a key
/// reused for another request is refused rather than taken for a repeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyed {
    /// The seat that sent it.
    pub seat: Player,
    /// Its key.
    pub key: IdempotencyKey,
    /// What it asked for; `None` for keys stored before requests were
    /// kept with them, which stand for any request.
    pub request: Option<Request>,
}

/// What a keyed request asked for, as a short word kept with its key:
/// `m` and the cell (`m2.3`) for a move, else the action's name
/// (`resign`, `draw`, `no-draw`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request(String);

impl Request {
    /// The longest word a request is kept as.
    const MAX_LEN: usize = 48;

    /// A move at `at`.
    #[must_use]
    pub fn of_move(at: Coords) -> Request {
        Request(format!("m{}.{}", at.row, at.col))
    }

    /// An action other than a move, by its name (lower-case letters and
    /// `-`).
    #[must_use]
    pub fn named(word: &'static str) -> Request {
        debug_assert!(Request::parse(word).is_some(), "{word:?}");
        Request(word.to_owned())
    }

    /// `text` as a stored request word, if it is one: 1 to 48 of lower-case
    /// letters, digits, `.` and `-`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Request> {
        let fits = !text.is_empty()
            && text.len() <= Request::MAX_LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
        fits.then(|| Request(text.to_owned()))
    }

    /// The word.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether a room has seen a seat's idempotency key ([`Room::recall`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recall {
    /// Not among the keys it remembers: a new request.
    New,
    /// Sent before with the same request: answer with the room as it
    /// stands, changing nothing.
    Repeat,
    /// Sent before with another request: refused.
    Reused,
}

impl Room {
    /// Whether `seat` sent `key` lately (one of the last [`KEYS_KEPT`]
    /// changes the room made), and if so whether with `request`.
    #[must_use]
    pub fn recall(&self, seat: Player, key: &IdempotencyKey, request: &Request) -> Recall {
        match self
            .rec
            .keys
            .iter()
            .find(|k| k.seat == seat && k.key == *key)
        {
            None => Recall::New,
            Some(Keyed {
                request: Some(asked),
                ..
            }) if asked != request => Recall::Reused,
            Some(_) => Recall::Repeat,
        }
    }

    /// Whether `seat` sent `key` lately, whatever it asked for.
    #[must_use]
    pub fn knows(&self, seat: Player, key: &IdempotencyKey) -> bool {
        self.rec
            .keys
            .iter()
            .any(|k| k.seat == seat && k.key == *key)
    }

    /// The same room, remembering a keyed change (the oldest key is
    /// forgotten beyond [`KEYS_KEPT`]).
    #[must_use]
    pub fn remember(mut self, keyed: Keyed) -> Room {
        self.rec.keys.push(keyed);
        let excess = self.rec.keys.len().saturating_sub(KEYS_KEPT);
        self.rec.keys.drain(..excess);
        self
    }
}
