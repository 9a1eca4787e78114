//! Matches between players, many games at once.
//!
//! Two modes share one engine: a match between two players ([`run`]) and a
//! round robin between several ([`tournament`](crate::tournament)). Games
//! are spread over threads, each game's seeds derived from the arena's seed
//! and the game's number, so results never depend on the thread count.
//!
//! A player is an [`Entrant`]: a name and a factory that makes a fresh
//! [`Strategy`] for every game. The arena does not care what is behind the
//! factory; it only tells oxo's own strategies, whose failures are bugs and
//! stop the arena, from [external](Entrant::external) players (an engine in
//! another process, say), whose failures lose the game as a referee would
//! rule.
//!
//! A run can be stopped early (on Ctrl-C, say): once its `stop` flag is
//! set no game starts, the games under way end at their next move
//! without a result, and the results are those of the games finished.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//!
//! use oxo_ai::StrategyKind;
//! use oxo_ai::arena::{self, Entrant};
//! use oxo_core::Rules;
//!
//! let config = arena::Config {
//!     rules: Rules::TIC_TAC_TOE,
//!     x: Entrant::strategy(StrategyKind::Perfect),
//!     o: Entrant::strategy(StrategyKind::Random),
//!     games: 20,
//!     first: None,
//!     seed: 1,
//!     threads: 2,
//!     opening: arena::Opening::Random(0),
//! };
//! let results = arena::run(&config, &AtomicBool::new(false), |_finished| {})?;
//! assert_eq!(results.games, 20);
//! assert_eq!(results.o.wins, 0, "perfect play never loses");
//! # Ok::<(), oxo_ai::arena::ArenaError>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use oxo_core::{Cell, Game, Outcome, Player, Rules};

use crate::{BuildError, Strategy, StrategyKind};

/// Builds a fresh player for one game: the board, the game's seed, and
/// the game and side it is for.
pub type Build = dyn Fn(Rules, u64, Place) -> Result<Box<dyn Strategy>, ArenaError> + Send + Sync;

/// The game a player is built for (its index, as [`Played::index`]) and
/// the side it plays there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The game's index.
    pub game: u64,
    /// The side the player takes.
    pub side: Player,
}

/// A player in the arena: a name for the tables and a way to build it.
#[derive(Clone)]
pub struct Entrant {
    name: String,
    build: Arc<Build>,
    /// A player outside oxo: failing to start or to give a move loses the
    /// game (for oxo's own strategies it is a bug, and stops the arena).
    external: bool,
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
            build: Arc::new(move |rules, seed, _| Ok(build(rules, seed)?)),
            external: false,
        }
    }

    /// A player from outside oxo named `name`, such as an engine in another
    /// process, made by `start` for every game. The referee's rules apply to
    /// it: a player that cannot start (`start`'s error says why), or gives
    /// no legal move ([`Strategy::failure`] says why), loses that game, and
    /// the arena goes on.
    pub fn external(
        name: impl Into<String>,
        start: impl Fn(Rules, u64) -> Result<Box<dyn Strategy>, String> + Send + Sync + 'static,
    ) -> Entrant {
        Entrant::external_placed(name, move |rules, seed, _| start(rules, seed))
    }

    /// [`Entrant::external`], `start` told the game and side each player is
    /// for (to label what it logs, say).
    pub fn external_placed(
        name: impl Into<String>,
        start: impl Fn(Rules, u64, Place) -> Result<Box<dyn Strategy>, String> + Send + Sync + 'static,
    ) -> Entrant {
        let name = name.into();
        let player = name.clone();
        Entrant {
            name,
            build: Arc::new(move |rules, seed, place| {
                start(rules, seed, place).map_err(|detail| ArenaError::Start {
                    player: player.clone(),
                    detail,
                })
            }),
            external: true,
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

    /// A player for one game under `rules`, with the game's seed, for
    /// `place`.
    ///
    /// # Errors
    /// The player cannot play under these rules.
    pub fn build(
        &self,
        rules: Rules,
        seed: u64,
        place: Place,
    ) -> Result<Box<dyn Strategy>, ArenaError> {
        (self.build)(rules, seed, place)
    }

    /// Fail early if one of oxo's strategies cannot play under `rules`
    /// (an external player is judged game by game: one that fails to start
    /// loses that game).
    ///
    /// # Errors
    /// The strategy's refusal.
    pub fn check(&self, rules: Rules) -> Result<(), ArenaError> {
        if !self.external {
            let place = Place {
                game: 0,
                side: Player::X,
            };
            self.build(rules, 0, place)?;
        }
        Ok(())
    }

    /// Whether this is a player outside oxo ([`Entrant::external`]).
    #[must_use]
    pub const fn is_external(&self) -> bool {
        self.external
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
    /// What every two games start from.
    pub opening: Opening,
}

/// What the games of each pair (games `2j` and `2j + 1`) start from, both
/// from the same position, marks alternating from whoever moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opening {
    /// That many random moves near the centre (see [`opening`]); 0 for
    /// none.
    Random(u32),
    /// Positions given, each the cells in the order played from the first
    /// mover's: a pair's `j`th two games start from position `j` modulo
    /// their number (so each is played from both sides, in turn, and in a
    /// round robin by every pairing alike, as tournaments play an opening
    /// book). At least one.
    Given(Arc<[Vec<Cell>]>),
}

impl Default for Opening {
    fn default() -> Opening {
        Opening::Random(0)
    }
}

impl From<u32> for Opening {
    fn from(moves: u32) -> Opening {
        Opening::Random(moves)
    }
}

impl Opening {
    /// The opening of the two games keyed `key` (a random opening's
    /// [`opening`] key), their pairing's `j`th two.
    ///
    /// # Errors
    /// As [`opening`], for random ones.
    pub fn for_pair(
        &self,
        rules: Rules,
        seed: u64,
        key: u64,
        j: u64,
    ) -> Result<Vec<Cell>, ArenaError> {
        match self {
            Opening::Random(moves) => opening(rules, seed, key, *moves),
            Opening::Given(positions) => {
                let at = usize::try_from(j % positions.len() as u64).unwrap_or(0);
                Ok(positions[at].clone())
            }
        }
    }

    /// Make sure every pair keyed by `keys` has an opening, before any game:
    /// random ones as [`check_openings`] does; given ones each playable on
    /// `rules` and leaving the game undecided.
    ///
    /// # Errors
    /// [`ArenaError::NoOpening`], [`ArenaError::BadOpening`].
    pub(crate) fn check(
        &self,
        rules: Rules,
        seed: u64,
        keys: impl IntoIterator<Item = u64>,
    ) -> Result<(), ArenaError> {
        match self {
            Opening::Random(moves) => check_openings(rules, seed, *moves, keys),
            Opening::Given(positions) => {
                if positions.is_empty() {
                    return Err(ArenaError::BadOpening {
                        index: 0,
                        detail: "no opening given".to_owned(),
                    });
                }
                for (i, cells) in positions.iter().enumerate() {
                    let bad = |detail: String| ArenaError::BadOpening {
                        index: i + 1,
                        detail,
                    };
                    let mut game = Game::new(rules);
                    for &cell in cells {
                        game.play(cell).map_err(|e| bad(format!("{cell}: {e}")))?;
                    }
                    if game.is_over() {
                        return Err(bad(format!("it leaves the {rules} game decided")));
                    }
                }
                Ok(())
            }
        }
    }
}

/// Tallies of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Games won.
    pub wins: u64,
    /// Games lost for giving no move (an external player's illegal, late
    /// or missing answer, or its failure to start).
    pub forfeits: u64,
    /// Moves made.
    pub moves: u64,
    /// Time spent choosing them (not the time of a move not given).
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

/// A game lost for a move not given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The game's index.
    pub game: u64,
    /// The player at fault.
    pub player: String,
    /// Its side.
    pub side: Player,
    /// What went wrong.
    pub reason: String,
}

/// What happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    /// Wins by whoever moved first (not counting games in which nobody
    /// moved: see `unplayed`).
    pub first_mover_wins: u64,
    /// Games lost before either player made a move: by an external player
    /// that could not start, or that gave no first move.
    pub unplayed: u64,
    /// Games lost for a move not given, in game order.
    pub forfeits: Vec<Forfeit>,
}

impl Results {
    /// Average length in plies of the games with a move (a game lost
    /// before either side moved has no length to average); 0 without one.
    #[must_use]
    pub fn average_plies(&self) -> f64 {
        let played = self.games - self.unplayed;
        if played == 0 {
            return 0.0;
        }
        (self.x.moves + self.o.moves) as f64 / played as f64
    }

    /// The sides whose player never made a move and lost a game for it (an
    /// engine that would not start or never gave a legal move: the match
    /// measured nothing of it, even where it won on the other side's
    /// forfeits), X first.
    #[must_use]
    pub fn sides_never_moving(&self) -> Vec<Player> {
        [(Player::X, &self.x), (Player::O, &self.o)]
            .into_iter()
            .filter(|(_, side)| side.moves == 0 && side.forfeits > 0)
            .map(|(side, _)| side)
            .collect()
    }

    fn add(&mut self, other: &Results) {
        self.games += other.games;
        self.draws += other.draws;
        self.x_first += other.x_first;
        self.first_mover_wins += other.first_mover_wins;
        self.unplayed += other.unplayed;
        self.forfeits.extend(other.forfeits.iter().cloned());
        for (mine, theirs) in [(&mut self.x, &other.x), (&mut self.o, &other.o)] {
            mine.wins += theirs.wins;
            mine.forfeits += theirs.forfeits;
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
    /// An external player could not be started for a game (the arena
    /// scores that game as lost by it; the error is what its factory said).
    #[error("{player}: {detail}")]
    Start {
        /// The player's name.
        player: String,
        /// What went wrong.
        detail: String,
    },
    /// No opening of the moves asked that leaves the game undecided was
    /// found for some pair: every one tried gave a side k in a row or
    /// filled the board.
    #[error(
        "none of {OPENING_TRIES} random openings of {moves} moves tried leaves a \
         {rules} game undecided"
    )]
    NoOpening {
        /// The moves asked for.
        moves: u32,
        /// The board.
        rules: Rules,
    },
    /// A given opening cannot start a game: `index`, from 1, in the order
    /// given.
    #[error("opening {index}: {detail}")]
    BadOpening {
        /// The opening's number, from 1.
        index: usize,
        /// What is wrong with it.
        detail: String,
    },
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

/// The opening of games `2 * pair` and `2 * pair + 1`: `moves` different
/// cells near the centre of the board, chosen from `seed`, after which
/// nobody has won. Both games of a pair start from it, marks alternating
/// from whoever moves first, so that with the first move (or the seats)
/// changing between the two, each player takes each side of it once: how
/// engines are compared without two deterministic players repeating one
/// game.
///
/// # Errors
/// [`ArenaError::NoOpening`] if none of [`OPENING_TRIES`] openings tried
/// leaves the game undecided (on 3x3 k=2, no 8 moves do): the games would
/// otherwise start from another position than the one asked for.
pub fn opening(rules: Rules, seed: u64, pair: u64, moves: u32) -> Result<Vec<Cell>, ArenaError> {
    let asked = moves;
    let room = crate::opening_room(rules, moves);
    let moves = (moves as usize).min(room.len());
    // A stream of its own, apart from the players' seeds.
    let mut state = game_seed(seed ^ 0x6f70_656e_696e_6773, pair, Player::X);
    let mut next = || {
        state = game_seed(state, 1, Player::O);
        state
    };
    for _ in 0..OPENING_TRIES {
        let mut free = room.clone();
        let mut game = Game::new(rules);
        let mut cells = Vec::with_capacity(moves);
        while cells.len() < moves {
            let cell = free.swap_remove((next() % free.len() as u64) as usize);
            if game.play(cell).is_err() || game.is_over() {
                break;
            }
            cells.push(cell);
        }
        if cells.len() == moves {
            return Ok(cells);
        }
    }
    Err(ArenaError::NoOpening {
        moves: asked,
        rules,
    })
}

/// Random openings [`opening`] tries before it gives up.
pub const OPENING_TRIES: u32 = 1000;

/// Make sure the opening of every pair a run plays, keyed as [`opening`]'s
/// `pair`, exists before any game is played: a run whose thousandth pair
/// has none would otherwise stop with [`ArenaError::NoOpening`] hours in.
/// Openings shorter than the shortest win (2k − 1 moves) that leave a cell
/// empty always exist, so only longer ones are made, and then every one.
pub(crate) fn check_openings(
    rules: Rules,
    seed: u64,
    moves: u32,
    keys: impl IntoIterator<Item = u64>,
) -> Result<(), ArenaError> {
    let no_win_yet = u64::from(moves) < 2 * u64::from(rules.k()) - 1;
    if no_win_yet && (moves as usize) < rules.cell_count() {
        return Ok(());
    }
    for key in keys {
        opening(rules, seed, key, moves)?;
    }
    Ok(())
}

/// One game as it was played, for a look at its moves afterwards (such as
/// grading them: [`crate::grade::GameGrader`], or keeping them in a file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game's index.
    pub index: u64,
    /// The name of the player that played X, as [`Entrant::name`] gives it.
    pub x: String,
    /// The name of the player that played O.
    pub o: String,
    /// Who moved first (and marked the opening's first cell).
    pub first: Player,
    /// The opening's cells, marked in turn from `first`'s.
    pub opening: Vec<Cell>,
    /// The position after the opening.
    pub start: Game,
    /// The players' moves from there, in order.
    pub moves: Vec<Cell>,
    /// The time each of `moves` took, from asking the player to its
    /// answer (wall clock; for an external engine, its pipe's round trip
    /// included).
    pub times: Vec<Duration>,
    /// Who won (a forfeit is the other side's win), `None` for a draw.
    pub winner: Option<Player>,
    /// How the game ended.
    pub ending: Ending,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The last move made k in a row.
    Line,
    /// The last move filled the board without a line: a draw.
    Full,
    /// `side` gave no move and lost: an external player's illegal, late or
    /// missing answer, or its failure to start.
    Forfeit {
        /// The side at fault.
        side: Player,
        /// What went wrong, as [`Forfeit::reason`] says it.
        reason: String,
    },
}

/// Play every game, `config.threads` at a time, until all are played or
/// `stop` is set; `progress` is told the number of finished games now and
/// then (from the calling thread).
///
/// Once `stop` is set, no game starts and the games under way end at
/// their next move, or at a failure of an external player (which the stop
/// may have caused, as by ending its process), uncounted: the results
/// are those of the games finished, `Results::games` of them.
///
/// # Errors
/// A player that cannot play these rules, an opening that leaves no game
/// undecided ([`ArenaError::NoOpening`]), or a player that offers an
/// illegal move.
pub fn run(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
) -> Result<Results, ArenaError> {
    run_games(config, stop, progress, None)
}

/// [`run`], handing every game finished to `record` as it was played, in
/// game order, from the calling thread (so that a slow `record` never
/// holds up a game): each as soon as the games before it are handed on,
/// and those after a game the stop cut short once the run ends. A run
/// that fails may have handed on games before the failure and after it.
///
/// # Errors
/// As [`run`].
pub fn run_recorded(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
    mut record: impl FnMut(Played),
) -> Result<Results, ArenaError> {
    run_games(config, stop, progress, Some(&mut record))
}

fn run_games(
    config: &Config,
    stop: &AtomicBool,
    progress: impl FnMut(u64),
    mut record: Option<&mut dyn FnMut(Played)>,
) -> Result<Results, ArenaError> {
    // Fail before starting threads if a player cannot play at all.
    config.x.check(config.rules)?;
    config.o.check(config.rules)?;
    config
        .opening
        .check(config.rules, config.seed, 0..config.games.div_ceil(2))?;
    let recording = record.is_some();
    let mut total = Results::default();
    run_jobs(
        config.games,
        config.threads,
        stop,
        progress,
        |index| {
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
                &config
                    .opening
                    .for_pair(config.rules, config.seed, index / 2, index / 2)?,
                recording,
                stop,
            )
        },
        |(result, game)| {
            total.add(&result);
            if let (Some(record), Some(game)) = (record.as_mut(), game) {
                record(game);
            }
        },
    )?;
    Ok(total)
}

/// Run `job(0..count)` on `threads` threads, until all are done or `stop`
/// is set, and hand the result of each finished to `collect` in index
/// order (a job returns `None` when the stop cut it short), on the calling
/// thread: each as soon as every one before it is handed on; those after
/// a job the stop cut short (which sends nothing), when the workers are
/// done. `progress` is told the
/// number of finished jobs now and then, from the calling thread too. The
/// first error stops the rest.
pub(crate) fn run_jobs<R: Send>(
    count: u64,
    threads: usize,
    stop: &AtomicBool,
    mut progress: impl FnMut(u64),
    job: impl Fn(u64) -> Result<Option<R>, ArenaError> + Sync,
    mut collect: impl FnMut(R),
) -> Result<(), ArenaError> {
    let next = AtomicU64::new(0);
    let failure: Mutex<Option<ArenaError>> = Mutex::new(None);
    let (finished, results) = mpsc::channel::<(u64, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let finished = finished.clone();
            let (next, failure, job) = (&next, &failure, &job);
            // A worker's sender goes when it ends, however it ends (even by
            // a panic), so the loop below never waits for it forever.
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count
                        || stop.load(Ordering::SeqCst)
                        || failure.lock().is_ok_and(|f| f.is_some())
                    {
                        break;
                    }
                    match job(index) {
                        Ok(Some(result)) => {
                            if finished.send((index, result)).is_err() {
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(err) => {
                            if let Ok(mut slot) = failure.lock() {
                                slot.get_or_insert(err);
                            }
                            break;
                        }
                    }
                }
            });
        }
        drop(finished);
        // Results that came before an earlier one, by index, and the index
        // of the next to hand on.
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        let mut done = 0;
        let mut told = Instant::now();
        progress(0);
        loop {
            match results.recv_timeout(PROGRESS_EVERY) {
                Ok((index, result)) => {
                    done += 1;
                    waiting.insert(index, result);
                    while let Some(result) = waiting.remove(&due) {
                        collect(result);
                        due += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if told.elapsed() >= PROGRESS_EVERY {
                progress(done);
                told = Instant::now();
            }
        }
        progress(done);
        // The stop cut short the games before these.
        for result in waiting.into_values() {
            collect(result);
        }
    });
    match failure.into_inner().ok().flatten() {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// How often [`run_jobs`] tells its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Play game `index`: `players[0]` as X, `players[1]` as O, `first` to
/// move, from the cells of `opening` marked in turn (`first` marking the
/// first of them); with `record`, the game as played too. `None` if
/// `stop` was set before the game was over: before a move, or when an
/// external player failed (the stop may have been the cause, as by ending
/// its process), so no game cut short counts.
#[expect(clippy::too_many_arguments, reason = "one game's every setting")]
pub(crate) fn play_one(
    rules: Rules,
    players: [&Entrant; 2],
    first: Player,
    seed: u64,
    index: u64,
    opening: &[Cell],
    record: bool,
    stop: &AtomicBool,
) -> Result<Option<(Results, Option<Played>)>, ArenaError> {
    let mut result = Results {
        games: 1,
        x_first: u64::from(first == Player::X),
        ..Results::default()
    };
    let mut game = Game::starting_with(rules, first);
    for &cell in opening {
        game.play(cell).map_err(|e| ArenaError::IllegalMove {
            strategy: "the opening".to_owned(),
            game: index,
            detail: e.to_string(),
        })?;
    }
    let mut played = record.then(|| Played {
        index,
        x: players[0].name().to_owned(),
        o: players[1].name().to_owned(),
        first,
        opening: opening.to_vec(),
        start: game.clone(),
        moves: Vec::new(),
        times: Vec::new(),
        winner: None,
        ending: Ending::Full,
    });
    let finish = |result: Results, played: Option<Played>| {
        let winner = match (result.x.wins, result.o.wins) {
            (1, _) => Some(Player::X),
            (_, 1) => Some(Player::O),
            _ => None,
        };
        let ending = match (&result.forfeits[..], winner) {
            ([forfeit, ..], _) => Ending::Forfeit {
                side: forfeit.side,
                reason: forfeit.reason.clone(),
            },
            ([], Some(_)) => Ending::Line,
            ([], None) => Ending::Full,
        };
        Some((
            result,
            played.map(|p| Played {
                winner,
                ending,
                ..p
            }),
        ))
    };
    let stopped = || stop.load(Ordering::SeqCst);
    let [x, o] = [Player::X, Player::O].map(|side| {
        let place = Place { game: index, side };
        players[side.index()].build(rules, game_seed(seed, index, side), place)
    });
    // A player that cannot play loses; when neither can, the side to move
    // after the opening, asked first, does (so that two broken engines
    // split their games by who starts, not by side).
    let built = match (x, o) {
        (Ok(x), Ok(o)) => Ok((x, o)),
        (Err(e), Ok(_)) => Err((Player::X, e)),
        (Ok(_), Err(e)) => Err((Player::O, e)),
        (Err(ex), Err(eo)) => Err(match game.to_move() {
            Player::X => (Player::X, ex),
            Player::O => (Player::O, eo),
        }),
    };
    let (mut x, mut o) = match built {
        Ok(players) => players,
        Err((side, e)) => {
            let result = lost_at_start(result, players[side.index()], side, first, index, e)?;
            return Ok(finish(result, played).filter(|_| !stopped()));
        }
    };
    x.start_from(opening);
    o.start_from(opening);
    while !game.is_over() {
        if stopped() {
            return Ok(None);
        }
        let mover = game.to_move();
        let entrant = players[mover.index()];
        let (strategy, stats): (&mut Box<dyn Strategy>, &mut SideStats) = match mover {
            Player::X => (&mut x, &mut result.x),
            Player::O => (&mut o, &mut result.o),
        };
        let start = Instant::now();
        let choice = strategy.choose(&game);
        let thinking = start.elapsed();
        let moved = match choice {
            Some(cell) => game
                .play(cell)
                .map(|_| cell)
                .map_err(|e| format!("{cell} in {game}: {e}")),
            None => Err(strategy
                .failure()
                .unwrap_or_else(|| format!("no move in {game}"))),
        };
        match moved {
            Ok(cell) => {
                // Only a move given counts, with its time: a forfeited
                // non-move is neither a ply nor a move's thinking.
                stats.moves += 1;
                stats.thinking += thinking;
                if let Some(played) = &mut played {
                    played.moves.push(cell);
                    played.times.push(thinking);
                }
            }
            Err(reason) if entrant.is_external() => {
                // The referee's call: a move not given loses the game.
                forfeit(&mut result, entrant, mover, first, index, reason);
                if result.x.moves + result.o.moves == 0 {
                    unplayed(&mut result);
                }
                return Ok(finish(result, played).filter(|_| !stopped()));
            }
            Err(detail) => {
                return Err(ArenaError::IllegalMove {
                    strategy: strategy.name().to_owned(),
                    game: index,
                    detail,
                });
            }
        }
    }
    match game.outcome() {
        Some(Outcome::Win(Player::X)) => result.x.wins = 1,
        Some(Outcome::Win(Player::O)) => result.o.wins = 1,
        _ => result.draws = 1,
    }
    result.first_mover_wins = u64::from(game.outcome() == Some(Outcome::Win(first)));
    Ok(finish(result, played))
}

/// A player that could not be built for game `index`: an external player
/// that cannot start loses the game unplayed; any other failure stops the
/// arena.
fn lost_at_start(
    mut result: Results,
    entrant: &Entrant,
    side: Player,
    first: Player,
    index: u64,
    error: ArenaError,
) -> Result<Results, ArenaError> {
    match error {
        ArenaError::Start { detail, .. } => {
            forfeit(&mut result, entrant, side, first, index, detail);
            unplayed(&mut result);
            Ok(result)
        }
        other => Err(other),
    }
}

/// Mark a game lost before anybody moved: it has no first mover to win it.
fn unplayed(result: &mut Results) {
    result.unplayed = 1;
    result.first_mover_wins = 0;
}

/// Score game `index` as lost by `side` (played by `entrant`) for `reason`.
fn forfeit(
    result: &mut Results,
    entrant: &Entrant,
    side: Player,
    first: Player,
    index: u64,
    reason: String,
) {
    match side {
        Player::X => {
            result.x.forfeits += 1;
            result.o.wins = 1;
        }
        Player::O => {
            result.o.forfeits += 1;
            result.x.wins = 1;
        }
    }
    result.first_mover_wins = u64::from(side != first);
    result.forfeits.push(Forfeit {
        game: index,
        player: entrant.name().to_owned(),
        side,
        reason,
    });
}

#[cfg(test)]
pub(crate) mod tests {
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
            opening: Opening::Random(0),
        }
    }

    /// A random player that counts the players built for it (one for each
    /// check and each game).
    pub(crate) fn counted_random() -> (Entrant, Arc<AtomicU64>) {
        let built = Arc::new(AtomicU64::new(0));
        let count = Arc::clone(&built);
        let entrant = Entrant::new("counted", move |rules, seed| {
            count.fetch_add(1, Ordering::SeqCst);
            StrategyKind::Random.build(rules, seed)
        });
        (entrant, built)
    }

    /// On 3x5 k=2 eight stones with no two in a row are rare: the first
    /// pair's opening is found and some later pair's is not. The run is
    /// refused before its first game, not when it reaches that pair.
    #[test]
    fn every_pairs_opening_is_made_before_the_first_game() {
        let rules = Rules::new(3, 5, 2).unwrap();
        assert!(opening(rules, 0, 0, 8).is_ok());
        let missing = (0..300)
            .find(|&pair| opening(rules, 0, pair, 8).is_err())
            .expect("a pair without an opening");
        assert!(check_openings(rules, 0, 8, 0..missing).is_ok());
        assert!(matches!(
            check_openings(rules, 0, 8, 0..=missing),
            Err(ArenaError::NoOpening { moves: 8, .. })
        ));
        let (counted, built) = counted_random();
        let mut config = config(StrategyKind::Random, StrategyKind::Random, 2 * missing + 2);
        config.x = counted.clone();
        config.o = counted;
        config.rules = rules;
        config.seed = 0;
        config.opening = Opening::Random(8);
        assert!(matches!(
            run(&config, &AtomicBool::new(false), |_| {}),
            Err(ArenaError::NoOpening { moves: 8, .. })
        ));
        assert_eq!(
            built.load(Ordering::SeqCst),
            2,
            "only checked, no game played"
        );
    }

    #[test]
    fn openings_are_near_the_centre_shared_by_a_pair_and_decide_nothing() {
        let gomoku = Rules::new(15, 15, 5).unwrap();
        let mut seen = std::collections::HashSet::new();
        for pair in 0..200 {
            let cells = opening(gomoku, 7, pair, 4).unwrap();
            assert_eq!(
                cells,
                opening(gomoku, 7, pair, 4).unwrap(),
                "a function of its inputs"
            );
            assert_eq!(cells.len(), 4);
            for cell in &cells {
                assert!(
                    (4..=10).contains(&cell.row) && (4..=10).contains(&cell.col),
                    "{cell}"
                );
            }
            let mut distinct = cells.clone();
            distinct.sort_unstable_by_key(|c| (c.row, c.col));
            distinct.dedup();
            assert_eq!(distinct.len(), 4, "{cells:?}");
            seen.insert(cells);
        }
        assert!(seen.len() > 190, "openings vary: {} of 200", seen.len());
        // On 3x3 three moves never win, but four or five might: every
        // opening given leaves the game open.
        for pair in 0..100 {
            for moves in [3, 4, 5] {
                let cells = opening(Rules::TIC_TAC_TOE, 1, pair, moves).unwrap();
                let mut game = Game::new(Rules::TIC_TAC_TOE);
                for cell in &cells {
                    game.play(*cell).unwrap();
                }
                assert!(!game.is_over(), "{cells:?}");
            }
        }
        // On 1x2 one move is an opening; more fill the board, which ends
        // the game.
        let domino = Rules::new(1, 2, 2).unwrap();
        assert_eq!(opening(domino, 1, 0, 1).unwrap().len(), 1);
        assert!(matches!(
            opening(domino, 1, 0, 5),
            Err(ArenaError::NoOpening { moves: 5, .. })
        ));
        // Eight moves on 3x3 k=2 always make a line: refused, not an
        // empty opening (the games would start from the empty board).
        let k2 = Rules::new(3, 3, 2).unwrap();
        assert!(matches!(
            opening(k2, 1, 0, 8),
            Err(ArenaError::NoOpening { moves: 8, rules }) if rules == k2
        ));
        let mut config = config(StrategyKind::Random, StrategyKind::Rules, 4);
        config.rules = k2;
        config.opening = Opening::Random(8);
        assert!(matches!(
            run(&config, &AtomicBool::new(false), |_| {}),
            Err(ArenaError::NoOpening { .. })
        ));
    }

    #[test]
    fn games_start_from_the_openings() {
        let mut config = config(StrategyKind::Rules, StrategyKind::Rules, 20);
        config.rules = Rules::new(9, 9, 5).unwrap();
        config.opening = Opening::Random(4);
        let results = run(&config, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!(results.games, 20);
        // The opening's moves are nobody's: each side made its own only.
        assert!(results.average_plies() >= 4.0);
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let mut one = config(StrategyKind::Random, StrategyKind::Rules, 300);
        one.threads = 1;
        let many = Config {
            threads: 3,
            ..one.clone()
        };
        let a = run(&one, &AtomicBool::new(false), |_| {}).unwrap();
        let b = run(&many, &AtomicBool::new(false), |_| {}).unwrap();
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
            let results = run(&config(x, o, 10_000), &AtomicBool::new(false), |_| {}).unwrap();
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
    fn recorded_games_replay_to_their_results() {
        let mut c = config(StrategyKind::Rules, StrategyKind::Random, 30);
        c.rules = Rules::new(5, 5, 4).unwrap();
        c.opening = Opening::Random(2);
        let mut played = Vec::new();
        let results =
            run_recorded(&c, &AtomicBool::new(false), |_| {}, |p| played.push(p)).unwrap();
        // The same games as without a record (the clock aside).
        let untimed = |mut r: Results| {
            r.x.thinking = Duration::ZERO;
            r.o.thinking = Duration::ZERO;
            r
        };
        assert_eq!(
            untimed(results.clone()),
            untimed(run(&c, &AtomicBool::new(false), |_| {}).unwrap())
        );
        assert_eq!(played.len(), 30);
        let mut wins = [0, 0];
        for (i, p) in played.iter().enumerate() {
            assert_eq!(p.index, i as u64);
            assert_eq!((p.x.as_str(), p.o.as_str()), ("rules", "random"));
            assert_eq!(p.first, if i % 2 == 0 { Player::X } else { Player::O });
            // The opening and the first mover make the start.
            let mut game = Game::starting_with(c.rules, p.first);
            for &cell in &p.opening {
                game.play(cell).unwrap();
            }
            assert_eq!(game, p.start);
            assert_eq!(p.opening.len(), 2);
            for &cell in &p.moves {
                game.play(cell).unwrap();
            }
            assert_eq!(game.outcome().and_then(|o| o.winner()), p.winner);
            let ending = if game.winning_line().is_some() {
                Ending::Line
            } else {
                Ending::Full
            };
            assert_eq!(p.ending, ending);
            if let Some(w) = p.winner {
                wins[w.index()] += 1;
            }
        }
        assert_eq!(wins, [results.x.wins, results.o.wins]);
    }

    /// Job 0 finishes only once job 1 has (the other thread's): the
    /// results are still handed on in index order; and a job the stop cut
    /// short leaves a gap, the results after it handed on at the end.
    #[test]
    fn jobs_are_handed_on_in_index_order() {
        for cut in [false, true] {
            let stop = AtomicBool::new(false);
            let one_done = AtomicBool::new(false);
            let mut handed = Vec::new();
            run_jobs(
                3,
                2,
                &stop,
                |_| {},
                |index| {
                    if index == 0 {
                        while !one_done.load(Ordering::SeqCst) {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        if cut {
                            stop.store(true, Ordering::SeqCst);
                            return Ok(None);
                        }
                    }
                    if index == 1 {
                        one_done.store(true, Ordering::SeqCst);
                    }
                    Ok(Some(index))
                },
                |index| handed.push(index),
            )
            .unwrap();
            // Cut short, game 0 is not there, game 1 is; game 2 may have
            // started before the stop or not.
            if cut {
                assert_eq!(handed.first(), Some(&1), "{handed:?}");
                assert!(handed.windows(2).all(|w| w[0] < w[1]), "{handed:?}");
            } else {
                assert_eq!(handed, [0, 1, 2]);
            }
        }
    }

    #[test]
    fn unsupported_strategies_fail_before_playing() {
        let mut c = config(StrategyKind::Perfect, StrategyKind::Random, 10);
        c.rules = Rules::new(15, 15, 5).unwrap();
        assert!(matches!(
            run(&c, &AtomicBool::new(false), |_| {}),
            Err(ArenaError::Build(_))
        ));
    }

    /// An external player that gives no move at all, as an engine that
    /// exits when asked its first.
    struct Mute;

    impl Strategy for Mute {
        fn choose(&mut self, _game: &Game) -> Option<Cell> {
            None
        }
        fn name(&self) -> &str {
            "mute"
        }
        fn failure(&mut self) -> Option<String> {
            Some("exited".to_owned())
        }
    }

    fn mute() -> Entrant {
        Entrant::external("mute", |_, _| Ok(Box::new(Mute) as Box<dyn Strategy>))
    }

    #[test]
    fn a_move_not_given_is_no_ply() {
        let mut c = config(StrategyKind::Random, StrategyKind::Random, 2);
        c.x = mute();
        let mut played = Vec::new();
        let results =
            run_recorded(&c, &AtomicBool::new(false), |_| {}, |p| played.push(p)).unwrap();
        // Both games are recorded as O's wins by X's forfeit, with the
        // one move made.
        assert_eq!(played.len(), 2);
        for p in &played {
            assert_eq!(p.winner, Some(Player::O));
            assert_eq!(
                p.ending,
                Ending::Forfeit {
                    side: Player::X,
                    reason: "exited".to_owned()
                }
            );
        }
        assert_eq!((played[0].moves.len(), played[1].moves.len()), (0, 1));
        // Game 0: X, first, gives nothing. Game 1: O moves, then X gives
        // nothing. One stone in all.
        assert_eq!((results.games, results.x.forfeits), (2, 2), "{results:?}");
        assert_eq!((results.x.moves, results.o.moves), (0, 1), "{results:?}");
        assert_eq!(results.x.thinking, Duration::ZERO, "{results:?}");
        // The one game with a move had one ply.
        assert!((results.average_plies() - 1.0).abs() < 1e-9, "{results:?}");
        // Game 0 had no move; in game 1 the first mover, O, won.
        assert_eq!(results.unplayed, 1, "{results:?}");
        assert_eq!(results.first_mover_wins, 1, "{results:?}");
    }

    /// A game lost by a player that could not start has no first mover
    /// to have won it.
    #[test]
    fn a_game_lost_before_any_move_has_no_first_mover_winning() {
        let mut c = config(StrategyKind::Random, StrategyKind::Random, 4);
        c.o = Entrant::external("absent", |_, _| Err("cannot start".to_owned()));
        let results = run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!((results.x.wins, results.o.forfeits), (4, 4), "{results:?}");
        assert_eq!(
            (results.unplayed, results.first_mover_wins),
            (4, 0),
            "{results:?}"
        );
        assert_eq!(results.x.moves + results.o.moves, 0, "{results:?}");
    }

    /// When neither player can start, the side to move after the opening
    /// (asked first) loses: two broken engines split their games by who
    /// starts (X always lost), after an opening of odd length too.
    #[test]
    fn when_neither_can_start_the_side_to_move_loses() {
        for moves in [0, 1] {
            let mut c = config(StrategyKind::Random, StrategyKind::Random, 4);
            c.x = Entrant::external("absent-x", |_, _| Err("cannot start".to_owned()));
            c.o = Entrant::external("absent-o", |_, _| Err("cannot start".to_owned()));
            c.opening = Opening::Random(moves);
            let mut played = Vec::new();
            let results =
                run_recorded(&c, &AtomicBool::new(false), |_| {}, |p| played.push(p)).unwrap();
            let forfeits = (results.x.forfeits, results.o.forfeits);
            assert_eq!(forfeits, (2, 2), "{results:?}");
            assert_eq!((results.x.wins, results.o.wins), (2, 2), "{results:?}");
            for p in &played {
                let Ending::Forfeit { side, .. } = &p.ending else {
                    panic!("{p:?}")
                };
                let to_move = if p.opening.len() % 2 == 0 {
                    p.first
                } else {
                    p.first.other()
                };
                assert_eq!(*side, to_move, "{p:?}");
            }
        }
    }

    /// A random player that sets `stop` as it is asked its first move in
    /// its `nth` game (counting from 1), and then gives that move, or none
    /// (as an engine the stop ended would).
    pub(crate) fn stopping(stop: &Arc<AtomicBool>, nth: u64, moves: bool) -> Entrant {
        struct Stopper {
            inner: Box<dyn Strategy>,
            stop: Option<Arc<AtomicBool>>,
            moves: bool,
        }
        impl Strategy for Stopper {
            fn choose(&mut self, game: &Game) -> Option<Cell> {
                match self.stop.take() {
                    Some(stop) => {
                        stop.store(true, Ordering::SeqCst);
                        self.moves.then(|| self.inner.choose(game)).flatten()
                    }
                    None => self.inner.choose(game),
                }
            }
            fn name(&self) -> &str {
                "stopper"
            }
        }
        let stop = Arc::clone(stop);
        let built = AtomicU64::new(0);
        Entrant::external("stopper", move |rules, seed| {
            let this = built.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(Box::new(Stopper {
                inner: StrategyKind::Random
                    .build(rules, seed)
                    .map_err(|e| e.to_string())?,
                stop: (this == nth).then(|| Arc::clone(&stop)),
                moves,
            }) as Box<dyn Strategy>)
        })
    }

    #[test]
    fn a_stopped_run_has_the_games_finished_and_none_cut_short() {
        for moves in [true, false] {
            let stop = Arc::new(AtomicBool::new(false));
            let mut c = config(StrategyKind::Random, StrategyKind::Rules, 10);
            c.threads = 1;
            c.x = stopping(&stop, 4, moves);
            let mut played = Vec::new();
            let results = run_recorded(&c, &stop, |_| {}, |p| played.push(p)).unwrap();
            assert_eq!(results.games, 3, "moves {moves}: {results:?}");
            assert!(results.forfeits.is_empty(), "moves {moves}: {results:?}");
            assert_eq!(results.x.wins + results.o.wins + results.draws, 3);
            assert_eq!(
                played.iter().map(|p| p.index).collect::<Vec<_>>(),
                [0, 1, 2]
            );
        }
        // Stopped before it starts: no game.
        let c = config(StrategyKind::Random, StrategyKind::Rules, 10);
        let results = run(&c, &AtomicBool::new(true), |_| {}).unwrap();
        assert_eq!(results, Results::default());
    }

    #[test]
    fn an_external_player_that_cannot_start_or_move_loses_and_the_arena_goes_on() {
        /// Plays the first free cell, but never the third move.
        struct Tired(u32);
        impl Strategy for Tired {
            fn choose(&mut self, game: &Game) -> Option<Cell> {
                self.0 += 1;
                (self.0 < 3).then(|| game.legal_moves().next()).flatten()
            }
            fn name(&self) -> &str {
                "tired"
            }
            fn failure(&mut self) -> Option<String> {
                Some("too tired".to_owned())
            }
        }
        let mut c = config(StrategyKind::Random, StrategyKind::Random, 6);
        c.x = Entrant::external("tired", |_, seed| {
            if seed % 2 == 0 {
                Ok(Box::new(Tired(0)) as Box<dyn Strategy>)
            } else {
                Err("cannot start".to_owned())
            }
        });
        let results = run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        assert_eq!(results.games, 6);
        assert_eq!(results.x.wins, 0, "{results:?}");
        assert_eq!(results.x.forfeits as usize, results.forfeits.len());
        assert!(results.x.forfeits > 0, "{results:?}");
        for f in &results.forfeits {
            assert_eq!((f.player.as_str(), f.side), ("tired", Player::X));
            assert!(
                ["cannot start", "too tired"].contains(&f.reason.as_str()),
                "{f:?}"
            );
        }
        assert!(results.forfeits.windows(2).all(|w| w[0].game < w[1].game));
    }
}
