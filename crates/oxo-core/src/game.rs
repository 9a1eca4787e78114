//! A game in progress: the board, whose turn it is, and the result.

use std::fmt;

use crate::notation::{NotationError, PositionError, Setup};
use crate::player::Player;
use crate::rules::{Cell, Direction, Line, Rules};

/// How a finished game ended: the seeds' "win" and "cat" events.
///
/// A finished move reports one of these (see [`MoveResult::outcome`]); a
/// [`Scoreboard`](crate::Scoreboard) records them. The game itself knows
/// nothing about who is watching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player made k in a row.
    Win(Player),
    /// The board filled with no winner (a "cat" game).
    Draw,
}

impl Outcome {
    /// The winner, if there is one.
    #[must_use]
    pub const fn winner(self) -> Option<Player> {
        match self {
            Outcome::Win(p) => Some(p),
            Outcome::Draw => None,
        }
    }
}

/// What an accepted move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveResult {
    /// The mark was placed and the game goes on; the turn passed.
    Placed,
    /// The mark completed a line of at least k: `winner` won.
    Won {
        /// Who moved and won.
        winner: Player,
        /// The winning run through the move (see [`Game::winning_line`]).
        line: Line,
    },
    /// The mark filled the last empty cell without a win.
    Draw,
}

impl MoveResult {
    /// The game-over event this move caused, if any.
    #[must_use]
    pub const fn outcome(self) -> Option<Outcome> {
        match self {
            MoveResult::Placed => None,
            MoveResult::Won { winner, .. } => Some(Outcome::Win(winner)),
            MoveResult::Draw => Some(Outcome::Draw),
        }
    }
}

/// Why a move was refused. A refused move changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum MoveError {
    /// The game has already been won or drawn.
    #[error("the game is already over")]
    GameOver,
    /// The named mover is not the player to move.
    #[error("it is {to_move}'s turn, not {mover}'s")]
    NotYourTurn {
        /// Who tried to move.
        mover: Player,
        /// Whose turn it is.
        to_move: Player,
    },
    /// The coordinates are not on the board.
    #[error("({row}, {col}) is off the board")]
    OffBoard {
        /// Row asked for.
        row: i64,
        /// Column asked for.
        col: i64,
    },
    /// The cell already holds a mark.
    #[error("{cell} is already taken by {by}")]
    Occupied {
        /// The cell asked for.
        cell: Cell,
        /// Whose mark is there.
        by: Player,
    },
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Moves are still possible; this player is to move.
    InProgress {
        /// The player to move.
        to_move: Player,
    },
    /// Finished.
    Over(Outcome),
}

/// An m,n,k-game: the board, the player to move and the result so far.
///
/// Moves go through [`Game::play`] (the player to move plays) or
/// [`Game::play_as`] (the caller names the mover). Every refusal is a
/// [`MoveError`] and leaves the game exactly as it was.
///
/// ```
/// use oxo_core::{Cell, Game, MoveResult, Outcome, Player};
///
/// let mut game = Game::default(); // 3×3, three in a row, X first
/// for (row, col) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
///     assert_eq!(game.play(Cell::new(row, col)), Ok(MoveResult::Placed));
/// }
/// let result = game.play(Cell::new(0, 2)).unwrap();
/// assert_eq!(result.outcome(), Some(Outcome::Win(Player::X)));
/// assert_eq!(game.to_string(), "XXX/OO./...");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    rules: Rules,
    cells: Vec<Option<Player>>,
    to_move: Player,
    filled: usize,
    outcome: Option<Outcome>,
    line: Option<Line>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Rules::default())
    }
}

impl Game {
    /// An empty board under `rules`, X to move.
    #[must_use]
    pub fn new(rules: Rules) -> Game {
        Game::starting_with(rules, Player::X)
    }

    /// An empty board under `rules` with `first` to move.
    #[must_use]
    pub fn starting_with(rules: Rules, first: Player) -> Game {
        Game {
            rules,
            cells: vec![None; rules.cell_count()],
            to_move: first,
            filled: 0,
            outcome: None,
            line: None,
        }
    }

    /// Build a game from parts already checked for consistency.
    pub(crate) fn from_parts(
        rules: Rules,
        cells: Vec<Option<Player>>,
        to_move: Player,
        outcome: Option<Outcome>,
        line: Option<Line>,
    ) -> Game {
        let filled = cells.iter().filter(|c| c.is_some()).count();
        Game {
            rules,
            cells,
            to_move,
            filled,
            outcome,
            line,
        }
    }

    /// The rules this game is played under.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The mark in `cell`, or `None` when it is empty or off the board.
    #[must_use]
    pub fn get(&self, cell: Cell) -> Option<Player> {
        if self.rules.contains(cell) {
            self.cells[self.rules.index(cell)]
        } else {
            None
        }
    }

    /// Every cell's mark, row-major.
    #[must_use]
    pub fn cells(&self) -> &[Option<Player>] {
        &self.cells
    }

    /// The player whose turn it is. After the game ends this is the player
    /// who would have moved next.
    #[must_use]
    pub const fn to_move(&self) -> Player {
        self.to_move
    }

    /// Marks on the board.
    #[must_use]
    pub const fn move_count(&self) -> usize {
        self.filled
    }

    /// Whether every cell holds a mark.
    #[must_use]
    pub const fn is_full(&self) -> bool {
        self.filled == self.cells.len()
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub const fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has been won or drawn.
    #[must_use]
    pub const fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Where the game stands.
    #[must_use]
    pub const fn status(&self) -> Status {
        match self.outcome {
            Some(outcome) => Status::Over(outcome),
            None => Status::InProgress {
                to_move: self.to_move,
            },
        }
    }

    /// The winning run through the last move: all the winner's contiguous
    /// marks through it in the first direction (row, column, diagonal,
    /// anti-diagonal) that holds at least k, up to k−1 cells either side.
    #[must_use]
    pub const fn winning_line(&self) -> Option<Line> {
        self.line
    }

    /// The empty cells, row by row: the legal moves while the game goes on.
    pub fn empty_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_none())
            .map(|(i, _)| self.rules.cell_at(i))
    }

    /// The legal moves: the empty cells, or none once the game is over.
    pub fn legal_moves(&self) -> impl Iterator<Item = Cell> + '_ {
        let over = self.is_over();
        self.empty_cells().filter(move |_| !over)
    }

    /// The player to move marks `cell`.
    ///
    /// # Errors
    /// [`MoveError::GameOver`], [`MoveError::OffBoard`] or
    /// [`MoveError::Occupied`], checked in that order. Nothing changes.
    pub fn play(&mut self, cell: Cell) -> Result<MoveResult, MoveError> {
        self.play_as(self.to_move, cell)
    }

    /// The player to move marks the cell at signed coordinates, which may be
    /// anywhere (text front ends read them from untrusted input).
    ///
    /// # Errors
    /// As [`Game::play`]; coordinates off the board give
    /// [`MoveError::OffBoard`] with the numbers given.
    // Inline: a text front end calls this once an input line, and a game
    // that is over answers without a call (the command stream's hot path).
    #[inline]
    pub fn play_at(&mut self, row: i64, col: i64) -> Result<MoveResult, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let cell = self
            .rules
            .cell(row, col)
            .ok_or(MoveError::OffBoard { row, col })?;
        self.play(cell)
    }

    /// `mover` marks `cell`.
    ///
    /// # Errors
    /// In this order: [`MoveError::GameOver`], [`MoveError::NotYourTurn`],
    /// [`MoveError::OffBoard`], [`MoveError::Occupied`]. Nothing changes.
    pub fn play_as(&mut self, mover: Player, cell: Cell) -> Result<MoveResult, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if mover != self.to_move {
            return Err(MoveError::NotYourTurn {
                mover,
                to_move: self.to_move,
            });
        }
        if !self.rules.contains(cell) {
            return Err(MoveError::OffBoard {
                row: cell.row.into(),
                col: cell.col.into(),
            });
        }
        if let Some(by) = self.cells[self.rules.index(cell)] {
            return Err(MoveError::Occupied { cell, by });
        }
        Ok(self.play_unchecked(cell))
    }

    /// The player to move marks `cell`, skipping the checks of
    /// [`Game::play`]: for searches that only generate legal moves.
    ///
    /// # Panics
    /// If `cell` is off the board. Playing an occupied cell or after the
    /// game is over is a logic error: debug builds panic, release builds
    /// leave the game in an unspecified (but memory-safe) state.
    pub fn play_unchecked(&mut self, cell: Cell) -> MoveResult {
        debug_assert!(!self.is_over(), "move after the game ended");
        let index = self.rules.index(cell);
        assert!(self.rules.contains(cell), "{cell} is off the board");
        debug_assert!(self.cells[index].is_none(), "{cell} is occupied");
        let mover = self.to_move;
        self.cells[index] = Some(mover);
        self.filled += 1;
        self.to_move = mover.other();
        if let Some(line) = self.line_through(cell, mover) {
            self.outcome = Some(Outcome::Win(mover));
            self.line = Some(line);
            MoveResult::Won {
                winner: mover,
                line,
            }
        } else if self.is_full() {
            self.outcome = Some(Outcome::Draw);
            MoveResult::Draw
        } else {
            MoveResult::Placed
        }
    }

    /// The first run of at least k of `player`'s marks through `cell`
    /// (exactly k under [`Rules::exactly`]), looking at most k−1 cells
    /// either way (k, to see an overline): O(k) per move.
    ///
    /// This runs on every move, so it walks the row-major cell vector by a
    /// fixed stride per direction, with the number of steps to the board's
    /// edge worked out once, instead of stepping cell by cell.
    fn line_through(&self, cell: Cell, player: Player) -> Option<Line> {
        let k = self.rules.k();
        let exact = self.rules.is_exact();
        let look = if exact { k } else { k - 1 };
        let (rows, cols) = (self.rules.rows(), self.rules.cols());
        // Free cells beyond `cell` in each way along each axis.
        let (up, down) = (cell.row, rows - 1 - cell.row);
        let (left, right) = (cell.col, cols - 1 - cell.col);
        let at = self.rules.index(cell);
        let width = cols as usize;
        let mark = Some(player);
        // How many of `player`'s marks follow `at` by `stride` (at most `steps`).
        let count = |stride: usize, ahead: bool, steps: u32| -> u32 {
            let mut n = 0;
            let mut i = at;
            while n < steps {
                i = if ahead {
                    i.wrapping_add(stride)
                } else {
                    i.wrapping_sub(stride)
                };
                if self.cells[i] != mark {
                    break;
                }
                n += 1;
            }
            n
        };
        Direction::ALL.into_iter().find_map(|direction| {
            // (stride, room behind the cell, room ahead of it)
            let (stride, behind, ahead) = match direction {
                Direction::Horizontal => (1, left, right),
                Direction::Vertical => (width, up, down),
                Direction::Diagonal => (width + 1, up.min(left), down.min(right)),
                Direction::AntiDiagonal => (width - 1, up.min(right), down.min(left)),
            };
            let back = count(stride, false, look.min(behind));
            let len = back + 1 + count(stride, true, look.min(ahead));
            let wins = if exact { len == k } else { len >= k };
            wins.then(|| {
                let (dr, dc) = direction.delta();
                Line {
                    start: Cell::new(
                        cell.row - back * dr.unsigned_abs(),
                        cell.col.wrapping_add_signed(-(back as i32) * dc),
                    ),
                    direction,
                    len,
                }
            })
        })
    }

    /// How many of `player`'s marks follow `from` in one direction (at most
    /// `limit`), and the last of them (or `from`).
    fn run(
        &self,
        from: Cell,
        player: Player,
        direction: Direction,
        forward: bool,
        limit: u32,
    ) -> (u32, Cell) {
        let mut count = 0;
        let mut last = from;
        while count < limit {
            match self.rules.step(last, direction, forward) {
                Some(next) if self.cells[self.rules.index(next)] == Some(player) => {
                    count += 1;
                    last = next;
                }
                _ => break,
            }
        }
        (count, last)
    }

    /// Forward-direction variant of `run` used for the count after the cell.
    fn runs_ahead(&self, cell: Cell, player: Player, direction: Direction) -> u32 {
        self.run(cell, player, direction, true, u32::MAX).0
    }

    /// Every maximal run of at least k same marks on the board (exactly k
    /// under [`Rules::exactly`]), found by
    /// scanning the whole board (not just the last move). Slow; meant for
    /// checking a position read from text, and for tests.
    #[must_use]
    pub fn scan_lines(&self) -> Vec<(Player, Line)> {
        let k = self.rules.k();
        let mut lines = Vec::new();
        for cell in self.rules.cells() {
            let Some(player) = self.get(cell) else {
                continue;
            };
            for direction in Direction::ALL {
                // Only count runs from their first cell.
                let starts_here = match self.rules.step(cell, direction, false) {
                    Some(prev) => self.get(prev) != Some(player),
                    None => true,
                };
                if !starts_here {
                    continue;
                }
                let len = 1 + self.runs_ahead(cell, player, direction);
                if len == k || (len > k && !self.rules.is_exact()) {
                    lines.push((
                        player,
                        Line {
                            start: cell,
                            direction,
                            len,
                        },
                    ));
                }
            }
        }
        lines
    }
}

/// The position in oxo's notation: rows top to bottom joined by `/`, each
/// cell `X`, `O` or `.` (for example `X.O/.X./..O`).
impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::notation::write_cells(f, self.rules.cols(), &self.cells)
    }
}

impl From<&Game> for Setup {
    fn from(game: &Game) -> Setup {
        Setup::from_cells(
            game.rules().rows(),
            game.rules().cols(),
            game.cells().to_vec(),
        )
    }
}

impl Game {
    /// The game at `setup` with `k` in a row to win, X having moved first.
    ///
    /// The player to move follows from the mark counts. A position that is
    /// already won or drawn gives a finished game.
    ///
    /// # Errors
    /// A `k` that does not fit the board, mark counts that alternate play
    /// cannot give, two winners, a winner who did not move last, or winning
    /// lines that no single last move could have completed.
    pub fn from_setup(setup: &Setup, k: u32) -> Result<Game, PositionError> {
        let rules = Rules::new(setup.rows(), setup.cols(), k)?;
        let x = setup
            .cells()
            .iter()
            .filter(|&&c| c == Some(Player::X))
            .count();
        let o = setup
            .cells()
            .iter()
            .filter(|&&c| c == Some(Player::O))
            .count();
        let to_move = if x == o {
            Player::X
        } else if x == o + 1 {
            Player::O
        } else {
            return Err(PositionError::MarkCounts { x, o });
        };
        let unchecked = Game::from_parts(rules, setup.cells().to_vec(), to_move, None, None);
        let lines = unchecked.scan_lines();
        let Some(&(winner, _)) = lines.first() else {
            let outcome = unchecked.is_full().then_some(Outcome::Draw);
            return Ok(Game::from_parts(
                rules,
                setup.cells().to_vec(),
                to_move,
                outcome,
                None,
            ));
        };
        if lines.iter().any(|&(p, _)| p != winner) {
            return Err(PositionError::TwoWinners { k });
        }
        if winner != to_move.other() {
            return Err(PositionError::WinnerDidNotMoveLast { winner, k, x, o });
        }
        let last = last_move_candidates(k, &lines).ok_or(PositionError::DisjointWins { winner })?;
        // Report the run through the last move as play would have found it:
        // the first direction in `Direction::ALL` order (every line holds
        // `last`), clipped to k-1 cells either side of it.
        let first_direction = lines
            .iter()
            .map(|&(_, l)| l)
            .min_by_key(|l| Direction::ALL.iter().position(|&d| d == l.direction))
            .expect("at least one line");
        let line = clip_to_window(first_direction, last, k);
        Ok(Game::from_parts(
            rules,
            setup.cells().to_vec(),
            to_move,
            Some(Outcome::Win(winner)),
            Some(line),
        ))
    }

    /// Read a position in oxo's notation, with `k` in a row to win.
    ///
    /// ```
    /// use oxo_core::{Game, Player};
    ///
    /// let game = Game::from_notation("X.O/.X./..O", 3).unwrap();
    /// assert_eq!(game.to_move(), Player::X);
    /// assert_eq!(game.to_string(), "X.O/.X./..O");
    /// assert!(Game::from_notation("XXX/OOO/...", 3).is_err()); // two winners
    /// ```
    ///
    /// # Errors
    /// [`NotationError::Syntax`] for text that is not a board,
    /// [`NotationError::Illegal`] for a board play cannot reach.
    pub fn from_notation(text: &str, k: u32) -> Result<Game, NotationError> {
        let setup: Setup = text.parse()?;
        Ok(Game::from_setup(&setup, k)?)
    }
}

/// A cell that lies in every k-window of every line: the only cells that
/// could have been the last move. `None` if there is none.
fn last_move_candidates(k: u32, lines: &[(Player, Line)]) -> Option<Cell> {
    let mut candidates: Vec<Cell> = core_cells(lines[0].1, k).collect();
    for &(_, line) in &lines[1..] {
        candidates.retain(|&c| core_cells(line, k).any(|d| d == c));
    }
    candidates.first().copied()
}

/// The cells of `line` shared by all its k-cell windows: empty when the line
/// is 2k or longer, so no one move can have made it.
fn core_cells(line: Line, k: u32) -> impl Iterator<Item = Cell> {
    let skip = line.len - k;
    line.cells()
        .skip(skip as usize)
        .take(k.saturating_sub(skip) as usize)
}

/// The part of `line` within k−1 cells of `cell`, as play reports it.
fn clip_to_window(line: Line, cell: Cell, k: u32) -> Line {
    let offset = line.cells().position(|c| c == cell).unwrap_or(0) as u32;
    let first = offset.saturating_sub(k - 1);
    let last = (offset + k - 1).min(line.len - 1);
    Line {
        start: line.cells().nth(first as usize).unwrap_or(line.start),
        direction: line.direction,
        len: last - first + 1,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn under_the_exactly_k_rule_an_overline_wins_nothing() {
        let free = Rules::new(1, 9, 5).unwrap();
        let exact = free.exactly();
        assert_eq!(exact.to_string(), "1x9 k=5 exactly");
        assert!(exact.is_exact() && !free.is_exact());
        let mut game = Game::new(Rules::new(2, 9, 5).unwrap().exactly());
        // X: 0-3 and 5 on the top row; O on the bottom row.
        for (x, o) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
            game.play(Cell::new(0, x)).unwrap();
            game.play(Cell::new(1, o)).unwrap();
        }
        game.play(Cell::new(0, 5)).unwrap();
        game.play(Cell::new(1, 8)).unwrap();
        // Column 4 joins six: an overline, no win.
        assert_eq!(game.play(Cell::new(0, 4)), Ok(MoveResult::Placed));
        assert!(game.scan_lines().is_empty());
        // Six become seven at the end: five of them lie within k-1 cells of
        // the move, but the run is longer, so still no win.
        game.play(Cell::new(1, 7)).unwrap();
        assert_eq!(game.play(Cell::new(0, 6)), Ok(MoveResult::Placed));
        // O's exactly five on the bottom row wins: 0-3 and 4.
        let won = game.play(Cell::new(1, 4)).unwrap();
        assert_eq!(won.outcome(), Some(Outcome::Win(Player::O)));
        assert_eq!(game.winning_line().map(|l| l.len), Some(5));
        // The same moves under freestyle: X's six wins.
        let mut free = Game::new(Rules::new(2, 9, 5).unwrap());
        for (x, o) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
            free.play(Cell::new(0, x)).unwrap();
            free.play(Cell::new(1, o)).unwrap();
        }
        free.play(Cell::new(0, 5)).unwrap();
        free.play(Cell::new(1, 8)).unwrap();
        assert_eq!(
            free.play(Cell::new(0, 4)).unwrap().outcome(),
            Some(Outcome::Win(Player::X))
        );
    }

    use super::*;

    fn play_all(game: &mut Game, moves: &[(u32, u32)]) -> Vec<MoveResult> {
        moves
            .iter()
            .map(|&(r, c)| game.play(Cell::new(r, c)).expect("legal move"))
            .collect()
    }

    #[test]
    fn x_wins_top_row() {
        let mut game = Game::default();
        let results = play_all(&mut game, &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]);
        assert_eq!(results[..4], [MoveResult::Placed; 4]);
        let MoveResult::Won { winner, line } = results[4] else {
            panic!("expected a win, got {:?}", results[4]);
        };
        assert_eq!(winner, Player::X);
        assert_eq!(
            line.cells().collect::<Vec<_>>(),
            [Cell::new(0, 0), Cell::new(0, 1), Cell::new(0, 2)]
        );
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::X)));
        assert_eq!(game.winning_line(), Some(line));
        assert_eq!(game.play(Cell::new(2, 2)), Err(MoveError::GameOver));
        assert_eq!(game.legal_moves().count(), 0);
    }

    #[test]
    fn full_board_without_line_is_a_draw() {
        let mut game = Game::default();
        let results = play_all(
            &mut game,
            &[
                (0, 0),
                (1, 1),
                (2, 2),
                (0, 1),
                (2, 1),
                (2, 0),
                (0, 2),
                (1, 2),
                (1, 0),
            ],
        );
        assert_eq!(results[8], MoveResult::Draw);
        assert_eq!(game.status(), Status::Over(Outcome::Draw));
        assert_eq!(game.to_string(), "XOX/XOO/OXX");
    }

    #[test]
    fn a_win_on_the_last_cell_is_a_win_not_a_draw() {
        let mut game = Game::default();
        let results = play_all(
            &mut game,
            &[
                (0, 1),
                (0, 0),
                (0, 2),
                (1, 1),
                (1, 0),
                (2, 0),
                (1, 2),
                (2, 1),
                (2, 2),
            ],
        );
        assert!(game.is_full());
        assert_eq!(results[..8], [MoveResult::Placed; 8]);
        assert!(matches!(
            results[8],
            MoveResult::Won {
                winner: Player::X,
                ..
            }
        ));
        assert_eq!(game.outcome(), Some(Outcome::Win(Player::X)));
    }

    #[test]
    fn rejected_moves_change_nothing() {
        let mut game = Game::default();
        game.play(Cell::new(1, 1)).unwrap();
        let before = game.clone();
        assert_eq!(
            game.play(Cell::new(1, 1)),
            Err(MoveError::Occupied {
                cell: Cell::new(1, 1),
                by: Player::X
            })
        );
        assert_eq!(
            game.play(Cell::new(3, 0)),
            Err(MoveError::OffBoard { row: 3, col: 0 })
        );
        assert_eq!(
            game.play_at(-1, i64::MAX),
            Err(MoveError::OffBoard {
                row: -1,
                col: i64::MAX
            })
        );
        assert_eq!(
            game.play_as(Player::X, Cell::new(0, 0)),
            Err(MoveError::NotYourTurn {
                mover: Player::X,
                to_move: Player::O
            })
        );
        assert_eq!(game, before);
        assert_eq!(game.to_move(), Player::O);
    }

    #[test]
    fn game_over_is_reported_before_anything_else() {
        let mut game = Game::new(Rules::new(1, 1, 1).unwrap());
        assert!(matches!(
            game.play(Cell::new(0, 0)),
            Ok(MoveResult::Won {
                winner: Player::X,
                ..
            })
        ));
        assert_eq!(game.play_at(5, 5), Err(MoveError::GameOver));
        assert_eq!(
            game.play_as(Player::X, Cell::new(0, 0)),
            Err(MoveError::GameOver)
        );
    }

    #[test]
    fn k_window_on_a_large_board() {
        let rules = Rules::new(15, 15, 5).unwrap();
        let mut game = Game::new(rules);
        // X builds a diagonal run 3..=7 out of order; O plays far away.
        let x = [(3, 3), (4, 4), (6, 6), (7, 7)];
        let o = [(0, 14), (1, 14), (2, 14), (3, 14)];
        for (a, b) in x.iter().zip(o) {
            assert_eq!(game.play(Cell::new(a.0, a.1)), Ok(MoveResult::Placed));
            assert_eq!(game.play(Cell::new(b.0, b.1)), Ok(MoveResult::Placed));
        }
        let result = game.play(Cell::new(5, 5)).unwrap();
        let MoveResult::Won { line, .. } = result else {
            panic!("expected a win");
        };
        assert_eq!(line.direction, Direction::Diagonal);
        assert_eq!(line.start, Cell::new(3, 3));
        assert_eq!(line.len, 5);
    }

    #[test]
    fn anti_diagonal_and_rectangular_boards() {
        let rules = Rules::new(3, 5, 3).unwrap();
        let mut game = Game::new(rules);
        for (r, c) in [(0, 4), (0, 0), (1, 3), (0, 1)] {
            game.play(Cell::new(r, c)).unwrap();
        }
        let result = game.play(Cell::new(2, 2)).unwrap();
        let MoveResult::Won { line, .. } = result else {
            panic!("expected a win");
        };
        assert_eq!(line.direction, Direction::AntiDiagonal);
        assert_eq!(line.start, Cell::new(0, 4));
    }

    #[test]
    fn o_can_start() {
        let mut game = Game::starting_with(Rules::default(), Player::O);
        assert_eq!(game.to_move(), Player::O);
        game.play(Cell::new(0, 0)).unwrap();
        assert_eq!(game.get(Cell::new(0, 0)), Some(Player::O));
        assert_eq!(game.to_move(), Player::X);
    }

    #[test]
    fn scan_finds_every_maximal_run() {
        // Not reachable in play (two winners), which is why it is built by hand.
        let setup: crate::Setup = "XXXX/OOO./..../...O".parse().unwrap();
        let game = Game::from_parts(
            Rules::new(4, 4, 3).unwrap(),
            setup.cells().to_vec(),
            Player::X,
            None,
            None,
        );
        let lines = game.scan_lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            (
                Player::X,
                Line {
                    start: Cell::new(0, 0),
                    direction: Direction::Horizontal,
                    len: 4
                }
            )
        );
        assert_eq!(
            lines[1],
            (
                Player::O,
                Line {
                    start: Cell::new(1, 0),
                    direction: Direction::Horizontal,
                    len: 3
                }
            )
        );
    }

    // Reading positions from notation (`Game::from_setup`).

    #[test]
    fn turn_follows_counts() {
        assert_eq!(
            Game::from_notation(".../.../...", 3).unwrap().to_move(),
            Player::X
        );
        assert_eq!(
            Game::from_notation("X../.../...", 3).unwrap().to_move(),
            Player::O
        );
        assert_eq!(
            Game::from_notation("XX./.../...", 3),
            Err(NotationError::Illegal(PositionError::MarkCounts {
                x: 2,
                o: 0
            }))
        );
        assert_eq!(
            Game::from_notation("O../.../...", 3),
            Err(NotationError::Illegal(PositionError::MarkCounts {
                x: 0,
                o: 1
            }))
        );
    }

    #[test]
    fn legality_of_won_positions() {
        let won = Game::from_notation("XXX/OO./...", 3).unwrap();
        assert_eq!(won.outcome(), Some(Outcome::Win(Player::X)));
        assert!(won.winning_line().is_some());
        assert!(matches!(
            Game::from_notation("XXX/OOO/X..", 3),
            Err(NotationError::Illegal(PositionError::TwoWinners { k: 3 }))
        ));
        // The message gives the real counts and who they say moved last.
        for (text, says) in [
            (
                "XXX/OO./..O",
                "X has 3 in a row, but X has 3 marks and O has 3, so O moved last",
            ),
            (
                "OOO/XX./XX.",
                "O has 3 in a row, but X has 4 marks and O has 3, so X moved last",
            ),
        ] {
            let err = Game::from_notation(text, 3).unwrap_err();
            assert!(
                matches!(
                    err,
                    NotationError::Illegal(PositionError::WinnerDidNotMoveLast { .. })
                ),
                "{text}: {err:?}"
            );
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
        // Two X lines that cross at the corner: one last move made both.
        let fork = Game::from_notation("XXX/XOO/XOO", 3).unwrap();
        assert_eq!(fork.outcome(), Some(Outcome::Win(Player::X)));
        // Two parallel X lines cannot come from one move.
        assert!(matches!(
            Game::from_notation("XXX..../......./XXX..../OO.OO../O......", 3),
            Err(NotationError::Illegal(PositionError::DisjointWins {
                winner: Player::X
            }))
        ));
        assert!(matches!(
            Game::from_notation("XXX/OO./...", 4),
            Err(NotationError::Illegal(PositionError::Rules(_)))
        ));
    }

    #[test]
    fn a_double_line_reads_back_as_play_reported_it() {
        let mut played = Game::default();
        for (r, c) in [
            (0, 2),
            (0, 0),
            (1, 2),
            (1, 0),
            (2, 0),
            (1, 1),
            (2, 1),
            (0, 1),
            (2, 2),
        ] {
            played.play(Cell::new(r, c)).unwrap();
        }
        let parsed = Game::from_notation("OOX/OOX/XXX", 3).unwrap();
        assert_eq!(
            parsed.winning_line().unwrap().direction,
            Direction::Horizontal
        );
        assert_eq!(parsed, played);
    }

    #[test]
    fn full_board_is_a_draw() {
        let game = Game::from_notation("XOX/XOO/OXX", 3).unwrap();
        assert_eq!(game.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn long_runs_need_a_shared_window() {
        // Five in a row with k=3: the middle cell is in every window.
        let ok = Game::from_notation("XXXXX/OO.../OO.../.....", 3).unwrap();
        let line = ok.winning_line().unwrap();
        assert!(line.contains(Cell::new(0, 2)));
        // Six in a row with k=3: no single cell is in every window.
        assert!(matches!(
            Game::from_notation("XXXXXX/OO.OO./O.....", 3),
            Err(NotationError::Illegal(PositionError::DisjointWins { .. }))
        ));
    }
}
