//! `oxo brain` over pipes, and engines in `oxo arena --x brain:PATH`: oxo's
//! brain against itself, and engines that misbehave losing their games.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// Run `oxo brain ARGS` (with `--seed 1` if ARGS has no seed) on `input`;
/// its standard output.
fn brain(args: &[&str], input: &str) -> String {
    // Seeded unless the test seeds it: unseeded, the seed is said first.
    let seed: &[&str] = if args.contains(&"--seed") {
        &[]
    } else {
        &["--seed", "1"]
    };
    let mut child = Command::new(OXO)
        .arg("brain")
        .args(args)
        .args(seed)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// An executable script `name` in `dir` with `body`.
pub(crate) fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    path
}

/// The time the arena gives each move of the engines from
/// [`paced_engine`]: so generous that only an engine that stopped
/// answering could run out of it, however busy the machine.
const GENEROUS_MS: &str = "60000";

/// A `pbrain-NAME` script in `dir` running `oxo brain SHELL_ARGS`, as a
/// `brain:PATH` player, told that a move has `told_ms` whatever time the
/// arena gives it: the script rewrites the manager's `INFO timeout_turn`
/// on its way in. The arena then allows [`GENEROUS_MS`] a move, so the
/// games play at the brain's pace and no move is ever late for a busy
/// machine's sake; what the tests check is the protocol, not the speed.
fn paced_engine(dir: &Path, name: &str, shell_args: &str, told_ms: u32) -> String {
    let path = script(
        dir,
        &format!("pbrain-{name}"),
        &format!(
            "while IFS= read -r line; do\n\
             case \"$line\" in\n\
             \"INFO timeout_turn \"*) echo \"INFO timeout_turn {told_ms}\" ;;\n\
             *) printf '%s\\n' \"$line\" ;;\n\
             esac\n\
             done | exec {OXO} brain {shell_args}"
        ),
    );
    format!("brain:{}", path.display())
}

/// `oxo arena ARGS --json`, which must succeed.
fn arena(args: &[&str]) -> Value {
    let (report, code) = arena_coded(args);
    assert_eq!(code, Some(0), "{report}");
    report
}

/// `oxo arena ARGS --json`: its report and exit code.
fn arena_coded(args: &[&str]) -> (Value, Option<i32>) {
    let out = Command::new(OXO)
        .arg("arena")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code())
}

/// A player that cannot take the board says why, with this command
/// line's hint on how to give it what it lacks.
#[test]
fn a_board_without_a_model_is_refused_with_the_hint() {
    let out = brain(&["--strategy", "learned"], "START 9\r\nEND\r\n");
    assert_eq!(
        out.trim_end(),
        "ERROR learned cannot play on a 9x9 k=5 board: oxo has no built-in model for this board; \
         train one with `oxo train` and play it with --model FILE"
    );
}

/// A model given is the brain's model: a board it is not for is refused
/// at START (where the brain learns the board), not played by the
/// built-in model in its place; and a strategy that reads no model is
/// refused one at once.
#[test]
fn a_model_for_another_board_or_strategy_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model3 = dir.path().join("m3.oxo");
    let model = dir.path().join("m9.oxo");
    for (out, board) in [
        (&model3, ["--size", "3", "--k", "3"]),
        (&model, ["--size", "9", "--k", "5"]),
    ] {
        let out = super::small_model(out, &board);
        assert!(out.status.success(), "{out:?}");
    }
    let (model3, model) = (model3.to_str().unwrap(), model.to_str().unwrap());
    // A model for another k could never play five in a row: refused at
    // once.
    let out = Command::new(OXO)
        .args(["brain", "--strategy", "learned", "--model", model3])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("model trained for k=3, but a Gomocup brain plays five in a row"),
        "{out:?}"
    );
    // 15x15 has a built-in model, which used to play instead.
    let out = brain(
        &["--strategy", "learned", "--model", model],
        "START 15\r\nEND\r\n",
    );
    assert_eq!(
        out.trim_end(),
        format!("ERROR {model}: model trained for 9x9 k=5, not 15x15 k=5 (width x height)")
    );
    // A board not square is named as the protocol names it, width first,
    // as the brain's other answers do.
    let out = brain(
        &["--strategy", "learned", "--model", model],
        "RECTSTART 20,10\r\nEND\r\n",
    );
    assert_eq!(
        out.trim_end(),
        format!("ERROR {model}: model trained for 9x9 k=5, not 20x10 k=5 (width x height)")
    );
    let out = Command::new(OXO)
        .args(["brain", "--strategy", "rules", "--model", model])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--model is for --strategy learned; rules plays without one"),
        "{out:?}"
    );
}

#[test]
fn the_real_binary_speaks_the_protocol() {
    let out = brain(
        &["--seed", "1"],
        "ABOUT\r\nSTART 15\r\nINFO timeout_turn 200\r\nINFO timeout_match 0\r\nINFO max_memory 83886080\r\n\
         BEGIN\r\nTURN 7,8\r\nTURN 7,8\r\nBOARD\r\n7,7,2\r\n8,8,1\r\nDONE\r\nfoo\r\nEND\r\nBEGIN\r\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("name=\"oxo\", version=\""), "{out}");
    assert!(lines[0].contains("style=\"alphabeta\""), "{out}");
    assert_eq!(lines[1], "OK");
    assert_eq!(lines[2], "7,7", "the centre first");
    let answer: Vec<u32> = lines[3].split(',').map(|n| n.parse().unwrap()).collect();
    assert!(answer[0] < 15 && answer[1] < 15 && answer != [7, 7] && answer != [7, 8]);
    assert_eq!(lines[4], "ERROR 7,8 is taken");
    let answer: Vec<u32> = lines[5].split(',').map(|n| n.parse().unwrap()).collect();
    assert!(answer != [7, 7] && answer != [8, 8], "{out}");
    assert_eq!(lines[6], "UNKNOWN foo");
    assert_eq!(lines.len(), 7, "nothing after END: {out}");
}

/// Without --seed, the seed taken from the clock is said to the manager
/// as a `MESSAGE` line before the first answer (standard error stays
/// empty: Piskvork reads it as the brain's output, and would take a line
/// there for the answer to START), and plays the same random game again;
/// a search to a deadline says that it may still choose otherwise.
#[test]
fn a_seed_from_the_clock_is_said() {
    let said = |strategy: &str| {
        let mut child = Command::new(OXO)
            .args(["brain", "--strategy", strategy])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(b"START 9\nABOUT\nEND\n").unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(out.stderr.is_empty(), "{out:?}");
        let out = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[1], "OK", "{out}");
        assert!(lines[2].starts_with("name=\"oxo\""), "{out}");
        lines[0].to_owned()
    };
    let random = said("random");
    let seed = random
        .strip_prefix("MESSAGE oxo brain: the computer plays with seed ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{random}"));
    assert!(
        random.contains(&format!("(--seed {seed} makes the same choices again)")),
        "{random}"
    );
    let replay = |seed: &str| {
        brain(
            &["--strategy", "random", "--seed", seed],
            "START 9\nBEGIN\nTURN 0,0\nEND\n",
        )
    };
    assert_eq!(replay(seed), replay(seed));
    assert!(
        said("alphabeta").contains("its search, which stops at a deadline, may still choose"),
        "{}",
        said("alphabeta")
    );
}

#[test]
fn bad_arguments_are_refused() {
    let out = Command::new(OXO)
        .args(["brain", "--strategy", "best"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("best"));
    // Pondering needs a search that stops at a deadline.
    let out = Command::new(OXO)
        .args(["brain", "--strategy", "rules", "--ponder"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--ponder is for --strategy alphabeta"),
        "{out:?}"
    );
    // perfect plays the boards it can (up to 6 a side) and says so for
    // the others.
    let out = brain(&["--strategy", "perfect"], "START 15\nSTART 5\nBEGIN\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("ERROR perfect cannot play on a 15x15"),
        "{out}"
    );
    assert_eq!(lines[1], "OK");
    let [x, y] = lines[2]
        .split(',')
        .map(|n| n.parse::<u32>().unwrap())
        .collect::<Vec<_>>()[..]
    else {
        panic!("not a move: {out}");
    };
    assert!(x < 5 && y < 5, "{out}");
}

#[test]
fn oxo_brain_plays_itself_through_the_arena() {
    let dir = tempfile::tempdir().unwrap();
    let x = paced_engine(dir.path(), "a", "--strategy alphabeta --seed 1", 200);
    let o = paced_engine(dir.path(), "b", "--strategy rules --seed 2", 200);
    let report = arena(&[
        "--x",
        &x,
        "--o",
        &o,
        "--size",
        "9",
        "--k",
        "5",
        "--games",
        "4",
        "--move-time",
        GENEROUS_MS,
        "--seed",
        "1",
    ]);
    assert_eq!(report["games"], 4, "{report}");
    assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
    let points = report["x_wins"].as_u64().unwrap()
        + report["o_wins"].as_u64().unwrap()
        + report["draws"].as_u64().unwrap();
    assert_eq!(points, 4);
    // alphabeta through the protocol still beats the rules player.
    assert!(report["x_wins"].as_u64().unwrap() >= 3, "{report}");
}

/// A pondering brain through the arena: every move a legal answer, and a
/// line a game on standard error saying how its guesses went. That
/// pondering never makes a move later than without it is the brain's unit
/// tests' to show, on a clock they control.
#[test]
fn a_pondering_brain_keeps_to_its_time_and_says_how_it_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let said = dir.path().join("stderr");
    let a = paced_engine(
        dir.path(),
        "a",
        &format!("--ponder --seed 1 2>>{}", said.display()),
        150,
    );
    let b = paced_engine(dir.path(), "b", "--seed 2", 150);
    let report = arena(&[
        "--players",
        &format!("{a},{b}"),
        "--size",
        "9",
        "--k",
        "5",
        "--games",
        "4",
        "--opening",
        "2",
        "--move-time",
        GENEROUS_MS,
        "--seed",
        "1",
    ]);
    assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
    // A brain writes its line as it ends, which may be just after the
    // arena has stopped waiting for it: wait (generously) for all four.
    let started_waiting = std::time::Instant::now();
    let said = loop {
        let said = std::fs::read_to_string(&said).unwrap_or_default();
        if said.lines().count() >= 4 || started_waiting.elapsed().as_secs() > 60 {
            break said;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 4, "a line a game: {said}");
    let mut started = 0;
    for line in lines {
        let numbers: Vec<u64> = line
            .split(' ')
            .filter_map(|word| word.parse().ok())
            .collect();
        let [n, hits] = numbers[..] else {
            panic!("{line}")
        };
        assert!(line.starts_with("oxo brain: pondered on "), "{line}");
        assert!(hits <= n, "{line}");
        started += n;
    }
    assert!(started > 0, "{said}");
}

#[test]
fn engines_that_misbehave_lose_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let answer = |name: &str, move_line: &str| {
        script(
            dir.path(),
            name,
            &format!(
                "while read -r line; do case \"$line\" in \
                 START*|RECTSTART*) echo OK ;; BEGIN|TURN*|DONE) {move_line} ;; END) exit 0 ;; \
                 esac; done"
            ),
        )
    };
    let cases: [(PathBuf, &str); 7] = [
        (answer("taken", "echo 0,0"), "answered 0,0, a taken cell"),
        (
            answer("offboard", "echo 40,2"),
            "answered \"40,2\", which is no move",
        ),
        (
            answer("garbage", "echo hello"),
            "answered \"hello\", which is no move",
        ),
        // A megabyte on one line: quoted to 60 characters, read to 4 KiB.
        (
            answer("long", "head -c 1000000 /dev/zero | tr '\\0' a; echo"),
            &format!(
                "answered \"{}… (4096 bytes or more)\", which is no move",
                "a".repeat(60)
            ),
        ),
        (
            answer("slow", "sleep 3; echo 1,1"),
            "gave no answer within 150 ms",
        ),
        // Gone after START: whether the arena finds out as it writes the
        // INFOs or as it waits for a move depends on timing.
        (
            script(dir.path(), "dies", "read -r line; echo OK; exit 3"),
            "dies",
        ),
        (
            script(dir.path(), "refuses", "read -r line; echo ERROR no"),
            "answered START with \"ERROR no\"",
        ),
    ];
    for (path, reason) in &cases {
        let engine = format!("brain:{}", path.display());
        // Each engine has all the time it could want to misbehave in,
        // but the slow one, which is late whatever the machine's speed.
        let move_time = if path.ends_with("slow") {
            "100"
        } else {
            GENEROUS_MS
        };
        // The engine as O: X (rules) opens at the centre, which the bad
        // engines' 0,0 does not take on the first move but does later.
        let (report, code) = arena_coded(&[
            "--x",
            "rules",
            "--o",
            &engine,
            "--size",
            "9",
            "--k",
            "5",
            "--games",
            "2",
            "--move-time",
            move_time,
            "--first",
            "x",
            "--seed",
            "1",
        ]);
        assert_eq!(report["x_wins"], 2, "{engine}: {report}");
        // Exit 5 for an engine that never moved; the one that took 0,0
        // moved once.
        let moved = path.ends_with("taken");
        assert_eq!(code, Some(if moved { 0 } else { 5 }), "{engine}: {report}");
        let forfeits = report["forfeits"].as_array().unwrap();
        assert_eq!(forfeits.len(), 2, "{report}");
        for forfeit in forfeits {
            assert_eq!(forfeit["side"], "O");
            assert_eq!(forfeit["player"], engine.as_str());
            let said = forfeit["reason"].as_str().unwrap();
            let expected = if *reason == "dies" {
                said.contains("exited") || said.contains("stopped reading")
            } else {
                said.contains(reason)
            };
            assert!(expected, "{engine}: {said}");
            assert!(said.len() < 300, "{engine}: a long reason: {said}");
        }
    }
}

#[test]
fn an_engine_that_cannot_start_is_bad_input() {
    let out = Command::new(OXO)
        .args([
            "arena",
            "--x",
            "brain:/no/such/engine",
            "--o",
            "rules",
            "--size",
            "9",
            "--k",
            "5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /no/such/engine"));
    let out = Command::new(OXO)
        .args(["arena", "--x", "brain:/bin/true", "--o", "rules"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give a board of 5 a side or more"));
}

#[test]
fn a_bare_engine_name_is_the_file_in_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    paced_engine(dir.path(), "here", "", 200);
    let out = Command::new(OXO)
        .current_dir(dir.path())
        .args([
            "arena",
            "--x",
            "brain:pbrain-here",
            "--o",
            "rules",
            "--size",
            "9",
        ])
        .args([
            "--k",
            "5",
            "--games",
            "2",
            "--move-time",
            GENEROUS_MS,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
}

/// A `BOARD` with a bad stone gets one answer, so the next command's
/// answer is its own.
#[test]
fn a_bad_board_gets_one_answer() {
    let out = brain(
        &["--strategy", "rules"],
        "START 15\nBOARD\n7,7,1\n20,20,2\n8,8,2\nDONE\nABOUT\nEND\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        ["OK", "ERROR 20,20 is off the 15x15 board (width x height)"]
    );
    assert!(lines[2].starts_with("name=\"oxo\""), "{out}");
    assert_eq!(lines.len(), 3, "{out}");
}

/// A move as the protocol writes it, within an N×N board.
fn is_move(answer: &str, n: u32) -> bool {
    answer
        .split_once(',')
        .and_then(|(x, y)| Some((x.parse::<u32>().ok()?, y.parse::<u32>().ok()?)))
        .is_some_and(|(x, y)| x < n && y < n)
}

/// Under exactly five (`INFO rule 1`, Gomocup's standard rule) every
/// player answers: a five is blocked rather than an overline made, and
/// `learned` and `perfect`, whose players refuse those rules, play the
/// position as in freestyle.
#[test]
fn every_strategy_plays_exactly_five() {
    // The auditor's position: 2,5 would make six (nothing); O threatens
    // five at 11,11.
    let position = "START 15\nINFO rule 1\nINFO timeout_turn 100\nBOARD\n0,5,1\n1,5,1\n3,5,1\n\
                    4,5,1\n5,5,1\n6,6,1\n7,7,2\n8,8,2\n9,9,2\n10,10,2\n14,0,2\n14,2,2\nDONE\nEND\n";
    for strategy in ["rules", "alphabeta", "learned"] {
        let out = brain(&["--strategy", strategy, "--seed", "1"], position);
        assert_eq!(out, "OK\n11,11\n", "{strategy}");
    }
    let out = brain(
        &["--strategy", "learned", "--seed", "1"],
        "START 15\nINFO rule 1\nBEGIN\nTURN 0,0\nEND\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(is_move(lines[1], 15) && is_move(lines[2], 15), "{out}");
    let out = brain(
        &["--strategy", "perfect", "--seed", "1"],
        "START 5\nINFO rule 1\nBEGIN\nTURN 0,0\nEND\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(is_move(lines[1], 5) && is_move(lines[2], 5), "{out}");
}

/// The exit codes `--help` gives: a closed output is no failure.
#[test]
fn a_closed_output_ends_the_brain_quietly() {
    let help = Command::new(OXO)
        .args(["brain", "--help"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("or the output was closed"),
        "{help:?}"
    );
    let mut child = Command::new(OXO)
        .args(["brain", "--strategy", "rules", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the brain answers.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // Writes may fail once the brain has gone: that is the point.
    let _ = stdin.write_all(b"START 15\nBEGIN\nABOUT\n");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}
