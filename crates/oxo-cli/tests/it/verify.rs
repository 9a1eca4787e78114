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
    let file = dir.path().join("3x3.proof");
    let path = file.to_str().unwrap();
    let solved = oxo(&["solve", "--size", "3", "--value", "--proof", path]);
    assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
    assert!(text(&solved.stdout).contains("X to move: draw"));
    let proof = std::fs::read_to_string(&file).unwrap();
    assert!(proof.starts_with("oxo-proof 2\n"), "{proof}");
    assert!(proof.contains("\nr "), "a rest clause: {proof}");
    assert!(
        text(&solved.stderr).contains("proof of a draw"),
        "{}",
        text(&solved.stderr)
    );

    let checked = oxo(&["verify", path]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout).starts_with("valid: 3x3 k=3 position .../.../...: a draw ("),
        "{}",
        text(&checked.stdout)
    );

    // X's first move moved onto no cell at all.
    let damaged = proof.replacen("\nm 4 ", "\nm 99 ", 1);
    assert_ne!(damaged, proof);
    std::fs::write(&file, damaged).unwrap();
    let refused = oxo(&["verify", path]);
    assert_eq!(refused.status.code(), Some(1));
    let why = text(&refused.stderr);
    assert!(
        why.contains("refused: node 0 (position .../.../...): move 99 is off the board"),
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

/// A version 1 file (every reply listed) is still read; a rest clause
/// that answers a reply inside its zone is refused where it stands.
#[test]
fn verify_reads_version_1_and_refuses_an_unsound_rest_clause() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("old.proof");
    let path = file.to_str().unwrap();
    let v1 = "oxo-proof 1\nrules 3x3 k=3\nposition XX./OO./...\nclaim win X\n\
              tree X win 0\nnodes 2\nm 2 1\nw\nend\n";
    std::fs::write(&file, v1).unwrap();
    let checked = oxo(&["verify", path]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert_eq!(
        text(&checked.stdout),
        "valid: 3x3 k=3 position XX./OO./...: a win for X (2 positions)\n"
    );

    // O to move against X's threats at 1 and 3: the answer to its 1 (X
    // takes 3) does not hold against its 3, which must be listed.
    let v2 = "oxo-proof 2\nrules 3x3 k=3\nposition X.X/.O./X.O\nclaim win X\n\
              tree X win 0\nnodes 3\nr 1:1\nm 3 2\nw\nend\n";
    std::fs::write(&file, v2).unwrap();
    let refused = oxo(&["verify", path]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        format!(
            "oxo: {path}: refused: node 0 (position X.X/.O./X.O): move 3 of O is left to the \
             rest clause, but it lies in the zone of every listed move's node, so no answer is \
             sure to hold\n"
        )
    );
    std::fs::write(&file, v2.replace("oxo-proof 2", "oxo-proof 1")).unwrap();
    let old = oxo(&["verify", path]);
    assert_eq!(old.status.code(), Some(1));
    assert!(
        text(&old.stderr)
            .contains("line 7: rest clauses and Erdős–Selfridge leaves need version 2"),
        "{}",
        text(&old.stderr)
    );
}

/// A draw the prover proves as two Breaker proofs is certified from them.
#[test]
fn solve_certifies_a_draw_from_the_prover() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("6x6k5.proof");
    let path = file.to_str().unwrap();
    let solved = oxo(&[
        "solve", "--size", "6", "--k", "5", "--value", "--proof", path,
    ]);
    assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
    let checked = oxo(&["verify", path]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout).starts_with("valid: 6x6 k=5 position ")
            && text(&checked.stdout).contains(": a draw ("),
        "{}",
        text(&checked.stdout)
    );
}

/// Boards beyond the 64-bit solver's, up to the prover's 128 cells, are
/// certified from its Breaker proofs.
#[test]
fn solve_certifies_draws_beyond_64_cells() {
    let dir = tempfile::tempdir().unwrap();
    for (size, k) in [("11x6", "6"), ("10", "7")] {
        let file = dir.path().join(format!("{size}k{k}.proof"));
        let path = file.to_str().unwrap();
        let solved = oxo(&[
            "solve", "--size", size, "--k", k, "--value", "--proof", path,
        ]);
        assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
        let checked = oxo(&["verify", path]);
        assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
        assert!(
            text(&checked.stdout).contains(": a draw ("),
            "{}",
            text(&checked.stdout)
        );
    }
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

/// A file that is not a certificate is refused from its first line, not
/// read to its end (`oxo verify /dev/zero` would never end); a line longer
/// than any certificate's is refused where it starts.
#[test]
fn verify_refuses_junk_by_its_first_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("junk.proof");
    let path = file.to_str().unwrap();

    std::fs::write(&file, vec![0u8; 4 << 20]).unwrap();
    let zeros = oxo(&["verify", path]);
    assert_eq!(zeros.status.code(), Some(1));
    assert_eq!(
        text(&zeros.stderr),
        format!(
            "oxo: {path}: refused: not an oxo proof certificate (it must begin with the line \
             `oxo-proof 3`, `oxo-proof 2` or `oxo-proof 1`)\n"
        )
    );

    let mut long = b"oxo-proof 3\n".to_vec();
    long.resize(4 << 20, b'x');
    std::fs::write(&file, long).unwrap();
    let refused = oxo(&["verify", path]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        format!("oxo: {path}: refused: line 2: longer than a certificate's lines (65536 bytes)\n")
    );
}
