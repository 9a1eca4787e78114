//! `oxo.Strategy`: oxo's computer players as opponents.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxo_ai::{AlphaBeta, Catalog, Model, Strategy, StrategyKind};
use oxo_core::{Cell, Game, Rules};
use pyo3::prelude::*;

use crate::args::Int;
use crate::errors::{ModelError, OxoError, StrategyError, raise, with_causes};
use crate::game::PyGame;
use crate::lock;

/// One of oxo's computer players: `"random"`, `"rules"`, `"alphabeta"`,
/// `"perfect"` or `"learned"` (see `oxo.STRATEGIES`).
///
/// A strategy is built for a board the first time it chooses on one, and
/// kept for it: its choices on each board are fixed by `seed`, and go on
/// from one call to the next whatever boards come between (the players of
/// the last eight boards are kept, of one for `alphabeta` and `perfect`,
/// whose search tables are large; one built again after that plays a
/// stream of its own, never its first one again). `model` is a model file
/// written by `oxo train`, played by `learned` on its board in place of
/// the built-in one.
#[pyclass(module = "oxo", name = "Strategy")]
pub struct PyStrategy {
    kind: StrategyKind,
    seed: u64,
    /// The budget given, for pickling (the catalog holds it too).
    budget: Option<u64>,
    catalog: Catalog,
    /// Where the model given came from, to name it in errors (`None`
    /// for one unpickled, or none given).
    model_from: Option<String>,
    /// The players built, the board last chosen on last. Behind a lock
    /// because a built player is `Send` but not `Sync`.
    built: Mutex<Built>,
    /// Set while the main thread waits on a search of this strategy (and
    /// runs Python's signal handlers): a handler that calls the strategy
    /// would wait on its lock for ever.
    watching: AtomicBool,
}

/// How many boards' players a strategy keeps: eight of the light ones, one
/// of those that keep search tables (`alphabeta`, `perfect`: tens of MiB
/// each), which rebuild for another board as before, but with a stream of
/// their own.
const fn boards_kept(kind: StrategyKind) -> usize {
    match kind {
        StrategyKind::AlphaBeta | StrategyKind::Perfect => 1,
        _ => 8,
    }
}

/// A strategy's players, one a board, and how many were ever built.
#[derive(Default)]
struct Built {
    players: Vec<(Rules, Box<dyn Strategy>)>,
    /// The boards ever built for, whose players were let go or not.
    seen: Vec<Rules>,
    /// Players built so far.
    count: u64,
}

impl Built {
    /// The player for `rules`, built (by `build`, given a seed) if it is
    /// not kept: from `seed` on a board never seen, else from a seed of
    /// its own, so that a stream never starts again.
    fn player(
        &mut self,
        rules: Rules,
        seed: u64,
        kept: usize,
        build: impl FnOnce(u64) -> PyResult<Box<dyn Strategy>>,
    ) -> PyResult<&mut Box<dyn Strategy>> {
        match self.players.iter().position(|(r, _)| *r == rules) {
            Some(at) => {
                let kept = self.players.remove(at);
                self.players.push(kept);
            }
            None => {
                let seed = if self.seen.contains(&rules) {
                    // SplitMix64's constant: the seeds of rebuilds spread.
                    seed ^ self.count.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                } else {
                    seed
                };
                let player = build(seed)?;
                self.count += 1;
                if !self.seen.contains(&rules) {
                    self.seen.push(rules);
                }
                if self.players.len() >= kept {
                    self.players.remove(0);
                }
                self.players.push((rules, player));
            }
        }
        let (_, player) = self.players.last_mut().expect("pushed above");
        Ok(player)
    }
}

impl PyStrategy {
    /// [`PyStrategy::choose`] on a game of its own.
    fn choose_in(&self, py: Python<'_>, game: oxo_core::Game) -> PyResult<Option<usize>> {
        let rules = game.rules();
        if self.kind == StrategyKind::Learned {
            self.catalog.given_fits(rules).map_err(|e| {
                let from = self.model_from.as_deref().unwrap_or("the model given");
                raise::<ModelError>(format!("{from}: {e}"))
            })?;
        }
        // Only a search longer than the default's (under a tenth of a
        // second) is worth a thread of its own: starting one and waiting
        // on it costs a fraction of a millisecond.
        let long = self.budget.is_some_and(|b| b > AlphaBeta::DEFAULT_BUDGET);
        let watch = long && crate::on_main_thread(py)?;
        if watch && self.watching.load(Ordering::SeqCst) {
            return Err(raise::<OxoError>(
                "this strategy is searching for the main thread: a signal handler cannot use it \
                 until that search ends",
            ));
        }
        // Searches take time: let other Python threads run meanwhile.
        py.detach(|| {
            let mut built = lock(&self.built);
            let player = built.player(rules, self.seed, boards_kept(self.kind), |seed| {
                self.catalog
                    .build(self.kind, rules, seed)
                    .map_err(raise::<StrategyError>)
            })?;
            let cell = if watch && player.searches_to_deadline() {
                let _watching = Watching::start(&self.watching);
                choose_watching_signals(player.as_mut(), &game)?
            } else {
                player.choose(&game)
            };
            Ok(cell.map(|cell| rules.index(cell)))
        })
    }
}

/// [`PyStrategy::watching`] set while this lives (a panicking search
/// included).
struct Watching<'a>(&'a AtomicBool);

impl<'a> Watching<'a> {
    fn start(flag: &'a AtomicBool) -> Watching<'a> {
        flag.store(true, Ordering::SeqCst);
        Watching(flag)
    }
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// How often a search on the main thread lets Python's signal handlers run.
const SIGNALS_EVERY: Duration = Duration::from_millis(50);

/// `player.choose(game)`, searched on a thread of its own while this one,
/// Python's main thread, runs Python's signal handlers every
/// [`SIGNALS_EVERY`]: the first exception one raises (`KeyboardInterrupt`
/// for Ctrl-C) calls the search off and is raised in place of its move.
/// Called without the GIL, on a strategy that reads a stop flag.
fn choose_watching_signals(player: &mut dyn Strategy, game: &Game) -> PyResult<Option<Cell>> {
    let stop = Arc::new(AtomicBool::new(false));
    player.set_stop(Some(Arc::clone(&stop)));
    let (done, finished) = mpsc::channel();
    let searching = &mut *player;
    // `None` when no thread was to be had.
    let searched = std::thread::scope(|scope| {
        // `done` goes with the thread: one that panics drops it, which
        // ends the wait below as well.
        let search = std::thread::Builder::new()
            .name("oxo-strategy".into())
            .spawn_scoped(scope, move || {
                let cell = searching.choose(game);
                // The receiver outlives the scope: this cannot fail.
                let _ = done.send(());
                cell
            });
        let Ok(search) = search else {
            return None;
        };
        let interrupted = loop {
            match finished.recv_timeout(SIGNALS_EVERY) {
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break None,
                Err(RecvTimeoutError::Timeout) => {
                    match Python::try_attach(|py| py.check_signals()) {
                        Some(Ok(())) => {}
                        Some(Err(err)) => break Some(err),
                        // The interpreter is shutting down: no move is wanted.
                        None => {
                            break Some(raise::<OxoError>(
                                "the interpreter is shutting down: the search was called off",
                            ));
                        }
                    }
                }
            }
        };
        if interrupted.is_some() {
            stop.store(true, Ordering::Relaxed);
        }
        let cell = search
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Some(match interrupted {
            Some(err) => Err(err),
            None => Ok(cell),
        })
    });
    player.set_stop(None);
    // Without a thread, search here, as off the main thread.
    searched.unwrap_or_else(|| Ok(player.choose(game)))
}

impl std::fmt::Debug for PyStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyStrategy")
            .field("kind", &self.kind)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// `oxo.OxoError` for a game another thread holds (on a Python without
/// the GIL, a call on it from another thread that is not over).
fn in_use() -> PyErr {
    raise::<OxoError>("the game is in use by another thread: nothing was played")
}

/// `game`, read for a moment.
fn borrowed<'py>(game: &Bound<'py, PyGame>) -> PyResult<PyRef<'py, PyGame>> {
    game.try_borrow().map_err(|_| in_use())
}

/// What `Strategy.__reduce__` gives pickle: the class, the arguments that
/// make the strategy without its model, and the model's bytes.
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (&'static str, u64, Option<PathBuf>, Option<u64>),
    (Option<Vec<u8>>,),
);

/// The model in the file at `path`, or `oxo.ModelError` naming the file
/// and why (`Is a directory`).
fn load_model(path: &PathBuf) -> PyResult<Model> {
    let file = File::open(path).map_err(|e| {
        raise::<ModelError>(format!("cannot open model file {}: {e}", path.display()))
    })?;
    Model::load(BufReader::new(file))
        .map_err(|e| raise::<ModelError>(format!("{}: {}", path.display(), with_causes(&e))))
}

#[pymethods]
impl PyStrategy {
    /// The strategy called `name`, its random choices fixed by `seed`.
    ///
    /// `model`: a path to a model file for `learned` (`oxo train --out`).
    /// `budget`: positions `alphabeta` (and a searching `learned`) may
    /// search a move, or `perfect` before it falls back on alphabeta's
    /// move; `None` for their defaults (`perfect`: no limit).
    #[new]
    #[pyo3(
        signature = (name, seed = Int::Fits(0), model = None, budget = None),
        text_signature = "(name, seed=0, model=None, budget=None)"
    )]
    fn new(
        name: &str,
        seed: Int,
        model: Option<PathBuf>,
        budget: Option<Int>,
    ) -> PyResult<PyStrategy> {
        let seed = seed.to_u64::<OxoError>("seed")?;
        let budget = budget.map(|b| b.to_u64::<OxoError>("budget")).transpose()?;
        let kind: StrategyKind = name.parse().map_err(raise::<StrategyError>)?;
        let mut catalog = Catalog::default();
        let model_from = model.as_ref().map(|path| path.display().to_string());
        if let Some(path) = model {
            if kind != StrategyKind::Learned {
                return Err(raise::<StrategyError>(format!(
                    "a model file is played by the learned strategy, not {name:?}"
                )));
            }
            catalog = catalog.with_model(load_model(&path)?);
        }
        if budget.is_some() {
            catalog = match kind {
                StrategyKind::Perfect => catalog.with_perfect_budget(budget),
                _ => catalog.with_search_budget(budget),
            };
        }
        Ok(PyStrategy {
            kind,
            seed,
            budget,
            catalog,
            model_from,
            built: Mutex::new(Built::default()),
            watching: AtomicBool::new(false),
        })
    }

    /// The strategy's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The action this strategy plays for the player to move in `game`, or
    /// `None` when the game is over. The game is not changed. Raises
    /// `oxo.StrategyError` when the strategy cannot play this board (say,
    /// `perfect` beyond 6×6, or `learned` with no model for it) and
    /// `oxo.ModelError` when the model given was trained for another board.
    /// The game is free while the strategy thinks: another thread may
    /// read or play it meanwhile.
    fn choose(&self, py: Python<'_>, game: &Bound<'_, PyGame>) -> PyResult<Option<usize>> {
        let game = borrowed(game)?.game().clone();
        self.choose_in(py, game)
    }

    /// Choose a move for the player to move in `game` and play it; return
    /// its action, or `None` (nothing played) when the game is over. The
    /// game is free while the strategy thinks (another thread may read
    /// it); one changed meanwhile raises `oxo.OxoError`, nothing played.
    fn play(&self, py: Python<'_>, game: &Bound<'_, PyGame>) -> PyResult<Option<usize>> {
        let before = borrowed(game)?.game().clone();
        let action = self.choose_in(py, before.clone())?;
        if let Some(action) = action {
            let mut game = game.try_borrow_mut().map_err(|_| in_use())?;
            if game.game() != &before {
                return Err(raise::<OxoError>(
                    "the game changed while the strategy was choosing its move: nothing was played",
                ));
            }
            game.play(crate::game::Move::action(action))?;
        }
        Ok(action)
    }

    /// Pickling (and so `multiprocessing`): the name, seed and budget,
    /// and a model given as its bytes (the file is not read again). A
    /// strategy unpickled starts afresh from its seed, as one just made.
    fn __reduce__<'py>(slf: &Bound<'py, PyStrategy>) -> PyResult<Reduced<'py>> {
        let this = slf.borrow();
        let model = this.catalog.models().next().map(Model::to_bytes);
        Ok((
            slf.get_type().into_any(),
            (this.kind.name(), this.seed, None, this.budget),
            (model,),
        ))
    }

    /// The state `__reduce__` gave: the model's bytes, if any, read as a
    /// model file is (`oxo.ModelError` for bytes that are not one).
    fn __setstate__(&mut self, state: (Option<Vec<u8>>,)) -> PyResult<()> {
        if let (Some(bytes),) = state {
            if self.kind != StrategyKind::Learned {
                return Err(raise::<StrategyError>(format!(
                    "a pickled {:?} strategy cannot hold a model: only learned plays one",
                    self.kind.name()
                )));
            }
            let model = Model::load(&bytes[..])
                .map_err(|e| raise::<ModelError>(format!("a pickled model: {e}")))?;
            self.catalog = self.catalog.clone().with_model(model);
            *lock(&self.built) = Built::default();
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("oxo.Strategy({:?}, seed={})", self.kind.name(), self.seed)
    }
}
