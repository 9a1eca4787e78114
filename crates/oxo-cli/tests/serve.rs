//! `oxo serve` as a real process: killed with SIGKILL mid-game and started
//! again on the same database, nothing acknowledged is lost.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use oxo_test_support::{BlockingClient, ServeProcess};

use serde_json::{Value, json};

use oxo_test_support::PATIENCE;

/// A running `oxo serve` (the shared harness's process) and a client of it.
struct Server {
    process: ServeProcess,
    client: BlockingClient,
}

impl Server {
    fn start(db: &Path) -> Server {
        Server::start_with(db, &[])
    }

    fn start_with(db: &Path, extra: &[&str]) -> Server {
        let db = db.to_str().unwrap();
        // No rate limits: the tests' players all come from 127.0.0.1.
        let mut args = vec![
            "--db",
            db,
            "--creates-per-minute",
            "0",
            "--writes-per-second",
            "0",
        ];
        args.extend_from_slice(extra);
        let process = ServeProcess::start(Path::new(env!("CARGO_BIN_EXE_oxo")), &args).unwrap();
        let client = BlockingClient::new(process.addr);
        Server { process, client }
    }

    fn kill(self) {
        self.process.kill();
    }

    /// One request: (status, JSON body); an error when the server is gone.
    fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> Result<(u16, Value), String> {
        self.client.try_call(method, path, token, body)
    }

    fn get(&self, id: &str) -> Value {
        let (status, game) = self
            .call("GET", &format!("/api/games/{id}"), None, &Value::Null)
            .unwrap();
        assert_eq!(status, 200, "{game}");
        game
    }

    fn play(
        &self,
        id: &str,
        token: &str,
        row: u32,
        col: u32,
        version: u64,
    ) -> Result<(u16, Value), String> {
        self.call(
            "POST",
            &format!("/api/games/{id}/moves"),
            Some(token),
            &json!({"row": row, "col": col, "version": version}),
        )
    }

    /// A two-player game with both seats taken: (id, X token, O token).
    fn seated(&self, settings: &Value) -> (String, String, String) {
        let seated = self.client.seated_game(settings).unwrap();
        (seated.id, seated.x, seated.o)
    }
}

#[test]
fn a_game_survives_sigkill_and_finishes_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    let (id, x, o) = server.seated(&json!({}));
    assert_eq!(server.play(&id, &x, 0, 0, 2).unwrap().0, 200);
    assert_eq!(server.play(&id, &o, 1, 0, 3).unwrap().0, 200);
    assert_eq!(server.play(&id, &x, 0, 1, 4).unwrap().0, 200);
    let before = server.get(&id);
    server.kill();

    let server = Server::start(&db);
    assert_eq!(server.get(&id), before, "every acknowledged move is back");
    assert_eq!(server.play(&id, &o, 1, 1, 5).unwrap().0, 200);
    let (status, won) = server.play(&id, &x, 0, 2, 6).unwrap();
    assert_eq!(status, 200);
    assert_eq!(won["game"]["status"], "won");
    assert_eq!(won["game"]["score"], json!({"x": 1, "o": 0, "draws": 0}));
}

#[test]
fn sigkill_under_load_loses_no_acknowledged_move() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    // Games that cannot end while the moves pour in: fifteen in a row on a
    // 15×15 board, where the moves alternate along each row.
    let games: Vec<_> = (0..8)
        .map(|_| server.seated(&json!({"size": "15x15", "k": 15})))
        .collect();
    let mut acked: Vec<Option<Value>> = vec![None; games.len()];
    let started = Instant::now();
    let mut killer = Some(server);
    // Keep playing, game after game, until the server is killed under us.
    'play: for turn in 0u32.. {
        for (i, (id, x, o)) in games.iter().enumerate() {
            let Some(server) = killer.as_ref() else {
                break 'play;
            };
            if started.elapsed() > Duration::from_millis(400) {
                killer.take().unwrap().kill();
                break 'play;
            }
            let version = u64::from(turn) + 2;
            let token = if turn % 2 == 0 { x } else { o };
            let (row, col) = (turn / 15, turn % 15);
            match server.play(id, token, row, col, version) {
                Ok((200, reply)) => acked[i] = Some(reply["game"].clone()),
                Ok((status, reply)) => panic!("move refused: {status} {reply}"),
                Err(_) => break 'play,
            }
        }
    }
    let server = Server::start(&db);
    let mut checked = 0;
    for ((id, _, _), acked) in games.iter().zip(&acked) {
        let Some(acked) = acked else { continue };
        let now = server.get(id);
        // Moves in flight at the kill may or may not have landed; every
        // acknowledged one must have.
        let (a, n) = (
            acked["version"].as_u64().unwrap(),
            now["version"].as_u64().unwrap(),
        );
        assert!(
            n == a || n == a + 1,
            "game {id}: acknowledged version {a}, found {n}"
        );
        let (a, n) = (
            acked["board"].as_str().unwrap(),
            now["board"].as_str().unwrap(),
        );
        for (was, is) in a.chars().zip(n.chars()) {
            assert!(was == '.' || was == is, "game {id}: {a} became {n}");
        }
        checked += 1;
    }
    assert!(checked > 0, "no move was acknowledged before the kill");
    let moves: u64 = acked
        .iter()
        .flatten()
        .map(|g| g["version"].as_u64().unwrap() - 2)
        .sum();
    eprintln!("{moves} acknowledged moves in {checked} games survived the kill");
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("oxo.db"));
    assert_eq!(
        server
            .call("GET", "/healthz", None, &Value::Null)
            .unwrap()
            .0,
        200
    );
    let status = Command::new("kill")
        .args(["-TERM", &server.process.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut server = server;
    let deadline = Instant::now() + PATIENCE;
    let exit = loop {
        if let Some(exit) = server.process.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(exit.code(), Some(0));
}

#[test]
fn a_database_that_cannot_be_opened_is_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(dir.path()) // a directory, not a database file
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // One sentence, which says what and why.
    assert_eq!(
        stderr.trim_end(),
        format!(
            "oxo: cannot open the database {}: it is a directory",
            dir.path().display()
        )
    );
    let missing = dir.path().join("nowhere").join("oxo.db");
    let (code, stderr) = refused(&missing, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "oxo: cannot open the database {}: the directory {} does not exist",
            missing.display(),
            dir.path().join("nowhere").display()
        )
    );

    let output = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "bad usage");
    let output = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "nosuchhost.invalid:80"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "bad usage");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .contains("\"nosuchhost.invalid:80\" is not HOST:PORT with a host this machine knows"),
        "{stderr}"
    );
}

#[test]
fn a_host_name_is_an_address_to_listen_on() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--memory", "--addr", "localhost:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    // localhost is 127.0.0.1 or ::1, whichever the system lists first.
    assert!(
        line.starts_with("oxo serve: listening on http://127.0.0.1:")
            || line.starts_with("oxo serve: listening on http://[::1]:"),
        "{line:?}"
    );
}

#[test]
fn a_second_server_on_one_database_is_refused_until_the_first_dies() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let first = Server::start(&db);
    let (id, _, _) = first.seated(&json!({}));
    let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "it never listened: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let pid = first.process.pid();
    assert_eq!(
        stderr.trim_end(),
        format!(
            "oxo: the database {} is in use by another oxo serve (process {pid}); stop it \
             first, or give each server its own --db (several servers on one database need \
             PostgreSQL)",
            db.display()
        ),
    );
    // SIGKILL leaves the lock file but not the lock: the next start works.
    first.kill();
    let server = Server::start(&db);
    assert_eq!(server.get(&id)["status"], "playing");
}

#[test]
fn a_model_given_to_serve_adds_its_board_for_the_learned_opponent() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("3x4.oxo");
    let trained = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args([
            "train",
            "--size",
            "3x4",
            "--k",
            "3",
            "--episodes",
            "2000",
            "--out",
        ])
        .arg(&model)
        .output()
        .unwrap();
    assert!(trained.status.success(), "{trained:?}");
    let server = Server::start_with(
        &dir.path().join("oxo.db"),
        &["--model", model.to_str().unwrap()],
    );
    let (status, info) = server.call("GET", "/api/info", None, &Value::Null).unwrap();
    assert_eq!(status, 200);
    let learned = info["opponents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "learned")
        .unwrap()
        .clone();
    assert!(
        learned["boards"]
            .as_array()
            .unwrap()
            .contains(&json!({"size": "3x4", "k": 3})),
        "{learned}"
    );
    let (status, created) = server
        .call(
            "POST",
            "/api/games",
            None,
            &json!({"size": "3x4", "k": 3, "opponent": "learned", "first": "o"}),
        )
        .unwrap();
    assert_eq!(status, 201, "{created}");
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    // The computer, holding O and moving first, answers by itself.
    let deadline = Instant::now() + PATIENCE;
    while server.get(&id)["version"].as_u64().unwrap() < 2 {
        assert!(Instant::now() < deadline, "no computer move");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();

    // A file that is not a model stops the server before it starts: exit 2.
    let bad = dir.path().join("bad.oxo");
    std::fs::write(&bad, b"nope").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--memory", "--addr", "127.0.0.1:0", "--model"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an oxo model file"));
}

/// Undoes `chattr +i` on drop, so the temporary directory can go.
struct Immutable(Vec<std::path::PathBuf>);

impl Drop for Immutable {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = Command::new("chattr").arg("-i").arg(path).status();
        }
    }
}

#[test]
fn a_directory_that_cannot_be_written_is_named_as_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (empty, full) = (dir.path().join("empty"), dir.path().join("full"));
    std::fs::create_dir(&empty).unwrap();
    std::fs::create_dir(&full).unwrap();
    let kept = full.join("oxo.db");
    drop(oxo_server::SqliteStore::open(&kept).unwrap());
    // Immutable directories (as root, modes stop nothing): no file can be
    // made in them, neither a new database nor a kept one's journal.
    for path in [&empty, &full] {
        let status = Command::new("chattr").arg("+i").arg(path).status().unwrap();
        assert!(status.success(), "chattr +i {} failed", path.display());
    }
    let _undo = Immutable(vec![empty.clone(), full.clone()]);
    let new = empty.join("oxo.db");
    let (code, stderr) = refused(&new, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "oxo: cannot open the database {}: it cannot be made; check that the directory {} \
             is writable",
            new.display(),
            empty.display()
        )
    );
    let (code, stderr) = refused(&kept, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.trim_end().ends_with(&format!(
            "check that the directory {} is writable, as SQLite keeps its journal beside the file",
            full.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_database_that_cannot_be_written_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    drop(oxo_server::SqliteStore::open(&db).unwrap());
    // As root, file modes do not stop writes; an immutable file does (ext4,
    // as on the machines oxo is tested on). SQLite then opens it read-only.
    let paths = vec![db.clone()];
    for path in &paths {
        let status = Command::new("chattr").arg("+i").arg(path).status().unwrap();
        assert!(status.success(), "chattr +i {} failed", path.display());
    }
    let _undo = Immutable(paths);
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oxo serve started on a database it cannot write");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the database cannot be written"),
        "{stderr}"
    );
}

#[test]
fn a_damaged_room_is_a_500_and_a_damaged_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    let (id, x, o) = server.seated(&json!({}));
    assert_eq!(server.play(&id, &x, 0, 0, 2).unwrap().0, 200);
    assert_eq!(server.play(&id, &o, 1, 1, 3).unwrap().0, 200);
    let (other, _, _) = server.seated(&json!({}));
    server.kill();
    // A lost move row, as a damaged page loses it: same version, one mark
    // fewer. The room must be reported damaged, never served without it.
    assert_eq!(delete_move_2(&db, &id), 1);
    let server = Server::start(&db);
    assert_damaged(&server, &id);
    assert_eq!(
        server.get(&other)["status"],
        "playing",
        "the others are served"
    );
    server.kill();

    // A file whose pages are scribbled over fails the check at start...
    let mut bytes = std::fs::read(&db).unwrap();
    let len = bytes.len();
    for b in &mut bytes[len - 4096..] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    let _ = std::fs::remove_file(dir.path().join("oxo.db-wal"));
    let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the database file is damaged"), "{stderr}");
}

#[test]
fn games_never_played_and_long_unchanged_are_deleted_once_the_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    let create = |server: &Server| {
        let (status, created) = server.call("POST", "/api/games", None, &json!({})).unwrap();
        assert_eq!(status, 201, "{created}");
        created["game"]["id"].as_str().unwrap().to_owned()
    };
    let (old, recent) = (create(&server), create(&server));
    let (played, x, _) = server.seated(&json!({}));
    assert_eq!(server.play(&played, &x, 1, 1, 2).unwrap().0, 200);
    server.kill();
    // Nobody changed these for 31 days, the other for 29.
    let conn = rusqlite::Connection::open(&db).unwrap();
    for (id, days) in [(&old, 31), (&played, 31), (&recent, 29)] {
        let aged = conn
            .execute(
                "UPDATE rooms SET updated_at = updated_at - ?2 * 86400 WHERE id = ?1",
                rusqlite::params![id, days],
            )
            .unwrap();
        assert_eq!(aged, 1);
    }
    drop(conn);
    // The default is 30 days, and the first look comes at start.
    let process = ServeProcess::start_logging(
        Path::new(env!("CARGO_BIN_EXE_oxo")),
        &["--db", db.to_str().unwrap()],
        "info",
    )
    .unwrap();
    let client = BlockingClient::new(process.addr);
    let server = Server { process, client };
    let deadline = Instant::now() + PATIENCE;
    while !server
        .process
        .log_text()
        .contains("deleted games never played and long unchanged games=1")
    {
        assert!(Instant::now() < deadline, "{}", server.process.log_text());
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, body) = server
        .call("GET", &format!("/api/games/{old}"), None, &Value::Null)
        .unwrap();
    assert_eq!(status, 404, "{body}");
    assert_eq!(server.get(&played)["moves"], json!([[1, 1]]));
    assert_eq!(server.get(&recent)["status"], "waiting");
}

/// Delete move 2 of `id`'s round straight in the file; the rows deleted.
fn delete_move_2(db: &Path, id: &str) -> usize {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute(
            "DELETE FROM moves WHERE ply = 2 AND room = (SELECT key FROM rooms WHERE id = ?1)",
            [id],
        )
        .unwrap()
}

#[test]
fn rate_limits_are_set_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let process = ServeProcess::start(
        Path::new(env!("CARGO_BIN_EXE_oxo")),
        &["--db", db.to_str().unwrap(), "--creates-per-minute", "1"],
    )
    .unwrap();
    let client = BlockingClient::new(process.addr);
    // A burst of 40 s of the rate, at least one, then one a minute.
    let statuses: Vec<u16> = (0..1)
        .map(|_| {
            client
                .send("POST", "/api/games", None, "{}")
                .unwrap()
                .status
        })
        .collect();
    assert_eq!(statuses, [201]);
    let refused = client.send("POST", "/api/games", None, "{}").unwrap();
    assert_eq!(refused.status, 429);
    assert!(
        refused.body.contains("too many requests"),
        "{}",
        refused.body
    );
}

#[test]
fn connections_past_an_address_cap_are_told_in_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start_with(&db, &["--max-connections-per-address", "1"]);
    // One connection held open (its request head still to come) fills
    // the cap; the next is closed, and the log says so at once.
    let _held = std::net::TcpStream::connect(server.process.addr).unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let _refused = std::net::TcpStream::connect(server.process.addr);
        let log = server.process.log_text();
        if log.contains(
            "closed connections from addresses that had 1 open already \
             (--max-connections-per-address) refused=1",
        ) {
            assert!(log.contains("WARN"), "{log}");
            break;
        }
        assert!(Instant::now() < deadline, "{log}");
    }
}

#[test]
fn max_connections_past_the_open_file_limit_is_refused() {
    let out = Command::new("sh")
        .args([
            "-c",
            "ulimit -n 200 && exec \"$0\" serve --memory --addr 127.0.0.1:0 --max-connections 1000",
            env!("CARGO_BIN_EXE_oxo"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "--max-connections 1000 is more than this process can hold: its open-file limit \
             allows 136 connections"
        ),
        "{stderr}"
    );
}

/// Fold the log into the database file (as closing it does), then replace
/// the first `from` within the bytes `range` of the file by `to`, of the
/// same length.
fn patch_file(db: &Path, range: std::ops::Range<usize>, from: &[u8], to: &[u8]) {
    drop(rusqlite::Connection::open(db).unwrap());
    let mut bytes = std::fs::read(db).unwrap();
    let end = range.end.min(bytes.len());
    let at = range.start
        + bytes[range.start..end]
            .windows(from.len())
            .position(|w| w == from)
            .expect("the bytes to damage");
    bytes[at..at + to.len()].copy_from_slice(to);
    std::fs::write(db, &bytes).unwrap();
}

/// `oxo serve` on `db` that should not start: its exit code and stderr. A
/// server that starts anyway prints where it listens, and the test fails
/// there instead of waiting for a server that never exits.
fn refused(db: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut listening = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut listening)
        .unwrap();
    if !listening.is_empty() {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "it started and listened: {listening}stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_empty_database_file_is_refused_not_taken_as_new() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    std::fs::write(&db, b"").unwrap();
    let (code, stderr) = refused(&db, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "oxo: cannot open the database {0}: the database file {0} is empty (0 bytes), as a \
             truncated database would be, so it is not taken as a new one; to start afresh, \
             delete it",
            db.display()
        )
    );
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "left as it was");
}

#[test]
fn stored_text_that_is_not_utf8_is_a_500_not_a_503() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    let (id, _, _) = server.seated(&json!({}));
    let (other, _, _) = server.seated(&json!({}));
    server.kill();
    // A byte that is not UTF-8 in a text column no index holds.
    let digest: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT digest FROM rooms WHERE id = ?1", [&id], |row| {
            row.get(0)
        })
        .unwrap();
    patch_file(&db, 0..usize::MAX, digest.as_bytes(), &[0xff]);
    let server = Server::start(&db);
    for _ in 0..2 {
        assert_damaged(&server, &id);
    }
    assert_eq!(
        server.get(&other)["status"],
        "playing",
        "the others are served"
    );
    let ready = server.call("GET", "/readyz", None, &Value::Null);
    assert_eq!(ready.map(|(status, _)| status), Ok(200));
}

#[test]
fn a_damaged_id_index_is_refused_at_start_and_never_read_as_absent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("oxo.db");
    let server = Server::start(&db);
    let (id, _, _) = server.seated(&json!({}));
    let watch = server.get(&id)["watch"].as_str().unwrap().to_owned();
    server.kill();
    // The room's id in its entry of the id index, and only there.
    let (page, size): (usize, usize) = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let page: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_rooms_1'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let size: i64 = conn
            .pragma_query_value(None, "page_size", |row| row.get(0))
            .unwrap();
        (page.try_into().unwrap(), size.try_into().unwrap())
    };
    // Its first character changed: the ids' alphabet holds 'z', so a room
    // whose id starts with it gets 'y' instead.
    let other: &[u8] = if id.starts_with('z') { b"y" } else { b"z" };
    patch_file(&db, (page - 1) * size..page * size, id.as_bytes(), other);
    let (code, stderr) = refused(&db, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the database file is damaged ("),
        "{stderr}"
    );
    assert!(
        stderr.trim_end().ends_with(
            "); restore a backup (with the server stopped, and the file's -wal and -shm files \
             deleted first: see Backups in docs/manual/serve.md), or start with --skip-check to \
             serve the rooms that are intact"
        ),
        "{stderr}"
    );
    // Told to skip the check, the room found by its watch id is damage.
    let server = Server::start_with(&db, &["--skip-check"]);
    assert_damaged(&server, &watch);
}

/// The game `id` (or watch id) answers 500 "a stored game is damaged".
fn assert_damaged(server: &Server, id: &str) {
    let (status, body) = server
        .call("GET", &format!("/api/games/{id}"), None, &Value::Null)
        .unwrap();
    assert_eq!(status, 500, "{body}");
    assert_eq!(body, json!({"error": "a stored game is damaged"}));
}

#[test]
fn a_file_name_for_db_is_a_file_name_even_when_it_starts_with_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", "file:x.db"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(first.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // Named in full, where it was started.
    let full = std::path::absolute(dir.path().join("file:x.db")).unwrap();
    assert!(
        line.ends_with(&format!("(games kept in {})\n", full.display())),
        "{line:?}"
    );
    // The data is in the file of that name, beside its lock: SQLite did
    // not read the name as a URI for x.db.
    let exists = |name: &str| dir.path().join(name).exists();
    let found = (
        exists("file:x.db"),
        exists("file:x.db.lock"),
        exists("x.db"),
    );
    if found != (true, true, false) {
        first.kill().unwrap();
        first.wait().unwrap();
        panic!("file:x.db, its lock and x.db exist: {found:?}");
    }
    // The same file by another name is refused, as the lock is on it.
    let second = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", "./file:x.db"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .output();
    first.kill().unwrap();
    first.wait().unwrap();
    let second = second.unwrap();
    assert_eq!(second.status.code(), Some(1), "{second:?}");
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("is in use by another oxo serve"),
        "{second:?}"
    );
}

#[test]
fn a_file_that_is_not_an_oxo_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    // Not SQLite at all: --skip-check cannot help, so it is not suggested.
    let text = dir.path().join("text.db");
    std::fs::write(&text, "notes\n".repeat(200)).unwrap();
    for extra in [&[][..], &["--skip-check"][..]] {
        let (code, stderr) = refused(&text, extra);
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "oxo: {} is not an oxo database (it is not a SQLite database); name oxo's own \
                 database, or one where no file is for a new one",
                text.display()
            )
        );
    }
    // Another program's SQLite files: never given oxo's tables, nor served
    // with every request failing.
    for (name, sql, why) in [
        (
            "notes.db",
            "CREATE TABLE notes (text);",
            "it has tables oxo did not make: notes",
        ),
        (
            "v11.db",
            "PRAGMA user_version = 11;",
            "its schema version is 11, but it has none of oxo's tables",
        ),
        (
            "v5.db",
            "PRAGMA user_version = 5; CREATE TABLE notes (text);",
            "it has tables oxo did not make: notes",
        ),
    ] {
        let db = dir.path().join(name);
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let before = std::fs::read(&db).unwrap();
        let (code, stderr) = refused(&db, &[]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "oxo: {} is not an oxo database ({why});",
                db.display()
            )),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&db).unwrap(), before, "{name} left as it was");
    }
}

/// `oxo serve --addr 127.0.0.1:0` with `args` and `OXO_DB` set to `env_db`
/// (if given), refused before it listens: its exit code and stderr.
fn serve_refused(args: &[&str], env_db: Option<&str>) -> (Option<i32>, String) {
    let mut serve = Command::new(env!("CARGO_BIN_EXE_oxo"));
    serve.args(["serve", "--addr", "127.0.0.1:0"]).args(args);
    if let Some(db) = env_db {
        serve.env("OXO_DB", db);
    }
    let out = serve.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_postgres_url_in_any_case_is_postgres_and_no_url_password_is_echoed() {
    // Nothing listens on port 1: the connection is refused at once.
    for url in [
        "POSTGRES://oxo:sekret@127.0.0.1:1/oxo",
        "PostgreSQL://oxo:sekret@127.0.0.1:1/oxo",
    ] {
        let (code, stderr) = serve_refused(&["--db", url], None);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("PostgreSQL"), "{stderr}");
        assert!(!stderr.contains("sekret"), "{stderr}");
    }
    // Any other URL is bad usage, said without the URL.
    let (code, stderr) = serve_refused(&[], Some("mysql://oxo:sekret@127.0.0.1:1/oxo"));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "oxo: OXO_DB is a mysql:// URL: name a SQLite file or a postgres:// URL"
    );
    // --skip-check has no file to skip the check of in PostgreSQL.
    let postgres = "postgres://oxo:sekret@127.0.0.1:1/oxo";
    let (code, stderr) = serve_refused(&["--skip-check", "--db", postgres], None);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "oxo: --skip-check skips the check of a SQLite file; --db names a PostgreSQL database"
    );
}

#[test]
fn model_files_exit_as_the_help_says() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.oxo");
    std::fs::write(&garbage, "not a model\n").unwrap();
    let help = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for (model, code, says) in [
        (
            dir.path().join("missing.oxo"),
            1,
            "or a --model file could not be read",
        ),
        (garbage, 2, "(a --model file that is not a usable model)"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
            .args(["serve", "--addr", "127.0.0.1:0", "--memory", "--model"])
            .arg(&model)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{out:?}");
        assert!(out.stdout.is_empty(), "it never listened: {out:?}");
        assert!(help.contains(says), "{help}");
    }
}
