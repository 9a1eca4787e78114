//! Self-play training, and the measures of how well a model plays.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oxo_core::{Game, Outcome, Player, Rules};
use rand::RngExt;

use super::{Learned, Model, best_moves};
use crate::ntuple::{Scheme, Scratch};
use crate::windows::WindowBoard;
use crate::{PlayOutError, Strategy, Value, rng_from_seed};

/// How to train a model.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// The board.
    pub rules: Rules,
    /// How the model reads it (by default [`Scheme::for_rules`]).
    pub scheme: Scheme,
    /// Self-play games to play (training may stop earlier: see [`train`]).
    pub episodes: u64,
    /// Fixes every random choice of the run.
    pub seed: u64,
    /// The chance of a random move at the start of the run…
    pub epsilon_start: f32,
    /// …falling linearly to this at its end.
    pub epsilon_end: f32,
    /// The step size at the start of the run (shared out over the tuples
    /// read per position)…
    pub rate_start: f32,
    /// …falling linearly to this at its end.
    pub rate_end: f32,
    /// Each game opens with a number of random moves drawn uniformly from
    /// `0..=random_opening` (exploring starts: positions greedy play
    /// never reaches still get learnt).
    pub random_opening: u32,
    /// [`train`] reports progress after every this many episodes.
    pub report_every: u64,
    /// Once raised, ends training at the next move, in the middle of an
    /// episode if need be (on a large board one takes seconds or more):
    /// [`train`] then reports the episodes finished one last time and
    /// returns the model so far (what the moves of the episode under way
    /// taught included).
    pub stop: Option<Arc<AtomicBool>>,
}

impl TrainConfig {
    /// The settings measured to work, for `episodes` games on `rules`.
    #[must_use]
    pub fn new(rules: Rules, episodes: u64, seed: u64) -> TrainConfig {
        TrainConfig {
            rules,
            scheme: Scheme::for_rules(rules),
            episodes,
            seed,
            epsilon_start: 0.3,
            epsilon_end: 0.05,
            rate_start: 0.5,
            rate_end: 0.05,
            // Half the board on small ones; on large ones, a long random
            // opening would leave little of the game worth learning from.
            random_opening: (rules.cell_count() / 2).min(12) as u32,
            report_every: 1000,
            stop: None,
        }
    }
}

/// How far training has gone, as reported to [`train`]'s callback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Self-play games played.
    pub episodes: u64,
    /// The exploration rate in use.
    pub epsilon: f32,
    /// The step size in use.
    pub rate: f32,
}

/// Train a model for `config.rules` by self-play (see the module docs).
///
/// After every `config.report_every` episodes, and at the end,
/// `on_progress` hears how far training has gone and sees the model so
/// far; returning [`ControlFlow::Break`] stops training there (for a time
/// budget, or once an evaluation is good enough). Deterministic given
/// `config.seed`.
pub fn train(
    config: &TrainConfig,
    mut on_progress: impl FnMut(&Progress, &Model) -> ControlFlow<()>,
) -> Model {
    let rules = config.rules;
    let mut model = Model::with_scheme(rules, config.scheme);
    let features = model.features.clone();
    let mut rng = rng_from_seed(config.seed);
    let mut scratch = Scratch::default();
    let mut scores = Vec::new();
    let mut best = Vec::new();
    let per_tuple = 1.0 / features.tuple_count().max(1) as f32;
    let mut progress = Progress {
        episodes: 0,
        epsilon: config.epsilon_start,
        rate: config.rate_start,
    };
    let every = config.report_every.max(1);
    let stopped = || {
        config
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
    };

    'episodes: while progress.episodes < config.episodes {
        let done = progress.episodes as f32 / config.episodes as f32;
        progress.epsilon =
            config.epsilon_start + (config.epsilon_end - config.epsilon_start) * done;
        progress.rate = config.rate_start + (config.rate_end - config.rate_start) * done;
        let rate = progress.rate * per_tuple;

        let mut board = WindowBoard::new(rules);
        let opening = rng.random_range(0..=config.random_opening);
        for ply in 0..rules.cell_count() {
            if stopped() {
                // The last word: its answer changes nothing.
                let _ = on_progress(&progress, &model);
                break 'episodes;
            }
            features.score_moves(&model.weights, &board, &mut scratch, &mut scores);
            let target = scores
                .iter()
                .map(|&(_, s)| s.value())
                .fold(f32::NEG_INFINITY, f32::max);
            features.learn(&mut model.weights, &board, target, rate, &mut scratch);

            let cell = if ply < opening as usize || rng.random::<f32>() < progress.epsilon {
                scores[rng.random_range(0..scores.len())].0
            } else {
                best_moves(&scores, &mut best);
                best[rng.random_range(0..best.len())]
            };
            let over = board.wins_at(cell, board.to_move());
            board.play(cell);
            if over {
                break;
            }
        }

        progress.episodes += 1;
        if (progress.episodes.is_multiple_of(every) || progress.episodes == config.episodes)
            && on_progress(&progress, &model).is_break()
        {
            break;
        }
    }
    model
}

/// Games won, drawn and lost, by the seat played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchRecord {
    /// Wins, draws and losses playing X (first).
    pub as_x: [u32; 3],
    /// Wins, draws and losses playing O (second).
    pub as_o: [u32; 3],
}

impl MatchRecord {
    /// Games lost in either seat.
    #[must_use]
    pub const fn losses(&self) -> u32 {
        self.as_x[2] + self.as_o[2]
    }

    /// Games played.
    #[must_use]
    pub const fn games(&self) -> u32 {
        self.as_x[0] + self.as_x[1] + self.as_x[2] + self.as_o[0] + self.as_o[1] + self.as_o[2]
    }
}

/// Play `games` games of `me` against `other` in each seat, and count
/// `me`'s results. The strategies keep their state from game to game, so a
/// seeded player's games vary.
///
/// # Errors
/// A strategy that plays an illegal move or none (see [`crate::play_out`]).
pub fn play_match(
    rules: Rules,
    me: &mut dyn Strategy,
    other: &mut dyn Strategy,
    games: u32,
) -> Result<MatchRecord, PlayOutError> {
    let mut record = MatchRecord::default();
    for _ in 0..games {
        for seat in [Player::X, Player::O] {
            let mut game = Game::new(rules);
            match seat {
                Player::X => crate::play_out(&mut game, me, other)?,
                Player::O => crate::play_out(&mut game, other, me)?,
            };
            let result = match game.outcome() {
                Some(Outcome::Win(p)) if p == seat => 0,
                Some(Outcome::Win(_)) => 2,
                _ => 1,
            };
            match seat {
                Player::X => record.as_x[result] += 1,
                Player::O => record.as_o[result] += 1,
            }
        }
    }
    Ok(record)
}

/// How many of the learned player's moves kept the value of their
/// position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueShare {
    /// Positions graded.
    pub graded: u32,
    /// Of those, positions where the move kept the value.
    pub kept: u32,
}

impl ValueShare {
    /// `kept / graded`, 1 when nothing was graded.
    #[must_use]
    pub fn share(&self) -> f64 {
        if self.graded == 0 {
            1.0
        } else {
            f64::from(self.kept) / f64::from(self.graded)
        }
    }
}

/// Grade the move the greedy player of `model` (tie-breaks by `seed`)
/// makes in each unfinished position of `positions`: it keeps the value
/// when the value after it, for the opponent, negated, is the position's
/// value (a won position stays won, a drawn one drawn; in a lost position
/// every move does). `value` gives a position's perfect-play value for the
/// player to move, as a [`crate::Solver`] or a
/// [`crate::StrongSolution`] does; positions it cannot value, and finished
/// ones, are skipped.
///
/// # Errors
/// [`super::ModelError::WrongBoard`] when a position is on another board
/// than the model's.
pub fn value_keeping_share(
    model: &Model,
    positions: &[Game],
    seed: u64,
    mut value: impl FnMut(&Game) -> Option<Value>,
) -> Result<ValueShare, super::ModelError> {
    let mut player = Learned::new(model.clone(), model.rules(), seed)?;
    let mut share = ValueShare::default();
    for game in positions {
        model.check_rules(game.rules())?;
        if game.is_over() {
            continue;
        }
        let Some(before) = value(game) else { continue };
        let Some(cell) = player.choose(game) else {
            continue;
        };
        let mut child = game.clone();
        child.play_unchecked(cell);
        let Some(after) = Value::of_finished(&child).or_else(|| value(&child)) else {
            continue;
        };
        share.graded += 1;
        if before == Value::Loss || -after == before {
            share.kept += 1;
        }
    }
    Ok(share)
}

/// Every reachable unfinished position of `rules`, each once (use on
/// small boards only: 3×3 has 4,520).
#[must_use]
pub fn reachable_positions(rules: Rules) -> Vec<Game> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut stack = vec![Game::new(rules)];
    while let Some(game) = stack.pop() {
        if game.is_over() || !seen.insert(game.cells().to_vec()) {
            continue;
        }
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            stack.push(child);
        }
        out.push(game);
    }
    out
}

/// One unfinished position from each of `count` random games, at a
/// uniformly drawn ply, deterministic given `seed`.
#[must_use]
pub fn sample_positions(rules: Rules, count: usize, seed: u64) -> Vec<Game> {
    let mut rng = rng_from_seed(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(rules);
        let stop = rng.random_range(0..rules.cell_count());
        for _ in 0..stop {
            let moves: Vec<_> = game.legal_moves().collect();
            if game.is_over() || moves.is_empty() {
                break;
            }
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !game.is_over() {
            out.push(game);
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Random;

    fn short_run(seed: u64) -> Model {
        train(&TrainConfig::new(Rules::default(), 4000, seed), |_, _| {
            ControlFlow::Continue(())
        })
    }

    #[test]
    fn a_short_run_stops_losing_to_random() {
        let model = short_run(1);
        let rules = Rules::default();
        let mut me = Learned::new(model, rules, 5).unwrap();
        let mut random = Random::new(6);
        let record = play_match(rules, &mut me, &mut random, 500).unwrap();
        assert_eq!(record.losses(), 0, "{record:?}");
        assert_eq!(record.games(), 1000);
    }

    #[test]
    fn training_is_deterministic() {
        assert_eq!(short_run(3).to_bytes(), short_run(3).to_bytes());
        assert_ne!(short_run(3).to_bytes(), short_run(4).to_bytes());
    }

    /// What a window of the player to move (`own`) and of the opponent's
    /// is worth by its marks, from one to k−1, in a model of
    /// [`Scheme::Tallies`].
    pub(crate) fn tally_worths(model: &Model) -> (Vec<f32>, Vec<f32>) {
        assert_eq!(model.scheme(), Scheme::Tallies);
        let k = model.rules().k() as usize;
        let w = model.weights();
        let own = (1..k).map(|n| w[n * (k + 1)]).collect();
        let opp = (1..k).map(|n| w[n]).collect();
        (own, opp)
    }

    #[test]
    fn window_tallies_learn_from_zero_that_fuller_windows_are_worth_more() {
        // Every weight starts at zero; a few seconds of self-play on a
        // gomoku board teach the order alphabeta was given by hand: the
        // fuller a window, the more it is worth to its owner, whether or
        // not that player is to move.
        let rules = Rules::new(9, 9, 5).unwrap();
        let config = TrainConfig::new(rules, 3_000, 1);
        assert_eq!(config.scheme, Scheme::Tallies);
        let model = train(&config, |_, _| ControlFlow::Continue(()));
        let (own, opp) = tally_worths(&model);
        assert!(own.windows(2).all(|p| p[0] < p[1]), "{own:?}");
        assert!(opp.windows(2).all(|p| p[0] > p[1]), "{opp:?}");
        assert!(own[3] > 1.0 && opp[3] < -0.1, "{own:?} {opp:?}");
    }

    #[test]
    fn the_callback_can_stop_training() {
        let mut config = TrainConfig::new(Rules::default(), 1_000_000, 1);
        config.report_every = 100;
        let mut seen = Vec::new();
        train(&config, |p, _| {
            seen.push(p.episodes);
            if p.episodes >= 300 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(seen, [100, 200, 300]);
    }

    /// The stop flag ends training at the next move, without waiting for
    /// a report: the episodes finished are reported one last time. Raised
    /// between two episodes (from the report), the model is theirs.
    #[test]
    fn the_stop_flag_ends_training_at_the_next_move() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut config = TrainConfig::new(Rules::default(), 1_000_000, 1);
        config.report_every = 100;
        config.stop = Some(Arc::clone(&stop));
        let mut seen = Vec::new();
        let stopped = train(&config, |p, _| {
            seen.push(p.episodes);
            if p.episodes == 200 {
                stop.store(true, Ordering::Relaxed);
            }
            ControlFlow::Continue(())
        });
        assert_eq!(seen, [100, 200, 200]);
        config.stop = None;
        let broken = train(&config, |p, _| {
            if p.episodes == 200 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(stopped, broken);
        // Raised before it starts: nothing learnt.
        config.stop = Some(Arc::new(AtomicBool::new(true)));
        let mut seen = Vec::new();
        let untrained = train(&config, |p, _| {
            seen.push(p.episodes);
            ControlFlow::Continue(())
        });
        assert_eq!(seen, [0]);
        assert_eq!(untrained, Model::with_scheme(config.rules, config.scheme));
    }

    #[test]
    fn grading_counts_kept_values() {
        // X to move can win at once; an untrained model still takes it.
        let won = Game::from_notation("XX./OO./...", 3).unwrap();
        let model = Model::new(Rules::default());
        let solution = crate::StrongSolution::compute(Rules::default()).unwrap();
        let share =
            value_keeping_share(&model, &[won], 0, |g| solution.get(g).map(|e| e.value)).unwrap();
        assert_eq!(share, ValueShare { graded: 1, kept: 1 });
    }
}
