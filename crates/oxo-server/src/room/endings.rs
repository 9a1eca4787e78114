//! How a round ends other than on the board: resignation, abort, a draw
//! by agreement, a claim against a seat that left, and the takeback that
//! an accepted offer makes.

use std::time::{Duration, Instant};

use oxo_core::{Outcome, Player, TimeControl};
use serde::Serialize;

use super::{Opponent, Room, RoomError};

/// Something one seat offers and the other accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proposal {
    /// End the round drawn, by agreement.
    Draw,
    /// Take back the proposer's last move (and the reply after it).
    Takeback,
}

impl std::fmt::Display for Proposal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Proposal::Draw => "draw",
            Proposal::Takeback => "takeback",
        })
    }
}

/// How many moves of its own each seat had made in the round when it last
/// offered a draw and asked for a takeback. An offer withdrawn, declined or
/// ended by a move may be made again only once the seat has moved since
/// (lichess limits offers too): otherwise a seat could offer over and
/// over, each offer a message on the other's screen. A takeback granted
/// forgets them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OffersMade {
    /// Per seat, X's first.
    draw: [Option<u32>; 2],
    /// Per seat, X's first.
    takeback: [Option<u32>; 2],
}

impl OffersMade {
    /// When `seat` last made `what`: its own moves in the round then.
    #[must_use]
    pub const fn at(&self, what: Proposal, seat: Player) -> Option<u32> {
        match what {
            Proposal::Draw => self.draw[seat.index()],
            Proposal::Takeback => self.takeback[seat.index()],
        }
    }

    /// `seat` made `what` after `moves` moves of its own.
    pub const fn set(&mut self, what: Proposal, seat: Player, moves: u32) {
        match what {
            Proposal::Draw => self.draw[seat.index()] = Some(moves),
            Proposal::Takeback => self.takeback[seat.index()] = Some(moves),
        }
    }

    /// Whether no offer was made in the round.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Why a round ended, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// k in a row.
    Line,
    /// The board filled with no line.
    Full,
    /// A seat resigned.
    Resign,
    /// A seat's clock ran out.
    Time,
    /// A seat left: the other claimed the round.
    Abandoned,
    /// Both seats agreed to a draw.
    Agreement,
    /// Called off before both sides had moved: it counts for nobody.
    Aborted,
    /// Called off because the seat to move let the time for its first move
    /// pass (a clock of minutes): it counts for nobody.
    NoStart,
}

impl Reason {
    /// The API's name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Line => "line",
            Reason::Full => "full",
            Reason::Resign => "resign",
            Reason::Time => "time",
            Reason::Abandoned => "abandoned",
            Reason::Agreement => "agreement",
            Reason::Aborted => "aborted",
            Reason::NoStart => "nostart",
        }
    }

    /// The reason `text` names.
    #[must_use]
    pub fn parse(text: &str) -> Option<Reason> {
        [
            Reason::Line,
            Reason::Full,
            Reason::Resign,
            Reason::Time,
            Reason::Abandoned,
            Reason::Agreement,
            Reason::Aborted,
            Reason::NoStart,
        ]
        .into_iter()
        .find(|r| r.as_str() == text)
    }
}

/// How a round ended other than on the board (a line or a full board the
/// moves show): the reason and the winner, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// Why.
    pub reason: Reason,
    /// Who won (`None`: drawn, or aborted).
    pub winner: Option<Player>,
}

impl Ending {
    /// An ending that makes sense: a resignation or an abandoned round has
    /// a winner; an agreement or a round called off has none; a round out of time has
    /// one, or none when the other seat could not have won; lines and full
    /// boards are the board's, never stored.
    #[must_use]
    pub fn new(reason: Reason, winner: Option<Player>) -> Option<Ending> {
        let fits = match reason {
            Reason::Resign | Reason::Abandoned => winner.is_some(),
            Reason::Time => true,
            Reason::Agreement | Reason::Aborted | Reason::NoStart => winner.is_none(),
            Reason::Line | Reason::Full => false,
        };
        fits.then_some(Ending { reason, winner })
    }

    /// The round's result for the score; `None` for an aborted round,
    /// which counts for nobody.
    #[must_use]
    pub const fn outcome(self) -> Option<Outcome> {
        match (self.reason, self.winner) {
            (Reason::Aborted | Reason::NoStart, _) => None,
            (_, Some(p)) => Some(Outcome::Win(p)),
            (_, None) => Some(Outcome::Draw),
        }
    }
}

impl Room {
    /// `seat` resigns the round: the other seat wins it.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`];
    /// [`RoomError::AbortOnly`] until both sides have moved.
    pub fn resign(&self, seat: Player, version: Option<u64>) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_position(version)?;
        if !self.both_moved() {
            return Err(RoomError::AbortOnly);
        }
        Ok(self.finish(Ending {
            reason: Reason::Resign,
            winner: Some(seat.other()),
        }))
    }

    /// Either seat calls the round off while it is young: until both sides
    /// have made a move (lichess's rule), so that a player can leave a game
    /// whose opponent never showed up without losing it. It counts for
    /// nobody. A game still waiting for seat O is cancelled so (only its
    /// creator holds a seat): it ends, leaves the lobby, and neither its
    /// invite nor its lobby entry seats anyone after
    /// ([`RoomError::Cancelled`]).
    ///
    /// # Errors
    /// [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::TooLateToAbort`] once both sides have moved.
    pub fn abort(&self, version: Option<u64>) -> Result<Room, RoomError> {
        if !self.seated() && !self.cancelled() {
            self.check_version(version)?;
            return Ok(self.finish(Ending {
                reason: Reason::Aborted,
                winner: None,
            }));
        }
        self.playing()?;
        self.check_position(version)?;
        if self.both_moved() {
            return Err(RoomError::TooLateToAbort);
        }
        Ok(self.finish(Ending {
            reason: Reason::Aborted,
            winner: None,
        }))
    }

    /// Whether both seats have moved in the round: until then it can be
    /// aborted but not resigned or drawn, and a claim aborts it rather
    /// than winning it.
    pub(crate) fn both_moved(&self) -> bool {
        self.rec.moves.len() >= 2
    }

    /// The seats that made `what` since their last move in the round.
    pub(crate) fn made_since_moving(&self, what: Proposal) -> Vec<Player> {
        [Player::X, Player::O]
            .into_iter()
            .filter(|&seat| self.made_since_moving_by(what, seat))
            .collect()
    }

    /// Whether `seat` made `what` since its last move in the round (and so
    /// may not make it again before its next: see [`OffersMade`]).
    fn made_since_moving_by(&self, what: Proposal, seat: Player) -> bool {
        self.rec.offers_made.at(what, seat) == Some(self.moves_by(seat))
    }

    /// The moves `seat` has made in the round.
    fn moves_by(&self, seat: Player) -> u32 {
        let series = self.rec.series();
        let made = (0..self.rec.moves.len())
            .filter(|&ply| series.mover(ply) == seat)
            .count();
        u32::try_from(made).unwrap_or(u32::MAX)
    }

    /// The seat offering `what`, if one is.
    #[must_use]
    pub const fn proposal(&self, what: Proposal) -> Option<Player> {
        match what {
            Proposal::Draw => self.rec.draw,
            Proposal::Takeback => self.rec.takeback,
        }
    }

    /// `seat` offers `what`, or accepts it when the other seat offered it.
    /// An accepted draw ends the round by agreement; an accepted takeback
    /// takes back the proposer's last move and the reply after it, if any,
    /// so that it is the proposer's move again.
    ///
    /// Against the computer there is no waiting: a takeback is granted at
    /// once, and a draw is accepted when `computer_accepts` (the caller's
    /// verdict on this version of the room) and declined otherwise. A
    /// pending draw offer stands through the offerer's own move and is
    /// declined by the other side's.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`];
    /// [`RoomError::NothingToTakeBack`] when the proposer has no move in
    /// the round; [`RoomError::AbortOnly`] for a draw before both sides
    /// have moved; [`RoomError::Proposed`] when `seat` offered already;
    /// [`RoomError::OfferedThisMove`] when it made this offer since its
    /// last move (see [`OffersMade`]); [`RoomError::DrawDeclined`] by the
    /// computer.
    pub fn propose(
        &self,
        seat: Player,
        what: Proposal,
        version: Option<u64>,
        computer_accepts: bool,
    ) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        if what == Proposal::Draw && !self.both_moved() {
            return Err(RoomError::AbortOnly);
        }
        let pending = self.proposal(what);
        if pending == Some(seat) {
            return Err(RoomError::Proposed(what, seat.other()));
        }
        if pending.is_none() && self.made_since_moving_by(what, seat) {
            return Err(RoomError::OfferedThisMove(what));
        }
        let proposer = pending.unwrap_or(seat);
        let keep = match what {
            Proposal::Takeback => Some(self.before_last_move_of(proposer)?),
            Proposal::Draw => None,
        };
        let accepted = pending.is_some() || matches!(self.rec.opponent, Opponent::Computer(_));
        if !accepted {
            let mut next = self.clone();
            match what {
                Proposal::Draw => next.rec.draw = Some(seat),
                Proposal::Takeback => next.rec.takeback = Some(seat),
            }
            next.rec.offers_made.set(what, seat, self.moves_by(seat));
            next.rec.version += 1;
            return Ok(next);
        }
        match keep {
            Some(keep) => self.take_back_to(keep),
            None if pending.is_some() || computer_accepts => Ok(self.finish(Ending {
                reason: Reason::Agreement,
                winner: None,
            })),
            None => Err(RoomError::DrawDeclined),
        }
    }

    /// `seat` withdraws its own offer of `what`, or declines the other's,
    /// while the round is being played (a finished round has no offers,
    /// and nothing in it changes).
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`];
    /// [`RoomError::NoProposal`] when nothing is offered.
    pub fn decline(&self, what: Proposal, version: Option<u64>) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        if self.proposal(what).is_none() {
            return Err(RoomError::NoProposal(what));
        }
        let mut next = self.clone();
        match what {
            Proposal::Draw => next.rec.draw = None,
            Proposal::Takeback => next.rec.takeback = None,
        }
        next.rec.version += 1;
        Ok(next)
    }

    /// Whether `seat` may claim the round at all, whoever is connected:
    /// the round is on, `version` current, the opponent a person and to
    /// move, and, once both sides have moved (a claim before aborts the
    /// round), the game not one of correspondence (whose players may be
    /// away for days between moves: its clock decides). The seat that
    /// would be absent.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::ClaimAgainstComputer`],
    /// [`RoomError::ClaimInCorrespondence`], [`RoomError::NotTheirMove`].
    pub fn claimable(&self, seat: Player, version: Option<u64>) -> Result<Player, RoomError> {
        let to_move = self.playing()?;
        self.check_position(version)?;
        if matches!(self.rec.opponent, Opponent::Computer(_)) {
            return Err(RoomError::ClaimAgainstComputer);
        }
        let absent = seat.other();
        let correspondence = self
            .rec
            .clock
            .is_some_and(|clock| matches!(clock.control(), TimeControl::Correspondence { .. }));
        if correspondence && self.both_moved() {
            return Err(RoomError::ClaimInCorrespondence(absent));
        }
        if to_move != absent {
            return Err(RoomError::NotTheirMove(absent));
        }
        Ok(absent)
    }

    /// `seat` claims the round because the other seat has left: allowed
    /// while it is the absent seat's move and it has had no live
    /// connection for `wait` (see [`CLAIM_AFTER`](super::CLAIM_AFTER)).
    /// The round is the claimant's once both seats have moved in it, and
    /// aborted before (the absent seat left without a move of its own).
    /// `gone_since` is when it lost its last connection (`None`: it has
    /// one now); `counts_from`, if any, is when its absence starts to
    /// count, if later (after an outage of the change feed, by when the
    /// other servers have repeated who is connected to them); `now` is the
    /// time of the request: the room reads no clock.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::ClaimAgainstComputer`],
    /// [`RoomError::ClaimInCorrespondence`], [`RoomError::NotTheirMove`],
    /// [`RoomError::StillHere`], [`RoomError::TooSoon`].
    pub fn claim(
        &self,
        seat: Player,
        version: Option<u64>,
        gone_since: Option<Instant>,
        counts_from: Option<Instant>,
        now: Instant,
        wait: Duration,
    ) -> Result<Room, RoomError> {
        let absent = self.claimable(seat, version)?;
        let since = gone_since.ok_or(RoomError::StillHere(absent, wait))?;
        let counted = counts_from.map_or(since, |from| since.max(from));
        // In durations, not instants, so that a huge `wait` cannot
        // overflow; `counted` may lie ahead (a server just back in touch).
        let left = match counted.checked_duration_since(now) {
            Some(ahead) => ahead.saturating_add(wait),
            None => wait.saturating_sub(now.saturating_duration_since(counted)),
        };
        if !left.is_zero() {
            return Err(RoomError::TooSoon {
                seat: absent,
                gone: now.saturating_duration_since(since),
                left,
            });
        }
        // Gone before their first move of the round, as on lichess: the
        // round is aborted (it counts for nobody), as Abort would.
        let ending = if self.both_moved() {
            Ending {
                reason: Reason::Abandoned,
                winner: Some(seat),
            }
        } else {
            Ending {
                reason: Reason::Aborted,
                winner: None,
            }
        };
        Ok(self.finish(ending))
    }

    /// How many of the round's moves stay when `proposer`'s last move (and
    /// any reply after it) is taken back.
    fn before_last_move_of(&self, proposer: Player) -> Result<usize, RoomError> {
        let series = self.rec.series();
        (0..self.rec.moves.len())
            .rev()
            .find(|&ply| series.mover(ply) == proposer)
            .ok_or(RoomError::NothingToTakeBack)
    }

    /// The room with only the round's first `keep` moves, offers cleared.
    fn take_back_to(&self, keep: usize) -> Result<Room, RoomError> {
        let mut next = self.clone();
        next.rec.moves.truncate(keep);
        next.game = self.rec.series().game(self.rec.rules);
        for &cell in &next.rec.moves {
            next.game
                .play(cell)
                .map_err(|e| RoomError::of_move(e, self.rec.rules))?;
        }
        next.rec.draw = None;
        next.rec.takeback = None;
        // Another position, agreed to: either seat may offer anew (its own
        // moves counted again would pass for ones it made after offering).
        next.rec.offers_made = OffersMade::default();
        next.rec.version += 1;
        next.rec.position_version = next.rec.version;
        Ok(next)
    }
}
