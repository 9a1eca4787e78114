//! One room: a series of rounds between two seats, as a pure state machine.
//!
//! Nothing here does I/O or knows about HTTP. A request becomes a call on
//! [`Room`] that either refuses (a [`RoomError`], the room unchanged) or
//! returns the changed room, which the caller commits to the store before it
//! replaces the old one: an acknowledged change is always a durable one.
//!
//! This file holds the room, its seats and its series of rounds (join,
//! play, rematch) and what the store keeps of it; the rest is by job:
//! `endings.rs` (resign, abort, draw and takeback offers, claims),
//! `setup.rs` (what a new room may be), `clocks.rs` (timed rooms), `keys.rs`
//! (idempotency keys) and `view.rs` (what the API shows).

use oxo_ai::StrategyKind;
use oxo_core::{
    BoardSize, Cell, Clock, Coords, Game, MoveError, Outcome, Player, Rules, Scoreboard, Series,
    Status, TimeControl,
};
use std::time::Duration;

use crate::id::{GameId, TokenHash};
use crate::name::PlayerName;

mod clocks;
mod endings;
mod keys;
mod setup;
mod view;

pub use clocks::{ClockView, GIFT_MS};
pub use endings::{Ending, OffersMade, Proposal, Reason};
pub use keys::{KEYS_KEPT, Keyed, Recall, Request};
pub use setup::{
    ClockAsk, DAYS, INCREMENT_SECONDS, MINUTES, RoomSetup, SetupError, check_opponent, server_rules,
};
pub use view::{
    GameView, Made, Offers, PlayedRound, Players, RecordView, RoundStatus, RoundView, Score, Seats,
    Summary, Viewer, computer_name,
};

/// The longest side the server offers: beyond it a board no longer fits a
/// screen, and every update would carry a very long board string.
pub const SERVER_MAX_SIDE: u32 = 32;

/// How long a seat must have had no live connection, while it is its move,
/// before the other seat may claim the round ([`Room::claim`]): the
/// default of `HubConfig::claim_after`.
pub const CLAIM_AFTER: Duration = Duration::from_secs(30);

/// Who holds seat O: a second person, who joins with the invite link, or
/// the computer playing a strategy (the same type as the CLI's `--o`).
pub type Opponent = oxo_ai::PlayerKind;

/// A request the room refuses; the room is left as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomError {
    /// The game refuses the move: the core's own error, with the size of
    /// the board it was tried on, which the message names.
    #[error("{}", refusal(.error, *.size))]
    Move {
        /// Why.
        error: MoveError,
        /// The board's size.
        size: BoardSize,
    },
    /// Seat O is still empty.
    #[error("waiting for the other player to join")]
    Waiting,
    /// The game was cancelled before anyone took seat O.
    #[error("the player who opened this game has cancelled it; nobody can join it now")]
    Cancelled,
    /// A seat's request in a game cancelled before anyone took seat O:
    /// it had no round, so there is nothing to play, end or play again.
    #[error(
        "this game was cancelled before anyone joined it: it has no round to play, end or play again; start a new game"
    )]
    CancelledUnjoined,
    /// The move was chosen against an older state.
    #[error(
        "{} {sent}: the game is at version {current}",
        if sent > current { "the game has no version" } else { "stale version" }
    )]
    Stale {
        /// The version the client sent.
        sent: u64,
        /// The room's version.
        current: u64,
    },
    /// Someone holds the seat already.
    #[error("seat {} is taken", .0.name())]
    SeatTaken(Player),
    /// A join sent the token of seat X: one token never holds both seats.
    #[error(
        "that token holds seat x in this game; a joiner takes seat o with a token of its own \
         (or none, and the server makes one)"
    )]
    OwnToken,
    /// The token holds neither seat.
    #[error("that token holds no seat in this game")]
    NotASeat,
    /// A rematch was asked for before the round ended.
    #[error("the game is still being played")]
    StillPlaying,
    /// This seat has offered a rematch already; the other has not answered.
    #[error("you have offered a rematch; waiting for {} to accept", .0.name())]
    OfferPending(Player),
    /// Seat O of this room is joined only with its invite, and the request
    /// had none or another (or came from the lobby for an unlisted room).
    #[error(
        "the invite is missing or not valid for this game: seat o is joined only with the game's invite link; ask the player who started it for the link"
    )]
    NoInvite,
    /// The idempotency key was sent before by this seat with another
    /// request: a key names one request.
    #[error(
        "this Idempotency-Key was sent before with another request; send a new key with each new request"
    )]
    KeyReused,
    /// Time given in a game without a clock of minutes.
    #[error("only a clock of minutes takes time given: this game has none, or days a move")]
    NoTimeToGive,
    /// Nothing to withdraw or decline: no rematch is offered.
    #[error("there is no rematch offer to withdraw or decline")]
    NoRematch,
    /// The round has ended (resign, abort, offers and claims need it on).
    #[error("the round is over")]
    RoundOver,
    /// Both sides have moved: a round is aborted only before that.
    #[error("a round can be aborted only until both sides have moved; resign instead")]
    TooLateToAbort,
    /// A resignation or a draw offer before both sides have moved: then a
    /// round is only aborted, which counts for nobody (lichess's rule), so
    /// that a game is never scored before each side has played in it.
    #[error(
        "until both sides have moved, a round cannot be resigned or drawn, only aborted (which counts for nobody)"
    )]
    AbortOnly,
    /// A takeback asked for by a seat with no move in the round.
    #[error("you have no move to take back in this round")]
    NothingToTakeBack,
    /// This seat's offer waits for the other's answer.
    #[error("you have offered a {}; waiting for {} to answer", .0, .1.name())]
    Proposed(Proposal, Player),
    /// This seat made this offer since its last move (and it was
    /// withdrawn, declined or ended by a move): it may offer again after
    /// its next move.
    #[error(
        "you made a {0} offer since your last move; you can make it again after your next move"
    )]
    OfferedThisMove(Proposal),
    /// Nothing to withdraw or decline.
    #[error("there is no {0} offer to withdraw or decline")]
    NoProposal(Proposal),
    /// The computer declines a draw while it can still win.
    #[error("the computer declines the draw: it can still win, or cannot tell on this board")]
    DrawDeclined,
    /// A claim against the computer, which never leaves.
    #[error("the computer never leaves the board: there is no win to claim")]
    ClaimAgainstComputer,
    /// A claim in a correspondence game, where a player may be away for
    /// days between moves: only the move's deadline decides.
    #[error(
        "this is a correspondence game: {} may be away between moves and has until the move's deadline, when the clock decides the round; there is no win to claim",
        .0.name()
    )]
    ClaimInCorrespondence(Player),
    /// A claim while it is the claimant's own move.
    #[error("the round can be claimed only while it is {}'s move", .0.name())]
    NotTheirMove(Player),
    /// A claim while the other seat is connected.
    #[error("{} is connected; the round can be claimed once they have been gone for {} s", .0.name(), .1.as_secs())]
    StillHere(Player, Duration),
    /// A claim while this server cannot know whether the other seat is
    /// connected: it has lost touch with the other servers sharing the
    /// store (its change feed is down), on any of which that seat may be.
    #[error(
        "this server has lost touch with the other servers, so it cannot tell whether {} is connected; try again in a moment",
        .0.name()
    )]
    OutOfTouch(Player),
    /// A claim before the other seat has been gone long enough.
    #[error(
        "{} has been gone for {} s; the round can be claimed in {} s",
        .seat.name(),
        .gone.as_secs(),
        .left.as_secs_f64().ceil()
    )]
    TooSoon {
        /// The absent seat.
        seat: Player,
        /// How long it has been gone.
        gone: Duration,
        /// How long until the round can be claimed.
        left: Duration,
    },
    /// The seat to move ran out of time before the change arrived.
    #[error("{} has run out of time", .0.name())]
    OutOfTime(Player),
}

/// A move the game refuses, as the web game says it: the cell by row and
/// column (from 0), and the board's size when the cell is off it.
fn refusal(error: &MoveError, size: BoardSize) -> String {
    match *error {
        MoveError::OffBoard { row, col } => {
            format!("row {row}, column {col} is off the {size} board")
        }
        MoveError::Occupied { cell, .. } => {
            format!("row {}, column {} is already taken", cell.row, cell.col)
        }
        MoveError::NotYourTurn { to_move, .. } => format!("it is {to_move}'s turn"),
        MoveError::GameOver => "the game is over".to_owned(),
    }
}

impl RoomError {
    /// The room's refusal of a move the game refuses on `rules`' board.
    fn of_move(error: MoveError, rules: Rules) -> RoomError {
        RoomError::Move {
            error,
            size: rules.size(),
        }
    }
}

/// What a request to take seat O shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The invite (`None`: the request had none).
    Invite(Option<String>),
    /// The room's lobby entry: a listed room is open to anyone.
    Lobby,
}

/// A room: its rules, its seats, the round being played and the score so far.
#[derive(Clone, Debug)]
pub struct Room {
    /// Everything but the board, which is rebuilt from the moves.
    rec: RoomRecord,
    game: Game,
}

impl Room {
    /// A new room at version 1: X is held by the token behind `x_token`; against the computer
    /// seat O is the computer's from the start.
    #[must_use]
    pub fn new(
        id: GameId,
        watch: GameId,
        rules: Rules,
        opponent: Opponent,
        first: Player,
        x_token: TokenHash,
    ) -> Room {
        Room {
            rec: RoomRecord {
                id,
                watch,
                rules,
                opponent,
                x_token,
                o_token: None,
                round: 1,
                first,
                moves: Vec::new(),
                score: Scoreboard::default(),
                version: 1,
                position_version: 1,
                offer: None,
                entry: None,
                invite: None,
                names: [None, None],
                ending: None,
                draw: None,
                takeback: None,
                offers_made: OffersMade::default(),
                keys: Vec::new(),
                clock: None,
            },
            game: Game::starting_with(rules, first),
        }
    }

    /// Rebuild a room from what the store kept, replaying the current
    /// round's moves through the rules.
    ///
    /// # Errors
    /// A stored move the rules refuse: the record is corrupt.
    pub fn restore(rec: RoomRecord) -> Result<Room, String> {
        let mut game = rec.series().game(rec.rules);
        for (ply, &cell) in rec.moves.iter().enumerate() {
            game.play(cell).map_err(|e| {
                format!(
                    "game {}: stored move {} refused: {e}",
                    rec.id.for_log(),
                    ply + 1
                )
            })?;
        }
        Ok(Room { rec, game })
    }

    /// What the store keeps of this room.
    #[must_use]
    pub fn record(&self) -> RoomRecord {
        self.rec.clone()
    }

    /// The same new room, listed in the lobby under `entry` (its open
    /// game is joined through that id, and, once seated, it is watched
    /// through its watch id).
    #[must_use]
    pub fn listed(mut self, entry: GameId) -> Room {
        self.rec.entry = Some(entry);
        self
    }

    /// The same new room, its seat O taken only with the invite behind
    /// `invite` (or through the lobby, when listed).
    #[must_use]
    pub fn invited(mut self, invite: TokenHash) -> Room {
        self.rec.invite = Some(invite);
        self
    }

    /// The same room with `seat` named `name` (`None`: unnamed), as part
    /// of the change that seats them: creating the room for X, joining it
    /// for O.
    #[must_use]
    pub fn named(mut self, seat: Player, name: Option<PlayerName>) -> Room {
        self.rec.names[seat.index()] = name;
        self
    }

    /// What the players and spectators call each seat, X's first: the
    /// names the players chose, and the computer's difficulty.
    #[must_use]
    pub fn players(&self) -> Players {
        Players::new(self.rec.opponent, self.rec.rules, &self.rec.names)
    }

    /// The same new room, its rounds played under `control`.
    #[must_use]
    pub fn timed(mut self, control: TimeControl) -> Room {
        self.rec.clock = Some(Clock::new(control));
        self
    }

    /// The room's id.
    #[must_use]
    pub const fn id(&self) -> &GameId {
        &self.rec.id
    }

    /// The id that spectators use: it reads the room and nothing else.
    #[must_use]
    pub const fn watch_id(&self) -> &GameId {
        &self.rec.watch
    }

    /// The rules of every round.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rec.rules
    }

    /// Who holds seat O.
    #[must_use]
    pub const fn opponent(&self) -> Opponent {
        self.rec.opponent
    }

    /// The round being played.
    #[must_use]
    pub const fn game(&self) -> &Game {
        &self.game
    }

    /// The current round's moves, in order.
    #[must_use]
    pub fn moves(&self) -> &[Cell] {
        &self.rec.moves
    }

    /// The current round, from 1.
    #[must_use]
    pub const fn round(&self) -> u32 {
        self.rec.round
    }

    /// Increases with every change.
    #[must_use]
    pub const fn version(&self) -> u64 {
        self.rec.version
    }

    /// The seat `token` holds, if any. Tokens are compared in constant time
    /// so that timing reveals nothing about a seat's token.
    #[must_use]
    pub fn seat_of(&self, token: &str) -> Option<Player> {
        if self.rec.x_token.matches(token) {
            Some(Player::X)
        } else if self.rec.o_token.as_ref().is_some_and(|t| t.matches(token)) {
            Some(Player::O)
        } else {
            None
        }
    }

    /// Whether both seats are filled (the computer fills O by itself).
    #[must_use]
    pub const fn seated(&self) -> bool {
        matches!(self.rec.opponent, Opponent::Computer(_)) || self.rec.o_token.is_some()
    }

    /// The strategy that should move now, if it is the computer's turn.
    #[must_use]
    pub fn computer_to_move(&self) -> Option<StrategyKind> {
        match (self.rec.opponent, self.to_move()) {
            (Opponent::Computer(kind), Some(Player::O)) => Some(kind),
            _ => None,
        }
    }

    /// The seat to move, while the round is being played (both seats held,
    /// the round not ended).
    #[must_use]
    pub fn to_move(&self) -> Option<Player> {
        match self.game.status() {
            Status::InProgress { to_move } if self.seated() && self.rec.ending.is_none() => {
                Some(to_move)
            }
            _ => None,
        }
    }

    /// Whether the game was cancelled while it waited for seat O: its
    /// creator aborted it before anyone joined, and nobody can now.
    #[must_use]
    pub const fn cancelled(&self) -> bool {
        !self.seated() && self.rec.ending.is_some()
    }

    /// Why a request that needs both seats is refused while seat O is
    /// empty: the game waits for it, or was cancelled.
    const fn unseated(&self) -> RoomError {
        if self.rec.ending.is_some() {
            RoomError::CancelledUnjoined
        } else {
            RoomError::Waiting
        }
    }

    /// Whether the current round has ended, on the board or otherwise.
    #[must_use]
    pub const fn round_over(&self) -> bool {
        self.rec.ending.is_some() || self.game.is_over()
    }

    /// Why the current round ended (`None` while it is played).
    #[must_use]
    pub fn reason(&self) -> Option<Reason> {
        match (self.rec.ending, self.game.outcome()) {
            (Some(ending), _) => Some(ending.reason),
            (None, Some(Outcome::Win(_))) => Some(Reason::Line),
            (None, Some(Outcome::Draw)) => Some(Reason::Full),
            (None, None) => None,
        }
    }

    /// Seat O taken by the holder of the token behind `token`, admitted
    /// by `admission`: the room's invite, or its lobby entry when it is
    /// listed. A room stored before invites existed has none and admits
    /// anyone who has its id.
    ///
    /// # Errors
    /// [`RoomError::SeatTaken`] when a person or the computer holds it;
    /// [`RoomError::Cancelled`] once its creator has cancelled it;
    /// [`RoomError::NoInvite`] when the admission does not hold.
    pub fn join(&self, token: TokenHash, admission: &Admission) -> Result<Room, RoomError> {
        if self.seated() {
            return Err(RoomError::SeatTaken(Player::O));
        }
        if self.cancelled() {
            return Err(RoomError::Cancelled);
        }
        let admitted = match (admission, &self.rec.invite) {
            (Admission::Lobby, _) => self.rec.entry.is_some(),
            (Admission::Invite(_), None) => true,
            (Admission::Invite(given), Some(invite)) => {
                given.as_deref().is_some_and(|g| invite.matches(g))
            }
        };
        if !admitted {
            return Err(RoomError::NoInvite);
        }
        let mut next = self.clone();
        next.rec.o_token = Some(token);
        next.rec.version += 1;
        // The first round starts now.
        next.rec.position_version = next.rec.version;
        Ok(next)
    }

    /// `seat` plays at `at`, chosen when the room was at `version`
    /// (`None` skips that check, for clients that do not track versions).
    ///
    /// The checks run in the order a client can act on: the round must be
    /// on and the seat's turn, the version current (the position as it was
    /// at `version`: see [`RoomRecord::position_version`]), then the cell
    /// playable.
    ///
    /// # Errors
    /// A [`RoomError`] naming the first check that failed.
    pub fn play(
        &self,
        seat: Player,
        at: Coords,
        version: Option<u64>,
    ) -> Result<(Room, Option<Outcome>), RoomError> {
        if !self.seated() {
            return Err(self.unseated());
        }
        let refused = |error| RoomError::of_move(error, self.rec.rules);
        // The game's own checks that come before the version's: a move
        // out of turn is refused as such even against an old state.
        let Some(to_move) = self.to_move() else {
            return Err(refused(MoveError::GameOver));
        };
        if seat != to_move {
            return Err(refused(MoveError::NotYourTurn {
                mover: seat,
                to_move,
            }));
        }
        self.check_position(version)?;
        let cell = at.to_cell(self.rec.rules).map_err(refused)?;
        let mut next = self.clone();
        let result = next.game.play_as(seat, cell).map_err(refused)?;
        next.rec.moves.push(cell);
        // A move declines the other side's draw offer (the mover's own
        // stands) and ends any takeback request: the position it was about
        // is gone.
        if next.rec.draw == Some(seat.other()) {
            next.rec.draw = None;
        }
        next.rec.takeback = None;
        let outcome = result.outcome();
        if let Some(outcome) = outcome {
            // A move that ends the round ends the mover's offer with it: no
            // offer outlives its round.
            next.rec.draw = None;
            let mut series = next.rec.series();
            series.record(outcome);
            next.rec.set_series(series);
        }
        next.rec.version += 1;
        next.rec.position_version = next.rec.version;
        Ok((next, outcome))
    }

    /// `seat` asks for the next round. Against the computer it begins at
    /// once; between two people the first to ask offers it (the room
    /// records the offer) and the next round begins when the other seat
    /// asks too: a cleared board, the other seat starting. `version`, when
    /// given, is the state the request was made against, so that a
    /// repeated request cannot skip a round.
    ///
    /// # Errors
    /// [`RoomError::Stale`] for an old version, [`RoomError::Waiting`] while
    /// seat O is empty, [`RoomError::StillPlaying`] before the current round
    /// has ended, [`RoomError::OfferPending`] when `seat` has offered
    /// already.
    pub fn rematch(&self, seat: Player, version: Option<u64>) -> Result<Room, RoomError> {
        if let Some(sent) = version
            && sent != self.rec.version
        {
            return Err(RoomError::Stale {
                sent,
                current: self.rec.version,
            });
        }
        if !self.seated() {
            return Err(self.unseated());
        }
        if !self.round_over() {
            return Err(RoomError::StillPlaying);
        }
        let mut next = self.clone();
        next.rec.version += 1;
        if self.rec.opponent == Opponent::Human && self.rec.offer != Some(seat.other()) {
            if self.rec.offer == Some(seat) {
                return Err(RoomError::OfferPending(seat.other()));
            }
            next.rec.offer = Some(seat);
            return Ok(next);
        }
        next.rec.offer = None;
        next.rec.ending = None;
        next.rec.draw = None;
        next.rec.takeback = None;
        next.rec.offers_made = OffersMade::default();
        let mut series = self.rec.series();
        series.next_round();
        next.rec.set_series(series);
        next.game = series.game(self.rec.rules);
        next.rec.moves.clear();
        next.rec.position_version = next.rec.version;
        Ok(next)
    }

    /// A seat withdraws its own offer of the next round, or declines the
    /// other seat's.
    ///
    /// # Errors
    /// [`RoomError::Stale`] for an old version, [`RoomError::Waiting`] while
    /// seat O is empty ([`RoomError::CancelledUnjoined`] once the game was
    /// cancelled so), [`RoomError::StillPlaying`] before the current round
    /// has ended, [`RoomError::NoRematch`] when no rematch is offered.
    pub fn decline_rematch(&self, version: Option<u64>) -> Result<Room, RoomError> {
        self.check_version(version)?;
        if !self.seated() {
            return Err(self.unseated());
        }
        if !self.round_over() {
            return Err(RoomError::StillPlaying);
        }
        if self.rec.offer.is_none() {
            return Err(RoomError::NoRematch);
        }
        let mut next = self.clone();
        next.rec.offer = None;
        next.rec.version += 1;
        Ok(next)
    }

    /// The seat to move, if the round is being played; else why not.
    fn playing(&self) -> Result<Player, RoomError> {
        if !self.seated() {
            return Err(self.unseated());
        }
        self.to_move().ok_or(RoomError::RoundOver)
    }

    /// For a move, a resignation, an abort or a claim, whose meaning is
    /// the position's alone: stale only if the position changed since
    /// `version` (see [`RoomRecord::position_version`]). An offer, an
    /// answer or time given in between leaves them meaning what they
    /// meant, so none of those, made in the same moment or over and over,
    /// can make them fail.
    pub(crate) fn check_position(&self, version: Option<u64>) -> Result<(), RoomError> {
        match version {
            Some(sent) if !(self.rec.position_version..=self.rec.version).contains(&sent) => {
                Err(RoomError::Stale {
                    sent,
                    current: self.rec.version,
                })
            }
            _ => Ok(()),
        }
    }

    /// For every other change (an offer's answer must answer the offer
    /// that stands): stale unless `version` is the room's.
    fn check_version(&self, version: Option<u64>) -> Result<(), RoomError> {
        match version {
            Some(sent) if sent != self.rec.version => Err(RoomError::Stale {
                sent,
                current: self.rec.version,
            }),
            _ => Ok(()),
        }
    }

    /// The round ended by `ending` (not on the board): scored unless
    /// aborted, every offer cleared. For a round being played (or, aborted,
    /// a game still waiting for seat O); the rules that allow each ending
    /// are the callers'.
    #[must_use]
    pub(crate) fn finish(&self, ending: Ending) -> Room {
        let mut next = self.clone();
        if let Some(outcome) = ending.outcome() {
            let mut series = next.rec.series();
            series.record(outcome);
            next.rec.set_series(series);
        }
        next.rec.ending = Some(ending);
        next.rec.draw = None;
        next.rec.takeback = None;
        next.rec.version += 1;
        next
    }
}

/// Everything the store keeps of a room; the board is rebuilt from `moves`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomRecord {
    /// The room's id.
    pub id: GameId,
    /// The room's read-only id, for spectators.
    pub watch: GameId,
    /// The rules of every round.
    pub rules: Rules,
    /// Who holds seat O.
    pub opponent: Opponent,
    /// Seat X's token, hashed.
    pub x_token: TokenHash,
    /// Seat O's token, once a person has joined.
    pub o_token: Option<TokenHash>,
    /// The current round, from 1.
    pub round: u32,
    /// Who started the current round.
    pub first: Player,
    /// The current round's moves, in order.
    pub moves: Vec<Cell>,
    /// Finished rounds.
    pub score: Scoreboard,
    /// The room's version.
    pub version: u64,
    /// The version at which the current position arose (a move, a
    /// takeback, the start of the round: a join or a rematch): a move sent
    /// against any version from it to `version` is not stale, as only
    /// offers, their answers and time given came after.
    pub position_version: u64,
    /// The seat that offered a rematch of the finished round, if one has
    /// (between two people a new round needs both).
    pub offer: Option<Player>,
    /// The lobby id of a listed room: its open game is joined through it
    /// (`None`: unlisted, reached only through the invite link).
    pub entry: Option<GameId>,
    /// The hash of the invite that takes seat O of a game between two
    /// people (`None`: against the computer, or stored before invites).
    pub invite: Option<TokenHash>,
    /// The name each person seated chose, X's first (`None`: none given).
    pub names: [Option<PlayerName>; 2],
    /// How the current round ended when not on the board (`None` while it
    /// is played, or when a line or a full board ended it).
    pub ending: Option<Ending>,
    /// The seat offering a draw in the current round.
    pub draw: Option<Player>,
    /// The seat asking to take back its last move.
    pub takeback: Option<Player>,
    /// When each seat last made each offer in the current round.
    pub offers_made: OffersMade,
    /// The idempotency keys of the latest changes and the seat that sent
    /// each, the newest last (at most [`KEYS_KEPT`]).
    pub keys: Vec<Keyed>,
    /// The current round's clock (`None`: the room is untimed).
    pub clock: Option<Clock>,
}

impl RoomRecord {
    /// The room's rounds as a series: the round being played, who
    /// started it, the score of the rounds before.
    #[must_use]
    pub const fn series(&self) -> Series {
        Series::resume(self.round, self.first, self.score)
    }

    /// Keep `series` as the room's rounds.
    fn set_series(&mut self, series: Series) {
        self.round = series.round();
        self.first = series.starter();
        self.score = series.score();
    }
}

#[cfg(test)]
mod tests;
