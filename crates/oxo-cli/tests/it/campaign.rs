//! `oxo solve --value --checkpoint` as a process: a long proof run,
//! resumed, and its checkpoint refused when damaged or another proof's.

use std::process::Command;

use super::verify::{oxo, text};

/// `oxo solve BOARD --value` as a long proof on 2 threads, checkpointed
/// to `checkpoint`, with `extra` flags.
fn long_proof(board: &[&str], checkpoint: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["solve", "--value", "--threads", "2", "--memory", "64M"];
    args.extend_from_slice(board);
    args.extend_from_slice(&["--checkpoint", checkpoint]);
    args.extend_from_slice(extra);
    oxo(&args)
}

#[test]
fn a_checkpointed_proof_runs_resumes_and_refuses_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("4x4.checkpoint");
    let path = file.to_str().unwrap();
    let run = |extra: &[&str]| long_proof(&["--size", "4", "--k", "4"], path, extra);

    let first = run(&[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert!(text(&first.stdout).contains("X to move: draw"));
    assert!(
        text(&first.stderr).contains("root moves settled 3/3"),
        "{}",
        text(&first.stderr)
    );

    // The file is not overwritten without --resume.
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("exists: add --resume"),
        "{}",
        text(&again.stderr)
    );

    let resumed = run(&["--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert!(text(&resumed.stdout).contains("X to move: draw"));

    // A run holds a lock on FILE.lock while it works: a second run while
    // it is held is refused, naming it. The file left by a run that ended
    // (or was killed) is no obstacle: only a live holder counts.
    let lock = dir.path().join("4x4.checkpoint.lock");
    assert!(lock.exists(), "the lock file stays");
    let held = std::fs::File::options()
        .read(true)
        .write(true)
        .open(&lock)
        .unwrap();
    held.try_lock().unwrap();
    let locked = run(&["--resume"]);
    assert_eq!(locked.status.code(), Some(2), "{}", text(&locked.stderr));
    assert!(
        text(&locked.stderr).contains(&format!(
            "another run is using this checkpoint (it holds {})",
            lock.display()
        )),
        "{}",
        text(&locked.stderr)
    );
    drop(held);
    let free = run(&["--resume"]);
    assert_eq!(free.status.code(), Some(0), "{}", text(&free.stderr));

    // Another board's proof.
    let other = oxo(&[
        "solve",
        "--size",
        "4",
        "--k",
        "3",
        "--value",
        "--checkpoint",
        path,
        "--resume",
    ]);
    assert_eq!(other.status.code(), Some(1));
    assert!(
        text(&other.stderr)
            .contains("the checkpoint is for 4x4 k=4 position ..../..../..../...., not 4x4 k=3"),
        "{}",
        text(&other.stderr)
    );

    // One byte of the plan changed.
    let saved = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, saved.replacen("\"split\":2", "\"split\":1", 1)).unwrap();
    let damaged = run(&["--resume"]);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(
        text(&damaged.stderr).contains("damaged checkpoint: its digest does not match"),
        "{}",
        text(&damaged.stderr)
    );

    std::fs::write(&file, "notes\n").unwrap();
    let foreign = run(&["--resume"]);
    assert_eq!(foreign.status.code(), Some(1));
    assert!(text(&foreign.stderr).contains("not an oxo campaign checkpoint"));
}

/// `--memory` beyond the machine's memory is refused before anything is
/// made, naming both sizes.
#[cfg(target_os = "linux")]
#[test]
fn a_memory_beyond_the_machines_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c");
    for memory in ["1000000T", "18446744073709551615"] {
        let out = oxo(&[
            "solve",
            "--value",
            "--size",
            "4",
            "--memory",
            memory,
            "--checkpoint",
            file.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        let says = text(&out.stderr);
        assert!(
            says.starts_with(&format!("oxo: --memory {memory}: "))
                && says.contains(" MiB is more than this machine's "),
            "{says}"
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}

#[test]
fn sigterm_stops_a_long_proof_with_its_checkpoint_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("8x8.checkpoint");
    // (8,8,5) takes hours: it is still running when stopped.
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args([
            "solve",
            "--size",
            "8",
            "--k",
            "5",
            "--value",
            "--threads",
            "1",
        ])
        .args(["--memory", "64M", "--checkpoint", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The checkpoint is written once the signal handler is in place.
    while !file.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("oxo ended first: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("continue with --resume"),
        "{}",
        text(&out.stderr)
    );
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.starts_with("oxo-campaign 1\n"));
}

#[test]
fn a_split_proof_writes_a_certificate_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("4x5.checkpoint");
    let proof = dir.path().join("4x5.proof");
    let solved = long_proof(
        &["--size", "4x5", "--k", "4"],
        checkpoint.to_str().unwrap(),
        &["--proof", proof.to_str().unwrap()],
    );
    assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
    assert!(
        text(&solved.stderr).contains("oxo: proof of a draw ("),
        "{}",
        text(&solved.stderr)
    );
    let checked = oxo(&["verify", proof.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout)
            .starts_with("valid: 4x5 k=4 position ...../...../...../.....: a draw ("),
        "{}",
        text(&checked.stdout)
    );
}

/// Beyond the 64-bit solver's boards, the jobs' certificates are the
/// prover's Breaker proofs.
#[test]
fn a_split_proof_beyond_64_cells_writes_a_certificate_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("11x6.checkpoint");
    let proof = dir.path().join("11x6.proof");
    let solved = long_proof(
        &["--size", "11x6", "--k", "6"],
        checkpoint.to_str().unwrap(),
        &["--proof", proof.to_str().unwrap()],
    );
    assert_eq!(solved.status.code(), Some(0), "{}", text(&solved.stderr));
    let checked = oxo(&["verify", proof.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout).starts_with("valid: 11x6 k=6 position ")
            && text(&checked.stdout).contains(": a draw ("),
        "{}",
        text(&checked.stdout)
    );
}

/// The files in `dir`, by name, sorted.
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// A certificate that cannot be written whole (here past the file size
/// limit `ulimit -f` sets, where writes fail with "File too large") leaves
/// the file already at `--proof` as it was, and a file of the scratch
/// file's old name, and no temporary file behind; the cause is said once.
#[cfg(unix)]
#[test]
fn a_failed_certificate_write_keeps_the_files_that_were_there() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("5x5.checkpoint");
    let proof = dir.path().join("5x5.proof");
    let scratch = dir.path().join("5x5.proof.nodes.tmp");
    std::fs::write(&proof, "an older certificate\n").unwrap();
    std::fs::write(&scratch, "someone's notes\n").unwrap();
    // The checkpoint is a few KiB, the certificate some 400 KiB; SIGXFSZ
    // is ignored so that the write fails instead of killing oxo.
    let out = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 128 && exec \"$@\"", "sh"])
        .arg(env!("CARGO_BIN_EXE_oxo"))
        .args(["solve", "--size", "5", "--k", "4", "--value"])
        .args(["--threads", "2", "--memory", "64M", "--checkpoint"])
        .arg(&checkpoint)
        .arg("--proof")
        .arg(&proof)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let cause = "File too large";
    assert_eq!(stderr.matches(cause).count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("oxo: cannot write {}: {cause}", proof.display())),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&proof).unwrap(),
        "an older certificate\n"
    );
    assert_eq!(
        std::fs::read_to_string(&scratch).unwrap(),
        "someone's notes\n"
    );
    assert_eq!(
        names(dir.path()),
        [
            "5x5.checkpoint",
            "5x5.checkpoint.lock",
            "5x5.proof",
            "5x5.proof.nodes.tmp"
        ]
    );
}

/// `--proof` naming the checkpoint is refused before any work (exit 2),
/// whether the checkpoint exists yet or not, and however the path is
/// spelt; the checkpoint is left as it was.
#[test]
fn the_certificate_and_the_checkpoint_must_be_different_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("4x4.checkpoint");
    let path = file.to_str().unwrap();
    let board = ["--size", "4", "--k", "4"];
    let refused = |out: &std::process::Output| {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("--proof names the checkpoint or its lock file"),
            "{}",
            text(&out.stderr)
        );
    };

    refused(&long_proof(&board, path, &["--proof", path]));
    assert!(!file.exists());

    let first = long_proof(&board, path, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let saved = std::fs::read(&file).unwrap();
    let other_spelling = dir.path().join(".").join("4x4.checkpoint");
    let lock = format!("{path}.lock");
    for proof in [path, other_spelling.to_str().unwrap(), &lock] {
        refused(&long_proof(&board, path, &["--resume", "--proof", proof]));
        assert_eq!(std::fs::read(&file).unwrap(), saved);
    }
    assert_eq!(names(dir.path()), ["4x4.checkpoint", "4x4.checkpoint.lock"]);
}
