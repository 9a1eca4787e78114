//! What every store writes and reads back for a room, spelled once: the
//! digest that detects a damaged record, and the checks that turn stored
//! columns back into a [`RoomRecord`].

use std::fmt::Write as _;

use oxo_core::{Cell, Player, Rules, Scoreboard};
use sha2::{Digest, Sha256};

use super::StoreError;
use crate::id::{GameId, TokenHash};
use crate::name::PlayerName;
use crate::room::{Opponent, RoomRecord, SeatName};

/// SHA-256, in hex, of everything a store reads back for a room: its row
/// and the moves of its current round, in a fixed spelling.
pub(super) fn digest(r: &RoomRecord) -> String {
    let mut text = format!(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|",
        r.id,
        r.rules.rows(),
        r.rules.cols(),
        r.rules.k(),
        r.opponent.name(),
        r.x_token.as_str(),
        r.o_token.as_ref().map_or("", TokenHash::as_str),
        r.round,
        SeatName(r.first).as_str(),
        r.score.wins(Player::X),
        r.score.wins(Player::O),
        r.score.draws(),
        r.version,
        r.watch,
    );
    for cell in &r.moves {
        let _ = write!(text, "{},{};", cell.row, cell.col);
    }
    // Columns added later count only when set, so rooms stored before
    // them keep their digests.
    if let Some(seat) = r.offer {
        let _ = write!(text, "|offer:{}", SeatName(seat).as_str());
    }
    if let Some(entry) = &r.entry {
        let _ = write!(text, "|entry:{entry}");
    }
    if let Some(invite) = &r.invite {
        let _ = write!(text, "|invite:{}", invite.as_str());
    }
    for (seat, name) in ["x", "o"].iter().zip(&r.names) {
        if let Some(name) = name {
            // Its length first: no name can pass for another's end.
            let _ = write!(text, "|{seat}_name:{}:{name}", name.as_str().len());
        }
    }
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// A room's row as a store holds it, before any check.
pub(super) struct Stored {
    pub rows: u32,
    pub cols: u32,
    pub k: u32,
    pub opponent: String,
    pub x_token: String,
    pub o_token: Option<String>,
    pub round: u32,
    pub first: String,
    /// X's wins, O's wins, draws.
    pub score: (i64, i64, i64),
    pub version: i64,
    pub watch: String,
    pub digest: Option<String>,
    pub offer: Option<String>,
    pub entry: Option<String>,
    pub invite: Option<String>,
    /// The names seats X and O chose.
    pub names: [Option<String>; 2],
}

impl Stored {
    /// The record these columns and `moves` (ply, row, column; in ply
    /// order) spell, and the digest stored beside them, unchecked.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] for anything that makes no sense.
    pub(super) fn decode(
        self,
        id: &GameId,
        moves: impl IntoIterator<Item = (i64, u32, u32)>,
    ) -> Result<(RoomRecord, Option<String>), StoreError> {
        let corrupt = |what: String| StoreError::Corrupt(format!("game {}: {what}", id.for_log()));
        let stored_hash = |text: &str| {
            TokenHash::is_hash(text)
                .then(|| TokenHash::from_stored(text))
                .ok_or_else(|| corrupt("a seat token or invite is not a hash".into()))
        };
        let count = |n: i64| u64::try_from(n).map_err(|_| corrupt(format!("negative count {n}")));
        let rules = Rules::new(self.rows, self.cols, self.k).map_err(|e| corrupt(e.to_string()))?;
        let opponent: Opponent = self.opponent.parse().map_err(|e| corrupt(format!("{e}")))?;
        let first = SeatName::parse(&self.first)
            .ok_or_else(|| corrupt(format!("bad first seat {:?}", self.first)))?;
        let mut cells = Vec::new();
        for (ply, r, c) in moves {
            if usize::try_from(ply).ok() != Some(cells.len() + 1) {
                return Err(corrupt(format!(
                    "move {ply} of round {} out of order",
                    self.round
                )));
            }
            cells.push(Cell::new(r, c));
        }
        let (x, o, draws) = self.score;
        let record = RoomRecord {
            id: id.clone(),
            watch: GameId::from_trusted(&self.watch),
            rules,
            opponent,
            x_token: stored_hash(&self.x_token)?,
            o_token: self.o_token.as_deref().map(stored_hash).transpose()?,
            round: self.round,
            first,
            moves: cells,
            score: Scoreboard::from_counts(count(x)?, count(o)?, count(draws)?),
            version: count(self.version)?,
            offer: self
                .offer
                .map(|seat| {
                    SeatName::parse(&seat).ok_or_else(|| corrupt(format!("bad offer {seat:?}")))
                })
                .transpose()?,
            entry: self.entry.as_deref().map(GameId::from_trusted),
            invite: self.invite.as_deref().map(stored_hash).transpose()?,
            names: self
                .names
                .map(|name| name.as_deref().map(PlayerName::from_stored)),
        };
        Ok((record, self.digest))
    }
}

/// A listed room's row as a store holds it, before any check.
pub(super) struct StoredListing {
    pub id: String,
    pub entry: String,
    pub watch: String,
    pub rows: u32,
    pub cols: u32,
    pub k: u32,
    pub opponent: String,
    pub first: String,
    pub round: u32,
    /// X's wins, O's wins, draws.
    pub score: (i64, i64, i64),
    pub seated: bool,
    /// Seconds since the room changed.
    pub idle: i64,
    /// The names seats X and O chose.
    pub names: [Option<String>; 2],
}

impl StoredListing {
    /// The listing these columns spell.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] for anything that makes no sense.
    pub(super) fn decode(self) -> Result<super::Listing, StoreError> {
        let corrupt = |what: String| StoreError::Corrupt(format!("a listed room: {what}"));
        let count = |n: i64| u64::try_from(n).map_err(|_| corrupt(format!("negative count {n}")));
        let (x, o, draws) = self.score;
        Ok(super::Listing {
            id: GameId::from_trusted(&self.id),
            entry: GameId::from_trusted(&self.entry),
            watch: GameId::from_trusted(&self.watch),
            rules: Rules::new(self.rows, self.cols, self.k).map_err(|e| corrupt(e.to_string()))?,
            opponent: self.opponent.parse().map_err(|e| corrupt(format!("{e}")))?,
            first: SeatName::parse(&self.first)
                .ok_or_else(|| corrupt(format!("bad first seat {:?}", self.first)))?,
            round: self.round,
            score: Scoreboard::from_counts(count(x)?, count(o)?, count(draws)?),
            seated: self.seated,
            // A clock that stepped back makes a room look just changed.
            idle: u64::try_from(self.idle).unwrap_or(0),
            names: self
                .names
                .map(|name| name.as_deref().map(PlayerName::from_stored)),
        })
    }
}

/// `record` if it matches the digest stored with it: a room whose row or
/// moves were damaged is [`StoreError::Corrupt`], never served.
pub(super) fn checked(
    (record, stored): (RoomRecord, Option<String>),
) -> Result<RoomRecord, StoreError> {
    if stored.as_deref() == Some(digest(&record).as_str()) {
        Ok(record)
    } else {
        Err(StoreError::Corrupt(format!(
            "game {}: the stored room does not match its digest",
            record.id.for_log()
        )))
    }
}

/// Stored moves `(round, ply, row, col)`, sorted by round then ply, as
/// each round's cells in order; rounds with no move yet are empty.
///
/// # Errors
/// [`StoreError::Corrupt`] for a ply out of order.
pub(super) fn group_rounds(
    id: &GameId,
    moves: impl IntoIterator<Item = (u32, i64, u32, u32)>,
) -> Result<Vec<Vec<Cell>>, StoreError> {
    let mut rounds: Vec<Vec<Cell>> = Vec::new();
    for (round, ply, row, col) in moves {
        let at = usize::try_from(round.max(1) - 1).unwrap_or(usize::MAX);
        if rounds.len() <= at {
            rounds.resize(at + 1, Vec::new());
        }
        let cells = &mut rounds[at];
        if usize::try_from(ply).ok() != Some(cells.len() + 1) {
            return Err(StoreError::Corrupt(format!(
                "game {}: move {ply} of round {round} out of order",
                id.for_log()
            )));
        }
        cells.push(Cell::new(row, col));
    }
    Ok(rounds)
}

/// Store integers are signed; counts and versions never come near the
/// limit, and saturating keeps the version guard meaningful if one did.
pub(super) fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
