//! `oxo arena`'s players refused before any game: engine paths that
//! cannot be run, and players named twice.

use std::path::Path;
use std::process::{Command, Output};

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// `oxo arena ARGS` on a 9x9 five-in-a-row board, in `dir`.
fn arena(dir: &Path, args: &[&str]) -> Output {
    crate::arena_records::arena(
        dir,
        &[args, &["--size", "9", "--k", "5", "--games", "2"]].concat(),
    )
}

/// A file `name` in `dir` with `text` and permissions `mode`.
fn file(dir: &Path, name: &str, text: &str, mode: u32) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, mode);
    std::fs::set_permissions(&path, permissions).unwrap();
}

/// A refusal: exit 2, no results, and `said` in the message.
fn refused(out: &Output, said: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains(said), "{stderr}");
}

/// A file without execute permission would lose every game as a
/// forfeit; a directory is no missing file.
#[test]
fn an_engine_that_cannot_be_run_is_refused_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "noexec.txt", "#!/bin/sh\n", 0o644);
    std::fs::create_dir(dir.path().join("engines")).unwrap();
    refused(
        &arena(dir.path(), &["--x", "brain:./noexec.txt", "--o", "rules"]),
        "brain:./noexec.txt: cannot start ./noexec.txt: the file is not executable",
    );
    refused(
        &arena(dir.path(), &["--players", "rules,brain:engines"]),
        "brain:engines: cannot start engines: it is a directory",
    );
    refused(
        &arena(dir.path(), &["--x", "rules", "--o", "brain:missing"]),
        "brain:missing: cannot start missing: no such file",
    );
}

/// A round robin with a player twice would have two rows and pairings of
/// one name; an engine is the same by its file, however it is spelled.
#[test]
fn a_player_named_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "pbrain-x", "#!/bin/sh\n", 0o755);
    refused(
        &arena(dir.path(), &["--players", "rules,rules,random"]),
        "--players names rules twice",
    );
    let canonical = std::fs::canonicalize(dir.path().join("pbrain-x")).unwrap();
    refused(
        &arena(
            dir.path(),
            &["--players", "brain:./pbrain-x,random,brain:pbrain-x"],
        ),
        &format!(
            "--players names one engine twice: brain:./pbrain-x and brain:pbrain-x are both {}",
            canonical.display()
        ),
    );
    // Through a link too.
    std::os::unix::fs::symlink("pbrain-x", dir.path().join("pbrain-y")).unwrap();
    refused(
        &arena(dir.path(), &["--players", "brain:pbrain-x,brain:pbrain-y"]),
        "are both",
    );
    // A match may be a player against itself: its sides tell them apart.
    let out = Command::new(OXO)
        .args(["arena", "--x", "rules", "--o", "rules", "--games", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
