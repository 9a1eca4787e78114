//! `oxo.VectorGame`: many games of one board stepped in one call.

use numpy::ndarray::Array;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyArray4, PyArrayDescrMethods, PyArrayMethods,
    PyUntypedArray, PyUntypedArrayMethods, get_array_module,
};
use oxo_ai::{SeededRng, rng_from_seed};
use oxo_core::{Game, MoveError, Outcome, Rules};
use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyTuple};
use rand::RngExt;

use crate::args::Int;
use crate::errors::{IllegalMoveError, OxoError, RulesError, raise};
use crate::game::{Move, PyGame, cell_of, move_message, rules, sign};

/// The most cells a batch may hold (boards times cells a board): a
/// gibibyte of cells, and twice that in each array `observe` returns.
const MAX_CELLS: usize = 1 << 30;

/// The most memory a batch's games may take, as [`board_bytes`] counts it:
/// 4 GiB. The cell cap alone let tiny boards through by the billion
/// (`VectorGame(2**30, 1, 1)` asked for 77 GB and aborted the interpreter),
/// since each board costs its `Game` and a heap block besides its cells.
const MAX_BYTES: u64 = 4 << 30;

/// What a heap block costs beyond the bytes asked for (the allocator's
/// header and rounding): an estimate, enough for a cap.
const HEAP_OVERHEAD: u64 = 32;

/// The memory one board of `rules` takes in a batch: its `Game`, its cells
/// and the heap block that holds them.
fn board_bytes(rules: Rules) -> u64 {
    std::mem::size_of::<Game>() as u64 + rules.cell_count() as u64 + HEAP_OVERHEAD
}

/// A batch of `n` games on one board, stepped together: one call plays a
/// move on every board, with NumPy arrays in and out and the GIL released
/// while Rust works, for self-play at speed.
///
/// Board `i` is an `oxo.Game` of its own (`game(i)` copies it out);
/// stepping the batch plays, on each board, what `oxo.Game.play` would.
#[pyclass(module = "oxo", name = "VectorGame")]
#[derive(Debug)]
pub struct PyVectorGame {
    rules: Rules,
    games: Vec<Game>,
    rng: SeededRng,
}

/// What `step` returns: the rewards and which games are over.
type StepResult<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<bool>>);

impl PyVectorGame {
    fn cells(&self) -> usize {
        self.rules.cell_count()
    }

    fn shape2(&self) -> (usize, usize) {
        (self.rules.rows() as usize, self.rules.cols() as usize)
    }

    /// Refuse `actions` unless each is -1 or a legal move on its board:
    /// checked for every board before any is played, the first refusal
    /// naming its board (and an action past `i64` as it was given: `past`).
    fn check(&self, actions: &[i64], past: Option<&(usize, Int)>) -> PyResult<()> {
        if actions.len() != self.games.len() {
            return Err(raise::<IllegalMoveError>(format!(
                "{} actions for {} boards: give one action a board (-1 for none)",
                actions.len(),
                self.games.len()
            )));
        }
        let cells = self.cells() as i64;
        let legal = |game: &Game, action: i64| {
            action == -1
                || ((0..cells).contains(&action)
                    && !game.is_over()
                    && game.cells()[action as usize].is_none())
        };
        let Some((i, (game, &action))) = self
            .games
            .iter()
            .zip(actions)
            .enumerate()
            .find(|(_, (game, action))| !legal(game, **action))
        else {
            return Ok(());
        };
        // The game's own error, for its message.
        let mv = Move::Action(match past {
            Some((board, given)) if *board == i => given.clone(),
            _ => Int::Fits(action.into()),
        });
        let error = cell_of(game, &mv).map_or_else(
            |e| e,
            |cell| MoveError::Occupied {
                cell,
                by: game
                    .get(cell)
                    .expect("an illegal move on the board is to a taken cell"),
            },
        );
        Err(raise::<IllegalMoveError>(format!(
            "board {i}: {}",
            move_message(game, &mv, error)
        )))
    }
}

/// `values`, an argument named `name`, read as one integer a board: a
/// NumPy array of an integer dtype (of bools too when `bools`), of any
/// stride (a column, a reversed or strided view), or what `numpy.asarray`
/// makes such an array of (a list of ints).
///
/// Any other dtype (floats, strings, objects; bools for actions) raises
/// `TypeError`, as `oxo.Game.play` does for a float: NumPy's cast would
/// make 1.9 an action 1 and NaN an arbitrary one. An empty array of any dtype holds no value
/// to misread, and reads as empty (`numpy.asarray([])` is float). A
/// `uint64` above `i64::MAX` is off every board as an action (see
/// [`Ints`]), true as a mask.
fn read_ints(values: &Bound<'_, PyAny>, name: &str, bools: bool) -> PyResult<Ints> {
    let array = match values.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => {
            if let Some(ints) = plain_ints(values, bools)? {
                return Ok(ints);
            }
            get_array_module(values.py())?
                .call_method1("asarray", (values,))?
                .cast_into::<PyUntypedArray>()?
        }
    };
    // The type first: `None` or a string is a 0-d array of objects or
    // text, a wrong type rather than a wrong shape.
    let dtype = array.dtype();
    let kind = dtype.kind();
    let empty = array.is_empty() && array.ndim() == 1;
    if !(kind == b'i' || kind == b'u' || (bools && kind == b'b') || empty) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be {}, not an array of {dtype}",
            if bools {
                "bools or integers"
            } else {
                "integers (row * cols + col, -1 for none)"
            }
        )));
    }
    if array.ndim() != 1 {
        let shape: Vec<String> = array.shape().iter().map(usize::to_string).collect();
        let message = format!(
            "{name} must be a 1-D array, one value a board, not one of shape ({})",
            shape.join(", ")
        );
        // Actions of the wrong shape are moves refused; a mask plays none.
        return Err(if bools {
            raise::<OxoError>(message)
        } else {
            raise::<IllegalMoveError>(message)
        });
    }
    if array.is_empty() {
        return Ok(Ints {
            values: Vec::new(),
            past: None,
        });
    }
    // The typed views below need the machine's byte order and an aligned
    // array (a field of a packed record array is not: read as it is, its
    // values would come from the wrong bytes); a copy has both.
    let aligned: bool = array.getattr("flags")?.getattr("aligned")?.extract()?;
    let array = if dtype.is_native_byteorder() == Some(false) || !aligned {
        let native = dtype.call_method1("newbyteorder", ("=",))?;
        array
            .call_method1("astype", (native,))?
            .cast_into::<PyUntypedArray>()?
    } else {
        array
    };
    macro_rules! read_as {
        ($($t:ty),*) => {$(
            if let Ok(typed) = array.cast::<PyArray1<$t>>() {
                let view = typed.readonly();
                let mut out = Vec::with_capacity(view.len());
                let mut past = None;
                for (i, &v) in view.as_array().iter().enumerate() {
                    out.push(match i64::try_from(v) {
                        Ok(v) => v,
                        // Only a uint64 past i64::MAX: nonzero as a mask.
                        Err(_) if bools => 1,
                        Err(_) => {
                            past.get_or_insert((i, Int::Fits(i128::from(v))));
                            i64::MAX
                        }
                    });
                }
                return Ok(Ints { values: out, past });
            }
        )*};
    }
    read_as!(i64, i32, i16, i8, u64, u32, u16, u8, bool);
    Err(PyTypeError::new_err(format!(
        "{name} must be {}, not an array of {dtype}",
        if bools {
            "bools or integers"
        } else {
            "integers"
        }
    )))
}

/// Integers read one a board ([`read_ints`]). An action past `i64` (a
/// `uint64`, a Python int) is off every board: it reads as `i64::MAX`, and
/// the first is kept as given, with its board, for the refusal
/// ([`VectorGame::check`]), which says first whether the count is right.
struct Ints {
    values: Vec<i64>,
    past: Option<(usize, Int)>,
}

/// `values` read as they are when a list or tuple of Python ints (no
/// bools: NumPy's dtype says what those are), which `numpy.asarray` would
/// make floats or objects of once one is past `i64`: such a one is off
/// every board as an action (see [`Ints`]), true as a mask. `None` for
/// anything else.
fn plain_ints(values: &Bound<'_, PyAny>, bools: bool) -> PyResult<Option<Ints>> {
    let items = if let Ok(list) = values.cast::<PyList>() {
        list.as_sequence().clone()
    } else if let Ok(tuple) = values.cast::<PyTuple>() {
        tuple.as_sequence().clone()
    } else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(items.len()?);
    let mut past = None;
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        if !item.is_exact_instance_of::<PyInt>() {
            return Ok(None);
        }
        out.push(match item.extract::<i64>() {
            Ok(v) => v,
            Err(_) if bools => 1,
            Err(_) => {
                if past.is_none() {
                    past = Some((i, item.extract::<Int>()?));
                }
                i64::MAX
            }
        });
    }
    Ok(Some(Ints { values: out, past }))
}

/// A uniformly random empty cell of `game` (an unfinished game has one):
/// a few draws of any cell, kept when empty, then a draw among the empty
/// cells counted. Each stage picks uniformly among the empty cells, so
/// the choice is uniform, and on the sparse boards of most games it costs
/// one or two draws instead of a scan of the board.
fn random_empty(game: &Game, rng: &mut SeededRng) -> usize {
    let cells = game.cells();
    for _ in 0..8 {
        let i = rng.random_range(0..cells.len());
        if cells[i].is_none() {
            return i;
        }
    }
    let empty = cells.len() - game.move_count();
    let pick = rng.random_range(0..empty);
    cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_none())
        .nth(pick)
        .map(|(i, _)| i)
        .expect("an unfinished game has an empty cell")
}

#[pymethods]
impl PyVectorGame {
    /// `n` empty `rows`×`cols` boards, X to move on each, `k` in a row to
    /// win (by default the shorter side, at most 5). `seed` fixes `random_actions`.
    #[new]
    #[pyo3(
        signature = (n, rows = Int::Fits(3), cols = Int::Fits(3), k = None, seed = Int::Fits(0)),
        text_signature = "(n, rows=3, cols=3, k=None, seed=0)"
    )]
    fn new(n: Int, rows: Int, cols: Int, k: Option<Int>, seed: Int) -> PyResult<Self> {
        let rules = rules(&rows, &cols, k.as_ref())?;
        let seed = seed.to_u64::<OxoError>("seed")?;
        if n.is_negative() {
            return Err(raise::<RulesError>(format!(
                "n={n} is not a number of boards: n must be at least 0"
            )));
        }
        // Past usize, past the caps below too: say so with n as given.
        let Some(n) = n.to::<usize>() else {
            return Err(raise::<RulesError>(format!(
                "{n} boards of {rules} are too many: a batch holds at most {MAX_CELLS} cells \
                 in all"
            )));
        };
        if n.saturating_mul(rules.cell_count()) > MAX_CELLS {
            return Err(raise::<RulesError>(format!(
                "{n} boards of {rules} are too many: a batch holds at most {MAX_CELLS} cells \
                 in all"
            )));
        }
        let per_board = board_bytes(rules);
        if (n as u64).saturating_mul(per_board) > MAX_BYTES {
            return Err(raise::<RulesError>(format!(
                "{n} boards of {rules} are too many: at about {per_board} bytes a board, a \
                 batch may take at most {MAX_BYTES} bytes (4 GiB), {} boards of this size",
                MAX_BYTES / per_board
            )));
        }
        // Under the caps the machine may still lack the memory: ask for the
        // list of games fallibly, so that a refusal is a MemoryError, not
        // an abort (the cells each game then allocates are the smaller
        // part, and not checked so).
        let mut games = Vec::new();
        games.try_reserve_exact(n).map_err(|e| {
            PyMemoryError::new_err(format!(
                "{n} boards of {rules}: cannot allocate the batch ({e})"
            ))
        })?;
        games.resize(n, Game::new(rules));
        Ok(PyVectorGame {
            rules,
            games,
            rng: rng_from_seed(seed),
        })
    }

    fn __len__(&self) -> usize {
        self.games.len()
    }

    /// Rows of every board.
    #[getter]
    fn rows(&self) -> u32 {
        self.rules.rows()
    }

    /// Columns of every board.
    #[getter]
    fn cols(&self) -> u32 {
        self.rules.cols()
    }

    /// Marks in a row that win.
    #[getter]
    fn k(&self) -> u32 {
        self.rules.k()
    }

    /// Empty the boards where `mask` (a `(n,)` array of bools, or of
    /// integers: nonzero is true) is true, or every board when it is
    /// `None`. Any other dtype raises `TypeError`.
    #[pyo3(signature = (mask = None))]
    fn reset(&mut self, mask: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let empty = Game::new(self.rules);
        match mask {
            None => self.games.iter_mut().for_each(|g| g.clone_from(&empty)),
            Some(mask) => {
                let mask = read_ints(mask, "mask", true)?.values;
                if mask.len() != self.games.len() {
                    // A mask plays no move: not an illegal one either.
                    return Err(raise::<OxoError>(format!(
                        "a mask of {} for {} boards",
                        mask.len(),
                        self.games.len()
                    )));
                }
                for (g, &reset) in self.games.iter_mut().zip(&mask) {
                    if reset != 0 {
                        g.clone_from(&empty);
                    }
                }
            }
        }
        Ok(())
    }

    /// Play `actions[i]` (`row * cols + col`) on board `i` for its player
    /// to move; `-1` plays nothing there. Returns `(rewards, dones)`:
    /// int8 `1` where the move won for the player who made it, else `0`;
    /// bool `True` where the board's game is over after the step.
    ///
    /// Every action is checked before any is played: one refused (off the
    /// board, taken, or on a finished board) raises `oxo.IllegalMoveError`
    /// naming the board, and no board changes. Actions must be integers (any
    /// integer dtype, any stride): floats and strings raise `TypeError`, as
    /// they do in `oxo.Game.play`, and so does an array of bools (a mask
    /// passed by mistake, most likely).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<StepResult<'py>> {
        let Ints {
            values: actions,
            past,
        } = read_ints(actions, "actions", false)?;
        let this = &mut *self;
        let (rewards, dones) = py.detach(|| {
            this.check(&actions, past.as_ref())?;
            let rules = this.rules;
            let mut rewards = vec![0i8; actions.len()];
            let mut dones = vec![false; actions.len()];
            for (((game, &action), r), d) in this
                .games
                .iter_mut()
                .zip(&actions)
                .zip(&mut rewards)
                .zip(&mut dones)
            {
                if action >= 0
                    && matches!(
                        game.play_unchecked(rules.cell_at(action as usize))
                            .outcome(),
                        Some(Outcome::Win(_))
                    )
                {
                    *r = 1;
                }
                *d = game.is_over();
            }
            Ok::<_, PyErr>((rewards, dones))
        })?;
        Ok((rewards.into_pyarray(py), dones.into_pyarray(py)))
    }

    /// A uniformly random legal action on every board (`-1` on finished
    /// ones), drawn from the generator `seed` started.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let (games, rng) = (&self.games, &mut self.rng);
        let actions = py.detach(|| {
            games
                .iter()
                .map(|g| {
                    if g.is_over() {
                        -1
                    } else {
                        random_empty(g, rng) as i64
                    }
                })
                .collect::<Vec<i64>>()
        });
        actions.into_pyarray(py)
    }

    /// Every board as PettingZoo's tic-tac-toe observes it, from its player
    /// to move: a new `(n, rows, cols, 2)` int8 array.
    fn observe<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray4<i8>> {
        let cells = self.cells();
        let games = &self.games;
        let out = py.detach(|| {
            let mut out = vec![0i8; games.len() * cells * 2];
            for (g, o) in games.iter().zip(out.chunks_exact_mut(cells * 2)) {
                crate::game::write_planes(g, g.to_move(), o);
            }
            out
        });
        let (rows, cols) = self.shape2();
        Array::from_shape_vec((self.games.len(), rows, cols, 2), out)
            .expect("two values a cell")
            .into_pyarray(py)
    }

    /// The legal actions of every board: a new `(n, rows * cols)` int8
    /// array of 0 and 1 (all 0 on finished boards).
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        let cells = self.cells();
        let games = &self.games;
        let out = py.detach(|| {
            let mut out = vec![0i8; games.len() * cells];
            for (g, o) in games.iter().zip(out.chunks_exact_mut(cells)) {
                crate::game::write_mask(g, o);
            }
            out
        });
        Array::from_shape_vec((self.games.len(), cells), out)
            .expect("one value a cell")
            .into_pyarray(py)
    }

    /// Every board as a new `(n, rows, cols)` int8 array: 1 for X, -1 for
    /// O, 0 for empty.
    fn boards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<i8>> {
        let cells = self.cells();
        let mut out = vec![0i8; self.games.len() * cells];
        for (g, o) in self.games.iter().zip(out.chunks_exact_mut(cells)) {
            crate::game::write_board(g, o);
        }
        let (rows, cols) = self.shape2();
        Array::from_shape_vec((self.games.len(), rows, cols), out)
            .expect("one value a cell")
            .into_pyarray(py)
    }

    /// The player to move on every board: int8 1 for X, -1 for O.
    fn to_move<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let out: Vec<i8> = self.games.iter().map(|g| sign(g.to_move())).collect();
        out.into_pyarray(py)
    }

    /// The winner on every board: int8 1 for X, -1 for O, 0 for none yet
    /// or a draw.
    fn winners<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let out: Vec<i8> = self
            .games
            .iter()
            .map(|g| g.outcome().and_then(Outcome::winner).map_or(0, sign))
            .collect();
        out.into_pyarray(py)
    }

    /// Whether each board's game is over: a `(n,)` bool array.
    fn dones<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let out: Vec<bool> = self.games.iter().map(Game::is_over).collect();
        out.into_pyarray(py)
    }

    /// A copy of board `i` as an `oxo.Game` (with no moves to undo: the
    /// batch keeps no history).
    fn game(&self, i: Int) -> PyResult<PyGame> {
        let game = i.to::<usize>().and_then(|i| self.games.get(i));
        let game = game.ok_or_else(|| {
            let n = self.games.len();
            pyo3::exceptions::PyIndexError::new_err(if n == 0 {
                format!("board {i} of 0: the batch has no boards")
            } else {
                format!("board {i} of {n}: boards are 0 to {}", n - 1)
            })
        })?;
        Ok(PyGame::starting_at(game.clone()))
    }

    fn __repr__(&self) -> String {
        format!("oxo.VectorGame({}, {})", self.games.len(), self.rules)
    }
}
