//! The command line as clap sees it: raw arguments, checked only for their
//! syntax. Each command turns its arguments into a validated configuration
//! (in `cmd/`) before doing any work.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use oxo_ai::{PlayerKind, StrategyKind};
use oxo_core::{BoardSize, Player, Rules};

macro_rules! exit_codes {
    () => {
        "\
Exit codes:
  0  success (also when the reader closes the output pipe early)
  1  a file could not be read or written
  2  bad usage or malformed input"
    };
}
pub(crate) const EXIT_CODES: &str = exit_codes!();
/// `oxo --help`'s: the codes every command shares, and where the others are.
const ALL_EXIT_CODES: &str = concat!(
    exit_codes!(),
    "\n  A command's own codes (solve: 3, 4; arena: 5; a signal's) are in its --help."
);

#[derive(Debug, Parser)]
#[command(name = "oxo", version, about = "Tic-tac-toe and m,n,k-games: serve, play, solve, arena, train, brain, referee, stream", after_help = ALL_EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the web game: a browser UI, online two-player games, the computer, a scoreboard.
    Serve(ServeArgs),
    /// Play at the terminal: a full-screen game (`?` lists its keys), or `ROW COL` lines (--plain).
    Play(PlayArgs),
    /// Replay a "Design Tic-Tac-Toe" command stream: a count, then `move R C` lines.
    Stream(StreamArgs),
    /// Referee CS 1044 moves files (TTTmoves.txt) and write TTTgame.txt-style reports.
    Referee(RefereeArgs),
    /// Solve positions: the perfect-play value and the value of every move.
    Solve(SolveArgs),
    /// Check a proof certificate written by `oxo solve --proof`, with the rules alone.
    Verify(VerifyArgs),
    /// Pit computer players against each other: a match, or a round robin with Elo ratings.
    Arena(ArenaArgs),
    /// Train a learned player by self-play, with a learning curve, and save the model.
    Train(TrainArgs),
    /// Be a Gomocup engine ("brain"): the Piskvork protocol on stdin and stdout.
    Brain(BrainArgs),
}

#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = "\
Gomocup managers run engines named pbrain-*: scripts/pbrain-oxo is one, running `oxo brain`
with its arguments. Coordinates are the protocol's: X the column, Y the row, from 0.

Exit codes:
  0  END received, the input ended, or the output was closed (its reader went away)
  1  reading standard input or writing standard output failed otherwise
  2  bad usage"
)]
pub(crate) struct BrainArgs {
    /// The strategy that plays (random, rules, alphabeta, learned; perfect is for small boards).
    #[arg(long, value_name = "STRATEGY", default_value = "alphabeta")]
    pub strategy: StrategyKind,
    /// Seed for the strategy's random choices [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// A model from `oxo train` for the learned strategy, instead of the built-in one.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
    /// Think on the opponent's time (alphabeta or learned; refused with the others): guess its
    /// reply and search the answer while it thinks. Gomocup tournaments forbid this; a GUI game against a person may want it. A line
    /// on stderr says at the end how many guesses came true.
    #[arg(long)]
    pub ponder: bool,
}

/// Board size and win length, shared by the commands that play on any board.
#[derive(Debug, Args)]
pub(crate) struct BoardArgs {
    /// Board size: N for N×N, or ROWSxCOLS (at most 1024 a side).
    #[arg(long, value_name = "N|RxC", default_value = "3")]
    pub size: BoardSize,
    /// Marks in a row needed to win [default: the shorter side, at most 5].
    #[arg(long, value_name = "K", value_parser = parse_k)]
    pub k: Option<u32>,
}

impl BoardArgs {
    pub(crate) fn rules(&self) -> Result<Rules, oxo_core::RulesError> {
        Rules::with_size(self.size, self.k)
    }
}

const PLAY_HELP: &str = "\
Exit codes:
  0  success (also when the reader closes the output pipe early)
  1  a file could not be read or written
  2  bad usage or malformed input
  129, 130, 131, 143  the full-screen game ended by SIGHUP, SIGINT from elsewhere, SIGQUIT
     or SIGTERM
     (the terminal restored and the score printed; Ctrl-C typed at the game is q)";

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true, after_help = PLAY_HELP)]
pub(crate) struct PlayArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Speak the plain line protocol of the console game even on a
    /// terminal (it is what pipes and files always get) instead of the
    /// full-screen game.
    #[arg(long)]
    pub plain: bool,
    /// Rounds to play in the plain protocol; the starting player alternates and, with more than
    /// one, the score is shown after each (the full-screen game plays rounds until you quit).
    #[arg(long, default_value_t = 1, value_parser = at_least::<u64>(1))]
    pub rounds: u64,
    /// Who starts the first round.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Side::X)]
    pub first: Side,
    /// Who plays X: human, or a computer strategy (random, rules, alphabeta, perfect, learned).
    #[arg(long = "x", value_name = "PLAYER", default_value = "human")]
    pub x_player: PlayerKind,
    /// Who plays O: human, or a computer strategy.
    #[arg(long = "o", value_name = "PLAYER", default_value = "human")]
    pub o_player: PlayerKind,
    /// Seed for every random choice the computer players make [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// A table from `oxo solve --all --save FILE` for perfect players to look moves up in.
    #[arg(long, value_name = "FILE")]
    pub table: Option<PathBuf>,
    /// A model from `oxo train` for learned players, instead of the built-in one.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
}

/// A player in the arena: one of oxo's strategies, or an external Gomocup
/// engine (`brain:PATH`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ArenaPlayer {
    Strategy(StrategyKind),
    Brain(PathBuf),
}

impl std::str::FromStr for ArenaPlayer {
    type Err = String;

    fn from_str(text: &str) -> Result<ArenaPlayer, String> {
        if let Some(path) = text.strip_prefix("brain:").filter(|path| !path.is_empty()) {
            return Ok(ArenaPlayer::Brain(PathBuf::from(path)));
        }
        if text == "brain:" {
            return Err("brain: needs the engine's path, as in brain:./pbrain-x".to_owned());
        }
        text.parse::<StrategyKind>()
            .map(ArenaPlayer::Strategy)
            .map_err(|e| format!("{e}, or brain:PATH for a Gomocup engine"))
    }
}

/// The player as it was given (an engine's path as typed).
impl std::fmt::Display for ArenaPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArenaPlayer::Strategy(kind) => f.write_str(kind.name()),
            ArenaPlayer::Brain(path) => write!(f, "brain:{}", path.display()),
        }
    }
}

/// A side, as flags spell it.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Side {
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
#[command(allow_negative_numbers = true, after_help = EXIT_CODES)]
pub(crate) struct StreamArgs {
    /// Instructions file, or - for standard input [default: standard input].
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub board: BoardArgs,
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true, after_help = EXIT_CODES)]
pub(crate) struct RefereeArgs {
    /// Moves files: a title line, the players line, a blank line, then `P SQUARE` per line
    /// (`-`: standard input).
    #[arg(required = true, value_name = "MOVES")]
    pub inputs: Vec<PathBuf>,
    /// Write the report to this file instead of standard output (one input only).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "REPORT",
        conflicts_with = "out_dir"
    )]
    pub output: Option<PathBuf>,
    /// Write one report per input into this directory, named like the input.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The name on the report's first line.
    #[arg(long, value_name = "NAME", default_value = oxo_text::referee::DEFAULT_PROGRAMMER)]
    pub programmer: String,
    /// The report's second line.
    #[arg(long, value_name = "LINE", default_value = oxo_text::referee::DEFAULT_PROJECT)]
    pub project: String,
}

#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = SOLVE_HELP,
    // Clap's own usage line for a conflict with --all would offer a
    // position beside it, which --all refuses.
    override_usage = "oxo solve [OPTIONS] [POSITION]\n       oxo solve --all [--size N|RxC] [--k K] [--json] [--save FILE]"
)]
pub(crate) struct SolveArgs {
    /// A position such as X.O/.X./..O (rows joined by /, cells X, O or .),
    /// or - to read one position per line from standard input
    /// [default: the empty board of --size].
    pub position: Option<String>,
    /// Board size for the empty board or --all (N or ROWSxCOLS).
    #[arg(
        long,
        value_name = "N|RxC",
        default_value = "3",
        conflicts_with = "position"
    )]
    pub size: BoardSize,
    /// Marks in a row needed to win [default: the shorter side, at most 5].
    #[arg(long, value_name = "K", value_parser = parse_k)]
    pub k: Option<u32>,
    /// Print one JSON object per position instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print only the value (win, draw or loss for the player to move), without the distances
    /// and the moves' values: the solver's fastest answer.
    #[arg(long, conflicts_with = "all")]
    pub value: bool,
    /// Solve every position reachable from the empty board of --size (boards of up to 16 cells).
    #[arg(long, conflicts_with = "position")]
    pub all: bool,
    /// With --all: save the solved table to this file.
    #[arg(long, value_name = "FILE", requires = "all")]
    pub save: Option<PathBuf>,
    /// Memory for the transposition table, in MiB [default: 64].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub table_mb: Option<u64>,
    /// Also write a certificate of the position's value to this file, for `oxo verify`.
    #[arg(long, value_name = "FILE", conflicts_with = "all")]
    pub proof: Option<PathBuf>,
    /// Give up on a position after visiting N positions (exit 4): bounds a --value or a full
    /// analysis, each line of a batch on its own.
    #[arg(
        long,
        value_name = "N",
        value_parser = at_least::<u64>(1),
        conflicts_with_all = ["all", "checkpoint", "post", "worker", "assemble"]
    )]
    pub budget: Option<u64>,
    #[command(flatten)]
    pub campaign: CampaignArgs,
}

/// A long proof split into jobs (`oxo solve --value` with one of
/// --checkpoint, --post, --worker, --assemble); see docs/manual/solve.md.
#[derive(Debug, Args)]
#[command(next_help_heading = "Long proofs, split into jobs")]
pub(crate) struct CampaignArgs {
    /// Prove the value on every core, split into jobs, saving the answers to FILE after each job.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["all", "post", "worker", "assemble"])]
    pub checkpoint: Option<PathBuf>,
    /// Continue the proof saved in the --checkpoint file (refused if it is another proof's).
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// Worker threads [default: one a core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Memory for the search tables of all the threads together, such as 512M or 4G
    /// [default: 1G].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Plies split into jobs from the start [default: 2].
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=8))]
    pub split: Option<u32>,
    /// Positions one job may visit before it is split one ply deeper, at least 1000
    /// [default: no limit].
    #[arg(long, value_name = "N", value_parser = at_least::<u64>(1000))]
    pub job_nodes: Option<u64>,
    /// Post the proof to the PostgreSQL job table of --db, for `oxo solve --worker`.
    #[arg(long, requires = "db", conflicts_with_all = ["all", "proof", "worker", "assemble"])]
    pub post: bool,
    /// Take jobs from the job table of --db until none is left.
    #[arg(
        long,
        requires = "db",
        conflicts_with_all = ["all", "proof", "assemble", "position", "size", "k", "value", "resume"]
    )]
    pub worker: bool,
    /// Print the value of a posted proof once its workers have finished, or how far they are
    /// (with --proof, also write its certificate).
    #[arg(long, requires = "db", conflicts_with = "all")]
    pub assemble: bool,
    /// The PostgreSQL database holding the job table: postgres://USER@HOST:PORT/DB.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// Seconds a worker holds a job without renewing it before others may take it back
    /// [default: 60].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(2..=86400))]
    pub lease: Option<u64>,
}

impl CampaignArgs {
    /// Whether a long proof is asked for.
    pub(crate) fn any(&self) -> bool {
        self.checkpoint.is_some() || self.post || self.worker || self.assemble
    }

    /// The options given that the mode asked for does not use (none of
    /// them without a long proof), by name: each mode takes those of its
    /// line in `oxo solve`'s synopsis (docs/manual/solve.md).
    pub(crate) fn unused(&self, proof: bool) -> Vec<&'static str> {
        let mode = if self.checkpoint.is_some() {
            Some(Mode::Checkpoint)
        } else if self.post {
            Some(Mode::Post)
        } else if self.worker {
            Some(Mode::Worker)
        } else if self.assemble {
            Some(Mode::Assemble)
        } else {
            None
        };
        let given = [
            ("--threads", self.threads.is_some()),
            ("--memory", self.memory.is_some()),
            ("--split", self.split.is_some()),
            ("--job-nodes", self.job_nodes.is_some()),
            ("--db", self.db.is_some()),
            ("--lease", self.lease.is_some()),
        ];
        let used = |name: &str| match mode {
            None => false,
            // A resumed proof keeps the split it was started with.
            Some(Mode::Checkpoint) => {
                matches!(name, "--threads" | "--memory" | "--job-nodes")
                    || (name == "--split" && !self.resume)
            }
            Some(Mode::Post) => matches!(name, "--db" | "--split"),
            Some(Mode::Worker) => {
                matches!(
                    name,
                    "--db" | "--threads" | "--memory" | "--lease" | "--job-nodes"
                )
            }
            Some(Mode::Assemble) => {
                name == "--db" || (proof && matches!(name, "--threads" | "--memory"))
            }
        };
        given
            .into_iter()
            .filter(|&(name, given)| given && !used(name))
            .map(|(name, _)| name)
            .collect()
    }
}

/// The long proof's modes.
#[derive(Clone, Copy)]
enum Mode {
    Checkpoint,
    Post,
    Worker,
    Assemble,
}

#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = "\
Exit codes:
  0  the certificate is valid
  1  the certificate is refused (the message says where and why), or cannot be read
  2  bad usage"
)]
pub(crate) struct VerifyArgs {
    /// The certificate, as `oxo solve --proof FILE` wrote it (`-` for standard input).
    pub file: PathBuf,
}

const SOLVE_HELP: &str = "\
Values are for the player to move: win, draw or loss, with the number of plies
(single moves) to the end when both sides play perfectly (the winner hurrying,
the loser stalling). In the table, each empty cell shows the value of playing
there: W3 = win in 3 plies, D = draw, L4 = loss in 4.

Exit codes:
  0  success
  1  a file could not be read or written
  2  bad usage or malformed input (a bad position, a board too large to solve)
  3  a long proof not finished: stopped by Ctrl-C or SIGTERM (--resume continues it),
     or --assemble before its workers are done
  4  no answer within --budget positions (in a batch: some line had none, and every
     other line was answered)";

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true, after_help = SERVE_HELP)]
pub(crate) struct ServeArgs {
    /// Address to listen on: an IP address or a host name (its first address) and a
    /// port (port 0 picks a free port).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080", value_parser = host_port)]
    pub addr: SocketAddr,
    /// Where every game is kept: a SQLite file (created when missing; one server
    /// per file), or a PostgreSQL URL `postgres://USER@HOST:PORT/DB` that several
    /// servers can share [default: $OXO_DB, else oxo.db].
    #[arg(long, value_name = "FILE|URL")]
    pub db: Option<String>,
    /// Keep games in memory only: nothing survives a restart (for trials and
    /// benchmarks; OXO_DB is then ignored).
    #[arg(long, conflicts_with = "db")]
    pub memory: bool,
    /// Skip the integrity check of the whole database file at start (for huge files);
    /// every room is still checked against its digest when loaded.
    #[arg(long, conflicts_with = "memory")]
    pub skip_check: bool,
    /// A model from `oxo train` for the learned opponent on its board (repeat for
    /// several boards); it replaces the built-in model for that board.
    #[arg(long, value_name = "MODEL")]
    pub model: Vec<PathBuf>,
    /// Games one client address may create per minute (in bursts of 40 s of the rate: 20 at
    /// the default); 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub creates_per_minute: u32,
    /// Joins, moves and rematches one client address may send per second (in bursts of 3 s
    /// of the rate: 60 at the default); 0 for no limit.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub writes_per_second: u32,
    /// Connections open at once (default: what the open-file limit allows, at most 10000).
    #[arg(long, value_name = "N", value_parser = at_least::<u32>(1))]
    pub max_connections: Option<u32>,
    /// Connections open at once from one client address.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = at_least::<u32>(1))]
    pub max_connections_per_address: u32,
    /// Take each client's address from the last X-Forwarded-For entry, as set by the load
    /// balancer in front (only behind one: clients could forge it otherwise).
    #[arg(long)]
    pub trust_proxy: bool,
    /// Seconds a player must have been gone, on their move, before the opponent may claim
    /// the round.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub claim_after: u32,
    /// Delete games never played (no move made: never joined, cancelled, aborted, or joined
    /// with no move, correspondence too) once nobody has changed them for this many days,
    /// checked at start and hourly; their links then find no game. 0 keeps every game (at
    /// most 36500).
    #[arg(long, value_name = "DAYS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(0..=36_500))]
    pub prune_unplayed_after: u32,
}

const SERVE_HELP: &str = "\
Open the address in a browser to play. Logs go to stderr, one line per request;
OXO_LOG=error|warn|info|debug|trace|off sets how much (default info). Ctrl-C or
SIGTERM stops the server after the requests in flight.

Several servers can serve the same games from one PostgreSQL database behind
any load balancer (docs/manual/serve.md); /healthz answers while the process lives,
/readyz only while its database answers.

Exit codes:
  0  stopped by Ctrl-C or SIGTERM
  1  the address or the database could not be opened (or another oxo serve
     holds the SQLite file), or a --model file could not be read
  2  bad usage or malformed input (a --model file that is not a usable model)";

const ARENA_HELP: &str = "\
Exit codes:
  0  success (also when the reader closes the output pipe early)
  1  a file could not be read or written
  2  bad usage or malformed input
  5  an engine (brain:PATH) made no move in any game it played (it would not start, or
     never gave a legal move); the results are printed all the same
  130, 143  stopped by Ctrl-C or SIGTERM: every engine was ended, and the games finished
            were reported, marked partial (another signal a second later or more stops at
            once, with no results)";

#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = ARENA_HELP,
    override_usage = "oxo arena --x <PLAYER> --o <PLAYER> [OPTIONS]   (a match)\n       \
                      oxo arena --players <A,B,...> [OPTIONS]       (a round robin)"
)]
pub(crate) struct ArenaArgs {
    /// The player of X: a strategy (random, rules, alphabeta, perfect, learned) or a Gomocup
    /// engine, brain:PATH.
    #[arg(
        long = "x",
        value_name = "PLAYER",
        required_unless_present = "players",
        requires = "o"
    )]
    pub x: Option<ArenaPlayer>,
    /// The player of O.
    #[arg(
        long = "o",
        value_name = "PLAYER",
        required_unless_present = "players",
        requires = "x"
    )]
    pub o: Option<ArenaPlayer>,
    /// A round robin between these players (comma-separated, two or
    /// more, each once): every pair meets for --games games, each side X in half.
    #[arg(long, value_name = "A,B,...", value_delimiter = ',', num_args = 1.., conflicts_with_all = ["x", "o", "first"])]
    pub players: Vec<ArenaPlayer>,
    /// Time for each move of a brain:PATH engine, in milliseconds; an answer later than this
    /// (plus a tenth, at least 50 ms) loses the game [default: 1000, or the match time with
    /// --match-time].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub move_time: Option<u64>,
    /// Time for all of a brain:PATH engine's moves in each game, in milliseconds, told to it
    /// as Gomocup's timeout_match and time_left; an engine that uses it up (plus a tenth, at
    /// least 50 ms) before it answers loses the game. Without --move-time, a move may take
    /// all that is left.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub match_time: Option<u64>,
    /// Games to play (in a round robin: for every pair of players).
    #[arg(long, default_value_t = 100, value_parser = at_least::<u64>(1))]
    pub games: u64,
    #[command(flatten)]
    pub board: BoardArgs,
    /// Only a run of exactly K wins, a longer one (an overline) nothing: Gomocup's standard
    /// rule (engines are told INFO rule 1; oxo's own players play it as `oxo brain` does).
    #[arg(long)]
    pub exact: bool,
    /// Who moves first in every game [default: X and O in turn].
    #[arg(long, value_enum, ignore_case = true)]
    pub first: Option<Side>,
    /// Start every two games from the same N random moves near the centre, each player taking
    /// each side of them once: varied games even between players that repeat themselves.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub opening: u32,
    /// Start the games from an opening book instead: one opening a line, its stones as X,Y
    /// offsets from the centre (Gomocup's offset form); each pair of games takes the next.
    #[arg(long, value_name = "FILE", conflicts_with = "opening")]
    pub openings: Option<PathBuf>,
    /// Seed for every random choice [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// With --players: also draw the results (cross table and Elo) as an SVG picture.
    #[arg(long, value_name = "FILE.svg", requires = "players")]
    pub plot: Option<PathBuf>,
    /// Write every finished game to FILE, one JSON object a line (JSON Lines), in the order
    /// played (a round robin's round by round): the players, the opening, the moves, the result
    /// and how the game ended.
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Write every finished game to DIR as a Gomocup (Piskvork) .psq file, DIR/0001.psq for
    /// game 0 and so on (five in a row on boards of 5 a side or more).
    #[arg(long, value_name = "DIR")]
    pub psq: Option<PathBuf>,
    /// Write everything the arena and each brain:PATH engine say to each other, and each
    /// engine's standard error, to FILE as it happens: one line each, with the time, the game,
    /// the side and the engine.
    #[arg(long, value_name = "FILE")]
    pub engine_log: Option<PathBuf>,
    /// Positions alphabeta, and learned players on the boards where they search inside
    /// alphabeta's search, search a move [default: 100000].
    #[arg(long, value_name = "NODES", value_parser = at_least::<u64>(1))]
    pub budget: Option<u64>,
    /// With --x and --o: grade every move by the solver (boards it can solve) and say how often
    /// each player let a won position go or turned a draw into a loss.
    #[arg(long, conflicts_with = "players")]
    pub grade: bool,
    /// A model from `oxo train` for learned players, instead of the built-in one.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true, after_help = TRAIN_HELP)]
pub(crate) struct TrainArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Self-play games to train on [default: 150000 on 3x3; elsewhere as many as --minutes allows].
    #[arg(long, value_name = "N", conflicts_with = "minutes", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub episodes: Option<u64>,
    /// Time to train for, in minutes (measured first, then run as a fixed episode count); the
    /// checkpoints' games and grading and any searched self-play come on top [default: 1].
    #[arg(long, value_name = "M", value_parser = parse_minutes)]
    pub minutes: Option<f64>,
    /// Seed for every random choice: the same seed and episodes give the same model.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to save the model.
    #[arg(long, value_name = "MODEL")]
    pub out: PathBuf,
    /// Draw the learning curve as an SVG picture.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Write the learning curve as CSV.
    #[arg(long, value_name = "FILE.csv")]
    pub curve: Option<PathBuf>,
    /// Points on the learning curve.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub checkpoints: u32,
    /// Games a seat against random and against rules at each checkpoint.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub eval_games: u32,
    /// Positions from random games whose moves are graded by the solver at each
    /// checkpoint (boards of 10 to 25 cells; 3x3 grades all 4520; 0 for none).
    #[arg(long, default_value_t = 500)]
    pub grade_positions: usize,
    /// Rounds of searched self-play after the episodes, for models that play inside
    /// alphabeta's search (k = 5 and 6) [default: 3 there on boards of 100 cells or more, 0
    /// elsewhere].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub search_rounds: Option<u32>,
    /// Games a round of searched self-play [default: 1000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub search_games: Option<u64>,
    /// Threads for searched self-play (the model is the same whatever the count) [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
}

/// A whole number of at least `min`, said so when it is not (clap's own
/// range would name the type's whole span: `0 is not in
/// 1..18446744073709551615`).
fn at_least<T>(min: T) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy + Send + Sync + 'static,
{
    move |text| match text.parse::<T>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) => Err(format!("it must be at least {min}")),
        Err(_)
            if text
                .strip_prefix('+')
                .unwrap_or(text)
                .bytes()
                .all(|b| b.is_ascii_digit())
                && !text.is_empty() =>
        {
            Err("it is too large".to_owned())
        }
        Err(_) => Err(format!("{text:?} is not a whole number")),
    }
}

/// A win length: a whole number (the board then says how large it may be).
fn parse_k(text: &str) -> Result<u32, String> {
    text.parse().map_err(|_| {
        format!(
            "{text:?} is not a win length: k is a whole number from 1 to the board's longer side"
        )
    })
}

fn parse_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 && m <= 10_000.0 => Ok(m),
        _ => Err(format!(
            "{text:?} is not a number of minutes above 0 and at most 10000"
        )),
    }
}

const TRAIN_HELP: &str = "\
Training plays the model against itself (temporal-difference learning on an
n-tuple network over the board's k-windows). Models that play inside
alphabeta's search (k = 5 and 6; by default on boards of 100 cells or more)
then play rounds of searched self-play, each
refitting the weights to how its games ended (--search-rounds; about 15 s a
round on 15x15 with two cores; --minutes times the episodes only). At each
checkpoint, and after each round, the model so far plays random and rules in
both seats and, on boards of up to 25 cells, its moves are graded against
perfect play; the table printed at the end is the learning curve. A progress
bar with games/s and the time left shows on a terminal. Play the model with
--model MODEL in oxo play, arena, brain or serve. Ctrl-C (or SIGTERM) stops
training at the episode's next move (a checkpoint being measured, or a
searched game under way, is finished first) and saves the model trained so
far with its curve; a second Ctrl-C quits without writing anything (unless
the files are being written, which it lets finish).

Exit codes:
  0  success
  1  a file could not be written
  2  bad usage
  130, 143  stopped by Ctrl-C or SIGTERM (the model so far saved, unless
            stopped again or while --minutes measures the speed)";

/// `HOST:PORT` as an address to listen on: an IP address (`[::1]:0` for
/// IPv6), or a host name such as `localhost`, resolved to its first address.
fn host_port(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let mut addrs = text
        .to_socket_addrs()
        .map_err(|e| format!("{text:?} is not HOST:PORT with a host this machine knows: {e}"))?;
    addrs
        .next()
        .ok_or_else(|| format!("{text:?}: the host has no address"))
}
