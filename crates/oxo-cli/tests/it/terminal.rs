//! `oxo play` on a real terminal: the binary under a pseudo-terminal made
//! by util-linux's `script` (Debian's `bsdutils`, an essential package, so
//! always installed), keys written to it as a person would type them.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxo_test_support::PATIENCE;

/// The `oxo` binary running on a 80×24 pseudo-terminal.
struct Pty {
    child: Child,
    keys: Option<ChildStdin>,
    screen: Arc<Mutex<Vec<u8>>>,
}

impl Pty {
    fn start(args: &str) -> Pty {
        let oxo = env!("CARGO_BIN_EXE_oxo");
        Pty::run(&format!("stty rows 24 cols 80; exec {oxo} {args}"))
    }

    /// `oxo play ARGS` started by a shell that first prints its process
    /// id (`pid=N`, which oxo keeps as it replaces the shell), then, once
    /// oxo has ended, its exit code (`exit=N`) and the terminal's modes
    /// (`stty -a`).
    fn start_watched(args: &str) -> Pty {
        let oxo = env!("CARGO_BIN_EXE_oxo");
        Pty::run(&format!(
            "stty rows 24 cols 80; sh -c 'echo pid=$$; exec {oxo} {args}'; echo exit=$?; stty -a"
        ))
    }

    /// The process id a [`Pty::start_watched`] shell printed (or prints:
    /// the game it started may draw first), once its line is whole.
    fn pid(&self) -> String {
        let start = Instant::now();
        loop {
            let output = self.output();
            if let Some(at) = output.find("pid=")
                && output[at..].contains('\n')
            {
                return output[at + 4..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
            }
            assert!(start.elapsed() < PATIENCE, "the shell printed no pid");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn run(command: &str) -> Pty {
        // With every signal's action the default, as on a terminal, whatever
        // the test runner ignores: one started with nohup, or in the
        // background of a shell without job control, ignores SIGHUP or
        // SIGINT, and what it starts inherits that (a shell cannot even
        // trap a signal ignored when it started).
        let mut child = Command::new("env")
            .args(["--default-signal", "script", "-q", "-f", "-e", "-c"])
            .arg(command)
            .arg("/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env_remove("NO_COLOR")
            // A terminal that draws screens, whatever the runner's is (CI
            // may have none).
            .env("TERM", "xterm-256color")
            .spawn()
            .expect("util-linux's script makes the pseudo-terminal");
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut out = child.stdout.take().unwrap();
        let sink = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n @ 1..) = out.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let keys = child.stdin.take();
        Pty {
            child,
            keys,
            screen,
        }
    }

    /// Everything written so far, escape sequences and all.
    fn output(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// The text on the screen now, as a terminal would show it.
    fn screen(&self) -> String {
        let size = |n| std::num::NonZero::new(n).expect("a screen size");
        let mut parser = vt100::Parser::new(size(24), size(80), 0);
        parser.process(&self.screen.lock().unwrap());
        parser.screen().contents()
    }

    /// Wait until the screen shows `text`.
    fn wait_for(&self, text: &str) {
        let start = Instant::now();
        while !self.screen().contains(text) {
            assert!(
                start.elapsed() < PATIENCE,
                "no {text:?} on the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_keys(&mut self, keys: &[u8]) {
        let stdin = self.keys.as_mut().unwrap();
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
    }

    /// Wait for the program to end; its status, everything it wrote and
    /// the screen it left.
    fn finish(mut self) -> (ExitStatus, String, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > PATIENCE {
                let _ = self.child.kill();
                panic!("oxo play did not end:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(self.keys.take());
        std::thread::sleep(Duration::from_millis(100));
        (status, self.output(), self.screen())
    }
}

/// A test that fails leaves no game running: killing `script` closes the
/// terminal, which ends the game (and frees the output it shares with the
/// test runner).
impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Alternate screen, mouse reports (the basic ones), cursor shown: on, off.
const ALTERNATE_ON: &str = "\x1b[?1049h";
const ALTERNATE_OFF: &str = "\x1b[?1049l";
const MOUSE_ON: &str = "\x1b[?1000h";
const MOUSE_OFF: &str = "\x1b[?1000l";
const CURSOR_SHOWN: &str = "\x1b[?25h";
const CURSOR_HIDDEN: &str = "\x1b[?25l";

#[test]
fn a_terminal_gets_the_full_screen_game_and_gets_itself_back() {
    let mut pty = Pty::start("play --o perfect --seed 1");
    pty.wait_for("X to move: your turn");
    assert!(pty.screen().contains("3×3, 3 in a row"));
    // Enter plays the centre; the computer answers; a taken cell is
    // refused with the reason; q leaves.
    pty.type_keys(b"\r");
    pty.wait_for("2. O");
    assert!(pty.screen().contains("1. X 2 2"), "{}", pty.screen());
    pty.type_keys(b" ");
    pty.wait_for("row 2, column 2 is taken by X");
    pty.type_keys(b"q");
    let (status, output, screen) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    for sequence in [ALTERNATE_ON, MOUSE_ON, ALTERNATE_OFF, MOUSE_OFF] {
        assert!(output.contains(sequence), "no {sequence:?} in {output:?}");
    }
    // Clicks are asked for, not the pointer's moves (nor drags).
    for motion in ["\x1b[?1002h", "\x1b[?1003h"] {
        assert!(!output.contains(motion), "{motion:?} in {output:?}");
    }
    // The score comes after the terminal is restored, on the normal screen.
    let restored = output.rfind(ALTERNATE_OFF).unwrap();
    assert!(output[restored..].contains("Score: X 0, O 0, draws 0"));
    assert!(output.rfind(MOUSE_OFF).unwrap() < output.rfind("Score:").unwrap());
    assert_eq!(screen.trim(), "Score: X 0, O 0, draws 0");
}

#[test]
fn control_c_leaves_the_game_cleanly_too() {
    let mut pty = Pty::start("play --size 15 --k 5 --o alphabeta --seed 1");
    pty.wait_for("15×15, 5 in a row");
    // Up, left, play: row 7, column 7.
    pty.type_keys(b"\x1b[A\x1b[D\r");
    pty.wait_for("2. O");
    assert!(pty.screen().contains("1. X 7 7"), "{}", pty.screen());
    pty.type_keys(b"\x03");
    let (status, output, screen) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    let restored = output.rfind(ALTERNATE_OFF).expect("the screen is restored");
    assert!(output[restored..].contains("Score: X 0, O 0, draws 0"));
    assert_eq!(screen.trim(), "Score: X 0, O 0, draws 0");
}

/// SIGTERM, SIGHUP and SIGQUIT end the game as q does, the terminal
/// restored (raw mode off, the cursor shown) and the score printed, with
/// the exit code 128 and the signal's number.
#[test]
fn a_signal_ends_the_game_with_the_terminal_restored() {
    for (signal, code) in [("TERM", 143), ("HUP", 129), ("QUIT", 131)] {
        let mut pty = Pty::start_watched("play --o perfect --seed 1");
        pty.wait_for("X to move: your turn");
        pty.type_keys(b"\r");
        pty.wait_for("2. O");
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &pty.pid()])
            .status()
            .unwrap();
        assert!(killed.success());
        let (status, output, _) = pty.finish();
        assert!(status.success(), "{signal}: {status}: {output:?}");
        let restored = output.rfind(ALTERNATE_OFF).expect("the screen is restored");
        let after = &output[restored..];
        assert!(after.contains("Score: X 0, O 0, draws 0"), "{after:?}");
        assert!(
            after.contains(&format!("exit={code}")),
            "{signal}: {after:?}"
        );
        assert!(output.rfind(MOUSE_OFF).unwrap() > output.rfind(MOUSE_ON).unwrap());
        assert!(output.rfind(CURSOR_SHOWN).unwrap() > output.rfind(CURSOR_HIDDEN).unwrap());
        // Out of raw mode: lines are edited and echoed again.
        for mode in ["icanon", "echo ", "isig"] {
            assert!(
                after.contains(mode) && !after.contains(&format!("-{mode}")),
                "{signal}: {mode:?} not on in {after:?}"
            );
        }
    }
}

/// A real hangup, the terminal gone from under the game, ends it with 129
/// as `kill -HUP` does: restoring a terminal that is no longer there must
/// not panic (it did, exit 101, when ratatui's drop wrote to it).
#[test]
fn a_terminal_that_goes_away_ends_the_game_with_129() {
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    let oxo = env!("CARGO_BIN_EXE_oxo");
    // As an interactive shell does, the shell (the session's leader, which
    // the hangup's SIGHUP reaches) passes it on to the game, then writes
    // the game's exit code. The game reads the terminal, not the /dev/null
    // a shell gives a job it runs in the background.
    let mut pty = Pty::run(&format!(
        "stty rows 24 cols 80; exec 3<&0; trap 'kill -HUP $pid' HUP; \
         {oxo} play --o perfect --seed 1 <&3 & pid=$!; wait $pid; wait $pid; echo $? > {}",
        code.display()
    ));
    pty.wait_for("X to move: your turn");
    // Killing `script` closes the terminal's other end.
    pty.child.kill().unwrap();
    pty.child.wait().unwrap();
    assert_eq!(exit_code_written(&code), "129");
}

/// A hangup whose SIGHUP never reaches the game ends it with 129 too: the
/// game notices the terminal is gone. It did not, and spun on the dead
/// terminal at full CPU forever. Here the game runs in a session of its
/// own (`setsid`), so the hangup's SIGHUP, sent within the terminal's
/// session, passes it by, as it does a game whose shell neither passes it
/// on nor is in its process group.
#[test]
fn a_terminal_that_goes_away_without_a_sighup_ends_the_game_too() {
    assert_eq!(
        exit_code_when_the_terminal_goes("play --o perfect --seed 1", "X to move: your turn"),
        "129"
    );
}

/// The exit code of `oxo ARGS`, run in a session of its own on a terminal
/// (so that the hangup's SIGHUP passes it by), once `shown` is on the
/// screen and the terminal has gone.
fn exit_code_when_the_terminal_goes(args: &str, shown: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    let oxo = env!("CARGO_BIN_EXE_oxo");
    // The game reads the terminal, not the /dev/null a shell gives a job it
    // runs in the background; the shell prints its process id.
    let mut pty = Pty::run(&format!(
        "stty rows 24 cols 80; exec 3<&0; trap '' HUP; \
         setsid {oxo} {args} <&3 & pid=$!; echo pid=$pid; \
         wait $pid; echo $? > {}",
        code.display()
    ));
    pty.wait_for(shown);
    // A game that never ends (the test failing) is not left running.
    let _game = KillOnDrop(pty.pid());
    pty.child.kill().unwrap();
    pty.child.wait().unwrap();
    exit_code_written(&code)
}

/// The line protocol on a terminal that goes away (no SIGHUP reaching it,
/// as above) ends with 129 too, as the full-screen game does: its read
/// fails with EIO. It exited 1 with the OS's words.
#[test]
fn the_line_protocol_on_a_terminal_that_goes_away_ends_with_129() {
    assert_eq!(
        exit_code_when_the_terminal_goes("play --plain --o perfect --seed 1", "X move (row col): "),
        "129"
    );
}

/// The exit code a shell wrote to `path` once the game ended (a test's
/// bound, not a speed test).
fn exit_code_written(path: &std::path::Path) -> String {
    let start = Instant::now();
    loop {
        match std::fs::read_to_string(path) {
            Ok(text) if text.ends_with('\n') => return text.trim().to_owned(),
            _ => {
                assert!(start.elapsed() < PATIENCE, "oxo never ended");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// Kills the process of this id when dropped, test failing or not.
struct KillOnDrop(String);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &self.0])
            .stderr(Stdio::null())
            .status();
    }
}

/// A stop sent from elsewhere cannot restore the terminal first, and a
/// shell then puts its own modes back (here `stty sane` while the game is
/// stopped); once continued, the game takes raw mode again: a key moves
/// the cursor at once rather than waiting in a line for Enter.
#[test]
fn a_game_stopped_from_elsewhere_takes_the_terminal_back_when_continued() {
    let mut pty = Pty::start_watched("play --o perfect --seed 1");
    pty.wait_for("cursor: row 2, column 2");
    let pid = pty.pid();
    let signal = |name: &str| {
        let sent = Command::new("kill").args([name, &pid]).status().unwrap();
        assert!(sent.success());
    };
    signal("-STOP");
    let tty = format!("/proc/{pid}/fd/0");
    let sane = Command::new("stty")
        .args(["-F", &tty, "sane"])
        .status()
        .unwrap();
    assert!(sane.success());
    signal("-CONT");
    // Typed again until seen: the first `l` may come before the game has
    // taken raw mode back (then it waits in the line, unread, as it would).
    let start = Instant::now();
    while !pty.screen().contains("cursor: row 2, column 3") {
        assert!(start.elapsed() < PATIENCE, "{}", pty.screen());
        pty.type_keys(b"l");
        std::thread::sleep(Duration::from_millis(200));
    }
    pty.type_keys(b"q");
    let (status, output, _) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    assert!(output.contains("exit=0"), "{output:?}");
}

/// Whether process `pid` is stopped (state `T` in `/proc/PID/stat`).
fn stopped(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state follows the command's name, which is in parentheses.
    stat.rsplit_once(") ")
        .is_some_and(|(_, rest)| rest.starts_with('T'))
}

/// With the mouse turned off (`m`, so that the terminal selects text), a
/// game stopped from elsewhere takes the terminal back without the mouse
/// when continued: it asks for the alternate screen again, never for mouse
/// reports; `m` then turns them on again. (Ctrl-Z takes the terminal back
/// the same way, but cannot be shown here: under `script` the game's
/// process group has no parent shell in its session, and the kernel
/// discards a SIGTSTP sent to such an orphaned group.)
#[test]
fn the_mouse_stays_off_through_a_stop() {
    let mut pty = Pty::start_watched("play --o perfect --seed 1");
    pty.wait_for("cursor: row 2, column 2");
    let pid = pty.pid();
    let _kill = KillOnDrop(pid.clone());
    let signal = |name: &str| {
        let sent = Command::new("kill").args([name, &pid]).status().unwrap();
        assert!(sent.success());
    };
    let before = pty.output().len();
    pty.type_keys(b"m");
    pty.wait_for("mouse off");
    assert!(pty.output()[before..].contains(MOUSE_OFF));
    let before = pty.output().len();
    signal("-STOP");
    let start = Instant::now();
    while !stopped(&pid) {
        assert!(start.elapsed() < PATIENCE, "the game never stopped");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal("-CONT");
    let start = Instant::now();
    while !pty.output()[before..].contains(ALTERNATE_ON) {
        assert!(start.elapsed() < PATIENCE, "{:?}", &pty.output()[before..]);
        std::thread::sleep(Duration::from_millis(20));
    }
    // Keys are read again, and the mouse is still off.
    pty.type_keys(b"l");
    pty.wait_for("cursor: row 2, column 3");
    let since = &pty.output()[before..];
    assert!(!since.contains(MOUSE_ON), "{since:?}");
    assert!(pty.screen().contains("mouse off"), "{}", pty.screen());
    let before = pty.output().len();
    pty.type_keys(b"m");
    pty.wait_for("mouse on");
    assert!(pty.output()[before..].contains(MOUSE_ON));
    pty.type_keys(b"q");
    let (status, output, _) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    assert!(output.contains("exit=0"), "{output:?}");
}

/// A dumb terminal (Emacs's shell, a serial console) cannot draw the
/// full-screen game: it gets the line protocol.
#[test]
fn a_dumb_terminal_gets_the_line_protocol() {
    let oxo = env!("CARGO_BIN_EXE_oxo");
    let mut pty = Pty::run(&format!("TERM=dumb exec {oxo} play --o perfect --seed 1"));
    pty.wait_for("X move (row col): ");
    pty.type_keys(b"quit\r");
    let (status, output, _) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    assert!(!output.contains(ALTERNATE_ON), "{output:?}");
    assert!(output.contains("Score: X 0, O 0, draws 0"), "{output:?}");
}

#[test]
fn plain_keeps_the_line_protocol_on_a_terminal() {
    let mut pty = Pty::start("play --plain");
    pty.wait_for("X move (row col): ");
    pty.type_keys(b"1 1\r");
    pty.wait_for("O move (row col): ");
    pty.type_keys(b"1 1\r");
    pty.wait_for("is already taken by X");
    pty.type_keys(b"quit\r");
    let (status, output, screen) = pty.finish();
    assert!(status.success(), "{status}: {output:?}");
    assert!(!output.contains(ALTERNATE_ON), "{output:?}");
    assert!(screen.contains("invalid move\n"), "{screen}");
    assert!(
        screen.contains("oxo: (1, 1) is already taken by X"),
        "{screen}"
    );
    assert!(screen.contains("Score: X 0, O 0, draws 0"), "{screen}");
}

/// A long solve on a terminal shows its progress on stderr (once it has
/// run a second): here every move's value on the empty 8×7 board, k=5, by
/// the solver's search (over 20 s here), stopped by Ctrl-C once the line
/// shows.
#[test]
fn a_long_solve_shows_its_progress() {
    let mut pty = Pty::start("solve --size 8x7 --k 5");
    pty.wait_for("solving: ");
    pty.type_keys(b"\x03");
    let (status, _, _) = pty.finish();
    assert!(!status.success(), "{status}");
}

/// The same on 7×7 k=5, where the proof search values the moves: a
/// position after four moves, beyond the opening table, that takes about
/// 12 s here (O's two stones far from X's pair), stopped by Ctrl-C once
/// the line shows.
#[test]
fn a_long_seven_by_seven_solve_shows_its_progress() {
    let mut pty = Pty::start("solve ......O/......./...X.../...X.../......./......./..O.... --k 5");
    pty.wait_for("valuing the moves: ");
    pty.type_keys(b"\x03");
    let (status, _, _) = pty.finish();
    assert!(!status.success(), "{status}");
}
