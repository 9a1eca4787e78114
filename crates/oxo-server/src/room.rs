//! One room: a series of rounds between two seats, as a pure state machine.
//!
//! Nothing here does I/O or knows about HTTP. A request becomes a call on
//! [`Room`] that either refuses (a [`RoomError`], the room unchanged) or
//! returns the changed room, which the caller commits to the store before it
//! replaces the old one: an acknowledged change is always a durable one.

use oxo_ai::StrategyKind;
use oxo_core::{
    BoardSize, Cell, Clock, Coords, Flagged, Game, MoveError, Outcome, Player, Rules, Scoreboard,
    Series, Status, TimeControl,
};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::id::{GameId, IdempotencyKey, TokenHash};
use crate::name::PlayerName;

/// The longest side the server offers: beyond it a board no longer fits a
/// screen, and every update would carry a very long board string.
pub const SERVER_MAX_SIDE: u32 = 32;

/// How long a seat must have had no live connection, while it is its move,
/// before the other seat may claim the round ([`Room::claim`]): the
/// default of `HubConfig::claim_after`.
pub const CLAIM_AFTER: Duration = Duration::from_secs(30);

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
    /// The move was chosen against an older state.
    #[error("stale version {sent}: the game is at version {current}")]
    Stale {
        /// The version the client sent.
        sent: u64,
        /// The room's version.
        current: u64,
    },
    /// Someone holds the seat already.
    #[error("seat {} is taken", SeatName(*.0).as_str())]
    SeatTaken(Player),
    /// The token holds neither seat.
    #[error("that token holds no seat in this game")]
    NotASeat,
    /// A rematch was asked for before the round ended.
    #[error("the game is still being played")]
    StillPlaying,
    /// This seat has offered a rematch already; the other has not answered.
    #[error("you have offered a rematch; waiting for {} to accept", SeatName(*.0).as_str())]
    OfferPending(Player),
    /// Seat O of this room is taken with its invite, and the request had
    /// none or another.
    #[error(
        "seat o is taken with the game's invite link; ask the player who started it for the link"
    )]
    NoInvite,
    /// The idempotency key was sent before by this seat with another
    /// request: a key names one request.
    #[error(
        "this Idempotency-Key was sent before with another request; send a new key with each new request"
    )]
    KeyReused,
    /// The round has ended (resign, abort, offers and claims need it on).
    #[error("the round is over")]
    RoundOver,
    /// Both sides have moved: a round is aborted only before that.
    #[error("a round can be aborted only until both sides have moved; resign instead")]
    TooLateToAbort,
    /// A takeback asked for by a seat with no move in the round.
    #[error("you have no move to take back in this round")]
    NothingToTakeBack,
    /// This seat's offer waits for the other's answer.
    #[error("you have offered a {}; waiting for {} to answer", .0, SeatName(*.1).as_str())]
    Proposed(Proposal, Player),
    /// Nothing to withdraw or decline.
    #[error("there is no {0} offer to withdraw or decline")]
    NoProposal(Proposal),
    /// The computer declines a draw while it can still win.
    #[error("the computer declines the draw: it can still win, or cannot tell on this board")]
    DrawDeclined,
    /// A claim against the computer, which never leaves.
    #[error("the computer never leaves the board: there is no win to claim")]
    ClaimAgainstComputer,
    /// A claim while it is the claimant's own move.
    #[error("a win can be claimed only while it is {}'s move", SeatName(*.0).as_str())]
    NotTheirMove(Player),
    /// A claim while the other seat is connected.
    #[error("{} is connected; a win can be claimed once they have been gone for {} s", SeatName(*.0).as_str(), .1.as_secs())]
    StillHere(Player, Duration),
    /// A claim before the other seat has been gone long enough.
    #[error(
        "{} has been gone for {} s; the win can be claimed in {} s",
        SeatName(*.seat).as_str(),
        .gone.as_secs(),
        (.wait.saturating_sub(*.gone)).as_secs_f64().ceil()
    )]
    TooSoon {
        /// The absent seat.
        seat: Player,
        /// How long it has been gone.
        gone: Duration,
        /// How long it must be gone.
        wait: Duration,
    },
    /// The seat to move ran out of time before the change arrived.
    #[error("{} has run out of time", SeatName(*.0).as_str())]
    OutOfTime(Player),
}

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
    /// a winner; an agreement or an abort has none; a round out of time has
    /// one, or none when the other seat could not have won; lines and full
    /// boards are the board's, never stored.
    #[must_use]
    pub fn new(reason: Reason, winner: Option<Player>) -> Option<Ending> {
        let fits = match reason {
            Reason::Resign | Reason::Abandoned => winner.is_some(),
            Reason::Time => true,
            Reason::Agreement | Reason::Aborted => winner.is_none(),
            Reason::Line | Reason::Full => false,
        };
        fits.then_some(Ending { reason, winner })
    }

    /// The round's result for the score; `None` for an aborted round,
    /// which counts for nobody.
    #[must_use]
    pub const fn outcome(self) -> Option<Outcome> {
        match (self.reason, self.winner) {
            (Reason::Aborted, _) => None,
            (_, Some(p)) => Some(Outcome::Win(p)),
            (_, None) => Some(Outcome::Draw),
        }
    }
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
                offer: None,
                entry: None,
                invite: None,
                names: [None, None],
                ending: None,
                draw: None,
                takeback: None,
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

    /// The state players see; spectators see it under the watch id, so that
    /// nothing they are shown lets them act on the room.
    #[must_use]
    pub fn view(&self, viewer: Viewer) -> GameView {
        let (status, next, winner) = if !self.seated() {
            (RoundStatus::Waiting, None, None)
        } else if let Some(ending) = self.rec.ending {
            match ending.outcome() {
                None => (RoundStatus::Aborted, None, None),
                Some(Outcome::Win(p)) => (RoundStatus::Won, None, Some(p)),
                Some(Outcome::Draw) => (RoundStatus::Draw, None, None),
            }
        } else {
            match self.game.status() {
                Status::InProgress { to_move } => (RoundStatus::Playing, Some(to_move), None),
                Status::Over(Outcome::Win(p)) => (RoundStatus::Won, None, Some(p)),
                Status::Over(Outcome::Draw) => (RoundStatus::Draw, None, None),
            }
        };
        GameView {
            id: match viewer {
                Viewer::Player => self.rec.id.to_string(),
                Viewer::Spectator => self.rec.watch.to_string(),
            },
            watch: self.rec.watch.to_string(),
            size: self.rec.rules.size().to_string(),
            rows: self.rec.rules.rows(),
            cols: self.rec.rules.cols(),
            k: self.rec.rules.k(),
            board: self.game.to_string(),
            next: next.map(SeatName),
            status,
            reason: self.reason(),
            winner: winner.map(SeatName),
            line: self
                .game
                .winning_line()
                .map(|line| line.cells().map(|c| [c.row, c.col]).collect()),
            last: self.rec.moves.last().map(|c| [c.row, c.col]),
            moves: self.rec.moves.iter().map(|c| [c.row, c.col]).collect(),
            version: self.rec.version,
            round: self.rec.round,
            first: SeatName(self.rec.first),
            opponent: self.rec.opponent.name(),
            seats: Seats {
                x: true,
                o: self.seated(),
            },
            rematch: self.rec.offer.map(SeatName),
            offers: Offers {
                draw: self.rec.draw.map(SeatName),
                takeback: self.rec.takeback.map(SeatName),
            },
            clock: self.rec.clock.map(|clock| ClockView::of(&clock)),
            score: Score {
                x: self.rec.score.wins(Player::X),
                o: self.rec.score.wins(Player::O),
                draws: self.rec.score.draws(),
            },
            players: self.players(),
        }
    }

    /// A short summary, for lists such as the lobby's.
    #[must_use]
    pub fn summary(&self, viewer: Viewer) -> Summary {
        let view = self.view(viewer);
        Summary {
            id: view.id,
            size: view.size,
            k: view.k,
            opponent: view.opponent,
            status: view.status,
            reason: view.reason,
            next: view.next,
            winner: view.winner,
            round: view.round,
            moves: self.rec.moves.len(),
            score: view.score,
        }
    }

    /// Seat O taken by the holder of the token behind `token`, admitted
    /// by `admission`: the room's invite, or its lobby entry when it is
    /// listed. A room stored before invites existed has none and admits
    /// anyone who has its id.
    ///
    /// # Errors
    /// [`RoomError::SeatTaken`] when a person or the computer holds it;
    /// [`RoomError::NoInvite`] when the admission does not hold.
    pub fn join(&self, token: TokenHash, admission: &Admission) -> Result<Room, RoomError> {
        if self.seated() {
            return Err(RoomError::SeatTaken(Player::O));
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
        Ok(next)
    }

    /// `seat` plays at `at`, chosen when the room was at `version`
    /// (`None` skips that check, for clients that do not track versions).
    ///
    /// The checks run in the order a client can act on: the round must be
    /// on and the seat's turn, the version current, then the cell playable.
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
            return Err(RoomError::Waiting);
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
        if let Some(sent) = version
            && sent != self.rec.version
        {
            return Err(RoomError::Stale {
                sent,
                current: self.rec.version,
            });
        }
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
            return Err(RoomError::Waiting);
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
        let mut series = self.rec.series();
        series.next_round();
        next.rec.set_series(series);
        next.game = series.game(self.rec.rules);
        next.rec.moves.clear();
        Ok(next)
    }

    /// The seat to move, if the round is being played; else why not.
    fn playing(&self) -> Result<Player, RoomError> {
        if !self.seated() {
            return Err(RoomError::Waiting);
        }
        self.to_move().ok_or(RoomError::RoundOver)
    }

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
    /// aborted, every offer cleared. For a round being played; the rules
    /// that allow each ending are the callers'.
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

    /// `seat` resigns the round: the other seat wins it.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`].
    pub fn resign(&self, seat: Player, version: Option<u64>) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        Ok(self.finish(Ending {
            reason: Reason::Resign,
            winner: Some(seat.other()),
        }))
    }

    /// Either seat calls the round off while it is young: until both sides
    /// have made a move (lichess's rule), so that a player can leave a game
    /// whose opponent never showed up without losing it. It counts for
    /// nobody.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::TooLateToAbort`] once both sides have moved.
    pub fn abort(&self, version: Option<u64>) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        if self.rec.moves.len() >= 2 {
            return Err(RoomError::TooLateToAbort);
        }
        Ok(self.finish(Ending {
            reason: Reason::Aborted,
            winner: None,
        }))
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
    /// the round; [`RoomError::Proposed`] when `seat` offered already;
    /// [`RoomError::DrawDeclined`] by the computer.
    pub fn propose(
        &self,
        seat: Player,
        what: Proposal,
        version: Option<u64>,
        computer_accepts: bool,
    ) -> Result<Room, RoomError> {
        self.playing()?;
        self.check_version(version)?;
        let pending = self.proposal(what);
        if pending == Some(seat) {
            return Err(RoomError::Proposed(what, seat.other()));
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

    /// `seat` claims the round because the other seat has left: allowed
    /// while it is the absent seat's move and it has had no live
    /// connection for `wait` (see [`CLAIM_AFTER`]). `gone_since` is when it
    /// lost its last connection (`None`: it has one now), `now` the time
    /// of the request; the room reads no clock.
    ///
    /// # Errors
    /// [`RoomError::Waiting`], [`RoomError::RoundOver`], [`RoomError::Stale`],
    /// [`RoomError::ClaimAgainstComputer`], [`RoomError::NotTheirMove`],
    /// [`RoomError::StillHere`], [`RoomError::TooSoon`].
    pub fn claim(
        &self,
        seat: Player,
        version: Option<u64>,
        gone_since: Option<Instant>,
        now: Instant,
        wait: Duration,
    ) -> Result<Room, RoomError> {
        let to_move = self.playing()?;
        self.check_version(version)?;
        if matches!(self.rec.opponent, Opponent::Computer(_)) {
            return Err(RoomError::ClaimAgainstComputer);
        }
        let absent = seat.other();
        if to_move != absent {
            return Err(RoomError::NotTheirMove(absent));
        }
        let since = gone_since.ok_or(RoomError::StillHere(absent, wait))?;
        let gone = now.saturating_duration_since(since);
        if gone < wait {
            return Err(RoomError::TooSoon {
                seat: absent,
                gone,
                wait,
            });
        }
        Ok(self.finish(Ending {
            reason: Reason::Abandoned,
            winner: Some(seat),
        }))
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
        next.rec.version += 1;
        Ok(next)
    }
}

/// The clocks of a timed room: each change keeps them
/// ([`Room::clocked`]), and a seat whose time runs out loses the round.
/// Time is passed in, in milliseconds since the Unix
/// epoch.
impl Room {
    /// The current round's clock, for a timed room.
    #[must_use]
    pub const fn clock(&self) -> Option<&Clock> {
        self.rec.clock.as_ref()
    }

    /// Whether the round is being played: both seats held, not yet over.
    fn round_on(&self) -> bool {
        self.to_move().is_some()
    }

    /// When the seat to move runs out of time, while a timed round is
    /// being played and its clock runs (from the round's second move).
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.rec.clock.filter(|_| self.round_on())?.deadline()
    }

    /// The seat that has run out of time at `now`, while the round is on.
    #[must_use]
    pub fn flagged(&self, now: u64) -> Option<Player> {
        self.rec.clock.filter(|_| self.round_on())?.flagged(now)
    }

    /// The round ruled at `now` when the seat to move has run out of time:
    /// lost on time, or drawn when the other seat has no window left that
    /// it could complete (it could not have won; see
    /// [`Game::can_still_win`]). The flagged seat's clock stops at zero.
    /// `None` when no flag is due.
    #[must_use]
    pub fn rule_flag(&self, now: u64) -> Option<Room> {
        let side = self.flagged(now)?;
        let clock = self.rec.clock?;
        let winner = side.other();
        let mut next = self.finish(Ending {
            reason: Reason::Time,
            winner: self.game.can_still_win(winner).then_some(winner),
        });
        next.rec.clock = Some(clock.stopped(now));
        Some(next)
    }

    /// This room, made from `before` by a change at `now`, with its clock
    /// kept: a move made charges the mover's clock and starts the other's
    /// (from the round's second move; see [`oxo_core::Clock`]), moves taken
    /// back restart the clock of the seat to move, a round that ended
    /// stops its clock, and a new round starts with a fresh one.
    ///
    /// # Errors
    /// [`RoomError::OutOfTime`] when the seat whose clock runs had run out
    /// of time by `now`: the change came too late.
    pub fn clocked(mut self, before: &Room, now: u64) -> Result<Room, RoomError> {
        let Some(clock) = self.rec.clock else {
            return Ok(self);
        };
        let out = |Flagged(side)| RoomError::OutOfTime(side);
        let plies = self.rec.moves.len();
        let clock = if self.rec.round != before.rec.round {
            Clock::new(clock.control())
        } else if plies > before.rec.moves.len() {
            let mover = self.game.to_move().other();
            clock.punch(mover, plies, now).map_err(out)?
        } else if plies < before.rec.moves.len() {
            clock
                .taken_back(self.game.to_move(), plies, now)
                .map_err(out)?
        } else {
            clock
        };
        self.rec.clock = Some(if self.round_on() || !self.seated() {
            clock
        } else {
            clock.stopped(now)
        });
        Ok(self)
    }
}

/// A timed room's clocks as the API shows them. Times are milliseconds;
/// `x_ms` and `o_ms` are each seat's time left at `at`, the server's time
/// (since the Unix epoch) they were measured, and the seat in `running`
/// loses a millisecond for each one after it, until `deadline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// Each seat's time when a round starts (for correspondence, the time
    /// for each move).
    pub initial_ms: u64,
    /// Time added after each timed move (0 for correspondence).
    pub increment_ms: u64,
    /// Days for each move, for correspondence; `null` for a clock of
    /// minutes.
    pub days: Option<u64>,
    /// X's time left at `at`.
    pub x_ms: u64,
    /// O's time left at `at`.
    pub o_ms: u64,
    /// The seat whose clock runs (`null`: none, before the round's second
    /// move and once it is over).
    pub running: Option<SeatName>,
    /// When `x_ms` and `o_ms` were measured, while a clock runs.
    pub at: Option<u64>,
    /// When the running seat's time runs out.
    pub deadline: Option<u64>,
}

impl ClockView {
    /// The view of `clock`, as of when its running side's clock started.
    #[must_use]
    pub fn of(clock: &Clock) -> ClockView {
        let (initial_ms, increment_ms, days) = match clock.control() {
            TimeControl::Fischer { initial, increment } => (initial, increment, None),
            TimeControl::Correspondence { per_move } => {
                (per_move, 0, Some(per_move / oxo_core::DAY_MS))
            }
        };
        let running = clock.running_since();
        ClockView {
            initial_ms,
            increment_ms,
            days,
            x_ms: clock.stored_left(Player::X),
            o_ms: clock.stored_left(Player::O),
            running: running.map(|r| SeatName(r.side)),
            at: running.map(|r| r.since),
            deadline: clock.deadline(),
        }
    }

    /// The same clocks measured at `now` (a later time), or `None` when no
    /// clock runs or `now` is not later.
    #[must_use]
    pub fn as_of(&self, now: u64) -> Option<ClockView> {
        let (side, at) = (self.running?, self.at?);
        let passed = now.checked_sub(at).filter(|&passed| passed > 0)?;
        let mut later = *self;
        let left = match side.0 {
            Player::X => &mut later.x_ms,
            Player::O => &mut later.o_ms,
        };
        *left = left.saturating_sub(passed);
        later.at = Some(now);
        Some(later)
    }
}

/// Who a view is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// Someone who knows the room's id (the players).
    Player,
    /// Someone with the watch link.
    Spectator,
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

/// A seat as the API and the database name it: `"x"` or `"o"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatName(pub Player);

impl SeatName {
    /// `"x"` or `"o"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self.0 {
            Player::X => "x",
            Player::O => "o",
        }
    }

    /// The seat `text` names, in either case.
    #[must_use]
    pub fn parse(text: &str) -> Option<Player> {
        match text {
            "x" | "X" => Some(Player::X),
            "o" | "O" => Some(Player::O),
            _ => None,
        }
    }
}

impl Serialize for SeatName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Where the current round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RoundStatus {
    /// Seat O is still empty.
    Waiting,
    /// Moves are being made.
    Playing,
    /// Someone has k in a row.
    Won,
    /// Drawn: the board filled with no winner, or both agreed.
    Draw,
    /// Called off before both sides had moved; no result.
    Aborted,
}

/// Offers waiting for the other seat's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Offers {
    /// The seat offering a draw.
    pub draw: Option<SeatName>,
    /// The seat asking to take back its last move.
    pub takeback: Option<SeatName>,
}

/// Which seats are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Seats {
    /// Seat X (always held: its creator).
    pub x: bool,
    /// Seat O.
    pub o: bool,
}

/// The room's running score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Score {
    /// Rounds X won.
    pub x: u64,
    /// Rounds O won.
    pub o: u64,
    /// Drawn rounds.
    pub draws: u64,
}

/// The GAME object of the API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameView {
    /// The room's id (for spectators, the watch id).
    pub id: String,
    /// The read-only id that the watch link carries.
    pub watch: String,
    /// `"RxC"`.
    pub size: String,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Marks in a row that win.
    pub k: u32,
    /// The board in the core's notation, such as `X.O/.X./..O`.
    pub board: String,
    /// The seat to move, while the round is being played.
    pub next: Option<SeatName>,
    /// Where the round stands.
    pub status: RoundStatus,
    /// Why the round ended (`None` while it is played).
    pub reason: Option<Reason>,
    /// The winner of a won round.
    pub winner: Option<SeatName>,
    /// The winning line's cells, `[row, col]` from 0.
    pub line: Option<Vec<[u32; 2]>>,
    /// The last move, `[row, col]`.
    pub last: Option<[u32; 2]>,
    /// The round's moves in order, `[row, col]` each (X's or O's by turn,
    /// from `first`).
    pub moves: Vec<[u32; 2]>,
    /// Increases with every change.
    pub version: u64,
    /// The round, from 1.
    pub round: u32,
    /// Who started this round.
    pub first: SeatName,
    /// `"human"` or the computer's strategy.
    pub opponent: &'static str,
    /// Which seats are held.
    pub seats: Seats,
    /// The room's running score.
    pub score: Score,
    /// The seat that offered a rematch of the finished round, if one has:
    /// the other seat's rematch accepts it.
    pub rematch: Option<SeatName>,
    /// Draw and takeback offers waiting for an answer.
    pub offers: Offers,
    /// The clocks, for a timed room.
    pub clock: Option<ClockView>,
    /// What each seat is called.
    pub players: Players,
}

/// What each seat is called: the name its player chose (`None`: none
/// given), or for the computer its difficulty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Players {
    /// Seat X.
    pub x: Option<String>,
    /// Seat O.
    pub o: Option<String>,
}

impl Players {
    /// The seats of a room with `opponent` on `rules`' board, whose people
    /// chose `names` (X's first).
    #[must_use]
    pub fn new(opponent: Opponent, rules: Rules, names: &[Option<PlayerName>; 2]) -> Players {
        let name = |seat: Player| match (seat, opponent) {
            (Player::O, Opponent::Computer(kind)) => Some(computer_name(kind, rules).to_owned()),
            _ => names[seat.index()].as_ref().map(|n| n.as_str().to_owned()),
        };
        Players {
            x: name(Player::X),
            o: name(Player::O),
        }
    }
}

/// The computer's name: its difficulty as the page offers it, which
/// depends on the board (on the small ones `perfect` is the strongest
/// player; on the big ones it cannot play and `alphabeta` is).
#[must_use]
pub fn computer_name(kind: StrategyKind, rules: Rules) -> &'static str {
    let small = rules.rows() * rules.cols() <= 16;
    match kind {
        StrategyKind::Random => "Computer (easy)",
        StrategyKind::Rules if small => "Computer (medium)",
        StrategyKind::Rules => "Computer (easy)",
        StrategyKind::Learned => "Computer (medium)",
        StrategyKind::AlphaBeta | StrategyKind::Perfect => "Computer (strong)",
    }
}

/// A room in a list: a GAME without its board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The id it was asked for under (a watch id shows the watch id).
    pub id: String,
    /// `"RxC"`.
    pub size: String,
    /// Marks in a row that win.
    pub k: u32,
    /// `"human"` or the computer's strategy.
    pub opponent: &'static str,
    /// Where the round stands.
    pub status: RoundStatus,
    /// Why the round ended (`None` while it is played).
    pub reason: Option<Reason>,
    /// The seat to move, while the round is being played.
    pub next: Option<SeatName>,
    /// The winner of a won round.
    pub winner: Option<SeatName>,
    /// The round, from 1.
    pub round: u32,
    /// Moves made in the round.
    pub moves: usize,
    /// The room's running score.
    pub score: Score,
}

/// A room's whole record as the API shows it: every round's moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordView {
    /// The room's id (for spectators, the watch id).
    pub id: String,
    /// `"RxC"`.
    pub size: String,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Marks in a row that win.
    pub k: u32,
    /// Who holds seat O, shown as `"human"` or the computer's strategy.
    #[serde(serialize_with = "opponent_name")]
    pub opponent: Opponent,
    /// Every round so far, the first first; the last is the current one.
    pub rounds: Vec<RoundView>,
}

/// `opponent` as the API spells it.
fn opponent_name<S: serde::Serializer>(opponent: &Opponent, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(opponent.name())
}

/// One round of a [`RecordView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoundView {
    /// The round, from 1.
    pub round: u32,
    /// Who started it.
    pub first: SeatName,
    /// Its moves in order, `[row, col]`.
    pub moves: Vec<[u32; 2]>,
    /// `"x"` or `"o"` for a win, `"draw"`, `"aborted"`, or `null` while
    /// it is played.
    pub result: Option<&'static str>,
    /// Why it ended (`null` while it is played).
    pub reason: Option<Reason>,
    /// The winning line's cells, for a won round.
    pub line: Option<Vec<[u32; 2]>>,
}

impl Room {
    /// The room's record from `rounds` (each round's moves, as the store
    /// keeps them) and `endings` (the rounds that ended other than on the
    /// board, by number), as `viewer` sees it. Rounds alternate who starts,
    /// so each round's first player follows from the current one's.
    ///
    /// # Errors
    /// A stored round whose moves the rules refuse.
    pub fn record_view(
        &self,
        rounds: &[Vec<Cell>],
        endings: &[(u32, Ending)],
        viewer: Viewer,
    ) -> Result<RecordView, String> {
        let series = self.rec.series();
        let mut views = Vec::with_capacity(rounds.len());
        for (number, moves) in (1u32..).zip(rounds) {
            let first = series.starter_of(number);
            let mut game = Game::starting_with(self.rec.rules, first);
            for (ply, &cell) in moves.iter().enumerate() {
                game.play(cell).map_err(|e| {
                    format!(
                        "game {}: round {number} move {} refused: {e}",
                        self.rec.id.for_log(),
                        ply + 1
                    )
                })?;
            }
            // The room's own ending is the current round's.
            let ending = if number == self.rec.round {
                self.rec.ending
            } else {
                endings
                    .iter()
                    .find(|(round, _)| *round == number)
                    .map(|&(_, ending)| ending)
            };
            let (result, reason) = match (ending, game.status()) {
                (Some(ending), _) => (
                    Some(match ending.outcome() {
                        None => "aborted",
                        Some(Outcome::Win(p)) => SeatName(p).as_str(),
                        Some(Outcome::Draw) => "draw",
                    }),
                    Some(ending.reason),
                ),
                (None, Status::InProgress { .. }) => (None, None),
                (None, Status::Over(Outcome::Win(p))) => {
                    (Some(SeatName(p).as_str()), Some(Reason::Line))
                }
                (None, Status::Over(Outcome::Draw)) => (Some("draw"), Some(Reason::Full)),
            };
            views.push(RoundView {
                round: number,
                first: SeatName(first),
                moves: moves.iter().map(|c| [c.row, c.col]).collect(),
                result,
                reason,
                line: game
                    .winning_line()
                    .map(|line| line.cells().map(|c| [c.row, c.col]).collect()),
            });
        }
        Ok(RecordView {
            id: match viewer {
                Viewer::Player => self.rec.id.to_string(),
                Viewer::Spectator => self.rec.watch.to_string(),
            },
            size: self.rec.rules.size().to_string(),
            rows: self.rec.rules.rows(),
            cols: self.rec.rules.cols(),
            k: self.rec.rules.k(),
            opponent: self.rec.opponent,
            rounds: views,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Token;

    fn room(opponent: Opponent) -> Room {
        Room::new(
            GameId::from_trusted("g1"),
            GameId::from_trusted("w1"),
            Rules::default(),
            opponent,
            Player::X,
            Token::from_trusted("tx").hash(),
        )
    }

    /// An invite that admits anyone: the rooms stored before invites.
    const ANYONE: &Admission = &Admission::Invite(None);

    fn seated() -> Room {
        room(Opponent::Human)
            .join(Token::from_trusted("to").hash(), ANYONE)
            .unwrap()
    }

    /// The refusal of `mover`'s move when `to_move` is to move, on 3×3.
    fn turn(mover: Player, to_move: Player) -> RoomError {
        let refusal = RoomError::Move {
            error: MoveError::NotYourTurn { mover, to_move },
            size: BoardSize { rows: 3, cols: 3 },
        };
        assert_eq!(refusal.to_string(), format!("it is {to_move}'s turn"));
        refusal
    }

    #[test]
    fn seat_o_of_an_invited_room_takes_its_invite_or_its_lobby_entry() {
        let r = room(Opponent::Human).invited(Token::from_trusted("secret").hash());
        fn join(r: &Room, admission: &Admission) -> Result<Room, RoomError> {
            r.join(Token::from_trusted("to").hash(), admission)
        }
        let invite = |text: &str| Admission::Invite(Some(text.to_owned()));
        for refused in [
            Admission::Invite(None),
            invite(""),
            invite("secreT"),
            invite("g1"),
            // Not listed: no lobby entry admits anyone.
            Admission::Lobby,
        ] {
            assert_eq!(
                join(&r, &refused).unwrap_err(),
                RoomError::NoInvite,
                "{refused:?}"
            );
        }
        let joined = join(&r, &invite("secret")).unwrap();
        assert_eq!(joined.seat_of("to"), Some(Player::O));
        assert_eq!(
            join(&joined, &invite("secret")).unwrap_err(),
            RoomError::SeatTaken(Player::O)
        );
        let listed = r.listed(GameId::from_trusted("e1"));
        assert_eq!(
            join(&listed, &Admission::Lobby).unwrap().seat_of("to"),
            Some(Player::O)
        );
    }

    #[test]
    fn a_human_room_waits_for_its_second_player() {
        let r = room(Opponent::Human);
        assert_eq!(r.view(Viewer::Player).status, RoundStatus::Waiting);
        assert_eq!(r.view(Viewer::Player).next, None);
        assert_eq!(
            r.play(Player::X, Coords::new(0, 0), None).unwrap_err(),
            RoomError::Waiting
        );
        let r = r.join(Token::from_trusted("to").hash(), ANYONE).unwrap();
        assert_eq!(r.version(), 2);
        assert_eq!(r.view(Viewer::Player).status, RoundStatus::Playing);
        assert_eq!(r.seat_of("to"), Some(Player::O));
        assert_eq!(r.seat_of("tx"), Some(Player::X));
        assert_eq!(r.seat_of("t"), None);
        assert_eq!(
            r.join(Token::from_trusted("t3").hash(), ANYONE)
                .unwrap_err(),
            RoomError::SeatTaken(Player::O)
        );
    }

    #[test]
    fn the_computer_holds_seat_o_from_the_start() {
        let r = room(Opponent::Computer(StrategyKind::Perfect));
        assert_eq!(r.view(Viewer::Player).status, RoundStatus::Playing);
        assert!(r.view(Viewer::Player).seats.o);
        assert!(r.join(Token::from_trusted("t").hash(), ANYONE).is_err());
        assert_eq!(r.computer_to_move(), None);
        let (r, _) = r.play(Player::X, Coords::new(1, 1), Some(1)).unwrap();
        assert_eq!(r.computer_to_move(), Some(StrategyKind::Perfect));
    }

    #[test]
    fn refusals_are_checked_in_order_and_change_nothing() {
        let r = seated();
        assert_eq!(
            r.play(Player::O, Coords::new(9, 9), Some(1)).unwrap_err(),
            turn(Player::O, Player::X)
        );
        assert_eq!(
            r.play(Player::X, Coords::new(9, 9), Some(1)).unwrap_err(),
            RoomError::Stale {
                sent: 1,
                current: 2
            }
        );
        let off = r.play(Player::X, Coords::new(-1, 0), Some(2)).unwrap_err();
        assert_eq!(
            off,
            RoomError::Move {
                error: MoveError::OffBoard { row: -1, col: 0 },
                size: BoardSize { rows: 3, cols: 3 }
            }
        );
        assert_eq!(off.to_string(), "row -1, column 0 is off the 3x3 board");
        let (r2, outcome) = r.play(Player::X, Coords::new(0, 0), Some(2)).unwrap();
        assert_eq!(outcome, None);
        assert_eq!(r.version(), 2, "the old room is untouched");
        assert_eq!(r2.version(), 3);
        assert_eq!(r2.view(Viewer::Player).board, "X../.../...");
        assert_eq!(r2.view(Viewer::Player).last, Some([0, 0]));
        let taken = r2.play(Player::O, Coords::new(0, 0), None).unwrap_err();
        assert!(matches!(
            taken,
            RoomError::Move {
                error: MoveError::Occupied { cell, by: Player::X },
                ..
            } if cell == Cell::new(0, 0)
        ));
        assert_eq!(taken.to_string(), "row 0, column 0 is already taken");
    }

    #[test]
    fn a_won_round_scores_and_a_rematch_alternates_the_starter() {
        let mut r = seated();
        for (seat, row, col) in [
            (Player::X, 0, 0),
            (Player::O, 1, 0),
            (Player::X, 0, 1),
            (Player::O, 1, 1),
        ] {
            r = r.play(seat, Coords::new(row, col), None).unwrap().0;
        }
        assert_eq!(
            r.rematch(Player::X, None).unwrap_err(),
            RoomError::StillPlaying
        );
        let (r, outcome) = r.play(Player::X, Coords::new(0, 2), None).unwrap();
        assert_eq!(outcome, Some(Outcome::Win(Player::X)));
        let view = r.view(Viewer::Player);
        assert_eq!(view.status, RoundStatus::Won);
        assert_eq!(view.winner, Some(SeatName(Player::X)));
        assert_eq!(view.line, Some(vec![[0, 0], [0, 1], [0, 2]]));
        assert_eq!(
            view.score,
            Score {
                x: 1,
                o: 0,
                draws: 0
            }
        );
        assert_eq!(
            r.play(Player::O, Coords::new(2, 2), None)
                .unwrap_err()
                .to_string(),
            "the game is over"
        );

        assert!(matches!(
            r.rematch(Player::O, Some(r.version() - 1)).unwrap_err(),
            RoomError::Stale { .. }
        ));
        // Between two people, a rematch is an offer the other accepts.
        let offered = r.rematch(Player::O, Some(r.version())).unwrap();
        assert_eq!(offered.version(), r.version() + 1);
        let view = offered.view(Viewer::Player);
        assert_eq!((view.rematch, view.round), (Some(SeatName(Player::O)), 1));
        assert_eq!(
            offered.rematch(Player::O, None).unwrap_err(),
            RoomError::OfferPending(Player::X)
        );
        let r = offered.rematch(Player::X, Some(offered.version())).unwrap();
        let view = r.view(Viewer::Player);
        assert_eq!(view.rematch, None);
        assert_eq!(
            (view.round, view.first, view.next),
            (2, SeatName(Player::O), Some(SeatName(Player::O)))
        );
        assert_eq!(view.board, ".../.../...");
        assert_eq!(view.score.x, 1);
        assert_eq!(
            r.play(Player::X, Coords::new(0, 0), None).unwrap_err(),
            turn(Player::X, Player::O)
        );
    }

    #[test]
    fn against_the_computer_a_rematch_begins_at_once() {
        let mut r = room(Opponent::Computer(StrategyKind::Random));
        for (seat, row, col) in [
            (Player::X, 0, 0),
            (Player::O, 1, 0),
            (Player::X, 0, 1),
            (Player::O, 1, 1),
            (Player::X, 0, 2),
        ] {
            r = r.play(seat, Coords::new(row, col), None).unwrap().0;
        }
        let next = r.rematch(Player::X, None).unwrap();
        assert_eq!((next.round(), next.view(Viewer::Player).rematch), (2, None));
    }

    #[test]
    fn a_record_restores_the_same_room() {
        let mut r = seated();
        for (seat, row, col) in [(Player::X, 1, 1), (Player::O, 0, 0), (Player::X, 2, 2)] {
            r = r.play(seat, Coords::new(row, col), None).unwrap().0;
        }
        let back = Room::restore(r.record()).unwrap();
        assert_eq!(back.view(Viewer::Player), r.view(Viewer::Player));
        assert_eq!(back.record(), r.record());

        let mut bad = r.record();
        bad.moves.push(Cell::new(1, 1));
        assert!(
            Room::restore(bad)
                .unwrap_err()
                .contains("stored move 4 refused")
        );
    }

    /// A seated room on 3×3 under 1+2 (a minute each, two seconds a move).
    fn timed() -> Room {
        room(Opponent::Human)
            .timed(TimeControl::fischer(60_000, 2_000))
            .join(Token::from_trusted("to").hash(), ANYONE)
            .unwrap()
    }

    /// `room` after `seat` plays (`row`, `col`) at `now`, its clock kept.
    fn play_at(room: &Room, seat: Player, row: i64, col: i64, now: u64) -> Room {
        room.play(seat, Coords::new(row, col), None)
            .unwrap()
            .0
            .clocked(room, now)
            .unwrap()
    }

    #[test]
    fn a_timed_room_starts_its_clock_on_the_second_move_and_stops_it_at_the_end() {
        let r = timed();
        assert_eq!((r.deadline(), r.flagged(u64::MAX)), (None, None));
        let r = play_at(&r, Player::X, 0, 0, 1_000);
        assert_eq!(r.deadline(), None, "the first moves are untimed");
        let r = play_at(&r, Player::O, 1, 0, 5_000);
        assert_eq!(r.deadline(), Some(65_000), "X's minute runs");
        let r = play_at(&r, Player::X, 0, 1, 15_000);
        assert_eq!(r.clock().unwrap().left(Player::X, 15_000), 52_000);
        assert_eq!(r.deadline(), Some(75_000), "O's minute runs");
        assert_eq!(r.flagged(74_999), None);
        assert_eq!(r.flagged(75_000), Some(Player::O));
        // Too late: the room refuses the change and is left as it was.
        let late = r.play(Player::O, Coords::new(1, 1), None).unwrap().0;
        assert_eq!(
            late.clocked(&r, 75_000).unwrap_err(),
            RoomError::OutOfTime(Player::O)
        );
        assert_eq!(
            RoomError::OutOfTime(Player::O).to_string(),
            "o has run out of time"
        );
        // O plays, X completes the top row: the clock stops, no deadline.
        let r = play_at(&r, Player::O, 1, 1, 20_000);
        let won = play_at(&r, Player::X, 0, 2, 30_000);
        assert_eq!(won.view(Viewer::Player).status, RoundStatus::Won);
        assert_eq!(won.deadline(), None);
        let clock = won.clock().unwrap();
        assert_eq!(clock.running(), None);
        assert_eq!(clock.left(Player::X, u64::MAX), 52_000 - 10_000 + 2_000);
        // The next round starts with fresh clocks, not running.
        let offered = won.rematch(Player::O, None).unwrap().clocked(&won, 31_000);
        let offered = offered.unwrap();
        let next = offered
            .rematch(Player::X, None)
            .unwrap()
            .clocked(&offered, 32_000)
            .unwrap();
        assert_eq!(next.round(), 2);
        assert_eq!(
            next.clock(),
            Some(&Clock::new(TimeControl::fischer(60_000, 2_000)))
        );
    }

    #[test]
    fn a_flag_loses_the_round_on_time_or_draws_it_when_the_other_could_not_win() {
        // X and O make their untimed first moves; X's minute runs from 5 s.
        let r = play_at(
            &play_at(&timed(), Player::X, 0, 0, 1_000),
            Player::O,
            1,
            1,
            5_000,
        );
        assert!(r.rule_flag(64_999).is_none(), "not yet");
        let ruled = r.rule_flag(65_000).unwrap();
        assert_eq!(ruled.version(), r.version() + 1);
        let view = ruled.view(Viewer::Player);
        assert_eq!(
            (view.status, view.winner, view.reason),
            (
                RoundStatus::Won,
                Some(SeatName(Player::O)),
                Some(Reason::Time)
            )
        );
        assert_eq!(view.score.o, 1);
        let clock = view.clock.unwrap();
        assert_eq!((clock.x_ms, clock.running, clock.deadline), (0, None, None));
        assert_eq!((ruled.deadline(), ruled.flagged(u64::MAX)), (None, None));
        assert!(ruled.rule_flag(u64::MAX).is_none(), "ruled once");
        assert_eq!(
            ruled.play(Player::X, Coords::new(2, 2), None).unwrap_err(),
            RoomError::Move {
                error: MoveError::GameOver,
                size: BoardSize { rows: 3, cols: 3 }
            }
        );
        // On 1×4 with k=3, X's first mark blocks both of O's windows: O
        // could not have won, so X's flag draws the round.
        let narrow = Room::new(
            GameId::from_trusted("g2"),
            GameId::from_trusted("w2"),
            Rules::new(1, 4, 3).unwrap(),
            Opponent::Human,
            Player::X,
            Token::from_trusted("tx").hash(),
        )
        .timed(TimeControl::fischer(60_000, 0))
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap();
        let narrow = play_at(&play_at(&narrow, Player::X, 0, 1, 0), Player::O, 0, 0, 0);
        let drawn = narrow.rule_flag(60_000).unwrap().view(Viewer::Player);
        assert_eq!(
            (drawn.status, drawn.winner, drawn.reason),
            (RoundStatus::Draw, None, Some(Reason::Time))
        );
        assert_eq!(drawn.score.draws, 1);
    }

    #[test]
    fn a_takeback_restarts_the_clock_of_the_seat_to_move() {
        let r = play_at(&play_at(&timed(), Player::X, 0, 0, 0), Player::O, 1, 1, 0);
        // X moves at 10 s (50 s left, +2); O's clock runs.
        let r = play_at(&r, Player::X, 2, 2, 10_000);
        let asked = r
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        let asked = asked.clocked(&r, 11_000).unwrap();
        assert_eq!(asked.deadline(), Some(70_000), "an offer changes no clock");
        // O accepts at 15 s: O is charged 5 s, X's clock runs again.
        let taken = asked
            .propose(Player::O, Proposal::Takeback, None, false)
            .unwrap()
            .clocked(&asked, 15_000)
            .unwrap();
        assert_eq!(taken.moves().len(), 2);
        let clock = taken.clock().unwrap();
        assert_eq!(clock.running(), Some(Player::X));
        assert_eq!(
            (clock.left(Player::X, 15_000), clock.left(Player::O, 15_000)),
            (52_000, 55_000)
        );
        assert_eq!(taken.deadline(), Some(15_000 + 52_000));
    }

    #[test]
    fn a_timed_room_shows_its_clocks_and_restores_them_exactly() {
        let r = play_at(
            &play_at(&timed(), Player::X, 1, 1, 1_000),
            Player::O,
            0,
            0,
            2_000,
        );
        let r = play_at(&r, Player::X, 2, 2, 12_000);
        let json = serde_json::to_value(r.view(Viewer::Player)).unwrap();
        assert_eq!(
            json["clock"],
            serde_json::json!({
                "initial_ms": 60_000, "increment_ms": 2_000, "days": null,
                "x_ms": 52_000, "o_ms": 60_000, "running": "o",
                "at": 12_000, "deadline": 72_000
            })
        );
        let back = Room::restore(r.record()).unwrap();
        assert_eq!(back.record(), r.record());
        assert_eq!(back.deadline(), Some(72_000));
        // Measured later, the running side has less.
        let view = r.view(Viewer::Player).clock.unwrap();
        let later = view.as_of(20_000).unwrap();
        assert_eq!(
            (later.x_ms, later.o_ms, later.at, later.deadline),
            (52_000, 52_000, Some(20_000), Some(72_000))
        );
        assert_eq!(view.as_of(12_000), None);
        assert_eq!(later.as_of(99_999).unwrap().o_ms, 0);
        // Correspondence shows its days.
        let days = room(Opponent::Human).timed(TimeControl::days(3));
        let view = days.view(Viewer::Player).clock.unwrap();
        assert_eq!(
            (view.days, view.initial_ms, view.running, view.deadline),
            (Some(3), 3 * oxo_core::DAY_MS, None, None)
        );
    }

    #[test]
    fn spectators_see_the_watch_id_only() {
        let view = seated().view(Viewer::Spectator);
        assert_eq!((view.id.as_str(), view.watch.as_str()), ("w1", "w1"));
        assert_eq!(view.board, seated().view(Viewer::Player).board);
    }

    #[test]
    fn the_view_serialises_as_the_api_says() {
        let json = serde_json::to_value(seated().view(Viewer::Player)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "id": "g1", "watch": "w1", "size": "3x3", "rows": 3, "cols": 3, "k": 3,
                "board": ".../.../...", "next": "x", "status": "playing", "reason": null,
                "winner": null, "line": null, "last": null, "moves": [], "version": 2,
                "round": 1, "first": "x", "opponent": "human",
                "seats": {"x": true, "o": true},
                "score": {"x": 0, "o": 0, "draws": 0}, "rematch": null,
                "players": {"x": null, "o": null},
                "offers": {"draw": null, "takeback": null}, "clock": null
            })
        );
    }

    /// `r` after `moves` (row, col), each by the seat to move.
    fn after(mut r: Room, moves: &[(i64, i64)]) -> Room {
        for &(row, col) in moves {
            let seat = r.to_move().expect("the round is on");
            r = r.play(seat, Coords::new(row, col), None).unwrap().0;
        }
        r
    }

    /// The refusal of `attempt` on `r`. (Every method takes the room by
    /// reference and returns a new one, so a refusal cannot change `r`;
    /// that a refused request changes nothing stored, and leaves its
    /// idempotency key free, is checked through the hub, in
    /// `hub/tests.rs`.)
    fn refused(r: &Room, attempt: impl FnOnce(&Room) -> Result<Room, RoomError>) -> RoomError {
        attempt(r).unwrap_err()
    }

    fn score(r: &Room) -> (u64, u64, u64) {
        let s = r.view(Viewer::Player).score;
        (s.x, s.o, s.draws)
    }

    #[test]
    fn a_resignation_ends_the_round_for_the_other_seat_and_the_next_round_follows() {
        let r = after(seated(), &[(1, 1)]);
        let v = r.version();
        assert!(matches!(
            refused(&r, |r| r.resign(Player::O, Some(v - 1))),
            RoomError::Stale { .. }
        ));
        let resigned = r.resign(Player::O, Some(v)).unwrap();
        let view = resigned.view(Viewer::Player);
        assert_eq!(
            (view.status, view.reason, view.winner, view.next, view.line),
            (
                RoundStatus::Won,
                Some(Reason::Resign),
                Some(SeatName(Player::X)),
                None,
                None
            )
        );
        assert_eq!(score(&resigned), (1, 0, 0));
        assert_eq!(resigned.version(), v + 1);
        // Over: no more moves, resignations, aborts, offers or claims.
        assert_eq!(
            refused(&resigned, |r| r
                .play(Player::O, Coords::new(0, 0), None)
                .map(|p| p.0)),
            RoomError::of_move(MoveError::GameOver, Rules::default())
        );
        assert_eq!(
            refused(&resigned, |r| r.resign(Player::X, None)),
            RoomError::RoundOver
        );
        assert_eq!(refused(&resigned, |r| r.abort(None)), RoomError::RoundOver);
        assert_eq!(
            refused(&resigned, |r| r.propose(
                Player::X,
                Proposal::Draw,
                None,
                false
            )),
            RoomError::RoundOver
        );
        // The next round works as after a line.
        let next = resigned.rematch(Player::O, None).unwrap();
        let next = next.rematch(Player::X, None).unwrap();
        let view = next.view(Viewer::Player);
        assert_eq!(
            (view.round, view.status, view.reason),
            (2, RoundStatus::Playing, None)
        );
        assert_eq!(view.next, Some(SeatName(Player::O)));
        assert_eq!(score(&next), (1, 0, 0));
        // A restored room is the same ended room.
        let back = Room::restore(resigned.record()).unwrap();
        assert_eq!(back.view(Viewer::Player), resigned.view(Viewer::Player));
    }

    #[test]
    fn a_round_is_aborted_only_until_both_sides_have_moved_and_counts_for_nobody() {
        assert_eq!(
            refused(&room(Opponent::Human), |r| r.abort(None)),
            RoomError::Waiting
        );
        let r = seated();
        let aborted = r.abort(None).unwrap();
        let view = aborted.view(Viewer::Player);
        assert_eq!(
            (view.status, view.reason, view.winner),
            (RoundStatus::Aborted, Some(Reason::Aborted), None)
        );
        assert_eq!(score(&aborted), (0, 0, 0));
        // After one move either side may still abort; after two, neither.
        let one = after(seated(), &[(0, 0)]);
        assert_eq!(one.abort(None).unwrap().reason(), Some(Reason::Aborted));
        let two = after(one, &[(1, 1)]);
        assert_eq!(refused(&two, |r| r.abort(None)), RoomError::TooLateToAbort);
        let next = aborted
            .rematch(Player::X, None)
            .unwrap()
            .rematch(Player::O, None)
            .unwrap();
        assert_eq!((next.round(), next.reason()), (2, None));
        assert_eq!(score(&next), (0, 0, 0));
    }

    #[test]
    fn a_draw_offer_is_accepted_by_the_other_side_and_declined_by_its_move() {
        let r = after(seated(), &[(1, 1)]);
        let offered = r.propose(Player::O, Proposal::Draw, None, false).unwrap();
        assert_eq!(
            offered.view(Viewer::Player).offers,
            Offers {
                draw: Some(SeatName(Player::O)),
                takeback: None
            }
        );
        assert_eq!(
            refused(&offered, |r| r.propose(
                Player::O,
                Proposal::Draw,
                None,
                false
            )),
            RoomError::Proposed(Proposal::Draw, Player::X)
        );
        // The offerer's own move keeps it; the other side's declines it.
        let moved = after(offered.clone(), &[(0, 0)]);
        assert_eq!(moved.proposal(Proposal::Draw), Some(Player::O));
        let moved = after(moved, &[(2, 2)]);
        assert_eq!(moved.proposal(Proposal::Draw), None, "X's move declined it");
        // ...the other side accepts it.
        let drawn = offered
            .propose(Player::X, Proposal::Draw, None, false)
            .unwrap();
        let view = drawn.view(Viewer::Player);
        assert_eq!(
            (view.status, view.reason, view.winner),
            (RoundStatus::Draw, Some(Reason::Agreement), None)
        );
        assert_eq!(score(&drawn), (0, 0, 1));
        assert_eq!(view.offers.draw, None);
        // Withdrawn by the offerer, or declined by the other (the same
        // change: the offer goes).
        let withdrawn = offered
            .decline(Proposal::Draw, Some(offered.version()))
            .unwrap();
        assert_eq!(withdrawn.proposal(Proposal::Draw), None);
        assert_eq!(withdrawn.version(), offered.version() + 1);
        assert_eq!(withdrawn.to_move(), Some(Player::O));
        assert_eq!(
            refused(&r, |r| r.decline(Proposal::Draw, None)),
            RoomError::NoProposal(Proposal::Draw)
        );
    }

    #[test]
    fn no_offer_outlives_its_round() {
        // X offers a draw, then wins with its own move.
        let r = after(seated(), &[(0, 0), (1, 0), (0, 1), (1, 1)]);
        let offered = r.propose(Player::X, Proposal::Draw, None, false).unwrap();
        let won = after(offered, &[(0, 2)]);
        assert!(won.round_over());
        assert_eq!(won.proposal(Proposal::Draw), None, "the win ended it");
        assert_eq!(won.view(Viewer::Player).offers.draw, None);
        // Nothing about offers changes once the round is over.
        assert_eq!(
            refused(&won, |r| r.decline(Proposal::Draw, None)),
            RoomError::RoundOver
        );
        assert_eq!(
            refused(&won, |r| r.decline(Proposal::Takeback, None)),
            RoomError::RoundOver
        );
        // A round that ended with an offer standing (as stored before this
        // rule) starts the next one with none: O cannot accept it there.
        let mut stale = won.clone();
        stale.rec.draw = Some(Player::X);
        stale.rec.takeback = Some(Player::X);
        let next = stale
            .rematch(Player::X, None)
            .unwrap()
            .rematch(Player::O, None)
            .unwrap();
        assert_eq!(next.moves().len(), 0);
        assert_eq!(
            (
                next.proposal(Proposal::Draw),
                next.proposal(Proposal::Takeback)
            ),
            (None, None)
        );
        let asked = next
            .propose(Player::O, Proposal::Draw, None, false)
            .unwrap();
        assert!(
            !asked.round_over(),
            "O's word is an offer, not an acceptance"
        );
    }

    #[test]
    fn a_takeback_takes_back_the_proposers_last_move_and_the_reply_after_it() {
        let r = seated();
        assert_eq!(
            refused(&r, |r| r.propose(
                Player::X,
                Proposal::Takeback,
                None,
                false
            )),
            RoomError::NothingToTakeBack
        );
        // X moved last: X's takeback removes one move.
        let r1 = after(seated(), &[(1, 1), (0, 0), (2, 2)]);
        let asked = r1
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        assert_eq!(
            asked.view(Viewer::Player).offers.takeback,
            Some(SeatName(Player::X))
        );
        assert_eq!(
            asked.moves().len(),
            3,
            "nothing taken back before it is accepted"
        );
        let taken = asked
            .propose(Player::O, Proposal::Takeback, None, false)
            .unwrap();
        assert_eq!(taken.view(Viewer::Player).board, "O../.X./...");
        assert_eq!(taken.to_move(), Some(Player::X));
        assert_eq!(taken.proposal(Proposal::Takeback), None);
        // O asks on its own move: its last move and X's reply go.
        let asked = r1
            .propose(Player::O, Proposal::Takeback, None, false)
            .unwrap();
        let taken = asked
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        assert_eq!(taken.view(Viewer::Player).board, ".../.X./...");
        assert_eq!(taken.to_move(), Some(Player::O));
        // Any move ends a pending request.
        let asked = r1
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        let moved = after(asked, &[(0, 2)]);
        assert_eq!(moved.proposal(Proposal::Takeback), None);
        // A restored room has the same moves.
        let back = Room::restore(taken.record()).unwrap();
        assert_eq!(back.view(Viewer::Player), taken.view(Viewer::Player));
    }

    #[test]
    fn against_the_computer_a_takeback_is_granted_and_a_draw_follows_the_verdict() {
        let r = after(
            room(Opponent::Computer(StrategyKind::Perfect)),
            &[(1, 1), (0, 0)],
        );
        let taken = r
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        assert_eq!(taken.moves(), &[] as &[Cell]);
        assert_eq!(taken.to_move(), Some(Player::X));
        // Asked while the computer is to move: only the person's move goes.
        let thinking = after(r.clone(), &[(2, 2)]);
        let taken = thinking
            .propose(Player::X, Proposal::Takeback, None, false)
            .unwrap();
        assert_eq!(taken.moves().len(), 2);
        assert_eq!(taken.to_move(), Some(Player::X));
        assert_eq!(
            refused(&r, |r| r.propose(Player::X, Proposal::Draw, None, false)),
            RoomError::DrawDeclined
        );
        let drawn = r.propose(Player::X, Proposal::Draw, None, true).unwrap();
        assert_eq!(drawn.reason(), Some(Reason::Agreement));
        assert_eq!(drawn.computer_to_move(), None);
        assert_eq!(
            refused(&r, |r| r.claim(
                Player::X,
                None,
                Some(Instant::now()),
                Instant::now(),
                Duration::ZERO
            )),
            RoomError::ClaimAgainstComputer
        );
        let resigned = r.resign(Player::X, None).unwrap();
        assert_eq!(
            resigned.view(Viewer::Player).winner,
            Some(SeatName(Player::O))
        );
        let next = resigned.rematch(Player::X, None).unwrap();
        assert_eq!((next.round(), next.reason()), (2, None));
    }

    #[test]
    fn a_win_is_claimed_only_on_the_absent_seats_move_after_the_wait() {
        let wait = Duration::from_secs(30);
        let t0 = Instant::now();
        let r = after(seated(), &[(1, 1)]);
        // O is to move; X claims.
        let claim = |r: &Room, seat, gone: Option<Instant>, now: Instant| {
            r.claim(seat, None, gone, now, wait)
        };
        assert_eq!(
            refused(&r, |r| claim(r, Player::X, None, t0)),
            RoomError::StillHere(Player::O, wait)
        );
        let early = refused(&r, |r| {
            claim(r, Player::X, Some(t0), t0 + Duration::from_secs(12))
        });
        assert_eq!(
            early.to_string(),
            "o has been gone for 12 s; the win can be claimed in 18 s"
        );
        assert_eq!(
            refused(&r, |r| claim(r, Player::O, Some(t0), t0 + wait)),
            RoomError::NotTheirMove(Player::X)
        );
        let claimed = claim(&r, Player::X, Some(t0), t0 + wait).unwrap();
        let view = claimed.view(Viewer::Player);
        assert_eq!(
            (view.status, view.reason, view.winner),
            (
                RoundStatus::Won,
                Some(Reason::Abandoned),
                Some(SeatName(Player::X))
            )
        );
        assert_eq!(score(&claimed), (1, 0, 0));
    }

    #[test]
    fn idempotency_keys_are_remembered_per_seat_with_their_request_and_the_oldest_forgotten() {
        let key = |n: usize| IdempotencyKey::parse(&format!("k{n}")).unwrap();
        let keyed = |seat, n, request: &Request| Keyed {
            seat,
            key: key(n),
            request: Some(request.clone()),
        };
        let resign = Request::named("resign");
        let here = Request::of_move(Coords { row: 1, col: 2 });
        let mut r = seated().remember(keyed(Player::X, 0, &here));
        assert_eq!(r.recall(Player::X, &key(0), &here), Recall::Repeat);
        assert_eq!(
            r.recall(
                Player::X,
                &key(0),
                &Request::of_move(Coords { row: 2, col: 1 })
            ),
            Recall::Reused,
            "a key names one request"
        );
        assert_eq!(r.recall(Player::X, &key(0), &resign), Recall::Reused);
        assert_eq!(
            r.recall(Player::O, &key(0), &here),
            Recall::New,
            "another seat's key is its own"
        );
        // A key stored before requests were kept stands for any request.
        r = r.remember(Keyed {
            seat: Player::O,
            key: key(99),
            request: None,
        });
        assert_eq!(r.recall(Player::O, &key(99), &resign), Recall::Repeat);
        for n in 1..=KEYS_KEPT {
            r = r.remember(keyed(Player::O, n, &resign));
        }
        assert!(!r.knows(Player::X, &key(0)));
        assert!(r.knows(Player::O, &key(1)));
        assert_eq!(Room::restore(r.record()).unwrap().record(), r.record());
    }

    #[test]
    fn endings_make_sense_or_are_refused() {
        assert!(Ending::new(Reason::Resign, None).is_none());
        assert!(Ending::new(Reason::Agreement, Some(Player::X)).is_none());
        assert!(Ending::new(Reason::Line, Some(Player::X)).is_none());
        assert_eq!(
            Ending::new(Reason::Time, Some(Player::O))
                .unwrap()
                .outcome(),
            Some(Outcome::Win(Player::O))
        );
        assert_eq!(Ending::new(Reason::Aborted, None).unwrap().outcome(), None);
        for reason in [
            "line",
            "full",
            "resign",
            "time",
            "abandoned",
            "agreement",
            "aborted",
        ] {
            assert_eq!(Reason::parse(reason).unwrap().as_str(), reason);
        }
    }

    #[test]
    fn the_record_names_each_rounds_reason() {
        let r = after(seated(), &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]);
        let first_round = r.moves().to_vec();
        let r = r
            .rematch(Player::X, None)
            .unwrap()
            .rematch(Player::O, None)
            .unwrap();
        let r = after(r, &[(1, 1)]).resign(Player::X, None).unwrap();
        let ending = r.record().ending.unwrap();
        let record = r
            .record_view(
                &[first_round, r.moves().to_vec()],
                &[(2, ending)],
                Viewer::Player,
            )
            .unwrap();
        let summary: Vec<_> = record
            .rounds
            .iter()
            .map(|round| (round.result, round.reason))
            .collect();
        assert_eq!(
            summary,
            [
                (Some("x"), Some(Reason::Line)),
                (Some("o"), Some(Reason::Resign))
            ]
        );
    }
}
