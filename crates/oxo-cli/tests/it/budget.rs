//! `oxo solve --budget N`: a search that visits N positions without an
//! answer ends with a message and exit code 4; within the budget, the
//! output is the same as without one.

use std::process::{Command, Output};

fn oxo(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("oxo starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("oxo finishes")
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// The output without the last line, the search's time.
fn without_time(out: &Output) -> &str {
    let text = text(&out.stdout);
    let cut = text.trim_end().rfind('\n').map_or(0, |i| i + 1);
    &text[..cut]
}

#[test]
fn a_value_or_an_analysis_over_budget_exits_4_with_a_message() {
    // 6x6 k=4: the value takes 3,051 positions, the full analysis 719,057.
    for args in [
        &["solve", "--size", "6", "--k", "4", "--budget", "1000"][..],
        &[
            "solve", "--size", "6", "--k", "4", "--value", "--budget", "1000",
        ],
        &[
            "solve", "--size", "6", "--k", "4", "--budget", "10000", "--json",
        ],
        // Beyond the solver's boards, the prover's budget.
        &[
            "solve", "--size", "8", "--k", "5", "--value", "--budget", "2000",
        ],
    ] {
        let out = oxo(args, "");
        assert_eq!(
            out.status.code(),
            Some(4),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "", "{args:?}");
        let budget = args.last().unwrap();
        let budget = if *budget == "--json" { "10000" } else { budget };
        assert_eq!(
            text(&out.stderr),
            format!("oxo: no answer within the budget of {budget} positions (--budget)\n"),
            "{args:?}"
        );
    }
}

#[test]
fn within_its_budget_the_answer_is_the_same() {
    for args in [
        &["solve", "X.O/.X./..O"][..],
        &["solve", "--size", "6", "--k", "4", "--value"],
    ] {
        let plain = oxo(args, "");
        let budgeted = oxo(&[args, &["--budget", "100000"]].concat(), "");
        assert_eq!(plain.status.code(), Some(0));
        assert_eq!(
            budgeted.status.code(),
            Some(0),
            "{}",
            text(&budgeted.stderr)
        );
        assert_eq!(without_time(&budgeted), without_time(&plain));
    }
}

/// A budget of exactly the positions a search reports lets it answer, with
/// the same output; one fewer does not: the solver's analysis and value
/// (5x5 k=4), and the prover's value beyond 64 cells (9x8 k=6).
#[test]
fn a_budget_of_the_count_reported_answers_and_one_less_does_not() {
    for args in [
        &["solve", "--size", "5", "--k", "4"][..],
        &["solve", "--size", "5", "--k", "4", "--value"],
        &["solve", "--size", "9x8", "--k", "6", "--value"],
    ] {
        let plain = oxo(args, "");
        assert_eq!(plain.status.code(), Some(0), "{args:?}");
        // The last line: `N positions searched in T ms`.
        let nodes: u64 = text(&plain.stdout)
            .lines()
            .last()
            .and_then(|line| line.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{args:?}: {}", text(&plain.stdout)));
        let exact = oxo(&[args, &["--budget", &nodes.to_string()]].concat(), "");
        assert_eq!(
            exact.status.code(),
            Some(0),
            "{args:?} --budget {nodes}: {}",
            text(&exact.stderr)
        );
        assert_eq!(without_time(&exact), without_time(&plain), "{args:?}");
        let short = oxo(
            &[args, &["--budget", &(nodes - 1).to_string()]].concat(),
            "",
        );
        assert_eq!(
            short.status.code(),
            Some(4),
            "{args:?} --budget {}",
            nodes - 1
        );
    }
}

#[test]
fn a_batch_answers_what_fits_and_exits_4_if_a_line_did_not() {
    let input = "X.O/.X./..O\n....../....../....../....../....../......\n";
    let out = oxo(
        &["solve", "-", "--k", "3", "--budget", "500", "--json"],
        input,
    );
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let lines: Vec<&str> = text(&out.stdout).lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("\"value\":\"draw\""), "{}", lines[0]);
    assert_eq!(
        lines[1],
        "{\"line\":2,\"error\":\"no answer within the budget of 500 positions\"}"
    );
    // A bad line as well: bad input (2) wins over a budget run out.
    let out = oxo(
        &["solve", "-", "--k", "3", "--budget", "500"],
        &format!("{input}nonsense\n"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn the_budget_is_refused_where_it_has_no_meaning() {
    for args in [
        &["solve", "--all", "--budget", "5"][..],
        &["solve", "--budget", "0"],
        &[
            "solve",
            "--value",
            "--checkpoint",
            "x.ckpt",
            "--budget",
            "5",
        ],
    ] {
        let out = oxo(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// `--budget` bounds the search for the value, not the writing of its
/// certificate: 9x8 k=6's value takes 8,212 positions, a budget it fits
/// in tightly, and its certificate is written whole.
#[test]
fn the_budget_does_not_cut_the_certificate_short() {
    let dir = std::env::temp_dir().join(format!("oxo-budget-proof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("9x8k6.proof");
    let path = file.to_str().unwrap();
    let out = oxo(
        &[
            "solve", "--size", "9x8", "--k", "6", "--value", "--budget", "8300", "--proof", path,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("X to move: draw"));
    let verify = oxo(&["verify", path], "");
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Real-game wins beyond the 64-bit boards get certificates that `oxo
/// verify` accepts: a win of the side to move (9×9 k=4) and a loss (9×7
/// k=5, X to move, O wins), exit 0.
#[test]
fn real_game_wins_beyond_64_bits_get_certificates() {
    let dir = std::env::temp_dir().join(format!("oxo-win-proof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("win.proof");
    let path = file.to_str().unwrap();
    for (position, k, value, claim) in [
        (
            "O......../........./........./........./...XX..../........./........./........./........O",
            "4",
            "X to move: win",
            "a win for X",
        ),
        (
            "......./......./......./.XX..../.O.O.../.X..XO./.XOOX../......./.......",
            "5",
            "O to move: win",
            "a win for O",
        ),
    ] {
        let out = oxo(
            &["solve", position, "--k", k, "--value", "--proof", path],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains(value), "{}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains(&format!("oxo: proof of {claim} (")),
            "{}",
            text(&out.stderr)
        );
        let verify = oxo(&["verify", path], "");
        assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
        assert!(
            text(&verify.stdout).starts_with("valid: ")
                && text(&verify.stdout).contains(&format!("{position}: {claim} (")),
            "{}",
            text(&verify.stdout)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A draw beyond the 64-bit boards that only the defender's own threats
/// hold has no certificate: X forces six in a row against a mere blocker
/// here, but O threatens six at once (the gap in `.OOO.OO.`), and in the real
/// game it is a draw. The value is printed all the same, then the reason,
/// exit 2, and no file is written.
#[test]
fn a_draw_held_by_threats_prints_its_value_and_writes_no_certificate() {
    let dir = std::env::temp_dir().join(format!("oxo-threat-draw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("draw.proof");
    let position =
        "......../.X.XXX../.XO...O./..OX..X./.OOO.OO./..OXXX../.XXOOO../......../........";
    let out = oxo(
        &[
            "solve",
            position,
            "--k",
            "6",
            "--value",
            "--proof",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        without_time(&out),
        format!("position {position}  (9x8 k=6)\nX to move: draw\n")
    );
    assert_eq!(
        text(&out.stderr),
        "oxo: no certificate written: on boards beyond the 64-bit solver's (9x8 k=6), \
         certificates prove wins and only those draws that blocking alone holds\n"
    );
    assert!(!file.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
