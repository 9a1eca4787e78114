//! A round robin: every pair of players meets for the same number of games,
//! each player taking X in half of them (X moves first), and the field is
//! ranked by Elo ([`crate::rating::elo`]).
//!
//! Games run on the [arena]'s engine: the same seeds, the same
//! openings (each pair's games `2j` and `2j + 1` share one, a seat each), the
//! same forfeits for external players.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//!
//! use oxo_ai::StrategyKind;
//! use oxo_ai::arena::{Entrant, Opening};
//! use oxo_ai::tournament;
//! use oxo_core::Rules;
//!
//! let config = tournament::Config {
//!     rules: Rules::TIC_TAC_TOE,
//!     players: [StrategyKind::Random, StrategyKind::Perfect]
//!         .map(Entrant::strategy)
//!         .to_vec(),
//!     games: 10,
//!     seed: 1,
//!     threads: 1,
//!     opening: Opening::Random(0),
//! };
//! let results = tournament::run(&config, &AtomicBool::new(false), |_| {})?;
//! assert_eq!(results.standings[0].player, 1, "perfect play ranks first");
//! assert!(results.standings[0].elo > 0.0);
//! # Ok::<(), oxo_ai::arena::ArenaError>(())
//! ```

use std::sync::atomic::AtomicBool;

use oxo_core::{Player, Rules};

use crate::arena::{self, ArenaError, Entrant};
pub use crate::rating::Pairing;
use crate::rating::elo;

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    /// Board and win length.
    pub rules: Rules,
    /// The players, at least two.
    pub players: Vec<Entrant>,
    /// Games for every pair of players.
    pub games: u64,
    /// Seed for every random choice.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// What each pair's games start from, as in
    /// [`arena::Config::opening`].
    pub opening: arena::Opening,
}

impl Config {
    /// Every pair of players, in order: (0, 1), (0, 2), …, (1, 2), ….
    fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.players.len();
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    }

    /// Games in the whole round robin.
    #[must_use]
    pub fn total_games(&self) -> u64 {
        self.pairs().len() as u64 * self.games
    }
}

/// The game played `turn`-th, of `pairs` pairs of `games` games each: its
/// index, game `index % games` of pair `index / games`. Games are played
/// round by round, as engine testers schedule a round robin: each round
/// gives every pair two games, one with each player as X (games `2r` and
/// `2r + 1` of each pair, which share an opening), and an odd last game
/// of every pair comes last. A run stopped early is then a smaller round
/// robin with every pair about equally played, not the first pairs' whole
/// matches; a game's index, and so its seed and opening, is the same
/// whatever the order.
fn scheduled(turn: u64, pairs: u64, games: u64) -> u64 {
    let round = 2 * pairs;
    let paired = games / 2 * round;
    let (pair, game) = if turn < paired {
        let (r, within) = (turn / round, turn % round);
        (within / 2, r * 2 + within % 2)
    } else {
        (turn - paired, games - 1)
    };
    pair * games + game
}

/// One player's line in the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The player's index in [`Config::players`].
    pub player: usize,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Points (a win 1, a draw ½) over games, from 0 to 1.
    pub score: f64,
    /// Moves made, over all its games.
    pub moves: u64,
    /// Elo rating, the field's average being 0 ([`crate::rating::elo`]).
    pub elo: f64,
    /// Half the width of the rating's 95% interval.
    pub elo_95: f64,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Every pair's results, in [`Config`]'s pair order.
    pub pairings: Vec<Pairing>,
    /// Every player's line, best Elo first.
    pub standings: Vec<Standing>,
    /// Games lost for a move not given (external engines), in game order.
    pub forfeits: Vec<arena::Forfeit>,
    /// Games that replay, move for move, the game their pair played
    /// before with the same seats and opening, where every such game of
    /// theirs was the same: players that choose alike play one game over
    /// and over (without `--opening`), and the ratings' intervals, which
    /// take every game as new evidence, are then too narrow. (A random
    /// player's games that happen to match are not counted: its other
    /// games with those seats and opening differ.)
    pub replayed_games: u64,
}

impl Results {
    /// The players (indices into [`Config::players`]) that never made a
    /// move and lost a game for it (an engine that would not start or never
    /// gave a legal move: the round robin measured nothing of it, even where
    /// it won on another's forfeits), with the games each played.
    #[must_use]
    pub fn players_never_moving(&self, config: &Config) -> Vec<(usize, u64)> {
        let mut players: Vec<(usize, u64)> = self
            .standings
            .iter()
            .filter(|standing| {
                let name = config.players[standing.player].name();
                standing.moves == 0 && self.forfeits.iter().any(|f| f.player == name)
            })
            .map(|standing| (standing.player, standing.games))
            .collect();
        players.sort_unstable();
        players
    }

    /// Games played, in all pairs.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.pairings.iter().map(Pairing::games).sum()
    }

    /// Points `a` scored against `b`, over their games (0 to 1), or `None`
    /// for a player against itself and for a pair that played no game (a
    /// round robin stopped early).
    #[must_use]
    pub fn score_between(&self, a: usize, b: usize) -> Option<f64> {
        self.pairings
            .iter()
            .filter(|p| p.games() > 0)
            .find_map(|p| {
                let points = |wins: u64| (wins as f64 + p.draws as f64 / 2.0) / p.games() as f64;
                if (p.a, p.b) == (a, b) {
                    Some(points(p.a_wins))
                } else if (p.a, p.b) == (b, a) {
                    Some(points(p.b_wins))
                } else {
                    None
                }
            })
    }
}

/// Play the round robin, until all its games are played or `stop` is set
/// (then the results are those of the games finished, as in
/// [`arena::run`]); `progress` is told the number of finished games now
/// and then.
///
/// # Errors
/// Fewer than two players, a player that cannot play these rules, an
/// opening that leaves no game undecided, or a player that offers an
/// illegal move.
pub fn run(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
) -> Result<Results, ArenaError> {
    play(config, stop, progress, None)
}

/// [`run`], handing every game finished to `record` in the order they are
/// scheduled, round by round (each round every pair's next two games, one
/// with each player as X; whatever the threads, as [`arena::run_recorded`]
/// does). Game `i` is game `i % games` of pair `i / games`, the pairs in
/// [`Config`]'s order: (0, 1), (0, 2), …, (1, 2), ….
///
/// # Errors
/// As [`run`].
pub fn run_recorded(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
    mut record: impl FnMut(arena::Played),
) -> Result<Results, ArenaError> {
    play(config, stop, progress, Some(&mut record))
}

fn play(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
    mut record: Option<&mut dyn FnMut(arena::Played)>,
) -> Result<Results, ArenaError> {
    if config.players.len() < 2 {
        return Err(ArenaError::TooFewPlayers);
    }
    for player in &config.players {
        player.check(config.rules)?;
    }
    let pairs = config.pairs();
    // An opening the board cannot have, before any game starts.
    config.opening.check(
        config.rules,
        config.seed,
        (0..pairs.len() as u64).flat_map(|pair| {
            (0..config.games.div_ceil(2)).map(move |game| opening_key(pair, game * 2))
        }),
    )?;
    // Every game is kept as played, to compare it with its pair's others
    // with the same seats and opening, and handed on when recorded.
    let mut replays = Replays::default();
    let mut games = Vec::new();
    arena::run_jobs(
        config.total_games(),
        config.threads,
        stop,
        progress,
        |turn| {
            let index = scheduled(turn, pairs.len() as u64, config.games);
            let pair = (index / config.games) as usize;
            let (a, b) = pairs[pair];
            // The pair's players swap seats game by game; X always moves first.
            let a_is_x = (index % config.games).is_multiple_of(2);
            let seats = if a_is_x { [a, b] } else { [b, a] };
            let key = opening_key(index / config.games, index % config.games);
            let Some((result, played)) = arena::play_one(
                config.rules,
                [&config.players[seats[0]], &config.players[seats[1]]],
                Player::X,
                config.seed,
                index,
                &config.opening.for_pair(
                    config.rules,
                    config.seed,
                    key,
                    index % config.games / 2,
                )?,
                true,
                stop,
            )?
            else {
                return Ok(None);
            };
            let a_side = if a_is_x { &result.x } else { &result.o };
            let b_side = if a_is_x { &result.o } else { &result.x };
            let pairing = Pairing {
                a,
                b,
                a_wins: a_side.wins,
                b_wins: b_side.wins,
                draws: result.draws,
            };
            let moves = [a_side.moves, b_side.moves];
            Ok(Some((pair, (pairing, moves), result.forfeits, played)))
        },
        |(pair, pairing, forfeits, played)| {
            if let Some(played) = played {
                replays.add(pair, config.games, &played);
                if let Some(record) = &mut record {
                    record(played);
                }
            }
            games.push((pair, pairing, forfeits));
        },
    )?;
    // In game order, whatever the order played.
    let mut forfeits: Vec<arena::Forfeit> = games
        .iter()
        .flat_map(|(_, _, f)| f.iter().cloned())
        .collect();
    forfeits.sort_by_key(|f| f.game);
    let mut pairings: Vec<Pairing> = pairs
        .iter()
        .map(|&(a, b)| Pairing {
            a,
            b,
            ..Pairing::default()
        })
        .collect();
    let mut moves = vec![0; config.players.len()];
    for (pair, (game, made), _) in &games {
        let pairing = &mut pairings[*pair];
        pairing.a_wins += game.a_wins;
        pairing.b_wins += game.b_wins;
        pairing.draws += game.draws;
        moves[game.a] += made[0];
        moves[game.b] += made[1];
    }
    let ratings = elo(config.players.len(), &pairings);
    let mut standings: Vec<Standing> = (0..config.players.len())
        .map(|player| {
            let mut line = Standing {
                player,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                score: 0.0,
                moves: moves[player],
                elo: ratings[player].0,
                elo_95: ratings[player].1,
            };
            for p in &pairings {
                let (wins, losses) = if p.a == player {
                    (p.a_wins, p.b_wins)
                } else if p.b == player {
                    (p.b_wins, p.a_wins)
                } else {
                    continue;
                };
                line.games += p.games();
                line.wins += wins;
                line.losses += losses;
                line.draws += p.draws;
            }
            if line.games > 0 {
                line.score = (line.wins as f64 + line.draws as f64 / 2.0) / line.games as f64;
            }
            line
        })
        .collect();
    standings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.player.cmp(&b.player)));
    Ok(Results {
        pairings,
        standings,
        forfeits,
        replayed_games: replays.count(),
    })
}

/// Each pair's games grouped by seats and opening: the first game of
/// each group, how many games it has, and whether they all were that game.
#[derive(Default)]
struct Replays(std::collections::HashMap<Seating, (arena::Played, u64, bool)>);

/// A pair, whether its first player has X, and the opening.
type Seating = (usize, bool, Vec<oxo_core::Cell>);

impl Replays {
    /// Game `played` of pair `pair` (of `games` a pair).
    fn add(&mut self, pair: usize, games: u64, played: &arena::Played) {
        let a_is_x = (played.index % games).is_multiple_of(2);
        let key = (pair, a_is_x, played.opening.clone());
        let same = |a: &arena::Played, b: &arena::Played| {
            (&a.moves, a.winner, &a.ending) == (&b.moves, b.winner, &b.ending)
        };
        self.0
            .entry(key)
            .and_modify(|(first, count, alike)| {
                *count += 1;
                *alike &= same(first, played);
            })
            .or_insert_with(|| (played.clone(), 1, true));
    }

    /// Games after the first of each group whose games were all alike.
    fn count(&self) -> u64 {
        self.0
            .values()
            .filter(|(_, _, alike)| *alike)
            .map(|(_, count, _)| count - 1)
            .sum()
    }
}

/// The [`arena::opening`] key of game `game` of pair `pair`: games 2j and
/// 2j + 1 of a pair share an opening, one seat each.
fn opening_key(pair: u64, game: u64) -> u64 {
    (pair << 32) | (game / 2)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::StrategyKind;

    fn config(players: &[StrategyKind], games: u64, threads: usize) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            players: players.iter().map(|&k| Entrant::strategy(k)).collect(),
            games,
            seed: 9,
            threads,
            opening: arena::Opening::Random(0),
        }
    }

    #[test]
    fn every_pair_meets_in_both_seats_and_results_do_not_depend_on_threads() {
        let kinds = [
            StrategyKind::Random,
            StrategyKind::Rules,
            StrategyKind::Perfect,
        ];
        let one = run(&config(&kinds, 40, 1), &AtomicBool::new(false), |_| {}).unwrap();
        let three = run(&config(&kinds, 40, 3), &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!(one, three);
        assert_eq!(one.pairings.len(), 3);
        for p in &one.pairings {
            assert_eq!(p.games(), 40);
        }
        for s in &one.standings {
            assert_eq!(s.games, 80);
            assert_eq!(s.wins + s.draws + s.losses, 80);
        }
        // Perfect never loses; random is last. (Perfect is not always
        // first: it plays any value-keeping move, not the one most likely
        // to make random blunder, so rules can beat random more often.)
        let perfect = one.standings.iter().find(|s| s.player == 2).unwrap();
        assert_eq!(perfect.losses, 0);
        assert_eq!(one.standings.last().unwrap().player, 0);
        assert!(one.standings.windows(2).all(|w| w[0].elo >= w[1].elo));
    }

    /// Every game is handed on in the order played, round by round (every
    /// pair's games 0 and 1, then the odd game 2 of each), with its seats:
    /// each pair's players swap X game by game, X moving first, and the
    /// results are those of a run without records.
    #[test]
    fn recorded_games_come_round_by_round_with_their_seats() {
        let c = config(
            &[
                StrategyKind::Random,
                StrategyKind::Rules,
                StrategyKind::Random,
            ],
            3,
            2,
        );
        let names = ["random", "rules", "random"];
        let mut played = Vec::new();
        let results =
            run_recorded(&c, &AtomicBool::new(false), |_| {}, |p| played.push(p)).unwrap();
        assert_eq!(results, run(&c, &AtomicBool::new(false), |_| {}).unwrap());
        let seats: Vec<(u64, &str, &str)> = played
            .iter()
            .map(|p| (p.index, p.x.as_str(), p.o.as_str()))
            .collect();
        let pairs = [(0, 1), (0, 2), (1, 2)];
        // (pair, game of the pair) in the order played.
        let order = [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (2, 0),
            (2, 1),
            (0, 2),
            (1, 2),
            (2, 2),
        ];
        let expected: Vec<(u64, &str, &str)> = order
            .iter()
            .map(|&(pair, game)| {
                let (a, b) = pairs[pair];
                let (x, o) = if game % 2 == 0 { (a, b) } else { (b, a) };
                ((pair * 3 + game) as u64, names[x], names[o])
            })
            .collect();
        assert_eq!(seats, expected);
        assert!(played.iter().all(|p| p.first == Player::X));
        let decided = played.iter().filter(|p| p.winner.is_some()).count() as u64;
        let wins: u64 = results.pairings.iter().map(|p| p.a_wins + p.b_wins).sum();
        assert_eq!(decided, wins);
    }

    /// Stopped in the last pair's first game (the last player's third):
    /// the round robin has the first round of the other pairs, not the
    /// first pair's whole match.
    #[test]
    fn a_stopped_round_robin_has_the_games_finished() {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let mut c = config(&[StrategyKind::Random; 3], 4, 1);
        c.players[2] = arena::tests::stopping(&stop, 3, false);
        c.players[1] = Entrant::strategy(StrategyKind::Rules);
        let results = run(&c, &stop, |_| {}).unwrap();
        assert_eq!(results.games(), 4, "{results:?}");
        assert_eq!(
            results
                .pairings
                .iter()
                .map(Pairing::games)
                .collect::<Vec<_>>(),
            [2, 2, 0]
        );
        assert!(results.forfeits.is_empty(), "{results:?}");
        assert!(results.score_between(0, 1).is_some());
        assert_eq!(results.score_between(1, 2), None, "no game, no score");
        let games: Vec<u64> = (0..3)
            .map(|p| {
                results
                    .standings
                    .iter()
                    .find(|s| s.player == p)
                    .unwrap()
                    .games
            })
            .collect();
        assert_eq!(games, [4, 2, 2]);
        assert!(results.standings.iter().all(|s| s.elo.is_finite()));
    }

    /// Players that always choose alike play each seating's game over and
    /// over: two of four games replay an earlier one.
    #[test]
    fn repeated_games_are_counted_once() {
        struct FirstLegal;
        impl crate::Strategy for FirstLegal {
            fn choose(&mut self, game: &oxo_core::Game) -> Option<oxo_core::Cell> {
                game.legal_moves().next()
            }
            fn name(&self) -> &str {
                "first"
            }
        }
        let first = |name| {
            Entrant::external(name, |_, _| {
                Ok(Box::new(FirstLegal) as Box<dyn crate::Strategy>)
            })
        };
        let mut c = config(&[StrategyKind::Random; 2], 4, 2);
        c.players = vec![first("a"), first("b")];
        let results = run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!((results.games(), results.replayed_games), (4, 2));
        let c = config(&[StrategyKind::Random, StrategyKind::Rules], 1, 1);
        let results = run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!((results.games(), results.replayed_games), (1, 0));
    }

    /// A player that never moves forfeits every game; the forfeits are
    /// listed in game order, not in the order played (round by round).
    #[test]
    fn forfeits_are_listed_in_game_order() {
        struct Mute;
        impl crate::Strategy for Mute {
            fn choose(&mut self, _: &oxo_core::Game) -> Option<oxo_core::Cell> {
                None
            }
            fn name(&self) -> &str {
                "mute"
            }
        }
        let mut c = config(&[StrategyKind::Random; 3], 4, 1);
        c.players[0] =
            Entrant::external(
                "mute",
                |_, _| Ok(Box::new(Mute) as Box<dyn crate::Strategy>),
            );
        let results = run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let games: Vec<u64> = results.forfeits.iter().map(|f| f.game).collect();
        assert_eq!(games, (0..8).collect::<Vec<_>>());
    }

    /// Every game of the round robin is played once, each pair's in
    /// order, round by round.
    #[test]
    fn the_schedule_plays_every_game_once_round_by_round() {
        for (pairs, games) in [(1, 1), (1, 4), (3, 1), (3, 2), (3, 5), (6, 10), (10, 7)] {
            let order: Vec<u64> = (0..pairs * games)
                .map(|turn| scheduled(turn, pairs, games))
                .collect();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..pairs * games).collect::<Vec<_>>());
            // After each round, every pair has played as many games.
            for round in 1..=games / 2 {
                let played = &order[..(round * 2 * pairs) as usize];
                for pair in 0..pairs {
                    let of_pair = played.iter().filter(|&&i| i / games == pair).count();
                    assert_eq!(of_pair as u64, 2 * round, "{pairs} pairs, {games} games");
                }
            }
        }
    }

    #[test]
    fn one_player_is_not_a_tournament() {
        let c = config(&[StrategyKind::Random], 10, 1);
        assert!(matches!(
            run(&c, &AtomicBool::new(false), |_| {}),
            Err(ArenaError::TooFewPlayers)
        ));
    }

    /// Every pair's openings are made before the first game (see the
    /// arena's test of the same board): some pair has none here.
    #[test]
    fn a_missing_opening_refuses_the_round_robin_at_once() {
        let (counted, built) = arena::tests::counted_random();
        let mut config = config(&[StrategyKind::Random; 3], 200, 2);
        config.players = vec![counted; 3];
        config.rules = Rules::new(3, 5, 2).unwrap();
        config.seed = 0;
        config.opening = arena::Opening::Random(8);
        assert!(arena::opening(config.rules, 0, 0, 8).is_ok());
        assert!(matches!(
            run(&config, &AtomicBool::new(false), |_| {}),
            Err(ArenaError::NoOpening { moves: 8, .. })
        ));
        assert_eq!(
            built.load(Ordering::SeqCst),
            3,
            "only checked, no game played"
        );
    }
}
