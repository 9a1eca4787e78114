//! `oxo`: tic-tac-toe and m,n,k-games at the command line.

use std::io::{self, IsTerminal, Write};
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
#[command(name = "oxo", version, about = "Tic-tac-toe and m,n,k-games: serve, play, solve, referee, stream", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the web game: a browser UI, online two-player games, the computer, a scoreboard.
    Serve(ServeArgs),
    /// Play at the terminal: two people take turns typing `ROW COL`.
    Play(PlayArgs),
    /// Replay a "Design Tic-Tac-Toe" command stream: a count, then `move R C` lines.
    Stream(StreamArgs),
    /// Referee CS 1044 moves files (TTTmoves.txt) and write TTTgame.txt-style reports.
    Referee(RefereeArgs),
    /// Solve positions: the perfect-play value and the value of every move.
    Solve(SolveArgs),
    /// Pit two computer players against each other over many games.
    Arena(ArenaArgs),
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
    /// Who plays X: human, or a computer strategy (random, rules, alphabeta, perfect).
    #[arg(long = "x", value_name = "PLAYER", default_value = "human")]
    x_player: PlayerKind,
    /// Who plays O: human, or a computer strategy.
    #[arg(long = "o", value_name = "PLAYER", default_value = "human")]
    o_player: PlayerKind,
    /// Seed for every random choice the computer players make [default: from the clock].
    #[arg(long)]
    seed: Option<u64>,
    /// A table from `oxo solve --all --save FILE` for perfect players to look moves up in.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
}

/// `human` or a strategy name.
#[derive(Clone, Copy, Debug)]
enum PlayerKind {
    Human,
    Computer(oxo_ai::StrategyKind),
}

impl std::str::FromStr for PlayerKind {
    type Err = oxo_ai::BuildError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("human") {
            Ok(PlayerKind::Human)
        } else {
            s.parse().map(PlayerKind::Computer)
        }
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

#[derive(Debug, Args)]
#[command(after_help = SOLVE_HELP)]
struct SolveArgs {
    /// A position such as X.O/.X./..O (rows joined by /, cells X, O or .),
    /// or - to read one position per line from standard input
    /// [default: the empty board of --size].
    position: Option<String>,
    /// Board size for the empty board or --all (N or ROWSxCOLS).
    #[arg(
        long,
        value_name = "N|RxC",
        default_value = "3",
        conflicts_with = "position"
    )]
    size: BoardSize,
    /// Marks in a row needed to win [default: the shorter side].
    #[arg(long, value_name = "K")]
    k: Option<u32>,
    /// Print one JSON object per position instead of a table.
    #[arg(long)]
    json: bool,
    /// Solve every position reachable from the empty board of --size (boards of up to 16 cells).
    #[arg(long, conflicts_with = "position")]
    all: bool,
    /// With --all: save the solved table to this file.
    #[arg(long, value_name = "FILE", requires = "all")]
    save: Option<PathBuf>,
    /// Memory for the transposition table, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    table_mb: u64,
}

const SOLVE_HELP: &str = "\
Values are for the player to move: win, draw or loss, with the number of plies
(single moves) to the end when both sides play perfectly (the winner hurrying,
the loser stalling). In the table, each empty cell shows the value of playing
there: W3 = win in 3 plies, D = draw, L4 = loss in 4.

Exit codes:
  0  success
  1  a file could not be read or written
  2  bad usage or malformed input (a bad position, a board too large to solve)";

#[derive(Debug, Args)]
#[command(after_help = SERVE_HELP)]
struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    /// The SQLite database file keeping every game (created when missing).
    #[arg(long, value_name = "FILE", default_value = "oxo.db")]
    db: PathBuf,
    /// Keep games in memory only: nothing survives a restart (for trials and benchmarks).
    #[arg(long, conflicts_with = "db")]
    memory: bool,
}

const SERVE_HELP: &str = "\
Open the address in a browser to play. Logs go to stderr, one line per request;
OXO_LOG=error|warn|info|debug|trace|off sets how much (default info). Ctrl-C or
SIGTERM stops the server after the requests in flight.

Exit codes:
  0  stopped by Ctrl-C or SIGTERM
  1  the address or the database could not be opened
  2  bad usage";

#[derive(Debug, Args)]
#[command(after_help = EXIT_CODES)]
struct ArenaArgs {
    /// The strategy playing X (random, rules, alphabeta, perfect).
    #[arg(long = "x", value_name = "STRATEGY")]
    x: oxo_ai::StrategyKind,
    /// The strategy playing O.
    #[arg(long = "o", value_name = "STRATEGY")]
    o: oxo_ai::StrategyKind,
    /// Games to play.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
    #[command(flatten)]
    board: BoardArgs,
    /// Who moves first in every game [default: X and O in turn].
    #[arg(long, value_enum)]
    first: Option<Side>,
    /// Seed for every random choice [default: from the clock].
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
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
        Command::Serve(args) => run_serve(&args),
        Command::Play(args) => run_play(&args),
        Command::Stream(args) => run_stream(&args),
        Command::Referee(args) => Ok(run_referee(args)),
        Command::Solve(args) => run_solve(&args),
        Command::Arena(args) => run_arena(&args),
    }
}

fn run_serve(args: &ServeArgs) -> anyhow::Result<u8> {
    let level = std::env::var("OXO_LOG").unwrap_or_else(|_| "info".into());
    let level: tracing_subscriber::filter::LevelFilter = level.parse().map_err(|_| {
        BadInput(format!(
            "OXO_LOG={level:?}: use error, warn, info, debug, trace or off"
        ))
    })?;
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(io::stderr)
        .with_ansi(io::stderr().is_terminal())
        .init();
    let store: std::sync::Arc<dyn oxo_server::Store> = if args.memory {
        std::sync::Arc::new(oxo_server::MemoryStore::new())
    } else {
        std::sync::Arc::new(
            oxo_server::SqliteStore::open(&args.db)
                .with_context(|| format!("cannot open the database {}", args.db.display()))?,
        )
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener
            .local_addr()
            .context("cannot read the bound address")?;
        let hub = oxo_server::Hub::new(store, &oxo_server::HubConfig::default());
        let kept = if args.memory {
            "games kept in memory only".to_owned()
        } else {
            format!("games kept in {}", args.db.display())
        };
        // Tests and scripts read the address from this line.
        println!("oxo serve: listening on http://{addr} ({kept})");
        io::stdout().flush().context("cannot write to stdout")?;
        oxo_server::run(listener, oxo_server::AppState::new(hub), shutdown_signal())
            .await
            .context("the server failed")
    });
    // A computer move still being searched is not worth waiting for: it was
    // not acknowledged, and the next start takes it up again.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    served?;
    Ok(exit::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
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
    let seed = seed_or_clock(args.seed);
    let table = match &args.table {
        Some(path) => Some(std::sync::Arc::new(load_table(path, config.rules)?)),
        None => None,
    };
    let seat = |kind: PlayerKind, seed: u64| -> anyhow::Result<Box<dyn play::Seat>> {
        let bad = |e: oxo_ai::BuildError| BadInput(e.to_string());
        Ok(match (kind, &table) {
            (PlayerKind::Human, _) => Box::new(play::Human),
            (PlayerKind::Computer(oxo_ai::StrategyKind::Perfect), Some(table)) => {
                let perfect = oxo_ai::Perfect::new(config.rules, seed)
                    .map_err(|e| BadInput(e.to_string()))?
                    .with_table(std::sync::Arc::clone(table));
                Box::new(play::Computer::new(Box::new(perfect)))
            }
            (PlayerKind::Computer(strategy), _) => Box::new(play::Computer::new(
                strategy.build(config.rules, seed).map_err(bad)?,
            )),
        })
    };
    let mut seats = [
        seat(args.x_player, seed)?,
        seat(args.o_player, seed ^ 0x9E37_79B9_7F4A_7C15)?,
    ];
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

fn run_arena(args: &ArenaArgs) -> anyhow::Result<u8> {
    use oxo_cli::arena;

    let threads = match args.threads {
        Some(n) => usize::try_from(n)?,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let config = arena::Config {
        rules: args.board.rules()?,
        x: args.x,
        o: args.o,
        games: args.games,
        first: args.first.map(Player::from),
        seed: seed_or_clock(args.seed),
        threads,
    };
    let show_progress = io::stderr().is_terminal();
    let start = std::time::Instant::now();
    let results = arena::run(&config, |done| {
        if show_progress {
            let width = 30;
            let filled = (done * width / config.games) as usize;
            eprint!(
                "\r\x1b[K[{}{}] {done}/{} games",
                "#".repeat(filled),
                ".".repeat(width as usize - filled),
                config.games
            );
        }
    })
    .map_err(|e| match e {
        arena::ArenaError::Build(err) => anyhow::Error::new(BadInput(err.to_string())),
        other => other.into(),
    })?;
    if show_progress {
        eprint!("\r\x1b[K");
    }
    let elapsed = start.elapsed();
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", arena::json(&config, &results, elapsed))?;
    } else {
        write!(out, "{}", arena::table(&config, &results, elapsed))?;
    }
    Ok(exit::SUCCESS)
}

fn run_solve(args: &SolveArgs) -> anyhow::Result<u8> {
    use oxo_ai::{Solver, StrongSolution};
    use oxo_cli::solve;

    let table_bytes = usize::try_from(args.table_mb)? << 20;
    if args.all {
        let rules = Rules::with_size(args.size, args.k)?;
        let start = std::time::Instant::now();
        let strong = StrongSolution::compute(rules).map_err(BadInput::from)?;
        let time = start.elapsed();
        let census = strong.census();
        let empty = strong
            .get(&oxo_core::Game::new(rules))
            .expect("the empty board is reachable");
        let mut out = io::stdout().lock();
        if args.json {
            writeln!(
                out,
                "{{\"size\":\"{}\",\"k\":{},\"positions\":{},\"terminal\":{},\"x_wins\":{},\"o_wins\":{},\"draws\":{},\"classes\":{},\"value\":\"{}\",\"plies\":{},\"time_ms\":{:.1}}}",
                rules.size(),
                rules.k(),
                census.positions,
                census.terminal,
                census.x_wins,
                census.o_wins,
                census.draws,
                strong.stored(),
                empty.value,
                empty.plies,
                time.as_secs_f64() * 1e3
            )?;
        } else {
            writeln!(
                out,
                "{rules}: every reachable position solved in {:.1} ms",
                time.as_secs_f64() * 1e3
            )?;
            writeln!(out, "  reachable positions  {:>12}", census.positions)?;
            writeln!(
                out,
                "  finished games       {:>12}  (X wins {}, O wins {}, full-board draws {})",
                census.terminal, census.x_wins, census.o_wins, census.draws
            )?;
            writeln!(out, "  stored (by symmetry) {:>12}", strong.stored())?;
            writeln!(
                out,
                "  empty board: {} for X in {} {}",
                empty.value,
                empty.plies,
                if empty.plies == 1 { "ply" } else { "plies" }
            )?;
        }
        if let Some(path) = &args.save {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            strong
                .save(io::BufWriter::new(file))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        return Ok(exit::SUCCESS);
    }

    let make_solver = |rules: Rules| -> anyhow::Result<Solver> {
        let mut solver = Solver::new(rules, table_bytes).map_err(BadInput::from)?;
        if io::stderr().is_terminal() {
            solver.on_progress(|p| {
                if p.elapsed.as_secs() >= 1 {
                    let rate = p.nodes as f64 / p.elapsed.as_secs_f64();
                    let depth = p
                        .depth
                        .map_or(String::new(), |d| format!(", distance search at {d} plies"));
                    eprint!(
                        "\r\x1b[Ksolving: {} positions, {:.1} M/s{depth}",
                        p.nodes,
                        rate / 1e6
                    );
                }
            });
        }
        Ok(solver)
    };
    let clear_progress = || {
        if io::stderr().is_terminal() {
            eprint!("\r\x1b[K");
        }
    };

    match args.position.as_deref() {
        Some("-") => {
            // One solver per board shape, kept warm across lines.
            let mut solvers: Vec<Solver> = Vec::new();
            let summary = solve::solve_lines(
                io::stdin().lock(),
                io::stdout().lock(),
                &mut io::stderr(),
                args.json,
                |text| {
                    let game = parse_position(text, args.k).map_err(|e| format!("{e:#}"))?;
                    let rules = game.rules();
                    let index = match solvers.iter().position(|s| s.rules() == rules) {
                        Some(i) => i,
                        None => {
                            // Keep a few recent board shapes warm, not one
                            // table for every shape a long batch mentions.
                            if solvers.len() == WARM_SOLVERS {
                                solvers.remove(0);
                            }
                            solvers.push(make_solver(rules).map_err(|e| format!("{e:#}"))?);
                            solvers.len() - 1
                        }
                    };
                    let report = solve::solve(&mut solvers[index], game).map_err(|e| e.to_string());
                    clear_progress();
                    report
                },
            )?;
            Ok(if summary.failed > 0 {
                exit::BAD_INPUT
            } else {
                exit::SUCCESS
            })
        }
        position => {
            let game = match position {
                Some(text) => parse_position(text, args.k)?,
                None => oxo_core::Game::new(Rules::with_size(args.size, args.k)?),
            };
            let mut solver = make_solver(game.rules())?;
            let report = solve::solve(&mut solver, game).map_err(BadInput::from)?;
            clear_progress();
            let mut out = io::stdout().lock();
            if args.json {
                writeln!(out, "{}", report.json())?;
            } else {
                write!(out, "{}", report.table())?;
            }
            Ok(exit::SUCCESS)
        }
    }
}

/// A strong-solution table saved by `oxo solve --all --save`, for `rules`.
fn load_table(path: &std::path::Path, rules: Rules) -> anyhow::Result<oxo_ai::StrongSolution> {
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

/// Solvers (and their tables) `oxo solve -` keeps for recent board shapes.
const WARM_SOLVERS: usize = 2;

/// A position in notation, with k from `--k` or the board's shorter side.
fn parse_position(text: &str, k: Option<u32>) -> anyhow::Result<oxo_core::Game> {
    let setup: oxo_core::Setup = text
        .parse()
        .map_err(|e| BadInput(format!("bad position {text:?}: {e}")))?;
    let k = k.unwrap_or(setup.rows().min(setup.cols()));
    oxo_core::Game::from_setup(&setup, k)
        .map_err(|e| BadInput(format!("impossible position {text:?}: {e}")).into())
}

/// An error in what the user asked for: exit code 2.
#[derive(Debug)]
struct BadInput(String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

impl From<oxo_ai::SolveError> for BadInput {
    fn from(err: oxo_ai::SolveError) -> Self {
        BadInput(err.to_string())
    }
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
        if cause.downcast_ref::<oxo_core::RulesError>().is_some()
            || cause.downcast_ref::<BadInput>().is_some()
        {
            return exit::BAD_INPUT;
        }
        if cause.downcast_ref::<io::Error>().is_some() {
            return exit::IO_ERROR;
        }
    }
    exit::IO_ERROR
}
