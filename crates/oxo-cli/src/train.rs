//! `oxo train`: a learned player trained by self-play, with a learning
//! curve.
//!
//! Training is `oxo_ai::learned::train`; this module adds what a person
//! training a model wants to watch: every so often (a checkpoint) the model
//! so far plays `random` and `rules` in both seats, and on boards the solver
//! answers quickly its moves are graded against perfect play (the share of
//! moves that keep the position's true value). The checkpoints form the
//! learning curve, written as CSV and drawn as SVG.
//!
//! Everything here is deterministic given the seed and the episode count;
//! the clock is passed in and only measures.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::time::Duration;

use oxo_ai::learned::{self, MatchRecord, TrainConfig, ValueShare};
use oxo_ai::{Learned, Model, Random, RuleBased, Solver, StrongSolution, Value};
use oxo_core::{Game, Rules};

/// Boards up to this many cells have their moves graded by the solver.
pub const GRADE_MAX_CELLS: usize = 25;

/// Boards up to this many cells are graded on every reachable position
/// (3×3: 4,520), others on positions from random games.
const GRADE_ALL_MAX_CELLS: usize = 9;

/// Memory for the grading solver's table.
const GRADE_TABLE_BYTES: usize = 64 << 20;

/// What to train.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The board.
    pub rules: Rules,
    /// Self-play games.
    pub episodes: u64,
    /// Seed for every random choice.
    pub seed: u64,
    /// Checkpoints on the learning curve (the last one at the end).
    pub checkpoints: u32,
    /// Games a seat against each of `random` and `rules` at a checkpoint.
    pub eval_games: u32,
    /// Positions from random games graded at a checkpoint (boards over
    /// 9 cells and up to [`GRADE_MAX_CELLS`]); 0 turns grading off.
    pub grade_positions: usize,
    /// Rounds of searched self-play after the episodes
    /// ([`learned::refit`]), for models that play inside alphabeta's
    /// search; 0 for none.
    pub search_rounds: u32,
    /// Games a round of searched self-play.
    pub search_games: u64,
    /// Searched self-play games played at once.
    pub threads: usize,
}

/// One point of the learning curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checkpoint {
    /// Self-play episodes so far.
    pub episodes: u64,
    /// Searched self-play games so far (after the episodes).
    pub searched: u64,
    /// Training time so far (checkpoints not counted).
    pub seconds: f64,
    /// The model's games against `random`.
    pub vs_random: MatchRecord,
    /// The model's games against `rules`.
    pub vs_rules: MatchRecord,
    /// Moves graded against perfect play, where the board allows it.
    pub graded: Option<ValueShare>,
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A learned player could not be built for the board (a bug).
    #[error(transparent)]
    Model(#[from] oxo_ai::ModelError),
    /// A strategy misplayed during a checkpoint match (a bug).
    #[error(transparent)]
    PlayOut(#[from] oxo_ai::PlayOutError),
    /// The solver refused the board it was to grade on.
    #[error(transparent)]
    Solve(#[from] oxo_ai::SolveError),
    /// Searched self-play could not run (a bug: it is only asked of models
    /// that search).
    #[error(transparent)]
    Refit(#[from] learned::RefitError),
}

/// Grades the learned player's moves against perfect play, remembering
/// every value it has looked up (the positions repeat at every checkpoint).
struct Grader {
    positions: Vec<Game>,
    strong: Option<StrongSolution>,
    solver: Option<Solver>,
    known: HashMap<Vec<Option<oxo_core::Player>>, Option<Value>>,
}

impl Grader {
    fn new(config: &Config) -> Result<Option<Grader>, TrainError> {
        let rules = config.rules;
        let cells = rules.cell_count();
        if config.grade_positions == 0 || cells > GRADE_MAX_CELLS || !Solver::can_solve(rules) {
            return Ok(None);
        }
        Ok(Some(if cells <= GRADE_ALL_MAX_CELLS {
            Grader {
                positions: learned::reachable_positions(rules),
                strong: Some(StrongSolution::compute(rules)?),
                solver: None,
                known: HashMap::new(),
            }
        } else {
            Grader {
                positions: learned::sample_positions(
                    rules,
                    config.grade_positions,
                    config.seed ^ 0x5EED,
                ),
                strong: None,
                solver: Some(Solver::new(rules, GRADE_TABLE_BYTES)?),
                known: HashMap::new(),
            }
        }))
    }

    fn grade(&mut self, model: &Model, seed: u64) -> Result<ValueShare, TrainError> {
        let Grader {
            positions,
            strong,
            solver,
            known,
        } = self;
        Ok(learned::value_keeping_share(
            model,
            positions,
            seed,
            |game| match (strong.as_ref(), solver.as_mut()) {
                (Some(strong), _) => strong.get(game).map(|e| e.value),
                (None, Some(solver)) => *known
                    .entry(game.cells().to_vec())
                    .or_insert_with(|| solver.value(game).ok()),
                (None, None) => None,
            },
        )?)
    }
}

/// The episode counts at which to take checkpoints: `count` of them,
/// spaced evenly on a log scale from a thousandth of the run to its end
/// (learning is fastest early), each a multiple of the first.
#[must_use]
pub fn checkpoint_schedule(episodes: u64, count: u32) -> Vec<u64> {
    let first = (episodes / 1000).max(1);
    if count <= 1 || episodes <= first {
        return vec![episodes];
    }
    let ratio = episodes as f64 / first as f64;
    let mut out: Vec<u64> = (0..count)
        .map(|i| {
            let at = first as f64 * ratio.powf(f64::from(i) / f64::from(count - 1));
            ((at / first as f64).round() as u64 * first).clamp(first, episodes)
        })
        .collect();
    *out.last_mut().expect("count > 1") = episodes;
    out.dedup();
    out
}

/// Train as `config` says: the self-play episodes, then the rounds of
/// searched self-play. `clock` reads a monotonic clock (for the figures
/// only); `on_progress` hears how many self-play games (episodes, then
/// searched games after them) have been played, every thousandth of the
/// episodes and after every searched game; `on_checkpoint` gets each point of the curve as it is
/// measured. Returns the model and the whole curve.
///
/// # Errors
/// Only on a bug: a player that misplays, or a solver that refuses the
/// board it said it could solve.
pub fn run(
    config: &Config,
    mut clock: impl FnMut() -> Duration,
    mut on_progress: impl FnMut(u64, Duration),
    mut on_checkpoint: impl FnMut(&Checkpoint),
) -> Result<(Model, Vec<Checkpoint>), TrainError> {
    let mut train_config = TrainConfig::new(config.rules, config.episodes, config.seed);
    let schedule = checkpoint_schedule(config.episodes, config.checkpoints);
    train_config.report_every = schedule[0];
    let mut next = 0;
    let mut grader = Grader::new(config)?;
    let mut curve = Vec::new();
    let mut failure = None;
    let start = clock();
    let mut paused = Duration::ZERO;
    let model = learned::train(&train_config, |progress, model| {
        let trained = clock().saturating_sub(start).saturating_sub(paused);
        on_progress(progress.episodes, trained);
        let last = progress.episodes >= config.episodes;
        if next < schedule.len() && (progress.episodes >= schedule[next] || last) {
            while next < schedule.len() && schedule[next] <= progress.episodes {
                next += 1;
            }
            let before = clock();
            let at = (progress.episodes, 0);
            let point = checkpoint(config, model, grader.as_mut(), at, trained);
            if keep(point, &mut curve, &mut failure, &mut on_checkpoint).is_break() {
                return ControlFlow::Break(());
            }
            paused += clock().saturating_sub(before);
        }
        ControlFlow::Continue(())
    });
    if let Some(err) = failure {
        return Err(err);
    }
    if config.search_rounds == 0 || !model.scheme().translation_invariant() {
        return Ok((model, curve));
    }
    let mut refit_config = learned::RefitConfig::new(config.search_rounds, config.seed);
    refit_config.games = config.search_games;
    refit_config.threads = config.threads;
    let episodes = config.episodes;
    let mut searched = 0;
    // The clock is shared by both callbacks: each borrows it in turn.
    let clock = std::cell::RefCell::new(clock);
    let paused = std::cell::Cell::new(paused);
    let model = learned::refit(
        &model,
        &refit_config,
        |games| {
            let trained = (clock.borrow_mut())()
                .saturating_sub(start)
                .saturating_sub(paused.get());
            on_progress(episodes + games, trained);
        },
        |_, model| {
            searched += refit_config.games;
            let before = (clock.borrow_mut())();
            let trained = before.saturating_sub(start).saturating_sub(paused.get());
            let at = (episodes, searched);
            let point = checkpoint(config, model, grader.as_mut(), at, trained);
            keep(point, &mut curve, &mut failure, &mut on_checkpoint)?;
            paused.set(paused.get() + (clock.borrow_mut())().saturating_sub(before));
            ControlFlow::Continue(())
        },
    )?;
    if let Some(err) = failure {
        return Err(err);
    }
    Ok((model, curve))
}

/// Add a measured checkpoint to the curve and tell `on_checkpoint`, or
/// keep the failure and stop.
fn keep(
    point: Result<Checkpoint, TrainError>,
    curve: &mut Vec<Checkpoint>,
    failure: &mut Option<TrainError>,
    on_checkpoint: &mut impl FnMut(&Checkpoint),
) -> ControlFlow<()> {
    match point {
        Ok(point) => {
            on_checkpoint(&point);
            curve.push(point);
            ControlFlow::Continue(())
        }
        Err(err) => {
            *failure = Some(err);
            ControlFlow::Break(())
        }
    }
}

/// Positions a move searched by big-board models (those that search with
/// alphabeta) in the learning curve's matches: a light search, so that
/// measuring costs little beside training; the player as shipped searches
/// [`oxo_ai::AlphaBeta::DEFAULT_BUDGET`].
pub const CURVE_NODES: u64 = 5_000;

fn checkpoint(
    config: &Config,
    model: &Model,
    grader: Option<&mut Grader>,
    (episodes, searched): (u64, u64),
    trained: Duration,
) -> Result<Checkpoint, TrainError> {
    let rules = config.rules;
    let seed = config.seed;
    let mut me = Learned::new(model.clone(), rules, seed)?.with_budget(CURVE_NODES);
    let vs_random = learned::play_match(
        rules,
        &mut me,
        &mut Random::new(seed ^ 1),
        config.eval_games,
    )?;
    let vs_rules = learned::play_match(
        rules,
        &mut me,
        &mut RuleBased::new(seed ^ 2),
        config.eval_games,
    )?;
    let graded = match grader {
        Some(grader) => Some(grader.grade(model, seed)?),
        None => None,
    };
    Ok(Checkpoint {
        episodes,
        searched,
        seconds: trained.as_secs_f64(),
        vs_random,
        vs_rules,
        graded,
    })
}

/// How many episodes fit in `budget`, measured by training for `sample`
/// first (the run is then sized up front, so its schedules of exploration
/// and step size play out whole, and it can be repeated exactly with
/// `--episodes`).
pub fn episodes_for(
    rules: Rules,
    seed: u64,
    budget: Duration,
    sample: Duration,
    mut clock: impl FnMut() -> Duration,
) -> u64 {
    let mut probe = TrainConfig::new(rules, u64::MAX / 2, seed);
    probe.report_every = 50;
    let start = clock();
    let mut done = 0;
    let mut spent = Duration::ZERO;
    learned::train(&probe, |progress, _| {
        done = progress.episodes;
        spent = clock().saturating_sub(start);
        if spent >= sample {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let per_second = done as f64 / spent.as_secs_f64().max(1e-3);
    ((per_second * budget.as_secs_f64()) as u64).max(100)
}

fn wdl(r: &[u32; 3]) -> String {
    format!("{}/{}/{}", r[0], r[1], r[2])
}

/// The curve as a table for a terminal: results are wins/draws/losses of
/// the learned player.
#[must_use]
pub fn table(points: &[Checkpoint]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>10} {:>8} {:>8}  {:>15} {:>15}  {:>15} {:>15}  {:>10}",
        "episodes",
        "searched",
        "seconds",
        "random: as X",
        "as O",
        "rules: as X",
        "as O",
        "value kept"
    );
    for p in points {
        let graded = p
            .graded
            .map_or("-".to_owned(), |g| format!("{:.1}%", 100.0 * g.share()));
        let _ = writeln!(
            out,
            "{:>10} {:>8} {:>8.1}  {:>15} {:>15}  {:>15} {:>15}  {:>10}",
            p.episodes,
            p.searched,
            p.seconds,
            wdl(&p.vs_random.as_x),
            wdl(&p.vs_random.as_o),
            wdl(&p.vs_rules.as_x),
            wdl(&p.vs_rules.as_o),
            graded
        );
    }
    out
}

/// The curve as CSV, one row a checkpoint.
#[must_use]
pub fn csv(points: &[Checkpoint]) -> String {
    let mut out = String::from(
        "episodes,searched,seconds,random_x_wins,random_x_draws,random_x_losses,random_o_wins,random_o_draws,random_o_losses,rules_x_wins,rules_x_draws,rules_x_losses,rules_o_wins,rules_o_draws,rules_o_losses,graded,kept\n",
    );
    for p in points {
        let _ = write!(out, "{},{},{:.3}", p.episodes, p.searched, p.seconds);
        for r in [
            p.vs_random.as_x,
            p.vs_random.as_o,
            p.vs_rules.as_x,
            p.vs_rules.as_o,
        ] {
            let _ = write!(out, ",{},{},{}", r[0], r[1], r[2]);
        }
        match p.graded {
            Some(g) => {
                let _ = writeln!(out, ",{},{}", g.graded, g.kept);
            }
            None => out.push_str(",,\n"),
        }
    }
    out
}

/// Points scored (a win 1, a draw ½) over games, in percent.
fn score(r: &MatchRecord) -> f64 {
    let games = f64::from(r.games().max(1));
    100.0 * (f64::from(r.as_x[0] + r.as_o[0]) + f64::from(r.as_x[1] + r.as_o[1]) / 2.0) / games
}

/// Games not lost, in percent.
fn unbeaten(r: &MatchRecord) -> f64 {
    100.0 * f64::from(r.games() - r.losses()) / f64::from(r.games().max(1))
}

/// A line on the plot: its name, colour, dash pattern and value at a point.
type Series = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn(&Checkpoint) -> Option<f64>>,
);

/// The curve drawn: percentages against episodes.
#[must_use]
pub fn svg(rules: Rules, seed: u64, points: &[Checkpoint]) -> String {
    let (left, top, width, height) = (70.0, 50.0, 640.0, 320.0);
    // Episodes on a log scale: learning is fastest early.
    // Searched games count after the episodes.
    let games = |p: &Checkpoint| p.episodes + p.searched;
    let lo = points.iter().map(games).min().unwrap_or(1).max(1) as f64;
    let hi = (points.iter().map(games).max().unwrap_or(1) as f64).max(lo * 10.0);
    let x = |episodes: u64| {
        left + width * ((episodes.max(1) as f64).log10() - lo.log10()) / (hi.log10() - lo.log10())
    };
    let y = |percent: f64| top + height * (1.0 - percent / 100.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" font-family="sans-serif" font-size="13">"##,
        left + width + 260.0,
        top + height + 60.0
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#fff"/><text x="{left:.0}" y="28" font-size="16" font-weight="bold">Learning curve: {rules} (seed {seed})</text>"##
    );
    let _ = writeln!(
        out,
        r##"<rect x="{left:.0}" y="{top:.0}" width="{width:.0}" height="{height:.0}" fill="#f6f8fa" stroke="#ccc"/>"##
    );
    for percent in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            out,
            r##"<line x1="{left:.0}" y1="{0:.1}" x2="{1:.0}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.0}" y="{3:.1}" text-anchor="end">{percent:.0}%</text>"##,
            y(percent),
            left + width,
            left - 8.0,
            y(percent) + 4.0
        );
    }
    let mut tick = 10f64.powf(lo.log10().ceil());
    while tick <= hi {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{1:.0}" x2="{0:.1}" y2="{2:.0}" stroke="#ddd"/><text x="{0:.1}" y="{3:.0}" text-anchor="middle">{tick}</text>"##,
            x(tick as u64),
            top,
            top + height,
            top + height + 20.0
        );
        tick *= 10.0;
    }
    let _ = writeln!(
        out,
        r##"<text x="{:.0}" y="{:.0}" text-anchor="middle">{}</text>"##,
        left + width / 2.0,
        top + height + 44.0,
        if points.iter().any(|p| p.searched > 0) {
            "self-play games, the searched ones after the episodes (log scale)"
        } else {
            "self-play episodes (log scale)"
        }
    );
    // Colour-blind-safe colours (Okabe–Ito), each series with its own dash.
    let series: [Series; 4] = [
        (
            "unbeaten vs random",
            "#0072B2",
            "",
            Box::new(|p| Some(unbeaten(&p.vs_random))),
        ),
        (
            "unbeaten vs rules",
            "#D55E00",
            "6 3",
            Box::new(|p| Some(unbeaten(&p.vs_rules))),
        ),
        (
            "score vs rules",
            "#CC79A7",
            "2 3",
            Box::new(|p| Some(score(&p.vs_rules))),
        ),
        (
            "moves keeping the value",
            "#009E73",
            "10 4 2 4",
            Box::new(|p| p.graded.map(|g| 100.0 * g.share())),
        ),
    ];
    let mut legend_y = top + 10.0;
    for (name, colour, dash, value) in &series {
        let path: Vec<String> = points
            .iter()
            .filter_map(|p| value(p).map(|v| format!("{:.1},{:.1}", x(games(p)), y(v))))
            .collect();
        if path.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            r##"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/>"##,
            path.join(" ")
        );
        let _ = writeln!(
            out,
            r##"<line x1="{0:.0}" y1="{1:.0}" x2="{2:.0}" y2="{1:.0}" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/><text x="{3:.0}" y="{4:.0}">{name}</text>"##,
            left + width + 14.0,
            legend_y,
            left + width + 44.0,
            left + width + 50.0,
            legend_y + 4.0
        );
        legend_y += 22.0;
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(episodes: u64) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            episodes,
            seed: 3,
            checkpoints: 4,
            eval_games: 50,
            grade_positions: 100,
            search_rounds: 0,
            search_games: 1,
            threads: 1,
        }
    }

    fn fake_clock() -> impl FnMut() -> Duration {
        let mut t = Duration::ZERO;
        move || {
            t += Duration::from_millis(1);
            t
        }
    }

    #[test]
    fn a_short_run_draws_a_curve_and_learns() {
        let mut seen = 0;
        let (model, curve) = run(&config(20_000), fake_clock(), |_, _| {}, |_| seen += 1).unwrap();
        assert_eq!(model.rules(), Rules::TIC_TAC_TOE);
        assert_eq!(curve.len(), 4);
        assert_eq!(seen, 4);
        assert_eq!(curve.last().unwrap().episodes, 20_000);
        assert!(curve.windows(2).all(|w| w[0].episodes < w[1].episodes));
        let last = curve.last().unwrap();
        // Every reachable 3×3 position is graded.
        assert_eq!(last.graded.unwrap().graded, 4_520);
        assert_eq!(last.vs_random.losses(), 0, "{last:?}");
        assert!(last.graded.unwrap().share() > curve[0].graded.unwrap().share() - 0.01);
        // The same seed gives the same model and curve (but for the times).
        let (again, curve_again) = run(&config(20_000), fake_clock(), |_, _| {}, |_| {}).unwrap();
        assert_eq!(again, model);
        let results = |c: &[Checkpoint]| -> Vec<_> {
            c.iter()
                .map(|p| (p.episodes, p.vs_random, p.vs_rules, p.graded))
                .collect()
        };
        assert_eq!(results(&curve_again), results(&curve));
    }

    #[test]
    fn outputs_have_a_row_or_a_line_a_checkpoint() {
        let (_, curve) = run(&config(2_000), fake_clock(), |_, _| {}, |_| {}).unwrap();
        let csv = csv(&curve);
        assert_eq!(csv.lines().count(), curve.len() + 1);
        assert!(csv.starts_with("episodes,searched,seconds,random_x_wins,"));
        assert!(csv.lines().all(|l| l.split(',').count() == 17), "{csv}");
        let svg = svg(Rules::TIC_TAC_TOE, 3, &curve);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 4);
        assert_eq!(table(&curve).lines().count(), curve.len() + 1);
    }

    #[test]
    fn checkpoints_spread_on_a_log_scale() {
        assert_eq!(checkpoint_schedule(20_000, 4), [20, 200, 2_000, 20_000]);
        assert_eq!(checkpoint_schedule(150_000, 1), [150_000]);
        assert_eq!(checkpoint_schedule(5, 20), [1, 2, 3, 4, 5]);
        // Early points closer than the first's step merge.
        let s = checkpoint_schedule(1_234_567, 20);
        assert!((15..=20).contains(&s.len()), "{s:?}");
        assert_eq!(*s.last().unwrap(), 1_234_567);
        assert!(
            s.windows(2)
                .all(|w| w[0] < w[1] && w[1] % s[0] == 0 || w[1] == 1_234_567)
        );
    }

    #[test]
    fn big_boards_are_not_graded() {
        let mut c = config(200);
        c.rules = Rules::new(7, 7, 5).unwrap();
        c.eval_games = 2;
        let (_, curve) = run(&c, fake_clock(), |_, _| {}, |_| {}).unwrap();
        assert!(curve.iter().all(|p| p.graded.is_none()));
        let csv = csv(&curve);
        assert!(csv.lines().nth(1).unwrap().ends_with(",,"), "{csv}");
    }

    #[test]
    fn a_budget_becomes_an_episode_count() {
        let episodes = episodes_for(
            Rules::TIC_TAC_TOE,
            1,
            Duration::from_secs(10),
            Duration::from_millis(50),
            fake_clock(),
        );
        // One millisecond a report of 50 episodes: 50,000 a second.
        assert_eq!(episodes, 500_000);
    }
}
