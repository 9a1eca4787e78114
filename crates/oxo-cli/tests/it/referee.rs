//! `oxo referee` run as a real process.
//!
//! The golden files are under `tests/data/referee/`: `barnette.*` is the
//! sample moves file and report of the CS 1044 Program 6 handout (Spring
//! 2002), with hyphens where the handout's typesetting printed en-dashes;
//! `illegal.*` was written for oxo to cover every illegal move and an O win.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

const PROGRAMMER: &str = "Dwight Barnette";
const PROJECT: &str = "CS 1044 Project 6 Spring 2002";

/// A game that ends after five moves with an X win.
const SHORT_GAME: &str = "Title\nX: A Ames O: B Bell\n\nX\t1\nO\t4\nX\t2\nO\t5\nX\t3\n";

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/referee")
        .join(name)
}

fn golden(name: &str) -> String {
    fs::read_to_string(data(name)).unwrap()
}

/// Run `oxo referee ARGS` in `dir`.
fn referee(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxo"))
        .arg("referee")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).unwrap()
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn the_seed_sample_reproduces_byte_for_byte() {
    let moves = data("barnette.moves.txt");
    let out = referee(
        Path::new("."),
        &[
            moves.to_str().unwrap(),
            "--programmer",
            PROGRAMMER,
            "--project",
            PROJECT,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), golden("barnette.report.txt"));
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_dash_reads_the_moves_from_standard_input() {
    use std::io::Write as _;
    use std::process::Stdio;
    let moves = fs::read(data("barnette.moves.txt")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args([
            "referee",
            "-",
            "--programmer",
            PROGRAMMER,
            "--project",
            PROJECT,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&moves).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), golden("barnette.report.txt"));
    // A file named `-` is `./-`; standard input has no name for a report
    // in a directory.
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("-"), SHORT_GAME).unwrap();
    let out = referee(dir.path(), &["./-"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = referee(dir.path(), &["-", "--out-dir", "reports"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("standard input (-) has no name"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn every_illegal_move_and_an_o_win_match_the_golden() {
    let moves = data("illegal.moves.txt");
    let out = referee(
        Path::new("."),
        &[
            moves.to_str().unwrap(),
            "--programmer",
            "Grace Hopper",
            "--project",
            "Illegal moves of every kind",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), golden("illegal.report.txt"));
}

#[test]
fn crlf_and_a_bom_give_the_same_report() {
    let dir = TempDir::new().unwrap();
    let plain = fs::read_to_string(data("barnette.moves.txt")).unwrap();
    let windows = format!("\u{feff}{}", plain.replace('\n', "\r\n"));
    fs::write(dir.path().join("moves.txt"), windows).unwrap();
    let out = referee(
        dir.path(),
        &[
            "moves.txt",
            "--programmer",
            PROGRAMMER,
            "--project",
            PROJECT,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), golden("barnette.report.txt"));
}

#[test]
fn the_default_header_names_oxo() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    let out = referee(dir.path(), &["game.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Programmer: oxo\nTic-Tac-Toe referee\n\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_header_line_with_a_line_break_is_refused() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    for (option, text) in [("--programmer", "A\nWinner: X"), ("--project", "P6\tB\r")] {
        let out = referee(dir.path(), &["game.txt", option, text, "-o", "report.txt"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{option} cannot hold control characters")),
            "{}",
            stderr(&out)
        );
        // Refused before any work: no report, not even a header.
        assert_eq!(listing(dir.path()), ["game.txt"]);
    }
}

#[test]
fn dash_o_writes_the_report_file() {
    let dir = TempDir::new().unwrap();
    fs::copy(data("barnette.moves.txt"), dir.path().join("TTTmoves.txt")).unwrap();
    let out = referee(
        dir.path(),
        &[
            "TTTmoves.txt",
            "-o",
            "TTTgame.txt",
            "--programmer",
            PROGRAMMER,
            "--project",
            PROJECT,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        fs::read_to_string(dir.path().join("TTTgame.txt")).unwrap(),
        golden("barnette.report.txt")
    );
    assert_eq!(listing(dir.path()), ["TTTgame.txt", "TTTmoves.txt"]);
}

#[test]
fn dash_o_replaces_an_old_report() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    fs::write(dir.path().join("report.txt"), "old report").unwrap();
    let out = referee(dir.path(), &["game.txt", "-o", "report.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(report.ends_with("Winner: X\n"), "{report}");
}

#[test]
fn out_dir_writes_one_report_per_input() {
    let dir = TempDir::new().unwrap();
    fs::create_dir(dir.path().join("in")).unwrap();
    fs::copy(data("barnette.moves.txt"), dir.path().join("in/a.txt")).unwrap();
    fs::copy(data("illegal.moves.txt"), dir.path().join("b.txt")).unwrap();
    let out = referee(
        dir.path(),
        &[
            "in/a.txt",
            "b.txt",
            "--out-dir",
            "reports/new",
            "--programmer",
            PROGRAMMER,
            "--project",
            PROJECT,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let reports = dir.path().join("reports/new");
    assert_eq!(listing(&reports), ["a.txt", "b.txt"]);
    assert_eq!(
        fs::read_to_string(reports.join("a.txt")).unwrap(),
        golden("barnette.report.txt")
    );
    let b = fs::read_to_string(reports.join("b.txt")).unwrap();
    assert!(b.starts_with("Programmer: Dwight Barnette\n"), "{b}");
    assert!(b.ends_with("Winner: O\n"), "{b}");
}

#[test]
fn a_single_input_may_use_out_dir() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    let out = referee(dir.path(), &["game.txt", "--out-dir", "out"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(listing(&dir.path().join("out")), ["game.txt"]);
}

#[test]
fn a_bad_file_among_several_fails_alone() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("good.txt"), SHORT_GAME).unwrap();
    fs::write(
        dir.path().join("short.txt"),
        "Title\nX: A Ames O: B Bell\n\nX\t1\nO\t4\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("garbled.txt"),
        "Title\nX: A Ames O: B Bell\n\nX\t1\nO four\n",
    )
    .unwrap();
    let out = referee(
        dir.path(),
        &[
            "short.txt",
            "good.txt",
            "missing.txt",
            "garbled.txt",
            "--out-dir",
            "out",
        ],
    );
    // Bad content outranks the missing file.
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert_eq!(listing(&dir.path().join("out")), ["good.txt"]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "oxo referee: short.txt: line 5: the file ends before the game does: \
             2 legal moves and no winner"
        ),
        "{err}"
    );
    assert!(
        err.contains("oxo referee: missing.txt: cannot read: "),
        "{err}"
    );
    assert!(
        err.contains("oxo referee: garbled.txt: line 5: cannot read the move \"O four\""),
        "{err}"
    );
    assert_eq!(err.lines().count(), 3, "{err}");
}

#[test]
fn only_io_failures_exit_1() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("good.txt"), SHORT_GAME).unwrap();
    let out = referee(dir.path(), &["good.txt", "missing.txt", "--out-dir", "out"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(listing(&dir.path().join("out")), ["good.txt"]);
}

#[test]
fn a_missing_file_exits_1() {
    let dir = TempDir::new().unwrap();
    let out = referee(dir.path(), &["nowhere.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with("oxo referee: nowhere.txt: cannot read: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unwritable_report_exits_1() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    let out = referee(dir.path(), &["game.txt", "-o", "no/such/dir/report.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("oxo referee: no/such/dir/report.txt: cannot write: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(listing(dir.path()), ["game.txt"]);
}

#[test]
fn a_truncated_game_exits_2_and_leaves_the_report_alone() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("short.txt"),
        "Title\nX: A Ames O: B Bell\n\nX\t1\nO\t4\nX\t2\n",
    )
    .unwrap();
    fs::write(dir.path().join("old.txt"), "an older report\n").unwrap();

    let out = referee(dir.path(), &["short.txt", "-o", "new.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "oxo referee: short.txt: line 6: the file ends before the game does: \
         3 legal moves and no winner\n"
    );

    let out = referee(dir.path(), &["short.txt", "-o", "old.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        fs::read_to_string(dir.path().join("old.txt")).unwrap(),
        "an older report\n"
    );

    let out = referee(dir.path(), &["short.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");

    let out = referee(dir.path(), &["short.txt", "--out-dir", "out"]);
    assert_eq!(out.status.code(), Some(2));
    // No new files and no temporary files left behind.
    assert_eq!(listing(dir.path()), ["old.txt", "short.txt"]);
}

#[test]
fn a_short_header_exits_2() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("title.txt"), "Tic-Tac-Toe Game Data\n").unwrap();
    let out = referee(dir.path(), &["title.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "oxo referee: title.txt: line 2: the file ends after the title line: \
             expected the players line"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn non_utf8_input_exits_2() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("latin1.txt"),
        b"Title\nX: Ren\xe9 O: Zo\xeb\n\nX\t1\n",
    )
    .unwrap();
    let out = referee(dir.path(), &["latin1.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "oxo referee: latin1.txt: line 2: not UTF-8 text\n"
    );
}

#[test]
fn several_inputs_need_out_dir() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.txt"), SHORT_GAME).unwrap();
    fs::write(dir.path().join("b.txt"), SHORT_GAME).unwrap();
    for args in [&["a.txt", "b.txt"][..], &["a.txt", "b.txt", "-o", "r.txt"]] {
        let out = referee(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&out), "");
        assert!(stderr(&out).contains("use --out-dir"), "{}", stderr(&out));
    }
    assert_eq!(listing(dir.path()), ["a.txt", "b.txt"]);
}

#[test]
fn duplicate_names_are_refused_before_any_work() {
    let dir = TempDir::new().unwrap();
    for sub in ["x", "y"] {
        fs::create_dir(dir.path().join(sub)).unwrap();
        fs::write(dir.path().join(sub).join("game.txt"), SHORT_GAME).unwrap();
    }
    let out = referee(
        dir.path(),
        &["x/game.txt", "y/game.txt", "--out-dir", "out"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("oxo referee: x/game.txt and y/game.txt would both"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_report_may_not_overwrite_its_moves_file() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("game.txt"), SHORT_GAME).unwrap();
    for args in [
        &["game.txt", "-o", "game.txt"][..],
        &["game.txt", "--out-dir", "."],
    ] {
        let out = referee(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("would overwrite its own moves file"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("game.txt")).unwrap(),
        SHORT_GAME
    );
}

#[test]
fn a_report_goes_through_a_symlink_and_the_link_stays() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("moves.txt"), SHORT_GAME).unwrap();
    fs::create_dir(dir.path().join("reports")).unwrap();
    fs::write(dir.path().join("reports/real.txt"), "old").unwrap();
    std::os::unix::fs::symlink("reports/real.txt", dir.path().join("link.txt")).unwrap();
    let out = referee(dir.path(), &["moves.txt", "-o", "link.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let link = dir.path().join("link.txt");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let report = fs::read_to_string(dir.path().join("reports/real.txt")).unwrap();
    assert!(report.ends_with("Winner: X\n"), "{report}");
    // Nothing left beside either file.
    assert_eq!(listing(&dir.path().join("reports")), ["real.txt"]);
}

#[test]
fn a_report_into_a_fifo_is_written_to_it_not_over_it() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("moves.txt"), SHORT_GAME).unwrap();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || tx.send(fs::read_to_string(fifo).unwrap()));
    }
    let out = referee(dir.path(), &["moves.txt", "-o", "pipe"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap_or_else(|_| {
            // Release the reader, which still waits for a writer.
            drop(fs::OpenOptions::new().write(true).open(&fifo));
            panic!("nothing was written into the FIFO");
        });
    assert!(report.ends_with("Winner: X\n"), "{report}");
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}
