//! The analysis board: any position, given by its moves, with the
//! perfect-play value of every empty cell where the solver is quick.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use oxo_ai::hints::NoHints;
use oxo_core::{Cell, Coords, Game, Player, Status};
use serde::{Deserialize, Serialize};

use super::{Peer, client, json_response, rules_of};
use crate::error::ApiError;
use crate::hub::Hint;
use crate::room::SeatName;
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
}

/// The most moves an analysis request may list (a 32×32 board's cells).
const MAX_ANALYSIS_MOVES: usize = 1024;

impl AnalysisQuery {
    /// The game the moves make, and the moves.
    fn game(&self) -> Result<(Game, Vec<Cell>), ApiError> {
        let rules = rules_of(self.size.as_deref(), self.k)?;
        let first = match self.first.as_deref() {
            None => Player::X,
            Some(text) => SeatName::parse(text).ok_or_else(|| {
                ApiError::BadRequest(format!("bad first {text:?}: use \"x\" or \"o\""))
            })?,
        };
        let mut game = Game::starting_with(rules, first);
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
            let cell = cell.map_err(|e| {
                ApiError::BadRequest(format!("move {} ({},{}): {e}", n + 1, at.row, at.col))
            })?;
            played.push(cell);
        }
        Ok((game, played))
    }
}

/// At most 20 characters of `text`, for error messages.
fn quoted_prefix(text: &str) -> String {
    text.chars().take(20).collect()
}

/// The analysis board's position: the game its moves make, and (where the
/// solver is quick) the perfect-play value of every empty cell.
pub(super) async fn analysis(
    State(state): State<AppState>,
    query: Result<axum::extract::Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>,
    peer: Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let (game, played) = query.game()?;
    let _in_flight = state.edge().search_slot(client(&state, peer, &headers))?;
    let (status, next, winner) = match game.status() {
        Status::InProgress { to_move } => ("playing", Some(SeatName(to_move)), None),
        Status::Over(oxo_core::Outcome::Win(p)) => ("won", None, Some(SeatName(p))),
        Status::Over(oxo_core::Outcome::Draw) => ("draw", None, None),
    };
    let rules = game.rules();
    let moves: Vec<[u32; 2]> = played.iter().map(|c| [c.row, c.col]).collect();
    let line: Option<Vec<[u32; 2]>> = game
        .winning_line()
        .map(|line| line.cells().map(|c| [c.row, c.col]).collect());
    let board = game.to_string();
    let over = status != "playing";
    let values = if over {
        None
    } else {
        state.hub().values(game).await?
    };
    #[derive(Serialize)]
    struct Body<'a> {
        size: String,
        rows: u32,
        cols: u32,
        k: u32,
        board: String,
        moves: Vec<[u32; 2]>,
        next: Option<SeatName>,
        status: &'static str,
        winner: Option<SeatName>,
        line: Option<Vec<[u32; 2]>>,
        available: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        values: &'a [Hint],
    }
    let body = Body {
        size: rules.size().to_string(),
        rows: rules.rows(),
        cols: rules.cols(),
        k: rules.k(),
        board,
        moves,
        next,
        status,
        winner,
        line,
        available: over || values.is_some(),
        reason: (!over && values.is_none()).then(|| NoHints::TooSlow.to_string()),
        values: values.as_deref().unwrap_or_default(),
    };
    let text = serde_json::to_string(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(json_response(StatusCode::OK, text))
}
