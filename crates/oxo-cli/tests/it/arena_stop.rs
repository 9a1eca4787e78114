//! An arena stopped by Ctrl-C ends its engines, with what they started:
//! their process groups do not get the terminal's signal.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use oxo_test_support::PATIENCE;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// Whether process `pid` runs (gone, or dead and waiting for init to
/// collect it, is not running).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.rsplit(") ").next().unwrap_or("").starts_with('Z'))
}

/// `path`'s text once it holds a whole line, within [`PATIENCE`].
fn wait_for_line(path: &Path) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_ends_the_engines_and_what_they_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("sleep.pid");
    // An engine that starts a long command, says OK to START and then
    // never moves: the arena waits on it for its minute.
    let engine = dir.path().join("pbrain-stuck");
    std::fs::write(
        &engine,
        format!(
            "#!/bin/sh\nsleep 1000 &\necho $! > '{}'\n\
             while IFS= read -r line; do\n  case \"$line\" in START*) echo OK ;; esac\ndone\n",
            pid_file.display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&engine).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&engine, permissions).unwrap();
    let arena = Command::new(OXO)
        .args(["arena", "--x", &format!("brain:{}", engine.display())])
        .args(["--o", "random", "--size", "9", "--k", "5", "--games", "1"])
        .args(["--move-time", "60000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sleep = wait_for_line(&pid_file);
    assert!(running(&sleep));
    let interrupted = Command::new("kill")
        .args(["-INT", &arena.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = arena.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("oxo: stopped by a signal; ended 1 engine"),
        "{stderr}"
    );
    // A protocol's bound, not a speed test.
    let deadline = Instant::now() + PATIENCE;
    while running(&sleep) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !running(&sleep),
        "the engine's sleep {sleep} outlived the arena"
    );
}
