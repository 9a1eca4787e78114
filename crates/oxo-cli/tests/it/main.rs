//! The `oxo` binary's command tests, in one binary (one link instead of
//! one per file): `arena_clock` (engines on a match clock),
//! `arena_players` (players refused before any game),
//! `arena_records` (the games kept by `--records` and `--psq`),
//! `arena_stop` (Ctrl-C during an arena), `brain` (the Gomocup protocol
//! over pipes), `cli` (every command against golden files), `referee` (the
//! moves-file referee), `terminal` (`oxo play` under a pseudo-terminal),
//! `train_stop` (Ctrl-C during `oxo train`).
//! The tests that run `oxo serve` (serve.rs, nodes.rs, soak.rs) keep
//! binaries of their own, so that they never share the machine with each
//! other.

mod arena_clock;
mod arena_players;
mod arena_records;
mod arena_stop;
mod brain;
mod budget;
mod campaign;
mod cli;
mod referee;
mod terminal;
mod train_stop;
mod verify;

/// `oxo train` at its smallest, writing a model to `out` in a second or
/// two: 50 episodes, one checkpoint of one game a seat, nothing graded;
/// `board` adds flags (`--size`, `--k`).
fn small_model(out: &std::path::Path, board: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["train", "--episodes", "50", "--seed", "1", "--out"])
        .arg(out)
        .args(board)
        .args([
            "--checkpoints",
            "1",
            "--eval-games",
            "1",
            "--grade-positions",
            "0",
        ])
        .output()
        .expect("oxo runs")
}
