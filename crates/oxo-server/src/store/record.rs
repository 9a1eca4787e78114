//! What every store writes and reads back for a room, spelled once: the
//! digest that detects a damaged record, and the checks that turn stored
//! columns back into a [`RoomRecord`].

use std::fmt::Write as _;

use oxo_core::{Cell, Clock, FirstMove, Player, Rules, Running, Scoreboard, TimeControl};
use sha2::{Digest, Sha256};

use super::StoreError;
use crate::id::{GameId, IdempotencyKey, TokenHash};
use crate::name::PlayerName;
use crate::room::{Ending, Keyed, OffersMade, Opponent, Proposal, Reason, Request, RoomRecord};

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
        r.first.name(),
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
        let _ = write!(text, "|offer:{}", seat.name());
    }
    if let Some(entry) = &r.entry {
        let _ = write!(text, "|entry:{entry}");
    }
    if let Some(invite) = &r.invite {
        let _ = write!(text, "|invite:{}", invite.as_str());
    }
    for (seat, name) in Player::ALL.map(Player::name).iter().zip(&r.names) {
        if let Some(name) = name {
            // Its length first: no name can pass for another's end.
            let _ = write!(text, "|{seat}_name:{}:{name}", name.as_str().len());
        }
    }
    if let Some(ending) = r.ending {
        let _ = write!(
            text,
            "|ending:{}:{}",
            ending.reason.as_str(),
            ending.winner.map_or("", |p| p.name())
        );
    }
    if let Some(seat) = r.draw {
        let _ = write!(text, "|draw:{}", seat.name());
    }
    if let Some(seat) = r.takeback {
        let _ = write!(text, "|takeback:{}", seat.name());
    }
    if !r.keys.is_empty() {
        let _ = write!(text, "|keys:{}", keys_text(&r.keys));
    }
    if let Some(clock) = &r.clock {
        let _ = write!(text, "|clock:{}", clock_text(clock));
    }
    // Stored as empty when it is the version (every room stored before
    // the column, and each one just moved), so written only when not.
    if r.position_version != r.version {
        let _ = write!(text, "|position:{}", r.position_version);
    }
    if let Some(made) = offers_made_text(&r.offers_made) {
        let _ = write!(text, "|offers_made:{made}");
    }
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// The idempotency keys as a store keeps them in one column: entries
/// separated by spaces (keys have none), the oldest first, each as
/// [`keyed_text`] writes it.
pub(super) fn keys_text(keys: &[Keyed]) -> String {
    let mut text = String::new();
    for keyed in keys {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&keyed_text(keyed));
    }
    text
}

/// One remembered key: `x/m1.2:KEY` (the seat, the request it was sent
/// with, the key), or `x:KEY` for a key stored before requests were kept
/// (so that the text, and the room's digest, of those stay as they were).
/// Neither the seat nor the request holds a `:`, so the first one ends them.
pub(crate) fn keyed_text(keyed: &Keyed) -> String {
    let seat = keyed.seat.name();
    match &keyed.request {
        Some(request) => format!("{seat}/{}:{}", request.as_str(), keyed.key.as_str()),
        None => format!("{seat}:{}", keyed.key.as_str()),
    }
}

/// One remembered key as [`keyed_text`] writes it, if it is one.
pub(crate) fn parse_keyed(text: &str) -> Option<Keyed> {
    let (head, key) = text.split_once(':')?;
    let (seat, request) = match head.split_once('/') {
        Some((seat, request)) => (seat, Some(Request::parse(request)?)),
        None => (head, None),
    };
    Some(Keyed {
        seat: Player::from_name(seat)?,
        key: IdempotencyKey::parse(key).ok()?,
        request,
    })
}

/// The reason column of a round that ended other than on the board.
pub(super) fn reason_text(ending: Option<Ending>) -> Option<&'static str> {
    ending.map(|e| e.reason.as_str())
}

/// The winner column of such a round.
pub(super) fn winner_text(ending: Option<Ending>) -> Option<&'static str> {
    ending.and_then(|e| e.winner).map(Player::name)
}

/// The ending these two columns spell.
pub(super) fn decode_ending(
    reason: Option<&str>,
    winner: Option<&str>,
) -> Result<Option<Ending>, String> {
    let Some(reason) = reason else {
        return match winner {
            None => Ok(None),
            Some(w) => Err(format!("a winner {w:?} with no reason")),
        };
    };
    let parsed = Reason::parse(reason).ok_or_else(|| format!("bad reason {reason:?}"))?;
    let winner = winner
        .map(|w| Player::from_name(w).ok_or_else(|| format!("bad winner {w:?}")))
        .transpose()?;
    Ending::new(parsed, winner)
        .map(Some)
        .ok_or_else(|| format!("reason {reason:?} with winner {winner:?} makes no sense"))
}

/// Stored endings `(round, reason, winner)` as the record's endings.
///
/// # Errors
/// [`StoreError::Corrupt`] for a reason or winner that makes no sense.
pub(super) fn decode_endings(
    id: &GameId,
    rows: Vec<(u32, String, Option<String>)>,
) -> Result<Vec<(u32, Ending)>, StoreError> {
    rows.into_iter()
        .map(|(round, reason, winner)| {
            let ending = decode_ending(Some(&reason), winner.as_deref())
                .map_err(|e| {
                    StoreError::Corrupt(format!("game {} round {round}: {e}", id.for_log()))
                })?
                .ok_or_else(|| StoreError::Corrupt(format!("game {}: no ending", id.for_log())))?;
            Ok((round, ending))
        })
        .collect()
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
    pub end_reason: Option<String>,
    pub end_winner: Option<String>,
    pub draw_offer: Option<String>,
    pub takeback_offer: Option<String>,
    pub request_keys: Option<String>,
    /// The clock as [`clock_text`] spells it.
    pub clock: Option<String>,
    /// The version at which the position arose, when not `version`.
    pub position_version: Option<i64>,
    /// The offers made in the round, as [`offers_made_text`] spells them.
    pub offers_made: Option<String>,
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
        let first = Player::from_name(&self.first)
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
        let seat = |what: &str, text: Option<String>| {
            text.map(|t| Player::from_name(&t).ok_or_else(|| corrupt(format!("bad {what} {t:?}"))))
                .transpose()
        };
        let mut keys = Vec::new();
        for entry in self
            .request_keys
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
        {
            keys.push(
                parse_keyed(entry).ok_or_else(|| corrupt(format!("bad request key {entry:?}")))?,
            );
        }
        let version = count(self.version)?;
        let position_version = match self.position_version {
            None => version,
            Some(n) if (1..=version).contains(&count(n)?) => count(n)?,
            Some(n) => {
                return Err(corrupt(format!(
                    "position version {n} is not within 1..={version}"
                )));
            }
        };
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
            version,
            position_version,
            offer: self
                .offer
                .map(|seat| {
                    Player::from_name(&seat).ok_or_else(|| corrupt(format!("bad offer {seat:?}")))
                })
                .transpose()?,
            entry: self.entry.as_deref().map(GameId::from_trusted),
            invite: self.invite.as_deref().map(stored_hash).transpose()?,
            names: self
                .names
                .map(|name| name.as_deref().map(PlayerName::from_stored)),
            ending: decode_ending(self.end_reason.as_deref(), self.end_winner.as_deref())
                .map_err(corrupt)?,
            draw: seat("draw offer", self.draw_offer)?,
            takeback: seat("takeback request", self.takeback_offer)?,
            offers_made: self
                .offers_made
                .as_deref()
                .map(|text| {
                    parse_offers_made(text)
                        .ok_or_else(|| corrupt(format!("bad offers made {text:?}")))
                })
                .transpose()?
                .unwrap_or_default(),
            keys,
            clock: self
                .clock
                .as_deref()
                .map(|text| parse_clock(text).ok_or_else(|| corrupt(format!("bad clock {text:?}"))))
                .transpose()?,
        };
        Ok((record, self.digest))
    }
}

/// The offers made in the round as the stores keep them in one column
/// (`None` when none was, as for every room stored before the column):
/// entries separated by spaces, each the offer, the seat and the seat's
/// own moves then, as `draw/x:3`.
pub(super) fn offers_made_text(made: &OffersMade) -> Option<String> {
    let mut entries = Vec::new();
    for what in [Proposal::Draw, Proposal::Takeback] {
        for seat in [Player::X, Player::O] {
            if let Some(moves) = made.at(what, seat) {
                entries.push(format!("{what}/{}:{moves}", seat.name()));
            }
        }
    }
    (!entries.is_empty()).then(|| entries.join(" "))
}

/// The offers made as [`offers_made_text`] spells them, if they are (each
/// offer and seat at most once).
pub(super) fn parse_offers_made(text: &str) -> Option<OffersMade> {
    let mut made = OffersMade::default();
    for entry in text.split_whitespace() {
        let (head, moves) = entry.split_once(':')?;
        let (what, seat) = head.split_once('/')?;
        let what = match what {
            "draw" => Proposal::Draw,
            "takeback" => Proposal::Takeback,
            _ => return None,
        };
        let seat = Player::from_name(seat)?;
        // Digits only: no sign, no spaces, and a number that fits.
        if moves.is_empty() || !moves.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if made.at(what, seat).is_some() {
            return None;
        }
        made.set(what, seat, moves.parse().ok()?);
    }
    (!made.is_empty()).then_some(made)
}

/// The position version as the stores keep it: empty when it is the
/// version itself.
pub(super) fn position_text(r: &RoomRecord) -> Option<i64> {
    (r.position_version != r.version).then(|| int(r.position_version))
}

/// A timed room's clock as the stores keep it, in one column: the time
/// control (`f` initial `+` increment, or `d` time a move), X's and O's
/// time left, and, while a clock runs, its seat and since when; every time
/// in milliseconds (the running seat's time left as of that "since": its
/// clock's start, or the last change that counted its time). Such as
/// `f180000+2000 178000 180000 o 1795000000000`. While the first move of a
/// seat is awaited instead, its seat, since when, `first` and the time left
/// for the move as of then: such as
/// `f180000+2000 180000 180000 x 1795000000000 first 30000`.
pub(super) fn clock_text(clock: &Clock) -> String {
    let control = match clock.control() {
        TimeControl::Fischer { initial, increment } => format!("f{initial}+{increment}"),
        TimeControl::Correspondence { per_move } => format!("d{per_move}"),
    };
    let mut text = format!(
        "{control} {} {}",
        clock.stored_left(Player::X),
        clock.stored_left(Player::O)
    );
    if let Some(running) = clock.running_since() {
        let _ = write!(text, " {} {}", running.side.name(), running.since);
    } else if let Some(first) = clock.first_move_awaited() {
        let _ = write!(
            text,
            " {} {} first {}",
            first.side.name(),
            first.since,
            first.left
        );
    }
    text
}

/// The clock `text` spells ([`clock_text`]), if it makes sense.
pub(super) fn parse_clock(text: &str) -> Option<Clock> {
    let mut parts = text.split(' ');
    let control = parts.next()?;
    let control = if let Some(fischer) = control.strip_prefix('f') {
        let (initial, increment) = fischer.split_once('+')?;
        TimeControl::fischer(initial.parse().ok()?, increment.parse().ok()?)
    } else {
        TimeControl::Correspondence {
            per_move: control.strip_prefix('d')?.parse().ok()?,
        }
    };
    let left = [parts.next()?.parse().ok()?, parts.next()?.parse().ok()?];
    let running = match (parts.next(), parts.next()) {
        (None, None) => None,
        (Some(side), Some(since)) => Some(Running {
            side: Player::from_name(side)?,
            since: since.parse().ok()?,
        }),
        _ => return None,
    };
    let first = match parts.next() {
        None => None,
        Some("first") => Some(parts.next()?.parse::<u64>().ok()?),
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    match (running, first) {
        // Only a clock of minutes awaits a first move.
        (Some(awaited), Some(first_left)) => Some(
            Clock::from_parts(control, left, None).with_first_move(FirstMove {
                side: awaited.side,
                since: awaited.since,
                left: first_left,
            }),
        )
        .filter(|clock| clock.first_move_awaited().is_some()),
        _ => Some(Clock::from_parts(control, left, running)),
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
    /// The clock as [`clock_text`] spells it.
    pub clock: Option<String>,
}

impl StoredListing {
    /// A lobby row as read, with its room's id if that column could be
    /// read: its listing, or in its place the damage found reading or
    /// decoding it, naming the room (`Ok(Err(..))`); any other failure (the
    /// database unavailable) is the whole read's (`Err(..)`).
    pub(super) fn decode_row(
        id: Option<&str>,
        row: Result<StoredListing, StoreError>,
    ) -> Result<Result<super::Listing, StoreError>, StoreError> {
        let named = |damage: StoreError| match (damage, id) {
            (StoreError::Corrupt(why), Some(id)) => StoreError::Corrupt(format!(
                "game {}: {why}",
                GameId::from_trusted(id).for_log()
            )),
            (damage, _) => damage,
        };
        match row {
            Ok(stored) => Ok(stored.decode().map_err(named)),
            Err(damage @ StoreError::Corrupt(_)) => Ok(Err(named(damage))),
            Err(e) => Err(e),
        }
    }

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
            first: Player::from_name(&self.first)
                .ok_or_else(|| corrupt(format!("bad first seat {:?}", self.first)))?,
            round: self.round,
            score: Scoreboard::from_counts(count(x)?, count(o)?, count(draws)?),
            seated: self.seated,
            // A clock that stepped back makes a room look just changed.
            idle: u64::try_from(self.idle).unwrap_or(0),
            names: self
                .names
                .map(|name| name.as_deref().map(PlayerName::from_stored)),
            clock: self
                .clock
                .as_deref()
                .map(|text| {
                    parse_clock(text)
                        .map(|clock| clock.control())
                        .ok_or_else(|| corrupt(format!("bad clock {text:?}")))
                })
                .transpose()?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_lobby_row_names_its_room_for_the_log() {
        let named = StoredListing::decode_row(
            Some("gggggggggggggggg"),
            Err(StoreError::Corrupt("a stored value cannot be read".into())),
        );
        let hash = GameId::from_trusted("gggggggggggggggg").for_log();
        match named {
            Ok(Err(StoreError::Corrupt(why))) => {
                assert_eq!(why, format!("game {hash}: a stored value cannot be read"))
            }
            other => panic!("{other:?}"),
        }
        // Without a readable id the damage is still damage, unnamed; any
        // other failure is the whole read's.
        let unnamed = StoredListing::decode_row(None, Err(StoreError::Corrupt("x".into())));
        assert!(matches!(unnamed, Ok(Err(StoreError::Corrupt(why))) if why == "x"));
        let closed = StoredListing::decode_row(None, Err(StoreError::Closed));
        assert!(matches!(closed, Err(StoreError::Closed)));
    }

    #[test]
    fn remembered_keys_read_back_as_written_and_old_ones_as_any_request() {
        let old = parse_keyed("x:k:1").unwrap();
        assert_eq!(
            (old.seat, old.key.as_str(), old.request),
            (Player::X, "k:1", None)
        );
        assert_eq!(
            keyed_text(&parse_keyed("x:k:1").unwrap()),
            "x:k:1",
            "old text kept"
        );
        let new = parse_keyed("o/m1.2:k:2").unwrap();
        assert_eq!(new.request, Request::parse("m1.2"));
        assert_eq!(new.key.as_str(), "k:2");
        assert_eq!(keyed_text(&new), "o/m1.2:k:2");
        for bad in ["", "x", "z:k", "x/:k", "x/M1:k", "x/m1:", "x/m1 :k"] {
            assert!(parse_keyed(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_clock_is_spelled_in_one_column_and_read_back_the_same() {
        let control = TimeControl::fischer(180_000, 2_000);
        let fresh = Clock::new(control);
        assert_eq!(clock_text(&fresh), "f180000+2000 180000 180000");
        let running = fresh
            .punch(Player::X, 1, 5)
            .and_then(|c| c.punch(Player::O, 2, 1_795_000_000_000))
            .unwrap();
        assert_eq!(
            clock_text(&running),
            "f180000+2000 180000 180000 x 1795000000000"
        );
        let days = Clock::new(TimeControl::days(3));
        assert_eq!(clock_text(&days), "d259200000 259200000 259200000");
        let awaiting = fresh.awaiting_first_move(Player::O, 1_795_000_000_000);
        assert_eq!(
            clock_text(&awaiting),
            "f180000+2000 180000 180000 o 1795000000000 first 30000"
        );
        for clock in [fresh, running, days, awaiting] {
            assert_eq!(parse_clock(&clock_text(&clock)), Some(clock));
        }
        for bad in [
            "",
            "f180000 1 2",
            "g1+2 3 4",
            "f1+2 3",
            "f1+2 3 4 x",
            "f1+2 3 4 z 5",
            "f1+2 3 4 x 5 6",
            "f1+2 3 4 x 5 firs",
            "f1+2 3 4 first",
            "f1+2 3 4 x 5 first",
            "f1+2 3 4 x 5 first 6 7",
            "f1+2 3 4 x 5 first -6",
            "d1 2 3 x 5 first 6",
            "f1+2 -3 4",
            "d1 2 3  ",
        ] {
            assert_eq!(parse_clock(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn offers_made_are_spelled_in_one_column_and_read_back_the_same() {
        let mut made = OffersMade::default();
        assert_eq!(offers_made_text(&made), None);
        made.set(Proposal::Draw, Player::O, 3);
        made.set(Proposal::Takeback, Player::X, 0);
        made.set(Proposal::Draw, Player::X, 12);
        let text = offers_made_text(&made).unwrap();
        assert_eq!(text, "draw/x:12 draw/o:3 takeback/x:0");
        assert_eq!(parse_offers_made(&text), Some(made));
        for bad in [
            "",
            " ",
            "draw/x",
            "draw/x:",
            "draw/z:1",
            "rematch/x:1",
            "draw/x:-1",
            "draw/x:+1",
            "draw/x:99999999999",
            "draw/x:1 draw/x:2",
            "draw:x/1",
        ] {
            assert_eq!(parse_offers_made(bad), None, "{bad:?}");
        }
    }
}
