//! `oxo arena`: computer players against each other, many games at once.
//!
//! Two modes share one engine: a match between two players ([`run`]) and a
//! round robin between several ([`tournament`](crate::tournament)). Games
//! are spread over threads, each game's seeds derived from the arena's seed
//! and the game's number, so results never depend on the thread count.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxo_ai::{BuildError, Strategy, StrategyKind};
use oxo_core::{BoardSize, Game, Outcome, Player, Rules};
use serde::Serialize;

use crate::solve::to_json;

/// Builds a fresh player for one game: the board and the game's seed.
pub type Build = dyn Fn(Rules, u64) -> Result<Box<dyn Strategy>, BuildError> + Send + Sync;

/// A player in the arena: a name for the tables and a way to build it.
#[derive(Clone)]
pub struct Entrant {
    name: String,
    build: Arc<Build>,
}

impl fmt::Debug for Entrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entrant").field("name", &self.name).finish()
    }
}

impl fmt::Display for Entrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Entrant {
    /// A player named `name`, built by `build` for every game.
    pub fn new(
        name: impl Into<String>,
        build: impl Fn(Rules, u64) -> Result<Box<dyn Strategy>, BuildError> + Send + Sync + 'static,
    ) -> Entrant {
        Entrant {
            name: name.into(),
            build: Arc::new(build),
        }
    }

    /// One of oxo's strategies, by kind.
    #[must_use]
    pub fn strategy(kind: StrategyKind) -> Entrant {
        Entrant::new(kind.name(), move |rules, seed| kind.build(rules, seed))
    }

    /// The name shown in tables.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A player for one game under `rules`.
    ///
    /// # Errors
    /// The player cannot play under these rules.
    pub fn build(&self, rules: Rules, seed: u64) -> Result<Box<dyn Strategy>, BuildError> {
        (self.build)(rules, seed)
    }
}

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    /// Board and win length.
    pub rules: Rules,
    /// The player playing X.
    pub x: Entrant,
    /// The player playing O.
    pub o: Entrant,
    /// Number of games.
    pub games: u64,
    /// Who moves first: a fixed side, or `None` to alternate (X first in
    /// even-numbered games).
    pub first: Option<Player>,
    /// Seed for every random choice; game `i` derives its own seeds from
    /// it, so results do not depend on how games are spread over threads.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// Tallies of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Games won.
    pub wins: u64,
    /// Moves made.
    pub moves: u64,
    /// Time spent choosing them.
    pub thinking: Duration,
}

impl SideStats {
    /// Average thinking time per move, in microseconds.
    #[must_use]
    pub fn micros_per_move(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.thinking.as_secs_f64() * 1e6 / self.moves as f64
        }
    }
}

/// What happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    /// Games played.
    pub games: u64,
    /// Drawn games.
    pub draws: u64,
    /// X's side.
    pub x: SideStats,
    /// O's side.
    pub o: SideStats,
    /// Games in which X moved first.
    pub x_first: u64,
    /// Wins by whoever moved first.
    pub first_mover_wins: u64,
}

impl Results {
    /// Average game length in plies.
    #[must_use]
    pub fn average_plies(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (self.x.moves + self.o.moves) as f64 / self.games as f64
    }

    fn add(&mut self, other: &Results) {
        self.games += other.games;
        self.draws += other.draws;
        self.x_first += other.x_first;
        self.first_mover_wins += other.first_mover_wins;
        for (mine, theirs) in [(&mut self.x, &other.x), (&mut self.o, &other.o)] {
            mine.wins += theirs.wins;
            mine.moves += theirs.moves;
            mine.thinking += theirs.thinking;
        }
    }
}

/// Why an arena could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// A strategy cannot play these rules.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A round robin needs two players at least.
    #[error("a round robin needs at least two players")]
    TooFewPlayers,
    /// A strategy offered an illegal move (a bug in it).
    #[error("{strategy} offered an illegal move in game {game}: {detail}")]
    IllegalMove {
        /// The strategy.
        strategy: String,
        /// The game's index.
        game: u64,
        /// What was wrong.
        detail: String,
    },
}

/// The seed of game `index` for one side: a SplitMix64 step, so nearby
/// games get unrelated seeds.
#[must_use]
pub fn game_seed(seed: u64, index: u64, side: Player) -> u64 {
    let mut z = seed
        .wrapping_add(index.wrapping_mul(2).wrapping_add(side.index() as u64))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Play every game, `config.threads` at a time; `progress` is told the
/// number of finished games now and then (from the calling thread).
///
/// # Errors
/// A player that cannot play these rules, or that offers an illegal move.
pub fn run(config: &Config, progress: impl FnMut(u64)) -> Result<Results, ArenaError> {
    // Fail before starting threads if a player cannot play at all.
    config.x.build(config.rules, 0)?;
    config.o.build(config.rules, 0)?;
    let per_game = run_jobs(config.games, config.threads, progress, |index| {
        let first = config.first.unwrap_or(if index.is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        });
        play_one(
            config.rules,
            [&config.x, &config.o],
            first,
            config.seed,
            index,
        )
    })?;
    let mut total = Results::default();
    for result in &per_game {
        total.add(result);
    }
    Ok(total)
}

/// Run `job(0..count)` on `threads` threads and return the results in
/// index order; `progress` is told the number of finished jobs now and
/// then, from the calling thread. The first error stops the rest.
pub(crate) fn run_jobs<R: Send>(
    count: u64,
    threads: usize,
    mut progress: impl FnMut(u64),
    job: impl Fn(u64) -> Result<R, ArenaError> + Sync,
) -> Result<Vec<R>, ArenaError> {
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let running = AtomicU64::new(threads.max(1) as u64);
    let results: Mutex<Vec<(u64, R)>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<ArenaError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                // Counts this worker out however it ends, even by a panic,
                // so the progress loop below never waits for it forever.
                let _leaving = Leaving(&running);
                let mut mine = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count || failure.lock().is_ok_and(|f| f.is_some()) {
                        break;
                    }
                    match job(index) {
                        Ok(result) => mine.push((index, result)),
                        Err(err) => {
                            if let Ok(mut slot) = failure.lock() {
                                slot.get_or_insert(err);
                            }
                            break;
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
                if let Ok(mut all) = results.lock() {
                    all.append(&mut mine);
                }
            });
        }
        // Report progress from this thread until the workers finish.
        loop {
            let finished = done.load(Ordering::Relaxed);
            progress(finished);
            if finished >= count
                || running.load(Ordering::Acquire) == 0
                || failure.lock().is_ok_and(|f| f.is_some())
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    if let Some(err) = failure.into_inner().ok().flatten() {
        return Err(err);
    }
    let mut all = results.into_inner().unwrap_or_default();
    all.sort_unstable_by_key(|&(index, _)| index);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

/// Decrements a count of running workers when dropped.
struct Leaving<'a>(&'a AtomicU64);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

/// Play game `index`: `players[0]` as X, `players[1]` as O, `first` to move.
pub(crate) fn play_one(
    rules: Rules,
    players: [&Entrant; 2],
    first: Player,
    seed: u64,
    index: u64,
) -> Result<Results, ArenaError> {
    let mut x = players[0].build(rules, game_seed(seed, index, Player::X))?;
    let mut o = players[1].build(rules, game_seed(seed, index, Player::O))?;
    let mut game = Game::starting_with(rules, first);
    let mut result = Results {
        games: 1,
        x_first: u64::from(first == Player::X),
        ..Results::default()
    };
    while !game.is_over() {
        let mover = game.to_move();
        let (strategy, stats): (&mut Box<dyn Strategy>, &mut SideStats) = match mover {
            Player::X => (&mut x, &mut result.x),
            Player::O => (&mut o, &mut result.o),
        };
        let start = Instant::now();
        let choice = strategy.choose(&game);
        stats.thinking += start.elapsed();
        stats.moves += 1;
        let illegal = |detail: String| ArenaError::IllegalMove {
            strategy: strategy.name().to_owned(),
            game: index,
            detail,
        };
        let cell = choice.ok_or_else(|| illegal(format!("no move in {game}")))?;
        game.play(cell)
            .map_err(|e| illegal(format!("{cell} in {game}: {e}")))?;
    }
    match game.outcome() {
        Some(Outcome::Win(Player::X)) => result.x.wins = 1,
        Some(Outcome::Win(Player::O)) => result.o.wins = 1,
        _ => result.draws = 1,
    }
    result.first_mover_wins = u64::from(game.outcome() == Some(Outcome::Win(first)));
    Ok(result)
}

/// The readable results table.
#[must_use]
pub fn table(config: &Config, results: &Results, elapsed: Duration) -> String {
    let pct = |n: u64| {
        if results.games == 0 {
            0.0
        } else {
            100.0 * n as f64 / results.games as f64
        }
    };
    let x_name = format!("X {}", config.x);
    let o_name = format!("O {}", config.o);
    let mut out = String::new();
    out.push_str(&format!(
        "{} games of {} (seed {}), {} moving first{}\n",
        results.games,
        config.rules,
        config.seed,
        match config.first {
            Some(p) => format!("{p} always"),
            None => "X and O taking turns".to_owned(),
        },
        if config.threads > 1 {
            format!(", {} threads", config.threads)
        } else {
            String::new()
        }
    ));
    out.push_str(&format!(
        "  {:<14} {:>8} {:>7}   {:>12}\n",
        "", "wins", "%", "per move"
    ));
    for (name, side) in [(x_name, &results.x), (o_name, &results.o)] {
        out.push_str(&format!(
            "  {:<14} {:>8} {:>6.1}%   {:>9.1} µs\n",
            name,
            side.wins,
            pct(side.wins),
            side.micros_per_move()
        ));
    }
    out.push_str(&format!(
        "  {:<14} {:>8} {:>6.1}%\n",
        "draws",
        results.draws,
        pct(results.draws)
    ));
    out.push_str(&format!(
        "  average game {:.2} plies; the first mover won {} games; {:.2} s in all\n",
        results.average_plies(),
        results.first_mover_wins,
        elapsed.as_secs_f64()
    ));
    out
}

/// Rounded to `places` decimals, for JSON that reads well.
pub(crate) fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// The results as one JSON object.
#[must_use]
pub fn json(config: &Config, results: &Results, elapsed: Duration) -> String {
    #[derive(Serialize)]
    struct Json<'a> {
        x: &'a str,
        o: &'a str,
        size: BoardSize,
        k: u32,
        seed: u64,
        games: u64,
        x_wins: u64,
        o_wins: u64,
        draws: u64,
        x_first: u64,
        average_plies: f64,
        x_us_per_move: f64,
        o_us_per_move: f64,
        seconds: f64,
    }
    to_json(&Json {
        x: config.x.name(),
        o: config.o.name(),
        size: config.rules.size(),
        k: config.rules.k(),
        seed: config.seed,
        games: results.games,
        x_wins: results.x.wins,
        o_wins: results.o.wins,
        draws: results.draws,
        x_first: results.x_first,
        average_plies: round(results.average_plies(), 3),
        x_us_per_move: round(results.x.micros_per_move(), 2),
        o_us_per_move: round(results.o.micros_per_move(), 2),
        seconds: round(elapsed.as_secs_f64(), 3),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(x: StrategyKind, o: StrategyKind, games: u64) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            x: Entrant::strategy(x),
            o: Entrant::strategy(o),
            games,
            first: None,
            seed: 42,
            threads: 2,
        }
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let mut one = config(StrategyKind::Random, StrategyKind::Rules, 300);
        one.threads = 1;
        let many = Config {
            threads: 3,
            ..one.clone()
        };
        let a = run(&one, |_| {}).unwrap();
        let b = run(&many, |_| {}).unwrap();
        assert_eq!((a.x.wins, a.o.wins, a.draws), (b.x.wins, b.o.wins, b.draws));
        assert_eq!(a.x.moves + a.o.moves, b.x.moves + b.o.moves);
        assert_eq!(a.games, 300);
        assert_eq!(a.x_first, 150);
    }

    #[test]
    fn perfect_never_loses_10000_games_on_3x3() {
        for (x, o) in [
            (StrategyKind::Perfect, StrategyKind::Random),
            (StrategyKind::Random, StrategyKind::Perfect),
            (StrategyKind::Perfect, StrategyKind::Rules),
            (StrategyKind::Rules, StrategyKind::Perfect),
            (StrategyKind::Perfect, StrategyKind::Perfect),
        ] {
            let results = run(&config(x, o, 10_000), |_| {}).unwrap();
            assert_eq!(results.games, 10_000);
            if x == StrategyKind::Perfect {
                assert_eq!(results.o.wins, 0, "{x} v {o}: {results:?}");
            }
            if o == StrategyKind::Perfect {
                assert_eq!(results.x.wins, 0, "{x} v {o}: {results:?}");
            }
            if x == StrategyKind::Random || o == StrategyKind::Random {
                // Random blunders: perfect must punish it, not just draw.
                assert!(results.draws < 5_000, "{x} v {o}: {results:?}");
            }
        }
    }

    #[test]
    fn unsupported_strategies_fail_before_playing() {
        let mut c = config(StrategyKind::Perfect, StrategyKind::Random, 10);
        c.rules = Rules::new(15, 15, 5).unwrap();
        assert!(matches!(run(&c, |_| {}), Err(ArenaError::Build(_))));
    }

    #[test]
    fn outputs_name_both_sides() {
        let c = config(StrategyKind::Rules, StrategyKind::Random, 20);
        let results = run(&c, |_| {}).unwrap();
        let json = json(&c, &results, Duration::from_millis(5));
        assert!(json.starts_with("{\"x\":\"rules\",\"o\":\"random\",\"size\":\"3x3\",\"k\":3,\"seed\":42,\"games\":20,"), "{json}");
        let text = table(&c, &results, Duration::from_millis(5));
        assert!(text.contains("X rules"), "{text}");
        assert!(text.contains("O random"), "{text}");
    }
}
