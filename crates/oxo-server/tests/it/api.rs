//! The API, called through the router without a socket: every rule and
//! every error docs/api.md documents.

use crate::common;

use common::{call, call_with_headers};

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use oxo_server::{AppState, Hub, HubConfig, ManualTime, MemoryStore, SqliteStore, Store, app};
use serde_json::{Value, json};

struct Api {
    router: Router,
    store: MemoryStore,
}

impl Api {
    fn new() -> Api {
        let store = MemoryStore::new();
        Api {
            router: router(Arc::new(store.clone())),
            store,
        }
    }

    async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> (StatusCode, Value) {
        call(&self.router, method, path, token, body).await
    }

    /// A game against a friend with both seats taken: (id, X token, O token).
    async fn seated(&self) -> (String, String, String) {
        let (id, x, o, _) = self.seated_by_invite().await;
        (id, x, o)
    }

    /// [`Api::seated`], and the invite that seated O.
    async fn seated_by_invite(&self) -> (String, String, String, String) {
        let (status, created) = self.call("POST", "/api/games", None, "").await;
        assert_eq!(status, StatusCode::CREATED);
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let invite = created["invite"].as_str().unwrap().to_owned();
        let (status, joined) = self
            .call(
                "POST",
                &format!("/api/games/{id}/seats/o"),
                None,
                &json!({ "invite": invite }).to_string(),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{joined}");
        (
            id,
            created["token"].as_str().unwrap().to_owned(),
            joined["token"].as_str().unwrap().to_owned(),
            invite,
        )
    }

    async fn game(&self, id: &str) -> Value {
        let (status, game) = self
            .call("GET", &format!("/api/games/{id}"), None, "")
            .await;
        assert_eq!(status, StatusCode::OK, "{game}");
        game
    }

    async fn play(&self, id: &str, token: &str, row: i64, col: i64) -> (StatusCode, Value) {
        let version = self.game(id).await["version"].as_u64().unwrap();
        let body = json!({"row": row, "col": col, "version": version}).to_string();
        self.call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &body,
        )
        .await
    }

    /// Play X against the computer in 3×3 game `id` to the end, X taking
    /// the cell `pick` names (an index into the board's cells, row by row);
    /// the game as it ended.
    async fn play_out_as_x(&self, id: &str, token: &str, pick: impl Fn(&str) -> usize) -> Value {
        loop {
            let game = self.game(id).await;
            if game["status"] != "playing" {
                return game;
            }
            if game["next"] != "x" {
                until_version(self, id, game["version"].as_u64().unwrap() + 1).await;
                continue;
            }
            let cell = pick(&game["board"].as_str().unwrap().replace('/', ""));
            let (status, body) = self
                .play(id, token, (cell / 3) as i64, (cell % 3) as i64)
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
    }
}

fn router(store: Arc<dyn Store>) -> Router {
    app(AppState::new(Hub::new(store, &HubConfig::default())))
}

/// The game once it has reached `version`, for computer replies.
async fn until_version(api: &Api, id: &str, version: u64) -> Value {
    let what = format!("game {id} never reached version {version}");
    common::eventually(what, async || {
        let game = api.game(id).await;
        if game["version"].as_u64().unwrap() >= version {
            Ok(game)
        } else {
            Err(game)
        }
    })
    .await
}

fn error_of(body: &Value) -> &str {
    body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {body}"))
}

/// One POST with this Content-Type (or none): status and body.
async fn post_as(
    api: &Api,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    common::call_with(&api.router, "POST", path, None, content_type, body).await
}

#[tokio::test]
async fn only_json_posts_are_taken_so_other_sites_forms_cannot_play() {
    let api = Api::new();
    let (id, invite) = {
        let (status, created) = api.call("POST", "/api/games", None, "").await;
        assert_eq!(status, StatusCode::CREATED);
        let invite = created["invite"].as_str().unwrap().to_owned();
        (created["game"]["id"].as_str().unwrap().to_owned(), invite)
    };
    let before = api.game(&id).await;
    // What a cross-site form or a no-cors fetch can send without asking.
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        for (path, body) in [
            ("/api/games".to_owned(), r#"{"size":"3x3"}"#),
            (format!("/api/games/{id}/seats/o"), ""),
        ] {
            let (status, answer) = post_as(&api, &path, content_type, body).await;
            assert_eq!(
                status,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "{content_type:?} {path}"
            );
            assert_eq!(
                error_of(&answer),
                "send requests with Content-Type: application/json"
            );
        }
    }
    assert_eq!(api.game(&id).await, before, "nothing changed");
    // JSON, with a charset or in capitals, is fine.
    let (status, _) = post_as(
        &api,
        &format!("/api/games/{id}/seats/o"),
        Some("Application/JSON; charset=utf-8"),
        &json!({ "invite": invite }).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn creating_a_game_gives_seat_x_and_a_token() {
    let api = Api::new();
    let (status, body) = api.call("POST", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(body["seat"], "x");
    assert_eq!(body["token"].as_str().unwrap().len(), 32);
    // A game between two people comes with an invite for seat O.
    assert_eq!(body["invite"].as_str().unwrap().len(), 32);
    assert_ne!(body["invite"], body["token"]);
    let game = &body["game"];
    for (field, value) in [
        ("size", json!("3x3")),
        ("k", json!(3)),
        ("board", json!(".../.../...")),
        ("status", json!("waiting")),
        ("next", Value::Null),
        ("winner", Value::Null),
        ("line", Value::Null),
        ("version", json!(1)),
        ("opponent", json!("human")),
        ("score", json!({"x": 0, "o": 0, "draws": 0})),
        ("seats", json!({"x": true, "o": false})),
    ] {
        assert_eq!(game[field], value, "{field} in {game}");
    }
    let id = game["id"].as_str().unwrap();
    assert_eq!(&api.game(id).await, game);

    let (status, body) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"size":"7x7","opponent":"alphabeta","first":"x"}"#,
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(
        body["game"]["k"], 5,
        "the big boards default to five in a row"
    );
    assert_eq!(body["game"]["status"], "playing");
    assert_eq!(body["game"]["seats"]["o"], true);
    assert_eq!(body.get("invite"), None, "no seat to invite anyone to");
}

#[tokio::test]
async fn bad_game_settings_are_400_with_a_reason() {
    let api = Api::new();
    for (body, needle) in [
        (r#"{"size":"abc"}"#, "bad size"),
        (r#"{"size":"0x3"}"#, "bad size"),
        (r#"{"size":"33x33"}"#, "too large"),
        // Past any board's side: the server's own limit is still the one said.
        (
            r#"{"size":"99999999999x3"}"#,
            r#"the board "99999999999x3" is too large: the server offers at most 32 a side"#,
        ),
        (r#"{"size":"3x3","k":4}"#, "bad k"),
        (r#"{"k":0}"#, "bad k"),
        (r#"{"k":-1}"#, "bad JSON"),
        (r#"{"opponent":"grandmaster"}"#, "unknown opponent"),
        (r#"{"size":"8x8","opponent":"perfect"}"#, "perfect"),
        // The faults in the order of the fields: the board's player first.
        (
            r#"{"size":"8x8","opponent":"perfect","first":"z","days":99}"#,
            "perfect",
        ),
        (r#"{"first":"z"}"#, "bad first"),
        (r#"{"sise":"3x3"}"#, "unknown field"),
        (r#"{"size":3}"#, "bad JSON"),
        (r#"{"size":"3x3""#, "bad JSON"),
        ("[]", "bad JSON"),
        // An array is no object, whatever its items.
        (
            r#"["4x4",4,null,null,true,null,null,null]"#,
            "bad JSON body: expected a JSON object",
        ),
        ("7", "bad JSON body: expected a JSON object"),
    ] {
        let (status, reply) = api.call("POST", "/api/games", None, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {reply}");
        assert!(error_of(&reply).contains(needle), "{body}: {reply}");
    }
}

/// A seat's requests take JSON objects only: an array's items are not
/// read as the fields in order.
#[tokio::test]
async fn a_move_or_a_resignation_sent_as_an_array_is_refused() {
    let api = Api::new();
    let (id, x, _) = api.seated().await;
    let before = api.game(&id).await;
    for (path, body) in [("moves", "[1,1,null,null]"), ("resign", "[1]")] {
        let (status, refused) = api
            .call("POST", &format!("/api/games/{id}/{path}"), Some(&x), body)
            .await;
        assert_eq!(
            (status, error_of(&refused)),
            (
                StatusCode::BAD_REQUEST,
                "bad JSON body: expected a JSON object, {...}"
            ),
            "{path}"
        );
    }
    assert_eq!(api.game(&id).await, before);
    // An object after a byte order mark is read (RFC 8259 lets it be).
    let (status, played) = api
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&x),
            "\u{FEFF}{\"row\":1,\"col\":1}",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{played}");
}

#[tokio::test]
async fn seat_o_is_taken_once_with_the_invite_and_seat_x_never() {
    let api = Api::new();
    let (_, created) = api.call("POST", "/api/games", None, "").await;
    let id = created["game"]["id"].as_str().unwrap();
    let invite = created["invite"].as_str().unwrap();
    let join = |body: Value| {
        let api = &api;
        async move {
            api.call(
                "POST",
                &format!("/api/games/{id}/seats/o"),
                None,
                &body.to_string(),
            )
            .await
        }
    };
    // The room id alone, another invite, a seat token or the room id as
    // the invite: refused, and nothing changes.
    let before = api.game(id).await;
    for body in [
        json!({}),
        json!({ "invite": "" }),
        json!({ "invite": invite.to_uppercase() }),
        json!({ "invite": created["token"] }),
        json!({ "invite": id }),
    ] {
        let (status, refused) = join(body.clone()).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(
            error_of(&refused),
            "the invite is missing or not valid for this game: seat o is joined only with the game's invite link; ask the player who started it for the link"
        );
    }
    let (status, refused) = api
        .call("POST", &format!("/api/games/{id}/seats/o"), None, "")
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "no body: {refused}");
    let (status, refused) = join(json!({ "invite": invite, "seat": "o" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "unknown field: {refused}");
    assert_eq!(api.game(id).await, before);

    let (status, joined) = join(json!({ "invite": invite })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(joined["seat"], "o");
    assert_ne!(joined["token"], created["token"]);
    assert_eq!(joined["game"]["status"], "playing");
    assert_eq!(joined["game"]["version"], 2);

    let (status, again) = join(json!({ "invite": invite })).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(error_of(&again).contains("taken"));
    let (status, x) = api
        .call("POST", &format!("/api/games/{id}/seats/x"), None, "")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{x}");
    let (status, _) = api
        .call("POST", &format!("/api/games/{id}/seats/q"), None, "")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, missing) = api
        .call("POST", "/api/games/nosuchgame/seats/o", None, "")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error_of(&missing), "no game nosuchgame");
    // The server's own words are never cut; what the client sent is.
    let (status, seat) = api
        .call("POST", &format!("/api/games/{id}/seats/player"), None, "")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        error_of(&seat),
        "no such page: seat player (the seats are x and o; a second person joins seat o)"
    );
    let key = "k".repeat(5000);
    let (status, query) = api
        .call("GET", &format!("/api/lobby?{key}=1"), None, "")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&query).chars().count() < 400, "{query}");
    let (status, recent) = api
        .call("GET", &format!("/api/lobby?recent={key}"), None, "")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&recent).chars().count() < 100, "{recent}");
    // A long id is not echoed whole: 64 characters and an ellipsis.
    let long = "z".repeat(5000);
    let (status, missing) = api
        .call("GET", &format!("/api/games/{long}"), None, "")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error_of(&missing), format!("no game {}…", &long[..64]));

    let (_, computer) = api
        .call("POST", "/api/games", None, r#"{"opponent":"random"}"#)
        .await;
    let id = computer["game"]["id"].as_str().unwrap();
    let (status, _) = api
        .call("POST", &format!("/api/games/{id}/seats/o"), None, "")
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "the computer holds O");
}

/// An `Authorization` header on a join that is not `Bearer TOKEN` is
/// refused, by invite and from the lobby: taken for no token chosen, it
/// would seat a bot under a token it never learns of (its retry then
/// finds the seat taken).
#[tokio::test]
async fn a_join_with_an_authorization_not_bearer_is_refused() {
    let api = Api::new();
    let (_, created) = api.call("POST", "/api/games", None, "").await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let invite = json!({ "invite": created["invite"] }).to_string();
    let (_, listed) = api
        .call("POST", "/api/games", None, r#"{"listed": true}"#)
        .await;
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    let entry = lobby["open"][0]["entry"].as_str().unwrap().to_owned();
    let token = "abcdefghijklmnopqrstuvwxyz0123";
    for value in [
        format!("Token {token}"),
        token.to_owned(),
        format!("Bearer\t{token}"),
        "Bearer".to_owned(),
    ] {
        for (path, body) in [
            (format!("/api/games/{id}/seats/o"), invite.as_str()),
            (format!("/api/lobby/{entry}/join"), "{}"),
        ] {
            let headers = [
                ("authorization", value.as_str()),
                ("content-type", "application/json"),
            ];
            let (status, refused) =
                call_with_headers(&api.router, "POST", &path, None, &headers, body).await;
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{value:?} {path}: {refused}"
            );
            assert!(error_of(&refused).contains("`Bearer TOKEN`"), "{refused}");
        }
    }
    assert_eq!(api.game(&id).await["seats"]["o"], false, "nothing changed");
    let listed = listed["game"]["id"].as_str().unwrap();
    assert_eq!(
        api.game(listed).await["seats"]["o"],
        false,
        "nothing changed"
    );
}

/// A joiner may choose its seat's token (`Authorization: Bearer T`): one
/// whose answer was lost sends the join again with it and gets the same
/// seat, by invite and from the lobby; another token finds the seat taken;
/// a short token is refused, and X's own never takes seat O.
#[tokio::test]
async fn a_join_sent_again_with_its_chosen_token_gets_the_same_seat() {
    let api = Api::new();
    let chosen = "6f1c2a9e5b7d4e0a9c3f1d2e3f4a5b6c";
    let join = |path: String, body: Value, token: &'static str| {
        let api = &api;
        async move {
            api.call("POST", &path, Some(token), &body.to_string())
                .await
        }
    };
    let (_, created) = api.call("POST", "/api/games", None, "").await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let seat = format!("/api/games/{id}/seats/o");
    let invite = json!({ "invite": created["invite"] });

    let (status, short) = join(seat.clone(), invite.clone(), "too-short").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{short}");
    assert!(error_of(&short).contains("26 to 64 printable"), "{short}");
    assert_eq!(api.game(&id).await["seats"]["o"], false, "nothing changed");

    let (status, first) = join(seat.clone(), invite.clone(), chosen).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["token"], chosen);
    let (status, again) = join(seat.clone(), invite.clone(), chosen).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(
        (&again["token"], &again["seat"]),
        (&json!(chosen), &json!("o"))
    );
    assert_eq!(
        again["game"]["version"], first["game"]["version"],
        "nothing changed"
    );
    let (status, other) = join(seat.clone(), invite, "0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a").await;
    assert_eq!(
        (status, error_of(&other)),
        (StatusCode::CONFLICT, "seat o is taken")
    );
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
    assert_eq!(api.play(&id, chosen, 1, 1).await.0, StatusCode::OK);

    // X's token never takes seat O too.
    let (_, created) = api.call("POST", "/api/games", None, "").await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let (status, body) = api
        .call(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            Some(&x),
            &json!({ "invite": created["invite"] }).to_string(),
        )
        .await;
    assert_eq!(
        (status, error_of(&body)),
        (
            StatusCode::CONFLICT,
            "that token holds seat x in this game; a joiner takes seat o with a token of its own (or none, and the server makes one)"
        )
    );
    assert_eq!(api.game(&id).await["seats"]["o"], false);

    // From the lobby, the same.
    let (_, listed) = api
        .call("POST", "/api/games", None, r#"{"listed": true}"#)
        .await;
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    let entry = lobby["open"][0]["entry"].as_str().unwrap().to_owned();
    let path = format!("/api/lobby/{entry}/join");
    let lobby_token = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";
    let (status, first) = join(path.clone(), json!({}), lobby_token).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(
        (&first["game"]["id"], &first["token"]),
        (&listed["game"]["id"], &json!(lobby_token))
    );
    let (status, repeat) = join(path.clone(), json!({}), lobby_token).await;
    assert_eq!(status, StatusCode::OK, "{repeat}");
    assert_eq!(repeat["token"], lobby_token);
    let (status, short) = join(path, json!({}), "short").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{short}");
}

#[tokio::test]
async fn every_refused_move_has_its_status_and_changes_nothing() {
    let api = Api::new();
    let (status, created) = api.call("POST", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::CREATED);
    let waiting = created["game"]["id"].as_str().unwrap();
    let x_waiting = created["token"].as_str().unwrap();
    let (status, body) = api.play(waiting, x_waiting, 0, 0).await;
    assert_eq!(
        (status, error_of(&body)),
        (StatusCode::CONFLICT, "waiting for the other player to join")
    );

    let (id, x, o) = api.seated().await;
    let before = api.game(&id).await;
    let moves = format!("/api/games/{id}/moves");
    let cases: Vec<(Option<&str>, String, StatusCode, &str)> = vec![
        (
            None,
            json!({"row": 0, "col": 0}).to_string(),
            StatusCode::UNAUTHORIZED,
            "token",
        ),
        (
            Some("not-a-token"),
            json!({"row": 0, "col": 0}).to_string(),
            StatusCode::FORBIDDEN,
            "no seat",
        ),
        (
            Some(x_waiting),
            json!({"row": 0, "col": 0}).to_string(),
            StatusCode::FORBIDDEN,
            "no seat",
        ),
        (
            Some(&o),
            json!({"row": 0, "col": 0, "version": 2}).to_string(),
            StatusCode::CONFLICT,
            "it is X's turn",
        ),
        (
            Some(&x),
            json!({"row": 0, "col": 0, "version": 1}).to_string(),
            StatusCode::CONFLICT,
            "stale version 1",
        ),
        (
            Some(&x),
            json!({"row": 0, "col": 0, "version": 99}).to_string(),
            StatusCode::CONFLICT,
            "the game has no version 99: the game is at version 2",
        ),
        (
            Some(&x),
            json!({"row": 3, "col": 0, "version": 2}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "off the 3x3 board",
        ),
        (
            Some(&x),
            json!({"row": 0, "col": -1, "version": 2}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "off the 3x3 board",
        ),
        (
            Some(&x),
            json!({"row": 0}).to_string(),
            StatusCode::BAD_REQUEST,
            "needs",
        ),
        (
            Some(&x),
            r#"{"row": "a", "col": 0}"#.to_owned(),
            StatusCode::BAD_REQUEST,
            "bad JSON",
        ),
        (
            Some(&x),
            r#"{"row": 99999999999999999999, "col": 0}"#.to_owned(),
            StatusCode::BAD_REQUEST,
            "bad JSON",
        ),
        (
            Some(&x),
            "not json".to_owned(),
            StatusCode::BAD_REQUEST,
            "bad JSON",
        ),
    ];
    for (token, body, status, needle) in cases {
        let (got, reply) = api.call("POST", &moves, token, &body).await;
        assert_eq!(got, status, "{body}: {reply}");
        assert!(error_of(&reply).contains(needle), "{body}: {reply}");
        if status == StatusCode::CONFLICT {
            assert_eq!(reply["game"], before, "a 409 carries the current game");
        }
        assert_eq!(api.game(&id).await, before, "{body} changed the game");
    }

    let (status, played) = api.play(&id, &x, 1, 1).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(played["game"]["board"], ".../.X./...");
    assert_eq!(played["game"]["next"], "o");
    assert_eq!(played["game"]["last"], json!([1, 1]));
    let (status, body) = api.play(&id, &o, 1, 1).await;
    assert_eq!(
        (status, error_of(&body)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "row 1, column 1 is already taken"
        )
    );
    // A move without a version is accepted (for simple scripts).
    let (status, _) = api
        .call("POST", &moves, Some(&o), r#"{"row":0,"col":0}"#)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_won_round_scores_and_a_rematch_starts_the_next() {
    let api = Api::new();
    let (id, x, o) = api.seated().await;
    let rematch = format!("/api/games/{id}/rematch");
    let (status, _) = api.call("POST", &rematch, Some(&x), "").await;
    assert_eq!(status, StatusCode::CONFLICT, "no rematch mid-round");
    for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1)] {
        assert_eq!(api.play(&id, token, row, col).await.0, StatusCode::OK);
    }
    let (status, won) = api.play(&id, &x, 0, 2).await;
    assert_eq!(status, StatusCode::OK);
    let game = &won["game"];
    assert_eq!(game["status"], "won");
    assert_eq!(game["winner"], "x");
    assert_eq!(game["next"], Value::Null);
    assert_eq!(game["line"], json!([[0, 0], [0, 1], [0, 2]]));
    assert_eq!(game["score"], json!({"x": 1, "o": 0, "draws": 0}));
    let (status, over) = api.play(&id, &o, 2, 2).await;
    assert_eq!(
        (status, error_of(&over)),
        (StatusCode::CONFLICT, "the game is over")
    );

    let (status, _) = api.call("POST", &rematch, None, "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = api.call("POST", &rematch, Some("nope"), "").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Between two people a rematch is an offer; either seat may make it,
    // and the other's rematch accepts it.
    let (status, offered) = api.call("POST", &rematch, Some(&o), "").await;
    assert_eq!(status, StatusCode::OK, "either seat may offer");
    assert_eq!(
        (&offered["game"]["round"], &offered["game"]["rematch"]),
        (&json!(1), &json!("o"))
    );
    let (status, again) = api.call("POST", &rematch, Some(&o), "").await;
    assert_eq!(
        (status, error_of(&again)),
        (
            StatusCode::CONFLICT,
            "you have offered a rematch; waiting for x to accept"
        )
    );
    assert_eq!(api.play(&id, &x, 2, 2).await.0, StatusCode::CONFLICT);
    let (status, next) = api.call("POST", &rematch, Some(&x), "").await;
    assert_eq!(status, StatusCode::OK, "the other seat accepts");
    let game = &next["game"];
    assert_eq!(game["rematch"], Value::Null);
    assert_eq!(game["round"], 2);
    assert_eq!(game["first"], "o");
    assert_eq!(game["next"], "o");
    assert_eq!(game["board"], ".../.../...");
    assert_eq!(game["score"], json!({"x": 1, "o": 0, "draws": 0}));
    assert_eq!(game["id"], id.as_str(), "same room, same links");
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::CONFLICT);
    assert_eq!(api.play(&id, &o, 0, 0).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_drawn_round_counts_as_a_draw() {
    let api = Api::new();
    let (id, x, o) = api.seated().await;
    // X O X / X O O / O X X
    for (token, row, col) in [
        (&x, 0, 0),
        (&o, 0, 1),
        (&x, 0, 2),
        (&o, 1, 1),
        (&x, 1, 0),
        (&o, 1, 2),
        (&x, 2, 1),
        (&o, 2, 0),
        (&x, 2, 2),
    ] {
        assert_eq!(api.play(&id, token, row, col).await.0, StatusCode::OK);
    }
    let game = api.game(&id).await;
    assert_eq!(game["status"], "draw");
    assert_eq!(game["winner"], Value::Null);
    assert_eq!(game["score"], json!({"x": 0, "o": 0, "draws": 1}));
}

#[tokio::test]
async fn unknown_games_routes_and_methods_are_json_errors() {
    let api = Api::new();
    for (method, path) in [
        ("GET", "/api/games/unknowngame"),
        ("GET", "/api/games/..%2f"),
        ("POST", "/api/games/unknowngame/moves"),
        ("POST", "/api/games/unknowngame/rematch"),
        ("GET", "/api/games/unknowngame/hints"),
        ("GET", "/api/games/unknowngame/live"),
        ("GET", "/api/nothing"),
    ] {
        let body = if path.ends_with("/moves") {
            r#"{"row":0,"col":0}"#
        } else {
            ""
        };
        let (status, body) = api.call(method, path, Some("t"), body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {body}");
        error_of(&body);
    }
    let (status, body) = api.call("DELETE", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    error_of(&body);
    // A path that is not UTF-8 is refused by axum itself, still as JSON.
    let (status, body) = api.call("GET", "/api/games/%ff%fe", None, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    error_of(&body);
    let (id, _, _) = api.seated().await;
    let (status, body) = api
        .call("GET", &format!("/api/games/{id}/live"), None, "")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not a WebSocket request");
    assert!(error_of(&body).contains("WebSocket"));
}

#[tokio::test]
async fn an_oversized_body_is_413() {
    let api = Api::new();
    let body = format!(
        r#"{{"size":"3x3","pad":"{}"}}"#,
        "x".repeat(oxo_server::BODY_LIMIT)
    );
    let (status, reply) = api.call("POST", "/api/games", None, &body).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(error_of(&reply).contains("too large"));
    // A body said to be larger is refused before any of it is read (a
    // client that sends less would otherwise be waited for).
    let declared = (oxo_server::BODY_LIMIT + 1).to_string();
    let headers = [
        ("content-type", "application/json"),
        ("content-length", declared.as_str()),
    ];
    let (status, reply) =
        common::call_with_headers(&api.router, "POST", "/api/games", None, &headers, "{}").await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{reply}");
    assert!(error_of(&reply).contains("too large"));
}

#[tokio::test]
async fn a_failed_save_is_503_and_changes_nothing() {
    let api = Api::new();
    let (id, x, _) = api.seated().await;
    let before = api.game(&id).await;
    api.store.set_failing(true);
    let (status, body) = api.play(&id, &x, 0, 0).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(error_of(&body).contains("nothing changed"));
    assert_eq!(api.game(&id).await, before);
    api.store.set_failing(false);
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
    let saved = api
        .store
        .get(&oxo_server::id::GameId::from_trusted(&id))
        .unwrap();
    assert_eq!(saved.moves.len(), 1);
    assert_eq!(saved.version, 3);
}

#[tokio::test]
async fn the_computer_replies_by_itself_and_perfect_never_loses() {
    let api = Api::new();
    // The computer starts when O goes first.
    let (_, created) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"opponent":"perfect","first":"o"}"#,
        )
        .await;
    let id = created["game"]["id"].as_str().unwrap();
    let game = until_version(&api, id, 2).await;
    assert_eq!(game["board"].as_str().unwrap().matches('O').count(), 1);
    assert_eq!(game["next"], "x");

    // X plays the first free cell each turn; perfect must never lose.
    for round in 0..4 {
        let (_, created) = api
            .call("POST", "/api/games", None, r#"{"opponent":"perfect"}"#)
            .await;
        let id = created["game"]["id"].as_str().unwrap();
        let token = created["token"].as_str().unwrap();
        let game = api
            .play_out_as_x(id, token, |board| {
                let free = board.find('.').unwrap();
                let cell = (free + round) % 9;
                if board.as_bytes()[cell] == b'.' {
                    cell
                } else {
                    free
                }
            })
            .await;
        assert_ne!(game["winner"], "x", "round {round}: {game}");
    }
}

#[tokio::test]
async fn the_learned_player_is_offered_where_oxo_has_a_model_and_plays() {
    let api = Api::new();
    let (status, info) = api.call("GET", "/api/info", None, "").await;
    assert_eq!(status, StatusCode::OK);
    // The version a client reads the API's changes against.
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"), "{info}");
    assert!(
        info["strategies"]
            .as_array()
            .unwrap()
            .contains(&json!("learned")),
        "{info}"
    );
    let learned = info["opponents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "learned")
        .unwrap();
    assert!(
        learned["boards"]
            .as_array()
            .unwrap()
            .contains(&json!({"size": "3x3", "k": 3})),
        "{learned}"
    );
    // A board with no model is refused up front, with the reason.
    let (status, body) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"size":"9x9","k":5,"opponent":"learned"}"#,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(error_of(&body).contains("no built-in model"), "{body}");
    // On 3×3 it answers by itself, and X playing first free cells never wins.
    let (_, created) = api
        .call("POST", "/api/games", None, r#"{"opponent":"learned"}"#)
        .await;
    let id = created["game"]["id"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    let game = api
        .play_out_as_x(id, token, |board| board.find('.').unwrap())
        .await;
    assert_ne!(game["winner"], "x", "{game}");
}

#[tokio::test]
async fn hints_value_every_empty_cell_where_the_solver_is_quick() {
    let api = Api::new();
    // Against the computer, X to move at the start: every cell draws.
    let (_, created) = api
        .call("POST", "/api/games", None, r#"{"opponent":"perfect"}"#)
        .await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let (status, hints) = api
        .call("GET", &format!("/api/games/{id}/hints"), None, "")
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(hints["available"], true);
    assert_eq!(hints["version"], 1);
    let cells = hints["hints"].as_array().unwrap();
    assert_eq!(cells.len(), 9);
    assert!(
        cells
            .iter()
            .all(|h| h["value"] == "draw" && h["plies"] == 9),
        "{hints}"
    );
    // After X's move and the computer's reply, X's seven options.
    api.play(&id, &x, 1, 1).await;
    until_version(&api, &id, 3).await;
    let (_, hints) = api
        .call("GET", &format!("/api/games/{id}/hints"), None, "")
        .await;
    assert_eq!(hints["version"], 3);
    let cells = hints["hints"].as_array().unwrap();
    assert_eq!(cells.len(), 7, "{hints}");
    assert!(cells.iter().any(|h| h["value"] == "draw"), "{hints}");

    let (_, big) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"size":"8x8","k":5,"opponent":"random"}"#,
        )
        .await;
    let id = big["game"]["id"].as_str().unwrap();
    let (status, hints) = api
        .call("GET", &format!("/api/games/{id}/hints"), None, "")
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(hints["available"], false);
    assert!(hints["reason"].as_str().unwrap().contains("16"));
}

#[tokio::test]
async fn hints_are_withheld_while_two_people_play() {
    let api = Api::new();
    let (id, x, o) = api.seated().await;
    let withheld = async |api: &Api, id: &str| {
        let (status, body) = api
            .call("GET", &format!("/api/games/{id}/hints"), None, "")
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(
            error_of(&body),
            "hints are not available in a round between two people until it is over; they \
             are for games against the computer and finished rounds"
        );
    };
    // While the game waits for its second player, and its review too.
    let (status, waiting) = api.call("POST", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::CREATED);
    let waiting = waiting["game"]["id"].as_str().unwrap().to_owned();
    withheld(&api, &waiting).await;
    let (status, body) = api
        .call("GET", &format!("/api/games/{waiting}/review"), None, "")
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        error_of(&body),
        "a review is not available in a round between two people until it is over; it is for \
         games against the computer and finished rounds"
    );
    withheld(&api, &id).await;
    // By the watch id too: a spectator cannot pass them on.
    let watch = api.game(&id).await["watch"].as_str().unwrap().to_owned();
    withheld(&api, &watch).await;
    for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1)] {
        api.play(&id, token, row, col).await;
        withheld(&api, &id).await;
    }
    // Once the round is over they are back (nothing is left to play).
    api.play(&id, &x, 0, 2).await;
    let (status, hints) = api
        .call("GET", &format!("/api/games/{id}/hints"), None, "")
        .await;
    assert_eq!(status, StatusCode::OK, "{hints}");
    assert_eq!(hints["version"], 7);
}

#[tokio::test]
async fn one_games_moves_apply_one_at_a_time() {
    let api = Arc::new(Api::new());
    let (id, x, _) = api.seated().await;
    // Twenty clients send a move against the same version at once: exactly
    // one is applied, the others are told they are stale.
    let mut tasks = Vec::new();
    for cell in 0..9 {
        for _ in 0..2 {
            let (api, id, x) = (api.clone(), id.clone(), x.clone());
            tasks.push(tokio::spawn(async move {
                let body = json!({"row": cell / 3, "col": cell % 3, "version": 2}).to_string();
                api.call("POST", &format!("/api/games/{id}/moves"), Some(&x), &body)
                    .await
                    .0
            }));
        }
    }
    let mut ok = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::OK => ok += 1,
            StatusCode::CONFLICT => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(ok, 1);
    let game = api.game(&id).await;
    assert_eq!(game["version"], 3);
    assert_eq!(game["board"].as_str().unwrap().matches('X').count(), 1);
}

#[tokio::test]
async fn sqlite_keeps_every_game_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let (id, x, o, invite, before) = {
        let api = Api {
            router: router(Arc::new(SqliteStore::open(&path).unwrap())),
            store: MemoryStore::new(),
        };
        let (id, x, o, invite) = api.seated_by_invite().await;
        for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
            assert_eq!(api.play(&id, token, row, col).await.0, StatusCode::OK);
        }
        for token in [&x, &o] {
            let (status, _) = api
                .call("POST", &format!("/api/games/{id}/rematch"), Some(token), "")
                .await;
            assert_eq!(status, StatusCode::OK);
        }
        assert_eq!(api.play(&id, &o, 2, 2).await.0, StatusCode::OK);
        let before = api.game(&id).await;
        (id, x, o, invite, before)
    };
    let api = Api {
        router: router(Arc::new(SqliteStore::open(&path).unwrap())),
        store: MemoryStore::new(),
    };
    let after = api.game(&id).await;
    assert_eq!(after, before);
    assert_eq!(after["score"]["x"], 1);
    assert_eq!(after["round"], 2);
    assert_eq!(after["board"], ".../.../..O");
    // The database keeps the hashes of the tokens and the invite, never
    // the secrets themselves.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let (stored_x, stored_o, stored_invite): (String, String, String) = conn
        .query_row(
            "SELECT x_token, o_token, invite FROM rooms WHERE id = ?1",
            [&id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    assert_eq!(stored_x.len(), 64);
    assert_eq!(stored_invite.len(), 64);
    assert!(stored_x != x && stored_o != o && !stored_x.contains(&x));
    drop(conn);
    let file = std::fs::read(&path).unwrap();
    for secret in [&x, &o, &invite] {
        assert!(
            !file.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "a secret in the clear in the database file"
        );
    }
    // The seats' tokens still work, and the game goes on.
    assert_eq!(api.play(&id, &o, 0, 0).await.0, StatusCode::CONFLICT);
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    drop(SqliteStore::open(&path).unwrap());
    set_user_version(&path, 99);
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(err.to_string().contains("schema version 99"), "{err}");
}

#[tokio::test]
async fn a_damaged_listed_game_is_left_out_of_the_lobby_and_named_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let open_listed = |router: Router, name: &'static str| async move {
        let body = json!({"listed": true, "name": name}).to_string();
        let (status, created) = call(&router, "POST", "/api/games", None, &body).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        created["game"]["id"].as_str().unwrap().to_owned()
    };
    let damaged = {
        let store = Arc::new(SqliteStore::open(&path).unwrap());
        let router = router(store);
        open_listed(router.clone(), "Ada").await;
        open_listed(router, "Bob").await
    };
    // Bob's name in its row becomes bytes that are not UTF-8.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let changed = conn
        .execute(
            "UPDATE rooms SET x_name = cast(x'ff41' AS text) WHERE id = ?1",
            [&damaged],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(conn);
    let router = router(Arc::new(SqliteStore::open(&path).unwrap()));
    // The others are still listed (both are within their grace), and the
    // damage is counted, not hidden.
    let (status, lobby) = call(&router, "GET", "/api/lobby", None, "").await;
    assert_eq!(status, StatusCode::OK, "{lobby}");
    let names: Vec<&Value> = lobby["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| &g["name"])
        .collect();
    assert_eq!(names, [&json!("Ada")], "{lobby}");
    assert_eq!(lobby["damaged"], 1, "{lobby}");
    // Named among a player's recent games, it is said to be damaged.
    let (status, lobby) = call(
        &router,
        "GET",
        &format!("/api/lobby?recent={damaged},nosuchgame"),
        None,
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{lobby}");
    assert_eq!(
        lobby["recent"],
        json!([{"id": damaged, "damaged": true}]),
        "{lobby}"
    );
    // Its own page says so too.
    let (status, body) = call(&router, "GET", &format!("/api/games/{damaged}"), None, "").await;
    assert_eq!(
        (status, error_of(&body)),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "a stored game is damaged"
        )
    );
}

/// A listed game being played whose stored move was changed reads as a
/// sound listing row: the lobby checks the room itself before it shows it.
#[tokio::test]
async fn a_listed_game_whose_moves_were_altered_is_left_out_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let id = listed_game_being_played(&path).await;
    move_os_first_move(&path, &id);
    let router = router(Arc::new(SqliteStore::open(&path).unwrap()));
    let (status, lobby) = call(&router, "GET", "/api/lobby", None, "").await;
    assert_eq!(status, StatusCode::OK, "{lobby}");
    assert_eq!(
        (&lobby["live"], &lobby["damaged"]),
        (&json!([]), &json!(1)),
        "{lobby}"
    );
}

/// A listed room this server does not hold is read at most once a minute:
/// damage done after a lobby read it shows only once the minute is up.
#[tokio::test]
async fn the_lobby_reads_a_room_it_does_not_hold_again_after_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let id = listed_game_being_played(&path).await;
    let time = ManualTime::at_system_now();
    let config = HubConfig {
        time: time.source(),
        ..HubConfig::default()
    };
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let router = app(AppState::new(Hub::new(store, &config)));
    let live_and_damaged = async || {
        let (status, lobby) = call(&router, "GET", "/api/lobby", None, "").await;
        assert_eq!(status, StatusCode::OK, "{lobby}");
        (
            lobby["live"].as_array().unwrap().len(),
            lobby["damaged"].clone(),
        )
    };
    assert_eq!(live_and_damaged().await, (1, json!(0)));
    move_os_first_move(&path, &id);
    assert_eq!(
        live_and_damaged().await,
        (1, json!(0)),
        "read again at once"
    );
    time.advance(Duration::from_secs(59));
    assert_eq!(live_and_damaged().await, (1, json!(0)), "read again early");
    time.advance(Duration::from_secs(1));
    assert_eq!(live_and_damaged().await, (0, json!(1)), "never read again");
}

/// A listed game with a move each, made by a server that is then gone: its
/// id.
async fn listed_game_being_played(path: &std::path::Path) -> String {
    let router = router(Arc::new(SqliteStore::open(path).unwrap()));
    let body = json!({"listed": true}).to_string();
    let (_, created) = call(&router, "POST", "/api/games", None, &body).await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let (_, lobby) = call(&router, "GET", "/api/lobby", None, "").await;
    let entry = lobby["open"][0]["entry"].as_str().unwrap().to_owned();
    let (status, joined) = call(
        &router,
        "POST",
        &format!("/api/lobby/{entry}/join"),
        None,
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let o = joined["token"].as_str().unwrap().to_owned();
    for (token, row, col) in [(&x, 0, 0), (&o, 1, 1)] {
        let body = json!({"row": row, "col": col}).to_string();
        let (status, body) = call(
            &router,
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &body,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (_, lobby) = call(&router, "GET", "/api/lobby", None, "").await;
    assert_eq!(lobby["live"].as_array().map(Vec::len), Some(1), "{lobby}");
    id
}

/// Damage game `id`'s stored moves in a way every row still reads: O's
/// move moves to another empty cell.
fn move_os_first_move(path: &std::path::Path, id: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let changed = conn
        .execute(
            "UPDATE moves SET col = 2 WHERE ply = 1 \
             AND room = (SELECT key FROM rooms WHERE id = ?1)",
            [id],
        )
        .unwrap();
    assert_eq!(changed, 1);
}

/// Set a database's schema version, as a newer oxo would have.
fn set_user_version(path: &std::path::Path, version: i64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "user_version", version).unwrap();
}

mod never_a_server_error {
    use super::*;
    use proptest::prelude::*;

    fn body() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "\\{\"(row|col|version|size|k|opponent|first)\": ?(-?[0-9]{1,25}|\"[a-z0-9x]{0,6}\"|null|true|\\[\\]|\\{\\})\\}",
            (any::<i64>(), any::<i64>(), any::<u64>())
                .prop_map(|(r, c, v)| { json!({"row": r, "col": c, "version": v}).to_string() }),
            (0u32..40, 0u32..40, 0u32..45)
                .prop_map(|(r, c, k)| { json!({"size": format!("{r}x{c}"), "k": k}).to_string() }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever a client sends, the answer is a success or a 4xx with a
        /// JSON error, and a refused move leaves the game as it was.
        #[test]
        fn any_request_is_answered_without_a_5xx(
            body in body(),
            path in prop_oneof![Just("/api/games"), Just("/moves"), Just("/rematch"), Just("/seats/o")],
            with_token in any::<bool>(),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                let api = Api::new();
                let (id, x, _) = api.seated().await;
                let before = api.game(&id).await;
                let path = if path == "/api/games" { path.to_owned() } else { format!("/api/games/{id}{path}") };
                let token = with_token.then_some(x.as_str());
                let (status, reply) = api.call("POST", &path, token, &body).await;
                assert!(!status.is_server_error(), "{path} {body:?}: {status} {reply}");
                if !status.is_success() {
                    error_of(&reply);
                    assert_eq!(api.game(&id).await, before, "a refused request changed the game");
                }
            });
        }
    }
}

#[tokio::test]
async fn the_computer_retries_until_the_store_recovers() {
    let api = Api::new();
    let (_, created) = api
        .call("POST", "/api/games", None, r#"{"opponent":"rules"}"#)
        .await;
    let id = created["game"]["id"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    api.store.set_failing(true);
    let (status, _) = api.play(id, token, 1, 1).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    // X's move is saved; the computer's reply fails while the store is down...
    api.store.fail_after(1);
    assert_eq!(api.play(id, token, 1, 1).await.0, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(api.game(id).await["next"], "o");
    // ...and lands once it is back.
    api.store.set_failing(false);
    let game = until_version(&api, id, 3).await;
    assert_eq!(game["next"], "x");
}

/// A store whose writes take a while, as a busy disk's would.
#[derive(Clone)]
struct SlowStore(MemoryStore);

impl Store for SlowStore {
    fn commit(&self, change: oxo_server::store::Change) -> oxo_server::store::StoreFuture<()> {
        let inner = self.0.clone();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            inner.commit(change).await
        })
    }

    fn load(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::room::RoomRecord>> {
        self.0.load(id)
    }

    fn load_watch(
        &self,
        watch: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::room::RoomRecord>> {
        self.0.load_watch(watch)
    }

    fn computer_turns(&self) -> oxo_server::store::StoreFuture<Vec<oxo_server::id::GameId>> {
        self.0.computer_turns()
    }

    fn due(&self, now: u64) -> oxo_server::store::StoreFuture<Vec<oxo_server::id::GameId>> {
        self.0.due(now)
    }

    fn lobby(
        &self,
        present: &[oxo_server::id::GameId],
    ) -> oxo_server::store::StoreFuture<oxo_server::store::LobbyRows> {
        self.0.lobby(present)
    }

    fn load_entry(
        &self,
        entry: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::id::GameId>> {
        self.0.load_entry(entry)
    }

    fn seen(&self, id: &oxo_server::id::GameId) -> oxo_server::store::StoreFuture<()> {
        self.0.seen(id)
    }

    fn ping(&self) -> oxo_server::store::StoreFuture<()> {
        self.0.ping()
    }

    fn prune(
        &self,
        older_than: std::time::Duration,
        keep: std::collections::HashSet<oxo_server::id::GameId>,
    ) -> oxo_server::store::StoreFuture<usize> {
        self.0.prune(older_than, keep)
    }

    fn rounds(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Vec<Vec<oxo_core::Cell>>> {
        self.0.rounds(id)
    }

    fn endings(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Vec<(u32, oxo_server::room::Ending)>> {
        self.0.endings(id)
    }
}

#[tokio::test]
async fn a_client_that_gives_up_mid_save_leaves_the_game_consistent() {
    let api = Api {
        router: router(Arc::new(SlowStore(MemoryStore::new()))),
        store: MemoryStore::new(),
    };
    let (id, x, o) = api.seated().await;
    // The client hangs up while the move is being saved...
    let body = json!({"row": 1, "col": 1, "version": 2}).to_string();
    let moves = format!("/api/games/{id}/moves");
    let gave_up = tokio::time::timeout(
        Duration::from_millis(50),
        api.call("POST", &moves, Some(&x), &body),
    )
    .await;
    assert!(gave_up.is_err(), "the request was still in flight");
    // ...the move is saved and applied all the same, and play goes on.
    let game = until_version(&api, &id, 3).await;
    assert_eq!(game["board"], ".../.X./...");
    assert_eq!(api.play(&id, &o, 0, 0).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_rematch_needs_a_finished_round_and_a_current_version() {
    let api = Api::new();
    let (_, created) = api.call("POST", "/api/games", None, "").await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["token"].as_str().unwrap();
    let rematch = format!("/api/games/{id}/rematch");
    let (status, body) = api.call("POST", &rematch, Some(x), "").await;
    assert_eq!(
        (status, error_of(&body)),
        (StatusCode::CONFLICT, "waiting for the other player to join")
    );

    let (id, x, o) = api.seated().await;
    for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
        api.play(&id, token, row, col).await;
    }
    let rematch = format!("/api/games/{id}/rematch");
    let version = api.game(&id).await["version"].as_u64().unwrap();
    // Both players press Rematch at once: the first press is the offer,
    // the second (made against the state before it) is refused with the
    // offer in its game; pressed again, it accepts: one new round.
    let body = json!({ "version": version }).to_string();
    let (first, _) = api.call("POST", &rematch, Some(&x), &body).await;
    let (second, reply) = api.call("POST", &rematch, Some(&o), &body).await;
    assert_eq!(first, StatusCode::OK);
    assert_eq!(second, StatusCode::CONFLICT);
    assert_eq!(
        (&reply["game"]["round"], &reply["game"]["rematch"]),
        (&json!(1), &json!("x"))
    );
    let body = json!({ "version": version + 1 }).to_string();
    let (accept, _) = api.call("POST", &rematch, Some(&o), &body).await;
    assert_eq!(accept, StatusCode::OK);
    // A repeated acceptance cannot start a third round.
    let (repeat, _) = api.call("POST", &rematch, Some(&o), &body).await;
    assert_eq!(repeat, StatusCode::CONFLICT);
    assert_eq!(api.game(&id).await["round"], 2);
}

#[tokio::test]
async fn the_watch_link_reads_the_game_and_can_do_nothing_else() {
    let api = Api::new();
    let (status, created) = api.call("POST", "/api/games", None, "").await;
    assert_eq!(status, StatusCode::CREATED);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let watch = created["game"]["watch"].as_str().unwrap().to_owned();
    assert_ne!(watch, id);

    // A spectator sees the game under the watch id, never the room's id...
    let (status, seen) = api
        .call("GET", &format!("/api/games/{watch}"), None, "")
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(seen["id"], watch.as_str());
    assert_eq!(seen["board"], created["game"]["board"]);
    assert!(!seen.to_string().contains(&id), "the room id leaks: {seen}");
    // (Hints take the watch id too, but between two people they are
    // withheld while a round is played, from spectators as from players.)
    let (status, _) = api
        .call("GET", &format!("/api/games/{watch}/hints"), None, "")
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // ...and cannot take the free seat, move or ask for a rematch with it.
    for (path, body) in [
        (format!("/api/games/{watch}/seats/o"), String::new()),
        (
            format!("/api/games/{watch}/moves"),
            json!({"row": 0, "col": 0}).to_string(),
        ),
        (format!("/api/games/{watch}/rematch"), String::new()),
    ] {
        let (status, reply) = api.call("POST", &path, Some(&x), &body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }
    assert_eq!(api.game(&id).await["seats"]["o"], false);

    // The friend with the invite can.
    let invite = created["invite"].as_str().unwrap();
    let (status, _) = api
        .call(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            None,
            &json!({ "invite": invite }).to_string(),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_rooms_record_keeps_every_round() {
    for store in [
        Arc::new(MemoryStore::new()) as Arc<dyn Store>,
        Arc::new(oxo_server::SqliteStore::open(":memory:").unwrap()),
    ] {
        let api = Api {
            router: router(store),
            store: MemoryStore::new(),
        };
        let (id, x, o) = api.seated().await;
        // Round 1: X wins along the top row.
        for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
            api.play(&id, token, row, col).await;
        }
        let game = api.game(&id).await;
        assert_eq!(
            game["moves"],
            json!([[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]])
        );
        for token in [&x, &o] {
            let (status, _) = api
                .call(
                    "POST",
                    &format!("/api/games/{id}/rematch"),
                    Some(token),
                    "{}",
                )
                .await;
            assert_eq!(status, StatusCode::OK);
        }
        // Round 2: O starts; one move so far.
        api.play(&id, &o, 2, 2).await;
        let (status, record) = api
            .call("GET", &format!("/api/games/{id}/record"), None, "")
            .await;
        assert_eq!(status, StatusCode::OK, "{record}");
        assert_eq!(record["id"], id.as_str());
        assert_eq!(record["size"], "3x3");
        assert_eq!(
            record["rounds"],
            json!([
                {"round": 1, "first": "x", "moves": [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]],
                 "result": "x", "reason": "line", "line": [[0, 0], [0, 1], [0, 2]]},
                {"round": 2, "first": "o", "moves": [[2, 2]], "result": null, "reason": null,
                 "line": null}
            ])
        );
        // A spectator's record names the watch id, never the room's.
        let watch = api.game(&id).await["watch"].as_str().unwrap().to_owned();
        let (_, seen) = api
            .call("GET", &format!("/api/games/{watch}/record"), None, "")
            .await;
        assert_eq!(seen["id"], watch.as_str());
        assert_eq!(seen["rounds"], record["rounds"]);
        let (status, _) = api
            .call("GET", "/api/games/nosuchgame/record", None, "")
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
}

#[tokio::test]
async fn the_analysis_board_values_any_position_given_by_its_moves() {
    let api = Api::new();
    let (status, empty) = api
        .call("GET", "/api/analysis?size=3x3&k=3", None, "")
        .await;
    assert_eq!(status, StatusCode::OK, "{empty}");
    assert_eq!(empty["next"], "x");
    assert_eq!(empty["available"], true);
    let values = empty["values"].as_array().unwrap();
    assert_eq!(values.len(), 9);
    assert!(
        values
            .iter()
            .all(|v| v["value"] == "draw" && v["plies"] == 9),
        "{empty}"
    );
    // After X in a corner and O on an edge next to it, X wins (in 5).
    let (_, after) = api
        .call("GET", "/api/analysis?size=3x3&moves=0,0;0,1", None, "")
        .await;
    assert_eq!(after["board"], "XO./.../...");
    assert_eq!(after["moves"], json!([[0, 0], [0, 1]]));
    assert_eq!(after["next"], "x");
    let values = after["values"].as_array().unwrap();
    assert_eq!(values.len(), 7);
    assert!(values.iter().any(|v| v["value"] == "win"), "{after}");
    // A finished game: its line, and nothing left to value.
    let (_, won) = api
        .call("GET", "/api/analysis?moves=0,0;1,0;0,1;1,1;0,2", None, "")
        .await;
    assert_eq!(
        (won["status"].as_str(), won["winner"].as_str()),
        (Some("won"), Some("x"))
    );
    assert_eq!(won["line"], json!([[0, 0], [0, 1], [0, 2]]));
    assert_eq!(won["values"], json!([]));
    // Too big to solve quickly: the position, and why there are no values.
    let (_, big) = api
        .call("GET", "/api/analysis?size=9x9&k=5", None, "")
        .await;
    assert_eq!(big["available"], false);
    assert!(
        big["reason"].as_str().unwrap().contains("25 cells"),
        "{big}"
    );
    // Bad input: 400 with the reason.
    for (query, says) in [
        ("moves=0,0;0,0", "move 2 (0,0)"),
        ("moves=0,0;x", "move 2: \"x\" is not ROW,COL"),
        ("moves=5,5", "move 1 (5,5): off the 3x3 k=3 board"),
        (
            "moves=99999999999999999999,0",
            "move 1 (99999999999999999999,0): off the 3x3 k=3 board",
        ),
        ("size=40x40", "too large"),
        ("size=4294967296", "at most 32 a side"),
        ("k=9", "bad k"),
        ("first=z", "bad first"),
        ("nonsense=1", "unknown field"),
    ] {
        let (status, body) = api
            .call("GET", &format!("/api/analysis?{query}"), None, "")
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert!(error_of(&body).contains(says), "{query}: {body}");
    }
}

#[tokio::test]
async fn the_lobby_lists_open_and_live_games_and_never_a_room_id() {
    let api = Api::new();
    // An unlisted game (an invite between friends) never shows.
    let (_, private) = api.call("POST", "/api/games", None, "{}").await;
    let private_id = private["game"]["id"].as_str().unwrap().to_owned();
    let (status, created) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"size": "4x4", "k": 3, "listed": true}"#,
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let watch = created["game"]["watch"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();

    let (status, lobby) = api.call("GET", "/api/lobby", None, "").await;
    assert_eq!(status, StatusCode::OK, "{lobby}");
    let open = lobby["open"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{lobby}");
    assert_eq!(
        (&open[0]["size"], &open[0]["k"], &open[0]["first"]),
        (&json!("4x4"), &json!(3), &json!("x"))
    );
    let entry = open[0]["entry"].as_str().unwrap().to_owned();
    assert!(entry != id && entry != watch);
    assert_eq!(lobby["live"], json!([]));
    let text = lobby.to_string();
    assert!(!text.contains(&id) && !text.contains(&private_id), "{text}");

    // One click joins: seat O, and now the room's id.
    let join = format!("/api/lobby/{entry}/join");
    let (status, joined) = api.call("POST", &join, None, "").await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(joined["seat"], "o");
    assert_eq!(joined["game"]["id"], id.as_str());
    let o = joined["token"].as_str().unwrap().to_owned();
    let (status, late) = api.call("POST", &join, None, "").await;
    assert_eq!(
        (status, error_of(&late)),
        (StatusCode::CONFLICT, "seat o is taken")
    );
    let (status, _) = api
        .call("POST", "/api/lobby/nosuchentry/join", None, "")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Seated, it is live: listed under its watch id only.
    assert_eq!(api.play(&id, &x, 0, 0).await.0, StatusCode::OK);
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    assert_eq!(lobby["open"], json!([]));
    let live = lobby["live"].as_array().unwrap();
    assert_eq!(live.len(), 1, "{lobby}");
    assert_eq!(
        (&live[0]["watch"], &live[0]["opponent"], &live[0]["round"]),
        (&json!(watch), &json!("human"), &json!(1))
    );
    assert!(!lobby.to_string().contains(&id));

    // A game against the computer, listed, is live from the start.
    let (_, computer) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"opponent": "random", "listed": true}"#,
        )
        .await;
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    assert_eq!(lobby["live"].as_array().unwrap().len(), 2, "{lobby}");
    assert_eq!(lobby["open"], json!([]));
    assert!(
        lobby["live"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["clock"].is_null()),
        "untimed: {lobby}"
    );

    // A timed game joined from the lobby shows its time control as it
    // did while open.
    let (status, timed) = api
        .call(
            "POST",
            "/api/games",
            None,
            r#"{"listed": true, "clock": {"minutes": 5, "increment": 3}}"#,
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{timed}");
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    let control = json!({"initial_ms": 300_000, "increment_ms": 3_000, "days": null});
    assert_eq!(lobby["open"][0]["clock"], control, "{lobby}");
    let entry = lobby["open"][0]["entry"].as_str().unwrap();
    let (status, _) = api
        .call("POST", &format!("/api/lobby/{entry}/join"), None, "")
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    let timed_watch = &timed["game"]["watch"];
    let shown = lobby["live"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| &l["watch"] == timed_watch)
        .unwrap_or_else(|| panic!("{lobby}"));
    assert_eq!(shown["clock"], control, "{lobby}");

    // Recent games: the caller's own, by the ids it keeps (unknown ones
    // left out), as short summaries.
    let computer_id = computer["game"]["id"].as_str().unwrap();
    let recent = format!("/api/lobby?recent={id},{computer_id},nosuchgame,{watch}");
    let (status, lobby) = api.call("GET", &recent, None, "").await;
    assert_eq!(status, StatusCode::OK, "{lobby}");
    let mine = lobby["recent"].as_array().unwrap();
    assert_eq!(mine.len(), 3, "{lobby}");
    assert_eq!(
        (
            &mine[0]["id"],
            &mine[0]["status"],
            &mine[0]["next"],
            &mine[0]["moves"]
        ),
        (&json!(id), &json!("playing"), &json!("o"), &json!(1))
    );
    assert_eq!(mine[1]["opponent"], "random");
    assert_eq!(mine[2]["id"], watch.as_str(), "a watch id shows as itself");
    assert!(mine[0].get("board").is_none(), "a summary, not a GAME");
    let _ = o;

    // Bad requests are 400s with a reason.
    let (status, body) = api.call("GET", "/api/lobby?recent=a%20b", None, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let many = vec![id.as_str(); 21].join(",");
    let (status, body) = api
        .call("GET", &format!("/api/lobby?recent={many}"), None, "")
        .await;
    assert_eq!(
        (status, error_of(&body)),
        (StatusCode::BAD_REQUEST, "recent names 21 games; at most 20")
    );
    let (status, _) = api.call("GET", "/api/lobby?other=1", None, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_lobby_and_rematch_offers_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let (id, x, o, entry) = {
        let api = Api {
            router: router(Arc::new(SqliteStore::open(&path).unwrap())),
            store: MemoryStore::new(),
        };
        let (_, open) = api
            .call("POST", "/api/games", None, r#"{"listed": true}"#)
            .await;
        let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
        let entry = lobby["open"][0]["entry"].as_str().unwrap().to_owned();
        assert_eq!(open["game"]["watch"].as_str().map(str::len), Some(16));
        let (id, x, o) = api.seated().await;
        for (token, row, col) in [(&x, 0, 0), (&o, 1, 0), (&x, 0, 1), (&o, 1, 1), (&x, 0, 2)] {
            api.play(&id, token, row, col).await;
        }
        let (status, _) = api
            .call("POST", &format!("/api/games/{id}/rematch"), Some(&x), "")
            .await;
        assert_eq!(status, StatusCode::OK);
        (id, x, o, entry)
    };
    let api = Api {
        router: router(Arc::new(SqliteStore::open(&path).unwrap())),
        store: MemoryStore::new(),
    };
    let game = api.game(&id).await;
    assert_eq!((&game["rematch"], &game["round"]), (&json!("x"), &json!(1)));
    let (_, lobby) = api.call("GET", "/api/lobby", None, "").await;
    assert_eq!(lobby["open"][0]["entry"], entry.as_str(), "{lobby}");
    let (status, next) = api
        .call("POST", &format!("/api/games/{id}/rematch"), Some(&o), "")
        .await;
    assert_eq!(
        (status, &next["game"]["round"]),
        (StatusCode::OK, &json!(2))
    );
    let _ = x;
}

#[tokio::test]
async fn the_page_and_its_files_are_revalidated_by_tag_not_sent_again() {
    use axum::body::Body;
    use axum::http::{Request, header};
    use tower::ServiceExt;

    let api = Api::new();
    let get = |path: &'static str, tag: Option<String>| {
        let router = api.router.clone();
        async move {
            let mut request = Request::get(path);
            if let Some(tag) = tag {
                request = request.header(header::IF_NONE_MATCH, tag);
            }
            let response = router
                .oneshot(request.body(Body::empty()).unwrap())
                .await
                .unwrap();
            let status = response.status();
            let headers = response.headers().clone();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            (status, headers, body)
        }
    };
    let mut tags = Vec::new();
    for path in [
        "/",
        "/g/somegame",
        "/assets/main.js",
        "/assets/board.js",
        "/assets/style.css",
        "/assets/icon.svg",
    ] {
        let (status, headers, body) = get(path, None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(!body.is_empty(), "{path}");
        assert_eq!(headers[header::CACHE_CONTROL], "no-cache", "{path}");
        if path.ends_with(".js") {
            // Browsers run a module only when it comes as JavaScript.
            assert_eq!(
                headers[header::CONTENT_TYPE],
                "text/javascript; charset=utf-8",
                "{path}"
            );
        }
        let tag = headers[header::ETAG].to_str().unwrap().to_owned();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
        // The browser's copy is current: a 304 with no body.
        let (status, headers, body) = get(path, Some(tag.clone())).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(body.is_empty(), "{path}");
        assert_eq!(headers[header::ETAG].to_str().unwrap(), tag);
        // Among others, or weak: still current.
        let (status, _, _) = get(path, Some(format!("\"0\", W/{tag}"))).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{path}");
        // An old copy: the file again.
        let (status, _, body) = get(path, Some("\"0123456789abcdef\"".into())).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(!body.is_empty(), "{path}");
        tags.push(tag);
    }
    // One page for every path; each file its own tag.
    assert_eq!(tags[0], tags[1]);
    tags.dedup();
    assert_eq!(tags.len(), 5);
}

/// A store that, while `down`, fails every read, as a database that does
/// not answer; its writes still fail only when its memory store says so.
#[derive(Clone)]
struct ReadsFail {
    memory: MemoryStore,
    down: Arc<std::sync::atomic::AtomicBool>,
}

impl ReadsFail {
    /// `answer`, or while down a failure.
    fn read<T: Send + 'static>(
        &self,
        answer: oxo_server::store::StoreFuture<T>,
    ) -> oxo_server::store::StoreFuture<T> {
        if self.down.load(std::sync::atomic::Ordering::SeqCst) {
            Box::pin(std::future::ready(Err(
                oxo_server::store::StoreError::Closed,
            )))
        } else {
            answer
        }
    }
}

impl Store for ReadsFail {
    fn commit(&self, change: oxo_server::store::Change) -> oxo_server::store::StoreFuture<()> {
        self.memory.commit(change)
    }

    fn load(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::room::RoomRecord>> {
        self.read(self.memory.load(id))
    }

    fn load_watch(
        &self,
        watch: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::room::RoomRecord>> {
        self.read(self.memory.load_watch(watch))
    }

    fn computer_turns(&self) -> oxo_server::store::StoreFuture<Vec<oxo_server::id::GameId>> {
        self.read(self.memory.computer_turns())
    }

    fn due(&self, now: u64) -> oxo_server::store::StoreFuture<Vec<oxo_server::id::GameId>> {
        self.read(self.memory.due(now))
    }

    fn lobby(
        &self,
        present: &[oxo_server::id::GameId],
    ) -> oxo_server::store::StoreFuture<oxo_server::store::LobbyRows> {
        self.read(self.memory.lobby(present))
    }

    fn load_entry(
        &self,
        entry: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Option<oxo_server::id::GameId>> {
        self.read(self.memory.load_entry(entry))
    }

    fn seen(&self, id: &oxo_server::id::GameId) -> oxo_server::store::StoreFuture<()> {
        self.memory.seen(id)
    }

    fn ping(&self) -> oxo_server::store::StoreFuture<()> {
        self.read(self.memory.ping())
    }

    fn prune(
        &self,
        older_than: std::time::Duration,
        keep: std::collections::HashSet<oxo_server::id::GameId>,
    ) -> oxo_server::store::StoreFuture<usize> {
        self.read(self.memory.prune(older_than, keep))
    }

    fn rounds(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Vec<Vec<oxo_core::Cell>>> {
        self.read(self.memory.rounds(id))
    }

    fn endings(
        &self,
        id: &oxo_server::id::GameId,
    ) -> oxo_server::store::StoreFuture<Vec<(u32, oxo_server::room::Ending)>> {
        self.read(self.memory.endings(id))
    }
}

/// One request through `router`: status, `Retry-After`, body.
async fn answer(router: &Router, method: &str, path: &str) -> (u16, Option<String>, Value) {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;
    let mut request = Request::builder().method(method).uri(path);
    if method == "POST" {
        request = request.header("content-type", "application/json");
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::from("{}")).unwrap())
        .await
        .unwrap();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, retry_after, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn a_read_the_database_cannot_answer_claims_no_outcome_and_says_when_to_retry() {
    let store = ReadsFail {
        memory: MemoryStore::new(),
        down: Arc::default(),
    };
    let server = router(Arc::new(store.clone()));
    let (_, _, created) = answer(&server, "POST", "/api/games").await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    store.down.store(true, std::sync::atomic::Ordering::SeqCst);
    // A game this server does not hold (a fresh one on the same store):
    // reading it asks the database.
    let fresh = router(Arc::new(store.clone()));
    for path in [format!("/api/games/{id}"), "/api/lobby".to_owned()] {
        let (status, retry_after, body) = answer(&fresh, "GET", &path).await;
        assert_eq!(status, 503, "{path}: {body}");
        assert_eq!(retry_after.as_deref(), Some("1"), "{path}");
        assert_eq!(
            body,
            json!({"error": "the database is not answering; try again"}),
            "{path}: a read changes nothing, so it has no outcome"
        );
    }
    // A write that fails so still says that nothing changed.
    store.memory.set_failing(true);
    let (status, _, body) = answer(&fresh, "POST", "/api/games").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        body,
        json!({
            "error": "the game could not be saved, so nothing changed; try again",
            "outcome": "unchanged"
        })
    );
}
