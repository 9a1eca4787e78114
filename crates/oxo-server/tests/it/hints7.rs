//! Exact hints from the first move on 7×7 k=5 (the prover and the opening
//! table): on the empty board and after one move, in a game against the
//! computer and on the analysis board.

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use oxo_server::{AppState, Hub, HubConfig, MemoryStore, app};
use serde_json::Value;

use crate::common;

fn router() -> Router {
    app(AppState::new(Hub::new(
        Arc::new(MemoryStore::new()),
        &HubConfig::default(),
    )))
}

async fn call(router: &Router, method: &str, path: &str, body: &str) -> (StatusCode, Value) {
    common::call(router, method, path, None, body).await
}

fn all_draws(values: &[Value], empty: u64) -> bool {
    values
        .iter()
        .all(|v| v["value"] == "draw" && v["plies"] == empty)
}

#[tokio::test]
async fn the_empty_board_and_the_first_move_have_exact_values() {
    let router = router();
    let (status, info) = call(&router, "GET", "/api/info", "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        info["hint_boards"],
        serde_json::json!([{"size": "7x7", "k": 5}])
    );

    let (status, created) = call(
        &router,
        "POST",
        "/api/games",
        r#"{"size":"7x7","k":5,"opponent":"random","first":"x"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["game"]["id"].as_str().unwrap();
    let (status, hints) = call(&router, "GET", &format!("/api/games/{id}/hints"), "").await;
    assert_eq!(status, StatusCode::OK, "{hints}");
    assert_eq!(hints["available"], true, "{hints}");
    let cells = hints["hints"].as_array().unwrap();
    assert_eq!(cells.len(), 49);
    assert!(all_draws(cells, 49), "{hints}");

    // After X's first move in a corner, every reply of O's, valued.
    let (status, analysis) = call(&router, "GET", "/api/analysis?size=7x7&k=5&moves=0,0", "").await;
    assert_eq!(status, StatusCode::OK, "{analysis}");
    assert_eq!(analysis["available"], true, "{analysis}");
    let values = analysis["values"].as_array().unwrap();
    assert_eq!(values.len(), 48);
    assert!(all_draws(values, 48), "{analysis}");
}

/// A position after four moves (beyond the opening table), whose hardest
/// moves need more search than a hint may take: the analysis board gives
/// the values of the moves the budget reached, says how many of all, and
/// adds the engine's estimate.
#[tokio::test]
async fn a_position_over_the_budget_gets_the_values_found_in_time() {
    let router = router();
    let (status, analysis) = call(
        &router,
        "GET",
        "/api/analysis?size=7x7&k=5&moves=1,2;0,3;4,3;6,6",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{analysis}");
    // `hints7 at` values 42 of the 45 moves within the same budget, all
    // draws (the board filling in 45 plies); X's win at (2, 3) needs longer.
    values_found_in_time(&analysis, "values", 45);
    assert_eq!(analysis["longer_helps"], true, "{analysis}");

    // A longer look values every move (a fresh valuer needs 4,853,336
    // positions, `hints7 at POS --budget 5000000`): X's win among them.
    let (status, longer) = call(
        &router,
        "GET",
        "/api/analysis?size=7x7&k=5&moves=1,2;0,3;4,3;6,6&longer=true",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{longer}");
    assert_eq!(longer["available"], true, "{longer}");
    assert_eq!(longer["longer_helps"], false, "{longer}");
    assert!(longer.get("reason").is_none(), "{longer}");
    let values = longer["values"].as_array().unwrap();
    assert_eq!(values.len(), 45, "{longer}");
    assert_eq!(
        values[0],
        serde_json::json!({"row": 2, "col": 3, "value": "win"}),
        "{longer}"
    );
    assert!(values[1..].iter().all(|v| v["value"] == "draw"), "{longer}");

    // The review values a line within the hints' budget only.
    let (status, refused) = call(
        &router,
        "GET",
        "/api/review?size=7x7&k=5&moves=1,2;0,3&longer=true",
        "",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(
        refused["error"],
        "longer applies to /api/analysis, not to the review"
    );
}

/// Where the hints' budget values every move, a longer look has nothing to
/// add: it answers the same, and offers no longer look either.
#[tokio::test]
async fn a_longer_look_where_every_value_is_known_answers_the_same() {
    let router = router();
    let path = "/api/analysis?size=7x7&k=5&moves=3,3";
    let (_, quick) = call(&router, "GET", path, "").await;
    let (status, longer) = call(&router, "GET", &format!("{path}&longer=true"), "").await;
    assert_eq!(status, StatusCode::OK, "{longer}");
    assert_eq!(quick["available"], true, "{quick}");
    assert_eq!(quick["longer_helps"], false, "{quick}");
    assert_eq!(quick, longer);
    let (status, bad) = call(&router, "GET", &format!("{path}&longer=maybe"), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
}

/// An answer (`body`) whose hardest moves needed more search than a hint
/// may take, of a position with `moves` moves: the values found in time
/// (under `list`), some but not all, each draw with its distance (the
/// board fills) and each win or loss without one (from the prover), the
/// reason saying how many of all, and the engine's estimate beside them.
fn values_found_in_time(body: &Value, list: &str, moves: usize) {
    assert_eq!(body["available"], false, "{body}");
    let values = body[list].as_array().unwrap();
    assert!(!values.is_empty() && values.len() < moves, "{body}");
    assert!(
        values
            .iter()
            .all(|v| (v["value"] == "draw") == (v["plies"] == moves)),
        "{body}"
    );
    let reason = body["reason"].as_str().unwrap();
    let said = format!("exact values for {} of the {moves} moves", values.len());
    assert!(reason.starts_with(&said), "{reason}");
    assert_eq!(body["estimate"]["engine"], "alphabeta", "{body}");
}

/// The room's game once it has reached `version` (the computer moves on
/// its own).
async fn until_version(router: &Router, id: &str, version: u64) -> Value {
    let what = format!("game {id} never reached version {version}");
    common::eventually(what, async || {
        let (status, game) = call(router, "GET", &format!("/api/games/{id}"), "").await;
        assert_eq!(status, StatusCode::OK, "{game}");
        if game["version"].as_u64() >= Some(version) {
            Ok(game)
        } else {
            Err(game)
        }
    })
    .await
}

/// A game against the computer that reaches a position whose hardest
/// moves need more search than a hint may take: the room's hints give the
/// values found in time, say how many of all, and add the estimate.
#[tokio::test]
async fn a_rooms_hints_over_the_budget_give_the_values_found_in_time() {
    // The computer (O) opens in the centre; X takes two far corners, and
    // the computer (alphabeta, within its budget of positions) builds
    // beside its first stone: (2, 2), then (2, 4) or (4, 2) when tried.
    // The position after five moves is beyond the opening table, and its
    // hints' budget values 41 of X's 44 moves (`hints7 at`, a fresh
    // valuer). The computer's ties are broken by a seed of the room's
    // own, so a room whose replies lead elsewhere, to a position valued
    // in time, is set aside for another, ten at most.
    let mut outside = None;
    for _ in 0..10 {
        let router = router();
        let (status, created) = call(
            &router,
            "POST",
            "/api/games",
            r#"{"size":"7x7","k":5,"opponent":"alphabeta","first":"o"}"#,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let token = created["token"].as_str().unwrap();
        let game = until_version(&router, &id, 2).await;
        assert_eq!(
            game["board"],
            "......./......./......./...O.../......./......./......."
        );
        for (version, (row, col)) in [(2, (0, 0)), (4, (6, 6))] {
            let (status, played) = common::call(
                &router,
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                &format!(r#"{{"row":{row},"col":{col},"version":{version}}}"#),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{played}");
            until_version(&router, &id, version + 2).await;
        }
        let game = until_version(&router, &id, 6).await;
        let board = game["board"].as_str().unwrap();
        assert!(
            board.starts_with("X......")
                && board.ends_with("......X")
                && board.matches('O').count() == 3,
            "{board}"
        );
        let (status, hints) = call(&router, "GET", &format!("/api/games/{id}/hints"), "").await;
        assert_eq!(status, StatusCode::OK, "{hints}");
        if hints["available"] == false {
            outside = Some((router, id, hints));
            break;
        }
    }
    let (router, id, hints) = outside.expect("ten rooms whose hints were all valued in time");
    assert_eq!(hints["version"], 6, "{hints}");
    values_found_in_time(&hints, "hints", 44);
    assert_eq!(hints["longer_helps"], true, "{hints}");

    // A longer look values more of the moves, and the room's hints are
    // its answer from then on.
    let path = format!("/api/games/{id}/hints");
    let (status, longer) = call(&router, "GET", &format!("{path}?longer=true"), "").await;
    assert_eq!(status, StatusCode::OK, "{longer}");
    assert_eq!(longer["version"], 6, "{longer}");
    let before = hints["hints"].as_array().unwrap().len();
    let after = longer["hints"].as_array().unwrap().len();
    assert!(after > before, "{longer}");
    // (`hints7 at` with the longer budget values every move here.)
    assert_eq!(longer["available"], after == 44, "{longer}");
    assert_eq!(longer["longer_helps"], after < 44, "{longer}");
    let (_, again) = call(&router, "GET", &path, "").await;
    assert_eq!(again, longer);
    let (status, bad) = call(&router, "GET", &format!("{path}?longer=1&x=2"), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
}

/// A position a longer look values more of but not whole (27 of the 45
/// moves where the hints value 13, `hints7 at POS --budget 5000000`, a
/// fresh valuer): the answer says so, and offers another look.
#[tokio::test]
async fn a_longer_look_that_leaves_moves_says_so() {
    let router = router();
    let path = "/api/analysis?size=7x7&k=5&moves=0,1;2,4;6,5;3,2";
    let (_, hints) = call(&router, "GET", path, "").await;
    assert_eq!(hints["longer_helps"], true, "{hints}");
    let before = hints["values"].as_array().unwrap().len();
    let (status, longer) = call(&router, "GET", &format!("{path}&longer=true"), "").await;
    assert_eq!(status, StatusCode::OK, "{longer}");
    assert_eq!(longer["available"], false, "{longer}");
    assert_eq!(longer["longer_helps"], true, "{longer}");
    let after = longer["values"].as_array().unwrap().len();
    assert!(after > before && after < 45, "{before} then {longer}");
    assert_eq!(
        longer["reason"],
        format!(
            "exact values for {after} of the 45 moves after a longer search; looking again may value more (oxo solve values every move without a limit)"
        ),
        "{longer}"
    );
    assert_eq!(longer["estimate"]["engine"], "alphabeta", "{longer}");
}
