//! The lobby lists by presence, not by age: an open game shows however
//! long its creator stays, however many dead seeks were opened after it;
//! a dead seek and a quiet game being played leave it. Time is passed in
//! (a [`ManualTime`] for the memory store; rows aged in the file for
//! SQLite, whose clock is the database's).

use std::sync::Arc;
use std::time::Duration;

use oxo_server::{HubConfig, ManualTime, MemoryStore, SqliteStore};
use oxo_test_support::{Client, InProcess};
use serde_json::json;

use crate::lobby_life::{attend, open_entries, open_game};

/// A server on a memory store, both reading `time`.
pub(crate) async fn on_manual_time(time: &ManualTime) -> (InProcess, Client) {
    let store = Arc::new(MemoryStore::with_time(time.source()));
    let config = HubConfig {
        time: time.source(),
        ..HubConfig::default()
    };
    let server = InProcess::start_with(store, &config).await;
    let client = Client::new(server.addr);
    (server, client)
}

/// Open a listed game and read its lobby entry id while it shows.
async fn open_entry(client: &Client) -> String {
    open_game(client).await;
    open_entries(client).await[0]["entry"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Make room `id` of the SQLite file at `path` look last changed an hour
/// ago (past the lobby's horizon), as if time had passed.
fn last_changed_an_hour_ago(path: &std::path::Path, id: &str) {
    let db = rusqlite::Connection::open(path).unwrap();
    let aged = db
        .execute(
            "UPDATE rooms SET updated_at = updated_at - 3600 WHERE id = ?1",
            [id],
        )
        .unwrap();
    assert_eq!(aged, 1);
}

/// Ask for seat O of lobby entry `entry`: the answer's status and body.
pub(crate) async fn join(client: &Client, entry: &str) -> (u16, serde_json::Value) {
    client
        .call(
            "POST",
            &format!("/api/lobby/{entry}/join"),
            None,
            &json!({}),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_never_connected_leaves_after_its_grace_and_cannot_be_joined() {
    let time = ManualTime::at_system_now();
    let (_server, client) = on_manual_time(&time).await;
    let entry = open_entry(&client).await;
    time.advance(Duration::from_secs(21));
    assert_eq!(open_entries(&client).await.len(), 0, "grace over");
    let (status, refused) = join(&client, &entry).await;
    assert_eq!(status, 409, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_game_being_played_leaves_the_lobby() {
    let time = ManualTime::at_system_now();
    let (_server, client) = on_manual_time(&time).await;
    let entry = open_entry(&client).await;
    let (status, joined) = join(&client, &entry).await;
    assert_eq!(status, 200, "{joined}");
    let live = || async { client.get_json("/api/lobby").await["live"].clone() };
    assert_eq!(live().await.as_array().unwrap().len(), 1, "just joined");
    time.advance(Duration::from_secs(120)); // the lobby's LIVE_QUIET
    assert_eq!(live().await, json!([]), "nobody there, nothing moved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_game_shows_however_old_and_behind_many_dead_seeks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let config = HubConfig {
        seek_grace: Duration::ZERO,
        ..HubConfig::default()
    };
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let server = InProcess::start_with(store, &config).await;
    let client = Client::new(server.addr);
    let (id, x) = open_game(&client).await;
    let _creator = attend(&client, &id, &x).await;
    // Its creator has been there an hour: past the lobby's horizon.
    last_changed_an_hour_ago(&path, &id);
    // And more seeks than the lobby once read (LOBBY_ROWS) were opened
    // since, all dead.
    for _ in 0..100 {
        open_game(&client).await;
    }
    let open = open_entries(&client).await;
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0]["name"], "Ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_someone_is_at_shows_however_long_ago_it_last_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let server = InProcess::start_with(store, &HubConfig::default()).await;
    let client = Client::new(server.addr);
    // A game between people, both seats taken, X connected.
    let (id, x) = open_game(&client).await;
    let _creator = attend(&client, &id, &x).await;
    let entry = open_entries(&client).await[0]["entry"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, joined) = join(&client, &entry).await;
    assert_eq!(status, 200, "{joined}");
    // Last changed an hour ago: past the horizon within which the store
    // reads the games being played, so only its presence can list it (as
    // it does for a game behind more new listings than the store reads).
    last_changed_an_hour_ago(&path, &id);
    let live = client.get_json("/api/lobby").await["live"].clone();
    let live = live.as_array().unwrap();
    assert_eq!(live.len(), 1, "{live:?}");
    assert_eq!(live[0]["players"]["x"], "Ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_listings_do_not_crowd_out_a_game_whose_creator_is_there() {
    // The clock stands still: every new game stays within its grace.
    let time = ManualTime::at_system_now();
    let (_server, client) = on_manual_time(&time).await;
    let (id, x) = open_game(&client).await;
    let _creator = attend(&client, &id, &x).await;
    // More new games than the lobby shows, each within its grace (nobody
    // has connected to them yet), all newer than Ada's.
    for _ in 0..25 {
        let body = json!({"listed": true, "name": "New"});
        let (status, created) = client.call("POST", "/api/games", None, &body).await;
        assert_eq!(status, 201, "{created}");
    }
    let open = open_entries(&client).await;
    assert_eq!(open.len(), 20, "{open:?}");
    assert_eq!(open[0]["name"], "Ada", "{open:?}");
}
