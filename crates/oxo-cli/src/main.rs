//! `oxo`: tic-tac-toe and m,n,k-games at the command line.
//!
//! A thin binary: clap parses the raw arguments ([`args`]), each command
//! validates them into its configuration and calls the libraries ([`cmd`]),
//! and [`failure`] turns an error into its message and documented exit code.

// A message goes through `note!` (stderr.rs), which drops a line it cannot
// write; `eprintln!` would panic on a full disk or a closed stderr.
#![deny(clippy::print_stderr, clippy::print_stdout)]

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

#[macro_use]
mod stderr;

mod args;
mod cmd;
mod failure;

/// mimalloc instead of the system allocator (what it gained under load: docs/history.md,
/// "The server under load"; the load figures: docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage(&err),
    };
    match cmd::run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(err) if failure::is_broken_pipe(&err) => ExitCode::from(oxo_cli::exit::SUCCESS),
        Err(err) => {
            note!("oxo: {}", failure::message(&err));
            ExitCode::from(failure::exit_code_for(&err))
        }
    }
}

/// `--help`, `--version` (exit 0) or a usage mistake (exit 2), printed as
/// clap prints them; help that cannot be written is a failed write (exit 1),
/// as for every other output.
fn usage(err: &clap::Error) -> ExitCode {
    let asked = matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    match err.print() {
        // The reader went away (`oxo --help | head`): not a failure.
        Err(e) if asked && e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(oxo_cli::exit::SUCCESS)
        }
        Err(e) if asked => {
            note!("oxo: {}", cmd::stdout_error(&e));
            ExitCode::from(oxo_cli::exit::IO_ERROR)
        }
        _ => ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(oxo_cli::exit::BAD_INPUT)),
    }
}
