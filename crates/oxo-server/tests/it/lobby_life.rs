//! The lobby holds no dead seek: an open game shows while its creator is
//! connected (on any node), leaves when their last connection closes, comes
//! back when they return, and cannot be joined once they have gone. Driven
//! by opening and closing sockets, with the hub's grace for new games set
//! to zero so nothing waits on the clock.

use std::sync::Arc;
use std::time::Duration;

use oxo_server::{HubConfig, ManualTime, MemoryStore, PgStore, Store};
use oxo_test_support::{Client, InProcess, Postgres};
use serde_json::{Value, json};

use crate::common::{self, Socket, next_text};

/// A server whose new open games show only while their creator is there.
async fn server(store: Arc<dyn Store>) -> (InProcess, Client) {
    let config = HubConfig {
        seek_grace: Duration::ZERO,
        ..HubConfig::default()
    };
    let server = InProcess::start_with(store, &config).await;
    let client = Client::new(server.addr);
    (server, client)
}

/// A listed game between people, its creator named Ada: its id and X's
/// token.
pub(crate) async fn open_game(client: &Client) -> (String, String) {
    let (status, created) = client
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"listed": true, "name": "Ada"}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    (
        created["game"]["id"].as_str().unwrap().to_owned(),
        created["token"].as_str().unwrap().to_owned(),
    )
}

/// Seat `token`'s live socket on `client`'s server, once the server has
/// sent its first GAME (so the connection counts).
pub(crate) async fn attend(client: &Client, id: &str, token: &str) -> Socket {
    let url = format!("ws://{}/api/games/{id}/live?token={token}", client.addr());
    let mut socket = tokio_tungstenite::connect_async(url).await.unwrap().0;
    next_text(&mut socket, common::PATIENCE).await;
    socket
}

/// The lobby's open entries on `client`'s server.
pub(crate) async fn open_entries(client: &Client) -> Vec<Value> {
    client.get_json("/api/lobby").await["open"]
        .as_array()
        .unwrap()
        .clone()
}

/// Read the lobby until it lists `count` open games (presence travels
/// between nodes through the store, and a closed socket is counted out
/// when the server sees it close).
async fn until_open(client: &Client, count: usize, what: &str) -> Vec<Value> {
    common::eventually(what, async || {
        let open = open_entries(client).await;
        if open.len() == count {
            Ok(open)
        } else {
            Err(format!("the lobby shows {open:?}"))
        }
    })
    .await
}

/// Wait for `client`'s lobby to list one open game (`what` says why it
/// should), and take its seat O as Grace.
async fn join_listed(client: &Client, what: &str) -> Value {
    let entry = until_open(client, 1, what).await[0]["entry"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, joined) = client
        .call(
            "POST",
            &format!("/api/lobby/{entry}/join"),
            None,
            &json!({"name": "Grace"}),
        )
        .await;
    assert_eq!((status, &joined["seat"]), (200, &json!("o")), "{joined}");
    joined
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_game_shows_only_while_its_creator_is_connected() {
    let (_server, client) = server(Arc::new(MemoryStore::new())).await;
    let (id, x) = open_game(&client).await;
    assert_eq!(
        open_entries(&client).await,
        Vec::<Value>::new(),
        "made through the API with no socket, and no grace"
    );
    let mut first = attend(&client, &id, &x).await;
    let entry = until_open(&client, 1, "X connected").await[0]["entry"]
        .as_str()
        .unwrap()
        .to_owned();
    // Two tabs: it stays while either is open.
    let mut second = attend(&client, &id, &x).await;
    first.close(None).await.unwrap();
    drop(first);
    assert_eq!(until_open(&client, 1, "one tab left").await.len(), 1);
    second.close(None).await.unwrap();
    drop(second);
    until_open(&client, 0, "X gone").await;

    // Joining it now is refused in words, and seats nobody.
    let join = format!("/api/lobby/{entry}/join");
    let (status, refused) = client.call("POST", &join, None, &json!({})).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(
        refused["error"],
        "the player who opened this game has left; choose another game in the lobby"
    );
    assert_eq!(
        client.get_json(&format!("/api/games/{id}")).await["seats"]["o"],
        false
    );

    // Back: listed again, and joined.
    let _back = attend(&client, &id, &x).await;
    until_open(&client, 1, "X back").await;
    let (status, joined) = client.call("POST", &join, None, &json!({})).await;
    assert_eq!((status, &joined["seat"]), (200, &json!("o")), "{joined}");
    assert_eq!(until_open(&client, 0, "joined").await.len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_game_shows_within_its_grace_until_its_creator_comes_and_goes() {
    // The hub and the store read one time, which only the test moves.
    let time = ManualTime::at_system_now();
    let (_server, client) = crate::lobby_presence::on_manual_time(&time).await;
    open_game(&client).await;
    time.advance(Duration::from_secs(15));
    let (id, x) = open_game(&client).await;
    assert_eq!(open_entries(&client).await.len(), 2, "both in the grace");
    time.advance(Duration::from_secs(5));
    assert_eq!(open_entries(&client).await.len(), 1, "the first's is over");
    // Once its creator has come and gone, the grace is over at once.
    let socket = attend(&client, &id, &x).await;
    drop(socket);
    until_open(&client, 0, "X came and went").await;
    time.advance(Duration::from_secs(60));
    assert_eq!(open_entries(&client).await.len(), 0, "and stays over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_being_played_show_while_a_player_is_there() {
    let (_server, client) = server(Arc::new(MemoryStore::new())).await;
    let (id, x) = open_game(&client).await;
    let creator = attend(&client, &id, &x).await;
    join_listed(&client, "X connected").await;
    drop(creator);
    // Just changed: shown however many are connected (the quiet time
    // itself is the unit tests' in hub/lobby.rs, with time passed in).
    let lobby = client.get_json("/api/lobby").await;
    assert_eq!(lobby["live"].as_array().unwrap().len(), 1, "{lobby}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_connected_to_one_node_lists_the_game_on_another() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let node = async || {
        server(Arc::new(
            PgStore::connect(&db.url()).await.expect("PostgreSQL store"),
        ))
        .await
    };
    let (_a, a) = node().await;
    let (_b, b) = node().await;
    let (id, x) = open_game(&a).await;
    assert_eq!(open_entries(&b).await.len(), 0, "nobody there yet");
    let socket = attend(&a, &id, &x).await;
    until_open(&b, 1, "B hears X is on A").await;
    drop(socket);
    until_open(&b, 0, "B hears X left A").await;
    // Connected to B this time: A lists it.
    let _socket = attend(&b, &id, &x).await;
    let joined = join_listed(&a, "A hears X is on B").await;
    // Names are kept in the shared store: B shows what A was told.
    let both = json!({"x": "Ada", "o": "Grace"});
    assert_eq!(joined["game"]["players"], both);
    let watch = joined["game"]["watch"].as_str().unwrap();
    common::eventually("B never saw the join", async || {
        let players = b.get_json(&format!("/api/games/{watch}")).await["players"].take();
        if players == both {
            Ok(())
        } else {
            Err(players)
        }
    })
    .await;
}

#[tokio::test]
async fn a_browser_gets_a_page_for_an_unknown_path_and_the_api_keeps_its_json() {
    use axum::body::Body;
    use axum::http::{Request, header};
    use tower::ServiceExt;
    let router = oxo_server::app(oxo_server::AppState::new(oxo_server::Hub::new(
        Arc::new(MemoryStore::new()),
        &HubConfig::default(),
    )));
    // What Chromium sends when it navigates.
    const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let get = async |path: &str, accept: Option<&str>| {
        let mut request = Request::builder().uri(path);
        if let Some(accept) = accept {
            request = request.header(header::ACCEPT, accept);
        }
        let response = router
            .clone()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let kind = response.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, kind, String::from_utf8(body.to_vec()).unwrap())
    };
    let (status, kind, page) = get("/no/such/page", Some(BROWSER)).await;
    assert_eq!(
        (status, kind.as_str()),
        (404, "text/html; charset=utf-8"),
        "{page}"
    );
    assert!(page.contains("<h1>Page not found</h1>"), "{page}");
    assert!(page.contains(r#"href="/""#), "a link home: {page}");
    for (path, accept) in [
        ("/api/nothing", Some(BROWSER)),
        ("/api", Some(BROWSER)),
        ("/api/games/abc/nothing", Some(BROWSER)),
        ("/no/such/page", None),
        ("/no/such/page", Some("*/*")),
        ("/no/such/page", Some("application/json")),
    ] {
        let (status, kind, body) = get(path, accept).await;
        assert_eq!(
            (status, kind.as_str()),
            (404, "application/json"),
            "{path} {accept:?}"
        );
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"], format!("no such page: {path}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_names_are_shown_to_the_opponent_spectators_and_the_lobby() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let sqlite = || Arc::new(oxo_server::SqliteStore::open(&path).unwrap());
    let (first, client) = server(sqlite()).await;
    let (status, created) = client
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"listed": true, "name": "  <b>Ada</b> & co "}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let watch = created["game"]["watch"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    assert_eq!(
        created["game"]["players"],
        json!({"x": "<b>Ada</b> & co", "o": null}),
        "trimmed, and kept as text"
    );
    let _creator = attend(&client, &id, &x).await;
    let open = until_open(&client, 1, "X connected").await;
    assert_eq!(open[0]["name"], "<b>Ada</b> & co");
    let entry = open[0]["entry"].as_str().unwrap().to_owned();
    let join = format!("/api/lobby/{entry}/join");

    // A bad name is refused and seats nobody.
    for (name, says) in [
        (
            json!(""),
            "bad name: a name needs at least one visible character",
        ),
        (
            json!("a".repeat(21)),
            "bad name: a name is at most 20 characters",
        ),
        (
            json!("tab\there"),
            "bad name: a name cannot hold the control character U+0009",
        ),
        (
            json!("\u{200B}"),
            "bad name: a name cannot hold U+200B, an invisible formatting character",
        ),
        (
            json!("Computer (strong)"),
            "bad name: names starting with \"Computer\" are kept for the computer player",
        ),
        (json!(7), "bad JSON body"),
    ] {
        let (status, refused) = client
            .call("POST", &join, None, &json!({ "name": name }))
            .await;
        assert_eq!(status, 400, "{name}: {refused}");
        assert!(
            refused["error"].as_str().unwrap().starts_with(says),
            "{name}: {refused}"
        );
    }
    let (status, joined) = client
        .call("POST", &join, None, &json!({"name": "Grace"}))
        .await;
    assert_eq!(status, 200, "{joined}");
    let both = json!({"x": "<b>Ada</b> & co", "o": "Grace"});
    assert_eq!(joined["game"]["players"], both);
    assert_eq!(
        client.get_json(&format!("/api/games/{watch}")).await["players"],
        both,
        "spectators see them"
    );
    let live = client.get_json("/api/lobby").await["live"].clone();
    assert_eq!(live[0]["players"], both, "{live}");

    // Against the computer, O is named by its difficulty.
    for (size, opponent, called) in [
        ("3x3", "perfect", "Computer (strong)"),
        ("3x3", "random", "Computer (easy)"),
        ("3x3", "rules", "Computer (medium)"),
        ("7x7", "rules", "Computer (easy)"),
        ("7x7", "alphabeta", "Computer (strong)"),
    ] {
        let (status, created) = client
            .call(
                "POST",
                "/api/games",
                None,
                &json!({"size": size, "opponent": opponent}),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        assert_eq!(
            created["game"]["players"],
            json!({"x": null, "o": called}),
            "{size} {opponent}"
        );
    }

    // Kept by the store: the same after a restart.
    first.stop().await.unwrap();
    let (_server, client) = server(sqlite()).await;
    assert_eq!(
        client.get_json(&format!("/api/games/{id}")).await["players"],
        both
    );
}

/// A listed room written by a node still running a build from before
/// PostgreSQL migration 8 has no `listed_at`: the lobby still answers and
/// lists it, its age read from `updated_at`, instead of failing whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_room_without_listed_at_still_shows() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    let (_server, client) = server(Arc::new(store)).await;
    let (id, x) = open_game(&client).await;
    let _creator = attend(&client, &id, &x).await;
    until_open(&client, 1, "X is there").await;
    let (sql, connection) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls)
        .await
        .expect("a connection of its own");
    tokio::spawn(connection);
    let cleared = sql
        .execute("UPDATE rooms SET listed_at = NULL WHERE id = $1", &[&id])
        .await
        .expect("listed_at cleared");
    assert_eq!(cleared, 1);
    let (status, lobby) = client.call("GET", "/api/lobby", None, &json!(null)).await;
    assert_eq!(status, 200, "{lobby}");
    assert_eq!(lobby["open"].as_array().map(Vec::len), Some(1), "{lobby}");
}

/// The creator cancels their open game (abort while it waits): it ends,
/// counting for nobody, leaves the lobby and their list's entry, and a
/// late joiner, by the lobby or the invite, is told so in a 409.
async fn a_waiting_game_is_cancelled(store: Arc<dyn Store>) {
    let (_server, client) = server(store).await;
    let (status, created) = client
        .call("POST", "/api/games", None, &json!({"listed": true}))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let invite = created["invite"].as_str().unwrap().to_owned();
    assert_eq!(created["game"]["listed"], true);
    let _creator = attend(&client, &id, &x).await;
    let entry = until_open(&client, 1, "X is there").await[0]["entry"].clone();
    // The creator's own list names the game's entry: their lobby can tell
    // it is theirs.
    let recent = client.get_json(&format!("/api/lobby?recent={id}")).await;
    assert_eq!(recent["recent"][0]["entry"], entry, "{recent}");

    let abort = format!("/api/games/{id}/abort");
    let (status, mut cancelled) = client.call("POST", &abort, Some(&x), &json!({})).await;
    assert_eq!(status, 200, "{cancelled}");
    let cancelled = cancelled["game"].take();
    assert_eq!(
        (
            &cancelled["status"],
            &cancelled["reason"],
            &cancelled["score"]
        ),
        (
            &json!("aborted"),
            &json!("aborted"),
            &json!({"x": 0, "o": 0, "draws": 0})
        )
    );
    // Gone from the lobby though its creator is still connected.
    assert_eq!(open_entries(&client).await, Vec::<Value>::new());
    let recent = client.get_json(&format!("/api/lobby?recent={id}")).await;
    assert_eq!(
        (
            &recent["recent"][0]["status"],
            &recent["recent"][0]["entry"]
        ),
        (&json!("aborted"), &Value::Null),
        "{recent}"
    );
    let said = "the player who opened this game has cancelled it; nobody can join it now";
    let entry = entry.as_str().unwrap();
    let (status, late) = crate::lobby_presence::join(&client, entry).await;
    assert_eq!((status, &late["error"]), (409, &json!(said)), "{late}");
    let (status, late) = client
        .call(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            None,
            &json!({"invite": invite}),
        )
        .await;
    assert_eq!((status, &late["error"]), (409, &json!(said)), "{late}");
    // Cancelled: cancelling again, or anything else, a rematch included,
    // is refused as such.
    let cancelled = json!(
        "this game was cancelled before anyone joined it: it has no round to play, end or play again; start a new game"
    );
    let (status, again) = client.call("POST", &abort, Some(&x), &json!({})).await;
    assert_eq!((status, &again["error"]), (409, &cancelled));
    let rematch = format!("/api/games/{id}/rematch");
    for method in ["POST", "DELETE"] {
        let (status, again) = client.call(method, &rematch, Some(&x), &json!({})).await;
        assert_eq!((status, &again["error"]), (409, &cancelled), "{method}");
    }
    assert_eq!(
        client.get_json(&format!("/api/games/{id}")).await["seats"]["o"],
        false
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_game_is_cancelled_in_memory() {
    a_waiting_game_is_cancelled(Arc::new(MemoryStore::new())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_game_is_cancelled_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = oxo_server::SqliteStore::open(dir.path().join("oxo.db")).unwrap();
    a_waiting_game_is_cancelled(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_game_is_cancelled_on_postgres() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    a_waiting_game_is_cancelled(Arc::new(store)).await;
    // The lobby's index of open games holds no cancelled one: its walk
    // does not grow with every seek ever cancelled.
    let index = db
        .psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'rooms_open'")
        .unwrap();
    assert!(index.contains("(end_reason IS NULL)"), "{index}");
}

/// A day, in seconds.
const DAY: u64 = 24 * 60 * 60;

/// Read the lobby until its one open game has waited under a day: the
/// store has noted its creator coming or going (`what`).
async fn until_noted(client: &Client, what: &str) {
    common::eventually(what, async || {
        let open = open_entries(client).await;
        match open.first().and_then(|entry| entry["waiting"].as_u64()) {
            Some(waiting) if waiting < DAY => Ok(()),
            _ => Err(format!("the lobby shows {open:?}")),
        }
    })
    .await;
}

/// An open correspondence game outlives its creator's closed tab: it stays
/// listed for its days since they were last here (connected or left), then
/// leaves (a join refused), and comes back with them. The creator is on a
/// server on `store`; the lobby is read, and the game joined, on one on
/// `other` if given (a second server sharing the database), else on the
/// same. `age` makes room `id` look last changed that many seconds
/// earlier, as if time had passed.
async fn a_correspondence_seek_outlives_its_creators_tab(
    store: Arc<dyn Store>,
    other: Option<Arc<dyn Store>>,
    age: impl AsyncFn(&str, u64),
) {
    let (_server, host) = server(store).await;
    let (_other, client) = match other {
        Some(store) => {
            let (server, client) = server(store).await;
            (Some(server), client)
        }
        None => (None, host.clone()),
    };
    let (status, created) = host
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"listed": true, "days": 3}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let recent = client.get_json(&format!("/api/lobby?recent={id}")).await;
    let entry = recent["recent"][0]["entry"].as_str().unwrap().to_owned();
    let join = async || crate::lobby_presence::join(&client, &entry).await;
    // Made through the API and never connected: listed for its days since
    // it was opened (no grace here), then not.
    assert_eq!(open_entries(&client).await.len(), 1);
    age(&id, 3 * DAY).await;
    assert_eq!(open_entries(&client).await, Vec::<Value>::new());
    let (status, refused) = join().await;
    assert_eq!(status, 409, "{refused}");

    // Here, however long: listed.
    let creator = attend(&host, &id, &x).await;
    until_noted(&client, "X's coming noted").await;
    age(&id, 4 * DAY).await;
    // (Another server hears of them through the database.)
    let open = until_open(&client, 1, "X is still there").await;
    assert!(open[0]["waiting"].as_u64() > Some(4 * DAY - 60), "{open:?}");
    // Gone: the listing counts from when they left, not from when they
    // came (which is days ago now).
    drop(creator);
    until_noted(&client, "X's leaving noted").await;
    age(&id, 3 * DAY - 60).await;
    assert_eq!(open_entries(&client).await.len(), 1, "within its days");
    age(&id, 60).await;
    until_open(&client, 0, "its days over, X gone").await;
    let (status, refused) = join().await;
    assert_eq!(
        (status, &refused["error"]),
        (
            409,
            &json!("the player who opened this game has left; choose another game in the lobby")
        )
    );

    // Back: listed again, and joined.
    let _back = attend(&host, &id, &x).await;
    until_open(&client, 1, "X came back").await;
    let (status, joined) = join().await;
    assert_eq!((status, &joined["seat"]), (200, &json!("o")), "{joined}");
    until_open(&client, 0, "joined").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_seek_outlives_its_creators_tab_in_memory() {
    let time = ManualTime::at_system_now();
    a_correspondence_seek_outlives_its_creators_tab(
        Arc::new(MemoryStore::with_time(time.source())),
        None,
        async |_: &str, secs| time.advance(Duration::from_secs(secs)),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_seek_outlives_its_creators_tab_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("oxo.db");
    let store = oxo_server::SqliteStore::open(&path).unwrap();
    a_correspondence_seek_outlives_its_creators_tab(
        Arc::new(store),
        None,
        async |id: &str, secs| {
            let db = rusqlite::Connection::open(&path).unwrap();
            let aged = db
                .execute(
                    "UPDATE rooms SET updated_at = updated_at - ?2 WHERE id = ?1",
                    rusqlite::params![id, i64::try_from(secs).unwrap()],
                )
                .unwrap();
            assert_eq!(aged, 1);
        },
    )
    .await;
}

/// On PostgreSQL, across two servers: the creator comes and goes on one,
/// the other lists the game (the time they left is in the database).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_seek_outlives_its_creators_tab_on_postgres() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let (sql, connection) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls)
        .await
        .expect("a connection of its own");
    tokio::spawn(connection);
    let node = async || PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    let (a, b): (Arc<dyn Store>, Arc<dyn Store>) = (Arc::new(node().await), Arc::new(node().await));
    a_correspondence_seek_outlives_its_creators_tab(a, Some(b), async |id: &str, secs| {
        let secs = f64::from(u32::try_from(secs).unwrap());
        let aged = sql
            .execute(
                "UPDATE rooms SET updated_at = updated_at - make_interval(secs => $2),
                     listed_at = listed_at - make_interval(secs => $2) WHERE id = $1",
                &[&id, &secs],
            )
            .await
            .expect("aged");
        assert_eq!(aged, 1);
    })
    .await;
}
