//! `oxo arena --match-time MS`: engines on a clock for the whole game,
//! told it as Gomocup managers tell it, forfeiting when it runs out; and
//! the refusals. What is checked is the protocol and the results, never
//! how fast anything went.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::brain::script;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// `oxo arena ARGS` on a 9x9 five-in-a-row board, in `dir`.
fn arena(dir: &Path, args: &[&str]) -> Output {
    crate::arena_records::arena(dir, &[args, &["--size", "9", "--k", "5"]].concat())
}

/// The JSON report of `out`, which must have succeeded.
fn report(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// An engine `pbrain-log` in `dir`: oxo's brain playing the rules player
/// (which answers at once, whatever time it is given), every line it is
/// told appended to `told` first.
fn logging_engine(dir: &Path) -> PathBuf {
    let told = dir.join("told");
    script(
        dir,
        "pbrain-log",
        &format!(
            "tee -a '{}' | exec {OXO} brain --strategy rules --seed 1",
            told.display()
        ),
    );
    told
}

/// The `INFO time_left` values in `told`, each checked to come just
/// before a command that asks for a move.
fn times_left(told: &str) -> Vec<u64> {
    let lines: Vec<&str> = told.lines().collect();
    let mut left = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if matches!(*line, "BEGIN" | "BOARD") || line.starts_with("TURN ") {
            let before = lines[i - 1].strip_prefix("INFO time_left ");
            let before = before.unwrap_or_else(|| panic!("line {i} without time_left: {told}"));
            left.push(before.parse().unwrap());
        }
    }
    assert_eq!(left.len(), told.matches("time_left").count(), "{told}");
    left
}

/// The engine is told the match time at the start, as its move time too
/// when `--move-time` is not given, and before each move what is left of
/// it, as the arena measured its moves before: the whole of it first,
/// then never more. The report says the clock.
#[test]
fn an_engine_is_told_its_match_time_and_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let told = logging_engine(dir.path());
    let out = arena(
        dir.path(),
        &[
            "--x",
            "brain:pbrain-log",
            "--o",
            "random",
            "--games",
            "1",
            "--first",
            "x",
            "--seed",
            "1",
            "--match-time",
            "3600000",
            "--json",
        ],
    );
    let report = report(&out);
    assert_eq!(report["match_time_ms"], 3600000, "{report}");
    // Without --move-time a move may take all the match time.
    assert_eq!(report["move_time_ms"], 3600000, "{report}");
    assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
    let said = std::fs::read_to_string(&told).unwrap();
    let info: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("INFO timeout"))
        .collect();
    assert_eq!(
        info,
        ["INFO timeout_turn 3600000", "INFO timeout_match 3600000"],
        "{said}"
    );
    let left = times_left(&said);
    assert!(left.len() >= 5, "a game of five in a row: {said}");
    assert_eq!(left[0], 3600000, "{said}");
    assert!(left.windows(2).all(|w| w[1] <= w[0]), "{left:?}");
    assert!(left[left.len() - 1] < 3600000, "{left:?}");

    // With a move time too, in a round robin: the engine's turn is the
    // move time, and the table's first line says both.
    std::fs::remove_file(&told).unwrap();
    let out = arena(
        dir.path(),
        &[
            "--players",
            "brain:pbrain-log,random",
            "--games",
            "2",
            "--seed",
            "1",
            "--match-time",
            "3600000",
            "--move-time",
            "600000",
            // One game at a time, so that the log is one game's, then
            // the other's.
            "--threads",
            "1",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let first = stdout.lines().next().unwrap();
    assert!(
        first.contains(", engines 3600000 ms a game and 600000 ms a move"),
        "{stdout}"
    );
    assert!(!stdout.contains("forfeit"), "{stdout}");
    let said = std::fs::read_to_string(&told).unwrap();
    assert_eq!(
        said.matches("INFO timeout_turn 600000\n").count(),
        2,
        "{said}"
    );
    assert_eq!(
        said.matches("INFO timeout_match 3600000\n").count(),
        2,
        "{said}"
    );
    assert!(!times_left(&said).is_empty(), "{said}");
}

/// An engine that stops answering loses its game out of match time, a
/// forfeit like any other: the engine answers its first move and never
/// another, so however fast or slow the machine its clock runs out.
#[test]
fn an_engine_out_of_match_time_forfeits() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "pbrain-stops",
        "n=0\nwhile read -r line; do case \"$line\" in \
         START*) echo OK ;; BEGIN|TURN*|BOARD) n=$((n+1)); [ $n = 1 ] && echo 4,4 ;; \
         END) exit 0 ;; esac; done",
    );
    let args = [
        "--x",
        "brain:pbrain-stops",
        "--o",
        "rules",
        "--first",
        "x",
        "--seed",
        "1",
        "--match-time",
        "1000",
    ];
    let report = report(&arena(
        dir.path(),
        &[&args[..], &["--games", "2", "--json"]].concat(),
    ));
    assert_eq!(report["o_wins"], 2, "{report}");
    assert_eq!(report["match_time_ms"], 1000, "{report}");
    let forfeits = report["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 2, "{report}");
    for forfeit in forfeits {
        assert_eq!(forfeit["side"], "X", "{report}");
        assert_eq!(forfeit["player"], "brain:./pbrain-stops", "{report}");
        let reason = forfeit["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("brain:./pbrain-stops is out of match time: no answer within the ")
                && reason.ends_with(" ms it had left of 1000 ms"),
            "{reason}"
        );
    }
    // The table lists it as it lists every forfeit.
    let out = arena(dir.path(), &[&args[..], &["--games", "1"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.starts_with(
            "1 game of 9x9 k=5 (seed 1), X always moving first, engines 1000 ms a game"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("is out of match time"), "{stdout}");
}

/// A refusal: exit 2, no results, and `said` in the message.
fn refused(out: &Output, said: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(stderr.contains(said), "{stderr}");
}

/// oxo's own players have node budgets, not clocks: a match time with no
/// engine is refused, as are no time and more than a day.
#[test]
fn a_match_time_without_an_engine_or_out_of_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "pbrain-x", "exit 0");
    let only = "--match-time times brain:PATH engines only (oxo's own players play without a \
                clock), and none of the players is one";
    refused(
        &arena(
            dir.path(),
            &["--x", "rules", "--o", "random", "--match-time", "5000"],
        ),
        only,
    );
    refused(
        &arena(
            dir.path(),
            &["--players", "rules,random", "--match-time", "5000"],
        ),
        only,
    );
    for bad in ["0", "86400001", "-5", "soon"] {
        refused(
            &arena(
                dir.path(),
                &["--x", "brain:pbrain-x", "--o", "rules", "--match-time", bad],
            ),
            "--match-time <MS>",
        );
    }
}
