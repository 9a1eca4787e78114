//! Several real `oxo serve` processes on one PostgreSQL database: players
//! and spectators on different nodes, nodes killed with SIGKILL mid-game,
//! and nothing acknowledged lost.
//!
//! Each test starts a throwaway PostgreSQL cluster (Debian's `postgresql`,
//! installed by `scripts/install-services.sh`); without it they fail.

use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use oxo_test_support::{BlockingClient, Postgres, ServeProcess};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use oxo_test_support::PATIENCE;

/// `oxo serve` on `db` without rate limits: the tests' players all come
/// from 127.0.0.1.
fn args(db: &str) -> Vec<&str> {
    vec![
        "--db",
        db,
        "--creates-per-minute",
        "0",
        "--writes-per-second",
        "0",
    ]
}

fn postgres() -> Postgres {
    Postgres::start().unwrap_or_else(|e| panic!("{e}"))
}

/// A running node and a client of it.
struct Node {
    process: ServeProcess,
    client: BlockingClient,
}

impl Node {
    fn start(db: &Postgres) -> Node {
        Node::start_with(db, &[])
    }

    fn start_with(db: &Postgres, extra: &[&str]) -> Node {
        let url = db.url();
        let mut args = args(&url);
        args.extend_from_slice(extra);
        let process = ServeProcess::start(Path::new(env!("CARGO_BIN_EXE_oxo")), &args).unwrap();
        let client = BlockingClient::new(process.addr);
        Node { process, client }
    }

    fn call(&self, method: &str, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        self.client.call(method, path, token, body)
    }

    fn play(&self, id: &str, token: &str, row: usize, col: usize) -> (u16, Value) {
        self.call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &json!({"row": row, "col": col}),
        )
    }
}

/// Follow a game's live view on `addr` in a thread of its own; every GAME
/// it is sent arrives on the returned channel.
fn spectate(addr: std::net::SocketAddr, watch: &str) -> mpsc::Receiver<Value> {
    let (updates, received) = mpsc::channel();
    let url = format!("ws://{addr}/api/games/{watch}/live");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
            while let Some(Ok(frame)) = socket.next().await {
                if let Message::Text(text) = frame
                    && updates.send(serde_json::from_str(&text).unwrap()).is_err()
                {
                    return;
                }
            }
        });
    });
    received
}

/// The stored moves of game `id`'s first round, as `row,col` in ply order.
fn stored_moves(db: &Postgres, id: &str) -> Vec<String> {
    let text = db
        .psql(&format!(
            "SELECT row || ',' || col FROM moves WHERE room = '{id}' AND round = 1 ORDER BY ply"
        ))
        .unwrap();
    text.lines().map(str::to_owned).collect()
}

#[test]
fn three_nodes_two_players_a_spectator_and_a_sigkill() {
    let db = postgres();
    let a = Node::start(&db);
    let mut b = Some(Node::start(&db));
    let c = Node::start(&db);
    let seated = a
        .client
        .seated_game(&json!({"size": "5x5", "k": 4}))
        .unwrap();
    let (id, x, o) = (seated.id.as_str(), seated.x.as_str(), seated.o.as_str());
    let watch = seated.game["watch"].as_str().unwrap();
    let spectator = spectate(c.process.addr, watch);
    let first = spectator.recv_timeout(PATIENCE).unwrap();
    assert_eq!(first["version"], 2);

    // X plays through A, O through B; C's spectator sees every move.
    // Neither finishes a line: X fills rows 0 and 2 from the left, O rows
    // 1 and 3, four moves each before B is killed.
    let x_cells = [(0, 0), (0, 1), (2, 0), (2, 1), (0, 3), (2, 3)];
    let o_cells = [(1, 0), (1, 1), (3, 0), (3, 1), (1, 3), (3, 3)];
    let mut acknowledged = Vec::new();
    let mut version = 2;
    for (turn, (xc, oc)) in x_cells.iter().zip(&o_cells).enumerate() {
        if turn == 4 {
            // O's node dies mid-game; O carries on through C.
            b.take().unwrap().process.kill();
        }
        let o_node = b.as_ref().unwrap_or(&c);
        for (node, token, cell) in [(&a, x, xc), (o_node, o, oc)] {
            let (status, body) = node.play(id, token, cell.0, cell.1);
            assert_eq!(status, 200, "{body}");
            acknowledged.push(format!("{},{}", cell.0, cell.1));
            version = body["game"]["version"].as_u64().unwrap();
            let seen = spectator
                .recv_timeout(PATIENCE)
                .expect("the spectator on C sees the move");
            assert_eq!(seen["version"], version, "{seen}");
        }
        if let Some(b) = &b {
            // B follows X's moves made through A.
            let game = b.client.get_json(&format!("/api/games/{id}"));
            assert_eq!(game["version"], version);
        }
    }
    assert_eq!(stored_moves(&db, id), acknowledged);
    let game = c.client.get_json(&format!("/api/games/{id}"));
    assert_eq!(game["board"], "XX.X./OO.O./XX.X./OO.O./.....");
}

/// The moves acknowledged to the players, per game: (ply, `row,col`).
type Ledger = Arc<Mutex<HashMap<String, Vec<(usize, String)>>>>;

#[test]
fn twenty_sigkills_of_random_nodes_under_load_lose_no_acknowledged_move() {
    const KILLS: usize = 20;
    const PLAYERS: usize = 4;
    let db = postgres();
    let nodes: Arc<Mutex<Vec<Option<Node>>>> =
        Arc::new(Mutex::new((0..3).map(|_| Some(Node::start(&db))).collect()));
    let ledger: Ledger = Arc::default();
    let computer_games: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));

    // Players: each plays game after game on 5x5 k=4, every request to a
    // node picked in turn among those alive (a load balancer without
    // sticky sessions); half the games are against the random computer.
    let addrs = |nodes: &Mutex<Vec<Option<Node>>>| -> Vec<std::net::SocketAddr> {
        nodes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .flatten()
            .map(|n| n.process.addr)
            .collect()
    };
    let players: Vec<_> = (0..PLAYERS)
        .map(|p| {
            let (nodes, ledger, computer_games, stop) = (
                nodes.clone(),
                ledger.clone(),
                computer_games.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let mut turn = p;
                let mut pick = || {
                    let live = addrs(&nodes);
                    turn += 1;
                    live[turn % live.len()]
                };
                let mut games = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    play_one_game(&mut pick, p % 2 == 1, &ledger, &computer_games);
                    games += 1;
                }
                games
            })
        })
        .collect();

    // The killer: every 300-700 ms, SIGKILL a node and start another.
    let started = Instant::now();
    for kill in 0..KILLS {
        std::thread::sleep(Duration::from_millis(300 + (kill as u64 * 37) % 400));
        let victim = (kill * 7 + 1) % 3;
        let dead = nodes.lock().unwrap_or_else(PoisonError::into_inner)[victim].take();
        dead.unwrap().process.kill();
        let fresh = Node::start(&db);
        nodes.lock().unwrap_or_else(PoisonError::into_inner)[victim] = Some(fresh);
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let games: usize = players.into_iter().map(|p| p.join().unwrap()).sum();
    eprintln!(
        "{KILLS} kills in {:.1} s, {games} games",
        started.elapsed().as_secs_f64()
    );

    // Every acknowledged move is stored, in order.
    let ledger = ledger.lock().unwrap_or_else(PoisonError::into_inner);
    let mut moves = 0;
    for (id, acknowledged) in ledger.iter() {
        let stored = stored_moves(&db, id);
        for (ply, cell) in acknowledged {
            assert_eq!(
                stored.get(ply - 1),
                Some(cell),
                "game {id}: move {ply} was acknowledged as {cell}; stored: {stored:?}"
            );
        }
        moves += acknowledged.len();
    }
    eprintln!(
        "{moves} acknowledged moves in {} games all stored",
        ledger.len()
    );
    assert!(
        moves > 100,
        "too little load to mean anything: {moves} moves"
    );
    assert!(!computer_games.lock().unwrap().is_empty());

    // No room is left waiting for the computer: the surviving nodes take
    // up turns claimed by killed ones once their lease lapses.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let stuck = db
            .psql("SELECT count(*) FROM rooms WHERE computer_turn")
            .unwrap();
        if stuck.trim() == "0" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} rooms still wait for the computer",
            stuck.trim()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One game, every request to the node `pick` gives; requests that fail
/// because the node died are sent again to the next one. Moves are
/// recorded in `ledger` once acknowledged.
fn play_one_game(
    pick: &mut impl FnMut() -> std::net::SocketAddr,
    computer: bool,
    ledger: &Ledger,
    computer_games: &Mutex<Vec<String>>,
) {
    let deadline = Instant::now() + PATIENCE;
    let mut send = |method: &str, path: &str, token: Option<&str>, body: &Value| loop {
        assert!(
            Instant::now() < deadline,
            "{method} {path}: no node answered"
        );
        let client = BlockingClient::new(pick());
        if let Ok(answer) = client.try_call(method, path, token, body) {
            return answer;
        }
    };
    let opponent = if computer { "random" } else { "human" };
    let (status, created) = send(
        "POST",
        "/api/games",
        None,
        &json!({"size": "5x5", "k": 4, "opponent": opponent}),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();
    let o = if computer {
        computer_games.lock().unwrap().push(id.clone());
        None
    } else {
        // A join sent twice (the first answer lost with its node) finds the
        // seat taken: then this game is dropped from the count.
        let (status, joined) = send(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            None,
            &json!({ "invite": created["invite"] }),
        );
        if status != 200 {
            return;
        }
        Some(joined["token"].as_str().unwrap().to_owned())
    };
    let mut acknowledged = Vec::new();
    for _ in 0..200 {
        let (_, game) = send("GET", &format!("/api/games/{id}"), None, &Value::Null);
        if game["status"] != "playing" {
            break;
        }
        let token = match (game["next"].as_str(), &o) {
            (Some("x"), _) => &x,
            (Some("o"), Some(o)) => o,
            _ => {
                // The computer is thinking (or its node died holding the
                // claim): wait a little.
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        let board = game["board"].as_str().unwrap().replace('/', "");
        let empty: Vec<usize> = board
            .char_indices()
            .filter(|(_, c)| *c == '.')
            .map(|(i, _)| i)
            .collect();
        let cell = empty[(acknowledged.len() * 7) % empty.len()];
        let version = game["version"].as_u64().unwrap();
        let (status, _) = send(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &json!({"row": cell / 5, "col": cell % 5, "version": version}),
        );
        if status == 200 {
            // Only moves whose answer arrived count as acknowledged; the
            // others may or may not have landed, and the next GET says.
            // The version sent pins the board the move was made on.
            acknowledged.push((marks(&game) + 1, format!("{},{}", cell / 5, cell % 5)));
        }
    }
    ledger
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, acknowledged);
}

/// How many marks the board of `game` holds.
fn marks(game: &Value) -> usize {
    game["board"]
        .as_str()
        .unwrap()
        .chars()
        .filter(|c| matches!(c, 'X' | 'O'))
        .count()
}

#[test]
fn a_game_through_haproxy_goes_on_when_a_node_dies() {
    let db = postgres();
    // As docs/manual/serve.md says: behind HAProxy, with --trust-proxy.
    let mut nodes: Vec<Option<Node>> = (0..3)
        .map(|_| Some(Node::start_with(&db, &["--trust-proxy"])))
        .collect();
    let backends: Vec<_> = nodes.iter().flatten().map(|n| n.process.addr).collect();
    let proxy = oxo_test_support::Haproxy::start(&backends).unwrap_or_else(|e| panic!("{e}"));
    let client = BlockingClient::new(proxy.addr());
    assert_eq!(client.send("GET", "/readyz", None, "").unwrap().status, 200);
    let seated = client.seated_game(&json!({"size": "4x4", "k": 4})).unwrap();
    let (id, x, o) = (seated.id.as_str(), seated.x.as_str(), seated.o.as_str());
    // X fills column 0 and 2, O columns 1 and 3, row by row: X wins with
    // its fourth mark; a node dies after the third move.
    let moves = [
        (x, 0, 0),
        (o, 0, 1),
        (x, 1, 0),
        (o, 1, 1),
        (x, 2, 0),
        (o, 2, 1),
        (x, 3, 0),
    ];
    let mut acknowledged = Vec::new();
    for (n, (token, row, col)) in moves.into_iter().enumerate() {
        if n == 3 {
            nodes[1].take().unwrap().process.kill();
        }
        // A request in flight to the dead node may fail before HAProxy
        // sees it is down: a move is sent again only with the version it
        // was meant for, so it can never land twice.
        let game = client.get_json(&format!("/api/games/{id}"));
        let version = game["version"].as_u64().unwrap();
        let body = json!({"row": row, "col": col, "version": version});
        let answer = (0..20).find_map(|_| {
            match client.try_call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                &body,
            ) {
                Ok((200, game)) => Some(game),
                Ok((409, refused))
                    if refused["game"]["version"].as_u64() == Some(version + 1)
                        && refused["game"]["last"] == json!([row, col]) =>
                {
                    // The lost answer's move did land.
                    Some(json!({"game": refused["game"].clone()}))
                }
                Ok((502 | 503, _)) | Err(_) => {
                    std::thread::sleep(Duration::from_millis(100));
                    None
                }
                Ok(other) => panic!(
                    "move {n}: {other:?}; stored: {:?} {:?}",
                    stored_moves(&db, id),
                    db.psql("select version, round, digest from rooms; select * from moves")
                ),
            }
        });
        let answer = answer.unwrap_or_else(|| panic!("move {n} never went through"));
        assert_eq!(answer["game"]["version"], version + 1);
        acknowledged.push(format!("{row},{col}"));
    }
    assert_eq!(stored_moves(&db, id), acknowledged);
    let game = client.get_json(&format!("/api/games/{id}"));
    assert_eq!(game["status"], "won", "{game}");
    assert_eq!(game["winner"], "x", "{game}");
}

#[test]
fn a_database_that_never_answers_is_exit_1_with_the_reason() {
    // A port that takes connections and never says a word (the kernel
    // completes them in the listen backlog; nobody reads).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("OXO_DB", format!("postgres://oxo@127.0.0.1:{port}/oxo"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // It gives up by itself; a generous bound, so that a server that waits
    // forever fails the test instead of hanging it.
    let deadline = std::time::Instant::now() + oxo_test_support::PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oxo serve still waits for a database that never answers");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "oxo: cannot open the database: PostgreSQL at 127.0.0.1:{port} did not answer within 5 s\n"
        )
    );
    drop(silent);
}

#[test]
fn an_unreachable_database_is_exit_1_with_the_reason() {
    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("OXO_DB", format!("postgres://oxo@127.0.0.1:{port}/oxo"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "oxo: cannot open the database: PostgreSQL: error connecting to server: \
         Connection refused (os error 111)\n"
    );
}
