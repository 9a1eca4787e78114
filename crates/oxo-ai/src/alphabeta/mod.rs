//! A heuristic alpha-beta player for boards too large to solve, such as
//! gomoku (15×15, five in a row). The design is described on [`AlphaBeta`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use oxo_core::{Cell, Game, Player};
use rand::seq::{IndexedRandom, SliceRandom};

use crate::ntuple::Tracker;

mod estimate;
mod tally;

use crate::windows::WindowBoard;
use crate::{SeededRng, Strategy, rng_from_seed};
use tally::{IdSet, LearnedTally, Tally};

pub use estimate::{Estimate, Score};

/// Searches a budget of positions with alpha-beta and a window-counting
/// evaluation: the player for boards too large to solve, such as gomoku.
///
/// Before any search it wins at once when it can and blocks an immediate
/// loss. The search is a depth-first negamax with alpha-beta pruning,
/// iterative deepening and a transposition table, made to suit m,n,k-games
/// in four ways:
///
/// - **Threats are played out, not evaluated.** A side with a window one
///   mark short of k wins at once; a side facing two such cells has lost; a
///   side facing one must take it, and that forced move costs no depth. At
///   the horizon a quiescence search keeps playing moves that make such a
///   threat (fours, in gomoku), so a win by a chain of forcing moves is seen
///   however deep it runs, up to a limit.
/// - **Threats to win in two narrow the search.** When the opponent could
///   make two winning cells with one move (an open three, in gomoku), only
///   the cells of the windows involved and the mover's own fours are
///   searched, all of them: any other move loses.
/// - **The evaluation counts windows.** Each k-cell window that only one
///   player has marks in is worth more the fuller it is (eight times per
///   mark); a position is worth the mover's windows, half as much again for
///   having the move, minus the opponent's. The counts are updated as marks
///   come and go, so a move costs O(k) per direction.
/// - **Only moves near the marks are searched**, best first by how much
///   they change the evaluation, and only the best few at each node: the
///   search goes deep on a narrow tree instead of shallow on a wide one.
///
/// Its effort is a budget of nodes, so a move is a function of the position
/// and the seed alone, unless it is given a [`Deadline`](crate::Deadline)
/// ([`Strategy::set_deadline`]), as `oxo brain` does: then it deepens until
/// the deadline, whatever the budget. Ties between equally promising first
/// moves are broken by a seeded generator (or any generator passed in).
#[derive(Clone, Debug)]
pub struct AlphaBeta<R = SeededRng> {
    rng: R,
    budget: u64,
    /// With a deadline, the search runs until it instead of to the budget.
    deadline: Option<crate::Deadline>,
    /// Once set, the search stops as at a deadline.
    stop: Option<Arc<AtomicBool>>,
    /// Kept between moves so the tables are built once per board size.
    engine: Option<Box<Engine>>,
    /// A learned evaluation to search with instead of counting windows
    /// (an empty board's, for the model's rules).
    learned: Option<Tracker>,
}

impl AlphaBeta {
    /// Positions searched per move unless told otherwise: under a tenth
    /// of a second for a 15×15 move in a release build, and about 17 ms on
    /// average (`cargo bench -p oxo-ai --bench search`).
    pub const DEFAULT_BUDGET: u64 = 100_000;

    /// A player with the default budget whose tie-breaks are fixed by
    /// `seed`.
    #[must_use]
    pub fn new(seed: u64) -> AlphaBeta {
        AlphaBeta::with_rng(rng_from_seed(seed))
    }
}

impl<R: rand::Rng> AlphaBeta<R> {
    /// A player with the default budget breaking ties with `rng`.
    pub fn with_rng(rng: R) -> AlphaBeta<R> {
        AlphaBeta {
            rng,
            budget: AlphaBeta::DEFAULT_BUDGET,
            deadline: None,
            stop: None,
            engine: None,
            learned: None,
        }
    }

    /// The same player evaluating positions with a learned model's
    /// values (see [`crate::Learned`]) instead of counting windows.
    pub(crate) fn with_learned(mut self, tracker: Tracker) -> AlphaBeta<R> {
        self.learned = Some(tracker);
        self.engine = None;
        self
    }

    /// The same player searching at most `nodes` positions per move (at
    /// least one).
    #[must_use]
    pub fn with_budget(mut self, nodes: u64) -> AlphaBeta<R> {
        self.budget = nodes.max(1);
        self
    }

    /// Positions searched per move, at most.
    #[must_use]
    pub const fn budget(&self) -> u64 {
        self.budget
    }
}

impl<R: rand::Rng + Send> Strategy for AlphaBeta<R> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        if game.is_over() {
            return None;
        }
        let budget = if self.deadline.is_some() {
            u64::MAX
        } else {
            self.budget
        };
        let engine = Engine::ready(&mut self.engine, self.learned.as_ref(), game);
        engine.deadline.clone_from(&self.deadline);
        engine.stop.clone_from(&self.stop);
        let cell = engine.best_move(budget, &mut self.rng)?;
        Some(game.rules().cell_at(cell))
    }

    fn name(&self) -> &str {
        "alphabeta"
    }

    /// With a deadline the node budget is set aside: iterative deepening
    /// goes on until the deadline (checked every 256 nodes)
    /// and the best move of the deepest finished iteration is played.
    fn set_deadline(&mut self, deadline: Option<crate::Deadline>) {
        self.deadline = deadline;
    }

    fn searches_to_deadline(&self) -> bool {
        true
    }

    /// Read with the deadline, every 256 nodes.
    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }
}

/// Nodes searched between two looks at the clock.
const DEADLINE_EVERY: u64 = 256;

/// A won position's score; a win in `n` more moves scores `WIN - n`, so the
/// search prefers quicker wins and slower losses.
const WIN: i64 = 1 << 50;
/// Scores beyond this are wins or losses, not evaluations.
const WON: i64 = WIN - 10_000;
/// Above every score.
const INFINITY: i64 = WIN + 1;
/// Moves searched at the root, and at every other node, unless a threat
/// to win in two narrows them (see [`Engine::defences`]).
const ROOT_WIDTH: usize = 20;
const WIDTH: usize = 7;
/// Deepest iteration tried.
const MAX_DEPTH: i32 = 40;
/// How many plies of forcing moves the quiescence search follows.
const QUIESCENCE_PLIES: u32 = 12;
/// Transposition table entries (a power of two).
const TABLE_SIZE: usize = 1 << 16;
/// What the transposition table knows about a score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    /// The true score is at least this (the search failed high).
    Lower,
    /// The true score is at most this (it failed low).
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    score: i64,
    /// The best move found, as a cell index plus one; 0 for none.
    best: u32,
    depth: i16,
    bound: Bound,
}

const EMPTY_ENTRY: Entry = Entry {
    key: 0,
    score: 0,
    best: 0,
    depth: -1,
    bound: Bound::Upper,
};

/// The search's view of a position: the window board, the tally of its
/// windows, and the bookkeeping of the search itself.
#[derive(Clone)]
struct Engine {
    board: WindowBoard,
    tally: Tally,
    cols: usize,
    rows: usize,
    /// Marks within `radius` rows and columns of each cell: the search's
    /// own index of where to look for moves, not the board's, because it
    /// costs (2·radius + 1)² counts at every mark and only the search reads
    /// it that often (the learned player asks
    /// [`WindowBoard::near_a_mark`] now and then instead).
    near: Vec<u16>,
    /// The cells where `near` is not zero, so that finding moves costs the
    /// same on a huge board as on a small one.
    nearby: IdSet,
    radius: usize,
    zobrist: Vec<[u64; 2]>,
    hash: u64,
    table: Vec<Entry>,
    nodes: u64,
    budget: u64,
    stopped: bool,
    deadline: Option<crate::Deadline>,
    stop: Option<Arc<AtomicBool>>,
    /// The learned evaluation of a model other than window tallies (those
    /// are kept by the tally), if the player has one.
    learned: Option<Tracker>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The tables are large; the position is what a reader wants.
        f.debug_struct("Engine")
            .field("board", &self.board)
            .field("to_move", &self.board.to_move())
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl Engine {
    fn new(game: &Game) -> Engine {
        let rules = game.rules();
        let board = WindowBoard::new(rules);
        let k = rules.k() as u16;
        // Fixed keys: the hash only has to be consistent within one search.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let zobrist = (0..board.cell_count()).map(|_| [next(), next()]).collect();
        Engine {
            tally: Tally::new(&board),
            cols: rules.cols() as usize,
            rows: rules.rows() as usize,
            near: vec![0; board.cell_count()],
            nearby: IdSet::new(board.cell_count()),
            radius: if k >= 3 { 2 } else { 1 },
            zobrist,
            hash: 0,
            table: vec![EMPTY_ENTRY; TABLE_SIZE],
            nodes: 0,
            budget: 0,
            stopped: false,
            deadline: None,
            stop: None,
            learned: None,
            board,
        }
    }

    /// The engine in `slot`, built for `game`'s rules (evaluating with
    /// `learned` when it is for them) unless it is already, with `game`'s
    /// position loaded.
    fn ready<'a>(
        slot: &'a mut Option<Box<Engine>>,
        learned: Option<&Tracker>,
        game: &Game,
    ) -> &'a mut Engine {
        if slot
            .as_ref()
            .is_none_or(|e| e.board.rules() != game.rules())
        {
            let mut engine = Engine::new(game);
            engine.use_learned(learned.filter(|t| t.rules() == game.rules()).cloned());
            *slot = Some(Box::new(engine));
        }
        let engine = slot.as_mut().expect("an engine for these rules");
        engine.load(game);
        engine
    }

    /// Evaluate with `learned` (see [`AlphaBeta::with_learned`]) instead
    /// of counting windows; call on an empty board. A window-tallies model
    /// is kept by the tally, any other by its tracker.
    fn use_learned(&mut self, learned: Option<Tracker>) {
        debug_assert_eq!(self.board.stones(), 0, "an empty board");
        self.tally.learned = None;
        self.learned = None;
        let Some(tracker) = learned else { return };
        match tracker.tallies() {
            Some(table) => {
                let windows = self.board.window_count() as i64;
                let empty = table[0] * windows;
                let width = usize::from(self.tally.k) + 1;
                let table = Tally::slots(self.tally.k)
                    .map(|[x, o]| {
                        let (x, o) = (usize::from(x), usize::from(o));
                        [table[x * width + o], table[o * width + x]]
                    })
                    .collect();
                self.tally.learned = Some(LearnedTally {
                    table,
                    sum: [empty, empty],
                });
            }
            None => self.learned = Some(tracker),
        }
    }

    /// Set up `game`'s position (same rules as this engine's) for a
    /// search.
    fn load(&mut self, game: &Game) {
        let cells: Vec<usize> = (0..self.board.cell_count())
            .filter(|&c| !self.board.is_empty(c))
            .collect();
        for c in cells {
            self.take(c);
        }
        for (cell, mark) in game.cells().iter().enumerate() {
            if let Some(player) = *mark {
                self.put(cell, player);
            }
        }
        self.board.set_to_move(game.to_move());
        // A fresh table per move keeps the move a function of the position
        // alone, whatever was searched before.
        self.table.fill(EMPTY_ENTRY);
    }

    /// `player` marks the empty cell `cell`, updating every derived table.
    fn put(&mut self, cell: usize, player: Player) {
        let tally = &mut self.tally;
        self.board.place_with(cell, player, |w, before, after| {
            tally.track(w, before, after);
        });
        self.hash ^= self.zobrist[cell][player.index()];
        self.touch_near(cell, true);
        if let Some(learned) = &mut self.learned {
            learned.change(cell, player, true);
        }
    }

    /// Empty the marked cell `cell`, updating every derived table.
    fn take(&mut self, cell: usize) {
        let player = self.board.get(cell).expect("a mark to take");
        let tally = &mut self.tally;
        self.board.clear_with(cell, |w, before, after| {
            tally.track(w, before, after);
        });
        self.hash ^= self.zobrist[cell][player.index()];
        self.touch_near(cell, false);
        if let Some(learned) = &mut self.learned {
            learned.change(cell, player, false);
        }
    }

    fn touch_near(&mut self, cell: usize, add: bool) {
        let (row, col) = (cell / self.cols, cell % self.cols);
        let r = self.radius;
        let (left, right) = (col.saturating_sub(r), (col + r + 1).min(self.cols));
        for y in row.saturating_sub(r)..(row + r + 1).min(self.rows) {
            let start = y * self.cols + left;
            for (i, n) in (start..).zip(&mut self.near[start..start + right - left]) {
                *n = if add { *n + 1 } else { *n - 1 };
                if *n == u16::from(add) {
                    // It just became 1 or 0.
                    self.nearby.set(i as u32, add);
                }
            }
        }
    }

    /// The player to move marks `cell`.
    fn make(&mut self, cell: usize) {
        let player = self.board.to_move();
        self.put(cell, player);
        self.board.set_to_move(player.other());
    }

    /// Take back the move at `cell`.
    fn unmake(&mut self, cell: usize) {
        self.take(cell);
        self.board.set_to_move(self.board.to_move().other());
    }

    /// The cells where `player` would win, in the order found: all of them
    /// (for the root), or stop at `limit`.
    fn win_cells(&self, player: Player, limit: usize) -> Vec<usize> {
        let mut cells = Vec::new();
        for &w in &self.tally.fours[player.index()].members {
            let cell = self.board.empty_in(w, None).expect("a four has a gap");
            if !cells.contains(&cell) {
                cells.push(cell);
                if cells.len() >= limit {
                    break;
                }
            }
        }
        cells
    }

    /// The position's worth to the player to move: its windows' worth, half
    /// as much again because it moves next, less the opponent's.
    fn evaluate(&self) -> i64 {
        // A learned value is kept far from the scores of won positions,
        // whatever the weights.
        if let Some(learned) = &self.tally.learned {
            return learned.sum[self.board.to_move().index()].clamp(-WON / 4, WON / 4);
        }
        if let Some(learned) = &self.learned {
            return learned.value(self.board.to_move()).clamp(-WON / 4, WON / 4);
        }
        let me = self.board.to_move().index();
        let mine = self.tally.score[me];
        mine + mine / 2 - self.tally.score[1 - me]
    }

    /// How much the player to move marking `cell` changes the evaluation
    /// in its favour: what it adds to its own windows plus what it takes
    /// from the opponent's. Used to order moves.
    fn gain(&self, cell: usize) -> i64 {
        let p = self.board.to_move().index();
        self.board
            .windows_through(cell)
            .iter()
            .map(|&w| self.tally.kinds[self.tally.slot(self.board.counts(w))].gain[p])
            .sum()
    }

    /// The moves worth searching, best first, at most `width` of them;
    /// `first` (a remembered best move) goes ahead of the rest.
    fn candidates(&self, width: usize, first: Option<usize>) -> Vec<usize> {
        let mut cells: Vec<usize> = (self.nearby.members.iter())
            .map(|&c| c as usize)
            .filter(|&c| self.board.is_empty(c))
            .collect();
        if cells.is_empty() {
            // Nothing near any mark: the board is empty, or the marks are
            // boxed in and the rest of the board is open.
            cells = self.board.empty_cells().collect();
        }
        self.best_of(cells, width, first)
    }

    /// The best `width` of `cells` by [`Engine::gain`], best first, with
    /// `first` ahead of them all when it is one of the empty cells.
    fn best_of(&self, cells: Vec<usize>, width: usize, first: Option<usize>) -> Vec<usize> {
        let first = first.filter(|c| cells.contains(c));
        let mut scored: Vec<(i64, usize)> = cells.into_iter().map(|c| (self.gain(c), c)).collect();
        // Best gain first, then lowest index: a total order, so the fast
        // partial sort is as deterministic as a full one.
        let order = |a: &(i64, usize), b: &(i64, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if let Some(first) = first {
            scored.retain(|&(_, c)| c != first);
        }
        let keep = width.saturating_sub(usize::from(first.is_some()));
        if scored.len() > keep && keep > 0 {
            scored.select_nth_unstable_by(keep - 1, order);
        }
        scored.truncate(keep);
        scored.sort_unstable_by(order);
        first
            .into_iter()
            .chain(scored.into_iter().map(|(_, c)| c))
            .collect()
    }

    /// When the opponent could make two winning cells at once with its next
    /// move (an open four, or two fours through one cell), the only moves
    /// that can help: the empty cells of the windows that move would use,
    /// and the mover's own fours, which force a reply first. `None` when
    /// there is no such threat.
    fn defences(&self) -> Option<Vec<usize>> {
        let gaps = self.opponent_gaps();
        let mut moves = Vec::new();
        for group in gaps.chunk_by(|a, b| a.0 == b.0) {
            if forks(group) {
                for &(_, _, w) in group {
                    moves.extend(
                        self.board
                            .window_cells(w)
                            .filter(|&c| self.board.is_empty(c)),
                    );
                }
            }
        }
        if moves.is_empty() {
            return None;
        }
        moves.extend(self.four_moves());
        moves.sort_unstable();
        moves.dedup();
        Some(moves)
    }

    /// The cells where the player to move makes a four, those making two
    /// or more first.
    fn four_moves(&self) -> Vec<usize> {
        let mut cells = Vec::new();
        for &w in &self.tally.threes[self.board.to_move().index()].members {
            cells.extend(
                self.board
                    .window_cells(w)
                    .filter(|&c| self.board.is_empty(c)),
            );
        }
        cells.sort_unstable();
        let mut counted: Vec<(usize, usize)> = Vec::new();
        for c in cells {
            match counted.last_mut() {
                Some((cell, n)) if *cell == c => *n += 1,
                _ => counted.push((c, 1)),
            }
        }
        counted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counted.into_iter().map(|(c, _)| c).collect()
    }

    /// Count a node; false once the budget is spent, the deadline passed
    /// or the search was called off.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.nodes.is_multiple_of(DEADLINE_EVERY) && self.called_off())
        {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Whether the deadline passed or the stop flag is set.
    fn called_off(&self) -> bool {
        self.deadline.as_ref().is_some_and(crate::Deadline::passed)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// What the immediate threats decide before any search: a win now, a
    /// loss (two cells to block), a single forced reply, or nothing.
    fn threats(&self, ply: u32) -> Threat {
        let me = self.board.to_move();
        if !self.tally.fours[me.index()].is_empty() {
            return Threat::Decided(WIN - i64::from(ply));
        }
        match self.win_cells(me.other(), 2).as_slice() {
            [] if self.board.stones() == self.board.cell_count() => Threat::Decided(0),
            [] => Threat::None,
            &[cell] => Threat::Forced(cell),
            _ => Threat::Decided(-(WIN - i64::from(ply) - 1)),
        }
    }

    /// Negamax with alpha-beta from the player to move's point of view.
    fn search(&mut self, depth: i32, mut alpha: i64, beta: i64, ply: u32) -> i64 {
        if !self.tick() {
            return 0;
        }
        match self.threats(ply) {
            Threat::Decided(score) => return score,
            Threat::Forced(cell) => {
                self.make(cell);
                let score = -self.search(depth, -beta, -alpha, ply + 1);
                self.unmake(cell);
                return score;
            }
            Threat::None => {}
        }
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply, 0);
        }

        let slot = (self.hash as usize) & (TABLE_SIZE - 1);
        let entry = self.table[slot];
        let mut remembered = None;
        if entry.key == self.hash {
            remembered = entry.best.checked_sub(1).map(|c| c as usize);
            if i32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }

        let start_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let moves = match self.defences() {
            // Few, and all needed: a defence cut for width loses.
            Some(defences) => self.best_of(defences, usize::MAX, remembered),
            None => self.candidates(WIDTH, remembered),
        };
        for cell in moves {
            self.make(cell);
            let score = -self.search(depth - 1, -beta, -alpha, ply + 1);
            self.unmake(cell);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(cell);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > start_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table[slot] = Entry {
            key: self.hash,
            score: to_table(best, ply),
            best: best_move.map_or(0, |c| c as u32 + 1),
            depth: depth as i16,
            bound,
        };
        best
    }

    /// At the horizon: stand on the evaluation, or keep making fours while
    /// they force the reply.
    fn quiesce(&mut self, mut alpha: i64, beta: i64, ply: u32, plies: u32) -> i64 {
        if !self.tick() {
            return 0;
        }
        match self.threats(ply) {
            Threat::Decided(score) => return score,
            Threat::Forced(cell) if plies < QUIESCENCE_PLIES => {
                self.make(cell);
                let score = -self.quiesce(-beta, -alpha, ply + 1, plies + 1);
                self.unmake(cell);
                return score;
            }
            Threat::Forced(_) => return self.evaluate(),
            Threat::None => {}
        }
        // Threats to win in two moves (open threes, in gomoku) are left to
        // the main search: defending them here too made the search slower
        // and the player weaker.
        let mut best = self.evaluate();
        if best >= beta || plies >= QUIESCENCE_PLIES {
            return best;
        }
        alpha = alpha.max(best);
        for cell in self.four_moves() {
            self.make(cell);
            let score = -self.quiesce(-beta, -alpha, ply + 1, plies + 1);
            self.unmake(cell);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// For each gap of each window the opponent of the player to move is
    /// two marks short of: the gap, the window's other gap, and the
    /// window; sorted.
    fn opponent_gaps(&self) -> Vec<(usize, usize, u32)> {
        let them = self.board.to_move().other().index();
        let mut gaps = Vec::new();
        for &w in &self.tally.threes[them].members {
            let mut empty = self
                .board
                .window_cells(w)
                .filter(|&c| self.board.is_empty(c));
            if let (Some(a), Some(b)) = (empty.next(), empty.next()) {
                gaps.push((a, b, w));
                gaps.push((b, a, w));
            }
        }
        gaps.sort_unstable();
        gaps
    }

    /// The move to play, searching at most `budget` nodes. `None` only on a
    /// full board.
    fn best_move<R: rand::Rng>(&mut self, budget: u64, rng: &mut R) -> Option<usize> {
        self.nodes = 0;
        self.budget = budget;
        self.stopped = false;
        let me = self.board.to_move();
        // Sorted, because the sets' order depends on what was searched before.
        let mut wins = self.win_cells(me, usize::MAX);
        wins.sort_unstable();
        if !wins.is_empty() {
            return wins.choose(rng).copied();
        }
        let mut blocks = self.win_cells(me.other(), usize::MAX);
        blocks.sort_unstable();
        if !blocks.is_empty() {
            // With two or more the game is lost; block one all the same.
            return blocks.choose(rng).copied();
        }
        if self.board.stones() == 0 {
            return self.centre().choose(rng).copied();
        }

        // Shuffle before the stable sort so that equally good moves come in
        // an order fixed by the seed.
        let (mut moves, width) = match self.defences() {
            Some(defences) => (defences, usize::MAX),
            None => (self.candidates(usize::MAX, None), ROOT_WIDTH),
        };
        moves.shuffle(rng);
        moves.sort_by_key(|&c| std::cmp::Reverse(self.gain(c)));
        moves.truncate(width);
        let empty = self.board.cell_count() - self.board.stones();
        let mut chosen = *moves.first()?;

        for depth in 1..=MAX_DEPTH.min(empty as i32) {
            let mut alpha = -INFINITY;
            let mut best = None;
            for &cell in &moves {
                self.make(cell);
                let score = -self.search(depth - 1, -INFINITY, -alpha, 1);
                self.unmake(cell);
                if self.stopped {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    best = Some(cell);
                }
            }
            // A move that beat the previous best in a cut-short iteration
            // was searched fully and is at least as sound; keep it.
            let Some(best) = best else { break };
            chosen = best;
            if self.stopped || alpha.abs() > WON {
                break;
            }
            let at = moves.iter().position(|&c| c == best).expect("a root move");
            moves[..=at].rotate_right(1);
        }
        Some(chosen)
    }

    /// The middle cell or cells of the board.
    fn centre(&self) -> Vec<usize> {
        let middles = |len: usize| {
            let mut m = vec![(len - 1) / 2];
            if len.is_multiple_of(2) {
                m.push(len / 2);
            }
            m
        };
        let mut cells = Vec::new();
        for r in middles(self.rows) {
            for c in middles(self.cols) {
                cells.push(r * self.cols + c);
            }
        }
        cells
    }
}

/// Whether a group of [`Engine::opponent_gaps`] sharing a gap has two
/// different other gaps: marking the shared one leaves two cells to win
/// at. Sorted, so two different other gaps differ first from last.
fn forks(group: &[(usize, usize, u32)]) -> bool {
    group[0].1 != group[group.len() - 1].1
}

/// What the threats on the board decide at a node.
enum Threat {
    /// The node's score, without search.
    Decided(i64),
    /// The one move that does not lose at once.
    Forced(usize),
    None,
}

/// Mate scores are stored relative to the node, not the root, so that they
/// stay true when the same position turns up at another depth.
fn to_table(score: i64, ply: u32) -> i64 {
    if score > WON {
        score + i64::from(ply)
    } else if score < -WON {
        score - i64::from(ply)
    } else {
        score
    }
}

fn from_table(score: i64, ply: u32) -> i64 {
    if score > WON {
        score - i64::from(ply)
    } else if score < -WON {
        score + i64::from(ply)
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RuleBased;
    use oxo_core::Rules;

    /// A game on a `rows`×`cols` board with `k` to win and these marks.
    fn position(rows: u32, cols: u32, k: u32, x: &[(u32, u32)], o: &[(u32, u32)]) -> Game {
        let mut text = vec![vec!['.'; cols as usize]; rows as usize];
        for &(r, c) in x {
            text[r as usize][c as usize] = 'X';
        }
        for &(r, c) in o {
            text[r as usize][c as usize] = 'O';
        }
        let rows: Vec<String> = text.into_iter().map(String::from_iter).collect();
        Game::from_notation(&rows.join("/"), k).unwrap()
    }

    fn gomoku(x: &[(u32, u32)], o: &[(u32, u32)]) -> Game {
        position(15, 15, 5, x, o)
    }

    /// The moves the player picks over a few seeds, with `budget` nodes.
    fn picks(game: &Game, budget: u64) -> Vec<Cell> {
        let mut cells: Vec<Cell> = (0..4)
            .map(|seed| {
                AlphaBeta::new(seed)
                    .with_budget(budget)
                    .choose(game)
                    .unwrap()
            })
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    fn cells(list: &[(u32, u32)]) -> Vec<Cell> {
        list.iter().map(|&(r, c)| Cell::new(r, c)).collect()
    }

    /// Corners of the board: marks that shape nothing.
    const FAR: [(u32, u32); 4] = [(0, 0), (0, 14), (14, 0), (14, 14)];

    #[test]
    fn wins_at_once_rather_than_blocking() {
        // X: a four with a gap at (7, 7); O: an open-ended four on row 2.
        let x = [(7, 5), (7, 6), (7, 8), (7, 9)];
        let o = [(2, 3), (2, 4), (2, 5), (2, 6)];
        let game = gomoku(&x, &o);
        // A budget of one node is no search at all: the check comes first.
        assert_eq!(picks(&game, 1), cells(&[(7, 7)]));
        assert_eq!(picks(&game, 5_000), cells(&[(7, 7)]));
        let small = Game::from_notation("XX./OO./...", 3).unwrap();
        assert_eq!(picks(&small, 1), cells(&[(0, 2)]));
    }

    #[test]
    fn blocks_an_immediate_loss() {
        // O to move; X has four down column 4, open only at the bottom.
        let x = [(3, 4), (4, 4), (5, 4), (6, 4), (10, 10)];
        let o = [(2, 4), (8, 8), (0, 0), (0, 14)];
        let game = gomoku(&x, &o);
        assert_eq!(game.to_move(), Player::O);
        assert_eq!(picks(&game, 1), cells(&[(7, 4)]));
        assert_eq!(picks(&game, 5_000), cells(&[(7, 4)]));
        // Even with an open three of its own, whose open four would be the
        // greediest move.
        let x = [(3, 4), (4, 4), (5, 4), (6, 4), (0, 14)];
        let o = [(2, 4), (10, 6), (10, 7), (10, 8)];
        assert_eq!(picks(&gomoku(&x, &o), 1), cells(&[(7, 4)]));
        // A four with a gap is blocked in the gap.
        let x = [(7, 5), (7, 6), (7, 8), (7, 9), (10, 10)];
        let o = [(1, 1), (12, 3), (0, 7), (3, 12)];
        assert_eq!(picks(&gomoku(&x, &o), 5_000), cells(&[(7, 7)]));
    }

    #[test]
    fn stops_an_open_three_rather_than_make_its_own() {
        // O to move; X threatens an open four from (7,5)-(7,7). O's greediest
        // move, (3, 5), makes two open threes of its own, but X's open four
        // would come first; and a block one cell further out than (7, 4) or
        // (7, 8) loses to the open four on the other side.
        let x = [(7, 5), (7, 6), (7, 7), (14, 7), (0, 7)];
        let o = [(3, 3), (3, 4), (4, 5), (5, 5)];
        let game = gomoku(&x, &o);
        let mut engine = Engine::new(&game);
        engine.load(&game);
        let index = |r, c| game.rules().index(Cell::new(r, c));
        assert_eq!(engine.candidates(1, None), [index(3, 5)], "the greedy move");
        // The threat narrows the moves to the cells of X's windows, which
        // holds even with no search at all.
        let defences = engine.defences().expect("an open three is a threat");
        assert_eq!(
            defences,
            [index(7, 3), index(7, 4), index(7, 8), index(7, 9)]
        );
        for budget in [1, 5_000] {
            let found = picks(&game, budget);
            assert!(
                found
                    .iter()
                    .all(|c| [Cell::new(7, 4), Cell::new(7, 8)].contains(c)),
                "{budget}: {found:?}"
            );
        }
    }

    #[test]
    fn own_fours_count_as_defences() {
        // As above, but O has a three of its own blocked at one end: its
        // fours force X to answer first, so they are defences too.
        let x = [(7, 5), (7, 6), (7, 7), (2, 2), (0, 7)];
        let o = [(2, 3), (2, 4), (2, 5), (10, 10)];
        let game = gomoku(&x, &o);
        let mut engine = Engine::new(&game);
        engine.load(&game);
        let index = |r, c| game.rules().index(Cell::new(r, c));
        let defences = engine.defences().expect("an open three is a threat");
        for cell in [(2, 6), (2, 7), (7, 3), (7, 4), (7, 8), (7, 9)] {
            assert!(defences.contains(&index(cell.0, cell.1)), "{cell:?}");
        }
        assert_eq!(defences.len(), 6);
        // A three blocked at one end makes one four, not two winning cells:
        // nothing to narrow.
        let calm = gomoku(&[(7, 5), (7, 6), (2, 2)], &[(2, 3), (2, 4), (2, 5)]);
        engine.load(&calm);
        assert_eq!(engine.defences(), None);
    }

    #[test]
    fn makes_an_open_four_from_an_open_three() {
        let x = [(7, 5), (7, 6), (7, 7)];
        let o = [(0, 0), (14, 14), (0, 14)];
        let found = picks(&gomoku(&x, &o), 5_000);
        assert!(
            found
                .iter()
                .all(|c| [Cell::new(7, 4), Cell::new(7, 8)].contains(c)),
            "{found:?}"
        );
    }

    #[test]
    fn plays_a_four_three() {
        // (7, 8) makes a four down column 8 (the top is blocked) and a
        // broken three on row 7: O must block the four at (8, 8), then
        // (7, 7) makes an open four. Nothing else wins as fast.
        let x = [(7, 5), (7, 6), (4, 8), (5, 8), (6, 8)];
        let o = [(3, 8), FAR[0], FAR[1], FAR[2], FAR[3]];
        assert_eq!(picks(&gomoku(&x, &o), 5_000), cells(&[(7, 8)]));
    }

    /// The quiescence score of `game` for the player to move.
    fn quiescence(game: &Game) -> i64 {
        let mut engine = Engine::new(game);
        engine.load(game);
        engine.budget = 1_000_000;
        engine.quiesce(-INFINITY, INFINITY, 0, 0)
    }

    #[test]
    fn quiescence_follows_fours_to_a_win() {
        // X to move. Column 7 and column 8 hold threes blocked at one end,
        // row 7 a pair blocked at (7, 4). X at (7, 7) makes a four (O must
        // answer at (8, 7)); then (7, 8) makes a four in column 8 and one in
        // row 7 at once: two cells to block, so X wins, all by fours.
        let x = [
            (4, 7),
            (5, 7),
            (6, 7),
            (7, 5),
            (7, 6),
            (8, 8),
            (9, 8),
            (10, 8),
        ];
        let o = [
            (3, 7),
            (7, 4),
            (11, 8),
            (1, 1),
            (1, 13),
            (13, 1),
            (13, 13),
            (0, 0),
        ];
        let game = gomoku(&x, &o);
        assert_eq!(game.to_move(), Player::X);
        let score = quiescence(&game);
        assert!(score > WON, "{score}");
        // With O to move instead, O has no fours to play, so the search
        // stands on the evaluation: finding X's win is the main search's job.
        let score = quiescence(&gomoku(&x, &o[..7]));
        assert!(score.abs() < WON, "{score}");
        // A four on the board is a win for the player to move at once.
        let four = gomoku(
            &[(7, 5), (7, 6), (7, 7), (7, 8)],
            &[(0, 0), (0, 1), (0, 2), (0, 4)],
        );
        assert_eq!(quiescence(&four), WIN);
    }

    #[test]
    fn opens_in_the_centre() {
        assert_eq!(
            picks(&Game::new(Rules::new(15, 15, 5).unwrap()), 1),
            cells(&[(7, 7)])
        );
        let found = picks(&Game::new(Rules::new(4, 6, 3).unwrap()), 1);
        assert!(
            found
                .iter()
                .all(|c| (1..=2).contains(&c.row) && (2..=3).contains(&c.col)),
            "{found:?}"
        );
    }

    #[test]
    fn works_on_rectangular_boards_with_short_lines() {
        // 5x9, k=4: O to move must block X's anti-diagonal at (4, 1); X
        // to move wins there.
        let x = [(1, 4), (2, 3), (3, 2), (0, 8)];
        let o = [(0, 5), (4, 8), (2, 7)];
        let game = position(5, 9, 4, &x, &o);
        assert_eq!(picks(&game, 2_000), cells(&[(4, 1)]));
        let o = [(0, 5), (4, 8), (2, 7), (4, 4)];
        let game = position(5, 9, 4, &x, &o);
        assert_eq!(game.to_move(), Player::X);
        // (0, 5) holds O, so the anti-diagonal can only end at (4, 1).
        assert_eq!(picks(&game, 2_000), cells(&[(4, 1)]));
    }

    #[test]
    fn never_loses_tic_tac_toe() {
        // Against every sequence of replies, as either side.
        fn worst(game: &Game, me: Player, player: &mut AlphaBeta) -> i8 {
            if let Some(outcome) = game.outcome() {
                return match outcome.winner() {
                    None => 0,
                    Some(p) if p == me => 1,
                    Some(_) => -1,
                };
            }
            let moves: Vec<Cell> = if game.to_move() == me {
                vec![player.choose(game).unwrap()]
            } else {
                game.legal_moves().collect()
            };
            moves
                .into_iter()
                .map(|cell| {
                    let mut next = game.clone();
                    next.play(cell).unwrap();
                    worst(&next, me, player)
                })
                .min()
                .unwrap()
        }
        let mut player = AlphaBeta::new(5);
        for me in Player::ALL {
            assert_eq!(worst(&Game::default(), me, &mut player), 0, "{me} can lose");
        }
    }

    #[test]
    fn same_seed_same_game() {
        let play = |seed| {
            let mut game = Game::new(Rules::new(9, 9, 4).unwrap());
            let mut x = AlphaBeta::new(seed).with_budget(1_000);
            let mut o = RuleBased::new(0);
            crate::play_out(&mut game, &mut x, &mut o).unwrap()
        };
        assert_eq!(play(3), play(3));
        // Openings differ by seed (the ends of games can differ just by
        // which of two winning cells is taken).
        let openings: std::collections::HashSet<_> =
            (0..4).map(|seed| play(seed)[..6].to_vec()).collect();
        assert!(openings.len() > 1, "seeds should change tie-breaks");
    }

    #[test]
    fn plays_only_legal_moves_and_none_when_over() {
        crate::testing::plays_legally_everywhere(
            &[
                (3, 3, 3),
                (4, 6, 3),
                (6, 4, 4),
                (1, 5, 2),
                (2, 2, 1),
                (7, 7, 5),
                (3, 8, 6),
            ],
            2,
            |seed| Box::new(AlphaBeta::new(seed).with_budget(300)),
        );
    }

    #[test]
    fn beats_the_rules_on_gomoku() {
        // A small budget keeps this quick in debug builds; the full match
        // is the `duel` example.
        let rules = Rules::new(15, 15, 5).unwrap();
        for me in Player::ALL {
            let mut game = Game::new(rules);
            let mut player = AlphaBeta::new(1).with_budget(2_000);
            let mut other = RuleBased::new(1);
            match me {
                Player::X => crate::play_out(&mut game, &mut player, &mut other),
                Player::O => crate::play_out(&mut game, &mut other, &mut player),
            }
            .unwrap();
            assert_eq!(game.outcome().and_then(|o| o.winner()), Some(me), "{game}");
        }
    }

    #[test]
    fn a_deadline_stops_the_search_in_time() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::time::{Duration, Instant};
        // A clock that moves on a millisecond each time it is read.
        let start = Instant::now();
        let reads = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&reads);
        let clock: crate::Clock =
            Arc::new(move || start + Duration::from_millis(counted.fetch_add(1, Ordering::SeqCst)));
        let game = gomoku(&[(7, 7), (7, 8)], &[(8, 8)]);
        let mut player = AlphaBeta::new(1);
        player.set_deadline(Some(crate::Deadline::after(
            Duration::from_millis(40),
            Arc::clone(&clock),
        )));
        let cell = player.choose(&game).expect("a move");
        assert!(game.get(cell).is_none());
        // The search looked at the clock until the deadline, then stopped:
        // 40 reads, one to set the deadline, one that found it passed.
        let looked = reads.load(Ordering::SeqCst);
        assert!((40..=42).contains(&looked), "{looked} reads");
        // A deadline already passed still gives a legal move.
        player.set_deadline(Some(crate::Deadline::after(Duration::ZERO, clock)));
        let cell = player.choose(&game).expect("a move");
        assert!(game.get(cell).is_none());
    }

    #[test]
    fn a_stop_flag_calls_the_search_off() {
        let game = gomoku(&[(7, 7), (7, 8)], &[(8, 8)]);
        let nodes = |player: &AlphaBeta| player.engine.as_ref().expect("searched").nodes;
        // A budget far past what the flag allows: a flag not read fails
        // the count below.
        let mut player = AlphaBeta::new(1).with_budget(1_000_000);
        let stop = Arc::new(AtomicBool::new(true));
        player.set_stop(Some(Arc::clone(&stop)));
        let cell = player.choose(&game).expect("a move");
        assert!(game.get(cell).is_none());
        assert!(nodes(&player) <= 2 * DEADLINE_EVERY, "{}", nodes(&player));
        // Lowered, the flag stops nothing: the budget ends the search.
        stop.store(false, Ordering::Relaxed);
        let mut player = player.with_budget(5_000);
        player.choose(&game).expect("a move");
        assert!(nodes(&player) > 5_000, "{}", nodes(&player));
        // Taken away, likewise.
        stop.store(true, Ordering::Relaxed);
        player.set_stop(None);
        player.choose(&game).expect("a move");
        assert!(nodes(&player) > 5_000, "{}", nodes(&player));
    }

    #[test]
    fn a_learned_evaluation_is_what_the_leaves_read() {
        use crate::ntuple::{Features, Scheme, Scratch, TRACKER_SCALE};
        use std::sync::Arc;
        let rules = Rules::new(15, 15, 5).unwrap();
        let positions = [
            gomoku(&[(7, 7)], &[]),
            gomoku(&[(7, 7), (8, 8), (6, 9)], &[(6, 6), (7, 8), (0, 14)]),
            gomoku(&[(0, 0), (14, 14)], &[(7, 7)]),
            gomoku(&[(7, 7)], &[]),
        ];
        // A window-tallies model is kept by the tally, any other (runs of
        // k + 2 cells) by its own tracker; both with made-up weights.
        for scheme in [Scheme::Tallies, Scheme::Segments] {
            let features = Arc::new(Features::new(rules, scheme));
            let weights: Vec<f32> = (0..features.weight_count())
                .map(|i| ((i * 7919) % 101) as f32 / 500_000.0 - 0.0001)
                .collect();
            let mut engine = Engine::new(&Game::new(rules));
            engine.use_learned(Some(Tracker::new(Arc::clone(&features), &weights)));
            assert_eq!(engine.tally.learned.is_some(), scheme == Scheme::Tallies);
            // Each load takes back the marks of the one before.
            for game in &positions {
                engine.load(game);
                let tracked = (engine.evaluate() as f32 / TRACKER_SCALE).tanh();
                let board = WindowBoard::from_game(game);
                let value = features
                    .raw(&weights, &board, &mut Scratch::default())
                    .tanh();
                assert!(value.abs() > 1e-3, "{game}: {value}");
                assert!((tracked - value).abs() < 1e-4, "{game}: {tracked} {value}");
            }
        }
        // Without one, the window counts.
        let mut engine = Engine::new(&Game::new(rules));
        engine.use_learned(None);
        engine.load(&positions[3]);
        assert_eq!(engine.evaluate() % 2, 0);
    }

    #[test]
    fn a_cells_gain_is_what_marking_it_changes() {
        // The gain, summed from the windows' counts when moves are ordered,
        // is exactly what the mark adds to the mover's windows plus what it
        // takes from the opponent's, as the tally's scores see it; on
        // boards with k of 1 to 5, in positions from random games.
        use crate::Random;
        for (rows, cols, k) in [(9, 9, 4), (15, 15, 5), (4, 6, 3), (3, 5, 2), (2, 3, 1)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            for seed in 0..4 {
                let mut game = Game::new(rules);
                let mut random = Random::new(seed);
                let mut engine = Engine::new(&game);
                loop {
                    engine.load(&game);
                    let (me, them) = (game.to_move().index(), game.to_move().other().index());
                    for cell in engine.board.empty_cells().collect::<Vec<_>>() {
                        let before = engine.tally.score;
                        let gain = engine.gain(cell);
                        engine.make(cell);
                        let after = engine.tally.score;
                        engine.unmake(cell);
                        let changed = (after[me] - before[me]) - (after[them] - before[them]);
                        assert_eq!(gain, changed, "{rules} {game} at {cell}");
                        assert_eq!(engine.tally.score, before);
                    }
                    match random.choose(&game) {
                        Some(cell) if !game.is_over() => {
                            game.play(cell).unwrap();
                        }
                        _ => break,
                    }
                }
            }
        }
    }

    #[test]
    fn budget_is_at_least_one_node() {
        assert_eq!(AlphaBeta::new(0).budget(), AlphaBeta::DEFAULT_BUDGET);
        assert_eq!(AlphaBeta::new(0).with_budget(0).budget(), 1);
    }
}
