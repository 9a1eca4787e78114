//! `oxo.solve`: the exact solver as an oracle.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use oxo_ai::solver::DEFAULT_TABLE_BYTES;
use oxo_ai::{Eval, Solver};
use oxo_core::{Game, Rules};
use pyo3::prelude::*;

use crate::args::Int;
use crate::errors::{OxoError, RulesError, SolveError, raise};
use crate::game::PyGame;
use crate::lock;

/// Solvers kept between calls, the most recently used last: each keeps
/// what it learned in its table, so a run of positions on one board is
/// solved much faster than one by one.
static SOLVERS: Mutex<Vec<Solver>> = Mutex::new(Vec::new());

/// Boards solved at once keep this many solvers (each owns its table).
const KEPT_SOLVERS: usize = 2;

/// The pool, locked (a thread that panicked holding it left it whole: a
/// solver is only ever moved in or out).
fn pool() -> MutexGuard<'static, Vec<Solver>> {
    lock(&SOLVERS)
}

/// A table for `rules`: a small board needs far less than the default.
fn table_bytes(rules: Rules) -> usize {
    if rules.cell_count() <= 16 {
        4 << 20
    } else {
        DEFAULT_TABLE_BYTES
    }
}

/// The perfect-play value of a position and of each legal move.
///
/// Values are for the player who moves: `1` a win, `0` a draw, `-1` a loss;
/// distances are plies (single moves) to the end of the game when the
/// winner wins as fast as possible and the loser holds out as long as
/// possible (a draw ends with the board full).
#[pyclass(module = "oxo", name = "Solution", frozen, get_all)]
#[derive(Debug)]
pub struct PySolution {
    /// The position, in oxo's notation.
    position: String,
    /// Marks in a row to win: with the position, the game answered.
    k: u32,
    /// `"X"` or `"O"`: the player to move in the position.
    to_move: &'static str,
    /// The position's value for the player to move: 1, 0 or -1.
    value: i8,
    /// Plies to the end under perfect play (0 once the game is over).
    distance: u32,
    /// Every legal action with `(value, distance)` for the player making
    /// it: the value of the position it leads to, seen by the mover.
    moves: BTreeMap<usize, (i8, u32)>,
    /// The actions that keep the position's value at its best distance,
    /// in increasing order.
    best_moves: Vec<usize>,
    /// Positions the solver visited for this answer.
    nodes: u64,
}

/// A solution as pickle keeps it: every field, in their order.
type State = (
    String,
    u32,
    String,
    i8,
    u32,
    BTreeMap<usize, (i8, u32)>,
    Vec<usize>,
    u64,
);

/// A solution's answer: position and k (the game), value, distance, moves
/// and best moves (the player to move follows from the position).
type Answer<'a> = (
    &'a str,
    u32,
    i8,
    u32,
    &'a BTreeMap<usize, (i8, u32)>,
    &'a [usize],
);

impl PySolution {
    /// What two solutions are equal by: the answer, not the work (`nodes`
    /// depends on what the solver had learned before).
    fn answer(&self) -> Answer<'_> {
        (
            &self.position,
            self.k,
            self.value,
            self.distance,
            &self.moves,
            &self.best_moves,
        )
    }
}

#[pymethods]
impl PySolution {
    fn __repr__(&self) -> String {
        format!(
            "oxo.Solution(position={:?}, k={}, to_move={:?}, value={}, distance={}, best_moves={:?})",
            self.position, self.k, self.to_move, self.value, self.distance, self.best_moves
        )
    }

    /// Solutions of one position of one game (its k too) are equal
    /// whatever it took to find them (`nodes` is left out); anything else
    /// is not a `Solution`.
    fn __eq__(&self, other: PyRef<'_, PySolution>) -> bool {
        self.answer() == other.answer()
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.answer().hash(&mut hasher);
        hasher.finish()
    }

    /// Pickling (so `multiprocessing` workers can send solutions back):
    /// every field, checked again on loading.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (State,))> {
        let restore = py.import("oxo._oxo")?.getattr("_solution")?;
        Ok((
            restore,
            ((
                self.position.clone(),
                self.k,
                self.to_move.to_owned(),
                self.value,
                self.distance,
                self.moves.clone(),
                self.best_moves.clone(),
                self.nodes,
            ),),
        ))
    }
}

/// A pickled solution back (`Solution.__reduce__`'s loader, not for
/// calling): refused as `oxo.OxoError` where the state is not a solution
/// of its position: a position play cannot reach (or not written as oxo
/// writes it), the wrong player to move, moves other than the legal ones,
/// values other than -1, 0 and 1, or a value, distance or best moves that
/// do not follow from the moves'.
#[pyfunction]
pub(crate) fn _solution(state: State) -> PyResult<PySolution> {
    let (position, k, to_move, value, distance, moves, best_moves, nodes) = state;
    let bad = |what: String| raise::<OxoError>(format!("a pickled solution {what}"));
    let game = PyGame::from_notation(&position, Some(Int::Fits(k.into())))
        .map_err(|e| bad(format!("has no position of a game: {e}")))?
        .game()
        .clone();
    if game.to_string() != position {
        return Err(bad(format!(
            "writes its position {position:?} as oxo does not ({game})"
        )));
    }
    let mover = crate::game::name(game.to_move());
    if to_move != mover {
        return Err(bad(format!(
            "has {to_move:?} to move in a position where {mover} moves"
        )));
    }
    let rules = game.rules();
    let legal: Vec<usize> = game.legal_moves().map(|c| rules.index(c)).collect();
    if !moves.keys().copied().eq(legal.iter().copied()) {
        return Err(bad(format!(
            "has moves {:?}, not the legal ones {legal:?}",
            moves.keys().collect::<Vec<_>>()
        )));
    }
    if !std::iter::once(value)
        .chain(moves.values().map(|&(v, _)| v))
        .all(|v| (-1..=1).contains(&v))
    {
        return Err(bad("has a value that is not -1, 0 or 1".to_owned()));
    }
    // The best move: the highest value, a win as soon as can be, a loss
    // as late; the position's value and distance are its.
    let best = moves
        .values()
        .copied()
        .max_by_key(|&(v, d)| (v, if v > 0 { -i64::from(d) } else { i64::from(d) }));
    let expected = match (best, game.outcome()) {
        (Some(best), _) => best,
        (None, Some(oxo_core::Outcome::Win(_))) => (-1, 0),
        (None, _) => (0, 0),
    };
    if (value, distance) != expected {
        return Err(bad(format!(
            "has value {value} in {distance} plies where its moves give {} in {}",
            expected.0, expected.1
        )));
    }
    let best_expected: Vec<usize> = moves
        .iter()
        .filter(|&(_, &eval)| eval == expected)
        .map(|(&action, _)| action)
        .collect();
    if best_moves != best_expected {
        return Err(bad(format!(
            "has best moves {best_moves:?} where its moves give {best_expected:?}"
        )));
    }
    Ok(PySolution {
        position,
        k,
        to_move: mover,
        value,
        distance,
        moves,
        best_moves,
        nodes,
    })
}

/// The position a caller gave: a `Game`, or notation with `k`.
pub(crate) enum Position {
    Game(PyGame),
    Notation(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Position {
    type Error = PyErr;

    /// A `Game` or a `str`; anything else is a `TypeError` that says so
    /// (pyo3's own names its enum's variants).
    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Position> {
        if let Ok(game) = object.extract::<PyGame>() {
            return Ok(Position::Game(game));
        }
        if let Ok(text) = object.extract::<String>() {
            return Ok(Position::Notation(text));
        }
        let kind = object.get_type().name()?;
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "solve takes an oxo.Game or a position in notation (a str such as \"X.O/.X./..O\"), not {kind}"
        )))
    }
}

/// Solve `position` exactly: its value for the player to move, the
/// distance to the end, and every legal move's value.
///
/// `position` is an `oxo.Game` or a position in oxo's notation
/// (`"X.O/.X./..O"`, with `k` in a row to win, by default the shorter
/// side, at most 5). The solver handles boards whose rows × (cols + 1) is at most 64
/// (7×7 fits); large boards with few marks can take very long: `budget`
/// caps the positions visited, past which `oxo.SolveError` is raised.
/// Ctrl-C (or any signal whose Python handler raises) stops a long solve
/// within a few million positions; on the main thread only, as Python
/// delivers signals there. Raises `oxo.SolveError` for a board too large, `oxo.RulesError` for
/// text that is not a position play can reach, or for a `k` given with a
/// `Game` that is not the game's own.
#[pyfunction]
#[pyo3(signature = (position, k = None, budget = None))]
pub(crate) fn solve(
    py: Python<'_>,
    position: Position,
    k: Option<Int>,
    budget: Option<Int>,
) -> PyResult<PySolution> {
    let budget = budget.map(|b| b.to_u64::<OxoError>("budget")).transpose()?;
    let game = match position {
        Position::Game(game) => {
            // A game carries its own k: a different one given beside it
            // would be ignored, and the caller answered about another game.
            let own = game.game().rules().k();
            if let Some(k) = k.filter(|k| k.to::<u32>() != Some(own)) {
                return Err(raise::<RulesError>(format!(
                    "k={k} was given with a game of {}: a Game keeps its own k, so give k \
                     only with a position in notation",
                    game.game().rules()
                )));
            }
            game.game().clone()
        }
        Position::Notation(text) => PyGame::from_notation(&text, k)?.game().clone(),
    };
    // Python runs signal handlers on its main thread only: elsewhere there
    // is nothing to watch for.
    let on_main = crate::on_main_thread(py)?;
    let analysis = py.detach(|| {
        let rules = game.rules();
        // The pool's lock is held only to take a solver out and to put it
        // back, never while one analyses: a long solve on one thread must
        // not hold up another's. Two threads on one board each get a
        // solver (the second a new one).
        let kept = {
            let mut solvers = pool();
            let i = solvers.iter().position(|s| s.rules() == rules);
            i.map(|i| solvers.remove(i))
        };
        let mut solver = match kept {
            Some(solver) => solver,
            None => Solver::new(rules, table_bytes(rules)).map_err(raise::<SolveError>)?,
        };
        solver.set_budget(budget);
        let interrupted = if on_main {
            watch_signals(&mut solver)
        } else {
            Arc::default()
        };
        let analysis = solver.analyse(&game);
        solver.set_stop(None);
        solver.on_progress(|_| {});
        // The solvers dropped (their tables freed) after the lock is let go.
        let _dropped = {
            let mut solvers = pool();
            // One solver a board: this one, which knows the most now.
            let mut dropped: Vec<Solver> = Vec::new();
            if let Some(i) = solvers.iter().position(|s| s.rules() == rules) {
                dropped.push(solvers.remove(i));
            }
            solvers.push(solver);
            if solvers.len() > KEPT_SOLVERS {
                dropped.push(solvers.remove(0));
            }
            dropped
        };
        analysis.map_err(|e| match e {
            // The handler's own exception (KeyboardInterrupt for Ctrl-C).
            oxo_ai::SolveError::Stopped => lock(&interrupted)
                .take()
                .unwrap_or_else(|| raise::<SolveError>(e)),
            e => raise::<SolveError>(e),
        })
    })?;
    Ok(solution(&game, &analysis))
}

/// Let signals stop `solver`'s next call: at each progress report (about
/// once every million positions, or once a second when that is sooner)
/// Python's signal handlers run, and the
/// first exception one raises stops the search and is kept in the slot
/// returned, for the caller to raise.
fn watch_signals(solver: &mut Solver) -> Arc<Mutex<Option<PyErr>>> {
    let stop = Arc::new(AtomicBool::new(false));
    let slot = Arc::new(Mutex::new(None));
    solver.set_stop(Some(Arc::clone(&stop)));
    let kept = Arc::clone(&slot);
    solver.on_progress(move |_| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match Python::try_attach(|py| py.check_signals()) {
            Some(Ok(())) => {}
            Some(Err(err)) => {
                *lock(&kept) = Some(err);
                stop.store(true, Ordering::Relaxed);
            }
            // The interpreter is shutting down: no answer is wanted.
            None => stop.store(true, Ordering::Relaxed),
        }
    });
    slot
}

fn solution(game: &Game, analysis: &oxo_ai::Analysis) -> PySolution {
    let rules = game.rules();
    let pair = |e: Eval| (e.value.sign(), e.plies);
    let mut best_moves: Vec<usize> = analysis.best_moves().map(|c| rules.index(c)).collect();
    best_moves.sort_unstable();
    PySolution {
        position: game.to_string(),
        k: rules.k(),
        to_move: crate::game::name(game.to_move()),
        value: analysis.eval.value.sign(),
        distance: analysis.eval.plies,
        moves: analysis
            .moves
            .iter()
            .map(|&(cell, eval)| (rules.index(cell), pair(eval)))
            .collect(),
        best_moves,
        nodes: analysis.nodes,
    }
}
