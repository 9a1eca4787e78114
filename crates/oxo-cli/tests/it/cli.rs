//! `oxo stream` and `oxo play` run as real processes, against golden files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(data(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Run `oxo ARGS` with `stdin` piped in.
fn oxo(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oxo starts");
    let mut pipe = child.stdin.take().unwrap();
    // Write in a thread so a large input cannot deadlock against the output.
    let input = stdin.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("oxo finishes");
    writer.join().unwrap();
    output
}

fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).unwrap()
}

#[test]
fn stream_goldens_from_stdin_and_from_a_file() {
    for name in ["row_win", "draw", "invalid_then_diagonal"] {
        let input = format!("stream/{name}.in");
        let expected = read(&format!("stream/{name}.out"));
        let piped = oxo(&["stream"], &read(&input));
        assert_eq!(piped.status.code(), Some(0), "{name}: {}", stderr(&piped));
        assert_eq!(stdout(&piped), expected, "{name} from stdin");
        let dash = oxo(&["stream", "-"], &read(&input));
        assert_eq!(stdout(&dash), expected, "{name} from stdin as -");
        let path = data(&input);
        let from_file = oxo(&["stream", path.to_str().unwrap()], "");
        assert_eq!(stdout(&from_file), expected, "{name} from a file");
        assert!(from_file.stderr.is_empty());
    }
}

#[test]
fn stream_on_larger_boards() {
    let input = "6\nmove 0 0\nmove 1 0\nmove 0 1\nmove 1 1\nmove 0 2\nmove 0 3\n";
    let out = oxo(&["stream", "--size", "4"], input);
    assert_eq!(stdout(&out).lines().last(), Some("O placed at (0, 3)"));
    let out = oxo(&["stream", "--size", "4", "--k", "3"], input);
    assert_eq!(
        stdout(&out).lines().skip(4).collect::<Vec<_>>(),
        ["X wins", "Game already over"]
    );
    let out = oxo(
        &["stream", "--size", "2x5", "--k", "5"],
        "2\nmove 1 4\nmove 2 0\n",
    );
    assert_eq!(stdout(&out), "X placed at (1, 4)\nInvalid move\n");
}

#[test]
fn stream_malformed_input_exits_2_naming_the_line() {
    let out = oxo(&["stream"], "3\nmove 0 0\nmove 1 one\nmove 2 2\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "X placed at (0, 0)\n");
    assert!(stderr(&out).contains("line 3"), "{}", stderr(&out));
    assert!(stderr(&out).contains("move 1 one"), "{}", stderr(&out));

    for input in ["", "x\n", "2\nmove 0 0\n", "1\njump 0 0\n"] {
        let out = oxo(&["stream"], input);
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        assert!(stderr(&out).starts_with("oxo: line "), "{}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"));
    }
}

#[test]
fn stream_bad_options_and_missing_files() {
    let out = oxo(&["stream", "--size", "3", "--k", "4"], "0\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("k=4 is impossible on a 3x3 board"));
    let out = oxo(&["stream", "--size", "three"], "0\n");
    assert_eq!(out.status.code(), Some(2));
    let out = oxo(&["stream", "/nonexistent/moves.txt"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot open /nonexistent/moves.txt"));
}

#[test]
fn stream_huge_input_streams_and_coordinates_never_overflow() {
    let mut input = String::from("100000\n");
    for i in 0..100_000u64 {
        input.push_str(&format!("move {} -{}\n", i * 1_000_000_007, i));
    }
    let out = oxo(&["stream", "--size", "1024"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 100_000);
    assert_eq!(text.lines().next(), Some("X placed at (0, 0)"));
    assert!(text.lines().skip(1).all(|l| l == "Invalid move"));
}

#[test]
fn play_plain_transcript_golden() {
    let out = oxo(&["play", "--plain"], &read("play/x_wins.in"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read("play/x_wins.out"));
}

#[test]
fn play_rounds_alternate_and_keep_score() {
    let out = oxo(&["play", "--rounds", "3"], &read("play/three_rounds.in"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read("play/three_rounds.out"));
}

/// Sides and players are read in any case, as `--x Human` always was.
#[test]
fn sides_are_read_in_any_case() {
    let out = oxo(&["play", "--first", "O", "--x", "Human"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("O move (row col): \n"),
        "{}",
        stdout(&out)
    );
    let out = oxo(
        &[
            "arena", "--x", "RANDOM", "--o", "Rules", "--games", "2", "--first", "X",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn play_end_of_input_is_clean() {
    let out = oxo(&["play"], "1 1\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).ends_with("O move (row col): \n"));
    assert_eq!(stderr(&out), "oxo: end of input, game abandoned\n");
    let out = oxo(&["play", "--size", "5", "--k", "9"], "");
    assert_eq!(out.status.code(), Some(2));
    let out = oxo(&["play", "--rounds", "0"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_documents_exit_codes() {
    let out = oxo(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    for needle in ["play", "stream", "referee", "Exit codes", "2  bad usage"] {
        assert!(stdout(&out).contains(needle), "{needle}");
    }
    let out = oxo(&["dance"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn solve_prints_a_table_and_json() {
    let out = oxo(&["solve"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("X to move: draw in 9 plies\n"),
        "{}",
        stdout(&out)
    );

    let out = oxo(&["solve", "XX./OO./...", "--json"], "");
    let json = stdout(&out);
    assert!(json.starts_with("{\"position\":\"XX./OO./...\",\"size\":\"3x3\",\"k\":3,\"to_move\":\"x\",\"value\":\"win\",\"plies\":1,"), "{json}");
    assert!(json.contains("\"best\":[[0,2]]"), "{json}");
    assert_eq!(json.lines().count(), 1);

    let out = oxo(&["solve", "--size", "4", "--k", "3", "--json"], "");
    assert!(
        stdout(&out).contains("\"value\":\"win\""),
        "{}",
        stdout(&out)
    );
}

#[test]
fn solve_values_every_move_of_an_early_seven_by_seven_k5_position() {
    // X's centre move: every reply is a draw, from the prover and the
    // opening table, where the solver's full analysis takes minutes.
    let centre = "......./......./......./...X.../......./......./.......";
    let out = oxo(&["solve", centre, "--k", "5"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("O to move: draw in 48 plies\n"), "{text}");
    assert!(text.contains("\n3 D D D X D D D\n"), "{text}");
    let board: String = text.lines().skip(2).take(7).collect();
    assert_eq!(board.matches('D').count(), 48, "{text}");
    let out = oxo(&["solve", centre, "--k", "5", "--json"], "");
    let json = stdout(&out);
    assert!(
        json.contains("\"to_move\":\"o\",\"value\":\"draw\",\"plies\":48,"),
        "{json}"
    );
    assert_eq!(json.matches("\"value\":\"draw\"").count(), 49, "{json}");
}

#[test]
fn solve_value_reads_the_seven_by_seven_k5_opening_table() {
    // Positions the opening table holds (two moves in, and X in the centre
    // with O's reply) get their value with no search, as the full analysis
    // gets their moves'; the search took 44 million positions and a budget
    // of 3 million gave up. In a batch too, beside another board.
    for (position, value) in [
        (
            "......./......./......./....X../......./......./O......",
            "X to move: draw\n",
        ),
        (
            "......./......./......./...X.../......./......./......O",
            "X to move: draw\n",
        ),
    ] {
        let out = oxo(
            &["solve", position, "--k", "5", "--value", "--budget", "1000"],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains(value), "{text}");
        assert!(text.contains("\n0 positions searched"), "{text}");
    }
    let seven = "......./......./......./....X../......./......./O......";
    let six = "....../....../....../....../....../......";
    let batch = format!("{seven}\n{six}\n{seven}\n");
    let out = oxo(&["solve", "-", "--k", "5", "--value", "--json"], &batch);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let nodes: Vec<u64> = stdout(&out)
        .lines()
        .map(|line| {
            let answer: serde_json::Value = serde_json::from_str(line).unwrap();
            answer["nodes"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(nodes.len(), 3, "{}", stdout(&out));
    assert!(nodes[0] == 0 && nodes[1] > 0 && nodes[2] == 0, "{nodes:?}");
}

#[test]
fn solve_value_prints_the_value_alone() {
    let out = oxo(&["solve", "--value"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("position .../.../...  (3x3 k=3)\nX to move: draw\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3, "{text}");

    let out = oxo(
        &["solve", "-", "--value", "--json"],
        "XX./OO./...\n.O./.X./...\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<&str> = stdout(&out).lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].contains("\"to_move\":\"x\",\"value\":\"win\",\"nodes\":"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("\"value\":\"win\""), "{}", lines[1]);

    let out = oxo(&["solve", "--all", "--value"], "");
    assert_eq!(
        out.status.code(),
        Some(2),
        "--value has no table of every position"
    );
}

#[test]
fn headers_say_what_was_done() {
    // One game a pair: the first-named is X, not "each in half".
    let out = oxo(
        &[
            "arena",
            "--players",
            "rules,random",
            "--games",
            "1",
            "--seed",
            "1",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).lines().next().is_some_and(
            |l| l.contains("1 game a pair, the first-named of each pair X (moving first)")
        ),
        "{}",
        stdout(&out)
    );
    let out = oxo(
        &[
            "arena",
            "--players",
            "rules,random",
            "--games",
            "3",
            "--seed",
            "1",
        ],
        "",
    );
    assert!(
        stdout(&out).contains("each player X (moving first) in about half"),
        "{}",
        stdout(&out)
    );
    // Grading switched off: the curve says so.
    let dir = tempfile::tempdir().unwrap();
    let out = super::small_model(&dir.path().join("m.oxo"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("not graded here (--grade-positions 0)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_byte_order_mark_before_the_first_position_is_skipped() {
    let out = oxo(&["solve", "-", "--value"], "\u{feff}X../.../...\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("O to move: draw"), "{}", stdout(&out));
    // Only there: further on it is no part of a position.
    let out = oxo(
        &["solve", "-", "--value"],
        "X../.../...\n\u{feff}X../.../...\n",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn verify_reads_a_certificate_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("c.proof");
    let cert = cert.to_str().unwrap();
    let made = oxo(&["solve", "X.O/.X./..O", "--value", "--proof", cert], "");
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let text = std::fs::read_to_string(cert).unwrap();
    let out = oxo(&["verify", "-"], &text);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("valid: "), "{}", stdout(&out));
    let out = oxo(&["verify", "-"], &text[..text.len() / 2]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("oxo: standard input: refused: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn solve_reads_many_positions_from_stdin() {
    let input = "X../.../...\n\n.O./.X./...\nXXX/OOO/...\n...../...../...../...../.....\n";
    let out = oxo(&["solve", "-", "--json"], input);
    assert_eq!(out.status.code(), Some(2), "one line was bad");
    let lines: Vec<&str> = stdout(&out).lines().collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].contains("\"value\":\"draw\""));
    assert!(
        lines[2].starts_with("{\"line\":4,\"error\":"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("\"size\":\"5x5\",\"k\":5"),
        "{}",
        lines[3]
    );
    assert!(
        stderr(&out).contains("line 4: impossible position"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn solve_all_counts_reachable_positions() {
    let out = oxo(&["solve", "--all", "--json"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("{\"size\":\"3x3\",\"k\":3,\"positions\":5478,\"terminal\":958,\"x_wins\":626,\"o_wins\":316,\"draws\":16,"), "{}", stdout(&out));
}

#[test]
fn solve_refuses_what_it_cannot_do() {
    let out = oxo(&["solve", "--size", "8", "--k", "5"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "too large to solve: rows x (cols + 1) must be at most 64 (7x7 fits); --value gives \
             the value alone on this board"
        ),
        "{}",
        stderr(&out)
    );
    // Not where the value alone is out of reach too.
    let out = oxo(&["solve", "--size", "12", "--k", "5"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("--value"), "{}", stderr(&out));
    // A job table's address that is no PostgreSQL URL is bad usage.
    let out = oxo(&["solve", "--worker", "--db", "notaurl"], "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a PostgreSQL connection string"),
        "{}",
        stderr(&out)
    );
    let out = oxo(&["solve", "XXO/Z../..."], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad position"), "{}", stderr(&out));
    let out = oxo(&["solve", "--all", "--size", "5"], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "oxo: solving every reachable position is limited to boards of at most 16 cells; \
         5x5 is larger\n"
    );
}

#[test]
fn arena_json_and_perfect_never_loses() {
    let out = oxo(
        &[
            "arena", "--x", "random", "--o", "perfect", "--games", "500", "--seed", "7", "--json",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = stdout(&out);
    assert!(json.starts_with("{\"x\":\"random\",\"o\":\"perfect\",\"size\":\"3x3\",\"k\":3,\"seed\":7,\"games\":500,\"x_wins\":0,"), "{json}");
    // The same seed gives the same results.
    let again = oxo(
        &[
            "arena",
            "--x",
            "random",
            "--o",
            "perfect",
            "--games",
            "500",
            "--seed",
            "7",
            "--json",
            "--threads",
            "1",
        ],
        "",
    );
    let strip = |s: &str| s.split(",\"average_plies\"").next().unwrap().to_owned();
    assert_eq!(strip(stdout(&again)), strip(json));
    let out = oxo(
        &[
            "arena", "--x", "perfect", "--o", "random", "--size", "15", "--k", "5",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn arena_grades_moves_by_the_solver() {
    let args = [
        "arena", "--x", "rules", "--o", "random", "--games", "20", "--seed", "3", "--grade",
    ];
    let out = oxo(&args, "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("\n  graded by the solver: "), "{text}");
    assert!(
        text.contains("  O random       let a won position go "),
        "{text}"
    );
    let out = oxo(&[&args[..], &["--json"]].concat(), "");
    assert!(
        stdout(&out).contains(",\"grades\":{\"draws\":"),
        "{}",
        stdout(&out)
    );
    // Boards the solver cannot solve cannot be graded: bad input.
    let out = oxo(
        &[
            "arena", "--x", "rules", "--o", "random", "--size", "15", "--k", "5", "--grade",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--grade"), "{}", stderr(&out));
}

#[test]
fn arena_round_robin_table_json_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("rr.svg");
    let out = oxo(
        &[
            "arena",
            "--players",
            "random,rules,perfect",
            "--games",
            "60",
            "--seed",
            "5",
            "--plot",
            plot.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(
        table.starts_with("round robin on 3x3 k=3 (seed 5): 3 players, 60 games a pair"),
        "{table}"
    );
    // Random is last, and perfect lost nothing.
    let rows: Vec<&str> = table.lines().skip(2).take(3).collect();
    assert!(rows[2].trim_start().starts_with("random"), "{table}");
    let perfect = rows
        .iter()
        .find(|r| r.trim_start().starts_with("perfect"))
        .unwrap();
    assert_eq!(perfect.split_whitespace().nth(4), Some("0"), "{table}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));

    let json = oxo(
        &[
            "arena",
            "--players",
            "random,rules",
            "--games",
            "10",
            "--seed",
            "5",
            "--json",
        ],
        "",
    );
    let json = stdout(&json);
    assert!(
        json.starts_with("{\"size\":\"3x3\",\"k\":3,\"seed\":5,\"games_per_pair\":10,"),
        "{json}"
    );

    // One player, a player that cannot play the board, --players with --x:
    // bad usage.
    for args in [
        &["arena", "--players", "random"][..],
        &["arena", "--players", "random,perfect", "--size", "9"][..],
        &["arena", "--players", "random,rules", "--x", "random"][..],
    ] {
        let out = oxo(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("error") || stderr(&out).starts_with("oxo: "),
            "{args:?}"
        );
    }
}

/// Run `cmd`, which must end by itself: a guard kills it after a minute
/// (a hang, not a speed limit: the commands here end at once or never).
fn at_once(cmd: &mut Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oxo starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{cmd:?} did not stop at once");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Run `oxo ARGS`, which would work for hours, and expect it to stop at
/// once with exit 1 because `path` cannot be written.
fn refused_before_work(args: &[&str], path: &Path) {
    let out = at_once(Command::new(env!("CARGO_BIN_EXE_oxo")).args(args));
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    assert_eq!(
        stderr(&out).lines().next(),
        Some(
            format!(
                "oxo: cannot write {}: No such file or directory (os error 2)",
                path.display()
            )
            .as_str()
        ),
        "{args:?}"
    );
}

#[test]
fn usage_mistakes_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    // A table cut short, and a file that is no table.
    let table = path("t.tbl");
    let out = oxo(&["solve", "--all", "--save", &table], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(&table).unwrap();
    std::fs::write(path("short.tbl"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(path("text.tbl"), "not a table\n").unwrap();
    let (short, text, same) = (path("short.tbl"), path("text.tbl"), path("same"));
    let db = "postgres://nobody@127.0.0.1:1/none";
    let png = path("curve.png");
    let cases: [(&[&str], Option<&str>, &str); 26] = [
        (
            &["serve", "--addr", "127.0.0.1:0", "--db", ""],
            None,
            "oxo: --db is empty",
        ),
        (
            &["serve", "--addr", "127.0.0.1:0"],
            Some(""),
            "oxo: OXO_DB is empty",
        ),
        (
            &["train", "--out", &same, "--plot", &same],
            None,
            "--out and --plot name the same file",
        ),
        (
            &["train", "--out", &same, "--plot", &png],
            None,
            "--plot draws an SVG picture, but",
        ),
        (
            &["arena", "--players", "rules,random", "--plot", &png],
            None,
            "--plot draws an SVG picture, but",
        ),
        (
            &["solve", "X.O/.X./..O", "--save", &same],
            None,
            "--save saves the table of --all",
        ),
        (
            &["arena", "--x", "random", "--o", "rules", "--opening", "9"],
            None,
            "--opening 9 leaves no move",
        ),
        // Eight moves on 3x3 k=2 always make a line: no opening leaves a
        // game to play, in a match or a round robin.
        (
            &[
                "arena",
                "--x",
                "random",
                "--o",
                "rules",
                "--size",
                "3",
                "--k",
                "2",
                "--opening",
                "8",
            ],
            None,
            "--opening 8: none of 1000 random openings of 8 moves tried leaves a 3x3 k=2 game undecided",
        ),
        (
            &[
                "arena",
                "--players",
                "random,rules",
                "--size",
                "3",
                "--k",
                "2",
                "--opening",
                "8",
            ],
            None,
            "--opening 8: none of 1000 random openings of 8 moves",
        ),
        (
            &["arena", "--x", "random", "--o", "rules", "--plot", &same],
            None,
            "--plot draws a round robin",
        ),
        (
            &["play", "--plain", "--x", "perfect", "--table", &short],
            None,
            "truncated",
        ),
        (
            &["play", "--plain", "--x", "perfect", "--table", &text],
            None,
            "not an oxo table",
        ),
        (
            &[
                "play", "--plain", "--x", "perfect", "--size", "4", "--table", &table,
            ],
            None,
            "solves 3x3 k=3 games, not 4x4 k=4",
        ),
        (
            &["solve", "--all", "--size", "4x5"],
            None,
            "at most 16 cells",
        ),
        // Options outside their line of the synopsis.
        (
            &["solve", "--all", "--table-mb", "8"],
            None,
            "--table-mb: --all does not use it",
        ),
        (
            &["solve", "--value", "--checkpoint", &same, "--table-mb", "8"],
            None,
            "--table-mb: a long proof sizes its tables by --memory",
        ),
        (
            &["solve", "--worker", "--db", db, "--size", "4"],
            None,
            "'--worker' cannot be used with '--size <N|RxC>'",
        ),
        (
            &["solve", "--worker", "--db", db, "--k", "4"],
            None,
            "'--worker' cannot be used with '--k <K>'",
        ),
        (
            &["solve", "--worker", "--db", db, "--value"],
            None,
            "'--worker' cannot be used with '--value'",
        ),
        (
            &["solve", "--worker", "--db", db, "--resume"],
            None,
            "--worker",
        ),
        (
            &["arena", "--x", "random", "--o", "rules", "--move-time", "5"],
            None,
            "--move-time is for brain:PATH players, and none of the players is one",
        ),
        (
            &["arena", "--players", "random,rules", "--move-time", "5"],
            None,
            "--move-time is for brain:PATH players",
        ),
        (
            &["train", "--out", &same, "--search-games", "5"],
            None,
            "--search-games is for searched self-play, and the model for 3x3 k=3 does not play inside alphabeta's search",
        ),
        (
            &["train", "--out", &same, "--threads", "2"],
            None,
            "--threads is for searched self-play",
        ),
        (
            &[
                "train",
                "--out",
                &same,
                "--size",
                "7",
                "--k",
                "5",
                "--search-games",
                "5",
            ],
            None,
            "--search-games is for searched self-play, and no rounds of it run here",
        ),
        (
            &[
                "train",
                "--out",
                &same,
                "--size",
                "15",
                "--k",
                "5",
                "--search-rounds",
                "0",
                "--threads",
                "2",
            ],
            None,
            "--threads is for searched self-play, and no rounds of it run here",
        ),
    ];
    for (args, env, reason) in cases {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_oxo"));
        cmd.args(args).current_dir(dir.path());
        if let Some(value) = env {
            cmd.env("OXO_DB", value);
        }
        let out = at_once(&mut cmd);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(reason), "{args:?}: {}", stderr(&out));
    }
    assert!(!Path::new(&same).exists());

    // --memory wins over OXO_DB (only --db on the command line conflicts).
    let mut server = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--memory"])
        .env("OXO_DB", path("env.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(line.contains("games kept in memory only"), "{line:?}");
}

#[test]
fn a_negative_number_is_a_bad_value_not_an_unknown_flag() {
    for (args, says) in [
        (
            &["solve", "--size", "-1"][..],
            "invalid value '-1' for '--size <N|RxC>'",
        ),
        (
            &["solve", "--k", "-1"][..],
            "invalid value '-1' for '--k <K>'",
        ),
        (
            &["play", "--rounds", "-1"][..],
            "invalid value '-1' for '--rounds <ROUNDS>'",
        ),
        // What the value should be, not the type's whole range.
        (
            &["arena", "--x", "rules", "--o", "rules", "--games", "0"][..],
            "invalid value '0' for '--games <GAMES>': it must be at least 1\n",
        ),
        (
            &["play", "--k", "x"][..],
            "invalid value 'x' for '--k <K>': \"x\" is not a win length: k is a whole number from 1 to the board's longer side\n",
        ),
    ] {
        let out = oxo(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_directory_given_as_a_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let out = oxo(&["stream", path], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("oxo: cannot read {path}: it is a directory\n")
    );
}

#[test]
fn a_long_proofs_options_are_refused_where_they_do_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("p.ckpt");
    let ckpt = ckpt.to_str().unwrap();
    let db = "postgres://nobody@127.0.0.1:1/none";
    // A local proof of 4x4 k=4 with `extra` options.
    let local = |extra: &[&'static str]| -> Vec<String> {
        let base = ["solve", "--value", "--size", "4", "--checkpoint", ckpt];
        base.iter().chain(extra).map(|a| (*a).to_owned()).collect()
    };
    let cases: [(Vec<String>, &str); 6] = [
        (
            ["solve", "--size", "3", "--memory", "nonsense"]
                .map(str::to_owned)
                .to_vec(),
            "--memory: it is for long proofs",
        ),
        (
            ["solve", "--value", "--db", db, "--split", "5"]
                .map(str::to_owned)
                .to_vec(),
            "--split: it is for long proofs",
        ),
        (
            local(&["--db", db]),
            "--db: this kind of long proof does not use it",
        ),
        (
            local(&["--lease", "5"]),
            "--lease: this kind of long proof does not use it",
        ),
        (
            local(&["--resume", "--split", "4"]),
            "--split: a resumed proof keeps the split it was started with",
        ),
        (
            local(&["--job-nodes", "1"]),
            "invalid value '1' for '--job-nodes <N>': it must be at least 1000",
        ),
    ];
    for (args, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = oxo(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert!(!Path::new(ckpt).exists(), "nothing started");
}

#[test]
fn long_jobs_refuse_an_output_they_cannot_write_before_they_start() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.oxo");
    std::fs::write(&model, "an earlier model").unwrap();
    let missing = dir.path().join("no such dir/out");
    let (model_arg, missing_arg) = (model.to_str().unwrap(), missing.to_str().unwrap());
    // A billion episodes, a long round robin, the census of 4x4.
    let train = [
        "train",
        "--size",
        "4",
        "--k",
        "4",
        "--episodes",
        "1000000000",
    ];
    let mut args = train.to_vec();
    args.extend(["--out", model_arg, "--plot", missing_arg]);
    refused_before_work(&args, &missing);
    // Training never began, so the earlier model is as it was.
    assert_eq!(std::fs::read_to_string(&model).unwrap(), "an earlier model");
    let mut args = train.to_vec();
    args.extend(["--out", missing_arg]);
    refused_before_work(&args, &missing);
    refused_before_work(
        &[
            "arena",
            "--players",
            "alphabeta,rules,random",
            "--size",
            "15",
            "--k",
            "5",
            "--games",
            "1000000",
            "--plot",
            missing_arg,
        ],
        &missing,
    );
    refused_before_work(
        &[
            "solve",
            "--size",
            "5",
            "--k",
            "4",
            "--all",
            "--save",
            missing_arg,
        ],
        &missing,
    );

    // A model path that did not exist is not left behind by the check.
    let fresh = dir.path().join("fresh.oxo");
    let out = oxo(
        &[
            "train",
            "--out",
            fresh.to_str().unwrap(),
            "--curve",
            missing_arg,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!fresh.exists());
}

#[test]
fn train_plays_searched_self_play_where_the_model_searches() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let train = |threads: &str, model: &str, curve: &str| {
        oxo(
            &[
                "train",
                "--size",
                "9",
                "--k",
                "5",
                "--episodes",
                "300",
                "--search-rounds",
                "2",
                "--search-games",
                "10",
                "--checkpoints",
                "2",
                "--eval-games",
                "2",
                "--threads",
                threads,
                "--out",
                model,
                "--curve",
                curve,
            ],
            "",
        )
    };
    let (one, two) = (path("one.oxo"), path("two.oxo"));
    let out = train("1", &one, &path("one.csv"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "9x9 k=5: 300 self-play episodes and 20 searched self-play games (seed 1) in "
        ),
        "{text}"
    );
    let csv = std::fs::read_to_string(path("one.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows[rows.len() - 3].starts_with("300,0,"), "{csv}");
    assert!(rows[rows.len() - 2].starts_with("300,10,"), "{csv}");
    assert!(rows[rows.len() - 1].starts_with("300,20,"), "{csv}");
    // The searched games change the model, and not with the thread count.
    let out = train("2", &two, &path("two.csv"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let plain = path("plain.oxo");
    let out = oxo(
        &[
            "train",
            "--size",
            "9",
            "--k",
            "5",
            "--episodes",
            "300",
            "--search-rounds",
            "0",
            "--checkpoints",
            "1",
            "--eval-games",
            "1",
            "--out",
            &plain,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("9x9 k=5: 300 self-play episodes (seed 1) in "));
    assert_ne!(std::fs::read(&one).unwrap(), std::fs::read(&plain).unwrap());

    // Where the model does not search, asking for rounds is bad usage.
    let out = oxo(
        &[
            "train",
            "--size",
            "4",
            "--k",
            "4",
            "--search-rounds",
            "1",
            "--out",
            &plain,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("does not play inside alphabeta's search"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn train_saves_a_model_and_its_curve_and_the_model_plays() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (model, plot, curve) = (path("m.oxo"), path("curve.svg"), path("curve.csv"));
    let out = oxo(
        &[
            "train",
            "--episodes",
            "20000",
            "--seed",
            "7",
            "--checkpoints",
            "5",
            "--out",
            &model,
            "--plot",
            &plot,
            "--curve",
            &curve,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("3x3 k=3: 20000 self-play episodes (seed 7) in "),
        "{text}"
    );
    assert!(text.contains("over 4520 positions"), "{text}");
    let csv = std::fs::read_to_string(&curve).unwrap();
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(csv.lines().last().unwrap().starts_with("20000,"), "{csv}");
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));

    // The model plays: never loses to random in either seat.
    for (x, o) in [("learned", "random"), ("random", "learned")] {
        let out = oxo(
            &[
                "arena", "--x", x, "--o", o, "--games", "400", "--seed", "1", "--json", "--model",
                &model,
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let json = stdout(&out);
        let lost = if x == "learned" {
            "\"o_wins\":0,"
        } else {
            "\"x_wins\":0,"
        };
        assert!(json.contains(lost), "{json}");
    }

    // A truncated file, a foreign one, a model for another board, and
    // learned where oxo has no built-in model: exit 2 with a reason.
    let bytes = std::fs::read(&model).unwrap();
    std::fs::write(path("short.oxo"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(path("foreign.oxo"), b"not a model at all").unwrap();
    for (args, reason) in [
        (
            vec!["--model", &path("short.oxo")][..].to_vec(),
            "truncated",
        ),
        (
            vec!["--model", &path("foreign.oxo")],
            "not an oxo model file",
        ),
        (
            vec!["--model", &model, "--size", "4"],
            "model trained for 3x3 k=3, not 4x4 k=4",
        ),
        (vec!["--size", "9", "--k", "5"], "no built-in model"),
    ] {
        let mut all = vec!["arena", "--x", "learned", "--o", "random", "--games", "2"];
        all.extend(args);
        let out = oxo(&all, "");
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(stderr(&out).contains(reason), "{all:?}: {}", stderr(&out));
    }
    // A model (or a table) with no player to read it is refused, not
    // ignored.
    for (args, reason) in [
        (
            vec![
                "arena",
                "--x",
                "alphabeta",
                "--o",
                "random",
                "--model",
                &model,
            ],
            "--model is for a learned player, and none of the players is learned",
        ),
        (
            vec!["play", "--plain", "--x", "alphabeta", "--model", &model],
            "--model is for a learned player, and neither plays learned: X is alphabeta, O is human",
        ),
        (
            vec!["play", "--plain", "--o", "learned", "--table", &model],
            "--table is for a perfect player, and neither plays perfect: X is human, O is learned",
        ),
    ] {
        let out = oxo(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(reason), "{args:?}: {}", stderr(&out));
    }
    let out = oxo(
        &[
            "arena",
            "--x",
            "learned",
            "--o",
            "random",
            "--model",
            &path("none.oxo"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn the_built_in_learned_player_holds_perfect_play_to_draws() {
    for (x, o) in [("learned", "perfect"), ("perfect", "learned")] {
        let out = oxo(
            &[
                "arena", "--x", x, "--o", o, "--games", "200", "--seed", "5", "--json",
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("\"x_wins\":0,\"o_wins\":0,\"draws\":200,"),
            "{}",
            stdout(&out)
        );
    }
    let out = oxo(&["play", "--o", "learned", "--seed", "2"], "1 1\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("O (learned) plays "),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_endless_line_is_refused_with_a_short_message() {
    let huge = format!("1\nmove {}", "7".repeat(20 << 20));
    let out = oxo(&["stream"], &huge);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "oxo: line 2: longer than 4096 bytes, which no instruction is\n"
    );
    let out = oxo(
        &["solve", "-"],
        &format!("{}\n.../.../...\n", "X".repeat(20 << 20)),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).len() < 200, "{}", stderr(&out));
    assert!(stdout(&out).contains("3x3 k=3"), "{}", stdout(&out));
}

#[test]
fn a_full_disk_is_said_once() {
    use std::os::unix::fs::FileTypeExt;
    // /dev/full answers every write with ENOSPC; check it is the device
    // (never write to it otherwise).
    let full = std::path::Path::new("/dev/full");
    assert!(
        std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()),
        "/dev/full is not the character device this test needs"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .arg("stream")
        .stdin(Stdio::piped())
        .stdout(std::fs::OpenOptions::new().write(true).open(full).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1\nmove 0 0\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert_eq!(text.matches("No space left on device").count(), 1, "{text}");

    // `oxo verify`'s verdict too.
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("c.proof");
    let cert = cert.to_str().unwrap();
    let made = oxo(&["solve", "X.O/.X./..O", "--value", "--proof", cert], "");
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["verify", cert])
        .stdout(std::fs::OpenOptions::new().write(true).open(full).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert_eq!(text.matches("No space left on device").count(), 1, "{text}");
}

#[test]
fn a_seed_taken_from_the_clock_is_said_and_plays_the_game_again() {
    let args = [
        "play", "--x", "random", "--o", "rules", "--size", "5", "--k", "4",
    ];
    let first = oxo(&args, "");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let note = stderr(&first);
    let seed = note
        .strip_prefix("oxo: the computer plays with seed ")
        .and_then(|rest| rest.split_once(' '))
        .map(|(seed, _)| seed.to_owned())
        .unwrap_or_else(|| panic!("{note}"));
    assert_eq!(
        note,
        format!(
            "oxo: the computer plays with seed {seed} (--seed {seed} makes the same choices again)\n"
        )
    );
    let again = oxo(&[&args[..], &["--seed", &seed]].concat(), "");
    assert_eq!(stdout(&again), stdout(&first));
    // A seed given is not said again.
    assert_eq!(stderr(&again), "");
}

#[test]
fn play_computer_against_computer() {
    let out = oxo(
        &[
            "play", "--x", "perfect", "--o", "perfect", "--seed", "3", "--rounds", "2",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("draw.\nScore: X 0, O 0, draws 2\n"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("X (perfect) plays "));
}

#[test]
fn a_saved_table_feeds_the_perfect_player() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t33.oxo");
    let path = path.to_str().unwrap();
    let out = oxo(&["solve", "--all", "--save", path], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = oxo(
        &[
            "play", "--x", "perfect", "--o", "perfect", "--table", path, "--seed", "9",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("draw.\n"), "{}", stdout(&out));
    let out = oxo(
        &["play", "--x", "perfect", "--size", "4", "--table", path],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("solves 3x3 k=3 games, not 4x4 k=4"),
        "{}",
        stderr(&out)
    );

    // A damaged table is refused as damaged (exit 2), never played from:
    // one value changed, bytes added at the end, and a table of the old
    // format, which had no checksum to tell.
    let bytes = std::fs::read(path).unwrap();
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut flipped = bytes.clone();
    flipped[header + 16] = (flipped[header + 16] + 1) % 3;
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"garbage");
    let mut old = bytes[..bytes.len() - 8].to_vec();
    old[12] = b'1';
    for (name, bytes, reason) in [
        ("flipped", flipped, "damaged: its checksum does not match"),
        ("longer", longer, "damaged: bytes follow its end"),
        ("old", old, "rebuild it with oxo solve --all --save FILE"),
    ] {
        let bad = dir.path().join(name);
        std::fs::write(&bad, bytes).unwrap();
        let out = oxo(
            &["play", "--x", "perfect", "--table", bad.to_str().unwrap()],
            "",
        );
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(reason), "{name}: {}", stderr(&out));
    }
}

/// Every command that prints fails with exit 1 when its output cannot be
/// written (here a full disk, Linux's `/dev/full`), and says it was the
/// standard output that failed, not only why.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_to_standard_output_says_so() {
    let cases: [(&[&str], &str); 10] = [
        (&["serve", "--addr", "127.0.0.1:0", "--memory"], ""),
        (&["--help"], ""),
        (&["solve", "--help"], ""),
        (&["solve", "--size", "3"], ""),
        (&["solve", "-"], "x../.../...\n"),
        (&["stream"], "1\nmove 1 1\n"),
        (&["play", "--plain"], "1 1\n"),
        (&["brain"], "START 15\nBEGIN\n"),
        (
            &["arena", "--x", "random", "--o", "random", "--games", "2"],
            "",
        ),
        (&["solve", "--all", "--size", "3"], ""),
    ];
    let moves = data("referee/barnette.moves.txt");
    let referee: [&str; 2] = ["referee", moves.to_str().unwrap()];
    for (args, input) in cases.into_iter().chain([(&referee[..], "")]) {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens");
        let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .expect("oxo starts");
        let mut pipe = child.stdin.take().unwrap();
        let _ = pipe.write_all(input.as_bytes());
        drop(pipe);
        let output = child.wait_with_output().expect("oxo finishes");
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("cannot write to standard output: No space left on device"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// A reader of the output that is gone before oxo writes (`oxo … | true`)
/// is not a failure, and costs none of the files asked for: each is
/// written whatever happens to standard output.
#[test]
fn files_are_written_when_the_reader_of_stdout_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (table, proof, plot) = (path("t.tbl"), path("p.proof"), path("x.svg"));
    let runs: [&[&str]; 3] = [
        &["solve", "--all", "--save", &table],
        &["solve", "--size", "4", "--k", "3", "--proof", &proof],
        &[
            "arena",
            "--players",
            "rules,random",
            "--games",
            "10",
            "--plot",
            &plot,
        ],
    ];
    for args in runs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_oxo"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert!(std::fs::read(&table).unwrap().starts_with(b"oxo-strong"));
    assert!(
        std::fs::read_to_string(&proof)
            .unwrap()
            .starts_with("oxo-proof ")
    );
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}

/// A message that cannot be written to standard error (its reader went
/// away, as in `oxo … 2>&1 | head`, or a full disk) is dropped: each
/// command still ends with its documented exit code, never a panic (101).
#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_to_standard_error_is_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("c.proof");
    let cert = cert.to_str().unwrap();
    // stdout to /dev/full as well: the failure is said (on no stderr).
    let cases: [(&[&str], &str, bool, i32); 6] = [
        (
            &[
                "solve", "--size", "4", "--k", "3", "--value", "--proof", cert,
            ],
            "",
            false,
            0,
        ),
        (&["verify", cert], "", true, 1),
        (&["solve", "X.O/.X./..Q"], "", false, 2),
        (&["solve", "-"], "X../.../...\nnot a board\n", false, 2),
        (
            &["solve", "--size", "4", "--value", "--budget", "10"],
            "",
            false,
            4,
        ),
        // A refused move and the end of input are noted on stderr.
        (&["play", "--plain"], "9 9\n1 1\n", false, 0),
    ];
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    };
    let full = || {
        Stdio::from(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full opens"),
        )
    };
    for stderr_is in [closed_pipe, full] {
        for (args, input, stdout_full, code) in cases {
            let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
                .args(args)
                .stdin(Stdio::piped())
                .stdout(if stdout_full { full() } else { Stdio::null() })
                .stderr(stderr_is())
                .spawn()
                .expect("oxo starts");
            let mut pipe = child.stdin.take().unwrap();
            let _ = pipe.write_all(input.as_bytes());
            drop(pipe);
            let status = child.wait().expect("oxo finishes");
            assert_eq!(status.code(), Some(code), "{args:?}");
        }
    }
    assert!(Path::new(cert).exists());
}

/// One of a thing is said in the singular, and a number read with a vowel
/// takes "an".
#[test]
fn one_game_is_a_game_and_an_eight_takes_an() {
    let out = oxo(
        &[
            "arena", "--x", "random", "--o", "random", "--games", "1", "--seed", "1",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("1 game of 3x3 k=3 (seed 1)"),
        "{}",
        stdout(&out)
    );
    let out = oxo(&["solve", "--size", "8", "--k", "9"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("k=9 is impossible on an 8x8 board"),
        "{}",
        stderr(&out)
    );
}
