//! A real server on a loopback port: WebSocket pushes, reconnects,
//! shutdown, and computer moves resumed after a restart.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use futures_util::StreamExt;
use oxo_core::{Player, Rules};
use oxo_server::id::{GameId, Token};
use oxo_server::room::{Opponent, Room};
use oxo_server::store::{Change, ChangeKind};
use oxo_server::{AppState, MemoryStore, Store, app};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use common::Socket;

/// The shared harness's in-process server, with this file's helpers.
struct Server {
    inner: oxo_test_support::InProcess,
    state: AppState,
    addr: std::net::SocketAddr,
}

impl Server {
    async fn start(store: Arc<dyn Store>) -> Server {
        let inner = oxo_test_support::InProcess::start(store).await;
        Server {
            state: inner.state.clone(),
            addr: inner.addr,
            inner,
        }
    }

    /// A request through the same state the server uses.
    async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> (StatusCode, Value) {
        common::call(
            &app(self.state.clone()),
            method,
            path,
            token,
            &body.to_string(),
        )
        .await
    }

    async fn connect(&self, id: &str) -> Socket {
        let url = format!("ws://{}/api/games/{id}/live", self.addr);
        tokio_tungstenite::connect_async(url).await.unwrap().0
    }

    /// A new game between two people: the answer to its creation.
    async fn create(&self) -> Value {
        self.call("POST", "/api/games", None, json!({})).await.1
    }

    /// Take seat O of the game `created` answered for: O's token.
    async fn join_o(&self, created: &Value) -> String {
        let id = created["game"]["id"].as_str().unwrap();
        let (_, joined) = self
            .call(
                "POST",
                &format!("/api/games/{id}/seats/o"),
                None,
                json!({ "invite": created["invite"] }),
            )
            .await;
        joined["token"].as_str().unwrap().to_owned()
    }

    /// A human game with both seats taken: its id, watch id, X's token and
    /// O's.
    async fn seated(&self) -> (String, String, String, String) {
        let created = self.create().await;
        let o = self.join_o(&created).await;
        let text = |v: &Value| v.as_str().unwrap().to_owned();
        (
            text(&created["game"]["id"]),
            text(&created["game"]["watch"]),
            text(&created["token"]),
            o,
        )
    }

    /// A seat's socket.
    async fn connect_as(&self, id: &str, token: &str) -> Socket {
        let url = format!("ws://{}/api/games/{id}/live?token={token}", self.addr);
        tokio_tungstenite::connect_async(url).await.unwrap().0
    }
}

/// How long a test waits for a message on a socket: a generous bound.
const WAIT: Duration = Duration::from_secs(10);

/// The next GAME (or other text message) a socket receives.
async fn next_game(socket: &mut Socket) -> Value {
    common::next_text(socket, WAIT).await
}

#[tokio::test]
async fn players_and_spectators_see_every_change_at_once() {
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let created = server.create().await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let x = created["token"].as_str().unwrap().to_owned();

    let mut x_socket = server.connect(&id).await;
    assert_eq!(
        next_game(&mut x_socket).await["status"],
        "waiting",
        "the state on connect"
    );
    let o = server.join_o(&created).await;
    assert_eq!(
        next_game(&mut x_socket).await["status"],
        "playing",
        "the join is pushed"
    );

    let watch = created["game"]["watch"].as_str().unwrap().to_owned();
    let mut o_socket = server.connect(&id).await;
    let mut spectator = server.connect(&watch).await;
    for socket in [&mut o_socket, &mut spectator] {
        assert_eq!(next_game(socket).await["version"], 2);
    }
    for (token, row, col, version) in [(&x, 0, 0, 2), (&o, 1, 1, 3), (&x, 0, 1, 4)] {
        let (status, _) = server
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                json!({"row": row, "col": col, "version": version}),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
        for socket in [&mut x_socket, &mut o_socket, &mut spectator] {
            let game = next_game(socket).await;
            assert_eq!(game["version"], version + 1);
            assert_eq!(game["last"], json!([row, col]));
        }
        // The spectator's copy carries the watch id, not the room's.
        let (handle, viewer) = server
            .state
            .hub()
            .room_to_read(&GameId::from_trusted(&watch))
            .await
            .unwrap();
        assert!(!handle.current(viewer).json().get().contains(&id));
    }

    // A client that reconnects gets the current state at once.
    drop(spectator);
    let mut again = server.connect(&id).await;
    let game = next_game(&mut again).await;
    assert_eq!(game["version"], 5);
    assert_eq!(game["board"], "XX./.O./...");

    // Messages from a client are ignored; the socket stays useful.
    use futures_util::SinkExt;
    again.send(Message::text("hello")).await.unwrap();
    server
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&o),
            json!({"row": 2, "col": 2}),
        )
        .await;
    assert_eq!(next_game(&mut again).await["version"], 6);
}

#[tokio::test]
async fn shutting_down_closes_live_sockets_and_stops_the_server() {
    let mut server = Server::start(Arc::new(MemoryStore::new())).await;
    let created = server.create().await;
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let mut socket = server.connect(&id).await;
    next_game(&mut socket).await;
    server.inner.request_stop();
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                None | Some(Err(_)) => return None,
            }
        }
    })
    .await
    .expect("the socket closes");
    assert_eq!(closed, Some(1001), "going away");
    tokio::time::timeout(Duration::from_secs(10), server.inner.wait())
        .await
        .expect("the server stops")
        .unwrap();
}

#[tokio::test]
async fn the_computer_moves_after_a_restart_where_it_was_to_move() {
    // The server stopped after the room was saved but before the computer
    // (O, to start) had moved.
    let store = MemoryStore::new();
    let room = Room::new(
        GameId::from_trusted("resumed"),
        GameId::from_trusted("resumed-watch"),
        Rules::default(),
        Opponent::Computer(oxo_ai::StrategyKind::Perfect),
        Player::O,
        Token::from_trusted("tx").hash(),
    );
    store
        .commit(Change::new(&room, ChangeKind::Create))
        .await
        .unwrap();

    let server = Server::start(Arc::new(store.clone())).await;
    let mut socket = server.connect("resumed").await;
    let mut game = next_game(&mut socket).await;
    if game["version"] == 1 {
        game = next_game(&mut socket).await;
    }
    assert_eq!(game["version"], 2);
    assert_eq!(game["next"], "x");
    assert_eq!(game["board"].as_str().unwrap().matches('O').count(), 1);
    assert_eq!(
        store
            .get(&GameId::from_trusted("resumed"))
            .unwrap()
            .moves
            .len(),
        1
    );
}

#[tokio::test]
async fn idle_rooms_leave_memory_and_come_back_from_the_store() {
    let store = MemoryStore::new();
    let server = Server::start(Arc::new(store)).await;
    let hub = server.state.hub().clone();
    let (id, _, _, o) = server.seated().await;

    // Someone watching keeps a room in memory, however idle.
    let mut watcher = server.connect(&id).await;
    next_game(&mut watcher).await;
    assert_eq!(hub.evict_idle(Duration::ZERO), 0);
    assert_eq!(hub.rooms_in_memory(), 1);
    drop(watcher);
    common::eventually("the room never left memory", async || {
        match hub.evict_idle(Duration::ZERO) {
            0 => Err("none evicted"),
            _ => Ok(()),
        }
    })
    .await;
    assert_eq!(hub.rooms_in_memory(), 0);

    // It loads again on the next request, as it was, tokens and all.
    let (status, game) = server
        .call("GET", &format!("/api/games/{id}"), None, json!({}))
        .await;
    assert_eq!(
        (status, game["version"].as_u64()),
        (StatusCode::OK, Some(2))
    );
    let (status, _) = server
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&o),
            json!({"row": 0, "col": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "still X's turn");
    // A room used recently stays.
    assert_eq!(hub.evict_idle(Duration::from_secs(60)), 0);
    assert_eq!(hub.rooms_in_memory(), 1);
}

#[tokio::test]
async fn one_damaged_room_does_not_stop_the_others_resuming() {
    let store = MemoryStore::new();
    for (id, moves) in [
        (
            "damaged",
            vec![oxo_core::Cell::new(0, 0), oxo_core::Cell::new(0, 0)],
        ),
        ("fine", vec![]),
    ] {
        let mut record = Room::new(
            GameId::from_trusted(id),
            GameId::from_trusted(&format!("{id}-watch")),
            Rules::default(),
            Opponent::Computer(oxo_ai::StrategyKind::Rules),
            Player::O,
            Token::from_trusted("tx").hash(),
        )
        .record();
        record.moves = moves;
        store
            .commit(Change {
                room: record,
                kind: ChangeKind::Create,
                computer_turn: true,
                deadline: None,
            })
            .await
            .unwrap();
    }
    let server = Server::start(Arc::new(store.clone())).await;
    common::eventually("the fine game never resumed", async || {
        let fine = store.get(&GameId::from_trusted("fine")).unwrap();
        if fine.moves.is_empty() {
            Err("no move")
        } else {
            Ok(())
        }
    })
    .await;
    let (status, body) = server
        .call("GET", "/api/games/damaged", None, json!({}))
        .await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert_eq!(body["error"], "a stored game is damaged");
}

/// The next presence message on `socket` (GAMEs are skipped): who is
/// connected (the times it also carries are `life`'s).
async fn next_presence(socket: &mut Socket) -> Value {
    loop {
        let message = next_game(socket).await;
        if let Some(presence) = message.get("presence") {
            return json!({"x": presence["x"], "o": presence["o"]});
        }
    }
}

/// The computer is always here: its seat never reads as gone.
#[tokio::test]
async fn the_computer_is_always_present() {
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let (status, created) = server
        .call("POST", "/api/games", None, json!({"opponent": "random"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["game"]["id"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    let url = format!("ws://{}/api/games/{id}/live?token={token}", server.addr);
    let mut socket = tokio_tungstenite::connect_async(url).await.unwrap().0;
    loop {
        let message = next_game(&mut socket).await;
        if let Some(presence) = message.get("presence") {
            assert_eq!(
                (&presence["x"], &presence["o"], &presence["gone_ms"]["o"]),
                (&json!(true), &json!(true), &Value::Null),
                "{message}"
            );
            break;
        }
    }
}

#[tokio::test]
async fn players_see_each_other_come_and_go() {
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let (id, watch, x, o) = server.seated().await;
    let open = |query: String| {
        let url = format!("ws://{}/api/games/{query}", server.addr);
        async move { tokio_tungstenite::connect_async(url).await.unwrap().0 }
    };

    // A spectator asks for presence; nobody is here yet.
    let mut spectator = open(format!("{watch}/live?presence=true")).await;
    assert!(
        next_game(&mut spectator).await["board"].is_string(),
        "GAME first"
    );
    assert_eq!(
        next_presence(&mut spectator).await,
        json!({"x": false, "o": false})
    );
    // X connects with its token: X sees itself, the spectator sees X.
    let mut x_socket = open(format!("{id}/live?token={x}")).await;
    assert_eq!(
        next_presence(&mut x_socket).await,
        json!({"x": true, "o": false})
    );
    assert_eq!(
        next_presence(&mut spectator).await,
        json!({"x": true, "o": false})
    );
    // O comes and goes.
    let mut o_socket = open(format!("{id}/live?token={o}")).await;
    assert_eq!(
        next_presence(&mut x_socket).await,
        json!({"x": true, "o": true})
    );
    o_socket.close(None).await.unwrap();
    drop(o_socket);
    assert_eq!(
        next_presence(&mut x_socket).await,
        json!({"x": true, "o": false})
    );
    assert_eq!(
        next_presence(&mut spectator).await,
        json!({"x": true, "o": true})
    );
    assert_eq!(
        next_presence(&mut spectator).await,
        json!({"x": true, "o": false})
    );

    // Sockets that ask nothing get GAMEs only, as before.
    let mut plain = open(format!("{id}/live")).await;
    assert!(next_game(&mut plain).await["board"].is_string());
    let (status, _) = server
        .call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(&x),
            json!({"row": 0, "col": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(next_game(&mut plain).await["board"], "X../.../...");

    // A token that holds no seat, or one used with the watch id, is refused.
    for query in [
        format!("{id}/live?token=nope"),
        format!("{watch}/live?token={x}"),
    ] {
        let url = format!("ws://{}/api/games/{query}", server.addr);
        let refused = tokio_tungstenite::connect_async(url).await.unwrap_err();
        assert!(refused.to_string().contains("403"), "{refused}");
    }
}

/// The next message that is not a presence message.
async fn next_update(socket: &mut Socket) -> Value {
    common::next_update(socket, WAIT).await
}

/// The socket's next message other than a GAME or presence news is a close
/// frame with `code` and `reason`.
async fn closed_with(socket: &mut Socket, code: u16, reason: &str) {
    let closed = loop {
        let message = tokio::time::timeout(Duration::from_secs(5), socket.next())
            .await
            .expect("an answer");
        if !matches!(&message, Some(Ok(Message::Text(_)))) {
            break message;
        }
    };
    assert!(
        matches!(&closed, Some(Ok(Message::Close(Some(frame))))
            if u16::from(frame.code) == code && frame.reason.as_str() == reason),
        "{closed:?}"
    );
}

async fn send_text(socket: &mut Socket, text: String) {
    use futures_util::SinkExt;
    socket.send(Message::text(text)).await.unwrap();
}

#[tokio::test]
async fn players_can_send_their_moves_on_their_sockets() {
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let (id, watch, x, o) = server.seated().await;
    let mut x_socket = server.connect_as(&id, &x).await;
    let mut o_socket = server.connect_as(&id, &o).await;
    let mut spectator = server.connect(&watch).await;
    for socket in [&mut x_socket, &mut o_socket, &mut spectator] {
        assert_eq!(next_update(socket).await["version"], 2);
    }

    // A move on X's socket: everyone sees it, X's acknowledgement included.
    send_text(&mut x_socket, r#"{"row":0,"col":0,"version":2}"#.into()).await;
    for socket in [&mut x_socket, &mut o_socket, &mut spectator] {
        let game = next_update(socket).await;
        assert_eq!(game["version"], 3);
        assert_eq!(game["last"], json!([0, 0]));
    }

    // Refusals come back on the mover's socket only, as the POST's body
    // would with the status beside it, and the socket stays open.
    let refusals = [
        ('x', r#"{"row":1,"col":1,"version":3}"#, 409),
        ('o', r#"{"row":1,"col":1,"version":2}"#, 409),
        ('o', r#"{"row":0,"col":0,"version":3}"#, 422),
        ('o', r#"{"row":1}"#, 400),
        ('o', "not json", 400),
        ('o', r#"{"row":1,"col":1,"colour":"red"}"#, 400),
        // An array is not read as the fields in order.
        ('o', "[1,1,3,null]", 400),
    ];
    for (seat, frame, status) in refusals {
        let socket = if seat == 'x' {
            &mut x_socket
        } else {
            &mut o_socket
        };
        send_text(socket, frame.to_owned()).await;
        let answer = next_update(socket).await;
        assert_eq!(answer["status"], status, "{frame}: {answer}");
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{answer}"
        );
        if status == 409 {
            assert_eq!(answer["game"]["version"], 3, "{answer}");
        }
    }
    let (_, game) = server
        .call("GET", &format!("/api/games/{id}"), None, json!(null))
        .await;
    assert_eq!(game["version"], 3, "refused moves changed nothing: {game}");

    // A move without a version is played as POST plays one.
    send_text(&mut o_socket, r#"{"row":1,"col":1}"#.into()).await;
    for socket in [&mut x_socket, &mut o_socket, &mut spectator] {
        let game = next_update(socket).await;
        assert_eq!(game["version"], 4);
        assert_eq!(game["last"], json!([1, 1]));
    }

    // Moves are text frames: a binary one closes a player's socket (1008).
    {
        use futures_util::SinkExt;
        x_socket
            .send(Message::binary(br#"{"row":2,"col":2}"#.to_vec()))
            .await
            .unwrap();
    }
    let closed = tokio::time::timeout(Duration::from_secs(5), x_socket.next())
        .await
        .expect("an answer");
    assert!(
        matches!(&closed, Some(Ok(Message::Close(Some(frame))))
            if u16::from(frame.code) == 1008 && frame.reason.as_str() == "moves are text frames"),
        "{closed:?}"
    );

    // A spectator's socket takes no moves: it is closed (1008).
    send_text(&mut spectator, r#"{"row":2,"col":2}"#.into()).await;
    let closed = tokio::time::timeout(Duration::from_secs(5), spectator.next())
        .await
        .expect("an answer");
    assert!(
        matches!(&closed, Some(Ok(Message::Close(Some(frame)))) if u16::from(frame.code) == 1008),
        "{closed:?}"
    );

    // A text frame that is not UTF-8 is told so (1007) before the socket
    // closes (on a socket of X's own: the one above is closed).
    let mut x_again = server.connect_as(&id, &x).await;
    {
        use futures_util::SinkExt;
        use tokio_tungstenite::tungstenite::protocol::frame::{
            Frame,
            coding::{Data, OpCode},
        };
        let bad = b"{\"row\":2,\"col\":\xff}".to_vec();
        x_again
            .send(Message::Frame(Frame::message(
                bad,
                OpCode::Data(Data::Text),
                true,
            )))
            .await
            .unwrap();
    }
    closed_with(&mut x_again, 1007, "a text frame is UTF-8").await;

    // A message over the limit is told so (1009) before the socket closes,
    // not cut off (the messages before it may be presence news).
    send_text(&mut o_socket, "x".repeat(oxo_server::BODY_LIMIT + 1)).await;
    closed_with(&mut o_socket, 1009, "a message is at most 16384 bytes").await;
    let (_, game) = server
        .call("GET", &format!("/api/games/{id}"), None, json!(null))
        .await;
    assert_eq!(game["version"], 4, "{game}");
}

/// A client closing its socket gets the closing handshake's answer, a
/// close frame, before the connection ends (not a dropped connection,
/// which a browser reports as 1006, an unclean close).
#[tokio::test]
async fn a_client_that_closes_its_socket_gets_a_close_frame_back() {
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let (id, _, x, _) = server.seated().await;
    let mut socket = server.connect_as(&id, &x).await;
    common::next_update(&mut socket, WAIT).await;
    socket.close(None).await.unwrap();
    let answer = tokio::time::timeout(WAIT, async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Close(_))) => return Ok(()),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("the connection ended with no close frame".to_owned()),
            }
        }
    })
    .await
    .expect("an answer in time");
    assert_eq!(answer, Ok(()));
}

#[tokio::test]
async fn a_move_frame_repeated_with_its_key_is_answered_with_the_game() {
    use futures_util::SinkExt;
    let server = Server::start(Arc::new(MemoryStore::new())).await;
    let (id, _, x, _) = server.seated().await;
    let mut socket = server.connect_as(&id, &x).await;
    assert_eq!(
        common::next_update(&mut socket, WAIT).await["moves"],
        json!([])
    );
    let frame = json!({"row": 1, "col": 1, "key": "m1"}).to_string();
    socket.send(Message::text(frame.clone())).await.unwrap();
    let played = common::next_update(&mut socket, WAIT).await;
    assert_eq!(played["moves"], json!([[1, 1]]));
    // The same frame again (its answer was lost): the game as it stands,
    // on this socket, with nothing played twice.
    socket.send(Message::text(frame)).await.unwrap();
    let again = common::next_update(&mut socket, WAIT).await;
    assert_eq!(
        (&again["moves"], &again["version"]),
        (&json!([[1, 1]]), &played["version"])
    );
}
