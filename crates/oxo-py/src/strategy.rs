//! `oxo.Strategy`: oxo's computer players as opponents.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Mutex;

use oxo_ai::{Catalog, Model, Strategy, StrategyKind};
use oxo_core::Rules;
use pyo3::prelude::*;

use crate::args::Int;
use crate::errors::{ModelError, OxoError, StrategyError, raise};
use crate::game::PyGame;
use crate::lock;

/// One of oxo's computer players: `"random"`, `"rules"`, `"alphabeta"`,
/// `"perfect"` or `"learned"` (see `oxo.STRATEGIES`).
///
/// A strategy is built for a board the first time it chooses on one (and
/// again when the board changes); its choices are fixed by `seed`.
/// `model` is a model file written by `oxo train`, played by `learned` on
/// its board in place of the built-in one.
#[pyclass(module = "oxo", name = "Strategy")]
pub struct PyStrategy {
    kind: StrategyKind,
    seed: u64,
    /// The budget given, for pickling (the catalog holds it too).
    budget: Option<u64>,
    catalog: Catalog,
    /// The player built for the last board chosen on. Behind a lock
    /// because a built player is `Send` but not `Sync`.
    built: Mutex<Option<(Rules, Box<dyn Strategy>)>>,
}

impl std::fmt::Debug for PyStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyStrategy")
            .field("kind", &self.kind)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// What `Strategy.__reduce__` gives pickle: the class, the arguments that
/// make the strategy without its model, and the model's bytes.
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (&'static str, u64, Option<PathBuf>, Option<u64>),
    (Option<Vec<u8>>,),
);

/// The model in the file at `path`, or `oxo.ModelError` naming the file.
fn load_model(path: &PathBuf) -> PyResult<Model> {
    let file = File::open(path).map_err(|e| {
        raise::<ModelError>(format!("cannot open model file {}: {e}", path.display()))
    })?;
    Model::load(BufReader::new(file))
        .map_err(|e| raise::<ModelError>(format!("{}: {e}", path.display())))
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
            built: Mutex::new(None),
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
    fn choose(&self, py: Python<'_>, game: &PyGame) -> PyResult<Option<usize>> {
        let game = game.game.clone();
        let rules = game.rules();
        if self.kind == StrategyKind::Learned {
            self.catalog
                .given_fits(rules)
                .map_err(raise::<ModelError>)?;
        }
        // Searches take time: let other Python threads run meanwhile.
        py.detach(|| {
            let mut built = lock(&self.built);
            if built.as_ref().is_none_or(|(r, _)| *r != rules) {
                let player = self
                    .catalog
                    .build(self.kind, rules, self.seed)
                    .map_err(raise::<StrategyError>)?;
                *built = Some((rules, player));
            }
            let (_, player) = built.as_mut().expect("built above");
            Ok(player.choose(&game).map(|cell| rules.index(cell)))
        })
    }

    /// Choose a move for the player to move in `game` and play it; return
    /// its action, or `None` (nothing played) when the game is over.
    fn play(&self, py: Python<'_>, game: &Bound<'_, PyGame>) -> PyResult<Option<usize>> {
        let action = self.choose(py, &game.borrow())?;
        if let Some(action) = action {
            game.borrow_mut().play(crate::game::Move::action(action))?;
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
            *lock(&self.built) = None;
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("oxo.Strategy({:?}, seed={})", self.kind.name(), self.seed)
    }
}
