//! One module per command: each builds a validated configuration from its
//! raw arguments, then runs it.

use std::io::{self, IsTerminal};
use std::path::Path;

use anyhow::Context;
use oxo_core::Rules;

use crate::args::Command;
use crate::failure::BadInput;

mod arena;
mod play;
mod referee;
mod serve;
mod solve;
mod stream;

/// Run `command`; the exit code on success.
pub(crate) fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Serve(args) => serve::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Stream(args) => stream::run(&args),
        Command::Referee(args) => Ok(referee::run(args)),
        Command::Solve(args) => solve::run(&args),
        Command::Arena(args) => arena::run(&args),
    }
}

/// The seed given, or one from the clock (the only place oxo reads it).
fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    })
}

/// Board rules from `--size`/`--k`, a bad combination being bad input.
fn rules(board: &crate::args::BoardArgs) -> anyhow::Result<Rules> {
    Ok(board.rules()?)
}

/// A strong-solution table saved by `oxo solve --all --save`, for `rules`.
fn load_table(path: &Path, rules: Rules) -> anyhow::Result<oxo_ai::StrongSolution> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let table = oxo_ai::StrongSolution::load(io::BufReader::new(file))
        .with_context(|| format!("cannot read {}", path.display()))?;
    if table.rules() != rules {
        return Err(BadInput(format!(
            "{} solves {} games, not {rules}",
            path.display(),
            table.rules()
        ))
        .into());
    }
    Ok(table)
}

/// A one-line progress display on stderr, drawn only when stderr is a
/// terminal (so logs and pipes stay clean).
#[derive(Debug)]
struct StatusLine {
    shown: bool,
}

impl StatusLine {
    fn new() -> StatusLine {
        StatusLine {
            shown: io::stderr().is_terminal(),
        }
    }

    /// Replace the line with `text`.
    fn show(&self, text: std::fmt::Arguments<'_>) {
        if self.shown {
            eprint!("\r\x1b[K{text}");
        }
    }

    /// Erase the line.
    fn clear(&self) {
        if self.shown {
            eprint!("\r\x1b[K");
        }
    }
}
