//! What a room shows: the API's GAME object, its summary for lists, the
//! whole record of rounds, and the names of seats and computers.

use oxo_ai::StrategyKind;
use oxo_core::{Cell, Game, Outcome, Player, Rules, Status};
use serde::Serialize;

use super::{ClockView, Ending, Opponent, Proposal, Reason, Room};
use crate::name::PlayerName;

/// Who a view is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// Someone who knows the room's id (the players).
    Player,
    /// Someone with the watch link.
    Spectator,
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

/// Offers waiting for the other seat's answer, and the seats that must
/// move before they make an offer again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Offers {
    /// The seat offering a draw.
    pub draw: Option<Player>,
    /// The seat asking to take back its last move.
    pub takeback: Option<Player>,
    /// The seats that made each offer since their last move.
    pub made: Made,
}

/// The seats that made each offer since their last move: none of them may
/// make that offer again before its next move ([`super::OffersMade`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Made {
    /// Seats that offered a draw since their last move.
    pub draw: Vec<Player>,
    /// Seats that asked for a takeback since their last move.
    pub takeback: Vec<Player>,
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
    pub next: Option<Player>,
    /// Where the round stands.
    pub status: RoundStatus,
    /// Why the round ended (`None` while it is played).
    pub reason: Option<Reason>,
    /// The winner of a won round.
    pub winner: Option<Player>,
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
    pub first: Player,
    /// `"human"` or the computer's strategy.
    pub opponent: &'static str,
    /// Which seats are held.
    pub seats: Seats,
    /// The room's running score.
    pub score: Score,
    /// The seat that offered a rematch of the finished round, if one has:
    /// the other seat's rematch accepts it.
    pub rematch: Option<Player>,
    /// Draw and takeback offers waiting for an answer.
    pub offers: Offers,
    /// The clocks, for a timed room.
    pub clock: Option<ClockView>,
    /// What each seat is called.
    pub players: Players,
    /// Whether the room was made to be listed in the lobby (`"listed":
    /// true`), whatever has become of it since: an open game shows there
    /// while it waits and its creator is here, or for correspondence was
    /// here lately (see `hub/lobby.rs`).
    pub listed: bool,
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
    pub next: Option<Player>,
    /// The winner of a won round.
    pub winner: Option<Player>,
    /// The round, from 1.
    pub round: u32,
    /// Moves made in the round.
    pub moves: usize,
    /// The room's running score.
    pub score: Score,
    /// The lobby id of a listed game still waiting for seat O, for its
    /// players: a lobby that lists it tells it is theirs, not one to join.
    pub entry: Option<String>,
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
    pub first: Player,
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

/// One round of a room, its stored moves replayed.
#[derive(Clone, Debug)]
pub struct PlayedRound {
    /// The round, from 1.
    pub number: u32,
    /// The empty board it started from, with the player who moved first.
    pub start: Game,
    /// Its moves in order.
    pub moves: Vec<Cell>,
    /// The position its moves made.
    pub game: Game,
    /// How it ended other than on the board (a resignation, a flag, an
    /// agreement, an abort), if it did.
    pub ending: Option<Ending>,
}

impl PlayedRound {
    /// How it ended, `None` while it is played: its outcome (`None` for a
    /// round called off) and why, by its ending or on the board.
    #[must_use]
    pub fn result(&self) -> Option<(Option<Outcome>, Reason)> {
        match (self.ending, self.game.status()) {
            (Some(ending), _) => Some((ending.outcome(), ending.reason)),
            (None, Status::InProgress { .. }) => None,
            (None, Status::Over(outcome @ Outcome::Win(_))) => Some((Some(outcome), Reason::Line)),
            (None, Status::Over(Outcome::Draw)) => Some((Some(Outcome::Draw), Reason::Full)),
        }
    }
}

impl Room {
    /// Round `number` (from 1) replayed from its `moves`, as the store keeps
    /// them, with its ending: the room's own for the current round, else
    /// the one `endings` (the rounds that ended other than on the board, by
    /// number) gives. Rounds alternate who starts, so each round's first
    /// player follows from the current one's.
    ///
    /// # Errors
    /// A stored move the rules refuse.
    pub fn played_round(
        &self,
        number: u32,
        moves: &[Cell],
        endings: &[(u32, Ending)],
    ) -> Result<PlayedRound, String> {
        let start = Game::starting_with(self.rec.rules, self.rec.series().starter_of(number));
        let mut game = start.clone();
        for (ply, &cell) in moves.iter().enumerate() {
            game.play(cell).map_err(|e| {
                format!(
                    "game {}: round {number} move {} refused: {e}",
                    self.rec.id.for_log(),
                    ply + 1
                )
            })?;
        }
        let ending = if number == self.rec.round {
            self.rec.ending
        } else {
            endings
                .iter()
                .find(|(round, _)| *round == number)
                .map(|&(_, ending)| ending)
        };
        Ok(PlayedRound {
            number,
            start,
            moves: moves.to_vec(),
            game,
            ending,
        })
    }

    /// The room's record from `rounds` (each round's moves, as the store
    /// keeps them) and `endings` (as for [`Room::played_round`]), as
    /// `viewer` sees it.
    ///
    /// # Errors
    /// A stored round whose moves the rules refuse.
    pub fn record_view(
        &self,
        rounds: &[Vec<Cell>],
        endings: &[(u32, Ending)],
        viewer: Viewer,
    ) -> Result<RecordView, String> {
        let mut views = Vec::with_capacity(rounds.len());
        for (number, moves) in (1u32..).zip(rounds) {
            let round = self.played_round(number, moves, endings)?;
            let (result, reason) = match round.result() {
                None => (None, None),
                Some((outcome, reason)) => (
                    Some(match outcome {
                        None => "aborted",
                        Some(Outcome::Win(p)) => p.name(),
                        Some(Outcome::Draw) => "draw",
                    }),
                    Some(reason),
                ),
            };
            views.push(RoundView {
                round: number,
                first: round.start.to_move(),
                moves: moves.iter().map(|c| [c.row, c.col]).collect(),
                result,
                reason,
                line: round
                    .game
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

impl Room {
    /// The state players see; spectators see it under the watch id, so that
    /// nothing they are shown lets them act on the room.
    #[must_use]
    pub fn view(&self, viewer: Viewer) -> GameView {
        let (status, next, winner) = if !self.seated() && !self.cancelled() {
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
            next,
            status,
            reason: self.reason(),
            winner,
            line: self
                .game
                .winning_line()
                .map(|line| line.cells().map(|c| [c.row, c.col]).collect()),
            last: self.rec.moves.last().map(|c| [c.row, c.col]),
            moves: self.rec.moves.iter().map(|c| [c.row, c.col]).collect(),
            version: self.rec.version,
            round: self.rec.round,
            first: self.rec.first,
            opponent: self.rec.opponent.name(),
            seats: Seats {
                x: true,
                o: self.seated(),
            },
            rematch: self.rec.offer,
            offers: Offers {
                draw: self.rec.draw,
                takeback: self.rec.takeback,
                made: Made {
                    draw: self.made_since_moving(Proposal::Draw),
                    takeback: self.made_since_moving(Proposal::Takeback),
                },
            },
            clock: self.rec.clock.map(|clock| ClockView::of(&clock)),
            score: Score {
                x: self.rec.score.wins(Player::X),
                o: self.rec.score.wins(Player::O),
                draws: self.rec.score.draws(),
            },
            players: self.players(),
            listed: self.rec.entry.is_some(),
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
            entry: match (viewer, view.status, &self.rec.entry) {
                (Viewer::Player, RoundStatus::Waiting, Some(entry)) => Some(entry.to_string()),
                _ => None,
            },
        }
    }
}
