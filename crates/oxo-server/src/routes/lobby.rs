//! The lobby: open games to join, games being played to watch, and the
//! caller's recent games.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;

use super::{RawBody, game_id, json_body, parse_body, player_name, seated_response};
use crate::error::ApiError;
use crate::id::GameId;
use crate::state::AppState;

/// `GET /api/lobby?recent=ID,ID,…`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LobbyQuery {
    recent: Option<String>,
}

/// Ids a lobby request may name in `recent`.
const LOBBY_RECENT: usize = 20;

pub(super) async fn lobby(
    State(state): State<AppState>,
    query: Result<axum::extract::Query<LobbyQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) = query.map_err(|e| super::bad_query(&e))?;
    let recent: Vec<GameId> = query
        .recent
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|id| !id.is_empty())
        .map(|id| {
            GameId::parse(id).ok_or_else(|| {
                ApiError::BadRequest(format!("bad id {:?} in recent", crate::error::clipped(id)))
            })
        })
        .collect::<Result<_, _>>()?;
    if recent.len() > LOBBY_RECENT {
        return Err(ApiError::BadRequest(format!(
            "recent names {} games; at most {LOBBY_RECENT}",
            recent.len()
        )));
    }
    let lobby = state.hub().lobby(&recent).await?;
    json_body(StatusCode::OK, &lobby)
}

/// `POST /api/lobby/{entry}/join`: the body is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JoinEntry {
    /// The joiner's display name.
    name: Option<String>,
}

/// `POST /api/lobby/{entry}/join`: seat O of an open game.
pub(super) async fn join_entry(
    State(state): State<AppState>,
    Path(entry): Path<String>,
    headers: HeaderMap,
    body: RawBody,
) -> Result<Response, ApiError> {
    let entry = game_id(&entry)?;
    let chose = super::games::chosen_token(&headers)?;
    let request: JoinEntry = parse_body(body)?;
    let name = player_name(request.name.as_deref())?;
    let seated = state.hub().join_entry(&entry, name, chose).await?;
    seated_response(StatusCode::OK, &seated)
}
