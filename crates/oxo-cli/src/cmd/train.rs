//! `oxo train`: a learned player by self-play, with its learning curve.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use oxo_ai::curve;
use oxo_cli::exit;
use oxo_cli::render::train as render;
use oxo_cli::signals::{SAME_STOP, Signal};
use oxo_core::Rules;

use crate::args::TrainArgs;
use crate::failure::BadInput;

/// Episodes on 3×3 when neither --episodes nor --minutes is given: enough
/// for perfect play there, in a few seconds.
const TIC_TAC_TOE_EPISODES: u64 = 150_000;

/// `--search-games` when not given.
const DEFAULT_SEARCH_GAMES: u64 = 1000;

/// How long --minutes measures training speed before sizing the run.
const SAMPLE: Duration = Duration::from_secs(2);

/// `oxo train`, validated.
#[derive(Debug)]
struct Config {
    rules: Rules,
    episodes: Episodes,
    seed: u64,
    out: PathBuf,
    plot: Option<PathBuf>,
    curve: Option<PathBuf>,
    checkpoints: u32,
    eval_games: u32,
    grade_positions: usize,
    search_rounds: u32,
    search_games: u64,
    threads: usize,
}

/// How long to train.
#[derive(Clone, Copy, Debug)]
enum Episodes {
    Count(u64),
    Budget(Duration),
}

impl Config {
    fn new(args: &TrainArgs) -> anyhow::Result<Config> {
        let rules = super::rules(&args.board)?;
        let episodes = match (args.episodes, args.minutes) {
            (Some(n), _) => Episodes::Count(n),
            (None, Some(m)) => Episodes::Budget(Duration::from_secs_f64(m * 60.0)),
            (None, None) if rules == Rules::TIC_TAC_TOE => Episodes::Count(TIC_TAC_TOE_EPISODES),
            (None, None) => Episodes::Budget(Duration::from_secs(60)),
        };
        let searches = oxo_ai::learned::Scheme::for_rules(rules).translation_invariant();
        let search_rounds = match args.search_rounds {
            Some(n) if n > 0 && !searches => {
                return Err(BadInput(format!(
                    "--search-rounds: the model for {rules} does not play inside alphabeta's search (only those for k = 5 and 6 do), so searched self-play does not apply"
                ))
                .into());
            }
            Some(n) => n,
            None => oxo_ai::learned::RefitConfig::default_rounds(rules),
        };
        // Both are for searched self-play only.
        if search_rounds == 0 {
            let given = [
                ("--search-games", args.search_games.is_some()),
                ("--threads", args.threads.is_some()),
            ];
            if let Some((name, _)) = given.iter().find(|(_, given)| *given) {
                let why = if searches {
                    format!(
                        "no rounds of it run here (--search-rounds is 0 for {rules} unless given)"
                    )
                } else {
                    format!(
                        "the model for {rules} does not play inside alphabeta's search (only those for k = 5 and 6 do)"
                    )
                };
                return Err(
                    BadInput(format!("{name} is for searched self-play, and {why}")).into(),
                );
            }
        }
        let threads = super::threads(args.threads)?;
        Ok(Config {
            rules,
            episodes,
            seed: args.seed,
            out: args.out.clone(),
            plot: args.plot.clone(),
            curve: args.curve.clone(),
            checkpoints: args.checkpoints,
            eval_games: args.eval_games,
            grade_positions: args.grade_positions,
            search_rounds,
            search_games: args.search_games.unwrap_or(DEFAULT_SEARCH_GAMES),
            threads,
        })
    }
}

pub(super) fn run(args: &TrainArgs) -> anyhow::Result<u8> {
    let config = Config::new(args)?;
    super::svg_path(config.plot.as_deref())?;
    let outputs = super::distinct_outputs(&[
        ("--out", Some(config.out.as_path())),
        ("--curve", config.curve.as_deref()),
        ("--plot", config.plot.as_deref()),
    ])?;
    for (_, path) in &outputs {
        super::check_writable(path)?;
    }
    let status = super::StatusLine::new();
    let stop = stop_on_signal(status.is_shown())?;
    let origin = Instant::now();
    let clock = move || origin.elapsed();
    let episodes = match config.episodes {
        Episodes::Count(n) => n,
        Episodes::Budget(budget) => {
            status.show(format_args!("measuring training speed..."));
            let n =
                curve::episodes_for(config.rules, config.seed, budget, SAMPLE.min(budget), clock);
            // Under a minute in seconds: `--minutes 0.01` is 0.6 s, not
            // "0.0 min".
            let time = if budget < Duration::from_secs(60) {
                format!("{:.1} s", budget.as_secs_f64())
            } else {
                format!("{:.1} min", budget.as_secs_f64() / 60.0)
            };
            // Looked for before the count is said: a stop that comes
            // after it stops the training, and saves what it made.
            if let Some(signal) = stop.signal() {
                note!(
                    "oxo train: stopped by {} while measuring the training speed: nothing written",
                    signal.name()
                );
                return Ok(signal.exit_code());
            }
            note!(
                "{}oxo train: {} fit in {time} here (rerun with --episodes {n} --seed {} for the same model)",
                if status.is_shown() { "\r\x1b[K" } else { "" },
                oxo_cli::render::count(n, "episode"),
                config.seed
            );
            n
        }
    };
    let run_config = curve::Config {
        rules: config.rules,
        episodes,
        seed: config.seed,
        checkpoints: config.checkpoints,
        eval_games: config.eval_games,
        grade_positions: config.grade_positions,
        search_rounds: config.search_rounds,
        search_games: config.search_games,
        threads: config.threads,
        stop: Some(Arc::clone(&stop.raised)),
    };
    let searched = u64::from(config.search_rounds) * config.search_games;
    let mut search_start = None;
    // The games played when a stop was heard.
    let mut stopped_at = None;
    let mut drawn = None;
    let (model, points) = curve::run(
        &run_config,
        clock,
        |done, trained| {
            if stop.signal().is_some() {
                stopped_at = Some(done);
                return ControlFlow::Break(());
            }
            // Reports can come thousands of times a second: the bar is
            // drawn ten times a second at most.
            if drawn.is_some_and(|at| trained < at + REDRAW) && done != episodes {
                return ControlFlow::Continue(());
            }
            drawn = Some(trained);
            if done <= episodes {
                let rate = done as f64 / trained.as_secs_f64().max(1e-3);
                let left = (episodes.saturating_sub(done)) as f64 / rate.max(1.0);
                status.bar(
                    done,
                    episodes,
                    "episodes",
                    format_args!(", {rate:.0}/s, {left:.0} s left"),
                );
            } else {
                // Searched games are much slower than episodes: their own bar.
                let games = done - episodes;
                let since = trained.saturating_sub(*search_start.get_or_insert(trained));
                let rate = games as f64 / since.as_secs_f64().max(1e-3);
                let left = (searched.saturating_sub(games)) as f64 / rate.max(1e-3);
                status.bar(
                    games,
                    searched,
                    "searched self-play games",
                    format_args!(", {rate:.0}/s, {left:.0} s left"),
                );
            }
            ControlFlow::Continue(())
        },
        // Measuring the model takes a while, outside the time left.
        |i, n| status.show(format_args!("evaluating checkpoint {i} of {n}")),
        |_| {},
    )
    .context("training failed")?;
    status.clear();
    let mut bytes = Vec::new();
    model.save(&mut bytes).context("cannot encode the model")?;
    // From here a second signal waits for the files: each is written
    // whole or not at all, but the set must not be cut short.
    stop.writing();
    super::write_file(&config.out, &bytes)?;
    if let Some(path) = &config.curve {
        super::write_file(path, render::csv(&points).as_bytes())?;
    }
    if let Some(path) = &config.plot {
        super::write_file(
            path,
            render::svg(config.rules, config.seed, &points).as_bytes(),
        )?;
    }
    // What the model saved learnt from: a stop in the searched rounds
    // keeps the rounds finished, each of which ends in a checkpoint.
    let (played, searched) = match stopped_at {
        Some(done) if done <= episodes => (done, 0),
        _ => (episodes, points.last().map_or(0, |p| p.searched)),
    };
    let mut out = super::stdout();
    let trained = points.last().map_or(0.0, |p| p.seconds);
    let planned_searched = u64::from(config.search_rounds) * config.search_games;
    let what = match (stopped_at, searched) {
        (None, 0) => format!("{episodes} self-play episodes"),
        (None, games) => {
            format!("{episodes} self-play episodes and {games} searched self-play games")
        }
        (Some(done), _) if done == episodes && planned_searched > 0 => format!(
            "{episodes} self-play episodes, then stopped before the {}",
            oxo_cli::render::count(planned_searched, "searched self-play game")
        ),
        (Some(done), _) if done <= episodes => {
            format!("stopped after {played} of {episodes} self-play episodes")
        }
        (Some(_), games) => format!(
            "{episodes} self-play episodes, then stopped after {games} of {planned_searched} searched self-play games (the rounds finished)"
        ),
    };
    let time = match stopped_at {
        None => format!(" in {trained:.1} s of training"),
        Some(_) => String::new(),
    };
    writeln!(
        out,
        "{}: {what} (seed {}){time}; model saved to {} ({} bytes)",
        config.rules,
        config.seed,
        config.out.display(),
        bytes.len()
    )?;
    if points.is_empty() {
        writeln!(
            out,
            "learning curve: no checkpoint was reached before the stop"
        )?;
    } else {
        writeln!(
            out,
            "learning curve{} (the learned player's wins/draws/losses over {} games a seat; value kept: its moves that keep the perfect-play value{}):",
            if stopped_at.is_some() {
                " to the stop"
            } else {
                ""
            },
            config.eval_games,
            match points.last().and_then(|p| p.graded) {
                Some(graded) => format!(", over {} positions", graded.graded),
                None if config.grade_positions == 0 => {
                    ", not graded here (--grade-positions 0)".to_owned()
                }
                None => ", graded on boards of up to 25 cells".to_owned(),
            }
        )?;
        write!(out, "{}", render::table(&points))?;
    }
    if let (Some(signal), None) = (stop.signal(), stopped_at) {
        // The stop came after the last report: the run was whole.
        note!(
            "oxo train: stopped by {} as training ended: the whole run's model is saved",
            signal.name()
        );
        return Ok(signal.exit_code());
    }
    if let (Some(signal), Some(done)) = (stop.signal(), stopped_at) {
        let again = if done < episodes {
            "its exploration and step size were planned for the whole run, so no shorter run \
             makes it again"
                .to_owned()
        } else {
            format!(
                "the one --search-rounds {} makes",
                searched / config.search_games.max(1)
            )
        };
        note!(
            "oxo train: stopped by {}: the model trained so far is saved; {again}",
            signal.name()
        );
        return Ok(signal.exit_code());
    }
    Ok(exit::SUCCESS)
}

/// How often the progress bar is drawn at most.
const REDRAW: Duration = Duration::from_millis(100);

/// The first Ctrl-C or SIGTERM, once it has come, and whether the files
/// are being written.
#[derive(Clone, Debug, Default)]
struct Stop {
    first: Arc<Mutex<Option<Signal>>>,
    /// Raised with `first`: ends an episode at its next move (on a large
    /// board one can take minutes).
    raised: Arc<AtomicBool>,
    /// Held by a second signal's handler while it decides to exit and
    /// exits, so that the files are never begun and then cut short.
    writing: Arc<Mutex<bool>>,
}

impl Stop {
    fn signal(&self) -> Option<Signal> {
        *self.first.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The files are being written: a second signal no longer exits.
    fn writing(&self) {
        *self.writing.lock().unwrap_or_else(PoisonError::into_inner) = true;
    }
}

/// Listen for Ctrl-C and SIGTERM: the first stops training at its next
/// report (after a checkpoint being measured), and the model so far is
/// saved; another, [`SAME_STOP`] or more later, exits at once, as the
/// signal would have, writing nothing (unless the files are being
/// written by then: they are finished, which takes a moment). `bar`: a
/// progress bar is drawn on standard error, to be cleared before a note.
fn stop_on_signal(bar: bool) -> anyhow::Result<Stop> {
    let stop = Stop::default();
    let slot = stop.clone();
    let mut first_at = None;
    super::on_each_signal(move |signal| {
        let Some(first_at) = first_at else {
            first_at = Some(Instant::now());
            *slot.first.lock().unwrap_or_else(PoisonError::into_inner) = Some(signal);
            slot.raised.store(true, Ordering::Relaxed);
            note!(
                "{}oxo train: stopping on {} (Ctrl-C again to quit at once without saving)",
                if bar { "\r\x1b[K" } else { "" },
                signal.name()
            );
            return;
        };
        let writing = slot.writing.lock().unwrap_or_else(PoisonError::into_inner);
        if first_at.elapsed() >= SAME_STOP && !*writing {
            note!(
                "\noxo train: stopped by a second signal, {}: nothing written",
                signal.name()
            );
            std::process::exit(i32::from(signal.exit_code()));
        }
    })?;
    Ok(stop)
}
