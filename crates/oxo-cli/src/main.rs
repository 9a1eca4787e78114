//! `oxo`: tic-tac-toe and m,n,k-games at the command line.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use oxo_cli::{exit, play, referee, stream};
use oxo_core::{BoardSize, Player, Rules};

const EXIT_CODES: &str = "\
Exit codes:
  0  success (also when the reader closes the output pipe early)
  1  a file could not be read or written
  2  bad usage or malformed input";

#[derive(Debug, Parser)]
#[command(name = "oxo", version, about = "Tic-tac-toe and m,n,k-games: play, referee, stream", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play at the terminal: two people take turns typing `ROW COL`.
    Play(PlayArgs),
    /// Replay a "Design Tic-Tac-Toe" command stream: a count, then `move R C` lines.
    Stream(StreamArgs),
    /// Referee CS 1044 moves files (TTTmoves.txt) and write TTTgame.txt-style reports.
    Referee(RefereeArgs),
}

/// Board size and win length, shared by the commands that play on any board.
#[derive(Debug, Args)]
struct BoardArgs {
    /// Board size: N for N×N, or ROWSxCOLS (at most 1024 a side).
    #[arg(long, value_name = "N|RxC", default_value = "3")]
    size: BoardSize,
    /// Marks in a row needed to win [default: the shorter side].
    #[arg(long, value_name = "K")]
    k: Option<u32>,
}

impl BoardArgs {
    fn rules(&self) -> anyhow::Result<Rules> {
        Ok(Rules::with_size(self.size, self.k)?)
    }
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
struct PlayArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Speak the plain line protocol (always the case when stdin is not a terminal).
    #[arg(long)]
    plain: bool,
    /// Rounds to play; the starting player alternates and the score is shown after each.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    rounds: u64,
    /// Who starts the first round.
    #[arg(long, value_enum, default_value_t = Side::X)]
    first: Side,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Side {
    X,
    O,
}

impl From<Side> for Player {
    fn from(side: Side) -> Player {
        match side {
            Side::X => Player::X,
            Side::O => Player::O,
        }
    }
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
struct StreamArgs {
    /// Instructions file [default: standard input].
    file: Option<PathBuf>,
    #[command(flatten)]
    board: BoardArgs,
}

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
struct RefereeArgs {
    /// Moves files: a title line, the players line, a blank line, then `P SQUARE` per line.
    #[arg(required = true, value_name = "MOVES")]
    inputs: Vec<PathBuf>,
    /// Write the report to this file instead of standard output (one input only).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "REPORT",
        conflicts_with = "out_dir"
    )]
    output: Option<PathBuf>,
    /// Write one report per input into this directory, named like the input.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// The name on the report's first line.
    #[arg(long, value_name = "NAME", default_value = referee::DEFAULT_PROGRAMMER)]
    programmer: String,
    /// The report's second line.
    #[arg(long, value_name = "LINE", default_value = referee::DEFAULT_PROJECT)]
    project: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::from(exit::SUCCESS);
            }
            eprintln!("oxo: {err:#}");
            ExitCode::from(exit_code_for(&err))
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Play(args) => run_play(&args),
        Command::Stream(args) => run_stream(&args),
        Command::Referee(args) => Ok(run_referee(args)),
    }
}

fn run_play(args: &PlayArgs) -> anyhow::Result<u8> {
    let config = play::Config {
        rules: args.board.rules()?,
        rounds: args.rounds,
        first: args.first.into(),
    };
    // A full-screen UI for terminals comes later; until then every session
    // speaks the plain protocol, which is what --plain and pipes promise.
    let _interactive = !args.plain && io::stdin().is_terminal();
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    let mut seats: [Box<dyn play::Seat>; 2] = [Box::new(play::Human), Box::new(play::Human)];
    if let play::End::InputEnded(_) = play::run(&config, &mut seats, stdin, stdout)? {
        eprintln!("oxo: end of input, game abandoned");
    }
    Ok(exit::SUCCESS)
}

fn run_stream(args: &StreamArgs) -> anyhow::Result<u8> {
    let rules = args.board.rules()?;
    let stdout = io::stdout().lock();
    let result = match &args.file {
        Some(path) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            stream::run(rules, io::BufReader::new(file), stdout)
        }
        None => stream::run(rules, io::stdin().lock(), stdout),
    };
    match result {
        Ok(()) => Ok(exit::SUCCESS),
        Err(stream::StreamError::Io(err)) if err.kind() == io::ErrorKind::BrokenPipe => {
            Ok(exit::SUCCESS)
        }
        Err(err) => Err(err.into()),
    }
}

fn run_referee(args: RefereeArgs) -> u8 {
    let job = referee::Job {
        inputs: args.inputs,
        output: args.output,
        out_dir: args.out_dir,
        options: referee::Options {
            programmer: args.programmer,
            project: args.project,
        },
    };
    referee::run(&job, &mut io::stdout().lock(), &mut io::stderr().lock())
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Bad input (rules, malformed streams) is 2; a failed read or write is 1.
fn exit_code_for(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(stream_err) = cause.downcast_ref::<stream::StreamError>() {
            return match stream_err {
                stream::StreamError::Io(_) => exit::IO_ERROR,
                _ => exit::BAD_INPUT,
            };
        }
        if cause.downcast_ref::<oxo_core::RulesError>().is_some() {
            return exit::BAD_INPUT;
        }
        if cause.downcast_ref::<io::Error>().is_some() {
            return exit::IO_ERROR;
        }
    }
    exit::IO_ERROR
}
