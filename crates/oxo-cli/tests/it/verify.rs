//! `oxo solve --proof` and `oxo verify` as processes: a certificate
//! written, checked, and refused once damaged.

use std::process::{Command, Output};

/// `oxo ARGS`, run to its end.
pub(super) fn oxo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(args)
        .output()
        .expect("oxo runs")
}

/// Output as text.
pub(super) fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

#[test]
fn verify_accepts_what_solve_proves_and_refuses_damage() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("4x4.proof");
    let path = file.to_str().unwrap();
    let solved = oxo(&[
        "solve", "--size", "4", "--k", "4", "--value", "--proof", path,
    ]);
    assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
    assert!(text(&solved.stdout).contains("X to move: draw"));
    assert!(
        text(&solved.stderr).contains("proof of a draw"),
        "{}",
        text(&solved.stderr)
    );

    let checked = oxo(&["verify", path]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout).starts_with("valid: 4x4 k=4 position ..../..../..../....: a draw ("),
        "{}",
        text(&checked.stdout)
    );

    // X's first move moved onto no cell at all.
    let proof = std::fs::read_to_string(&file).unwrap();
    let damaged = proof.replacen("\nm 0 ", "\nm 99 ", 1);
    assert_ne!(damaged, proof);
    std::fs::write(&file, damaged).unwrap();
    let refused = oxo(&["verify", path]);
    assert_eq!(refused.status.code(), Some(1));
    let why = text(&refused.stderr);
    assert!(
        why.contains("refused: node 0 (position ..../..../..../....): move 99 is off the board"),
        "{why}"
    );

    std::fs::write(&file, &proof[..proof.len() - 10]).unwrap();
    let cut = oxo(&["verify", path]);
    assert_eq!(cut.status.code(), Some(1));
    assert!(
        text(&cut.stderr).contains("refused: line "),
        "{}",
        text(&cut.stderr)
    );

    std::fs::write(&file, b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    let foreign = oxo(&["verify", path]);
    assert_eq!(foreign.status.code(), Some(1));
    assert!(text(&foreign.stderr).contains("not an oxo proof certificate"));
}

#[test]
fn verify_usage_and_missing_files() {
    assert_eq!(oxo(&["verify"]).status.code(), Some(2));
    let missing = oxo(&["verify", "/nonexistent/proof"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("cannot read /nonexistent/proof"));
    let batch = oxo(&["solve", "-", "--proof", "/tmp/never"]);
    assert_eq!(batch.status.code(), Some(2));
    assert!(text(&batch.stderr).contains("--proof certifies one position"));
}
