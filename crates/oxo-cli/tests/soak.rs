//! The real `oxo serve`, with its default limits, under every abuse its
//! limits are for at once, while a well-behaved client from another
//! address plays at least a fixed number of games over at least a few
//! seconds: the server must answer every one of its requests, correctly,
//! throughout. How quickly is printed, not
//! asserted (a test may not depend on the machine's speed); a request the
//! server starved gets no answer within the client's timeout and fails it.
//!
//! Abusers (all from 127.0.0.1): 300 connections that send nothing,
//! 20 that dribble a request head a byte at a time, a flood of game
//! creation, garbage request lines, a WebSocket client that never reads on
//! a 32×32 game with moves being made, and one that floods data frames.
//! The good client comes from 127.0.0.2.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use oxo_test_support::{BlockingClient, ServeProcess};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// The games the good client plays while the abuse goes on...
const GAMES: u32 = 10;
/// ...for at least this long, so that abuse that builds up over time
/// (the WebSocket writes past their burst) gets there: a lower bound on the
/// test's length, not a speed the machine must reach.
const ABUSE_AT_LEAST: Duration = Duration::from_secs(8);
/// The server's default rate of game creation per client address: a burst
/// of 20, then one every 2 seconds (`--creates-per-minute 30`).
const CREATE_BURST: u64 = 20;
const CREATE_SECONDS: u64 = 2;

struct Counters {
    created: AtomicU64,
    limited: AtomicU64,
    server_errors: AtomicU64,
    /// Flood requests that got no answer (refused, reset, timed out), and
    /// other statuses: what to look at if the flood was never limited.
    unanswered: AtomicU64,
    other: AtomicU64,
}

#[test]
fn a_well_behaved_client_is_served_while_others_abuse_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = ServeProcess::start(
        Path::new(env!("CARGO_BIN_EXE_oxo")),
        &["--db", db.to_str().unwrap()],
    )
    .unwrap();
    let addr = server.addr;
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(Counters {
        created: AtomicU64::new(0),
        limited: AtomicU64::new(0),
        server_errors: AtomicU64::new(0),
        unanswered: AtomicU64::new(0),
        other: AtomicU64::new(0),
    });
    let abuse_began = Instant::now();
    let mut abusers = Vec::new();

    // Silent connections, reopened as the server closes them.
    abusers.push(spawn(&stop, move |stop| {
        let mut held: Vec<TcpStream> = Vec::new();
        while !stop.load(Ordering::SeqCst) {
            held.retain(|s| {
                let mut byte = [0u8; 1];
                s.set_nonblocking(true).ok();
                !matches!((&*s).read(&mut byte), Ok(0))
            });
            while held.len() < 300 {
                match TcpStream::connect(addr) {
                    Ok(s) => held.push(s),
                    Err(_) => break,
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }));
    // Slow request heads.
    abusers.push(spawn(&stop, move |stop| {
        let mut slow: Vec<TcpStream> = (0..20)
            .filter_map(|_| TcpStream::connect(addr).ok())
            .collect();
        while !stop.load(Ordering::SeqCst) {
            slow.retain_mut(|s| s.write_all(b"X").is_ok());
            while slow.len() < 20 {
                match TcpStream::connect(addr) {
                    Ok(mut s) => {
                        let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nX-Slow: ");
                        slow.push(s);
                    }
                    Err(_) => break,
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }));
    // A flood of new games, from an address of its own: from the silent
    // connections' address it would be shut out by the per-address
    // connection cap whenever they hold all of it, and whether it is ever
    // rate limited would depend on timing.
    let flood = counters.clone();
    abusers.push(spawn(&stop, move |stop| {
        let client = BlockingClient::new_from(addr, "127.0.0.3".parse().unwrap());
        while !stop.load(Ordering::SeqCst) {
            match client.send("POST", "/api/games", None, "{}") {
                Ok(r) if r.status == 201 => flood.created.fetch_add(1, Ordering::SeqCst),
                Ok(r) if r.status == 429 => flood.limited.fetch_add(1, Ordering::SeqCst),
                Ok(r) if r.status >= 500 => flood.server_errors.fetch_add(1, Ordering::SeqCst),
                Ok(_) => flood.other.fetch_add(1, Ordering::SeqCst),
                Err(_) => flood.unanswered.fetch_add(1, Ordering::SeqCst),
            };
        }
    }));
    // Garbage.
    abusers.push(spawn(&stop, move |stop| {
        let garbage: [&[u8]; 4] = [
            b"\x00\x01\x02 nonsense\r\n\r\n",
            b"GET / HTTP/9.9\r\n\r\n",
            b"POST /api/games HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: \xff\xfe\r\n\r\n",
        ];
        let mut n = 0;
        while !stop.load(Ordering::SeqCst) {
            if let Ok(mut s) = TcpStream::connect(addr) {
                let _ = s.write_all(garbage[n % garbage.len()]);
                let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
                let _ = s.read(&mut [0u8; 512]);
            }
            n += 1;
        }
    }));
    // WebSocket abusers on a big game, and moves in it.
    abusers.push(spawn(&stop, move |stop| websocket_abuse(addr, &stop)));

    // The good client: games between two people, played to the end, from
    // another address.
    let good = BlockingClient::new_from(addr, "127.0.0.2".parse().unwrap());
    let started = Instant::now();
    let (mut requests, mut slowest, mut games) = (0u32, Duration::ZERO, 0u32);
    let mut timed = |what: &str, call: &mut dyn FnMut() -> (u16, Value)| {
        let t = Instant::now();
        let (status, body) = call();
        assert!(status < 300, "{what}: {status} {body}");
        slowest = slowest.max(t.elapsed());
        requests += 1;
        body
    };
    // One room, round after round (a rematch offered and accepted starts
    // each, the other seat starting), at about a person's pace.
    let game = timed("create", &mut || {
        good.call("POST", "/api/games", None, &json!({}))
    });
    let id = game["game"]["id"].as_str().unwrap().to_owned();
    let x = game["token"].as_str().unwrap().to_owned();
    let joined = timed("join", &mut || {
        good.call(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            None,
            &json!({ "invite": game["invite"] }),
        )
    });
    let o = joined["token"].as_str().unwrap().to_owned();
    while games < GAMES || started.elapsed() < ABUSE_AT_LEAST {
        let (starter, other, mark) = if games % 2 == 0 {
            (&x, &o, "x")
        } else {
            (&o, &x, "o")
        };
        for (n, (row, col)) in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
            .into_iter()
            .enumerate()
        {
            let token = if n % 2 == 0 { starter } else { other };
            timed("move", &mut || {
                good.call(
                    "POST",
                    &format!("/api/games/{id}/moves"),
                    Some(token),
                    &json!({"row": row, "col": col}),
                )
            });
        }
        let end = timed("read", &mut || {
            good.call("GET", &format!("/api/games/{id}"), None, &Value::Null)
        });
        assert_eq!(end["winner"], mark, "{end}");
        timed("health", &mut || {
            let r = good.send("GET", "/healthz", None, "").unwrap();
            (r.status, Value::String(r.body))
        });
        for token in [&x, &o] {
            timed("rematch", &mut || {
                good.call(
                    "POST",
                    &format!("/api/games/{id}/rematch"),
                    Some(token),
                    &json!({}),
                )
            });
        }
        games += 1;
        std::thread::sleep(Duration::from_millis(300));
    }
    let soak = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    for abuser in abusers {
        abuser.join().unwrap();
    }
    // The whole time the flood ran, for the creation rate's bound.
    let window = abuse_began.elapsed();
    let flood = format!(
        "flood: {} created, {} refused 429, {} other answers, {} unanswered",
        counters.created.load(Ordering::SeqCst),
        counters.limited.load(Ordering::SeqCst),
        counters.other.load(Ordering::SeqCst),
        counters.unanswered.load(Ordering::SeqCst)
    );
    eprintln!(
        "good client: {games} games, {requests} requests in {soak:?}, slowest {slowest:?}; {flood}"
    );
    assert_eq!(counters.server_errors.load(Ordering::SeqCst), 0);
    assert!(
        counters.limited.load(Ordering::SeqCst) > 0,
        "the flood was never limited: {flood}"
    );
    assert!(
        counters.created.load(Ordering::SeqCst)
            <= CREATE_BURST + window.as_secs().div_ceil(CREATE_SECONDS) + 1,
        "more games created than the rate allows"
    );
    // Still healthy afterwards.
    assert_eq!(good.send("GET", "/healthz", None, "").unwrap().status, 200);
}

fn spawn(
    stop: &Arc<AtomicBool>,
    work: impl FnOnce(Arc<AtomicBool>) + Send + 'static,
) -> std::thread::JoinHandle<()> {
    let stop = stop.clone();
    std::thread::spawn(move || work(stop))
}

/// A client that never reads and one that floods, on a 32×32 game whose
/// players keep moving.
fn websocket_abuse(addr: SocketAddr, stop: &AtomicBool) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // From an address of their own: not the silent connections' (the
        // server caps connections per address) and not the game flood's
        // (whose requests use up that address's rate of new games, so the
        // game this creates would be refused whenever the flood got there
        // first).
        let from = std::net::IpAddr::from([127, 0, 0, 4]);
        let client = oxo_test_support::Client::new_from(addr, from);
        let game = oxo_test_support::seated_game(&client, &json!({"size": "32x32", "k": 5}))
            .await
            .unwrap();
        let url = format!("ws://{addr}/api/games/{}/live", game.id);
        let socket = async |receive_buffer: Option<u32>| {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(SocketAddr::new(from, 0)).unwrap();
            if let Some(size) = receive_buffer {
                socket.set_recv_buffer_size(size).unwrap();
            }
            socket.connect(addr).await.unwrap()
        };
        let (_stuck, _) = tokio_tungstenite::client_async(url.clone(), socket(Some(2048)).await)
            .await
            .unwrap();
        let (mut flooder, _) = tokio_tungstenite::client_async(url, socket(None).await)
            .await
            .unwrap();
        let mut n = 0u32;
        while !stop.load(Ordering::SeqCst) && n < 128 {
            let token = if n.is_multiple_of(2) {
                &game.x
            } else {
                &game.o
            };
            // Four rows in turn: no five in a row.
            let (status, _) = client
                .call(
                    "POST",
                    &format!("/api/games/{}/moves", game.id),
                    Some(token),
                    &json!({"row": n / 32, "col": n % 32}),
                )
                .await;
            if status == 200 {
                n += 1;
            } else {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let _ = flooder.send(Message::text("x".repeat(100))).await;
        }
        while !stop.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}
