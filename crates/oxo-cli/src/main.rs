//! `oxo`: tic-tac-toe and m,n,k-games at the command line.
//!
//! A thin binary: clap parses the raw arguments ([`args`]), each command
//! validates them into its configuration and calls the libraries ([`cmd`]),
//! and [`failure`] turns an error into its message and documented exit code.

use std::process::ExitCode;

use clap::Parser;

mod args;
mod cmd;
mod failure;

/// mimalloc instead of the system allocator (see the README's load figures).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    match cmd::run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(err) if failure::is_broken_pipe(&err) => ExitCode::from(oxo_cli::exit::SUCCESS),
        Err(err) => {
            eprintln!("oxo: {}", failure::message(&err));
            ExitCode::from(failure::exit_code_for(&err))
        }
    }
}
