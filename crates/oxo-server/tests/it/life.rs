//! Ending a game and safe retries, through the API: resign, abort, draw
//! offers, takebacks, claims, their record and their survival of a
//! restart, and moves (and other changes) sent twice under one
//! `Idempotency-Key`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use futures_util::SinkExt as _;
use oxo_server::{AppState, Hub, HubConfig, SqliteStore, Store, app};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{self, Socket};

/// A server's router on a SQLite file, which a test can close and open
/// again (a restart).
struct Api {
    router: Router,
}

impl Api {
    fn open(path: &Path) -> Api {
        Api::with(path, &HubConfig::default())
    }

    fn with(path: &Path, config: &HubConfig) -> Api {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(path).unwrap());
        Api {
            router: app(AppState::new(Hub::new(store, config))),
        }
    }

    /// `method path` with `body`, a seat's `token` and an `Idempotency-Key`.
    async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        key: Option<&str>,
        body: &str,
    ) -> (StatusCode, Value) {
        let mut headers = vec![("content-type", "application/json")];
        headers.extend(key.map(|key| ("idempotency-key", key)));
        common::call_with_headers(&self.router, method, path, token, &headers, body).await
    }

    /// `POST /api/games/{id}/{what}` by `token`, no body.
    async fn act(&self, id: &str, what: &str, token: &str) -> (StatusCode, Value) {
        self.send(
            "POST",
            &format!("/api/games/{id}/{what}"),
            Some(token),
            None,
            "",
        )
        .await
    }

    /// The next round: a rematch offered by `seats[0]`, accepted by `seats[1]`.
    async fn next_round(&self, id: &str, seats: [&str; 2]) {
        for token in seats {
            assert_eq!(self.act(id, "rematch", token).await.0, StatusCode::OK);
        }
    }

    async fn game(&self, id: &str) -> Value {
        let (status, game) = self
            .send("GET", &format!("/api/games/{id}"), None, None, "")
            .await;
        assert_eq!(status, StatusCode::OK, "{game}");
        game
    }

    async fn record(&self, id: &str) -> Value {
        let (status, record) = self
            .send("GET", &format!("/api/games/{id}/record"), None, None, "")
            .await;
        assert_eq!(status, StatusCode::OK, "{record}");
        record
    }

    async fn play(&self, id: &str, token: &str, row: u32, col: u32) -> (StatusCode, Value) {
        self.play_keyed(id, token, row, col, None).await
    }

    async fn play_keyed(
        &self,
        id: &str,
        token: &str,
        row: u32,
        col: u32,
        key: Option<&str>,
    ) -> (StatusCode, Value) {
        let body = json!({"row": row, "col": col}).to_string();
        self.send(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            key,
            &body,
        )
        .await
    }

    /// A game between two people, both seated: (id, X's token, O's token).
    async fn seated(&self, settings: Value) -> (String, String, String) {
        let (status, created) = self
            .send("POST", "/api/games", None, None, &settings.to_string())
            .await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let body = json!({"invite": created["invite"]}).to_string();
        let (status, joined) = self
            .send(
                "POST",
                &format!("/api/games/{id}/seats/o"),
                None,
                None,
                &body,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{joined}");
        (
            id,
            created["token"].as_str().unwrap().to_owned(),
            joined["token"].as_str().unwrap().to_owned(),
        )
    }
}

/// Check that `game` ended with this status, reason, winner and score.
#[track_caller]
fn assert_ended(game: &Value, status: &str, reason: &str, winner: Option<&str>, score: Value) {
    let ended = (
        &game["status"],
        &game["reason"],
        &game["winner"],
        &game["score"],
    );
    assert_eq!(
        ended,
        (&json!(status), &json!(reason), &json!(winner), &score),
        "{game}"
    );
}

fn score(x: u64, o: u64, draws: u64) -> Value {
    json!({"x": x, "o": o, "draws": draws})
}

#[tokio::test]
async fn every_ending_is_kept_with_its_reason_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let (id, x, o, before, record) = {
        let api = Api::open(&path);
        let (id, x, o) = api.seated(json!({})).await;
        let game = api.game(&id).await;
        assert_eq!(
            (&game["reason"], &game["offers"]),
            (
                &Value::Null,
                &json!({"draw": null, "takeback": null, "made": {"draw": [], "takeback": []}})
            )
        );
        // Round 1: O may not resign before both sides have moved (only
        // abort); once each has, O resigns.
        assert_eq!(api.play(&id, &x, 1, 1).await.0, StatusCode::OK);
        let (status, body) = api.act(&id, "resign", &o).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(
            body["error"],
            "until both sides have moved, a round cannot be resigned or drawn, only aborted (which counts for nobody)"
        );
        assert_eq!(api.play(&id, &o, 0, 0).await.0, StatusCode::OK);
        let (status, body) = api.act(&id, "resign", &o).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_ended(&body["game"], "won", "resign", Some("x"), score(1, 0, 0));
        // Over, so hints are no longer withheld from the players.
        let (status, body) = api
            .send("GET", &format!("/api/games/{id}/hints"), None, None, "")
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // A second resignation is a 409 with the game, unchanged.
        let (status, body) = api.act(&id, "resign", &x).await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["error"], "the round is over");
        assert_eq!(body["game"], api.game(&id).await);
        // Round 2 (O starts): aborted before anyone moved.
        api.next_round(&id, [&x, &o]).await;
        let (status, body) = api.act(&id, "abort", &x).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_ended(&body["game"], "aborted", "aborted", None, score(1, 0, 0));
        // Round 3 (X starts): drawn by agreement.
        api.next_round(&id, [&o, &x]).await;
        assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
        assert_eq!(api.play(&id, &o, 1, 1).await.0, StatusCode::OK);
        let (status, body) = api.act(&id, "draw", &x).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            body["game"]["offers"],
            json!({"draw": "x", "takeback": null, "made": {"draw": ["x"], "takeback": []}})
        );
        let (status, body) = api.act(&id, "draw", &x).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(
            body["error"],
            "you have offered a draw; waiting for o to answer"
        );
        let (status, body) = api.act(&id, "draw", &o).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_ended(&body["game"], "draw", "agreement", None, score(1, 0, 1));
        // Round 4 (O starts), being played, with a takeback asked for.
        api.next_round(&id, [&x, &o]).await;
        assert_eq!(api.play(&id, &o, 1, 1).await.0, StatusCode::OK);
        let (status, body) = api.act(&id, "takeback", &o).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["game"]["offers"]["takeback"], "o");
        let (game, record) = (api.game(&id).await, api.record(&id).await);
        (id, x, o, game, record)
    };
    // A restart rebuilds it all: the pending takeback, the score, and
    // every round's reason in the record.
    let api = Api::open(&path);
    assert_eq!(api.game(&id).await, before);
    assert_eq!(api.record(&id).await, record);
    let rounds: Vec<_> = record["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["result"].clone(), r["reason"].clone()))
        .collect();
    assert_eq!(
        rounds,
        [
            ("x".into(), "resign".into()),
            ("aborted".into(), "aborted".into()),
            ("draw".into(), "agreement".into()),
            (Value::Null, Value::Null),
        ]
    );
    // X grants the takeback: the board is empty, O to move again.
    let (status, body) = api.act(&id, "takeback", &x).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["game"]["board"],
            &body["game"]["next"],
            &body["game"]["moves"]
        ),
        (&json!(".../.../..."), &json!("o"), &json!([]))
    );
    assert_eq!(api.record(&id).await["rounds"][3]["moves"], json!([]));
    // The moves go on from there, and the taken-back cell is free.
    assert_eq!(api.play(&id, &o, 1, 1).await.0, StatusCode::OK);
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
    // Too late to abort now; a resignation still ends it.
    let (status, body) = api.act(&id, "abort", &o).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "a round can be aborted only until both sides have moved; resign instead"
    );
    drop(api);
    let api = Api::open(&path);
    assert_eq!(
        api.record(&id).await["rounds"][3]["moves"],
        json!([[1, 1], [0, 0]])
    );
}

#[tokio::test]
async fn offers_are_declined_withdrawn_or_declined_by_a_move() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::open(&dir.path().join("oxo.db"));
    let (id, x, o) = api.seated(json!({})).await;
    let draw = format!("/api/games/{id}/draw");
    // No offer before both sides have moved.
    assert_eq!(api.play(&id, &x, 1, 1).await.0, StatusCode::OK);
    assert_eq!(api.act(&id, "draw", &o).await.0, StatusCode::CONFLICT);
    assert_eq!(api.play(&id, &o, 0, 0).await.0, StatusCode::OK);
    // Nothing to decline yet.
    let (status, body) = api.send("DELETE", &draw, Some(&o), None, "").await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "there is no draw offer to withdraw or decline"
    );
    // Offered and declined.
    assert_eq!(api.act(&id, "draw", &x).await.0, StatusCode::OK);
    let (status, body) = api.send("DELETE", &draw, Some(&o), None, "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["game"]["offers"]["draw"], Value::Null);
    assert_eq!(body["game"]["offers"]["made"]["draw"], json!(["x"]));
    // Not again before the offerer's next move.
    let (status, body) = api.act(&id, "draw", &x).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "you made a draw offer since your last move; you can make it again after your next move"
    );
    assert_eq!(body["game"]["offers"]["draw"], Value::Null);
    assert_eq!(api.play(&id, &x, 2, 2).await.0, StatusCode::OK);
    assert_eq!(api.play(&id, &o, 0, 2).await.0, StatusCode::OK);
    // Offered, standing through the offerer's own move, and declined by
    // the other side's.
    assert_eq!(api.act(&id, "draw", &x).await.0, StatusCode::OK);
    let (status, body) = api.play(&id, &x, 2, 0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["game"]["offers"]["draw"], "x");
    let (status, body) = api.play(&id, &o, 1, 0).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["game"]["offers"]["draw"], Value::Null);
    // A stale version is refused and changes nothing.
    let version = api.game(&id).await["version"].as_u64().unwrap();
    let (status, body) = api
        .send(
            "POST",
            &draw,
            Some(&x),
            None,
            &json!({"version": version - 1}).to_string(),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["game"]["version"], version);
    // Tokens and ids as on every seat's route.
    let (status, _) = api
        .send("POST", &format!("/api/games/{id}/resign"), None, None, "")
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        api.act(&id, "resign", "nobody").await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        api.act("nosuchgame", "resign", &x).await.0,
        StatusCode::NOT_FOUND
    );
    let (status, body) = api
        .send(
            "POST",
            &format!("/api/games/{id}/claim"),
            Some(&x),
            None,
            "{\"bogus\": 1}",
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(api.game(&id).await["version"], version);
}

#[tokio::test]
async fn a_move_sent_twice_under_one_key_is_played_once_even_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let (id, x, o, first) = {
        let api = Api::open(&path);
        let (id, x, o) = api.seated(json!({})).await;
        let (status, first) = api.play_keyed(&id, &x, 1, 1, Some("move-1")).await;
        assert_eq!(status, StatusCode::OK, "{first}");
        // The same key again: the same answer, nothing played.
        let (status, again) = api.play_keyed(&id, &x, 1, 1, Some("move-1")).await;
        assert_eq!((status, &again), (StatusCode::OK, &first));
        // With another cell it is refused: a key names one request.
        let (status, body) = api.play_keyed(&id, &x, 2, 2, Some("move-1")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("sent before with another request"),
            "{body}"
        );
        assert_eq!(
            api.game(&id).await["moves"],
            json!([[1, 1]]),
            "nothing played"
        );
        // The same key from the other seat is its own.
        let (status, body) = api.play_keyed(&id, &o, 0, 0, Some("move-1")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["game"]["moves"], json!([[1, 1], [0, 0]]));
        (id, x, o, first)
    };
    let api = Api::open(&path);
    let now = api.game(&id).await;
    let (status, again) = api.play_keyed(&id, &x, 1, 1, Some("move-1")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        again["game"], now,
        "replayed after a restart: nothing changes"
    );
    assert_ne!(again, first, "the answer is the game as it now stands");
    let (status, again) = api.play_keyed(&id, &o, 0, 0, Some("move-1")).await;
    assert_eq!((status, &again["game"]), (StatusCode::OK, &now));
    // Keys work on the other changes too: one resignation.
    let (status, resigned) = api
        .send(
            "POST",
            &format!("/api/games/{id}/resign"),
            Some(&x),
            Some("bye"),
            "",
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, again) = api
        .send(
            "POST",
            &format!("/api/games/{id}/resign"),
            Some(&x),
            Some("bye"),
            "",
        )
        .await;
    assert_eq!((status, &again), (StatusCode::OK, &resigned));
    assert_eq!(resigned["game"]["score"], score(0, 1, 0));
    // The key of a move sent again with a resignation is refused (and after
    // the restart too: the request is kept with the key).
    let (status, body) = api
        .send(
            "POST",
            &format!("/api/games/{id}/abort"),
            Some(&x),
            Some("bye"),
            "",
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = api
        .send(
            "POST",
            &format!("/api/games/{id}/draw"),
            Some(&o),
            Some("move-1"),
            "",
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    // A key in the move's body counts as the header would.
    api.next_round(&id, [&x, &o]).await;
    let body = json!({"row": 2, "col": 2, "key": "in-body"}).to_string();
    let path = format!("/api/games/{id}/moves");
    let (status, played) = api.send("POST", &path, Some(&o), None, &body).await;
    assert_eq!(status, StatusCode::OK, "{played}");
    let (status, again) = api
        .send("POST", &path, Some(&o), Some("in-body"), &body)
        .await;
    assert_eq!((status, &again), (StatusCode::OK, &played));
    let (status, body) = api
        .send("POST", &path, Some(&o), Some("other"), &body)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn a_malformed_key_is_a_clear_400_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::open(&dir.path().join("oxo.db"));
    let (id, x, _) = api.seated(json!({})).await;
    let long = "k".repeat(65);
    for (key, says) in [
        ("", "cannot be empty"),
        ("two words", "printable ASCII"),
        (long.as_str(), "at most 64 characters"),
    ] {
        let (status, body) = api.play_keyed(&id, &x, 1, 1, Some(key)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{key:?}: {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
    }
    let (status, body) = api
        .send(
            "POST",
            &format!("/api/games/{id}/resign"),
            Some(&x),
            Some("a\tb"),
            "",
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(api.game(&id).await["moves"], json!([]));
    assert_eq!(api.game(&id).await["status"], "playing");
}

#[tokio::test]
async fn against_the_computer_takebacks_are_granted_and_draws_follow_the_solver() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::open(&dir.path().join("oxo.db"));
    let create = |body: Value| {
        let api = &api;
        async move {
            let (status, created) = api
                .send("POST", "/api/games", None, None, &body.to_string())
                .await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
            (
                created["game"]["id"].as_str().unwrap().to_owned(),
                created["token"].as_str().unwrap().to_owned(),
            )
        }
    };
    let (id, x) = create(json!({"opponent": "perfect"})).await;
    let (status, body) = api.play(&id, &x, 1, 1).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let game = until(&api, &id, |g| g["next"] == "x").await;
    assert_eq!(game["moves"].as_array().unwrap().len(), 2);
    // Granted at once: back to an empty board, X to move.
    let (status, body) = api.act(&id, "takeback", &x).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (&body["game"]["moves"], &body["game"]["next"]),
        (&json!([]), &json!("x"))
    );
    // No draw before both sides have moved: the round can only be aborted.
    let (status, body) = api.act(&id, "draw", &x).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("only aborted"),
        "{body}"
    );
    let (status, body) = api.play(&id, &x, 1, 1).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    until(&api, &id, |g| g["next"] == "x").await;
    // 3×3 is a draw: perfect play accepts.
    let (status, body) = api.act(&id, "draw", &x).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_ended(&body["game"], "draw", "agreement", None, score(0, 0, 1));
    // Nobody to claim against.
    assert_eq!(api.act(&id, "rematch", &x).await.0, StatusCode::OK);
    let game = until(&api, &id, |g| g["next"] == "x").await;
    assert_eq!(game["round"], 2);
    let (status, body) = api.act(&id, "claim", &x).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "the computer never leaves the board: there is no win to claim"
    );
    // Too big to solve: the computer declines and plays on.
    let (id, x) = create(json!({"opponent": "alphabeta", "size": "9x9", "k": 5})).await;
    let (status, body) = api.play(&id, &x, 4, 4).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    until(&api, &id, |g| g["next"] == "x").await;
    let (status, body) = api.act(&id, "draw", &x).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        body["error"],
        "the computer declines the draw: it can still win, or cannot tell on this board"
    );
    assert_eq!(body["game"]["status"], "playing");
    let (status, body) = api.act(&id, "resign", &x).await;
    assert_eq!(status, StatusCode::OK);
    assert_ended(&body["game"], "won", "resign", Some("o"), score(0, 1, 0));
}

/// Game `id` once it is as `ready` says, for the computer's replies.
async fn until(api: &Api, id: &str, ready: impl Fn(&Value) -> bool) -> Value {
    common::eventually(format!("game {id} never got there"), async || {
        let game = api.game(id).await;
        if ready(&game) { Ok(game) } else { Err(game) }
    })
    .await
}

/// A seat's live socket on `server`.
async fn connect(server: &oxo_test_support::InProcess, id: &str, token: &str) -> Socket {
    let url = format!("ws://{}/api/games/{id}/live?token={token}", server.addr);
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

/// Read `socket` until a presence message says `ready`.
async fn presence_until(socket: &mut Socket, ready: impl Fn(&Value) -> bool) -> Value {
    loop {
        let message = common::next_text(socket, common::PATIENCE).await;
        if let Some(presence) = message.get("presence")
            && ready(presence)
        {
            return presence.clone();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_win_is_claimed_once_the_absent_seat_has_been_gone_long_enough() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path().join("oxo.db")).unwrap());
    // No wait: the test turns on presence alone, never on the clock.
    let config = HubConfig {
        claim_after: Duration::ZERO,
        ..HubConfig::default()
    };
    let server = oxo_test_support::InProcess::start_with(store, &config).await;
    let client = oxo_test_support::Client::new(server.addr);
    let seated = oxo_test_support::seated_game(&client, &json!({}))
        .await
        .unwrap();
    let (id, x, o) = (seated.id, seated.x, seated.o);
    let claim_path = format!("/api/games/{id}/claim");
    let claim = || client.call("POST", &claim_path, Some(&x), &Value::Null);
    let mut xs = connect(&server, &id, &x).await;
    let mut os = connect(&server, &id, &o).await;
    presence_until(&mut xs, |p| p["o"] == true).await;
    // X's move: nothing to claim.
    let (status, body) = claim().await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        "the round can be claimed only while it is o's move"
    );
    for (token, row, col) in [(&x, 1, 1), (&o, 0, 0), (&x, 2, 2)] {
        let (status, body) = client
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                &json!({"row": row, "col": col}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    // O is here.
    let (status, body) = claim().await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        body["error"],
        "o is connected; the round can be claimed once they have been gone for 0 s"
    );
    // O leaves: X is told, with the wait, and claims.
    os.close(None).await.unwrap();
    let presence = presence_until(&mut xs, |p| p["o"] == false).await;
    assert_eq!(presence["claim_after_ms"], 0);
    assert!(presence["gone_ms"]["o"].is_u64(), "{presence}");
    assert_eq!(presence["gone_ms"]["x"], Value::Null);
    let (status, body) = claim().await;
    assert_eq!(status, 200, "{body}");
    assert_ended(&body["game"], "won", "abandoned", Some("x"), score(1, 0, 0));
    xs.send(Message::Close(None)).await.unwrap();
}

/// A seat gone before its first move of the round, as on lichess: the
/// claim aborts the round, which counts for nobody.
#[tokio::test]
async fn a_claim_against_a_seat_that_never_moved_aborts_the_round() {
    let dir = tempfile::tempdir().unwrap();
    let config = HubConfig {
        claim_after: Duration::ZERO,
        ..HubConfig::default()
    };
    let api = Api::with(&dir.path().join("oxo.db"), &config);
    let (id, x, _) = api.seated(json!({})).await;
    assert_eq!(api.play(&id, &x, 1, 1).await.0, StatusCode::OK);
    let (status, body) = api.act(&id, "claim", &x).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_ended(&body["game"], "aborted", "aborted", None, score(0, 0, 0));
}

#[tokio::test]
async fn a_claim_before_the_wait_is_refused_with_the_time_left() {
    let dir = tempfile::tempdir().unwrap();
    let config = HubConfig {
        claim_after: Duration::from_secs(3600),
        ..HubConfig::default()
    };
    let api = Api::with(&dir.path().join("oxo.db"), &config);
    let (id, x, _) = api.seated(json!({})).await;
    assert_eq!(api.play(&id, &x, 1, 1).await.0, StatusCode::OK);
    let (status, body) = api.act(&id, "claim", &x).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let error = body["error"].as_str().unwrap();
    assert!(
        error.starts_with("o has been gone for ")
            && error.contains("; the round can be claimed in "),
        "{error}"
    );
    assert_eq!(body["game"]["status"], "playing");
}

/// Game `id` as `client` shows it once it is as `ready` says.
async fn until_on(
    client: &oxo_test_support::Client,
    id: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let path = format!("/api/games/{id}");
    common::eventually(format!("game {id} never got there"), async || {
        let game = client.get_json(&path).await;
        if ready(&game) { Ok(game) } else { Err(game) }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endings_takebacks_and_keys_hold_across_nodes_on_postgresql() {
    let db = oxo_test_support::Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let mut nodes = Vec::new();
    for _ in 0..2 {
        let store = oxo_server::PgStore::connect(&db.url()).await.unwrap();
        let server = oxo_test_support::InProcess::start(Arc::new(store)).await;
        let client = oxo_test_support::Client::new(server.addr);
        nodes.push((server, client));
    }
    let (a, b) = (&nodes[0].1, &nodes[1].1);
    let seated = oxo_test_support::seated_game(a, &json!({})).await.unwrap();
    let (id, x, o) = (seated.id, seated.x, seated.o);
    let at = |what: &str| format!("/api/games/{id}/{what}");
    // A move on A, repeated with its key on B: played once. B holds the
    // room already, so it learns of the move from A's notice (and plays it
    // with the key the notice names); O's reply is committed from B, and
    // the key is still known after it.
    until_on(b, &id, |g| g["status"] == "playing").await;
    let moved = json!({"row": 1, "col": 1, "key": "m1"});
    let (status, first) = a.call("POST", &at("moves"), Some(&x), &moved).await;
    assert_eq!(status, 200, "{first}");
    until_on(b, &id, |g| g["moves"] == json!([[1, 1]])).await;
    let reply = json!({"row": 0, "col": 0});
    assert_eq!(b.call("POST", &at("moves"), Some(&o), &reply).await.0, 200);
    let (status, again) = b.call("POST", &at("moves"), Some(&x), &moved).await;
    assert_eq!(
        (status, &again["game"]["moves"]),
        (200, &json!([[1, 1], [0, 0]]))
    );
    // O asks on A to take its reply back; X grants it on B.
    let (status, body) = a
        .call("POST", &at("takeback"), Some(&o), &Value::Null)
        .await;
    assert_eq!(
        (status, &body["game"]["offers"]["takeback"]),
        (200, &json!("o"))
    );
    until_on(b, &id, |g| g["offers"]["takeback"] == "o").await;
    let (status, body) = b
        .call("POST", &at("takeback"), Some(&x), &Value::Null)
        .await;
    assert_eq!((status, &body["game"]["moves"]), (200, &json!([[1, 1]])));
    let game = until_on(a, &id, |g| g["moves"] == json!([[1, 1]])).await;
    assert_eq!(game["next"], "o");
    // The same cell again, and a draw offered on A, accepted on B.
    assert_eq!(a.call("POST", &at("moves"), Some(&o), &reply).await.0, 200);
    assert_eq!(
        a.call("POST", &at("draw"), Some(&x), &Value::Null).await.0,
        200
    );
    until_on(b, &id, |g| g["offers"]["draw"] == "x").await;
    let (status, body) = b.call("POST", &at("draw"), Some(&o), &Value::Null).await;
    assert_eq!(status, 200, "{body}");
    let game = until_on(a, &id, |g| g["reason"] == "agreement").await;
    assert_eq!(game["score"], score(0, 0, 1));
    // Round 2 on both nodes, resigned on A; B's record has every reason.
    assert_eq!(
        a.call("POST", &at("rematch"), Some(&x), &Value::Null)
            .await
            .0,
        200
    );
    until_on(b, &id, |g| g["rematch"] == "x").await;
    assert_eq!(
        b.call("POST", &at("rematch"), Some(&o), &Value::Null)
            .await
            .0,
        200
    );
    until_on(a, &id, |g| g["round"] == 2).await;
    // O moves first in round 2; a round is resigned only once both have moved.
    for (token, cell) in [(&o, json!({"row": 1, "col": 1})), (&x, reply.clone())] {
        assert_eq!(
            a.call("POST", &at("moves"), Some(token), &cell).await.0,
            200
        );
    }
    assert_eq!(
        a.call("POST", &at("resign"), Some(&o), &Value::Null)
            .await
            .0,
        200
    );
    until_on(b, &id, |g| g["reason"] == "resign").await;
    let record = b.get_json(&at("record")).await;
    let rounds: Vec<_> = record["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["moves"].clone(), r["result"].clone(), r["reason"].clone()))
        .collect();
    assert_eq!(
        rounds,
        [
            (json!([[1, 1], [0, 0]]), "draw".into(), "agreement".into()),
            (json!([[1, 1], [0, 0]]), "x".into(), "resign".into()),
        ]
    );
}
