//! Searched self-play: a model that plays inside alphabeta's search
//! plays itself that way, and its weights are refit to how those games
//! ended.
//!
//! Temporal-difference self-play ([`super::train`]) teaches a model what
//! a position is worth to a player who looks one move ahead. Inside a
//! search the model is read at the search's leaves instead: quiet
//! positions, many moves before the game's end. Each round here plays
//! games between two copies of the current model, each searching a few
//! thousand positions a move from a random opening near the centre, keeps
//! every quiet position (no win on the next move for either side) with the
//! result for the player to move (1, 0 or −1), and moves the weights to
//! the least squared error between the model's value of those positions and
//! their results (Adam over the whole round's positions, from the current
//! weights). The next round plays with the refit model: policy iteration
//! with Monte Carlo evaluation. Every game is seeded from the run's seed
//! and its number, so a run is the same whatever the thread count.

use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use oxo_core::{Cell, Game, Outcome, Rules};
use rand::RngExt;

use super::{Learned, Model};
use crate::ntuple::Scheme;
use crate::windows::WindowBoard;
use crate::{PlayOutError, rng_from_seed};

/// How to refit a model by searched self-play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefitConfig {
    /// Rounds of play and refitting.
    pub rounds: u32,
    /// Games a round.
    pub games: u64,
    /// Positions each player searches a move.
    pub budget: u64,
    /// Random moves near the centre that open each game.
    pub opening: u32,
    /// Fixes every random choice of the run.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
}

impl RefitConfig {
    /// The settings measured to work on 15×15 k=5 (the figures are in
    /// `docs/learned.md`): `rounds` rounds of 1,000 games at 2,000
    /// positions a move, from four-move openings, on one thread.
    #[must_use]
    pub fn new(rounds: u32, seed: u64) -> RefitConfig {
        RefitConfig {
            rounds,
            games: 1_000,
            budget: 2_000,
            opening: 4,
            seed,
            threads: 1,
        }
    }

    /// The rounds `oxo train` plays by default on `rules`: 3 where the
    /// model [`Scheme::for_rules`] picks plays inside alphabeta's search
    /// and the board has at least [`REFIT_MIN_CELLS`] cells, none
    /// elsewhere.
    #[must_use]
    pub fn default_rounds(rules: Rules) -> u32 {
        if Scheme::for_rules(rules).translation_invariant() && rules.cell_count() >= REFIT_MIN_CELLS
        {
            3
        } else {
            0
        }
    }
}

/// What one round of [`refit`] played and learnt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefitRound {
    /// The round, from 1.
    pub round: u32,
    /// Games won by the first player, won by the second, drawn.
    pub results: [u64; 3],
    /// Quiet positions fitted.
    pub positions: usize,
    /// Mean squared error of the model's values against the results,
    /// before the round's fit and after it.
    pub error: (f64, f64),
}

/// Why [`refit`] could not run.
#[derive(Debug, thiserror::Error)]
pub enum RefitError {
    /// The model does not play inside alphabeta's search.
    #[error("a model of the {0:?} scheme does not play inside alphabeta's search")]
    NotSearched(Scheme),
    /// A player misplayed (a bug).
    #[error(transparent)]
    PlayOut(#[from] PlayOutError),
}

/// Boards smaller than this get no rounds by default: on 7×7 k=5 (a
/// draw, where the learned player's aim is to beat `rules`) three rounds
/// made a model that won 55 of 300 games as O against `rules` (`oxo arena
/// --x rules --o learned --size 7 --k 5 --first x --games 100 --seed S`,
/// S 1–3) where the shipped one, without them, wins 205, and nothing
/// measured says they help there.
pub const REFIT_MIN_CELLS: usize = 100;

/// Gradient steps of each round's fit.
const FIT_STEPS: u32 = 2_000;
/// Adam's step size in the fit.
const FIT_RATE: f64 = 0.002;

/// Refit `model` by searched self-play as `config` says (see the module
/// docs). `on_game` hears the number of games finished so far (from the
/// calling thread) and can stop the run: the games under way are
/// finished, and the model of the rounds finished before is returned;
/// `on_round` sees each round's figures and the model after it, and can
/// stop the run there. Deterministic given the seed.
///
/// # Errors
/// [`RefitError::NotSearched`] for a model that plays without alphabeta's
/// search ([`Scheme::translation_invariant`] is false); a player that
/// misplays (a bug).
pub fn refit(
    model: &Model,
    config: &RefitConfig,
    mut on_game: impl FnMut(u64) -> ControlFlow<()>,
    mut on_round: impl FnMut(&RefitRound, &Model) -> ControlFlow<()>,
) -> Result<Model, RefitError> {
    let scheme = model.scheme();
    if !scheme.translation_invariant() {
        return Err(RefitError::NotSearched(scheme));
    }
    let mut model = model.clone();
    let mut finished = 0;
    for round in 1..=config.rounds {
        let Some(games) = play_round(&model, config, round, || {
            finished += 1;
            on_game(finished)
        })?
        else {
            break;
        };
        let mut results = [0; 3];
        let mut samples = Vec::new();
        for (moves, outcome) in &games {
            results[match outcome {
                Outcome::Win(oxo_core::Player::X) => 0,
                Outcome::Win(oxo_core::Player::O) => 1,
                Outcome::Draw => 2,
            }] += 1;
            collect(&model, moves, *outcome, &mut samples);
        }
        let error = fit(&mut model.weights, &samples);
        let figures = RefitRound {
            round,
            results,
            positions: samples.len(),
            error,
        };
        if on_round(&figures, &model).is_break() {
            break;
        }
    }
    Ok(model)
}

/// One finished game: its moves from the empty board, and how it ended.
type Played = (Vec<Cell>, Outcome);

/// Play one round's games, `config.threads` at a time, in game order;
/// `None` if `on_game` stopped the round (the games under way finish
/// first).
fn play_round(
    model: &Model,
    config: &RefitConfig,
    round: u32,
    mut on_game: impl FnMut() -> ControlFlow<()>,
) -> Result<Option<Vec<Played>>, PlayOutError> {
    let mut stopped = false;
    let next = AtomicU64::new(0);
    let slots: Mutex<Vec<Option<Result<Played, PlayOutError>>>> =
        Mutex::new((0..config.games).map(|_| None).collect());
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let done_tx = done_tx.clone();
            let (next, slots) = (&next, &slots);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    let seed = game_seed(config.seed, round, index);
                    let played = play_one(model, config, seed);
                    let failed = played.is_err();
                    slots.lock().unwrap_or_else(|e| e.into_inner())[index as usize] = Some(played);
                    let _ = done_tx.send(());
                    if failed {
                        // Let the others run out; the first failure is reported.
                        next.store(config.games, Ordering::Relaxed);
                    }
                }
            });
        }
        drop(done_tx);
        for () in done_rx {
            if !stopped && on_game().is_break() {
                stopped = true;
                next.store(config.games, Ordering::Relaxed);
            }
        }
    });
    let played: Result<Vec<Played>, PlayOutError> = slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    played.map(|played| (!stopped).then_some(played))
}

/// A seed of its own for every game of every round.
fn game_seed(seed: u64, round: u32, index: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(round) << 40)
        .wrapping_add(index);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One game between two copies of `model`, from a random opening.
fn play_one(model: &Model, config: &RefitConfig, seed: u64) -> Result<Played, PlayOutError> {
    let rules = model.rules();
    let mut game = Game::new(rules);
    let mut moves = opening(rules, config.opening, seed);
    for &cell in &moves {
        // An opening is a few moves apart in a box: none wins.
        game.play(cell).map_err(|e| PlayOutError {
            strategy: "opening".to_owned(),
            problem: e.to_string(),
        })?;
    }
    let player = |seed| {
        Learned::new(model.clone(), rules, seed)
            .map(|p| p.with_budget(config.budget))
            .map_err(|e| PlayOutError {
                strategy: "learned".to_owned(),
                problem: e.to_string(),
            })
    };
    let mut x = player(seed ^ 1)?;
    let mut o = player(seed ^ 2)?;
    moves.extend(crate::play_out(&mut game, &mut x, &mut o)?);
    let outcome = game.outcome().unwrap_or(Outcome::Draw);
    Ok((moves, outcome))
}

/// `moves` different cells drawn from [`crate::opening_room`], as `oxo
/// arena --opening` draws them (fewer if the board has no room), for
/// marks alternating from X. Short of k, so that no opening decides a game,
/// and never more than half the board.
fn opening(rules: Rules, moves: u32, seed: u64) -> Vec<Cell> {
    let mut room = crate::opening_room(rules, moves);
    let limit = (moves as usize)
        .min(room.len() / 2)
        .min(2 * (rules.k() as usize).saturating_sub(1));
    let mut rng = rng_from_seed(seed);
    (0..limit)
        .map(|_| room.swap_remove(rng.random_range(0..room.len())))
        .collect()
}

/// One quiet position: each weight read and how often, and the result for
/// the player to move.
struct Sample {
    reads: Vec<(u32, f32)>,
    result: f32,
    /// Whether the player to move moved first.
    first: bool,
}

/// Every quiet position of a game (neither side can win with its next
/// move), with the result for the player to move.
fn collect(model: &Model, moves: &[Cell], outcome: Outcome, out: &mut Vec<Sample>) {
    let rules = model.rules();
    let features = &model.features;
    let mut board = WindowBoard::new(rules);
    let mut indices = Vec::new();
    for &cell in moves {
        let mover = board.to_move();
        let threat = board
            .empty_cells()
            .any(|c| board.wins_at(c, mover) || board.wins_at(c, mover.other()));
        if !threat {
            features.indices(&board, mover, &mut indices);
            indices.sort_unstable();
            let mut reads: Vec<(u32, f32)> = Vec::new();
            for &i in &indices {
                match reads.last_mut() {
                    Some((last, n)) if *last == i => *n += 1.0,
                    _ => reads.push((i, 1.0)),
                }
            }
            let result = match outcome {
                Outcome::Win(p) if p == mover => 1.0,
                Outcome::Win(_) => -1.0,
                Outcome::Draw => 0.0,
            };
            out.push(Sample {
                reads,
                result,
                first: mover == oxo_core::Player::X,
            });
        }
        board.play(rules.index(cell));
    }
}

/// Move `weights` to the least squared error between `tanh` of each
/// sample's value and its result: [`FIT_STEPS`] steps of Adam over all of
/// them. Returns the mean squared error before and after.
fn fit(weights: &mut [f32], samples: &[Sample]) -> (f64, f64) {
    // The weights, and last the first player's edge: a term of the fit
    // only, so that the weights need not explain it (every leaf of a
    // search at one depth has the same player to move).
    let mut w: Vec<f64> = weights.iter().map(|&x| f64::from(x)).collect();
    let edge = w.len();
    w.push(0.0);
    let raw = |w: &[f64], s: &Sample| -> f64 {
        let sum: f64 = s
            .reads
            .iter()
            .map(|&(i, n)| w[i as usize] * f64::from(n))
            .sum();
        if s.first { sum + w[edge] } else { sum }
    };
    let error = |w: &[f64]| -> f64 {
        let sum: f64 = samples
            .iter()
            .map(|s| (raw(w, s).tanh() - f64::from(s.result)).powi(2))
            .sum();
        sum / samples.len().max(1) as f64
    };
    let before = error(&w);
    if samples.is_empty() {
        return (before, before);
    }
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let mut grad = vec![0.0; w.len()];
    let count = samples.len() as f64;
    for step in 1..=FIT_STEPS {
        grad.fill(0.0);
        for s in samples {
            let t = raw(&w, s).tanh();
            let d = 2.0 * (t - f64::from(s.result)) * (1.0 - t * t);
            for &(i, n) in &s.reads {
                grad[i as usize] += d * f64::from(n);
            }
            if s.first {
                grad[edge] += d;
            }
        }
        let (c1, c2) = (
            1.0 - 0.9f64.powi(step as i32),
            1.0 - 0.999f64.powi(step as i32),
        );
        for i in 0..w.len() {
            let g = grad[i] / count;
            m[i] = 0.9 * m[i] + 0.1 * g;
            v[i] = 0.999 * v[i] + 0.001 * g * g;
            w[i] -= FIT_RATE * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
        }
    }
    let after = error(&w);
    for (out, &x) in weights.iter_mut().zip(&w) {
        *out = x as f32;
    }
    (before, after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learned::train::tests::tally_worths;

    fn short(threads: usize) -> RefitConfig {
        RefitConfig {
            rounds: 2,
            games: 40,
            budget: 300,
            opening: 4,
            seed: 7,
            threads,
        }
    }

    #[test]
    fn searched_self_play_learns_from_zero_the_same_on_any_thread_count() {
        let rules = Rules::new(9, 9, 5).unwrap();
        let zero = Model::with_scheme(rules, Scheme::Tallies);
        let mut rounds = Vec::new();
        let mut games = 0;
        let one = refit(
            &zero,
            &short(1),
            |n| {
                games = n;
                ControlFlow::Continue(())
            },
            |r, _| {
                rounds.push(*r);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(games, 80);
        assert_eq!(rounds.len(), 2);
        for r in &rounds {
            assert_eq!(r.results.iter().sum::<u64>(), 40, "{r:?}");
            assert!(r.positions > 40, "{r:?}");
            assert!(r.error.1 < r.error.0, "{r:?}");
        }
        // One, two and three marks (quiet positions have no four): the
        // fuller a window, the more it is worth to its player.
        let (own, opp) = tally_worths(&one);
        assert!(
            0.0 < own[0] && own[0] < own[1] && own[1] < own[2],
            "{own:?}"
        );
        assert!(
            0.0 > opp[0] && opp[0] > opp[1] && opp[1] > opp[2],
            "{opp:?}"
        );
        let two = refit(
            &zero,
            &short(2),
            |_| ControlFlow::Continue(()),
            |_, _| ControlFlow::Continue(()),
        )
        .unwrap();
        assert_eq!(one, two);
    }

    #[test]
    fn only_models_that_search_are_refit() {
        let model = Model::new(Rules::new(4, 4, 4).unwrap());
        let err = refit(
            &model,
            &short(1),
            |_| ControlFlow::Continue(()),
            |_, _| ControlFlow::Continue(()),
        )
        .unwrap_err();
        assert!(matches!(err, RefitError::NotSearched(_)), "{err}");
    }

    #[test]
    fn the_callback_can_stop_refitting() {
        let rules = Rules::new(9, 9, 5).unwrap();
        let zero = Model::with_scheme(rules, Scheme::Tallies);
        let mut config = short(1);
        config.rounds = 5;
        let mut seen = 0;
        let stopped = refit(
            &zero,
            &config,
            |_| ControlFlow::Continue(()),
            |_, _| {
                seen += 1;
                ControlFlow::Break(())
            },
        )
        .unwrap();
        assert_eq!(seen, 1);
        assert_ne!(stopped, zero);
        // Stopped by a game's callback in the second round: the first
        // round's model, whatever the thread count.
        let first = refit(
            &zero,
            &short(1),
            |_| ControlFlow::Continue(()),
            |_, _| ControlFlow::Break(()),
        )
        .unwrap();
        for threads in [1, 2] {
            let mut config = short(threads);
            config.rounds = 5;
            let mut rounds = 0;
            let cut = refit(
                &zero,
                &config,
                |games| {
                    if games > config.games + 3 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
                |_, _| {
                    rounds += 1;
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
            assert_eq!(rounds, 1);
            assert_eq!(cut, first);
        }
    }
}
