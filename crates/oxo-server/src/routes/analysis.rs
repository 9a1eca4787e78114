//! The analysis board: any position, given by its moves, with the
//! perfect-play value of every empty cell where the solver is quick and the
//! engine's estimate elsewhere; and the review of a whole line of moves.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use oxo_ai::hints::NoHints;
use oxo_core::{Cell, Coords, Game, MoveError, Outcome, Player, Status};
use serde::{Deserialize, Serialize};

use super::{Peer, admit_longer_look, client, first_of, json_body, rules_of};
use crate::error::ApiError;
use crate::hub::{EstimateView, Hint, Hold, ReviewView};
use crate::room::Reason;
use crate::state::AppState;

/// `GET /api/analysis`: a position given by its moves.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnalysisQuery {
    size: Option<String>,
    k: Option<u32>,
    first: Option<String>,
    /// `r,c;r,c;…`, rows and columns from 0.
    moves: Option<String>,
    /// The analysis board only: value the moves within
    /// [`LONGER_BUDGET`](oxo_ai::hints::LONGER_BUDGET) rather than the
    /// hints' budget.
    longer: Option<bool>,
}

/// The most moves an analysis request may list (a 32×32 board's cells).
const MAX_ANALYSIS_MOVES: usize = 1024;

impl AnalysisQuery {
    /// The game the moves make, and the moves.
    fn game(&self) -> Result<(Game, Vec<Cell>), ApiError> {
        let mut game = self.start()?;
        let rules = game.rules();
        let mut played = Vec::new();
        let moves = self.moves.as_deref().unwrap_or("");
        for (n, text) in moves.split(';').filter(|m| !m.is_empty()).enumerate() {
            if n >= MAX_ANALYSIS_MOVES {
                return Err(ApiError::BadRequest(format!(
                    "at most {MAX_ANALYSIS_MOVES} moves"
                )));
            }
            let at = Coords::from_comma_pair(text).map_err(|_| {
                ApiError::BadRequest(format!(
                    "move {}: {:?} is not ROW,COL (from 0)",
                    n + 1,
                    quoted_prefix(text)
                ))
            })?;
            let cell = at
                .to_cell(rules)
                .and_then(|cell| game.play(cell).map(|_| cell));
            // The move as written, and for one off the board the board
            // rather than the numbers again (a number too large to hold
            // would show as the largest one that fits).
            let cell = cell.map_err(|e| {
                let why = match e {
                    MoveError::OffBoard { .. } => format!("off the {rules} board"),
                    e => e.to_string(),
                };
                ApiError::BadRequest(format!(
                    "move {} ({}): {why}",
                    n + 1,
                    quoted_prefix(text.trim())
                ))
            })?;
            played.push(cell);
        }
        Ok((game, played))
    }

    /// The empty board the moves are played on.
    fn start(&self) -> Result<Game, ApiError> {
        let rules = rules_of(self.size.as_deref(), self.k)?;
        let first = first_of(self.first.as_deref())?;
        Ok(Game::starting_with(rules, first))
    }
}

/// At most 40 characters of `text`, for error messages.
fn quoted_prefix(text: &str) -> String {
    text.chars().take(40).collect()
}

/// A position as the analysis board and the review show it: the board,
/// the moves that made it, whose move it is and how the game stands.
#[derive(Debug, Serialize)]
pub(super) struct Position {
    size: String,
    rows: u32,
    cols: u32,
    k: u32,
    first: Player,
    board: String,
    moves: Vec<[u32; 2]>,
    next: Option<Player>,
    status: &'static str,
    winner: Option<Player>,
    /// How a played round ended, where it ended other than on the board
    /// too (a resignation, a flag, an agreement): left out for a line.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    line: Option<Vec<[u32; 2]>>,
}

impl Position {
    /// `game`, reached by `played` from a board where `first` moved first.
    pub(super) fn new(game: &Game, first: Player, played: &[Cell]) -> Position {
        let (status, next, winner) = match game.status() {
            Status::InProgress { to_move } => ("playing", Some(to_move), None),
            Status::Over(Outcome::Win(p)) => ("won", None, Some(p)),
            Status::Over(Outcome::Draw) => ("draw", None, None),
        };
        let rules = game.rules();
        Position {
            size: rules.size().to_string(),
            rows: rules.rows(),
            cols: rules.cols(),
            k: rules.k(),
            first,
            board: game.to_string(),
            moves: played.iter().map(|c| [c.row, c.col]).collect(),
            next,
            status,
            winner,
            reason: None,
            line: game
                .winning_line()
                .map(|line| line.cells().map(|c| [c.row, c.col]).collect()),
        }
    }

    /// The position as a played round left it: its `outcome` (`None` for
    /// a round called off) and `reason`, so that a round that ended by a
    /// resignation or on time reads as ended, as its GAME did, though the
    /// board alone would say it is being played.
    pub(super) fn ended(mut self, outcome: Option<Outcome>, reason: Reason) -> Position {
        (self.status, self.winner) = match outcome {
            Some(Outcome::Win(p)) => ("won", Some(p)),
            Some(Outcome::Draw) => ("draw", None),
            None => ("aborted", None),
        };
        self.next = None;
        self.reason = Some(reason.as_str());
        self
    }
}

/// A line of moves as the analysis board and the review take it.
type LineQuery =
    Result<axum::extract::Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>;

/// The empty board a line starts from, the game its moves make, the
/// moves, and whether a longer look was asked for.
fn line(query: LineQuery) -> Result<(Game, Game, Vec<Cell>, bool), ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| super::bad_query(&e))?;
    let (game, played) = query.game()?;
    Ok((query.start()?, game, played, query.longer == Some(true)))
}

/// The analysis board's position: the game its moves make, and the
/// perfect-play value of every empty cell where exact values come quickly;
/// elsewhere the engine's estimate, beside the values of the cells the
/// hints' budget reached on 7×7 k=5.
pub(super) async fn analysis(
    State(state): State<AppState>,
    query: LineQuery,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (start, game, played, longer) = line(query)?;
    let first = start.to_move();
    let client = client(&state, peer, &headers);
    // The client's place for a search, held by each search this request
    // runs until that search ends.
    let mut hold = Hold::new(state.edge().search_slot(client)?);
    let over = game.is_over();
    let hub = state.hub();
    let mut values = if over {
        None
    } else {
        hub.values(game.clone(), hold.clone()).await?
    };
    if longer
        && values
            .as_ref()
            .is_some_and(|exact| exact.missing.is_some_and(NoHints::longer_look_helps))
    {
        // The longer look holds the server's one slot for it, not this
        // client's place for a search (so the client's other requests go
        // on); it counts against the client's rate of longer looks.
        hold = Hold::default();
        let slot = admit_longer_look(&state, client)?;
        values = hub.values_longer(game.clone(), slot).await?;
    }
    // Why not every empty cell has its exact value, if not.
    let reason = match &values {
        _ if over => None,
        None => Some(NoHints::TooSlow),
        Some(exact) => exact.missing,
    };
    let estimate = match reason {
        Some(_) => hub.estimate(game.clone(), hold).await?,
        None => None,
    };
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(flatten)]
        position: Position,
        available: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        values: &'a [Hint],
        /// Whether `longer=true` may value more moves.
        longer_helps: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        estimate: Option<&'a EstimateView>,
    }
    let body = Body {
        position: Position::new(&game, first, &played),
        available: reason.is_none(),
        longer_helps: reason.is_some_and(NoHints::longer_look_helps),
        reason: reason.map(|reason| reason.to_string()),
        values: values.as_ref().map_or(&[], |exact| &exact.hints),
        estimate: estimate.as_deref(),
    };
    json_body(StatusCode::OK, &body)
}

/// A reviewed line of moves: the position they make and every move valued.
#[derive(Serialize)]
pub(super) struct ReviewBody {
    #[serde(flatten)]
    pub(super) position: Position,
    #[serde(flatten)]
    pub(super) review: ReviewView,
}

/// `GET /api/review`: every move of a line (given as for the analysis
/// board) valued at once.
pub(super) async fn review(
    State(state): State<AppState>,
    query: LineQuery,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (start, game, played, longer) = line(query)?;
    if longer {
        return Err(ApiError::BadRequest(
            "longer applies to /api/analysis, not to the review".into(),
        ));
    }
    let hold = Hold::new(state.edge().search_slot(client(&state, peer, &headers))?);
    let body = ReviewBody {
        position: Position::new(&game, start.to_move(), &played),
        review: state.hub().review(start, played, hold).await?,
    };
    json_body(StatusCode::OK, &body)
}
