//! An arena stopped by Ctrl-C or SIGTERM ends its engines, with what they
//! started (their process groups do not get the terminal's signal), and
//! reports the games finished before it.

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
        stderr.contains("oxo: stopped by SIGINT after 0 of 1 game; ended 1 engine\n"),
        "{stderr}"
    );
    // The game cut short is not counted, not as the engine's loss either.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("0 games of 9x9 k=5 "), "{stdout}");
    assert!(!stdout.contains("lost for a move not given"), "{stdout}");
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

/// A `pbrain-*` script in `dir` that is oxo's own brain (random moves)
/// for its first `plays` starts, and after them says OK to `START`, writes
/// the process id of a command it started to `ready`, and never moves.
fn engine(dir: &Path, plays: u32) -> (String, std::path::PathBuf) {
    let (count, ready) = (dir.join("starts"), dir.join("ready"));
    let path = dir.join("pbrain-tiring");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             n=$(cat '{count}' 2>/dev/null || echo 0)\n\
             echo $((n + 1)) > '{count}'\n\
             if [ \"$n\" -lt {plays} ]; then exec '{OXO}' brain --strategy random --seed 1; fi\n\
             sleep 1000 &\n\
             echo $! > '{ready}'\n\
             while IFS= read -r line; do\n  case \"$line\" in START*) echo OK ;; esac\ndone\n",
            count = count.display(),
            ready = ready.display(),
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    (format!("brain:{}", path.display()), ready)
}

/// The games of a `--records` file, by their index.
fn recorded_games(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["game"].as_u64().unwrap()
        })
        .collect()
}

/// `oxo arena ARGS` (one thread, so that the games come in order), sent
/// `signal` once the engine from [`engine`] is stuck.
fn stopped_arena(args: &[&str], ready: &Path, signal: &str) -> std::process::Output {
    let arena = Command::new(OXO)
        .arg("arena")
        .args(args)
        .args(["--size", "9", "--k", "5", "--threads", "1", "--seed", "1"])
        .args(["--move-time", "60000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_line(ready);
    let sent = Command::new("kill")
        .args([signal, &arena.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    arena.wait_with_output().unwrap()
}

/// The engine plays games 0 and 1 of four, and is stuck in game 2 when
/// SIGTERM comes: the two games finished are reported, marked partial.
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_match_reports_the_games_finished() {
    for json in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let (engine, ready) = engine(dir.path(), 2);
        let records = dir.path().join("games.jsonl");
        let records_arg = records.display().to_string();
        let mut args = vec!["--x", &engine, "--o", "rules", "--games", "4"];
        args.extend(["--records", &records_arg]);
        if json {
            args.push("--json");
        }
        let out = stopped_arena(&args, &ready, "-TERM");
        assert_eq!(out.status.code(), Some(143), "{out:?}");
        // The records are those of the games reported.
        assert_eq!(recorded_games(&records), [0, 1]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("oxo: stopped by SIGTERM after 2 of 4 games; ended 1 engine\n"),
            "{stderr}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        if json {
            let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(report["games"], 2, "{report}");
            assert_eq!(report["games_planned"], 4, "{report}");
            assert_eq!(report["stopped"], "SIGTERM", "{report}");
            assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
            let decided = ["x_wins", "o_wins", "draws"].map(|k| report[k].as_u64().unwrap());
            assert_eq!(decided.iter().sum::<u64>(), 2, "{report}");
        } else {
            assert!(
                stdout.starts_with(
                    "2 games of 9x9 k=5 (seed 1), X and O taking turns moving first\n  \
                     partial results: stopped by SIGTERM after 2 of 4 games"
                ),
                "{stdout}"
            );
            assert!(!stdout.contains("lost for a move not given"), "{stdout}");
        }
    }
}

/// Rules and random play their two games; the engine is stuck in its
/// first, against rules, when Ctrl-C comes: the round robin's table, its
/// JSON and its plot have those two games, marked partial.
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_round_robin_reports_the_games_finished() {
    for json in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let (engine, ready) = engine(dir.path(), 0);
        let plot = dir.path().join("rr.svg");
        let players = format!("rules,random,{engine}");
        let records = dir.path().join("rr.jsonl");
        let records_arg = records.display().to_string();
        let mut args = vec!["--players", &players, "--games", "2"];
        args.extend(["--records", &records_arg]);
        let plot_arg = plot.display().to_string();
        if json {
            args.push("--json");
        } else {
            args.extend(["--plot", &plot_arg]);
        }
        let out = stopped_arena(&args, &ready, "-INT");
        assert_eq!(out.status.code(), Some(130), "{out:?}");
        assert_eq!(recorded_games(&records), [0, 1]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("oxo: stopped by SIGINT after 2 of 6 games; ended 1 engine\n"),
            "{stderr}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        if json {
            let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(report["games"], 2, "{report}");
            assert_eq!(report["games_planned"], 6, "{report}");
            assert_eq!(report["stopped"], "SIGINT", "{report}");
            assert_eq!(report["forfeits"], serde_json::json!([]), "{report}");
            let games: Vec<u64> = report["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    ["a_wins", "b_wins", "draws"]
                        .map(|k| p[k].as_u64().unwrap())
                        .iter()
                        .sum()
                })
                .collect();
            assert_eq!(games, [2, 0, 0], "{report}");
        } else {
            let lines: Vec<&str> = stdout.lines().collect();
            assert!(
                lines[0].starts_with("round robin on 9x9 k=5 (seed 1): 3 players"),
                "{stdout}"
            );
            assert_eq!(
                lines[1],
                "  partial results: stopped by SIGINT after 2 of 6 games; the games under way \
                 then are not counted",
                "{stdout}"
            );
            assert!(stdout.contains("\n  2 games in "), "{stdout}");
            let svg = std::fs::read_to_string(&plot).unwrap();
            assert!(
                svg.contains("partial: stopped by SIGINT after 2 of 6 games"),
                "{svg}"
            );
        }
    }
}
