//! A board seen as its k-cell windows: the one board of the heuristic
//! players (`rules`), the search (`alphabeta`) and the learned evaluator.
//!
//! Under the "at least k in a row" rule a player has won exactly when one of
//! the board's k-cell windows (straight runs of k cells in any of the four
//! directions) holds only that player's marks. So counting each window's
//! marks tells a player everything it needs about threats: a window with
//! k−1 of one player's marks and none of the other's is a win waiting to be
//! played, and a window holding both players' marks is dead for both.
//!
//! The windows are [`Rules::windows`], numbered in that order. The solver
//! keeps its own bitboards (`crate::solver`): it searches every position of
//! boards of at most 64 cells, where a position must be a few machine words
//! to hash, copy and store by the million, and a window's test is a mask
//! and a compare; this board is for boards of any size, where a move
//! updates only the windows through its cell.

use std::fmt;

use oxo_core::{Game, Player, Rules};

/// Marks per player in one window, indexed by [`Player::index`].
pub(crate) type Counts = [u16; 2];

/// Where a window's cells are: `len` cells from index `start`, `step`
/// apart (a window of [`Rules::windows`] by its indices, with
/// [`Rules::stride`] the step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u32,
    step: u32,
    len: u32,
}

impl Span {
    /// The window's cells, from its first.
    fn cells(self) -> impl Iterator<Item = usize> {
        let (start, step) = (self.start as usize, self.step as usize);
        (0..self.len as usize).map(move |i| start + step * i)
    }
}

/// A board, its windows and how many marks of each player every window
/// holds, kept up to date as marks are placed and cleared, and whose turn
/// it is.
///
/// Cells are addressed by row-major index ([`Rules::index`]) and windows by
/// their position in [`Rules::windows`], both as plain integers: the search
/// visits them millions of times. [`WindowBoard::play`] marks a cell for
/// the player to move and passes the turn; [`WindowBoard::place`] marks a
/// cell for either player and leaves the turn alone, for players that try
/// marks out and for the search, which keeps its own tables up to date as
/// it marks.
#[derive(Clone)]
pub(crate) struct WindowBoard {
    rules: Rules,
    cells: Vec<Option<Player>>,
    stones: usize,
    to_move: Player,
    /// Where every window's cells are.
    windows: Vec<Span>,
    counts: Vec<Counts>,
    /// `through[offsets[i]..offsets[i + 1]]` are the windows holding cell `i`.
    offsets: Vec<u32>,
    through: Vec<u32>,
}

impl fmt::Debug for WindowBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tables are large and derived from the rules; the marks are
        // what a reader wants to see.
        f.debug_struct("WindowBoard")
            .field("rules", &self.rules)
            .field("stones", &self.stones)
            .field("to_move", &self.to_move)
            .field("windows", &self.windows.len())
            .finish_non_exhaustive()
    }
}

impl WindowBoard {
    /// An empty board under `rules`.
    pub(crate) fn new(rules: Rules) -> WindowBoard {
        // Cell indices and strides fit in u32: the board has at most
        // MAX_SIDE² cells.
        let windows: Vec<Span> = rules
            .windows()
            .map(|line| Span {
                start: rules.index(line.start) as u32,
                step: rules.stride(line.direction) as u32,
                len: line.len,
            })
            .collect();

        let cell_count = rules.cell_count();
        let mut offsets = vec![0u32; cell_count + 1];
        for window in &windows {
            for cell in window.cells() {
                offsets[cell + 1] += 1;
            }
        }
        for i in 0..cell_count {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut through = vec![0u32; offsets[cell_count] as usize];
        for (id, window) in windows.iter().enumerate() {
            for cell in window.cells() {
                through[fill[cell] as usize] = id as u32;
                fill[cell] += 1;
            }
        }

        WindowBoard {
            rules,
            cells: vec![None; cell_count],
            stones: 0,
            to_move: Player::X,
            counts: vec![[0, 0]; windows.len()],
            windows,
            offsets,
            through,
        }
    }

    /// Make this board a copy of `game`'s marks and turn, rebuilding the
    /// tables only when the rules differ from last time.
    pub(crate) fn load(&mut self, game: &Game) {
        if self.rules != game.rules() {
            *self = WindowBoard::new(game.rules());
        } else {
            self.cells.fill(None);
            self.counts.fill([0, 0]);
            self.stones = 0;
        }
        for (cell, mark) in game.cells().iter().enumerate() {
            if let Some(player) = *mark {
                self.place(cell, player);
            }
        }
        self.to_move = game.to_move();
    }

    /// A board with `game`'s marks and turn.
    pub(crate) fn from_game(game: &Game) -> WindowBoard {
        let mut board = WindowBoard::new(game.rules());
        board.load(game);
        board
    }

    /// The rules the board was built for.
    pub(crate) const fn rules(&self) -> Rules {
        self.rules
    }

    /// The player whose turn it is.
    pub(crate) const fn to_move(&self) -> Player {
        self.to_move
    }

    /// Give the turn to `player`.
    pub(crate) fn set_to_move(&mut self, player: Player) {
        self.to_move = player;
    }

    /// Number of cells.
    pub(crate) fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// Number of windows.
    pub(crate) fn window_count(&self) -> usize {
        self.windows.len()
    }

    /// Marks on the board.
    pub(crate) const fn stones(&self) -> usize {
        self.stones
    }

    /// The mark in cell `cell`.
    pub(crate) fn get(&self, cell: usize) -> Option<Player> {
        self.cells[cell]
    }

    /// Whether cell `cell` is empty.
    pub(crate) fn is_empty(&self, cell: usize) -> bool {
        self.cells[cell].is_none()
    }

    /// The empty cells, in index order.
    pub(crate) fn empty_cells(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.cells.len()).filter(|&i| self.cells[i].is_none())
    }

    /// The windows that hold cell `cell`.
    pub(crate) fn windows_through(&self, cell: usize) -> &[u32] {
        &self.through[self.offsets[cell] as usize..self.offsets[cell + 1] as usize]
    }

    /// The cells of window `window`.
    pub(crate) fn window_cells(&self, window: u32) -> impl Iterator<Item = usize> + use<> {
        self.windows[window as usize].cells()
    }

    /// Marks of each player in window `window`.
    pub(crate) fn counts(&self, window: u32) -> Counts {
        self.counts[window as usize]
    }

    /// The first empty cell of `window` other than `except`.
    pub(crate) fn empty_in(&self, window: u32, except: Option<usize>) -> Option<usize> {
        self.window_cells(window)
            .find(|&c| self.cells[c].is_none() && Some(c) != except)
    }

    /// `player` marks the empty cell `cell`; `changed` hears of each window
    /// through it: its id and its counts before and after.
    pub(crate) fn place_with(
        &mut self,
        cell: usize,
        player: Player,
        changed: impl FnMut(u32, Counts, Counts),
    ) {
        debug_assert!(self.cells[cell].is_none(), "cell {cell} is occupied");
        self.cells[cell] = Some(player);
        self.stones += 1;
        self.recount(cell, player, true, changed);
    }

    /// Empty the marked cell `cell`; `changed` hears of each window through
    /// it as for [`WindowBoard::place_with`].
    pub(crate) fn clear_with(&mut self, cell: usize, changed: impl FnMut(u32, Counts, Counts)) {
        let player = self.cells[cell].take().expect("clearing an empty cell");
        self.stones -= 1;
        self.recount(cell, player, false, changed);
    }

    /// Count `player`'s mark at `cell` into (`add`) or out of every window
    /// through it, telling `changed`.
    fn recount(
        &mut self,
        cell: usize,
        player: Player,
        add: bool,
        mut changed: impl FnMut(u32, Counts, Counts),
    ) {
        let p = player.index();
        for &w in &self.through[self.offsets[cell] as usize..self.offsets[cell + 1] as usize] {
            // The new counts are worked out in registers and stored whole:
            // reading the pair back after changing one half of it would
            // stall the load on the store (this made alphabeta's moves a
            // fifth slower).
            let before = self.counts[w as usize];
            let mut after = before;
            if add {
                after[p] += 1;
            } else {
                after[p] -= 1;
            }
            self.counts[w as usize] = after;
            changed(w, before, after);
        }
    }

    /// The player to move marks the empty cell `cell` and the turn passes.
    pub(crate) fn play(&mut self, cell: usize) {
        self.place(cell, self.to_move);
        self.to_move = self.to_move.other();
    }

    /// Take back the mark on `cell`, the last one played, and the turn.
    pub(crate) fn unplay(&mut self, cell: usize) {
        self.clear(cell);
        self.to_move = self.to_move.other();
    }

    /// Whether the empty `cell` lies within `reach` cells (in rows and in
    /// columns) of a mark.
    pub(crate) fn near_a_mark(&self, cell: usize, reach: u32) -> bool {
        let cols = self.rules.cols() as usize;
        let rows = self.rules.rows() as usize;
        let reach = reach as usize;
        let (row, col) = (cell / cols, cell % cols);
        (row.saturating_sub(reach)..=(row + reach).min(rows - 1)).any(|r| {
            (col.saturating_sub(reach)..=(col + reach).min(cols - 1))
                .any(|c| self.cells[r * cols + c].is_some())
        })
    }

    /// `player` marks the empty cell `cell`.
    pub(crate) fn place(&mut self, cell: usize, player: Player) {
        self.place_with(cell, player, |_, _, _| {});
    }

    /// Empty the marked cell `cell`.
    pub(crate) fn clear(&mut self, cell: usize) {
        self.clear_with(cell, |_, _, _| {});
    }

    /// Whether `player` marking the empty cell `cell` fills a window (wins).
    pub(crate) fn wins_at(&self, cell: usize, player: Player) -> bool {
        let k = self.rules.k() as u16;
        let (p, q) = (player.index(), player.other().index());
        self.windows_through(cell).iter().any(|&w| {
            let c = self.counts[w as usize];
            c[p] + 1 == k && c[q] == 0
        })
    }

    /// The distinct cells at which `player` would fill a window that also
    /// holds `cell` once `player` marks the empty cell `cell` (the threats
    /// that move makes), at most `limit` of them.
    pub(crate) fn threats_made(&self, cell: usize, player: Player, limit: usize) -> Vec<usize> {
        let k = self.rules.k() as u16;
        let (p, q) = (player.index(), player.other().index());
        let mut found = Vec::new();
        if k < 2 {
            return found;
        }
        for &w in self.windows_through(cell) {
            let c = self.counts[w as usize];
            if c[q] != 0 || c[p] + 2 != k {
                continue;
            }
            if let Some(target) = self.empty_in(w, Some(cell))
                && !found.contains(&target)
            {
                found.push(target);
                if found.len() >= limit {
                    break;
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(text: &str, k: u32) -> (Game, WindowBoard) {
        let game = Game::from_notation(text, k).unwrap();
        let mut board = WindowBoard::new(Rules::default());
        board.load(&game);
        (game, board)
    }

    #[test]
    fn window_counts_match_the_rules() {
        // Rows × (cols − k + 1) per direction where it fits.
        assert_eq!(WindowBoard::new(Rules::default()).window_count(), 8);
        assert_eq!(
            WindowBoard::new(Rules::new(15, 15, 5).unwrap()).window_count(),
            2 * 15 * 11 + 2 * 11 * 11
        );
        assert_eq!(
            WindowBoard::new(Rules::new(3, 5, 4).unwrap()).window_count(),
            3 * 2
        );
        assert_eq!(
            WindowBoard::new(Rules::new(2, 3, 1).unwrap()).window_count(),
            6
        );
        let one_column = WindowBoard::new(Rules::new(4, 1, 2).unwrap());
        assert_eq!(one_column.window_count(), 3);
        for w in 0..3 {
            let cells: Vec<_> = one_column.window_cells(w).collect();
            assert_eq!(cells, [w as usize, w as usize + 1]);
        }
    }

    #[test]
    fn every_window_is_a_straight_run_on_the_board() {
        let rules = Rules::new(4, 6, 3).unwrap();
        let board = WindowBoard::new(rules);
        for w in 0..board.window_count() as u32 {
            let cells: Vec<_> = board.window_cells(w).map(|i| rules.cell_at(i)).collect();
            let (dr, dc) = (
                i64::from(cells[1].row) - i64::from(cells[0].row),
                i64::from(cells[1].col) - i64::from(cells[0].col),
            );
            assert!(matches!((dr, dc), (0, 1) | (1, 0) | (1, 1) | (1, -1)));
            for pair in cells.windows(2) {
                assert_eq!(i64::from(pair[1].row) - i64::from(pair[0].row), dr);
                assert_eq!(i64::from(pair[1].col) - i64::from(pair[0].col), dc);
            }
            for cell in &cells {
                assert!(board.windows_through(rules.index(*cell)).contains(&w));
            }
        }
        // Cell (1, 2) starts or continues three row windows, but only two
        // in each other direction: the board is four rows deep.
        let cell = rules.index(oxo_core::Cell::new(1, 2));
        assert_eq!(board.windows_through(cell).len(), 3 + 2 + 2 + 2);
    }

    #[test]
    fn counts_follow_places_and_clears() {
        let (game, mut board) = board("XX./.O./...", 3);
        assert_eq!(board.stones(), 3);
        assert!(board.wins_at(2, Player::X));
        assert!(!board.wins_at(2, Player::O));
        assert!(!board.wins_at(8, Player::X));
        board.place(8, Player::X);
        board.clear(8);
        let mut fresh = WindowBoard::new(game.rules());
        fresh.load(&game);
        assert_eq!(board.counts, fresh.counts);
        // X at 6 makes one new threat, at 3 down the first column; the
        // anti-diagonal through 6 holds O's mark.
        let mut threats = board.threats_made(6, Player::X, 9);
        threats.sort_unstable();
        assert_eq!(threats, [3]);
    }
}
