//! The server's defences against clients that misbehave on purpose: idle
//! and slow connections, too many connections, a WebSocket client that
//! never reads and one that floods. Each runs a real server on a loopback
//! port with small limits, so the tests take a second or two.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use oxo_server::{Limits, MemoryStore, Rate};
use oxo_test_support::{Client, InProcess, PATIENCE, seated_game};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::common::eventually;

fn limits() -> Limits {
    Limits {
        header_timeout: Duration::from_millis(300),
        request_timeout: Duration::from_secs(5),
        max_connections: 8,
        max_per_address: 6,
        send_timeout: Duration::from_millis(300),
        send_buffer: 16 * 1024,
        ..Limits::without_rates()
    }
}

async fn server(limits: Limits) -> InProcess {
    InProcess::start_limited(Arc::new(MemoryStore::new()), limits).await
}

/// A server whose write rates allow a burst of three, then one each 10 s
/// (so none more within a test).
async fn three_writes_server() -> InProcess {
    server(Limits {
        writes: Rate {
            burst: 3,
            per_second: 0.1,
        },
        ..limits()
    })
    .await
}

/// `POST` a move as `token`: the status and the body.
async fn post_move(
    client: &Client,
    id: &str,
    token: &str,
    body: serde_json::Value,
) -> (u16, String) {
    let (status, body) = client
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &body,
        )
        .await;
    (status, body.to_string())
}

/// Read until the server closes the connection; how long that took, or
/// `None` if it was still open after `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(
            tokio::time::Instant::from_std(started + within),
            stream.read(&mut buf),
        )
        .await
        {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn silent_and_slow_connections_are_closed_and_idle_ones_too() {
    let server = server(limits()).await;
    // Opens and says nothing.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    // Sends a request a byte now and then, never finishing the head.
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    let dribble = async {
        for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\n" {
            if slow.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    dribble.await;
    assert!(
        closed_within(&mut silent, Duration::from_secs(3))
            .await
            .is_some()
    );
    assert!(
        closed_within(&mut slow, Duration::from_secs(3))
            .await
            .is_some()
    );
    // A kept-alive connection idle after its answer is closed as well.
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let closed = closed_within(&mut idle, Duration::from_secs(3)).await;
    assert!(
        closed.is_some_and(|t| t >= Duration::from_millis(250)),
        "{closed:?}"
    );
}

#[tokio::test]
async fn connections_beyond_the_limits_wait_or_are_refused() {
    // Silent connections are held for 3 s, so "closed at once" is told from
    // "closed by the header timeout" with a margin no busy machine eats.
    let server = server(Limits {
        header_timeout: Duration::from_secs(3),
        ..limits()
    })
    .await;
    // One address may hold six: the seventh is closed at once.
    let mut held = Vec::new();
    for _ in 0..6 {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    let mut seventh = TcpStream::connect(server.addr).await.unwrap();
    let closed = closed_within(&mut seventh, Duration::from_secs(2)).await;
    assert!(
        closed.is_some(),
        "the seventh connection from one address is closed"
    );
    // Another address (127.0.0.2 is loopback too) fills the server's eight.
    let other = |()| async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        socket.connect(server.addr).await.unwrap()
    };
    held.push(other(()).await);
    held.push(other(()).await);
    // A ninth client waits until a slot frees up (the silent ones are
    // closed after the header timeout), then is answered.
    let started = Instant::now();
    let mut ninth = other(()).await;
    ninth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(30), ninth.read_to_string(&mut answer))
        .await
        .expect("answered once a slot is free")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("ok"), "{answer}");
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_websocket_client_that_never_reads_is_dropped() {
    let server = server(limits()).await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({"size": "32x32", "k": 5}))
        .await
        .unwrap();
    // A client with a tiny receive buffer that connects and never reads.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let url = format!("ws://{}/api/games/{}/live", server.addr, game.id);
    let (mut stuck, _) = tokio_tungstenite::client_async(url, stream).await.unwrap();
    // Four rows filled in turn (no five in a row anywhere): 128 updates
    // of about 1.2 KB each, far more than the socket buffers hold.
    for n in 0..128u32 {
        let token = if n.is_multiple_of(2) {
            &game.x
        } else {
            &game.o
        };
        let (status, body) = post_move(
            &client,
            &game.id,
            token,
            json!({"row": n / 32, "col": n % 32}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    // Now read: what was buffered arrives, then the close.
    let drained = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = stuck.next().await {}
    })
    .await;
    assert!(drained.is_ok(), "the stuck client was never dropped");
}

#[tokio::test]
async fn a_websocket_client_that_sends_data_is_closed() {
    let server = server(limits()).await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({})).await.unwrap();
    let url = format!("ws://{}/api/games/{}/live", server.addr, game.id);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    assert!(matches!(socket.next().await, Some(Ok(Message::Text(_)))));
    socket.send(Message::text("x".repeat(100))).await.unwrap();
    let close = tokio::time::timeout(Duration::from_secs(5), socket.next())
        .await
        .expect("an answer to the flood");
    match close {
        Some(Ok(Message::Close(Some(frame)))) => {
            assert_eq!(u16::from(frame.code), 1008);
            assert_eq!(frame.reason.as_str(), "clients send nothing on this socket");
        }
        other => panic!("expected a close frame, got {other:?}"),
    }
}

#[tokio::test]
async fn a_request_whose_body_never_comes_is_answered_408() {
    let server = server(Limits {
        request_timeout: Duration::from_millis(300),
        ..limits()
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.ends_with(r#"{"error":"the request took longer than 0.3 s"}"#),
        "{answer}"
    );
}

#[tokio::test]
async fn writes_beyond_an_addresss_rate_get_429_with_retry_after() {
    let server = server(Limits {
        creates: Rate {
            burst: 3,
            per_second: 0.5,
        },
        writes: Rate {
            burst: 4,
            per_second: 2.0,
        },
        ..limits()
    })
    .await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({})).await.unwrap(); // a create and a join
    for _ in 0..2 {
        let created = client.send("POST", "/api/games", None, "{}").await.unwrap();
        assert_eq!(created.status, 201);
    }
    let refused = client.send("POST", "/api/games", None, "{}").await.unwrap();
    assert_eq!(refused.status, 429, "{}", refused.body);
    // A token every 2 s: the wait told is that, rounded up (less if the
    // machine took over a second to get here).
    assert!(
        [1, 2].into_iter().any(|s| refused.body
            == format!(r#"{{"error":"too many requests from your address; try again in {s} s"}}"#)),
        "{}",
        refused.body
    );
    // Moves have their own bucket: three more writes pass, then 429, and
    // nothing changed.
    for (n, col) in (0u32..3).zip([0, 1, 2]) {
        let token = if n.is_multiple_of(2) {
            &game.x
        } else {
            &game.o
        };
        let (status, body) =
            post_move(&client, &game.id, token, json!({"row": 0, "col": col})).await;
        assert_eq!(status, 200, "{body}");
    }
    let before = client.get_json(&format!("/api/games/{}", game.id)).await;
    let (status, _) = post_move(&client, &game.id, &game.o, json!({"row": 1, "col": 1})).await;
    assert_eq!(status, 429);
    assert_eq!(
        client.get_json(&format!("/api/games/{}", game.id)).await,
        before
    );
    // Reads are not limited; after half a second a write passes again (on
    // a connection of its own: the kept one has waited longer than the
    // 0.3 s the server gives an idle connection, and may be closed as it is
    // used; the rate is the address's).
    tokio::time::sleep(Duration::from_millis(600)).await;
    let fresh = Client::new(server.addr);
    let (status, body) = post_move(&fresh, &game.id, &game.o, json!({"row": 1, "col": 1})).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn moves_on_a_players_socket_count_against_the_same_rate() {
    let server = three_writes_server().await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({})).await.unwrap(); // the join is a write
    let connect = |token: &str| {
        let url = format!(
            "ws://{}/api/games/{}/live?token={token}",
            server.addr, game.id
        );
        async move { tokio_tungstenite::connect_async(url).await.unwrap().0 }
    };
    let (mut x, mut o) = (connect(&game.x).await, connect(&game.o).await);
    // The next text frame that is not about presence.
    async fn next(socket: &mut crate::common::Socket) -> serde_json::Value {
        crate::common::next_update(socket, Duration::from_secs(5)).await
    }
    next(&mut x).await;
    next(&mut o).await;
    // A frame that is no move counts too, as a POST with a bad body does.
    x.send(Message::text("no move")).await.unwrap();
    assert_eq!(next(&mut x).await["status"], 400);
    x.send(Message::text(r#"{"row":0,"col":0}"#)).await.unwrap();
    assert_eq!(next(&mut x).await["version"], 3);
    assert_eq!(next(&mut o).await["version"], 3);
    o.send(Message::text(r#"{"row":1,"col":1}"#)).await.unwrap();
    let refused = next(&mut o).await;
    assert_eq!(refused["status"], 429, "{refused}");
    assert!(
        refused["retry_after"].as_u64().is_some_and(|s| s >= 1),
        "{refused}"
    );
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("too many requests from your address; try again in ")),
        "{refused}"
    );
    // Nor does a POST get through now.
    let (status, _) = post_move(&client, &game.id, &game.o, json!({"row": 1, "col": 1})).await;
    assert_eq!(status, 429);
    assert_eq!(
        client.get_json(&format!("/api/games/{}", game.id)).await["version"],
        3
    );
}

/// Opening a seat's socket is a change (its presence is told to the other
/// servers; an open correspondence game's creator is noted in the store),
/// so it is counted at the write rate: sockets opened and closed in a loop
/// are refused with the 429 a POST would get, and queue nothing. It is a
/// bucket of its own, so that reconnecting pages never take what moves
/// need; a spectator's socket changes nothing and is never counted.
#[tokio::test]
async fn opening_a_seats_socket_counts_against_the_write_rate() {
    let server = three_writes_server().await;
    let client = Client::new(server.addr);
    let (status, created) = client
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"opponent": "human", "listed": true, "days": 3}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let watch = created["game"]["watch"].as_str().unwrap().to_owned();
    let url =
        |path: &str, query: &str| format!("ws://{}/api/games/{path}/live{query}", server.addr);
    let seat = format!("?token={token}");
    for _ in 0..3 {
        let (socket, _) = tokio_tungstenite::connect_async(url(&id, &seat))
            .await
            .expect("within the burst");
        drop(socket);
    }
    let refused = tokio_tungstenite::connect_async(url(&id, &seat))
        .await
        .expect_err("beyond the burst");
    let tokio_tungstenite::tungstenite::Error::Http(response) = refused else {
        panic!("not an HTTP refusal: {refused}");
    };
    assert_eq!(response.status(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let body: serde_json::Value =
        serde_json::from_slice(response.body().as_deref().unwrap_or_default()).unwrap();
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("too many requests from your address")),
        "{body}"
    );
    // The writes' own bucket is untouched: O joins.
    let (status, joined) = client
        .call(
            "POST",
            &format!("/api/games/{id}/seats/o"),
            None,
            &json!({"invite": created["invite"]}),
        )
        .await;
    assert_eq!(status, 200, "{joined}");
    // Spectators still watch, as many times as they like.
    for _ in 0..5 {
        let (socket, _) = tokio_tungstenite::connect_async(url(&watch, ""))
            .await
            .expect("a spectator's socket");
        drop(socket);
    }
}

#[tokio::test]
async fn behind_a_proxy_each_forwarded_address_has_its_own_rate() {
    let server = server(Limits {
        creates: Rate {
            burst: 1,
            per_second: 0.01,
        },
        trust_proxy: true,
        ..limits()
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let mut statuses = Vec::new();
    for client in ["10.0.0.1", "10.0.0.2", "10.0.0.1"] {
        let request = format!(
            "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             X-Forwarded-For: 192.0.2.9, {client}\r\nContent-Length: 2\r\n\r\n{{}}"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut buf = vec![0u8; 8192];
        let n = stream.read(&mut buf).await.unwrap();
        statuses.push(String::from_utf8_lossy(&buf[..12]).to_string());
        assert!(n > 12);
    }
    assert_eq!(
        statuses,
        ["HTTP/1.1 201", "HTTP/1.1 201", "HTTP/1.1 429"],
        "the last X-Forwarded-For entry is the client"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_computer_move_never_waits_behind_long_searches() {
    let server = InProcess::start_with(
        Arc::new(MemoryStore::new()),
        &oxo_server::HubConfig {
            search_threads: 1,
            ..oxo_server::HubConfig::default()
        },
    )
    .await;
    let client = Client::new(server.addr);
    let new_game = async |size: &str, k: u32| {
        let (status, created) = client
            .call(
                "POST",
                "/api/games",
                None,
                &json!({"size": size, "k": k, "opponent": "perfect"}),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let token = created["token"].as_str().unwrap().to_owned();
        (id, token)
    };
    // Twelve 6×6 solves queued for the one search thread...
    let mut deep = Vec::new();
    for n in 0..12u32 {
        let (id, token) = new_game("6x6", 4).await;
        let (status, _) = client
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(&token),
                &json!({"row": n % 6, "col": (n / 6 + 2) % 6}),
            )
            .await;
        assert_eq!(status, 200);
        deep.push(id);
    }
    // ...then a 3×3 game: its reply comes while most of them still wait.
    let (id, token) = new_game("3x3", 3).await;
    let (status, _) = client
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&token),
            &json!({"row": 1, "col": 1}),
        )
        .await;
    assert_eq!(status, 200);
    loop {
        let game = client.get_json(&format!("/api/games/{id}")).await;
        if game["version"] == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut answered = 0;
    for id in &deep {
        if client.get_json(&format!("/api/games/{id}")).await["version"] == 3 {
            answered += 1;
        }
    }
    assert!(
        answered < deep.len(),
        "the 3x3 reply waited for all {answered} 6x6 searches"
    );
    eprintln!("the 3x3 reply came when {answered} of 12 6x6 replies had");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_may_have_two_hint_searches_in_flight() {
    let server = server(Limits::without_rates()).await;
    let client = Client::new(server.addr);
    let mut games = Vec::new();
    for n in 0..8u32 {
        // 5×5 games against the computer (hints are withheld between two
        // people) with a different first move each, so that no search
        // finds another's answer in its table.
        let (status, created) = client
            .call(
                "POST",
                "/api/games",
                None,
                &json!({"size": "5x5", "k": 4, "opponent": "random"}),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let x = created["token"].as_str().unwrap();
        let (status, _) = client
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(x),
                &json!({"row": n / 5, "col": n % 5}),
            )
            .await;
        assert_eq!(status, 200);
        games.push(id);
    }
    let asks = games.iter().map(|id| {
        let client = Client::new(server.addr);
        let path = format!("/api/games/{id}/hints");
        async move {
            client
                .call("GET", &path, None, &serde_json::Value::Null)
                .await
        }
    });
    let answers = futures_util::future::join_all(asks).await;
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status == 429)
        .collect();
    assert!(
        answers
            .iter()
            .all(|(status, _)| *status == 200 || *status == 429),
        "{answers:?}"
    );
    assert!(
        !refused.is_empty(),
        "eight searches at once were all let in"
    );
    assert!(refused.len() <= 6, "at least two run: {answers:?}");
    assert_eq!(
        refused[0].1["error"],
        "too many requests from your address; try again in 1 s"
    );
}

#[tokio::test]
async fn rooms_nobody_uses_leave_memory_beyond_the_bound() {
    let store = Arc::new(MemoryStore::new());
    let hub = oxo_server::Hub::new(
        store,
        &oxo_server::HubConfig {
            max_rooms_in_memory: 10,
            ..oxo_server::HubConfig::default()
        },
    );
    let mut ids = Vec::new();
    for _ in 0..50 {
        let seated = hub
            .create(
                oxo_server::room::RoomSetup::new(
                    oxo_core::Rules::TIC_TAC_TOE,
                    oxo_server::room::Opponent::Human,
                    oxo_core::Player::X,
                    None,
                    &oxo_ai::Catalog::default(),
                )
                .unwrap(),
                false,
                None,
            )
            .await
            .unwrap();
        ids.push(seated.game.value().id.clone());
        assert!(
            hub.rooms_in_memory() <= 11,
            "{} rooms held",
            hub.rooms_in_memory()
        );
    }
    // The rooms let go are still there, loaded again on request.
    let first = oxo_server::id::GameId::parse(&ids[0]).unwrap();
    let (handle, _) = hub.room_to_read(&first).await.unwrap();
    assert_eq!(
        handle.current(oxo_server::room::Viewer::Player).value().id,
        ids[0]
    );
}

/// Send `request` as it is, and read everything the server answers until
/// it closes the connection.
async fn raw_exchange(server: &InProcess, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // The server may answer and close before it has read all of a big
    // request: what it answered is what counts.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server did not close the connection");
    String::from_utf8_lossy(&answer).into_owned()
}

/// The last response in `answer`: its status, its headers (lowercase
/// names) and its body (each response read by its Content-Length).
fn last_response(answer: &str) -> (u16, Vec<(String, String)>, String) {
    let mut rest = answer;
    loop {
        let (head, after) = rest.split_once("\r\n\r\n").expect("a head");
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "), "{answer}");
        let status = status_line[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(':').expect("a header line");
                (name.to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(name, _)| name == "content-length")
            .map_or(0, |(_, value)| value.parse().unwrap());
        let (body, next) = after.split_at(length);
        if next.is_empty() {
            return (status, headers, body.to_owned());
        }
        rest = next;
    }
}

/// A client speaking HTTP/2 from its first byte is told, in HTTP/2, to use
/// HTTP/1.1: the server's SETTINGS, then a GOAWAY with HTTP_1_1_REQUIRED
/// (13) and a reason; then the connection ends. The server serves on.
#[tokio::test]
async fn an_http2_client_is_told_to_use_http_1_1() {
    let server = server(limits()).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // The preface and an empty SETTINGS frame, as curl
    // --http2-prior-knowledge sends them.
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    stream.write_all(&hello).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server did not close the connection");
    let settings = [0, 0, 0, 4, 0, 0, 0, 0, 0];
    assert_eq!(answer.get(..9), Some(&settings[..]), "{answer:?}");
    let goaway = &answer[9..];
    assert!(goaway.len() >= 17, "{answer:?}");
    let length = usize::from(goaway[1]) << 8 | usize::from(goaway[2]);
    assert_eq!(goaway[0], 0);
    assert_eq!(
        (goaway[3], length + 9),
        (7, goaway.len()),
        "one GOAWAY frame: {answer:?}"
    );
    assert_eq!(goaway[5..9], [0, 0, 0, 0], "on the connection's stream");
    assert_eq!(goaway[9..13], [0, 0, 0, 0], "no stream was processed");
    assert_eq!(goaway[13..17], [0, 0, 0, 13], "HTTP_1_1_REQUIRED");
    let reason = String::from_utf8_lossy(&goaway[17..]);
    assert!(reason.contains("HTTP/1.1"), "{reason}");
    let (status, _, _) = last_response(
        &raw_exchange(
            &server,
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .await,
    );
    assert_eq!(status, 200, "the server serves on");
}

#[tokio::test]
async fn requests_too_malformed_to_route_get_a_json_error_too() {
    let server = server(limits()).await;
    let many_headers: String = (0..101).map(|i| format!("X-H{i}: {i}\r\n")).collect();
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    let huge_head = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(600_000)
    );
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        (
            "a broken request line",
            b"GARBAGE\r\n\r\n".to_vec(),
            400,
            "the request is not HTTP/1.1 this server can read (its request line, a header or the version)",
        ),
        (
            "a header line with no colon",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n".to_vec(),
            400,
            "the request is not HTTP/1.1 this server can read (its request line, a header or the version)",
        ),
        (
            "a Content-Length that is no number",
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ten\r\n\r\n".to_vec(),
            400,
            "the request is not HTTP/1.1 this server can read (its request line, a header or the version)",
        ),
        (
            "more than 100 headers",
            format!("GET /healthz HTTP/1.1\r\n{many_headers}\r\n").into_bytes(),
            431,
            "the request's headers are too many (at most 100) or too large",
        ),
        (
            "a head over the buffer",
            huge_head.into_bytes(),
            431,
            "the request's headers are too many (at most 100) or too large",
        ),
        (
            "a URI too long",
            long_uri.into_bytes(),
            414,
            "the request's URI is too long",
        ),
        (
            // A good request first, on a kept-alive connection: the bad
            // one after it is answered the same way.
            "a bad request after a good one",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n".to_vec(),
            400,
            "the request is not HTTP/1.1 this server can read (its request line, a header or the version)",
        ),
    ];
    for (what, request, status, error) in cases {
        let answer = raw_exchange(&server, &request).await;
        let (got, headers, body) = last_response(&answer);
        assert_eq!(got, status, "{what}: {answer}");
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("content-type"), Some("application/json"), "{what}");
        assert_eq!(header("connection"), Some("close"), "{what}");
        assert_eq!(
            header("content-length"),
            Some(body.len().to_string().as_str()),
            "{what}"
        );
        let json: serde_json::Value = serde_json::from_str(&body).expect(what);
        assert_eq!(json, json!({ "error": error }), "{what}");
        if what.starts_with("a bad request after") {
            assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        }
    }
    // And the server goes on answering.
    let answer = raw_exchange(
        &server,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
}

#[tokio::test]
async fn a_late_decline_is_a_change_whose_outcome_is_unknown() {
    // A DELETE changes the game as a POST does (it declines an offer):
    // late, it may still be saved, and the answer says so.
    let store = Arc::new(MemoryStore::new());
    let server = InProcess::start_limited(
        Arc::clone(&store) as _,
        Limits {
            request_timeout: Duration::from_millis(300),
            ..limits()
        },
    )
    .await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({})).await.unwrap();
    let moves = format!("/api/games/{}/moves", game.id);
    for (token, col) in [(&game.x, 0), (&game.o, 1)] {
        let (status, body) = client
            .call("POST", &moves, Some(token), &json!({"row": 0, "col": col}))
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let draw = format!("/api/games/{}/draw", game.id);
    let (status, offered) = client.call("POST", &draw, Some(&game.x), &json!({})).await;
    assert_eq!(status, 200, "{offered}");
    store.hold_commits(true);
    let request = format!(
        "DELETE {draw} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Connection: close\r\n\r\n",
        game.o
    );
    let answer = raw_exchange(&server, request.as_bytes())
        .await
        .to_ascii_lowercase();
    store.hold_commits(false);
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(
        answer.contains("a change it was making may still be saved")
            && answer.contains(r#""outcome":"unknown""#),
        "{answer}"
    );
}

#[tokio::test]
async fn a_request_the_server_is_late_with_is_answered_503_and_its_move_still_lands() {
    // The database stalls (its commits held) while a whole request waits
    // for it: the server, not the client, was slow, so the answer is 503
    // with Retry-After and the outcome unknown; once the database moves
    // again, the move is saved.
    let store = Arc::new(MemoryStore::new());
    let server = InProcess::start_limited(
        Arc::clone(&store) as _,
        Limits {
            request_timeout: Duration::from_millis(300),
            ..limits()
        },
    )
    .await;
    let client = Client::new(server.addr);
    let game = seated_game(&client, &json!({})).await.unwrap();
    store.hold_commits(true);
    let body = r#"{"row":1,"col":1}"#;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "POST /api/games/{}/moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Authorization: Bearer {}\r\nContent-Length: {}\r\n\r\n{body}",
        game.id,
        game.x,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(PATIENCE, stream.read(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]).to_ascii_lowercase();
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("\r\nretry-after: 1\r\n"), "{answer}");
    assert!(
        answer.contains(
            "the server took longer than 0.3 s to answer; a change it was making may still be saved"
        ) && answer.contains(r#""outcome":"unknown""#),
        "{answer}"
    );
    store.hold_commits(false);
    eventually("the held move saved", async || {
        // A connection of its own each read: the client's kept one has
        // waited longer than the 0.3 s the server gives an idle
        // connection, and may be closed as it is used.
        let fresh = Client::new(server.addr);
        let seen = fresh.get_json(&format!("/api/games/{}", game.id)).await;
        if seen["moves"].as_array().is_some_and(|m| m.len() == 1) {
            Ok(())
        } else {
            Err(seen)
        }
    })
    .await;
}
