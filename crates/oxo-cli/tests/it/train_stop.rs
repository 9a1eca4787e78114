//! `oxo train` stopped by Ctrl-C saves the model it trained so far.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use oxo_test_support::PATIENCE;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_saves_the_model_trained_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let (model, curve) = (dir.path().join("m.oxo"), dir.path().join("c.csv"));
    // Ten hours of training: only the stop ends it within the test.
    let mut train = Command::new(OXO)
        .args([
            "train",
            "--size",
            "3",
            "--minutes",
            "600",
            "--checkpoints",
            "50",
        ])
        .arg("--out")
        .arg(&model)
        .arg("--curve")
        .arg(&curve)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C is listened for before the speed is measured, and the
    // episode count is said after: training is under way.
    let stderr = train.stderr.take().unwrap();
    let (lines, heard) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            if lines.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let sized = heard
        .recv_timeout(PATIENCE)
        .expect("the episode count said");
    assert!(sized.contains(" fit in 600.0 min here"), "{sized}");
    let interrupted = Command::new("kill")
        .args(["-INT", &train.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    // A stop that is not heard would train for ten hours: the child is
    // ended at the bound and the test fails (a protocol's bound, not a
    // speed test).
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = train.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = train.kill();
            let _ = train.wait();
            panic!("oxo train did not stop on SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    train
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let said: Vec<String> = heard.iter().collect();
    assert_eq!(status.code(), Some(130), "{stdout}{said:?}");
    assert_eq!(
        said.last().map(String::as_str),
        Some(
            "oxo train: stopped by SIGINT: the model trained so far is saved; its exploration \
             and step size were planned for the whole run, so no shorter run makes it again"
        ),
        "{said:?}"
    );
    let first = stdout.lines().next().unwrap_or("");
    assert!(first.starts_with("3x3 k=3: stopped after "), "{stdout}");
    assert!(
        first.contains(" self-play episodes (seed 1); model saved to "),
        "{stdout}"
    );
    // The model is whole: oxo plays it.
    assert!(std::fs::read(&model).unwrap().starts_with(b"OXOMODEL"));
    let played = Command::new(OXO)
        .args([
            "arena", "--x", "learned", "--o", "random", "--games", "2", "--seed", "1",
        ])
        .arg("--model")
        .arg(&model)
        .output()
        .unwrap();
    assert!(played.status.success(), "{played:?}");
    // The curve has a row for each checkpoint the table shows.
    let rows = std::fs::read_to_string(&curve).unwrap().lines().count();
    let shown = stdout.lines().skip(3).count();
    assert_eq!(rows, shown + 1, "{stdout}");
}
