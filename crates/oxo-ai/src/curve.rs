//! A learned player trained by self-play, with its learning curve.
//!
//! Training is [`learned::train`] (then [`learned::refit`] for models that
//! play inside alphabeta's search); this module adds what a person training
//! a model wants to watch: every so often (a checkpoint) the model so far
//! plays `random` and `rules` in both seats, and on boards the solver
//! answers quickly its moves are graded against perfect play
//! ([`ValueKeeping`]: the share of moves that keep the position's
//! true value). The checkpoints form the learning curve.
//!
//! Everything here is deterministic given the seed and the episode count;
//! the clock is passed in and only measures.
//!
//! ```
//! use std::ops::ControlFlow;
//! use std::time::Duration;
//!
//! use oxo_ai::curve::{self, Config};
//! use oxo_core::Rules;
//!
//! let config = Config {
//!     rules: Rules::TIC_TAC_TOE,
//!     episodes: 2_000,
//!     seed: 1,
//!     checkpoints: 3,
//!     eval_games: 10,
//!     grade_positions: 0,
//!     search_rounds: 0,
//!     search_games: 1,
//!     threads: 1,
//!     stop: None,
//! };
//! let (model, points) = curve::run(&config, || Duration::ZERO, |_, _| ControlFlow::Continue(()), |_, _| {}, |_| {})?;
//! assert_eq!(model.rules(), Rules::TIC_TAC_TOE);
//! assert_eq!(points.last().map(|p| p.episodes), Some(2_000));
//! # Ok::<(), oxo_ai::curve::TrainError>(())
//! ```

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use oxo_core::Rules;

use crate::grade::ValueKeeping;
use crate::learned::{self, MatchRecord, TrainConfig, ValueShare};
use crate::{Learned, Model, Random, RuleBased};

/// What to train.
#[derive(Clone, Debug)]
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
    /// 9 cells and up to [`crate::grade::GRADE_MAX_CELLS`]); 0 turns grading off.
    pub grade_positions: usize,
    /// Rounds of searched self-play after the episodes
    /// ([`learned::refit`]), for models that play inside alphabeta's
    /// search; 0 for none.
    pub search_rounds: u32,
    /// Games a round of searched self-play.
    pub search_games: u64,
    /// Searched self-play games played at once.
    pub threads: usize,
    /// Once raised, ends the episodes at the next move
    /// ([`TrainConfig::stop`](learned::TrainConfig::stop)), or keeps the
    /// searched rounds from starting; a checkpoint being measured, or a
    /// searched game, is finished first (see [`run`]).
    pub stop: Option<Arc<AtomicBool>>,
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
    Model(#[from] crate::ModelError),
    /// A strategy misplayed during a checkpoint match (a bug).
    #[error(transparent)]
    PlayOut(#[from] crate::PlayOutError),
    /// The solver refused the board it was to grade on.
    #[error(transparent)]
    Solve(#[from] crate::SolveError),
    /// Searched self-play could not run (a bug: it is only asked of models
    /// that search).
    #[error(transparent)]
    Refit(#[from] learned::RefitError),
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
/// searched games after them) have been played, at least every thousandth
/// of the episodes and every [`REPORT_MAX`] episodes, and after every
/// searched game, and can stop training there (for Ctrl-C): the model
/// returned is then the one trained so far (the episodes played, or the
/// searched rounds finished), with no checkpoint measured for it. A
/// raised `config.stop` ends the episodes at the next move (the one under
/// way keeps what its moves so far taught), or keeps the searched rounds
/// from starting, and `on_progress` hears the episodes finished once more;
/// a checkpoint being measured, or a searched game, is finished first;
/// `on_evaluating` hears that the
/// model is about to be measured for point `i` of the curve's `n` (from
/// 1; the measuring takes a while, and comes on top of the training
/// time); `on_checkpoint` gets each point of the curve as it is
/// measured. Returns the model and the whole curve.
///
/// # Errors
/// Only on a bug: a player that misplays, or a solver that refuses the
/// board it said it could solve.
pub fn run(
    config: &Config,
    mut clock: impl FnMut() -> Duration,
    mut on_progress: impl FnMut(u64, Duration) -> ControlFlow<()>,
    mut on_evaluating: impl FnMut(usize, usize),
    mut on_checkpoint: impl FnMut(&Checkpoint),
) -> Result<(Model, Vec<Checkpoint>), TrainError> {
    let mut train_config = TrainConfig::new(config.rules, config.episodes, config.seed);
    let schedule = checkpoint_schedule(config.episodes, config.checkpoints);
    // A point for each of the schedule's counts (each a report's: a
    // multiple of the first, or the last), and one after each searched
    // round where there are any.
    let searches = config.search_rounds > 0
        && learned::Scheme::for_rules(config.rules).translation_invariant();
    let points = schedule.len()
        + if searches {
            config.search_rounds as usize
        } else {
            0
        };
    train_config.report_every = report_step(schedule[0]);
    train_config.stop.clone_from(&config.stop);
    let mut next = 0;
    let mut stopped = false;
    let mut grader = ValueKeeping::new(config.rules, config.grade_positions, config.seed ^ 0x5EED)?;
    let mut curve = Vec::new();
    let mut failure = None;
    let start = clock();
    let mut paused = Duration::ZERO;
    let model = learned::train(&train_config, |progress, model| {
        let trained = clock().saturating_sub(start).saturating_sub(paused);
        if on_progress(progress.episodes, trained).is_break() {
            stopped = true;
            return ControlFlow::Break(());
        }
        let last = progress.episodes >= config.episodes;
        if next < schedule.len() && (progress.episodes >= schedule[next] || last) {
            while next < schedule.len() && schedule[next] <= progress.episodes {
                next += 1;
            }
            let before = clock();
            on_evaluating(curve.len() + 1, points);
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
    let searches = searches && model.scheme().translation_invariant();
    if !stopped
        && searches
        && config
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
    {
        // Raised as the last checkpoint was measured: the caller hears the
        // stop before the searched rounds it keeps them from.
        let trained = clock().saturating_sub(start).saturating_sub(paused);
        let _ = on_progress(config.episodes, trained);
        stopped = true;
    }
    if stopped || !searches {
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
            on_progress(episodes + games, trained)
        },
        |_, model| {
            searched += refit_config.games;
            let before = (clock.borrow_mut())();
            on_evaluating(curve.len() + 1, points);
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

/// Episodes between two reports at most, so that the progress shown, and a
/// stop by `on_progress` (rather than by `Config::stop`), comes soon (about
/// a second of training on 15×15, a third of one on 7×7).
pub const REPORT_MAX: u64 = 1000;

/// Episodes between reports for a schedule whose first checkpoint is at
/// `first`: the largest divisor of `first` up to [`REPORT_MAX`], so that
/// every checkpoint (a multiple of `first`, or the last episode) falls on
/// a report.
fn report_step(first: u64) -> u64 {
    (1..=first.clamp(1, REPORT_MAX))
        .rev()
        .find(|d| first.is_multiple_of(*d))
        .unwrap_or(1)
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
/// [`crate::AlphaBeta::DEFAULT_BUDGET`].
pub const CURVE_NODES: u64 = 5_000;

fn checkpoint(
    config: &Config,
    model: &Model,
    grader: Option<&mut ValueKeeping>,
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
            stop: None,
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
        let mut told = Vec::new();
        let (model, curve) = run(
            &config(20_000),
            fake_clock(),
            |_, _| ControlFlow::Continue(()),
            |i, n| told.push((i, n)),
            |_| seen += 1,
        )
        .unwrap();
        assert_eq!(model.rules(), Rules::TIC_TAC_TOE);
        assert_eq!(curve.len(), 4);
        assert_eq!(seen, 4);
        // Each point is announced before it is measured, out of all.
        assert_eq!(told, [(1, 4), (2, 4), (3, 4), (4, 4)]);
        assert_eq!(curve.last().unwrap().episodes, 20_000);
        assert!(curve.windows(2).all(|w| w[0].episodes < w[1].episodes));
        let last = curve.last().unwrap();
        // Every reachable 3×3 position is graded.
        assert_eq!(last.graded.unwrap().graded, 4_520);
        assert_eq!(last.vs_random.losses(), 0, "{last:?}");
        assert!(last.graded.unwrap().share() > curve[0].graded.unwrap().share() - 0.01);
        // The same seed gives the same model and curve (but for the times).
        let (again, curve_again) =
            run(&config(20_000), fake_clock(), go_on, |_, _| {}, |_| {}).unwrap();
        assert_eq!(again, model);
        let results = |c: &[Checkpoint]| -> Vec<_> {
            c.iter()
                .map(|p| (p.episodes, p.vs_random, p.vs_rules, p.graded))
                .collect()
        };
        assert_eq!(results(&curve_again), results(&curve));
    }

    fn go_on(_: u64, _: Duration) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A stop raised while the last checkpoint of the episodes is measured
    /// keeps the searched rounds from starting, and the caller hears it:
    /// the episodes' count once more, then nothing searched.
    #[test]
    fn a_stop_at_the_last_checkpoint_keeps_the_searched_rounds_from_starting() {
        let stop = Arc::new(AtomicBool::new(false));
        let config = Config {
            rules: Rules::new(9, 9, 5).unwrap(),
            episodes: 20,
            checkpoints: 1,
            eval_games: 1,
            grade_positions: 0,
            search_rounds: 1,
            search_games: 1,
            stop: Some(Arc::clone(&stop)),
            ..config(20)
        };
        let mut heard = Vec::new();
        let raise = Arc::clone(&stop);
        let (_, curve) = run(
            &config,
            fake_clock(),
            |done, _| {
                heard.push(done);
                ControlFlow::Continue(())
            },
            |_, _| raise.store(true, Ordering::Relaxed),
            |_| {},
        )
        .unwrap();
        assert_eq!(heard.last(), Some(&20), "{heard:?}");
        assert_eq!(heard.iter().filter(|&&n| n == 20).count(), 2, "{heard:?}");
        assert_eq!(curve.len(), 1);
        assert_eq!(curve[0].searched, 0);
    }

    #[test]
    fn a_stop_keeps_the_model_trained_so_far() {
        // Stopped after 3,000 of 20,000 episodes: the first three
        // checkpoints measured (at 20, 200 and 2,000), none for the stop.
        let mut heard = Vec::new();
        let (model, curve) = run(
            &config(20_000),
            fake_clock(),
            |done, _| {
                heard.push(done);
                if done >= 3_000 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            |_, _| {},
            |_| {},
        )
        .unwrap();
        assert_eq!(heard.last(), Some(&3_000));
        assert_eq!(
            curve.iter().map(|p| p.episodes).collect::<Vec<_>>(),
            [20, 200, 2_000]
        );
        // What a run planned for 20,000 episodes had learnt by 3,000: a
        // model of its own, unlike the shorter run's (whose rates fall
        // faster) and the whole run's.
        let unstopped = |episodes| run(&config(episodes), fake_clock(), go_on, |_, _| {}, |_| {});
        assert_ne!(model, unstopped(3_000).unwrap().0);
        assert_ne!(model, unstopped(20_000).unwrap().0);
    }

    #[test]
    fn reports_come_often_and_on_every_checkpoint() {
        assert_eq!(report_step(20), 20);
        assert_eq!(report_step(1_000), 1_000);
        assert_eq!(report_step(150_000), 1_000);
        assert_eq!(report_step(1_800_000), 1_000);
        assert_eq!(report_step(1_234), 617);
        assert_eq!(report_step(1_009), 1);
        assert_eq!(report_step(0), 1);
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
        let (_, curve) = run(&c, fake_clock(), go_on, |_, _| {}, |_| {}).unwrap();
        assert!(curve.iter().all(|p| p.graded.is_none()));
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
