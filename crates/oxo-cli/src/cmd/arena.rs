//! `oxo arena`: computer players against each other, two at a time or in
//! a round robin.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use oxo_ai::arena::{self, ArenaError, Entrant};
use oxo_ai::grade::{GameGrader, GradeSummary};
use oxo_ai::tournament;
use oxo_ai::{Strategy, StrategyKind};
use oxo_cli::exit;
use oxo_cli::render;
use oxo_cli::render::arena::EngineClock;
use oxo_cli::signals::{SAME_STOP, Signal};
use oxo_core::{Player, Rules};
use oxo_gomocup::EngineLog;

use super::records::Recorder;
use crate::args::{ArenaArgs, ArenaPlayer};
use crate::failure::BadInput;

/// `--move-time` when not given, in milliseconds.
const DEFAULT_MOVE_TIME_MS: u64 = 1000;

/// `oxo arena`, validated.
#[derive(Debug)]
enum Config {
    Match {
        config: arena::Config,
        grade: bool,
        clock: Option<EngineClock>,
    },
    RoundRobin {
        config: tournament::Config,
        plot: Option<PathBuf>,
        clock: Option<EngineClock>,
    },
}

impl Config {
    fn new(args: &ArenaArgs, engine_log: Option<&EngineLog>) -> anyhow::Result<Config> {
        let threads = super::threads(args.threads)?;
        let freestyle: Rules = super::rules(&args.board)?;
        let rules = if args.exact {
            freestyle.exactly()
        } else {
            freestyle
        };
        if args.opening as usize >= rules.cell_count() {
            return Err(BadInput(format!(
                "--opening {} leaves no move to play on {} {rules} board: at most {}",
                args.opening,
                oxo_core::a_or_an(rules.rows()),
                rules.cell_count() - 1
            ))
            .into());
        }
        let opening = match &args.openings {
            None => arena::Opening::Random(args.opening),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let given = oxo_gomocup::read_openings(&text, rules)
                    .map_err(|why| BadInput(format!("--openings {}: {why}", path.display())))?;
                arena::Opening::Given(given.into())
            }
        };
        if args.plot.is_some() && args.players.is_empty() {
            return Err(BadInput(
                "--plot draws a round robin's table: name the players with --players".to_owned(),
            )
            .into());
        }
        if args.grade && !oxo_ai::Solver::can_solve(rules) {
            let why = if rules.is_exact() {
                "the solver plays k or more in a row, not exactly k".to_owned()
            } else {
                format!("the solver cannot solve {rules}")
            };
            return Err(BadInput(format!("--grade: {why}, so it cannot grade its moves")).into());
        }
        if args.psq.is_some() && !oxo_gomocup::psq::describes(rules) {
            return Err(BadInput(format!(
                "--psq: a .psq file describes five in a row on boards of 5 a side or more, \
                 not {rules}"
            ))
            .into());
        }
        let seed = super::seed_or_clock(args.seed);
        let players = match (&args.x, &args.o) {
            (Some(x), Some(o)) => vec![x.clone(), o.clone()],
            _ => args.players.clone(),
        };
        if args.model.is_some() && !players.contains(&ArenaPlayer::Strategy(StrategyKind::Learned))
        {
            return Err(BadInput(
                "--model is for a learned player, and none of the players is learned".to_owned(),
            )
            .into());
        }
        let catalog = std::sync::Arc::new(
            super::catalog(args.model.as_slice(), Some(freestyle))?.with_search_budget(args.budget),
        );
        let any_engine = players.iter().any(|p| matches!(p, ArenaPlayer::Brain(_)));
        if args.move_time.is_some() && !any_engine {
            return Err(BadInput(
                "--move-time is for brain:PATH players, and none of the players is one".to_owned(),
            )
            .into());
        }
        if args.match_time.is_some() && !any_engine {
            return Err(BadInput(
                "--match-time times brain:PATH engines only (oxo's own players play without a \
                 clock), and none of the players is one"
                    .to_owned(),
            )
            .into());
        }
        if args.engine_log.is_some() && !any_engine {
            return Err(BadInput(
                "--engine-log logs brain:PATH engines, and none of the players is one".to_owned(),
            )
            .into());
        }
        super::svg_path(args.plot.as_deref())?;
        // Two outputs on one file would write over each other, and a .psq
        // file in the --psq folder is where a game goes.
        let outputs = super::distinct_outputs(&[
            ("--records", args.records.as_deref()),
            ("--plot", args.plot.as_deref()),
            ("--engine-log", args.engine_log.as_deref()),
        ])?;
        for &(flag, path) in &outputs {
            let in_psq = args.psq.as_ref().is_some_and(|dir| {
                path.extension().is_some_and(|e| e == "psq")
                    && path.parent().is_some_and(|parent| {
                        super::same_file(
                            if parent.as_os_str().is_empty() {
                                Path::new(".")
                            } else {
                                parent
                            },
                            dir,
                        )
                    })
            });
            if in_psq {
                return Err(BadInput(format!(
                    "{flag} {} is a .psq file in the --psq folder, where the games go: give it another name",
                    path.display()
                ))
                .into());
            }
        }
        if let Some(path) = &args.engine_log {
            super::check_writable(path)?;
        }
        let match_time = args.match_time.map(Duration::from_millis);
        // Without --move-time, a move on a match clock may take all that
        // is left of it.
        let move_time = Duration::from_millis(
            args.move_time
                .or(args.match_time)
                .unwrap_or(DEFAULT_MOVE_TIME_MS),
        );
        let clock = match_time.map(|match_time| EngineClock {
            match_time,
            move_time: args.move_time.map(Duration::from_millis),
        });
        let mut entrants = Vec::new();
        // The players of a round robin so far, to refuse one named twice:
        // its rows and pairings could not be told apart. (A match may be a
        // player against itself: its sides tell them apart.)
        let mut seen: Vec<(Identity, String)> = Vec::new();
        let round_robin = !args.players.is_empty();
        for player in players {
            if round_robin {
                let identity = Identity::of(&player);
                let spelled = player.to_string();
                if let Some((_, before)) = seen.iter().find(|(other, _)| *other == identity) {
                    return Err(BadInput(twice(before, &spelled, &identity)).into());
                }
                seen.push((identity, spelled));
            }
            entrants.push(match player {
                ArenaPlayer::Strategy(kind) => {
                    // Built for the freestyle board; under --exact played
                    // as the brain plays exactly k.
                    catalog
                        .check(kind, freestyle)
                        .map_err(BadInput::from_error)?;
                    let catalog = std::sync::Arc::clone(&catalog);
                    Entrant::new(kind.name(), move |rules, seed| {
                        let player = catalog.build(kind, freestyle, seed)?;
                        Ok(if rules.is_exact() {
                            Box::new(oxo_gomocup::ExactlyK::new(player, freestyle))
                        } else {
                            player
                        })
                    })
                }
                ArenaPlayer::Brain(path) => {
                    if !oxo_gomocup::is_gomoku(rules) {
                        return Err(BadInput(format!(
                            "Gomocup engines play five in a row on boards of 5 a side or more, \
                             not {rules}: give a board of 5 a side or more (k is then 5 unless \
                             --k says otherwise)"
                        ))
                        .into());
                    }
                    // A path that cannot be run is a mistake, told now;
                    // an engine that fails later loses its games.
                    if let Some(why) = unrunnable(&path) {
                        return Err(BadInput(format!(
                            "brain:{}: cannot start {}: {why}",
                            path.display(),
                            path.display()
                        ))
                        .into());
                    }
                    // Run the file checked, not a program of that name on
                    // PATH (which is where a bare name would be looked up).
                    let path = if path.components().count() == 1 && path.is_relative() {
                        Path::new(".").join(path)
                    } else {
                        path
                    };
                    brain_entrant(path, move_time, match_time, engine_log.cloned())
                }
            });
        }
        if !args.players.is_empty() {
            if entrants.len() < 2 {
                return Err(BadInput::from_error(ArenaError::TooFewPlayers));
            }
            return Ok(Config::RoundRobin {
                config: tournament::Config {
                    rules,
                    players: entrants,
                    games: args.games,
                    seed,
                    threads,
                    opening,
                },
                plot: args.plot.clone(),
                clock,
            });
        }
        let [x, o]: [Entrant; 2] = entrants
            .try_into()
            .map_err(|_| BadInput("give --x and --o, or --players".to_owned()))?;
        Ok(Config::Match {
            config: arena::Config {
                rules,
                x,
                o,
                games: args.games,
                first: args.first.map(Player::from),
                seed,
                threads,
                opening,
            },
            grade: args.grade,
            clock,
        })
    }
}

/// The engine log of a run and its path, if any: finished (its queue
/// written, its file made even when nothing was logged) by
/// [`LogGuard::finish`], or, on a return before it, at least written when
/// dropped.
struct LogGuard(Option<(EngineLog, PathBuf)>);

impl LogGuard {
    fn log(&self) -> Option<&EngineLog> {
        self.0.as_ref().map(|(log, _)| log)
    }

    /// Write what is queued; make the file if nothing was (so that an
    /// earlier run's log is not taken for this one's).
    fn finish(&self) -> anyhow::Result<()> {
        let Some((log, path)) = &self.0 else {
            return Ok(());
        };
        let cannot = || format!("cannot write the engine log {}", path.display());
        log.finish().with_context(cannot)?;
        if !path.exists() {
            std::fs::File::create(path).with_context(cannot)?;
        }
        Ok(())
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if let Some((log, _)) = &self.0 {
            let _ = log.finish();
        }
    }
}

/// What makes two players the same: a strategy's kind, or an engine's
/// file, by its canonical path (so that `brain:./x` and `brain:x` are one).
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    Strategy(StrategyKind),
    Engine(PathBuf),
}

impl Identity {
    fn of(player: &ArenaPlayer) -> Identity {
        match player {
            ArenaPlayer::Strategy(kind) => Identity::Strategy(*kind),
            // A path that cannot be made canonical cannot be run either,
            // and is refused as such; as it is, it is still an identity.
            ArenaPlayer::Brain(path) => {
                Identity::Engine(std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()))
            }
        }
    }
}

/// The refusal of a round robin naming a player twice, spelled `before`
/// and then `now`.
fn twice(before: &str, now: &str, identity: &Identity) -> String {
    match identity {
        Identity::Engine(file) if before != now => format!(
            "--players names one engine twice: {before} and {now} are both {}; a round robin \
             has each player once",
            file.display()
        ),
        _ => format!("--players names {now} twice; a round robin has each player once"),
    }
}

/// Why `path` plainly cannot be run as a program, if it cannot: it is
/// missing, a directory or another thing than a file, or (on Unix) a file
/// nobody may execute.
fn unrunnable(path: &Path) -> Option<String> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some("no such file".into()),
        Err(e) => return Some(e.to_string()),
    };
    if metadata.is_dir() {
        return Some("it is a directory, not a program".to_owned());
    }
    if !metadata.is_file() {
        return Some("it is not a file".to_owned());
    }
    #[cfg(unix)]
    if std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o111 == 0 {
        return Some("the file is not executable (it has no execute permission)".to_owned());
    }
    None
}

/// A Gomocup engine at `path`, started for each game, with `move_time`
/// for each move and `match_time`, if given, for all its moves of a game
/// (see [`oxo_gomocup::manager`]), logging to `log` if given. An engine
/// that cannot start because the arena is stopping fails like any other:
/// the arena, stopped, does not count that game.
fn brain_entrant(
    path: PathBuf,
    move_time: Duration,
    match_time: Option<Duration>,
    log: Option<EngineLog>,
) -> Entrant {
    let name = format!("brain:{}", path.display());
    Entrant::external_placed(name.clone(), move |rules, _seed, place| {
        let logger = log
            .as_ref()
            .map(|log| log.engine(place.game, place.side, &name));
        oxo_gomocup::External::start(&path, rules, move_time, match_time, logger)
            .map(|engine| Box::new(engine) as Box<dyn Strategy>)
            .map_err(|detail| detail.to_string())
    })
}

/// The file of `--engine-log`, made at its first line (so that a run
/// refused before its games leaves none, and touches no file) and written
/// a line at a time, so that it can be followed as the games are played.
/// A run that logs nothing makes it empty at its end ([`LogGuard`]).
struct LogFile {
    path: PathBuf,
    file: Option<std::io::LineWriter<std::fs::File>>,
}

impl Write for LogFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.file.is_none() {
            self.file = Some(std::io::LineWriter::new(std::fs::File::create(&self.path)?));
        }
        self.file.as_mut().map_or(Ok(0), |file| file.write(bytes))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().map_or(Ok(()), Write::flush)
    }
}

/// Every move of the games `played` graded by the solver, game by game;
/// `None` if `stop` is set first.
fn grade_games(
    config: &arena::Config,
    played: &[arena::Played],
    status: &super::StatusLine,
    stop: &AtomicBool,
) -> anyhow::Result<Option<GradeSummary>> {
    let mut grader = GameGrader::new(config.rules).context("the solver cannot grade")?;
    let mut summary = GradeSummary::default();
    for (done, game) in played.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        status.bar(
            done as u64,
            played.len() as u64,
            "games graded",
            format_args!(""),
        );
        let graded = grader
            .grade(&game.start, &game.moves)
            .with_context(|| format!("cannot grade game {}", game.index))?;
        summary.add(&graded, game.winner);
    }
    Ok(Some(summary))
}

/// What the first signal did: which it was, and how many engines it
/// ended.
#[derive(Clone, Copy, Debug)]
struct Stopped {
    signal: Signal,
    ended: usize,
}

/// Listen for Ctrl-C and SIGTERM. The first sets `stop`, so that the
/// games under way end uncounted and the games finished are reported,
/// and ends every engine (each leads a process group of its own, which
/// the terminal's Ctrl-C does not reach); what it did is in the slot
/// returned, once `stop` is set. Another, [`SAME_STOP`] or more later,
/// exits at once, as the signal would have, with no results (for a move
/// that is long in coming), unless the results are being written by then
/// (`reporting`): they are not cut short by the first such signal, but a
/// writing stuck on a stalled pipe is by the next. No engine is left, as
/// none starts once they are ended.
fn stop_on_signal(
    stop: &Arc<AtomicBool>,
    engines: bool,
    reporting: &Arc<AtomicBool>,
) -> anyhow::Result<Arc<Mutex<Option<Stopped>>>> {
    let stopped = Arc::new(Mutex::new(None));
    let (flag, slot) = (Arc::clone(stop), Arc::clone(&stopped));
    let reporting = Arc::clone(reporting);
    let mut spared = false;
    let mut first_at = None;
    super::on_each_signal(move |signal| {
        let Some(first_at) = first_at else {
            first_at = Some(Instant::now());
            // Held while the engines are ended, so that the report, which
            // takes it, tells how many.
            let mut first = slot.lock().unwrap_or_else(PoisonError::into_inner);
            flag.store(true, Ordering::SeqCst);
            let ended = if engines {
                oxo_gomocup::manager::end_all()
            } else {
                0
            };
            *first = Some(Stopped { signal, ended });
            return;
        };
        if first_at.elapsed() < SAME_STOP {
            return;
        }
        if reporting.load(Ordering::SeqCst) && !spared {
            spared = true;
            return;
        }
        note!(
            "\noxo: stopped by a second signal, {}: no results",
            signal.name()
        );
        std::process::exit(i32::from(signal.exit_code()));
    })?;
    Ok(stopped)
}

/// The first signal's doing, if one came (`stop` is set), said on
/// standard error: `played` of `planned` games.
fn stopped_by(
    stop: &AtomicBool,
    stopped: &Mutex<Option<Stopped>>,
    engines: bool,
    played: u64,
    planned: u64,
) -> Option<Signal> {
    if !stop.load(Ordering::SeqCst) {
        return None;
    }
    // Set with `stop`, under this lock.
    let Stopped { signal, ended } = (*stopped.lock().unwrap_or_else(PoisonError::into_inner))?;
    let engines = if engines {
        let plural = if ended == 1 { "" } else { "s" };
        format!("; ended {ended} engine{plural}")
    } else {
        String::new()
    };
    note!(
        "oxo: stopped by {} after {played} of {}{engines}",
        signal.name(),
        render::count(planned, "game")
    );
    Some(signal)
}

fn arena_error(err: ArenaError) -> anyhow::Error {
    match err {
        ArenaError::Build(_) | ArenaError::TooFewPlayers => BadInput::from_error(err),
        // An engine that cannot even start is the path given: bad input.
        ArenaError::Start { .. } => BadInput::from_error(err),
        // --opening asked for more moves than leave a game to play.
        ArenaError::NoOpening { moves, .. } => BadInput(format!("--opening {moves}: {err}")).into(),
        // A given opening that cannot start a game on the board.
        ArenaError::BadOpening { .. } => BadInput(format!("--openings: {err}")).into(),
        other => other.into(),
    }
}

pub(super) fn run(args: &ArenaArgs) -> anyhow::Result<u8> {
    let status = super::StatusLine::new();
    let start = Instant::now();
    let engine_log = LogGuard(args.engine_log.as_ref().map(|path| {
        (
            EngineLog::new(Box::new(LogFile {
                path: path.clone(),
                file: None,
            })),
            path.clone(),
        )
    }));
    let config = Config::new(args, engine_log.log())?;
    // Said after the results, which a log that failed does not cost.
    let logged = || engine_log.finish();
    let engines = args
        .x
        .iter()
        .chain(&args.o)
        .chain(&args.players)
        .any(|p| matches!(p, ArenaPlayer::Brain(_)));
    let stop = Arc::new(AtomicBool::new(false));
    let reporting = Arc::new(AtomicBool::new(false));
    let stopped = stop_on_signal(&stop, engines, &reporting)?;
    let (signal, hopeless): (Option<Signal>, Vec<String>) = match config {
        Config::Match {
            config,
            grade,
            clock,
        } => {
            let mut recorder =
                Recorder::open(args.records.as_deref(), args.psq.as_deref(), config.games)?;
            let progress = |done| status.bar(done, config.games, "games", format_args!(""));
            let mut played = Vec::new();
            let results = if grade || recorder.keeps() {
                arena::run_recorded(&config, &stop, progress, |game| {
                    recorder.record(&game);
                    if grade {
                        played.push(game);
                    }
                })
            } else {
                arena::run(&config, &stop, progress)
            }
            .map_err(arena_error)?;
            let kept = recorder.finish();
            let logged = logged();
            // The time of the games, not of their grading.
            let elapsed = start.elapsed();
            let grades = if grade && !stop.load(Ordering::SeqCst) {
                grade_games(&config, &played, &status, &stop)?
            } else {
                None
            };
            status.clear();
            reporting.store(true, Ordering::SeqCst);
            let signal = stopped_by(&stop, &stopped, engines, results.games, config.games);
            let mut out = super::stdout();
            if args.json {
                let json =
                    render::arena::json(&config, &results, grades.as_ref(), clock, elapsed, signal);
                writeln!(out, "{json}")?;
            } else {
                write!(
                    out,
                    "{}",
                    render::arena::table(&config, &results, clock, elapsed, signal)
                )?;
                match (&grades, signal) {
                    (Some(grades), _) => write!(out, "{}", render::arena::grades(&config, grades))?,
                    (None, Some(signal)) if grade => {
                        write!(out, "{}", render::arena::not_graded(signal))?;
                    }
                    (None, _) => {}
                }
            }
            // After the results, which a failed record does not cost.
            kept?;
            logged?;
            let hopeless = results
                .sides_never_moving()
                .into_iter()
                .map(|side| {
                    let name = if side == Player::X {
                        &config.x
                    } else {
                        &config.o
                    }
                    .name();
                    never_moved(name, results.games, &results.forfeits)
                })
                .collect();
            (signal, hopeless)
        }
        Config::RoundRobin {
            config,
            plot,
            clock,
        } => {
            if let Some(path) = &plot {
                super::check_writable(path)?;
            }
            let total = config.total_games();
            let mut recorder = Recorder::open(args.records.as_deref(), args.psq.as_deref(), total)?;
            let progress = |done| status.bar(done, total, "games", format_args!(""));
            let results = if recorder.keeps() {
                tournament::run_recorded(&config, &stop, progress, |game| recorder.record(&game))
            } else {
                tournament::run(&config, &stop, progress)
            }
            .map_err(arena_error)?;
            let kept = recorder.finish();
            let logged = logged();
            status.clear();
            reporting.store(true, Ordering::SeqCst);
            let elapsed = start.elapsed();
            let signal = stopped_by(&stop, &stopped, engines, results.games(), total);
            // The plot before the results, so a reader of the results that
            // goes away (`| head`) does not cost the file; the results are
            // printed even when the plot cannot be written (no games are
            // lost), and then the plot's failure ends the command.
            let plotted = plot.map_or(Ok(()), |path| {
                super::write_file(
                    &path,
                    render::tournament::svg(&config, &results, signal).as_bytes(),
                )
            });
            let mut out = super::stdout();
            let printed = if args.json {
                writeln!(
                    out,
                    "{}",
                    render::tournament::json(&config, &results, clock, elapsed, signal)
                )
            } else {
                write!(
                    out,
                    "{}",
                    render::tournament::table(&config, &results, clock, elapsed, signal)
                )
            };
            plotted?;
            printed?;
            kept?;
            logged?;
            let hopeless = results
                .players_never_moving(&config)
                .into_iter()
                .map(|(i, games)| never_moved(config.players[i].name(), games, &results.forfeits))
                .collect();
            (signal, hopeless)
        }
    };
    // Stopped by a signal: its exit code, after the results so far.
    if let Some(signal) = signal {
        return Ok(signal.exit_code());
    }
    for said in &hopeless {
        note!("oxo: {said}");
    }
    Ok(if hopeless.is_empty() {
        exit::SUCCESS
    } else {
        exit::ENGINE_NEVER_MOVED
    })
}

/// What to say of an engine, `name`, that never moved in its `games`: the
/// first reason it lost one.
fn never_moved(name: &str, games: u64, forfeits: &[arena::Forfeit]) -> String {
    let why = forfeits
        .iter()
        .find(|f| f.player == name)
        .map_or(String::new(), |f| format!(" (the first: {})", f.reason));
    let games = if games == 1 {
        "its one game".to_owned()
    } else {
        format!("any of its {games} games")
    };
    format!(
        "{name} made no move in {games}{why}: check that the engine runs (--engine-log FILE \
         shows what it said); the results measure nothing of it"
    )
}
