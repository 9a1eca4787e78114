//! Analysis on every board: exact values where the solver reaches, the
//! engine's estimate elsewhere (the analysis board and hints), and the
//! review of a whole line or a played round.

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use oxo_server::{AppState, Hub, HubConfig, MemoryStore, app};
use serde_json::{Value, json};

use crate::common::call;

fn router() -> Router {
    app(AppState::new(Hub::new(
        Arc::new(MemoryStore::new()),
        &HubConfig::default(),
    )))
}

async fn get(router: &Router, path: &str) -> (StatusCode, Value) {
    call(router, "GET", path, None, "").await
}

/// A game between two people, both seated: (id, X's token, O's token).
async fn seated(router: &Router) -> (String, String, String) {
    let (status, created) = call(router, "POST", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let invite = json!({ "invite": created["invite"] }).to_string();
    let (status, joined) = call(
        router,
        "POST",
        &format!("/api/games/{id}/seats/o"),
        None,
        &invite,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let token = |v: &Value| v["token"].as_str().unwrap().to_owned();
    (id, token(&created), token(&joined))
}

async fn play(router: &Router, id: &str, token: &str, row: u32, col: u32) {
    let (_, game) = get(router, &format!("/api/games/{id}")).await;
    let body = json!({"row": row, "col": col, "version": game["version"]}).to_string();
    let (status, body) = call(
        router,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(token),
        &body,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// The checks every estimate passes: its engine, a gauge in [−1, 1] and
/// the side it favours, five best moves best first for the side to move,
/// and a line that starts with the best of them.
fn check_estimate(estimate: &Value, next: &str) {
    assert_eq!(estimate["engine"], "alphabeta", "{estimate}");
    let score = estimate["score"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&score), "{estimate}");
    let better = match score {
        s if s >= 0.1 => json!("x"),
        s if s <= -0.1 => json!("o"),
        _ => Value::Null,
    };
    assert_eq!(estimate["better"], better, "{estimate}");
    let moves = estimate["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5, "{estimate}");
    let sign = if next == "x" { 1.0 } else { -1.0 };
    let scores: Vec<f64> = moves
        .iter()
        .map(|m| sign * m["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {estimate}"
    );
    assert_eq!(moves[0]["score"], estimate["score"]);
    let line = estimate["line"].as_array().unwrap();
    assert_eq!(
        line[0],
        json!([moves[0]["row"], moves[0]["col"]]),
        "{estimate}"
    );
    assert!(estimate["nodes"].as_u64().unwrap() <= 100_000);
}

#[tokio::test]
async fn a_gomoku_position_gets_the_engines_estimate_every_time_the_same() {
    let router = router();
    let path = "/api/analysis?size=15x15&k=5&moves=7,7;7,8;8,8";
    let (status, body) = get(&router, path).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["available"], false);
    assert_eq!(body["values"], json!([]));
    assert!(
        body["reason"].as_str().unwrap().contains("25 cells"),
        "{body}"
    );
    assert_eq!(body["next"], "o");
    assert_eq!(body["first"], "x");
    check_estimate(&body["estimate"], "o");
    // X is a mark ahead: the gauge leans to X.
    assert!(body["estimate"]["score"].as_f64().unwrap() > 0.0, "{body}");
    // A budget of positions, not of time: the same answer again.
    let (_, again) = get(&router, path).await;
    assert_eq!(again, body);
    // An empty board too, and O moving first.
    let (_, empty) = get(&router, "/api/analysis?size=15x15&first=o").await;
    assert_eq!(empty["first"], "o");
    check_estimate(&empty["estimate"], "o");
}

#[tokio::test]
async fn a_forced_win_is_named_with_its_length() {
    let router = router();
    // X has an open three and the move: an open four, then five.
    let (_, body) = get(
        &router,
        "/api/analysis?size=15x15&moves=7,5;0,0;7,6;0,14;7,7;14,14",
    )
    .await;
    let estimate = &body["estimate"];
    assert_eq!(
        estimate["forced"],
        json!({"winner": "x", "plies": 3}),
        "{body}"
    );
    assert_eq!(estimate["score"], 1.0);
    assert_eq!(estimate["better"], "x");
    assert_eq!(estimate["line"].as_array().unwrap().len(), 3, "{body}");
}

/// 33 moves on 7×7 (k=5) that leave no five: 16 cells empty after them.
fn seven_by_seven(moves: usize) -> String {
    (0..7u32)
        .flat_map(|r| (0..7u32).map(move |c| format!("{r},{}", (c + 2 * r) % 7)))
        .take(moves)
        .collect::<Vec<_>>()
        .join(";")
}

#[tokio::test]
async fn seven_by_seven_k5_is_exact_at_every_stage() {
    let router = router();
    let at = |moves| format!("/api/analysis?size=7x7&k=5&moves={}", seven_by_seven(moves));
    let (_, early) = get(&router, &at(20)).await;
    assert_eq!(early["available"], true, "{early}");
    assert_eq!(early["values"].as_array().unwrap().len(), 29);
    // Valued by the prover (17 cells empty): the distances of wins and
    // losses are left out, a draw's is the empty cells.
    let (_, late) = get(&router, &at(32)).await;
    assert_eq!(late["status"], "playing");
    assert_eq!(late["available"], true, "{late}");
    assert!(late.get("estimate").is_none(), "{late}");
    let values = late["values"].as_array().unwrap();
    assert_eq!(values.len(), 17);
    for v in values {
        match v["value"].as_str().unwrap() {
            "draw" => assert_eq!(v["plies"], 17, "{v}"),
            _ => assert!(v.get("plies").is_none(), "{v}"),
        }
    }
    let (_, exact) = get(
        &router,
        &format!("/api/analysis?size=7x7&k=5&moves={}", seven_by_seven(33)),
    )
    .await;
    assert_eq!(exact["available"], true, "{exact}");
    assert_eq!(exact["values"].as_array().unwrap().len(), 16);
    assert!(exact.get("estimate").is_none(), "{exact}");
    assert!(exact.get("reason").is_none(), "{exact}");
    // A finished game: neither.
    let (_, won) = get(
        &router,
        "/api/analysis?size=15x15&moves=0,0;1,0;0,1;1,1;0,2;1,2;0,3;1,3;0,4",
    )
    .await;
    assert_eq!(won["status"], "won");
    assert!(won.get("estimate").is_none(), "{won}");
}

#[tokio::test]
async fn hints_against_the_computer_on_gomoku_are_the_estimate() {
    let router = router();
    let (status, created) = call(
        &router,
        "POST",
        "/api/games",
        None,
        r#"{"size":"15x15","opponent":"alphabeta"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["game"]["id"].as_str().unwrap();
    let (status, hints) = get(&router, &format!("/api/games/{id}/hints")).await;
    assert_eq!(status, StatusCode::OK, "{hints}");
    assert_eq!(hints["available"], false);
    assert_eq!(hints["hints"], json!([]));
    assert!(
        hints["reason"].as_str().unwrap().contains("25 cells"),
        "{hints}"
    );
    check_estimate(&hints["estimate"], "x");
    // The analysis board says the same of the same position.
    let (_, board) = get(&router, "/api/analysis?size=15x15").await;
    assert_eq!(board["estimate"], hints["estimate"]);
    // Once X aborts the round it is over: no estimate (nor values, on 15×15).
    let x = created["token"].as_str().unwrap();
    let path = format!("/api/games/{id}/abort");
    let (status, body) = call(&router, "POST", &path, Some(x), "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, hints) = get(&router, &format!("/api/games/{id}/hints")).await;
    assert_eq!(status, StatusCode::OK, "{hints}");
    assert_eq!(
        (&hints["available"], &hints["hints"], hints.get("estimate")),
        (&json!(false), &json!([]), None),
        "{hints}"
    );
}

#[tokio::test]
async fn a_line_is_reviewed_exactly_on_small_boards_and_by_the_engine_on_gomoku() {
    let router = router();
    // Tic-tac-toe: O's reply beside X's corner gives the draw away.
    let (status, body) = get(&router, "/api/review?moves=0,0;1,0;0,1;1,1;0,2").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "won");
    assert_eq!(body["margin"], 0.3);
    assert_eq!(body["nodes"], 0);
    let review = body["review"].as_array().unwrap();
    assert_eq!(review.len(), 5);
    assert_eq!(
        review[0],
        json!({"ply": 1, "row": 0, "col": 0, "player": "x", "exact": true,
               "value": "draw", "best_value": "draw", "best": [0, 0],
               "mistake": false, "gave_away": null})
    );
    assert_eq!(review[1]["player"], "o");
    assert_eq!(review[1]["value"], "loss");
    assert_eq!(review[1]["gave_away"], "draw");
    assert_eq!(review[1]["mistake"], true);
    assert_eq!(review[4]["value"], "win");
    assert_eq!(review[4]["mistake"], false);

    // Gomoku: X makes an open four and O a four; X plays elsewhere instead
    // of winning, and O wins.
    let line = "7,5;3,5;7,6;3,6;7,7;3,7;7,8;3,8;10,10;3,9";
    let (status, body) = get(&router, &format!("/api/review?size=15x15&moves={line}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["winner"], "o");
    let review = body["review"].as_array().unwrap();
    assert!(
        review
            .iter()
            .all(|m| m["exact"] == false && m.get("value").is_none())
    );
    let missed = &review[8];
    assert_eq!(missed["player"], "x");
    assert_eq!(missed["gave_away"], "win", "{missed}");
    assert_eq!(
        (
            &missed["best_score"],
            &missed["played_score"],
            &missed["drop"]
        ),
        (&json!(1.0), &json!(-1.0), &json!(2.0)),
        "{missed}"
    );
    assert_eq!(review[9]["mistake"], false, "{}", review[9]);
    assert!(body["nodes"].as_u64().unwrap() <= 2_000_000);
    // The same line, the same review.
    let (_, again) = get(&router, &format!("/api/review?size=15x15&moves={line}")).await;
    assert_eq!(again, body);
    // Bad lines as for the analysis board.
    let (status, body) = get(&router, "/api/review?moves=0,0;0,0").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("move 2 (0,0)"),
        "{body}"
    );
}

#[tokio::test]
async fn a_seven_by_seven_line_is_reviewed_exactly_where_the_hints_have_values() {
    let router = router();
    // X in the centre, O in a corner, X beside the centre: values from the
    // opening table, at once, as the analysis board gives them.
    let line = ["3,3", "0,0", "3,4"];
    let (status, body) = get(
        &router,
        &format!("/api/review?size=7x7&k=5&moves={}", line.join(";")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let review = body["review"].as_array().unwrap();
    for (ply, m) in review.iter().enumerate() {
        assert_eq!(
            (&m["exact"], &m["value"], &m["mistake"]),
            (&json!(true), &json!("draw"), &json!(false)),
            "{m}"
        );
        let before = line[..ply].join(";");
        let (_, board) = get(
            &router,
            &format!("/api/analysis?size=7x7&k=5&moves={before}"),
        )
        .await;
        let played = board["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["row"] == m["row"] && v["col"] == m["col"])
            .unwrap();
        assert_eq!(played["value"], m["value"], "{m}");
    }
    assert_eq!(body["nodes"], 0, "no engine search");
}

#[tokio::test]
async fn a_round_between_people_is_reviewed_once_it_is_over() {
    let router = router();
    let (id, x, o) = seated(&router).await;
    play(&router, &id, &x, 0, 0).await;
    play(&router, &id, &o, 1, 0).await;
    // Fair play: not while they play it, by either id.
    let (status, body) = get(&router, &format!("/api/games/{id}/review")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    for (token, row, col) in [(&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
        play(&router, &id, token, row, col).await;
    }
    let (status, body) = get(&router, &format!("/api/games/{id}/review?round=1")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["round"], 1);
    assert_eq!(body["winner"], "x");
    assert_eq!(
        body["moves"],
        json!([[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]])
    );
    let review = body["review"].as_array().unwrap();
    assert_eq!(review[1]["gave_away"], "draw", "{body}");
    // The same as the line reviewed on its own.
    let (_, line) = get(&router, "/api/review?moves=0,0;1,0;0,1;1,1;0,2").await;
    assert_eq!(line["review"], body["review"]);
    // The spectators' id too; the current round by default.
    let (_, game) = get(&router, &format!("/api/games/{id}")).await;
    let watch = game["watch"].as_str().unwrap();
    let (status, watched) = get(&router, &format!("/api/games/{watch}/review")).await;
    assert_eq!(status, StatusCode::OK, "{watched}");
    assert_eq!(watched["review"], body["review"]);
    for (query, says) in [
        ("round=2", "no round 2: this game has rounds 1 to 1"),
        ("round=0", "no round 0"),
        ("round=x", "bad query string: round: invalid digit"),
        ("nonsense=1", "unknown field"),
    ] {
        let (status, body) = get(&router, &format!("/api/games/{id}/review?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains(says),
            "{query}: {body}"
        );
    }
    let (status, _) = get(&router, "/api/games/nosuchgame/review").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        (&body["status"], &body["next"], &body["reason"]),
        (&json!("won"), &Value::Null, &json!("line"))
    );

    // A round that ended by a resignation reads as ended, as its GAME did,
    // though its board has no line.
    for token in [&x, &o] {
        let (status, body) = call(
            &router,
            "POST",
            &format!("/api/games/{id}/rematch"),
            Some(token),
            "",
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    play(&router, &id, &o, 1, 1).await;
    play(&router, &id, &x, 0, 0).await;
    let (status, body) = call(
        &router,
        "POST",
        &format!("/api/games/{id}/resign"),
        Some(&o),
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = get(&router, &format!("/api/games/{id}/review?round=2")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["status"],
            &body["winner"],
            &body["next"],
            &body["reason"]
        ),
        (&json!("won"), &json!("x"), &Value::Null, &json!("resign")),
        "{body}"
    );
    assert_eq!(body["review"].as_array().map(Vec::len), Some(2), "{body}");
}
