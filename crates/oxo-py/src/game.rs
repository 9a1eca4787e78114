//! `oxo.Game`: one game, played move by move from Python.

use numpy::ndarray::Array;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3};
use oxo_core::{
    BoardSize, Cell, Coords, Game, History, MAX_SIDE, MoveError, Outcome, Player, Rules, Setup,
};
use pyo3::Borrowed;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use oxo_text::input::quoted_whole;

use crate::args::Int;
use crate::errors::{IllegalMoveError, RulesError, raise};

/// A move as Python gives it: an action number (`row * cols + col`) or a
/// `(row, col)` pair, each number as given (however large, for messages).
#[derive(Clone, Debug)]
pub(crate) enum Move {
    /// `row * cols + col`.
    Action(Int),
    /// `(row, col)`.
    Cell(Int, Int),
}

impl Move {
    /// The action `action`, as oxo makes one.
    pub(crate) fn action(action: usize) -> Move {
        Move::Action(Int::Fits(action as i128))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Move {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Move> {
        // A bool is an int to Python, but True is no action (`Int` refuses
        // it, as VectorGame does).
        if let Ok(action) = obj.extract::<Int>() {
            return Ok(Move::Action(action));
        }
        // A pair as a tuple, or as a list (what `json.loads` makes of one).
        let pair = obj
            .extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()
            .ok()
            .or_else(|| {
                let list = obj.cast::<PyList>().ok()?;
                if list.len() != 2 {
                    return None;
                }
                Some((list.get_item(0).ok()?, list.get_item(1).ok()?))
            });
        if let Some((row, col)) = pair
            && let (Ok(row), Ok(col)) = (row.extract::<Int>(), col.extract::<Int>())
        {
            return Ok(Move::Cell(row, col));
        }
        let shown = obj.repr().map(|r| r.to_string()).unwrap_or_default();
        let shown: String = shown.chars().take(40).collect();
        Err(PyTypeError::new_err(format!(
            "a move is an action (an int) or a (row, col) pair of ints, as a tuple or a list, not {} {shown}",
            obj.get_type().name()?
        )))
    }
}

/// `value` as an `i64`, or the nearest one (off every board either way).
fn saturated(value: &Int) -> i64 {
    value.to::<i64>().unwrap_or(if value.is_negative() {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// The rules for `rows`×`cols` with `k` in a row (the shorter side, at most 5, when not
/// given), or `oxo.RulesError` naming what is wrong.
pub(crate) fn rules(rows: &Int, cols: &Int, k: Option<&Int>) -> PyResult<Rules> {
    let side = |value: &Int, name: &str| {
        value.to::<u32>().ok_or_else(|| {
            raise::<RulesError>(format!(
                "{name}={value} is not a board side: a side is from 1 to {MAX_SIDE} cells"
            ))
        })
    };
    let (rows, cols) = (side(rows, "rows")?, side(cols, "cols")?);
    let k = match k {
        None => BoardSize { rows, cols }.default_k(),
        Some(k) => win_length(k, rows, cols)?,
    };
    Rules::new(rows, cols, k).map_err(raise::<RulesError>)
}

/// `k` as a `u32` for a `rows`×`cols` board; past `u32` (negative, say),
/// `oxo.RulesError` in the words `Rules::new` uses for a bad k, after any
/// error of the board itself.
pub(crate) fn win_length(k: &Int, rows: u32, cols: u32) -> PyResult<u32> {
    k.to::<u32>().map_or_else(
        || {
            Rules::new(rows, cols, 1).map_err(raise::<RulesError>)?;
            Err(raise::<RulesError>(format!(
                "k={k} is impossible on {} {rows}x{cols} board: k must be from 1 to {}",
                oxo_core::a_or_an(rows),
                rows.max(cols)
            )))
        },
        Ok,
    )
}

/// The cell a move names under `rules`, or [`MoveError::OffBoard`] (with
/// numbers past an `i64` saturated: [`move_message`] shows them as given).
pub(crate) fn cell_on(rules: Rules, mv: &Move) -> Result<Cell, MoveError> {
    let (row, col) = match mv {
        Move::Cell(row, col) => (saturated(row), saturated(col)),
        Move::Action(action) => {
            let cols = i64::from(rules.cols());
            let action = saturated(action);
            if action < 0 || action >= rules.cell_count() as i64 {
                // Off the board either way; the message names the action.
                return Err(MoveError::OffBoard {
                    row: action.div_euclid(cols),
                    col: action.rem_euclid(cols),
                });
            }
            (action / cols, action % cols)
        }
    };
    Coords::new(row, col).to_cell(rules)
}

/// The cell a move names in `game`, or the move error that refuses it,
/// in [`Game::play`]'s order: a finished game first, then off the board.
pub(crate) fn cell_of(game: &Game, mv: &Move) -> Result<Cell, MoveError> {
    if game.is_over() {
        return Err(MoveError::GameOver);
    }
    cell_on(game.rules(), mv)
}

/// The message of a refused move, naming the numbers as the caller gave
/// them.
pub(crate) fn move_message(game: &Game, mv: &Move, error: MoveError) -> String {
    match (mv, error) {
        (Move::Action(action), MoveError::OffBoard { .. }) => format!(
            "action {action} is off the board: a {} board's actions are 0 to {}",
            game.rules(),
            game.rules().cell_count() - 1
        ),
        // The rules' words, with the numbers as given.
        (Move::Cell(row, col), MoveError::OffBoard { .. }) => {
            format!("({row}, {col}) is off the board")
        }
        (_, error) => error.to_string(),
    }
}

/// `1` for X, `-1` for O: the sign NumPy boards use.
pub(crate) const fn sign(player: Player) -> i8 {
    match player {
        Player::X => 1,
        Player::O => -1,
    }
}

/// `"X"` or `"O"`.
pub(crate) const fn name(player: Player) -> &'static str {
    match player {
        Player::X => "X",
        Player::O => "O",
    }
}

/// The board as signs, row-major: 1 for X, -1 for O, 0 for empty.
pub(crate) fn write_board(game: &Game, out: &mut [i8]) {
    for (o, c) in out.iter_mut().zip(game.cells()) {
        *o = c.map_or(0, sign);
    }
}

/// The two planes PettingZoo's tic-tac-toe observes, interleaved as a
/// `(rows, cols, 2)` array: the marks of `me`, then the other player's.
pub(crate) fn write_planes(game: &Game, me: Player, out: &mut [i8]) {
    for (o, c) in out.chunks_exact_mut(2).zip(game.cells()) {
        o[0] = i8::from(*c == Some(me));
        o[1] = i8::from(*c == Some(me.other()));
    }
}

/// 1 where a move is legal, 0 elsewhere (all 0 once the game is over).
pub(crate) fn write_mask(game: &Game, out: &mut [i8]) {
    let open = !game.is_over();
    for (o, c) in out.iter_mut().zip(game.cells()) {
        *o = i8::from(open && c.is_none());
    }
}

/// An m,n,k game: X and O take turns marking cells of a `rows`×`cols`
/// board; the first with `k` in a row (row, column or diagonal) wins.
///
/// Moves are actions `row * cols + col` or `(row, col)` pairs. A refused
/// move raises `oxo.IllegalMoveError` and changes nothing. The game keeps
/// the moves played since it was made, so `undo` takes them back.
#[pyclass(module = "oxo", name = "Game", from_py_object)]
#[derive(Clone, Debug)]
pub struct PyGame {
    /// The game now, the position it started from (empty, or one read from
    /// notation) and the moves played since.
    round: History,
}

impl PyGame {
    /// A game starting from `game`, with no moves to undo.
    pub(crate) fn starting_at(game: Game) -> PyGame {
        PyGame {
            round: History::new(game),
        }
    }

    /// The game now.
    pub(crate) const fn game(&self) -> &Game {
        self.round.game()
    }

    fn action(&self, cell: Cell) -> usize {
        self.game().rules().index(cell)
    }
}

/// What `Game.__reduce__` gives pickle: the class, the arguments that make
/// an empty game of its rules, and the state that `__setstate__` replays.
type Reduced<'py> = (Bound<'py, PyAny>, (u32, u32, u32), (String, Vec<usize>));

#[pymethods]
impl PyGame {
    /// An empty `rows`×`cols` board, X to move, `k` in a row to win (by
    /// default the shorter side, at most 5: 3×3 is tic-tac-toe, 15×15 gomoku).
    #[new]
    // The defaults are `Int`s; the signature Python shows names them plainly.
    #[pyo3(
        signature = (rows = Int::Fits(3), cols = Int::Fits(3), k = None),
        text_signature = "(rows=3, cols=3, k=None)"
    )]
    fn new(rows: Int, cols: Int, k: Option<Int>) -> PyResult<PyGame> {
        let rules = rules(&rows, &cols, k.as_ref())?;
        Ok(PyGame::starting_at(Game::new(rules)))
    }

    /// The game at `position`, in oxo's notation: rows top to bottom
    /// joined by `/`, cells `X`, `O` or `.` (`"X.O/.X./..O"`). The player
    /// to move follows from the mark counts (X moves first). `k` defaults
    /// to the board's shorter side, at most 5.
    #[staticmethod]
    #[pyo3(signature = (position, k = None))]
    pub(crate) fn from_notation(position: &str, k: Option<Int>) -> PyResult<PyGame> {
        let setup: Setup = position.parse().map_err(|e| {
            raise::<RulesError>(format!("bad position \"{}\": {e}", quoted_whole(position)))
        })?;
        let k = match k {
            None => setup.size().default_k(),
            Some(k) => win_length(&k, setup.rows(), setup.cols())?,
        };
        let game = Game::from_setup(&setup, k).map_err(|e| {
            raise::<RulesError>(format!(
                "impossible position \"{}\": {e}",
                quoted_whole(position)
            ))
        })?;
        Ok(PyGame::starting_at(game))
    }

    /// Rows of the board.
    #[getter]
    fn rows(&self) -> u32 {
        self.game().rules().rows()
    }

    /// Columns of the board.
    #[getter]
    fn cols(&self) -> u32 {
        self.game().rules().cols()
    }

    /// Marks in a row that win.
    #[getter]
    fn k(&self) -> u32 {
        self.game().rules().k()
    }

    /// `"X"` or `"O"`: whose turn it is (after the end, who would be next).
    #[getter]
    fn to_move(&self) -> &'static str {
        name(self.game().to_move())
    }

    /// Marks on the board.
    #[getter]
    fn move_count(&self) -> usize {
        self.game().move_count()
    }

    /// Whether the game has been won or drawn.
    #[getter]
    fn is_over(&self) -> bool {
        self.game().is_over()
    }

    /// `"X"` or `"O"` once one has won, else `None` (also for a draw).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.game().outcome().and_then(Outcome::winner).map(name)
    }

    /// `"X"`, `"O"` (the winner), `"draw"`, or `None` while the game goes on.
    #[getter]
    fn outcome(&self) -> Option<&'static str> {
        self.game().outcome().map(|o| match o {
            Outcome::Win(p) => name(p),
            Outcome::Draw => "draw",
        })
    }

    /// The actions of the winning run through the last move, or `None`.
    #[getter]
    fn winning_line(&self) -> Option<Vec<usize>> {
        let line = self.game().winning_line()?;
        Some(line.cells().map(|c| self.action(c)).collect())
    }

    /// The actions played since the game was made (or read from notation).
    #[getter]
    fn moves(&self) -> Vec<usize> {
        self.round.moves().iter().map(|&c| self.action(c)).collect()
    }

    /// The position in oxo's notation, as `oxo solve` and the rest of oxo
    /// write it: `"X.O/.X./..O"`.
    #[getter]
    fn notation(&self) -> String {
        self.game().to_string()
    }

    /// The player to move marks `move`: an action `row * cols + col` or a
    /// `(row, col)` pair.
    ///
    /// Raises `oxo.IllegalMoveError` (the game unchanged) for a cell off
    /// the board, one already taken, or any move once the game is over.
    #[pyo3(signature = (move_, /))]
    pub(crate) fn play(&mut self, move_: Move) -> PyResult<()> {
        cell_of(self.game(), &move_)
            .and_then(|cell| self.round.play(cell))
            .map_err(|e| raise::<IllegalMoveError>(move_message(self.game(), &move_, e)))?;
        Ok(())
    }

    /// Take back the last move and return its action. Raises
    /// `oxo.IllegalMoveError` when no move was played since the game was
    /// made.
    fn undo(&mut self) -> PyResult<usize> {
        let Some(cell) = self.round.undo() else {
            return Err(raise::<IllegalMoveError>(
                "no move to undo: none was played since this game was made",
            ));
        };
        Ok(self.action(cell))
    }

    /// The legal actions, in increasing order (none once the game is over).
    fn legal_moves(&self) -> Vec<usize> {
        if self.game().is_over() {
            return Vec::new();
        }
        // The empty cells' row-major indices are their actions.
        let cells = self.game().cells();
        let mut moves = Vec::with_capacity(cells.len() - self.game().move_count());
        moves.extend((0..cells.len()).filter(|&i| cells[i].is_none()));
        moves
    }

    /// Whether `move` (an action or a `(row, col)` pair) is legal now.
    #[pyo3(signature = (move_, /))]
    fn is_legal(&self, move_: Move) -> bool {
        cell_of(self.game(), &move_).is_ok_and(|c| self.game().get(c).is_none())
    }

    /// `"X"`, `"O"` or `None`: the mark at `move` (an action or a
    /// `(row, col)` pair). Raises `oxo.IllegalMoveError` off the board.
    #[pyo3(signature = (move_, /))]
    fn get(&self, move_: Move) -> PyResult<Option<&'static str>> {
        let cell = cell_on(self.game().rules(), &move_)
            .map_err(|e| raise::<IllegalMoveError>(move_message(self.game(), &move_, e)))?;
        Ok(self.game().get(cell).map(name))
    }

    /// The board as a new `(rows, cols)` int8 array: 1 for X, -1 for O,
    /// 0 for empty.
    fn board<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        let rules = self.game().rules();
        let mut out = vec![0; rules.cell_count()];
        write_board(self.game(), &mut out);
        Array::from_shape_vec((rules.rows() as usize, rules.cols() as usize), out)
            .expect("one value a cell")
            .into_pyarray(py)
    }

    /// The board as PettingZoo's tic-tac-toe observes it: a new
    /// `(rows, cols, 2)` int8 array, plane 0 the marks of the player to
    /// move (or of `player`, `"X"` or `"O"`), plane 1 the other's.
    #[pyo3(signature = (player = None))]
    fn planes<'py>(
        &self,
        py: Python<'py>,
        player: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray3<i8>>> {
        let me = match player {
            None => self.game().to_move(),
            Some(name) => Player::from_name(name).ok_or_else(|| {
                raise::<RulesError>(format!("unknown player {name:?}: expected \"X\" or \"O\""))
            })?,
        };
        let rules = self.game().rules();
        let mut out = vec![0; rules.cell_count() * 2];
        write_planes(self.game(), me, &mut out);
        Ok(
            Array::from_shape_vec((rules.rows() as usize, rules.cols() as usize, 2), out)
                .expect("two values a cell")
                .into_pyarray(py),
        )
    }

    /// The legal actions as a new `(rows * cols,)` int8 array of 0 and 1.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut out = vec![0; self.game().rules().cell_count()];
        write_mask(self.game(), &mut out);
        out.into_pyarray(py)
    }

    /// An independent copy, with the same moves to undo.
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    /// Pickling (and so `multiprocessing`): the rules, then the start and
    /// the moves played since, so that the game unpickled can undo them.
    fn __reduce__<'py>(slf: &Bound<'py, PyGame>) -> PyResult<Reduced<'py>> {
        let this = slf.borrow();
        let rules = this.game().rules();
        Ok((
            slf.get_type().into_any(),
            (rules.rows(), rules.cols(), rules.k()),
            (this.round.start().to_string(), this.moves()),
        ))
    }

    /// The state `__reduce__` gave: the start in notation and the actions
    /// since, each checked again (a pickle is only bytes). Raises
    /// `oxo.RulesError` or `oxo.IllegalMoveError` for a state that is not
    /// a game of these rules; the game is then unchanged.
    fn __setstate__(&mut self, state: (String, Vec<Int>)) -> PyResult<()> {
        let (start, moves) = state;
        let rules = self.game().rules();
        let mut game = PyGame::from_notation(&start, Some(Int::Fits(rules.k().into())))?;
        if game.game().rules() != rules {
            return Err(raise::<RulesError>(format!(
                "a pickled {rules} game cannot start at {start:?}, a {} position",
                game.game().rules()
            )));
        }
        for action in moves {
            game.play(Move::Action(action))?;
        }
        *self = game;
        Ok(())
    }

    /// The board drawn as text, a row a line (`X . O`), as the `ansi`
    /// render mode shows it.
    fn render(&self) -> String {
        let cols = self.game().rules().cols() as usize;
        let mut text = String::new();
        for row in self.game().cells().chunks(cols) {
            let marks: Vec<&str> = row.iter().map(|c| c.map_or(".", name)).collect();
            text.push_str(&marks.join(" "));
            text.push('\n');
        }
        text
    }

    fn __str__(&self) -> String {
        self.game().to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "oxo.Game.from_notation({:?}, k={})",
            self.game().to_string(),
            self.game().rules().k()
        )
    }

    /// Games are equal when their boards, rules and player to move are
    /// (the moves that led there do not count).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyGame>()
            .is_ok_and(|o| o.borrow().game() == self.game())
    }
}
