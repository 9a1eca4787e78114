//! `oxo arena --records FILE` and `--psq DIR`: every game finished kept,
//! for both kinds of arena, and read back: each record replayed with
//! oxo's rules reaches the result it names.

use std::path::Path;
use std::process::{Command, Output};

use oxo_core::{Cell, Game, Player, Rules};
use serde_json::Value;

#[cfg(unix)]
use crate::brain::script;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// `oxo arena ARGS` in `dir`.
pub(crate) fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(OXO)
        .current_dir(dir)
        .arg("arena")
        .args(args)
        .output()
        .unwrap()
}

/// The records of `path`, one JSON object a line.
fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn side(value: &Value) -> Player {
    Player::from_char(value.as_str().unwrap().chars().next().unwrap()).unwrap()
}

fn cells(value: &Value) -> Vec<Cell> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Cell::new(c[0].as_u64().unwrap() as u32, c[1].as_u64().unwrap() as u32))
        .collect()
}

/// Replay `record` with oxo's rules: from the first mover, the opening and
/// then the moves; the game must end as the record says, with its result.
fn replays(record: &Value) {
    let number = |key: &str| record[key].as_u64().unwrap() as u32;
    let mut rules = Rules::new(number("rows"), number("cols"), number("k")).unwrap();
    if record["exact"] == true {
        rules = rules.exactly();
    }
    let mut game = Game::starting_with(rules, side(&record["first"]));
    for cell in cells(&record["opening"])
        .into_iter()
        .chain(cells(&record["moves"]))
    {
        game.play(cell).unwrap_or_else(|e| panic!("{record}: {e}"));
    }
    let result = record["result"].as_str().unwrap();
    match record["end"].as_str().unwrap() {
        "line" => {
            assert!(game.winning_line().is_some(), "{record}");
            assert_eq!(
                game.outcome().unwrap().winner(),
                Some(side(&record["result"]))
            );
        }
        "full" => {
            assert!(game.is_full() && game.winning_line().is_none(), "{record}");
            assert_eq!(result, "draw", "{record}");
        }
        "forfeit" => {
            // Not over on the board: the loser, the side not named, gave
            // no move (or its engine could not play at all).
            assert!(!game.is_over(), "{record}");
            assert!(["X", "O"].contains(&result), "{record}");
            assert!(record["reason"].is_string(), "{record}");
        }
        other => panic!("{other}: {record}"),
    }
    if record["end"] != "forfeit" {
        assert!(record["reason"].is_null(), "{record}");
    }
    // A time, in whole milliseconds, for each move.
    let times = record["times_ms"].as_array().unwrap();
    assert_eq!(times.len(), record["moves"].as_array().unwrap().len());
    assert!(times.iter().all(Value::is_u64), "{record}");
}

/// A match: every game a line, in game order, each replaying to its
/// result; the records add up to the report's totals.
#[test]
fn a_match_records_every_game_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = arena(
        dir.path(),
        &[
            "--x",
            "rules",
            "--o",
            "random",
            "--games",
            "12",
            "--size",
            "5",
            "--k",
            "4",
            "--opening",
            "2",
            "--seed",
            "3",
            "--json",
            "--records",
            "games.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = records(&dir.path().join("games.jsonl"));
    assert_eq!(games.len(), 12);
    let mut tally = [0, 0, 0];
    for (i, record) in games.iter().enumerate() {
        assert_eq!(record["game"], i as u64, "{record}");
        assert_eq!((&record["x"], &record["o"]), (&report["x"], &report["o"]));
        // X and O move first in turn, each pair of games from one opening.
        assert_eq!(
            record["first"],
            if i % 2 == 0 { "X" } else { "O" },
            "{record}"
        );
        assert_eq!(record["opening"].as_array().unwrap().len(), 2, "{record}");
        assert_eq!(record["opening"], games[i / 2 * 2]["opening"], "{record}");
        replays(record);
        match record["result"].as_str().unwrap() {
            "X" => tally[0] += 1,
            "O" => tally[1] += 1,
            _ => tally[2] += 1,
        }
    }
    assert_eq!(
        tally,
        ["x_wins", "o_wins", "draws"].map(|k| report[k].as_u64().unwrap()),
        "{report}"
    );
}

/// A round robin: each pair's games in turn, the seats swapping, and each
/// game as a `.psq` file too, in Piskvork's coordinates (x the column, y
/// the row, both from 1), the names of X and O after the stones.
#[test]
fn a_round_robin_records_every_game_and_its_psq_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = arena(
        dir.path(),
        &[
            "--players",
            "rules,random,alphabeta",
            "--games",
            "2",
            "--size",
            "7",
            "--k",
            "5",
            "--budget",
            "200",
            "--seed",
            "5",
            "--records",
            "rr.jsonl",
            "--psq",
            "psq",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let games = records(&dir.path().join("rr.jsonl"));
    let seats: Vec<(&str, &str)> = games
        .iter()
        .map(|r| (r["x"].as_str().unwrap(), r["o"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seats,
        [
            ("rules", "random"),
            ("random", "rules"),
            ("rules", "alphabeta"),
            ("alphabeta", "rules"),
            ("random", "alphabeta"),
            ("alphabeta", "random"),
        ]
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.path().join("psq"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "0001.psq", "0002.psq", "0003.psq", "0004.psq", "0005.psq", "0006.psq"
        ]
    );
    for (i, record) in games.iter().enumerate() {
        assert_eq!(record["game"], i as u64, "{record}");
        assert_eq!(record["first"], "X", "{record}");
        replays(record);
        let psq = std::fs::read_to_string(dir.path().join("psq").join(&files[i])).unwrap();
        let mut expected = String::from("Piskvorky 7x7, 0:0, 0\n");
        // The opening's stones have no time, the moves the record's.
        let times = record["times_ms"].as_array().unwrap();
        let opening = cells(&record["opening"]).into_iter().map(|c| (c, 0));
        let moves = cells(&record["moves"])
            .into_iter()
            .zip(times.iter().map(|t| t.as_u64().unwrap()));
        for (cell, ms) in opening.chain(moves) {
            expected.push_str(&format!("{},{},{ms}\n", cell.col + 1, cell.row + 1));
        }
        expected.push_str(&format!("{}\n{}\n0\n", seats[i].0, seats[i].1));
        assert_eq!(psq, expected, "{record}");
    }
}

/// An engine that answers every move off the board: each game it plays is
/// its forfeit, recorded with the reason the report gives, the moves made
/// before it, and Piskvork's error code in the `.psq` file.
#[cfg(unix)]
#[test]
fn an_engines_forfeit_is_recorded_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "pbrain-off",
        "while IFS= read -r line; do\n  case \"$line\" in\n    \
         START*) echo OK ;;\n    BEGIN|TURN*|DONE) echo 99,99 ;;\n  esac\ndone",
    );
    let out = arena(
        dir.path(),
        &[
            "--x",
            "rules",
            "--o",
            "brain:pbrain-off",
            "--games",
            "2",
            "--size",
            "9",
            "--k",
            "5",
            "--move-time",
            "60000",
            "--seed",
            "1",
            "--json",
            "--records",
            "f.jsonl",
            "--psq",
            "psq",
        ],
    );
    // The engine never moved: the report, then exit 5.
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let forfeits = report["forfeits"].as_array().unwrap();
    assert_eq!(forfeits.len(), 2, "{report}");
    let games = records(&dir.path().join("f.jsonl"));
    assert_eq!(games.len(), 2);
    for (record, forfeit) in games.iter().zip(forfeits) {
        assert_eq!(record["game"], forfeit["game"], "{record}");
        assert_eq!(record["o"], "brain:./pbrain-off", "{record}");
        assert_eq!(
            (&record["end"], &record["result"]),
            (&"forfeit".into(), &"X".into())
        );
        assert_eq!(record["reason"], forfeit["reason"], "{record}");
        replays(record);
    }
    // Game 0: X first, one move, then O's forfeit; game 1: O first, none.
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 1);
    assert_eq!(games[1]["moves"], serde_json::json!([]));
    let psq = std::fs::read_to_string(dir.path().join("psq/0002.psq")).unwrap();
    assert_eq!(psq, "Piskvorky 9x9, 0:0, 1\nrules\npbrain-off\n-2\n");
}

/// A move's time is the time the engine took: at least the 0.3 s this one
/// waits before its first move (a lower bound, so a slow machine cannot
/// fail it), in the record and in the `.psq` file alike.
#[cfg(unix)]
#[test]
fn a_moves_time_is_the_time_its_player_took() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "pbrain-slow",
        "while IFS= read -r line; do\n  case \"$line\" in\n    \
         START*) echo OK ;;\n    BEGIN) sleep 0.3; echo 4,4 ;;\n    TURN*|DONE) echo 4,4 ;;\n  esac\ndone",
    );
    let out = arena(
        dir.path(),
        &[
            "--x",
            "brain:pbrain-slow",
            "--o",
            "rules",
            "--games",
            "1",
            "--first",
            "x",
            "--size",
            "9",
            "--k",
            "5",
            "--move-time",
            "60000",
            "--records",
            "slow.jsonl",
            "--psq",
            "psq",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let games = records(&dir.path().join("slow.jsonl"));
    // X's 4,4 after its pause; O's reply; X's 4,4 again, taken: a forfeit.
    let record = &games[0];
    assert_eq!(record["end"], "forfeit", "{record}");
    let times = record["times_ms"].as_array().unwrap();
    assert_eq!(times.len(), 2, "{record}");
    assert!(times[0].as_u64().unwrap() >= 300, "{record}");
    let psq = std::fs::read_to_string(dir.path().join("psq/0001.psq")).unwrap();
    let first = psq.lines().nth(1).unwrap();
    assert_eq!(first, format!("5,5,{}", times[0]), "{psq}");
}

/// Under `--exact` (Gomocup's standard rule) an overline wins nothing:
/// X's six in a row leaves the game on, where without it X wins. Engines
/// are told `INFO rule 1`, and the record says the rule.
#[cfg(unix)]
#[test]
fn under_exact_an_overline_wins_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Each engine answers its list of moves in turn (X,Y, the protocol's
    // column first), and logs the INFO rule it is told.
    for (name, moves) in [
        ("pbrain-x", "0,0 1,0 2,0 4,0 5,0 3,0 99,99"),
        ("pbrain-o", "0,8 2,8 4,8 6,8 8,8 0,6 2,6"),
    ] {
        script(
            dir.path(),
            name,
            &format!(
                "set -- {moves}\nwhile IFS= read -r line; do\n  case \"$line\" in\n    \
                 START*) echo OK ;;\n    \"INFO rule\"*) echo \"$line\" >> {name}.rule ;;\n    \
                 BEGIN|TURN*|DONE) echo \"$1\"; shift ;;\n  esac\ndone"
            ),
        );
    }
    let play = |exact: bool| {
        let mut args = vec![
            "--x",
            "brain:pbrain-x",
            "--o",
            "brain:pbrain-o",
            "--games",
            "1",
            "--first",
            "x",
            "--size",
            "9",
            "--k",
            "5",
            "--move-time",
            "60000",
            "--records",
            "g.jsonl",
        ];
        if exact {
            args.push("--exact");
        }
        let out = arena(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        records(&dir.path().join("g.jsonl")).remove(0)
    };
    let freestyle = play(false);
    assert_eq!(
        (&freestyle["exact"], &freestyle["end"], &freestyle["result"]),
        (&false.into(), &"line".into(), &"X".into()),
        "{freestyle}"
    );
    assert_eq!(freestyle["moves"].as_array().unwrap().len(), 11);
    let rule = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(rule("pbrain-x.rule"), "INFO rule 0\n");
    std::fs::remove_file(dir.path().join("pbrain-x.rule")).unwrap();
    let exact = play(true);
    // The six leaves the game on: O replies, and X's next answer is off
    // the board.
    assert_eq!(
        (&exact["exact"], &exact["end"], &exact["result"]),
        (&true.into(), &"forfeit".into(), &"O".into()),
        "{exact}"
    );
    assert_eq!(exact["moves"].as_array().unwrap().len(), 12);
    replays(&exact);
    assert_eq!(rule("pbrain-x.rule"), "INFO rule 1\n");
}

/// oxo's own players play `--exact` as `oxo brain` plays rule 1: given a
/// five (row 7, column 3) and a six (column 8) to choose from, `rules`,
/// whose freestyle search takes either for a win, makes the five; and
/// every game replays under the exact rule to its result.
#[test]
fn own_players_make_exactly_five_under_exact() {
    let dir = tempfile::tempdir().unwrap();
    // X at row 7, columns 4 to 7 and 9; O far off on row 12.
    std::fs::write(
        dir.path().join("book.txt"),
        "-3,0, -3,5, -2,0, -1,5, -1,0, 1,5, 0,0, 3,5, 2,0, 5,5\n",
    )
    .unwrap();
    for seed in ["1", "2", "3", "4"] {
        let out = arena(
            dir.path(),
            &[
                "--x",
                "rules",
                "--o",
                "random",
                "--games",
                "1",
                "--first",
                "x",
                "--size",
                "15",
                "--k",
                "5",
                "--exact",
                "--openings",
                "book.txt",
                "--seed",
                seed,
                "--records",
                "e.jsonl",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.starts_with("1 game of 15x15 k=5 exactly"),
            "{stdout}"
        );
        let record = records(&dir.path().join("e.jsonl")).remove(0);
        assert_eq!(record["exact"], true, "{record}");
        assert_eq!(
            (&record["moves"][0], &record["end"], &record["result"]),
            (&serde_json::json!([7, 3]), &"line".into(), &"X".into()),
            "seed {seed}: {record}"
        );
        replays(&record);
    }
}

/// `--openings FILE`: an opening book in Gomocup's offset form, each pair
/// of games from the next opening, in a match and alike for every pairing
/// of a round robin; a book that cannot start games is refused (exit 2).
#[test]
fn games_start_from_an_opening_book_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("book.txt"),
        "# two openings\n0,0, 1,0\n\n0,0 0,1 1,1\n",
    )
    .unwrap();
    let out = arena(
        dir.path(),
        &[
            "--x",
            "rules",
            "--o",
            "random",
            "--games",
            "6",
            "--size",
            "15",
            "--k",
            "5",
            "--openings",
            "book.txt",
            "--seed",
            "1",
            "--json",
            "--records",
            "m.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["openings"], 2, "{report}");
    let first = serde_json::json!([[7, 7], [7, 8]]);
    let second = serde_json::json!([[7, 7], [8, 7], [8, 8]]);
    let games = records(&dir.path().join("m.jsonl"));
    let books: Vec<&Value> = games
        .iter()
        .map(|r| {
            replays(r);
            &r["opening"]
        })
        .collect();
    assert_eq!(
        books,
        [&first, &first, &second, &second, &first, &first],
        "each opening played from both sides, in turn"
    );
    let out = arena(
        dir.path(),
        &[
            "--players",
            "rules,random,alphabeta",
            "--games",
            "4",
            "--size",
            "15",
            "--k",
            "5",
            "--budget",
            "200",
            "--openings",
            "book.txt",
            "--seed",
            "1",
            "--records",
            "rr.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("from a book of 2 openings"), "{stdout}");
    // Game `game % 4` of its pair (the games come round by round).
    let played = records(&dir.path().join("rr.jsonl"));
    assert_eq!(played.len(), 12);
    for record in &played {
        let game = record["game"].as_u64().expect("a game index");
        let want = if game % 4 < 2 { &first } else { &second };
        assert_eq!(&record["opening"], want, "game {game}: {record}");
    }
    let out = arena(
        dir.path(),
        &[
            "--players",
            "rules,random",
            "--games",
            "2",
            "--size",
            "15",
            "--k",
            "5",
            "--openings",
            "book.txt",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["openings"], 2, "{report}");
    assert!(report.get("opening").is_none(), "{report}");
    let out = arena(
        dir.path(),
        &[
            "--players",
            "rules,random",
            "--games",
            "2",
            "--size",
            "15",
            "--k",
            "5",
            "--opening",
            "2",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["opening"], 2, "{report}");
    assert!(report.get("openings").is_none(), "{report}");
    for (book, said) in [
        (
            "0,0, 9,0\n",
            "--openings book.txt: line 1: 9,0 is off the 15x15 board from its centre",
        ),
        (
            "0,0, 1\n",
            "--openings book.txt: line 1: an odd number of offsets",
        ),
        (
            "0,0 a,1\n",
            "--openings book.txt: line 1: \"a\" is not an offset",
        ),
        ("# none\n", "--openings book.txt: no opening in it"),
        (
            "\u{feff}0,0, 1,0\nx\n",
            "--openings book.txt: line 2: \"x\" is not an offset",
        ),
        (
            "0,0\n0,0, 1,1, 0,0\n",
            "--openings book.txt: line 2: 0,0 is played twice",
        ),
        (",\n", "--openings book.txt: line 1: no stone"),
        // A number too large for any integer is still a number, as written.
        (
            "0,0, +099999999999999999999,-1\n",
            "--openings book.txt: line 1: 99999999999999999999,-1 is off the 15x15 board from its centre",
        ),
        (
            "0,0, 0,1, 1,0, 1,1, 2,0, 2,1, 3,0, 3,1, 4,0\n",
            "--openings: opening 1: it leaves the 15x15 k=5 game decided",
        ),
    ] {
        std::fs::write(dir.path().join("book.txt"), book).unwrap();
        let out = arena(
            dir.path(),
            &[
                "--x",
                "rules",
                "--o",
                "random",
                "--games",
                "2",
                "--size",
                "15",
                "--k",
                "5",
                "--openings",
                "book.txt",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{book:?}: {stderr}");
        assert!(stderr.contains(said), "{book:?}: {stderr}");
    }
}

/// An engine that cannot start loses every game, its turn or not: the
/// record names the winner, and the game replays (no move made).
#[cfg(unix)]
#[test]
fn an_engine_that_cannot_start_loses_before_its_turn() {
    let dir = tempfile::tempdir().unwrap();
    // Two files, so that a round robin may take both.
    for name in ["pbrain-err", "pbrain-err2"] {
        script(
            dir.path(),
            name,
            "while IFS= read -r line; do\n  case \"$line\" in\n    \
             START*) echo ERROR no ;;\n  esac\ndone",
        );
    }
    let out = arena(
        dir.path(),
        &[
            "--x",
            "rules",
            "--o",
            "brain:pbrain-err",
            "--games",
            "2",
            "--size",
            "9",
            "--k",
            "5",
            "--records",
            "e.jsonl",
        ],
    );
    // The results are printed, and the exit code says the engine never
    // played.
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("O brain:./pbrain-err"),
        "{out:?}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("oxo: brain:./pbrain-err made no move in any of its 2 games (the first: "),
        "{out:?}"
    );
    let games = records(&dir.path().join("e.jsonl"));
    assert_eq!(games.len(), 2);
    for record in &games {
        assert_eq!(
            (&record["result"], &record["end"], &record["moves"]),
            (&"X".into(), &"forfeit".into(), &serde_json::json!([])),
            "{record}"
        );
        replays(record);
    }
    // Game 0 had X to move: the loser was not the side to move.
    assert_eq!(games[0]["first"], "X");
    // Two broken engines split their games by who was to move, so each
    // "wins" some: neither moved, and both are named, in a match and in a
    // round robin (where the others play on and are not named).
    let mut stderr = String::new();
    for players in [
        &["--x", "brain:pbrain-err", "--o", "brain:pbrain-err2"][..],
        &[
            "--players",
            "rules,random,brain:pbrain-err,brain:pbrain-err2",
        ],
    ] {
        let mut args = players.to_vec();
        args.extend(["--games", "2", "--size", "9"]);
        let out = arena(dir.path(), &args);
        assert_eq!(out.status.code(), Some(5), "{out:?}");
        stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let named = stderr
            .lines()
            .filter(|l| l.contains("made no move"))
            .count();
        assert_eq!(named, 2, "{stderr}");
    }
    assert!(
        stderr.contains("brain:./pbrain-err made no move in any of its 6 games"),
        "{stderr}"
    );
}

/// One kind of record failing (a full disk) stops that kind only: the
/// other keeps every game, and the run ends with exit 1 after its report.
#[cfg(target_os = "linux")]
#[test]
fn a_failing_records_file_leaves_the_psq_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = arena(
        dir.path(),
        &[
            "--x",
            "rules",
            "--o",
            "random",
            "--games",
            "3",
            "--size",
            "9",
            "--k",
            "5",
            "--records",
            "/dev/full",
            "--psq",
            "psq",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
    assert!(!out.stdout.is_empty(), "the report comes first");
    for name in ["0001.psq", "0002.psq", "0003.psq"] {
        assert!(dir.path().join("psq").join(name).is_file(), "{name}");
    }
}

/// A records file that stops growing part way through a line (here the
/// file-size limit, `ulimit -f`, reached with its signal ignored, so the
/// write fails with EFBIG as on a disk filling up) is cut back to its last
/// whole line: every line left is a game that replays, none is half a game.
#[cfg(target_os = "linux")]
#[test]
fn a_records_file_that_stops_growing_keeps_only_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    // 1 KiB (bash counts -f in KiB) holds a few 3×3 games, not 40.
    let out = Command::new("bash")
        .current_dir(dir.path())
        .args([
            "-c",
            r#"trap '' XFSZ; ulimit -f 1; exec "$0" arena "$@""#,
            OXO,
            "--x",
            "random",
            "--o",
            "random",
            "--games",
            "40",
            "--size",
            "3",
            "--k",
            "3",
            "--records",
            "games.jsonl",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write games.jsonl"), "{stderr}");
    assert!(!out.stdout.is_empty(), "the report comes first");
    let text = std::fs::read_to_string(dir.path().join("games.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "a half line was left: {text:?}");
    assert!(
        text.len() <= 1024,
        "{} bytes under a 1 KiB limit",
        text.len()
    );
    let games = records(&dir.path().join("games.jsonl"));
    assert!(
        (1..40).contains(&games.len()),
        "{} whole games of 40",
        games.len()
    );
    for (i, record) in games.iter().enumerate() {
        assert_eq!(record["game"], i as u64, "{record}");
        replays(record);
    }
}

/// A records file or folder that cannot be written is refused before the
/// first game (exit 1), and a board a `.psq` file cannot describe is bad
/// usage (exit 2); neither plays a game.
#[test]
fn what_cannot_be_written_is_refused_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), "").unwrap();
    for (args, code, said) in [
        (
            &["--records", "missing/games.jsonl"][..],
            1,
            "cannot write missing/games.jsonl",
        ),
        (&["--psq", "a-file"], 1, "a-file"),
        (
            &["--psq", "psq", "--size", "3", "--k", "3"],
            2,
            "--psq: a .psq file describes five in a row",
        ),
        // Two outputs on one file, or a record where a game's .psq goes.
        (
            &["--records", "psq/0001.psq", "--psq", "psq"],
            2,
            "--records psq/0001.psq is a .psq file in the --psq folder",
        ),
    ] {
        let mut all = vec!["--x", "rules", "--o", "random", "--games", "2"];
        if !args.contains(&"--k") {
            all.extend(["--size", "9", "--k", "5"]);
        }
        all.extend(args);
        let out = arena(dir.path(), &all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("psq").exists());
    // A folder holding another run's .psq files is refused, and left.
    std::fs::create_dir(dir.path().join("old")).unwrap();
    std::fs::write(dir.path().join("old/0003.psq"), "earlier").unwrap();
    let out = arena(
        dir.path(),
        &[
            "--x", "rules", "--o", "random", "--games", "2", "--size", "9", "--k", "5", "--psq",
            "old",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("holds .psq files already"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old/0003.psq")).unwrap(),
        "earlier"
    );
    // A round robin's records and plot.
    let records_and_plot = |records: &str, plot: &str| {
        arena(
            dir.path(),
            &[
                "--players",
                "rules,random",
                "--games",
                "2",
                "--records",
                records,
                "--plot",
                plot,
            ],
        )
    };
    // Two outputs on one file: refused before any game.
    let out = records_and_plot("same.svg", "./same.svg");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--records and --plot name the same file"),
        "{stderr}"
    );
    assert!(!dir.path().join("same.svg").exists());
    // A device overwrites nothing: /dev/null for both is no clash.
    #[cfg(unix)]
    {
        let out = records_and_plot("/dev/null", "/dev/null");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    // The same for a round robin.
    let out = arena(
        dir.path(),
        &[
            "--players",
            "rules,random",
            "--games",
            "2",
            "--records",
            "missing/rr.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
}

/// `--engine-log FILE`: every line each way and each engine's standard
/// error, labelled with its game and side, and why an engine lost; refused
/// (and no file made) without an engine to log.
#[cfg(unix)]
#[test]
fn the_engine_log_holds_each_games_dialogue() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "pbrain-chat",
        "while IFS= read -r line; do\n  case \"$line\" in\n    \
         START*) echo OK; echo 'starting' >&2 ;;\n    \
         BEGIN|TURN*|DONE) echo 'MESSAGE thinking'; echo 99,99 ;;\n  esac\ndone",
    );
    let args = [
        "--x",
        "rules",
        "--o",
        "brain:pbrain-chat",
        "--games",
        "2",
        "--size",
        "9",
        "--k",
        "5",
        "--move-time",
        "60000",
        "--seed",
        "1",
        "--engine-log",
        "engines.log",
    ];
    let out = arena(dir.path(), &args);
    // The engine never moved (exit 5); the log says what it said.
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let log = std::fs::read_to_string(dir.path().join("engines.log")).unwrap();
    // Without the times; stderr is read on a thread of its own, so its
    // lines are checked apart from the order of the others.
    let lines: Vec<&str> = log
        .lines()
        .map(|line| line.trim_start().split_once(' ').unwrap().1)
        .collect();
    for game in 0..2 {
        let label = format!("game {game} O brain:./pbrain-chat ");
        let said: Vec<&str> = lines
            .iter()
            .filter_map(|line| line.strip_prefix(&label))
            .filter(|line| !line.starts_with('!'))
            .collect();
        // Game 0: X (rules) moves first, so O is told its move; game 1: O
        // begins.
        let asked = if game == 0 { "< TURN" } else { "< BEGIN" };
        assert_eq!(said[..2], ["< START 9", "> OK"], "{log}");
        assert!(said.iter().any(|l| l.starts_with(asked)), "{log}");
        assert!(said.contains(&"> MESSAGE thinking"), "{log}");
        assert!(said.contains(&"> 99,99"), "{log}");
        assert!(
            said.iter()
                .any(|l| l.starts_with("# no move: brain:./pbrain-chat answered \"99,99\"")),
            "{log}"
        );
        assert_eq!(said.last(), Some(&"< END"), "{log}");
        assert!(
            lines.contains(&format!("{label}! starting").as_str()),
            "{log}"
        );
    }

    // One file for two outputs: refused before any game, the file as it
    // was.
    let mut same = args.to_vec();
    same.extend(["--records", "./engines.log"]);
    let out = arena(dir.path(), &same);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--records and --engine-log name the same file"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("engines.log")).unwrap(),
        log
    );
    let mut in_psq = args[..args.len() - 1].to_vec();
    in_psq.extend(["psq/0001.psq", "--psq", "psq"]);
    let out = arena(dir.path(), &in_psq);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a .psq file in the --psq folder"),
        "{out:?}"
    );

    // Nothing to log: refused before any game, and no file made.
    let out = arena(
        dir.path(),
        &["--x", "rules", "--o", "random", "--engine-log", "none.log"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--engine-log logs brain:PATH engines"),
        "{said}"
    );
    assert!(!dir.path().join("none.log").exists());
}
