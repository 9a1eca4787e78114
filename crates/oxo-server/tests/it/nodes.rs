//! Several servers on one PostgreSQL database, in this process: each node
//! is a hub with its own store connections and change feed, on a port of
//! its own, exactly as separate `oxo serve` processes would be (the
//! end-to-end test with real processes is in oxo-cli's tests).
//!
//! Each test starts a throwaway PostgreSQL cluster (Debian's `postgresql`,
//! installed by `scripts/install-services.sh`); without it they fail.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use oxo_server::id::GameId;
use oxo_server::room::RoomRecord;
use oxo_server::store::{Change, StoreFuture};
use oxo_server::{PgStore, Store, StoreEvent};
use oxo_test_support::{Client, InProcess, Postgres, seated_game};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common;

/// A node: a server on its own store.
struct Node {
    server: InProcess,
    client: Client,
}

impl Node {
    async fn start(db: &Postgres) -> Node {
        let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
        Node::with_store(Arc::new(store)).await
    }

    async fn with_store(store: Arc<dyn Store>) -> Node {
        let server = InProcess::start(store).await;
        let client = Client::new(server.addr);
        Node { server, client }
    }

    async fn game(&self, id: &str) -> Value {
        self.client.get_json(&format!("/api/games/{id}")).await
    }

    async fn play(&self, id: &str, token: &str, row: u32, col: u32) -> (u16, Value) {
        self.client
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                &json!({"row": row, "col": col}),
            )
            .await
    }
}

fn postgres() -> Postgres {
    Postgres::start().unwrap_or_else(|e| panic!("{e}"))
}

/// Game `id` as `node` shows it once it has reached `version`.
async fn until_version(node: &Node, id: &str, version: u64) -> Value {
    let what = format!("game {id} never reached version {version} here");
    common::eventually(what, async || {
        let game = node.game(id).await;
        if game["version"].as_u64() >= Some(version) {
            Ok(game)
        } else {
            Err(game)
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_node_serves_any_room_and_racing_moves_have_one_winner() {
    let db = postgres();
    let a = Node::start(&db).await;
    let b = Node::start(&db).await;
    assert_eq!(
        a.client
            .send("GET", "/readyz", None, "")
            .await
            .unwrap()
            .status,
        200
    );

    // Made on A, joined on B, played alternately through both.
    let game = seated_game(&a.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    let (id, x, o) = (game.id.as_str(), game.x.as_str(), game.o.as_str());
    assert_eq!(b.game(id).await["seats"]["o"], true);
    assert_eq!(a.play(id, x, 1, 1).await.0, 200);
    assert_eq!(
        b.play(id, o, 0, 0).await.0,
        200,
        "B knows of X's move at once"
    );
    assert_eq!(
        a.play(id, x, 2, 2).await.0,
        200,
        "A knows of O's move at once"
    );
    assert_eq!(until_version(&b, id, 5).await["board"], "O../.X./..X");

    // A read on another node right after a change was acknowledged never
    // shows the state before it (the change notice may not have arrived).
    for _ in 0..20 {
        let game = seated_game(&a.client, &json!({"size": "4x4", "k": 4}))
            .await
            .unwrap();
        let (id, x, o) = (game.id.as_str(), game.x.as_str(), game.o.as_str());
        b.game(id).await;
        for (ply, (node, reader, token)) in [(&a, &b, x), (&b, &a, o), (&a, &b, x)]
            .into_iter()
            .enumerate()
        {
            let (status, played) = node.play(id, token, 0, u32::try_from(ply).unwrap()).await;
            assert_eq!(status, 200, "{played}");
            let read = reader.game(id).await;
            assert_eq!(read["version"], played["game"]["version"], "{read}");
        }
    }

    // The same seat moving through both nodes at once: one move lands, the
    // other gets 409 with the game as it now stands.
    for round in 0..10 {
        let game = seated_game(&a.client, &json!({"size": "3x3"}))
            .await
            .unwrap();
        let (id, x) = (game.id.as_str(), game.x.as_str());
        b.game(id).await; // both nodes hold the room in memory
        let (one, two) = tokio::join!(a.play(id, x, 0, 0), b.play(id, x, 2, 2));
        let mut statuses = [one.0, two.0];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}: {one:?} {two:?}");
        let (won, lost) = if one.0 == 200 { (one, two) } else { (two, one) };
        assert_eq!(
            lost.1["game"], won.1["game"],
            "the 409 carries the winner's game"
        );
        let stored = db
            .psql(&format!("SELECT count(*) FROM moves WHERE room = '{id}'"))
            .unwrap();
        assert_eq!(stored.trim(), "1", "exactly one move stored");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_on_a_third_node_sees_every_move_at_once() {
    let db = postgres();
    let (a, b, c) = (
        Node::start(&db).await,
        Node::start(&db).await,
        Node::start(&db).await,
    );
    let game = seated_game(&a.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    let watch = game.game["watch"].as_str().unwrap().to_owned();
    let url = format!("ws://{}/api/games/{watch}/live", c.server.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut next_update = async || loop {
        // Nothing but the change feed brings another node's move here (no
        // poll), so its arrival is the check; the minute is only so a
        // broken feed fails instead of hanging.
        let frame = tokio::time::timeout(Duration::from_secs(60), socket.next())
            .await
            .expect("an update within a minute")
            .expect("the socket open")
            .unwrap();
        if let Message::Text(text) = frame {
            return serde_json::from_str::<Value>(&text).unwrap();
        }
    };
    assert_eq!(next_update().await["version"], 2);
    let moves = [
        (&a, &game.x, 1, 1),
        (&b, &game.o, 0, 0),
        (&a, &game.x, 0, 2),
    ];
    for (version, (node, token, row, col)) in (3..).zip(moves) {
        assert_eq!(node.play(&game.id, token, row, col).await.0, 200);
        let seen = next_update().await;
        assert_eq!(seen["version"], version, "{seen}");
        assert!(seen.get("seats").is_some());
    }
    // The record, read through the third node, has every move.
    let record = c
        .client
        .get_json(&format!("/api/games/{}/record", game.id))
        .await;
    assert_eq!(
        record["rounds"][0]["moves"],
        json!([[1, 1], [0, 0], [0, 2]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_lost_its_change_feed_serves_nothing_stale() {
    let db = postgres();
    let a = Node::start(&db).await;
    let b = Node::start(&db).await;
    let game = seated_game(&a.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    assert_eq!(b.game(&game.id).await["version"], 2);
    // Each node opens its feed beside its other connections, so the feeds
    // may still be on their way: wait for both before cutting them.
    let feeds = || {
        db.psql(&format!(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = '{}'",
            oxo_server::store::LISTENER_NAME
        ))
        .unwrap()
    };
    let both_open = async || match feeds().trim() {
        "2" => Ok(()),
        n => Err(format!("{n} open")),
    };
    common::eventually("the nodes never opened their feeds", both_open).await;
    // Cut every node's feed; B must not answer from memory while its feed
    // is down, and must catch up once it is back.
    let cut = db
        .psql(&format!(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE application_name = '{}'",
            oxo_server::store::LISTENER_NAME
        ))
        .unwrap();
    assert_eq!(cut.trim(), "2", "one feed per node");
    assert_eq!(a.play(&game.id, &game.x, 1, 1).await.0, 200);
    let seen = until_version(&b, &game.id, 3).await;
    assert_eq!(seen["board"], ".../.X./...");
    // Feeds back: a change on A is pushed to B again.
    common::eventually("the feeds never came back", both_open).await;
    assert_eq!(b.play(&game.id, &game.o, 0, 0).await.0, 200);
    assert_eq!(until_version(&a, &game.id, 4).await["board"], "O../.X./...");
}

/// A TCP proxy in front of PostgreSQL that can make the change feeds
/// through it go silent: their bytes stop flowing either way while the
/// connections stay open, as when the database's host dies or a NAT
/// forgets the connection (no reset ever arrives).
struct Proxy {
    addr: std::net::SocketAddr,
    /// How many listening connections have been opened through it.
    feeds: Arc<AtomicUsize>,
    /// Whether feeds are held silent: any listening connection, open or
    /// opened later, that passes a byte while this holds passes no more.
    held: Arc<AtomicBool>,
    /// What clients sent through it since [`Proxy::mark`], if called.
    sent: Arc<std::sync::Mutex<Option<Vec<u8>>>>,
}

impl Proxy {
    /// A proxy to PostgreSQL on 127.0.0.1:`port`.
    async fn start(port: u16) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let feeds: Arc<AtomicUsize> = Arc::default();
        let held: Arc<AtomicBool> = Arc::default();
        let (known, holding) = (feeds.clone(), held.clone());
        let sent: Arc<std::sync::Mutex<Option<Vec<u8>>>> = Arc::default();
        let recorder = sent.clone();
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let known = known.clone();
                let holding = holding.clone();
                let recorder = recorder.clone();
                tokio::spawn(async move {
                    use tokio::io::{AsyncReadExt, AsyncWriteExt};
                    // The cluster stops as the test ends.
                    let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await
                    else {
                        return;
                    };
                    let (mut from_client, to_client) = client.into_split();
                    let (from_server, mut to_server) = server.into_split();
                    // The startup message (its length first) names the
                    // connection's application: passed on, and a feed's
                    // connection noted.
                    let Ok(length) = from_client.read_u32().await else {
                        return;
                    };
                    let mut startup = vec![0; usize::try_from(length).unwrap().saturating_sub(4)];
                    if from_client.read_exact(&mut startup).await.is_err()
                        || to_server.write_u32(length).await.is_err()
                        || to_server.write_all(&startup).await.is_err()
                    {
                        return;
                    }
                    // A feed's connection goes silent while feeds are
                    // held; any other never does.
                    let name = oxo_server::store::LISTENER_NAME.as_bytes();
                    let silenced = if startup.windows(name.len()).any(|w| w == name) {
                        known.fetch_add(1, Ordering::SeqCst);
                        holding
                    } else {
                        Arc::new(AtomicBool::new(false))
                    };
                    let pump = |mut from: tokio::net::tcp::OwnedReadHalf,
                                mut to: tokio::net::tcp::OwnedWriteHalf,
                                silenced: Arc<AtomicBool>,
                                record: Option<Arc<std::sync::Mutex<Option<Vec<u8>>>>>| async move {
                        let mut buffer = vec![0; 64 * 1024];
                        loop {
                            let Ok(n @ 1..) = from.read(&mut buffer).await else {
                                return;
                            };
                            if silenced.load(Ordering::SeqCst) {
                                // Swallow this and everything after,
                                // holding both ends open.
                                match std::future::pending::<std::convert::Infallible>().await {}
                            }
                            if let Some(record) = &record
                                && let Some(sent) = record.lock().unwrap().as_mut()
                            {
                                sent.extend_from_slice(&buffer[..n]);
                            }
                            if to.write_all(&buffer[..n]).await.is_err() {
                                return;
                            }
                        }
                    };
                    tokio::spawn(pump(
                        from_client,
                        to_server,
                        silenced.clone(),
                        Some(recorder),
                    ));
                    tokio::spawn(pump(from_server, to_client, silenced, None));
                });
            }
        });
        Proxy {
            addr,
            feeds,
            held,
            sent,
        }
    }

    /// Record what clients send from now on.
    fn mark(&self) {
        *self.sent.lock().unwrap() = Some(Vec::new());
    }

    /// Whether clients sent `bytes` since [`Proxy::mark`].
    fn sent_since_mark(&self, bytes: &[u8]) -> bool {
        self.sent
            .lock()
            .unwrap()
            .as_ref()
            .is_some_and(|sent| sent.windows(bytes.len()).any(|w| w == bytes))
    }

    /// The URL of the database `oxo` through the proxy.
    fn url(&self) -> String {
        format!("postgres://postgres@{}/oxo", self.addr)
    }

    /// How many change feeds have been opened through it.
    fn feeds_opened(&self) -> usize {
        self.feeds.load(Ordering::SeqCst)
    }

    /// Silence every change feed through it, those open now and those
    /// opened until [`Proxy::release_feeds`]: a node's reconnects go
    /// silent too (each is let go by the node, and stays silent).
    fn hold_feeds(&self) {
        self.held.store(true, Ordering::SeqCst);
    }

    /// Let change feeds opened from now on through again.
    fn release_feeds(&self) {
        self.held.store(false, Ordering::SeqCst);
    }
}

/// `/readyz` on `node`: its status and body.
async fn readiness(node: &Node) -> (u16, String) {
    let answer = node.client.send("GET", "/readyz", None, "").await.unwrap();
    (answer.status, answer.body)
}

/// Wait until `node` is, or is not, in touch with the others through its
/// change feed.
async fn in_touch_becomes(node: &Node, in_touch: bool, what: &str) {
    common::eventually(what, async || match node.server.state.hub().in_touch() {
        now if now == in_touch => Ok(()),
        now => Err(format!("in touch: {now}")),
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_whose_change_feed_goes_silent_knows_it_and_claims_nothing() {
    let db = postgres();
    let proxy = Proxy::start(db.port()).await;
    let a = Node::start(&db).await;
    // B reaches the database through the proxy, and lets a seat be claimed
    // after 1 s (by then what it hears of presence must be right).
    let b = {
        let store = PgStore::connect(&proxy.url())
            .await
            .expect("PostgreSQL store");
        let config = oxo_server::HubConfig {
            claim_after: Duration::from_secs(1),
            ..oxo_server::HubConfig::default()
        };
        let server = InProcess::start_with(Arc::new(store), &config).await;
        let client = Client::new(server.addr);
        Node { server, client }
    };
    let game = seated_game(&a.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    let (id, x, o) = (game.id.as_str(), game.x.as_str(), game.o.as_str());
    assert_eq!(a.play(id, x, 1, 1).await.0, 200);
    assert_eq!(b.play(id, o, 0, 0).await.0, 200);
    // X to move, both having moved: a claim would win the round for O.
    let socket = |node: &Node, token: &str| {
        let url = format!(
            "ws://{}/api/games/{id}/live?token={token}",
            node.server.addr
        );
        async move { tokio_tungstenite::connect_async(url).await.unwrap().0 }
    };
    let mut o_on_b = socket(&b, o).await;
    // O claims the round through B.
    let claim = async |b: &Node| {
        b.client
            .call(
                "POST",
                &format!("/api/games/{id}/claim"),
                Some(o),
                &json!({}),
            )
            .await
    };
    common::eventually("B never opened its change feed", async || {
        match proxy.feeds_opened() {
            1 => Ok(()),
            n => Err(format!("{n} opened")),
        }
    })
    .await;

    // B's feed goes silent, and so does every feed B opens until it is
    // released; then X comes back, on A: B cannot hear of it.
    proxy.hold_feeds();
    let _x_on_a = socket(&a, x).await;
    // B finds out by itself, and stays out of touch while the hold lasts.
    in_touch_becomes(&b, false, "B never noticed its feed was silent").await;
    // It stays ready: it answers correctly (readiness is the database's
    // answer, not the feed's).
    assert_eq!(readiness(&b).await, (200, "ready".to_owned()));
    // A claim through B against X, whom B cannot see, is refused, saying why.
    let (status, refused) = claim(&b).await;
    assert_eq!(status, 409, "{refused}");
    let error = refused["error"].as_str().unwrap();
    assert!(
        error.contains("lost touch with the other servers"),
        "{error}"
    );
    assert_eq!(refused["game"]["status"], "playing", "{refused}");
    // Meanwhile every request through B rereads its room.
    let (status, played) = a.play(id, x, 2, 2).await;
    assert_eq!(status, 200, "{played}");
    assert_eq!(b.game(id).await["version"], played["game"]["version"]);
    // Still out of touch: the states above were seen while the hold held.
    assert!(!b.server.state.hub().in_touch());

    // The feeds are let through: B reconnects by itself, and moves on A
    // reach its sockets again.
    proxy.release_feeds();
    in_touch_becomes(&b, true, "B never reconnected its feed").await;
    assert_eq!(readiness(&b).await, (200, "ready".to_owned()));
    assert_eq!(b.play(id, o, 0, 1).await.0, 200);
    // X's presence on A reaches B again (A repeats it every few seconds):
    // now a claim is refused because X is here.
    presence_becomes(
        &mut o_on_b,
        json!({"x": true, "o": true}),
        "B hears of X on A",
    )
    .await;
    let (status, refused) = claim(&b).await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("is connected"),
        "{refused}"
    );
    let (status, played) = a.play(id, x, 2, 0).await;
    assert_eq!(status, 200, "{played}");
    let version = played["game"]["version"].as_u64().unwrap();
    let pushed = loop {
        let update = common::next_update(&mut o_on_b, common::PATIENCE).await;
        if update["version"].as_u64() >= Some(version) {
            break update;
        }
    };
    assert_eq!(pushed["board"], "OO./.X./X.X", "{pushed}");
}

#[tokio::test]
async fn a_database_that_takes_connections_and_never_answers_is_given_up_on() {
    // A port that accepts connections and never says a word, as a hung
    // server or a half-dead host would.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let _held = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = silent.accept().await {
            held.push(connection);
        }
    });
    let url = format!("postgres://postgres@{addr}/oxo?connect_timeout=1");
    let failed = tokio::time::timeout(common::PATIENCE, PgStore::connect(&url))
        .await
        .expect("connect gives up by itself")
        .expect_err("nothing to connect to");
    assert_eq!(
        failed.to_string(),
        format!("PostgreSQL at {addr} did not answer within 1 s")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_database_does_not_hold_up_a_shutdown() {
    let db = postgres();
    // The node goes through a proxy that shows what it sends.
    let proxy = Proxy::start(db.port()).await;
    let store = PgStore::connect(&proxy.url())
        .await
        .expect("PostgreSQL store");
    let node = Node::with_store(Arc::new(store)).await;
    let game = seated_game(&node.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    // Each read asks the stored version, on the pool's connections in
    // turn: these open all of them, so that a query sent later is sent as
    // it is (a new connection would first prepare the store's statements).
    for _ in 0..16 {
        node.game(&game.id).await;
    }
    // Another client holds the rooms table for as long as this test runs:
    // every read and write of the node waits.
    let (locker, connection) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    locker
        .batch_execute("BEGIN; LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    proxy.mark();
    let client = node.client.clone();
    let (id, x) = (game.id.clone(), game.x.clone());
    let mover = tokio::spawn(async move {
        client
            .try_call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(&x),
                &json!({"row": 1, "col": 1}),
            )
            .await
    });
    // The flags' sweep (every second) is sent and waits too.
    common::eventually("the flags' sweep never waited on the lock", async || {
        if proxy.sent_since_mark(b"SELECT id FROM rooms WHERE deadline") {
            Ok(())
        } else {
            Err("not sent yet")
        }
    })
    .await;
    // Told to stop, the node stops after its grace, whatever still waits.
    tokio::time::timeout(common::PATIENCE, node.server.stop())
        .await
        .expect("the node stopped although the database stalls")
        .unwrap();
    // The move could not be made: it was answered 503 (outcome unknown)
    // or its connection was closed unanswered, never 200.
    let answer = tokio::time::timeout(common::PATIENCE, mover)
        .await
        .expect("the move's connection ended")
        .unwrap();
    if let Ok((status, body)) = answer {
        assert_eq!(status, 503, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn computer_moves_happen_once_with_several_nodes() {
    let db = postgres();
    let nodes = [
        Node::start(&db).await,
        Node::start(&db).await,
        Node::start(&db).await,
    ];
    for _ in 0..5 {
        let (status, created) = nodes[0]
            .client
            .call(
                "POST",
                "/api/games",
                None,
                &json!({"size": "3x3", "opponent": "random"}),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let x = created["token"].as_str().unwrap().to_owned();
        for node in &nodes {
            node.game(&id).await; // every node holds the room
        }
        // X plays through each node in turn, always the first empty cell,
        // and waits for the computer's reply.
        let mut version = 1;
        for turn in 0.. {
            let node = &nodes[turn % nodes.len()];
            let game = until_version(node, &id, version).await;
            if game["status"] != "playing" {
                break;
            }
            assert_eq!(game["next"], "x", "{game}");
            let board = game["board"].as_str().unwrap().replace('/', "");
            let cell = board.find('.').unwrap();
            let (row, col) = (
                u32::try_from(cell / 3).unwrap(),
                u32::try_from(cell % 3).unwrap(),
            );
            let (status, after) = node.play(&id, &x, row, col).await;
            assert_eq!(status, 200, "{after}");
            // While the round goes on, the computer replies: one version more.
            version = after["game"]["version"].as_u64().unwrap()
                + u64::from(after["game"]["status"] == "playing");
        }
        // Every ply stored once, in turn: X, O, X, ...
        let stored = db
            .psql(&format!(
                "SELECT string_agg(ply::text, ',' ORDER BY ply) FROM moves WHERE room = '{id}'"
            ))
            .unwrap();
        let plies: Vec<u32> = stored
            .trim()
            .split(',')
            .map(|p| p.parse().unwrap())
            .collect();
        assert_eq!(
            plies,
            (1..=u32::try_from(plies.len()).unwrap()).collect::<Vec<_>>()
        );
        let claimed = db
            .psql(&format!(
                "SELECT claimed_by IS NULL FROM rooms WHERE id = '{id}'"
            ))
            .unwrap();
        assert_eq!(claimed.trim(), "t", "no claim left behind");
    }
}

/// A store that behaves like a node dying right after it claimed a
/// computer turn: the claim is taken in the database, then nothing more
/// (no renewal, no commit) ever completes.
struct DiesAfterClaiming {
    inner: PgStore,
    claims: AtomicUsize,
    won: Arc<std::sync::atomic::AtomicBool>,
}

impl Store for DiesAfterClaiming {
    fn commit(&self, change: Change) -> StoreFuture<()> {
        if self.claims.load(Ordering::SeqCst) > 0 {
            return Box::pin(std::future::pending());
        }
        self.inner.commit(change)
    }
    fn load(&self, id: &GameId) -> StoreFuture<Option<RoomRecord>> {
        self.inner.load(id)
    }
    fn load_watch(&self, watch: &GameId) -> StoreFuture<Option<RoomRecord>> {
        self.inner.load_watch(watch)
    }
    fn computer_turns(&self) -> StoreFuture<Vec<GameId>> {
        self.inner.computer_turns()
    }
    fn due(&self, now: u64) -> StoreFuture<Vec<GameId>> {
        self.inner.due(now)
    }
    fn lobby(&self, present: &[GameId]) -> StoreFuture<oxo_server::store::LobbyRows> {
        self.inner.lobby(present)
    }
    fn load_entry(&self, entry: &GameId) -> StoreFuture<Option<GameId>> {
        self.inner.load_entry(entry)
    }
    fn seen(&self, id: &GameId) -> StoreFuture<()> {
        self.inner.seen(id)
    }
    fn rounds(&self, id: &GameId) -> StoreFuture<Vec<Vec<oxo_core::Cell>>> {
        self.inner.rounds(id)
    }
    fn endings(&self, id: &GameId) -> StoreFuture<Vec<(u32, oxo_server::room::Ending)>> {
        self.inner.endings(id)
    }
    fn shared(&self) -> bool {
        true
    }
    fn follow(&self) -> Option<tokio::sync::mpsc::Receiver<StoreEvent>> {
        self.inner.follow()
    }
    fn claim(&self, id: &GameId, version: u64, lease: Duration) -> StoreFuture<bool> {
        if self.claims.fetch_add(1, Ordering::SeqCst) > 0 {
            return Box::pin(std::future::pending());
        }
        let claim = self.inner.claim(id, version, lease);
        let won = self.won.clone();
        Box::pin(async move {
            let claimed = claim.await?;
            won.store(claimed, Ordering::SeqCst);
            Ok(claimed)
        })
    }
    fn ping(&self) -> StoreFuture<()> {
        self.inner.ping()
    }

    fn prune(
        &self,
        older_than: Duration,
        keep: std::collections::HashSet<GameId>,
    ) -> StoreFuture<usize> {
        self.inner.prune(older_than, keep)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_move_claimed_by_a_node_that_died_is_made_by_another() {
    let db = postgres();
    let dying = Arc::new(DiesAfterClaiming {
        inner: PgStore::connect(&db.url()).await.unwrap(),
        claims: AtomicUsize::new(0),
        won: Arc::default(),
    });
    let a = Node::with_store(dying.clone()).await;
    let b = Node::start(&db).await;
    let (status, created) = a
        .client
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"size": "3x3", "opponent": "random"}),
        )
        .await;
    assert_eq!(status, 201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let started = Instant::now();
    assert_eq!(a.play(&id, &x, 1, 1).await.0, 200);
    // A claims the reply and goes silent (B has not touched the room, so
    // it cannot claim first)...
    while !dying.won.load(Ordering::SeqCst) {
        assert!(
            started.elapsed() < common::PATIENCE,
            "A never claimed the turn"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // ...and B takes it up once the lease lapses (5 s) and its sweep
    // (every 2 s) finds the turn.
    let game = until_version(&b, &id, 3).await;
    assert_eq!(game["next"], "x", "{game}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(4),
        "B waited for the lease: {waited:?}"
    );
    let stored = db
        .psql(&format!("SELECT count(*) FROM moves WHERE room = '{id}'"))
        .unwrap();
    assert_eq!(stored.trim(), "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_starting_together_migrate_once_and_a_newer_schema_is_refused() {
    let db = postgres();
    let url = db.url();
    let (a, b, c) = tokio::join!(
        PgStore::connect(&url),
        PgStore::connect(&url),
        PgStore::connect(&url)
    );
    for store in [a, b, c] {
        store.expect("every node starts");
    }
    assert_eq!(
        db.psql("SELECT version FROM oxo_schema").unwrap().trim(),
        "11"
    );
    assert_eq!(
        db.psql("SELECT count(*) FROM oxo_schema").unwrap().trim(),
        "1"
    );
    db.psql("UPDATE oxo_schema SET version = 99").unwrap();
    let err = PgStore::connect(&url).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the database has schema version 99; this oxo knows up to 11"
    );
    let err = PgStore::connect("postgres://postgres@127.0.0.1:1/oxo")
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("PostgreSQL: "), "{err}");
    let err = PgStore::connect("postgres://[nonsense").await.unwrap_err();
    assert!(err.to_string().contains("bad database URL"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_and_rematch_offers_work_across_nodes() {
    let db = postgres();
    let (a, b) = (Node::start(&db).await, Node::start(&db).await);
    // Opened on A, listed and joined through B.
    let (status, created) = a
        .client
        .call("POST", "/api/games", None, &json!({"listed": true}))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let lobby = b.client.get_json("/api/lobby").await;
    let entry = lobby["open"][0]["entry"].as_str().unwrap().to_owned();
    let (status, joined) = crate::lobby_presence::join(&b.client, &entry).await;
    assert_eq!(status, 200, "{joined}");
    let o = joined["token"].as_str().unwrap().to_owned();
    assert_eq!(a.game(&id).await["seats"]["o"], true, "A sees the join");
    let lobby = a.client.get_json("/api/lobby").await;
    assert_eq!(lobby["open"], json!([]), "{lobby}");
    assert_eq!(lobby["live"][0]["watch"], created["game"]["watch"]);

    // X wins through A; X offers a rematch through A, O accepts through B.
    for (node, token, row, col) in [
        (&a, &x, 0, 0),
        (&b, &o, 1, 0),
        (&a, &x, 0, 1),
        (&b, &o, 1, 1),
        (&a, &x, 0, 2),
    ] {
        assert_eq!(node.play(&id, token, row, col).await.0, 200);
    }
    let rematch = format!("/api/games/{id}/rematch");
    let (status, offered) = a.client.call("POST", &rematch, Some(&x), &json!({})).await;
    assert_eq!((status, &offered["game"]["rematch"]), (200, &json!("x")));
    let (status, next) = b.client.call("POST", &rematch, Some(&o), &json!({})).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(
        (&next["game"]["round"], &next["game"]["rematch"]),
        (&json!(2), &Value::Null)
    );
    assert_eq!(until_version(&a, &id, 9).await["round"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_on_another_node_is_seen_coming_and_going() {
    let db = postgres();
    let (a, b) = (Node::start(&db).await, Node::start(&db).await);
    let game = seated_game(&a.client, &json!({"size": "3x3"}))
        .await
        .unwrap();
    let socket = |node: &Node, query: String| {
        let url = format!(
            "ws://{}/api/games/{}/live?{query}",
            node.server.addr, game.id
        );
        async move { tokio_tungstenite::connect_async(url).await.unwrap().0 }
    };
    let mut x = socket(&a, format!("token={}", game.x)).await;
    presence_becomes(&mut x, json!({"x": true, "o": false}), "A sees X").await;
    let mut o = socket(&b, format!("token={}", game.o)).await;
    // Each node hears of the other's seat through the store's change feed,
    // so a socket may first see a state from before that news: wait for
    // the state itself, not for the first message.
    presence_becomes(&mut o, json!({"x": true, "o": true}), "B hears of X on A").await;
    presence_becomes(&mut x, json!({"x": true, "o": true}), "A hears of O on B").await;
    o.close(None).await.unwrap();
    drop(o);
    presence_becomes(&mut x, json!({"x": true, "o": false}), "and of O leaving").await;
}

/// Read presence messages on `socket` until one says `expected`; fails,
/// saying `what`, if the socket ends or nothing arrives for a minute.
async fn presence_becomes(
    socket: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    expected: Value,
    what: &str,
) {
    let mut seen = Vec::new();
    while seen.len() < 20 {
        let now = presence(socket).await;
        if now == expected {
            return;
        }
        seen.push(now);
    }
    panic!("{what}: never {expected}, only {seen:?}");
}

/// The next presence message on a live socket (GAMEs are skipped).
async fn presence(
    socket: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(60), socket.next())
            .await
            .expect("a message within a minute")
            .unwrap()
            .unwrap();
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if let Some(p) = value.get("presence") {
                return json!({"x": p["x"], "o": p["o"]});
            }
        }
    }
}

/// A new room between two people, as a change, listed under `entry` if
/// given.
fn new_room(id: &str, entry: Option<&str>) -> Change {
    use oxo_server::room::{Opponent, Room};
    let mut room = Room::new(
        GameId::from_trusted(id),
        GameId::from_trusted(&format!("watch-{id}")),
        oxo_core::Rules::default(),
        Opponent::Human,
        oxo_core::Player::X,
        oxo_server::id::Token::from_trusted("tx").hash(),
    );
    if let Some(entry) = entry {
        room = room.listed(GameId::from_trusted(entry));
    }
    Change::new(&room, oxo_server::store::ChangeKind::Create)
}

/// Send every change of `changes` before awaiting any: the committer
/// finds them waiting together.
async fn commit_at_once(
    store: &PgStore,
    changes: &[Change],
) -> Vec<Result<(), oxo_server::StoreError>> {
    let pending: Vec<_> = changes.iter().map(|c| store.commit(c.clone())).collect();
    futures_util::future::join_all(pending).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_that_cannot_reach_the_database_says_why_once() {
    let db = postgres();
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    store.commit(new_room("before", None)).await.unwrap();
    // The database refuses new connections, and the node's are cut (from
    // another database: one cannot close itself).
    let admin_url = db.url().replace("/oxo", "/postgres");
    let (admin, connection) = tokio_postgres::connect(&admin_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    admin
        .batch_execute(
            "ALTER DATABASE oxo ALLOW_CONNECTIONS false; \
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE application_name = 'oxo serve'",
        )
        .await
        .unwrap();
    // Once the pool has seen its connections close, a commit needs a new
    // one and fails for the database's reason, said once.
    let mut n = 0;
    let failed = common::eventually("no commit failed for want of a connection", async || {
        n += 1;
        match store.commit(new_room(&format!("after{n}"), None)).await {
            Err(e @ oxo_server::StoreError::Postgres(_)) => Ok(e),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(
        failed.to_string(),
        "PostgreSQL: database \"oxo\" is not currently accepting connections (55000)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_committed_together_fail_alone() {
    let db = postgres();
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    store.commit(new_room("early", None)).await.unwrap();
    // Sent at once, so the committer takes many of them in one
    // transaction: a repeat of a stored room (a conflict: its statement
    // writes nothing) and a second room with a taken lobby entry (an
    // error, which rolls its whole batch back) among fifty good ones.
    let mut changes = vec![
        new_room("early", None),
        new_room("listed-a", Some("entry1")),
    ];
    changes.extend((0..50).map(|i| new_room(&format!("room{i}"), None)));
    changes.push(new_room("listed-b", Some("entry1")));
    let results = commit_at_once(&store, &changes).await;
    assert!(
        matches!(results[0], Err(oxo_server::StoreError::Conflict(_))),
        "{:?}",
        results[0]
    );
    assert!(results[1].is_ok(), "{:?}", results[1]);
    let last = results.last().unwrap();
    assert!(
        matches!(last, Err(oxo_server::StoreError::Postgres(e)) if e.contains("duplicate key")),
        "{last:?}"
    );
    for (change, result) in changes.iter().zip(&results).skip(1).take(51) {
        assert!(result.is_ok(), "{}: {result:?}", change.room.id.as_str());
        assert_eq!(
            store.load(&change.room.id).await.unwrap().as_ref(),
            Some(&change.room),
            "stored as sent"
        );
    }
    assert_eq!(
        store.load(&GameId::from_trusted("listed-b")).await.unwrap(),
        None
    );
    // With no error in the batch, it commits whole: the repeat alone is a
    // conflict.
    let mut changes = vec![new_room("room0", None)];
    changes.extend((0..20).map(|i| new_room(&format!("more{i}"), None)));
    let results = commit_at_once(&store, &changes).await;
    assert!(
        matches!(results[0], Err(oxo_server::StoreError::Conflict(_))),
        "{:?}",
        results[0]
    );
    for (change, result) in changes.iter().zip(&results).skip(1) {
        assert!(result.is_ok(), "{}: {result:?}", change.room.id.as_str());
        assert!(store.load(&change.room.id).await.unwrap().is_some());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_value_that_cannot_be_read_is_damage() {
    let db = postgres();
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    store.commit(new_room("odd", None)).await.unwrap();
    drop(store);
    // A column holding what the store cannot read as its type, as a
    // foreign or botched change to the database leaves it.
    db.psql("ALTER TABLE rooms ALTER COLUMN round TYPE numeric")
        .unwrap();
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    let err = store.load(&GameId::from_trusted("odd")).await.unwrap_err();
    assert!(
        matches!(err, oxo_server::StoreError::Corrupt(_)),
        "damage, not unavailable: {err}"
    );
    store.ping().await.expect("the others are still served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_fails_while_writes_fail_and_comes_back_with_them() {
    let db = postgres();
    let store = PgStore::connect(&db.url()).await.expect("PostgreSQL store");
    store.commit(new_room("before", None)).await.unwrap();
    store.ping().await.unwrap();
    // The database takes reads but refuses every write (as a full disk or
    // a standby does), on the connections already open too.
    let read_only = |on: &str| {
        db.psql(&format!(
            "ALTER SYSTEM SET default_transaction_read_only = {on}"
        ))
        .unwrap();
        db.psql("SELECT pg_reload_conf()").unwrap();
    };
    read_only("on");
    // The reload reaches each connection soon, not at once.
    let mut attempt = 0;
    let err = common::eventually("writes never refused", async || {
        attempt += 1;
        match store
            .commit(new_room(&format!("during{attempt}"), None))
            .await
        {
            Err(e) => Ok(e),
            Ok(()) => Err("a write went through"),
        }
    })
    .await;
    assert!(err.to_string().contains("25006"), "{err}");
    assert!(store.ping().await.is_err(), "not ready while writes fail");
    assert!(
        store
            .load(&GameId::from_trusted("before"))
            .await
            .unwrap()
            .is_some()
    );
    read_only("off");
    common::eventually("not ready again once writes work", async || {
        store.ping().await
    })
    .await;
    store.commit(new_room("after", None)).await.unwrap();
}

/// Pruning on a shared database: the games never played go with their
/// endings, whichever node made them, and one a node still holds comes back
/// whole with that node's next write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_never_played_are_pruned_and_a_held_one_comes_back_whole() {
    let db = postgres();
    let a = Node::start(&db).await;
    let b = Node::start(&db).await;
    let joined = seated_game(&a.client, &json!({})).await.unwrap();
    let played = seated_game(&a.client, &json!({})).await.unwrap();
    assert_eq!(a.play(&played.id, &played.x, 1, 1).await.0, 200);
    let create = json!({"opponent": "human"});
    let (status, cancelled) = a.client.call("POST", "/api/games", None, &create).await;
    assert_eq!(status, 201, "{cancelled}");
    let cancelled_id = cancelled["game"]["id"].as_str().unwrap();
    let abort = format!("/api/games/{cancelled_id}/abort");
    let token = cancelled["token"].as_str().unwrap();
    let (status, body) = a.client.call("POST", &abort, Some(token), &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let (status, waiting) = b.client.call("POST", "/api/games", None, &create).await;
    assert_eq!(status, 201, "{waiting}");
    let waiting_id = waiting["game"]["id"].as_str().unwrap();
    // Another node prunes every game never played, once they are older
    // than a day by the database's clock (made so here).
    let pruner = PgStore::connect(&db.url()).await.unwrap();
    let (admin, connection) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let age = async || {
        admin
            .batch_execute("UPDATE rooms SET updated_at = updated_at - interval '2 days'")
            .await
            .unwrap();
    };
    let day = Duration::from_secs(24 * 60 * 60);
    let none = std::collections::HashSet::new();
    assert_eq!(pruner.prune(day, none.clone()).await.unwrap(), 0);
    age().await;
    assert_eq!(pruner.prune(day, none.clone()).await.unwrap(), 3);
    for (id, kept) in [
        (joined.id.as_str(), false),
        (played.id.as_str(), true),
        (cancelled_id, false),
        (waiting_id, false),
    ] {
        let id = GameId::parse(id).unwrap();
        assert_eq!(pruner.load(&id).await.unwrap().is_some(), kept, "{id}");
    }
    // A node that does not hold a pruned game finds none (one that holds
    // it serves it until it leaves memory unused, or writes it back).
    let c = Node::start(&db).await;
    for id in [cancelled_id, waiting_id] {
        let gone = format!("/api/games/{id}");
        let status = c.client.send("GET", &gone, None, "").await.unwrap().status;
        assert_eq!(status, 404, "{id}");
    }
    // Node a still holds the joined game: its next move writes it back.
    assert_eq!(a.play(&joined.id, &joined.x, 0, 0).await.0, 200);
    let game = c.game(&joined.id).await;
    assert_eq!(game["moves"], json!([[0, 0]]), "{game}");
    assert_eq!(pruner.prune(Duration::ZERO, none.clone()).await.unwrap(), 0);
    // More rooms than one statement's page: every page is looked at.
    let many: Vec<Change> = (0..1500)
        .map(|i| new_room(&format!("many{i}"), None))
        .collect();
    assert!(
        commit_at_once(&pruner, &many)
            .await
            .iter()
            .all(Result::is_ok)
    );
    age().await;
    assert_eq!(pruner.prune(day, none).await.unwrap(), 1500);
}
