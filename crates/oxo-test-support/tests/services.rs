//! The services of the multi-node tests start from Debian's packages:
//! a PostgreSQL cluster answers SQL, and HAProxy with `deploy/haproxy.cfg`
//! spreads requests over two servers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxo_server::MemoryStore;
use oxo_test_support::{Client, Haproxy, InProcess, Postgres};
use serde_json::json;

#[test]
fn postgres_starts_answers_sql_and_has_the_database_oxo() {
    let started = Instant::now();
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("PostgreSQL started in {:?}", started.elapsed());

    assert_eq!(pg.psql("SELECT 1").unwrap(), "1");
    assert_eq!(pg.psql("SELECT current_database()").unwrap(), "oxo");
    assert_eq!(pg.psql("SHOW max_connections").unwrap(), "200");
    assert_eq!(pg.psql("SHOW fsync").unwrap(), "on");
    assert_eq!(
        pg.url(),
        format!("postgres://postgres@127.0.0.1:{}/oxo", pg.port())
    );
    pg.psql("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2)")
        .unwrap();
    assert_eq!(
        pg.psql("SELECT n, n * 10 FROM t ORDER BY n").unwrap(),
        "1|10\n2|20"
    );

    let error = pg.psql("SELECT * FROM missing").unwrap_err();
    assert!(error.contains("missing"), "{error}");
}

#[test]
fn postgres_names_its_processes() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let pids = pg.pids().unwrap();
    // The postmaster and at least its checkpointer and WAL writer, each
    // named postgres. A short-lived backend may end between the listing
    // and the read (seen on a busy machine): it is no longer there to name.
    let mut named = 0;
    for pid in &pids {
        match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(name) => {
                assert_eq!(name.trim_end(), "postgres", "process {pid}");
                named += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("process {pid}: {e}"),
        }
    }
    assert!(named >= 3, "{pids:?}");
    // Each cluster names only its own processes.
    let other = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let others = other.pids().unwrap();
    assert!(
        pids.iter().all(|pid| !others.contains(pid)),
        "{pids:?} {others:?}"
    );
}

#[test]
fn two_clusters_run_side_by_side() {
    let a = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let b = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(a.port(), b.port());
    a.psql("CREATE TABLE only_in_a (n int)").unwrap();
    assert!(b.psql("SELECT * FROM only_in_a").is_err());
}

#[tokio::test]
async fn haproxy_spreads_requests_over_both_nodes() {
    let nodes = [
        InProcess::start(Arc::new(MemoryStore::new())).await,
        InProcess::start(Arc::new(MemoryStore::new())).await,
    ];
    let backends: Vec<_> = nodes.iter().map(|node| node.addr).collect();
    let proxy = tokio::task::spawn_blocking(move || Haproxy::start(&backends))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}"));
    let client = Client::new(proxy.addr());

    let health = client.send("GET", "/healthz", None, "").await.unwrap();
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));

    // Each node keeps its own games (a memory store each), so the games
    // created through the proxy show where each request went.
    for _ in 0..4 {
        let (status, body) = client
            .call("POST", "/api/games", None, &json!({"opponent": "human"}))
            .await;
        assert_eq!(status, 201, "{body}");
        assert!(body["game"]["id"].is_string(), "{body}");
    }
    let rooms: Vec<usize> = nodes
        .iter()
        .map(|node| node.state.hub().rooms_in_memory())
        .collect();
    assert_eq!(rooms.iter().sum::<usize>(), 4, "{rooms:?}");
    assert!(
        rooms.iter().all(|&n| n > 0),
        "every node should get requests: {rooms:?}; HAProxy's log:\n{}",
        proxy.log_tail()
    );
}

/// Ask, on `stream` to `addr`, for game `id`'s live view as a WebSocket.
fn ask_upgrade(stream: &mut TcpStream, addr: SocketAddr, id: &str) -> std::io::Result<()> {
    write!(
        stream,
        "GET /api/games/{id}/live HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
}

/// HAProxy in front of `node`, and a two-player game made through it (its
/// GAME).
async fn game_behind_haproxy(node: &InProcess) -> (Haproxy, serde_json::Value) {
    let backends = [node.addr];
    let proxy = tokio::task::spawn_blocking(move || Haproxy::start(&backends))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{e}"));
    let (status, body) = Client::new(proxy.addr())
        .call("POST", "/api/games", None, &json!({"opponent": "human"}))
        .await;
    assert_eq!(status, 201, "{body}");
    (proxy, body["game"].clone())
}

#[tokio::test]
async fn a_websocket_passes_through_haproxy() {
    let node = InProcess::start(Arc::new(MemoryStore::new())).await;
    let (proxy, game) = game_behind_haproxy(&node).await;
    let id = game["id"].as_str().unwrap().to_owned();

    let addr = proxy.addr();
    let (head, first_byte) = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        ask_upgrade(&mut stream, addr, &id).unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push_str(&line);
        }
        // The server sends the game as soon as the socket is open.
        let mut byte = [0u8; 1];
        reader.read_exact(&mut byte).unwrap();
        (head, byte[0])
    })
    .await
    .unwrap();
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    assert_eq!(first_byte, 0x81, "a final text frame");
}

/// `deploy/haproxy.cfg` caps one client address at 256 open connections,
/// as a node alone does: live views need no token, and the nodes behind
/// it (`--trust-proxy`) cannot tell clients' connections apart. Held
/// WebSockets (the tunnel outlives the request timeouts) fill the cap;
/// the next connection is closed unanswered, and one closed makes room.
#[tokio::test]
async fn haproxy_caps_one_address_at_256_connections() {
    const CAP: usize = 256;
    let limits = oxo_server::Limits {
        trust_proxy: true,
        ..oxo_server::Limits::without_rates()
    };
    let node = InProcess::start_limited(Arc::new(MemoryStore::new()), limits).await;
    let (proxy, game) = game_behind_haproxy(&node).await;
    let watch = game["watch"].as_str().unwrap().to_owned();
    let addr = proxy.addr();
    tokio::task::spawn_blocking(move || {
        // The head of a spectator's upgrade through a new connection, or
        // what ended it: the connection itself when upgraded.
        let open = || -> Result<TcpStream, String> {
            let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
            stream
                .set_read_timeout(Some(oxo_test_support::TIMEOUT))
                .unwrap();
            ask_upgrade(&mut stream, addr, &watch).map_err(|e| e.to_string())?;
            let mut head = [0u8; 12];
            match stream.read_exact(&mut head) {
                Ok(()) if &head == b"HTTP/1.1 101" => Ok(stream),
                Ok(()) => Err(String::from_utf8_lossy(&head).into_owned()),
                Err(e) => Err(e.to_string()),
            }
        };
        let mut held: Vec<TcpStream> = (0..CAP)
            .map(|i| open().unwrap_or_else(|e| panic!("connection {i}: {e}")))
            .collect();
        let refused = open().expect_err("a connection past the cap");
        assert!(!refused.contains("HTTP"), "closed unanswered: {refused}");
        // One closed, another is let in (once HAProxy has seen the close).
        drop(held.pop());
        let deadline = Instant::now() + oxo_test_support::PATIENCE;
        loop {
            match open() {
                Ok(stream) => {
                    held.push(stream);
                    break;
                }
                Err(e) => assert!(Instant::now() < deadline, "never let in again: {e}"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(proxy);
    })
    .await
    .unwrap();
}
