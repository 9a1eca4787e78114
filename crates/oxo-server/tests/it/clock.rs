//! Clocks and correspondence through the API, with the time passed in: a
//! test moves a [`ManualTime`] past a deadline instead of waiting for it.
//! The flag is ruled by the sweep with nobody connected, lazily by a late
//! move, after a restart, and once only with two nodes on PostgreSQL.

use std::sync::Arc;
use std::time::Duration;

use oxo_server::id::GameId;
use oxo_server::room::Viewer;
use oxo_server::{HubConfig, ManualTime, MemoryStore, PgStore, SqliteStore, Store};
use oxo_test_support::{Client, InProcess, Postgres, Seated, seated_game};
use serde_json::{Value, json};

use crate::common;

/// Settings whose clock sweep runs every `sweep`, on `time`.
fn config(time: &ManualTime, sweep: Duration) -> HubConfig {
    HubConfig {
        time: time.source(),
        flag_sweep: sweep,
        ..HubConfig::default()
    }
}

/// A sweep that never comes round again within a test: flags are ruled
/// only when a request touches the room.
const NO_SWEEP: Duration = Duration::from_secs(3600);

/// A sweep that comes round at once.
const QUICK_SWEEP: Duration = Duration::from_millis(20);

async fn play(client: &Client, game: &Seated, x: bool, row: u32, col: u32) -> (u16, Value) {
    let token = if x { &game.x } else { &game.o };
    client
        .call(
            "POST",
            &format!("/api/games/{}/moves", game.id),
            Some(token),
            &json!({"row": row, "col": col}),
        )
        .await
}

/// A game under one minute and no increment, both first moves made at
/// the time `time` stands at: X's clock runs from then.
async fn started(client: &Client) -> Seated {
    let game = seated_game(client, &json!({"clock": {"minutes": 1}}))
        .await
        .unwrap();
    assert_eq!(play(client, &game, true, 1, 1).await.0, 200);
    let (status, after) = play(client, &game, false, 0, 0).await;
    assert_eq!(status, 200, "{after}");
    game
}

/// Poll until `ended` holds.
async fn until<T>(what: &str, mut ended: impl AsyncFnMut() -> Option<T>) -> T {
    let probe = async || ended().await.ok_or("not yet");
    common::eventually(format!("never {what}"), probe).await
}

/// Assert `game` is round 1 lost by `loser` (`"x"` or `"o"`) on time.
#[track_caller]
fn lost_on_time(game: &Value, loser: &str) {
    let winner = if loser == "x" { "o" } else { "x" };
    assert_eq!(
        (&game["status"], &game["winner"], &game["reason"]),
        (&json!("won"), &json!(winner), &json!("time")),
        "{game}"
    );
    assert_eq!(game["clock"][format!("{loser}_ms")], 0, "{game}");
    assert_eq!(game["clock"]["running"], Value::Null, "{game}");
    assert_eq!(game["clock"]["deadline"], Value::Null, "{game}");
    assert_eq!(game["score"][winner], 1, "{game}");
}

#[tokio::test]
async fn a_clock_or_correspondence_is_chosen_at_creation_and_checked() {
    let time = ManualTime::at(1_800_000_000_000);
    let server =
        InProcess::start_with(Arc::new(MemoryStore::new()), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let create = async |body: Value| client.call("POST", "/api/games", None, &body).await;

    let (status, created) = create(json!({"clock": {"minutes": 0.5, "increment": 2}})).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created["game"]["clock"],
        json!({"initial_ms": 30_000, "increment_ms": 2_000, "days": null,
               "x_ms": 30_000, "o_ms": 30_000, "running": null, "at": null, "deadline": null,
               "first_move_ms": null, "first_move_deadline": null})
    );
    let (status, created) = create(json!({"days": 3})).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["game"]["clock"]["days"], 3);
    assert_eq!(created["game"]["clock"]["initial_ms"], 3 * 86_400_000_u64);
    let (_, untimed) = create(json!({})).await;
    assert_eq!(untimed["game"]["clock"], Value::Null);

    for (body, message) in [
        (
            json!({"clock": {"minutes": 0.1}}),
            "clock minutes must be from 0.25 to 180, not 0.1",
        ),
        (
            json!({"clock": {"minutes": 181}}),
            "clock minutes must be from 0.25 to 180, not 181",
        ),
        (
            json!({"clock": {"minutes": 1e308}}),
            "clock minutes must be from 0.25 to 180, not 1e308",
        ),
        (
            json!({"clock": {"minutes": 1e-320}}),
            "clock minutes must be from 0.25 to 180, not 1e-320",
        ),
        (
            json!({"clock": {"minutes": 3, "increment": 61}}),
            "clock increment must be from 0 to 60 seconds, not 61",
        ),
        (json!({"days": 0}), "days must be from 1 to 14, not 0"),
        (json!({"days": 15}), "days must be from 1 to 14, not 15"),
        (
            json!({"clock": {"minutes": 3}, "days": 2}),
            "give either \"clock\" (minutes and increment) or \"days\" (correspondence), not both",
        ),
        (
            json!({"clock": {"minutes": 3}, "opponent": "random"}),
            "clocks are for games between two people: leave out \"clock\" and \"days\" against the computer",
        ),
    ] {
        let (status, answer) = create(body.clone()).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some(message)),
            "{body}"
        );
    }
    for body in [
        json!({"clock": {}}),
        json!({"clock": {"minutes": 3, "increment": 1.5}}),
        json!({"clock": {"minutes": 3, "extra": 1}}),
        json!({"clock": 3}),
        json!({"days": 1.5}),
    ] {
        let (status, answer) = create(body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
}

#[tokio::test]
async fn the_lobby_shows_an_open_games_time_control() {
    let time = ManualTime::at(1_800_000_000_000);
    let stores: [Arc<dyn oxo_server::Store>; 2] = [
        Arc::new(MemoryStore::new()),
        Arc::new(SqliteStore::open(":memory:").unwrap()),
    ];
    for store in stores {
        let server = InProcess::start_with(store, &config(&time, NO_SWEEP)).await;
        let client = Client::new(server.addr);
        for body in [
            json!({"listed": true, "clock": {"minutes": 3, "increment": 2}}),
            json!({"listed": true, "days": 7}),
            json!({"listed": true}),
        ] {
            let (status, _) = client.call("POST", "/api/games", None, &body).await;
            assert_eq!(status, 201);
        }
        let lobby = client.get_json("/api/lobby").await;
        let mut clocks: Vec<String> = lobby["open"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["clock"].to_string())
            .collect();
        clocks.sort();
        assert_eq!(
            clocks,
            [
                "null",
                r#"{"days":7,"increment_ms":0,"initial_ms":604800000}"#,
                r#"{"days":null,"increment_ms":2000,"initial_ms":180000}"#,
            ],
            "{lobby}"
        );
    }
}

#[tokio::test]
async fn a_read_measures_the_running_clock_at_the_time_it_is_made() {
    let time = ManualTime::at(1_800_000_000_000);
    let start = time.now();
    let server =
        InProcess::start_with(Arc::new(MemoryStore::new()), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    time.advance(Duration::from_millis(12_345));
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(
        read["clock"],
        json!({"initial_ms": 60_000, "increment_ms": 0, "days": null,
               "x_ms": 60_000 - 12_345, "o_ms": 60_000, "running": "x",
               "at": start + 12_345, "deadline": start + 60_000,
               "first_move_ms": null, "first_move_deadline": null}),
        "{read}"
    );
    // Spectators see the same clocks.
    let watched = client
        .get_json(&format!("/api/games/{}", read["watch"].as_str().unwrap()))
        .await;
    assert_eq!(watched["clock"], read["clock"]);
}

#[tokio::test]
async fn a_live_socket_is_sent_the_clock_measured_as_it_connects_then_each_ruling() {
    let time = ManualTime::at(1_800_000_000_000);
    let server =
        InProcess::start_with(Arc::new(MemoryStore::new()), &config(&time, QUICK_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    time.advance(Duration::from_secs(20));
    let url = format!("ws://{}/api/games/{}/live", server.addr, game.id);
    let mut socket = tokio_tungstenite::connect_async(url).await.unwrap().0;
    let first = common::next_update(&mut socket, Duration::from_secs(20)).await;
    assert_eq!(
        (&first["clock"]["x_ms"], &first["clock"]["at"]),
        (&json!(40_000), &json!(time.now())),
        "{first}"
    );
    // The sweep's ruling reaches the socket as any change does.
    time.advance(Duration::from_secs(40));
    let ruled = common::next_update(&mut socket, Duration::from_secs(20)).await;
    lost_on_time(&ruled, "x");
}

#[tokio::test]
async fn the_sweep_rules_a_flag_with_nobody_connected() {
    let time = ManualTime::at(1_800_000_000_000);
    let store = MemoryStore::new();
    let server = InProcess::start_with(Arc::new(store.clone()), &config(&time, QUICK_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    let id = GameId::from_trusted(&game.id);
    let version = store.get(&id).unwrap().version;

    // A millisecond before the flag, nothing happens.
    time.advance(Duration::from_millis(59_999));
    let swept = server.state.hub().rule_flags().await.unwrap();
    assert_eq!(swept, 0);
    // At the flag, the sweep rules it without a request for the room.
    time.advance(Duration::from_millis(1));
    until("the sweep ruled the flag", async || {
        (store.get(&id).unwrap().version > version).then_some(())
    })
    .await;
    assert_eq!(store.get(&id).unwrap().version, version + 1, "one ruling");
    let game_now = client.get_json(&format!("/api/games/{}", game.id)).await;
    lost_on_time(&game_now, "x");

    // X's move after the flag is refused with the ended game, and changes
    // nothing.
    let (status, refused) = play(&client, &game, true, 2, 2).await;
    assert_eq!(status, 409, "{refused}");
    lost_on_time(&refused["game"], "x");
    assert_eq!(store.get(&id).unwrap().version, version + 1);
}

/// lichess's rule: a seat that lets 30 s pass without its first move has
/// not started the round, which is called off (counting for nobody) by the
/// sweep with nobody connected; the wait is kept across a restart.
#[tokio::test]
async fn a_round_whose_first_move_never_comes_is_called_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let time = ManualTime::at(1_800_000_000_000);
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let server = InProcess::start_with(store.clone(), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({"clock": {"minutes": 1}}))
        .await
        .unwrap();
    let joined = time.now();
    time.advance(Duration::from_secs(4));
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    let clock = &read["clock"];
    assert_eq!(
        (
            &clock["first_move_deadline"],
            &clock["deadline"],
            &clock["running"]
        ),
        (&json!(joined + 30_000), &Value::Null, &Value::Null),
        "X's first move is awaited from when O sat: {read}"
    );
    assert_eq!(
        (&clock["first_move_ms"], &clock["at"]),
        (&json!(26_000), &json!(time.now())),
        "measured as read: {read}"
    );
    // X moves in time: O's wait starts from X's move, and survives a
    // restart.
    time.advance(Duration::from_secs(25));
    let (status, moved) = play(&client, &game, true, 1, 1).await;
    assert_eq!(status, 200, "{moved}");
    let o_by = time.now() + 30_000;
    assert_eq!(moved["game"]["clock"]["first_move_deadline"], o_by);
    server.stop().await.unwrap();
    let server = InProcess::start_with(store.clone(), &config(&time, QUICK_SWEEP)).await;
    let client = Client::new(server.addr);
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(read["clock"]["first_move_deadline"], o_by, "{read}");
    assert_eq!(read["status"], "playing");
    // O never moves: a millisecond before its deadline nothing is due; at
    // it, the sweep calls the round off, with no request for the room (the
    // store is watched, not the API, whose reads would rule it too).
    let id = GameId::from_trusted(&game.id);
    let version = store.load(&id).await.unwrap().unwrap().version;
    time.advance(Duration::from_millis(29_999));
    assert_eq!(server.state.hub().rule_flags().await.unwrap(), 0);
    time.advance(Duration::from_millis(1));
    let deadline_gone = || {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.query_row(
            "SELECT deadline IS NULL FROM rooms WHERE id = ?1",
            [&game.id],
            |row| row.get::<_, bool>(0),
        )
        .unwrap()
    };
    until("the sweep called the round off", async || {
        deadline_gone().then_some(())
    })
    .await;
    assert_eq!(
        store.load(&id).await.unwrap().unwrap().version,
        version + 1,
        "one ruling"
    );
    let ended = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(
        (&ended["status"], &ended["reason"], &ended["winner"]),
        (&json!("aborted"), &json!("nostart"), &Value::Null),
        "{ended}"
    );
    assert_eq!(ended["score"], json!({"x": 0, "o": 0, "draws": 0}));
    assert_eq!(
        (
            &ended["clock"]["first_move_deadline"],
            &ended["clock"]["running"]
        ),
        (&Value::Null, &Value::Null)
    );
    // O's move now is refused with the ended round.
    let (status, refused) = play(&client, &game, false, 0, 0).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["game"]["reason"], "nostart");
}

#[tokio::test]
async fn a_late_move_rules_the_flag_first_and_is_refused_with_the_ended_game() {
    let time = ManualTime::at(1_800_000_000_000);
    let store = MemoryStore::new();
    let server = InProcess::start_with(Arc::new(store.clone()), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    let version = store.get(&GameId::from_trusted(&game.id)).unwrap().version;

    // X moves with a second to spare: O's clock runs, with no increment.
    time.advance(Duration::from_secs(59));
    let (status, moved) = play(&client, &game, true, 2, 2).await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["game"]["clock"]["x_ms"], 1_000);
    assert_eq!(moved["game"]["clock"]["running"], "o");
    // O takes exactly its minute: too late.
    time.advance(Duration::from_secs(60));
    let (status, refused) = play(&client, &game, false, 0, 1).await;
    assert_eq!(status, 409, "{refused}");
    let ended = &refused["game"];
    assert_eq!(
        (&ended["status"], &ended["winner"], &ended["reason"]),
        (&json!("won"), &json!("x"), &json!("time")),
        "{ended}"
    );
    assert_eq!(ended["version"], version + 2, "the move, then the ruling");
    assert_eq!(
        ended["board"], "O../.X./..X",
        "the late move was not played"
    );
}

#[tokio::test]
async fn correspondence_is_ruled_after_its_days() {
    let time = ManualTime::at(1_800_000_000_000);
    let server =
        InProcess::start_with(Arc::new(MemoryStore::new()), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({"days": 2})).await.unwrap();
    assert_eq!(play(&client, &game, true, 1, 1).await.0, 200);
    time.advance(Duration::from_secs(5 * 86_400)); // first moves are untimed
    let (_, moved) = play(&client, &game, false, 0, 0).await;
    let deadline = time.now() + 2 * 86_400_000;
    assert_eq!(moved["game"]["clock"]["deadline"], deadline, "{moved}");
    // X answers within a day; its next move again has two days.
    time.advance(Duration::from_secs(86_400));
    let (_, moved) = play(&client, &game, true, 2, 2).await;
    assert_eq!(moved["game"]["clock"]["x_ms"], 2 * 86_400_000_u64);
    assert_eq!(
        moved["game"]["clock"]["deadline"],
        time.now() + 2 * 86_400_000
    );
    time.advance(Duration::from_secs(2 * 86_400));
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(
        (&read["status"], &read["winner"], &read["reason"]),
        (&json!("won"), &json!("x"), &json!("time")),
        "a read rules it: {read}"
    );
}

#[tokio::test]
async fn a_clock_survives_a_restart_and_a_flag_while_down_is_ruled_on_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let time = ManualTime::at(1_800_000_000_000);
    // One store for every server: the file stays locked by the process,
    // and a new hub reads every room from it, as after a restart.
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let open = || store.clone();

    let server = InProcess::start_with(open(), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    time.advance(Duration::from_secs(20));
    let (_, moved) = play(&client, &game, true, 2, 2).await;
    let before = moved["game"]["clock"].clone();
    assert_eq!(
        (&before["x_ms"], &before["running"]),
        (&json!(40_000), &json!("o"))
    );
    server.stop().await.unwrap();

    // Restarted 10 s later: the same clocks, O's 10 s gone.
    time.advance(Duration::from_secs(10));
    let server = InProcess::start_with(open(), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(read["clock"]["deadline"], before["deadline"], "{read}");
    assert_eq!(
        (&read["clock"]["x_ms"], &read["clock"]["o_ms"]),
        (&json!(40_000), &json!(50_000)),
        "{read}"
    );
    server.stop().await.unwrap();

    // Down while O's time runs out: the sweep on start rules it, before
    // anyone asks for the room.
    time.advance(Duration::from_secs(60));
    let server = InProcess::start_with(open(), &config(&time, QUICK_SWEEP)).await;
    let deadline_of = |path: &std::path::Path| {
        let conn = rusqlite::Connection::open(path).unwrap();
        conn.query_row(
            "SELECT deadline IS NULL FROM rooms WHERE id = ?1",
            [&game.id],
            |row| row.get::<_, bool>(0),
        )
        .unwrap()
    };
    until("the sweep on start ruled the flag", async || {
        deadline_of(&path).then_some(())
    })
    .await;
    let client = Client::new(server.addr);
    let read = client.get_json(&format!("/api/games/{}", game.id)).await;
    assert_eq!(
        (&read["status"], &read["winner"], &read["reason"]),
        (&json!("won"), &json!("x"), &json!("time")),
        "{read}"
    );
    assert_eq!(read["clock"]["o_ms"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_rule_a_flag_exactly_once_and_a_dead_nodes_game_is_ruled_by_the_other() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let time = ManualTime::at(1_800_000_000_000);
    // The rulings stored for a game: each round's ending is kept once.
    let rulings = |id: &str| {
        db.psql(&format!(
            "SELECT string_agg(round || ' ' || reason || ' ' || winner, ', ') FROM endings WHERE room = '{id}'"
        ))
        .unwrap()
        .trim()
        .to_owned()
    };
    let node = async |sweep| {
        let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
        let server = InProcess::start_with(Arc::new(store), &config(&time, sweep)).await;
        let client = Client::new(server.addr);
        (server, client)
    };

    // Both nodes hold the room; a move on A reaches B with its clock (B
    // reads it: only A knows when the move was taken).
    let (a, a_client) = node(NO_SWEEP).await;
    let (b, b_client) = node(NO_SWEEP).await;
    let game = started(&a_client).await;
    let path = format!("/api/games/{}", game.id);
    let version = b_client.get_json(&path).await["version"].as_u64().unwrap();
    time.advance(Duration::from_secs(10));
    let (status, moved) = play(&a_client, &game, true, 2, 2).await;
    assert_eq!(status, 200, "{moved}");
    // What B holds, as the change feed brings it (no read that would
    // check the store first).
    let held = b
        .state
        .hub()
        .room(&GameId::from_trusted(&game.id))
        .await
        .unwrap();
    let on_b = until("B's memory has X's move from the change feed", async || {
        let game = held.current(Viewer::Player);
        (game.value().version == version + 1).then(|| serde_json::to_value(game.value()).unwrap())
    })
    .await;
    assert_eq!(on_b["clock"], moved["game"]["clock"]);
    assert_eq!(on_b["clock"]["x_ms"], 50_000);

    // Both rule O's flag at once: one ruling commits, the other is refused
    // as stale and its node reads the ruling.
    time.advance(Duration::from_secs(60));
    let (on_a, on_b) = tokio::join!(a.state.hub().rule_flags(), b.state.hub().rule_flags());
    assert_eq!(on_a.unwrap() + on_b.unwrap(), 1, "exactly one ruling");
    assert_eq!(rulings(&game.id), "1 time x");
    for client in [&a_client, &b_client] {
        let game = client.get_json(&path).await;
        lost_on_time(&game, "o");
        assert_eq!(game["version"], version + 2, "{game}");
    }
    let stored = db
        .psql(&format!(
            "SELECT version, deadline IS NULL FROM rooms WHERE id = '{}'",
            game.id
        ))
        .unwrap();
    assert_eq!(stored.trim(), format!("{}|t", version + 2));

    // A first move that never comes: its deadline is stored for every
    // node's sweep, and both calling the round off at once store one
    // ruling.
    let idle = seated_game(&a_client, &json!({"clock": {"minutes": 1}}))
        .await
        .unwrap();
    let joined = time.now();
    let deadline = db
        .psql(&format!(
            "SELECT deadline FROM rooms WHERE id = '{}'",
            idle.id
        ))
        .unwrap();
    assert_eq!(deadline.trim(), (joined + 30_000).to_string());
    b_client.get_json(&format!("/api/games/{}", idle.id)).await;
    time.advance(Duration::from_secs(30));
    let (on_a, on_b) = tokio::join!(a.state.hub().rule_flags(), b.state.hub().rule_flags());
    assert_eq!(on_a.unwrap() + on_b.unwrap(), 1, "exactly one ruling");
    let endings = db
        .psql(&format!(
            "SELECT count(*) || ' ' || string_agg(reason, ',') || ' ' || count(winner) \
             FROM endings WHERE room = '{}'",
            idle.id
        ))
        .unwrap();
    assert_eq!(endings.trim(), "1 nostart 0");
    for client in [&a_client, &b_client] {
        let game = client.get_json(&format!("/api/games/{}", idle.id)).await;
        assert_eq!(
            (&game["status"], &game["reason"]),
            (&json!("aborted"), &json!("nostart"))
        );
    }

    // A game on a node that dies is ruled by the other node's sweep, with
    // nobody connected anywhere.
    let (c, c_client) = node(NO_SWEEP).await;
    let game = started(&c_client).await;
    c.stop().await.unwrap();
    drop((a, b));
    let (_d, d_client) = node(QUICK_SWEEP).await;
    time.advance(Duration::from_secs(60));
    until("the other node's sweep ruled the flag", async || {
        let stored = db
            .psql(&format!(
                "SELECT deadline IS NULL FROM rooms WHERE id = '{}'",
                game.id
            ))
            .unwrap();
        (stored.trim() == "t").then_some(())
    })
    .await;
    assert_eq!(rulings(&game.id), "1 time o");
    lost_on_time(
        &d_client.get_json(&format!("/api/games/{}", game.id)).await,
        "x",
    );
}

/// `seat` (`"x"` or `"o"`) of `game` sends `what` (`moves` with a cell,
/// or a change without one) against `version`.
async fn send_at(
    client: &Client,
    game: &Seated,
    seat: &str,
    what: &str,
    body: Value,
) -> (u16, Value) {
    let token = if seat == "x" { &game.x } else { &game.o };
    client
        .call(
            "POST",
            &format!("/api/games/{}/{what}", game.id),
            Some(token),
            &body,
        )
        .await
}

/// O gives time, offers a draw and withdraws it on `client`, none of which
/// changes the position; the version of the game before them.
async fn changes_without_a_move(client: &Client, game: &Seated) -> u64 {
    let path = format!("/api/games/{}", game.id);
    let seen = client.get_json(&path).await["version"].as_u64().unwrap();
    for (method, what) in [("POST", "moretime"), ("POST", "draw"), ("DELETE", "draw")] {
        let (status, body) = client
            .call(
                method,
                &format!("{path}/{what}"),
                Some(&game.o),
                &Value::Null,
            )
            .await;
        assert_eq!(status, 200, "{what}: {body}");
    }
    seen
}

/// X's move sent on `client` against `seen`, the version before
/// [`changes_without_a_move`], is played: only the position makes a move
/// stale. Sent against a version from the future it is refused, and so is
/// O's reply sent against a version from before X's move.
async fn the_move_is_still_current(client: &Client, game: &Seated, seen: u64) {
    // O's withdrawn offer is kept with the room: O may offer again only
    // after its next move.
    let path = format!("/api/games/{}", game.id);
    assert_eq!(
        client.get_json(&path).await["offers"]["made"]["draw"],
        json!(["o"])
    );
    let moved_at = |version: u64| json!({"row": 2, "col": 2, "version": version});
    let (status, body) = send_at(client, game, "x", "moves", moved_at(seen + 100)).await;
    assert_eq!(status, 409, "a version from the future: {body}");
    let (status, body) = send_at(client, game, "x", "moves", moved_at(seen)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["game"]["moves"], &body["game"]["version"]),
        (&json!([[1, 1], [0, 0], [2, 2]]), &json!(seen + 4))
    );
    let reply = json!({"row": 0, "col": 2, "version": seen + 3});
    let (status, body) = send_at(client, game, "o", "moves", reply).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("stale version"),
        "{body}"
    );
}

#[tokio::test]
async fn time_given_and_offers_never_make_a_move_stale_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::at(1_800_000_000_000);
    let store = Arc::new(SqliteStore::open(dir.path().join("oxo.db")).unwrap());
    let server = InProcess::start_with(store.clone(), &config(&time, NO_SWEEP)).await;
    let client = Client::new(server.addr);
    let game = started(&client).await;
    let seen = changes_without_a_move(&client, &game).await;
    // The position's version is kept with the room (its digest holding).
    server.stop().await.unwrap();
    let server = InProcess::start_with(store, &config(&time, NO_SWEEP)).await;
    the_move_is_still_current(&Client::new(server.addr), &game, seen).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_given_and_offers_on_one_node_never_make_a_move_on_another_stale() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let time = ManualTime::at(1_800_000_000_000);
    let node = async || {
        let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
        let server = InProcess::start_with(Arc::new(store), &config(&time, NO_SWEEP)).await;
        let client = Client::new(server.addr);
        (server, client)
    };
    let (_a, a) = node().await;
    let (_b, b) = node().await;
    let game = started(&a).await;
    // B holds the room before the changes, so it learns of them from A.
    let path = format!("/api/games/{}", game.id);
    b.get_json(&path).await;
    let seen = changes_without_a_move(&a, &game).await;
    the_move_is_still_current(&b, &game, seen).await;
    // X offers a draw on B; a third node, reading the room from the
    // database (its digest holding), plays O's reply sent against the
    // version before the offer.
    let (status, body) = b
        .call("POST", &format!("{path}/draw"), Some(&game.x), &Value::Null)
        .await;
    assert_eq!(status, 200, "{body}");
    let (_c, c) = node().await;
    assert_eq!(
        c.get_json(&path).await["offers"]["made"]["draw"],
        json!(["x", "o"])
    );
    let reply = json!({"row": 0, "col": 2, "version": seen + 4});
    let (status, body) = send_at(&c, &game, "o", "moves", reply).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["game"]["version"], seen + 6, "{body}");
    // O has moved since its offer; X, whose offer O's move declined, not.
    assert_eq!(body["game"]["offers"]["made"]["draw"], json!(["x"]));
}
