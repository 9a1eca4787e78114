//! An exact solver for m,n,k-games on boards of up to 64 bits.
//!
//! Technique: negamax with alpha-beta over win/draw/loss, on bitboards,
//! with a transposition table keyed by the canonical form of the position
//! under the board's symmetries (8 on square boards, 4 on rectangular),
//! immediate-threat detection (win now; block a single threat; lose to two),
//! dead-cell pruning (a cell in no window either player can still complete
//! is a pass, and a pass is never better than a real move), pairing
//! strategies (a defender who can cover every open window with disjoint
//! pairs of empty cells cannot lose; a node that needs only a draw looks
//! for one move that leaves it such a pairing, and the cells of the
//! strategy found settle the sibling moves that leave them empty), and
//! ordering by the table's best move, then by the open windows through a
//! cell (weighted eightfold a mark; where the mover is out to win, its own
//! windows weigh over five times the opponent's with as many marks, so a
//! move that extends a line comes before one that blocks a line as long:
//! counter-threats force replies, and most of a full analysis is proving
//! wins and escaping them; where a draw is all it needs, its own weigh 4
//! to the opponent's 3), then by history, then by the number of lines
//! through a cell. While [`Solver::analyse`] values the moves of a position
//! that one side wins, nodes that need only a draw weigh the mover's own
//! windows as the attacking ones do: there most of the work is proving wins
//! and their lengths (drawn positions keep 4, as 16 there made the drawn
//! 7×6 k=5 search 26 times as many positions). Those weights matter most:
//! with 4 everywhere, the full analysis of 6×6 k=4 searched 5,570,015
//! positions instead of 719,057, and of 7×7 k=4 162,365,229 instead of
//! 1,479,716.
//!
//! Distances (plies to the end) come from a second, depth-limited search:
//! "can the side to move force a win within d plies?" for increasing d. It
//! prunes with what the value search stored (no win for a side that cannot
//! win) and with double threats: a single threat is always blocked, so a
//! win within d plies needs two open windows one mark short each within the
//! attacker's moves before its last, and when that takes every one of those
//! moves, the next one goes into such a pair of windows.

mod certify;
mod geometry;
mod pairing;
mod search;
mod strong;
mod table;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use oxo_core::{Cell, Game, Player, Rules};

use crate::meter::Meter;
use crate::value::{Eval, Value};
pub(crate) use geometry::transforms;
use geometry::{Geometry, MAX_SYMMETRIES};
use table::Table;

pub use certify::{MAX_PROOF_NODES, certify};
pub use strong::{Census, STRONG_MAX_CELLS, StrongSolution, StrongTableError};

/// Boards of at most this many cells are valued by [`Solver::value`]'s
/// own search alone: it takes at most milliseconds there (5×5 k=4, a draw
/// the Maker–Breaker game does not settle, about 40 ms), and asking the
/// prover first would only add the cost of making it.
pub const PROVER_MIN_CELLS: usize = 30;

/// Positions [`Solver::value`] lets the proof search visit for each of its
/// two questions before it falls back on its own search: (7,7,5) takes
/// 3,467 in all.
pub const PROVER_BUDGET: u64 = 1 << 20;

/// The longest line a side to move is taken to force against a mere
/// blocker in a 5×5 square free of the other side's stones (see
/// `Solver::forces_in_open_square`).
const OPEN_SQUARE_MAX_K: u32 = 4;

/// Default transposition-table size: 64 MiB.
pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;

/// Why a position cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The board does not fit the solver's 64-bit boards.
    #[error(
        "the {rows}x{cols} board is too large to solve: rows x (cols + 1) must be at most 64 (7x7 fits)"
    )]
    TooLarge {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
    /// The board is larger than this kind of solving is offered for: every
    /// reachable position ([`StrongSolution`]) or perfect play
    /// ([`crate::Perfect`]).
    #[error("{what} is limited to boards of {limit}; {rows}x{cols} is larger")]
    Beyond {
        /// What is limited, such as "solving every reachable position".
        what: &'static str,
        /// The limit, such as "at most 16 cells".
        limit: String,
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
    /// The rules count only runs of exactly k, which the solver's boards do
    /// not tell apart from longer ones.
    #[error("the solver plays k or more in a row; it cannot solve {0} (exactly k)")]
    Exact(Rules),
    /// The transposition table could not be allocated.
    #[error("cannot allocate a {mib} MiB transposition table: ask for less memory")]
    OutOfMemory {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// The search visited as many positions as its budget allows
    /// ([`Solver::set_budget`]) without an answer.
    #[error("no answer within the budget of {nodes} positions")]
    OverBudget {
        /// The budget.
        nodes: u64,
    },
    /// The caller raised the solver's stop flag ([`Solver::set_stop`])
    /// before the search had an answer.
    #[error("the search was stopped before it had an answer")]
    Stopped,
    /// The game was played under other rules than the solver's.
    #[error("this solver is for {expected} games, not {found}")]
    WrongRules {
        /// The solver's rules.
        expected: Rules,
        /// The game's rules.
        found: Rules,
    },
}

/// Search statistics, reported as the search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Positions visited so far.
    pub nodes: u64,
    /// Time since the solve began.
    pub elapsed: Duration,
    /// The current distance bound of the distance search, if it is running.
    pub depth: Option<u32>,
    /// In [`Solver::analyse`], the moves valued so far and the legal moves
    /// in all.
    pub moves: Option<(usize, usize)>,
}

/// The value of a position and of each legal move in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The position's value for the player to move.
    pub eval: Eval,
    /// Every legal move with the value it leads to, for the player making
    /// it, best first (ties in row-major order).
    pub moves: Vec<(Cell, Eval)>,
    /// Positions visited.
    pub nodes: u64,
}

impl Analysis {
    /// The moves that keep the position's value at its best distance.
    pub fn best_moves(&self) -> impl Iterator<Item = Cell> + '_ {
        let best = self.moves.first().map(|&(_, e)| e);
        self.moves
            .iter()
            .take_while(move |&&(_, e)| Some(e) == best)
            .map(|&(c, _)| c)
    }
}

/// A position as the search sees it: the stones of the player to move and
/// of the other, in every symmetric orientation (index 0 is the real one).
#[derive(Clone, Copy, Debug)]
struct Pos {
    me: [u64; MAX_SYMMETRIES],
    opp: [u64; MAX_SYMMETRIES],
}

/// Solves positions of one board shape, keeping what it learns in its
/// table between calls.
pub struct Solver {
    rules: Rules,
    geo: Geometry,
    table: Table,
    /// Positions visited, the budget and progress reports.
    meter: Meter<Progress>,
    depth: Option<u32>,
    /// In `analyse`, the moves valued so far and in all.
    moves: Option<(usize, usize)>,
    /// How often each cell caused a cutoff, weighted by subtree size: a
    /// tie-break for move ordering (the history heuristic).
    history: [u32; 64],
    /// The last node the pairing lookahead settled (by its number in
    /// `nodes`), and the cells of the strategy it found there.
    pairing: (u64, u64),
    /// The weight of the mover's own windows at nodes that need only a
    /// draw: `search::OWN_HOLDING`, but `search::OWN_ATTACKING` while
    /// `analyse` values the moves of a position that is not a draw.
    holding: u64,
    /// The proof search, made on the first [`Solver::value`] call that
    /// needs it: it proves draws far faster than the search here.
    prover: Option<Box<crate::prover::Prover>>,
    /// The table size, for the prover's.
    table_bytes: usize,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("rules", &self.rules)
            .field("table_bytes", &self.table.bytes())
            .field("nodes", &self.meter.nodes())
            .finish_non_exhaustive()
    }
}

/// Boards of at most this many cells are analysed in well under a second
/// even when empty (5×5 k=4 takes about 40 ms); see
/// [`Solver::answers_quickly`].
pub const QUICK_MAX_CELLS: usize = 25;

/// Larger boards the solver handles are analysed in a few milliseconds
/// once at most this many cells are empty (measured up to 7×7).
pub const QUICK_MAX_EMPTY: usize = 16;

impl Solver {
    /// A solver for `rules` with a transposition table of at most
    /// `table_bytes` bytes.
    ///
    /// # Errors
    /// [`SolveError::TooLarge`] when the board has more than 64 bits with
    /// its padding column (`rows * (cols + 1) > 64`); [`SolveError::Exact`]
    /// under the exactly-k rule.
    pub fn new(rules: Rules, table_bytes: usize) -> Result<Solver, SolveError> {
        if rules.is_exact() {
            return Err(SolveError::Exact(rules));
        }
        let geo = Geometry::new(rules).map_err(|_| SolveError::TooLarge {
            rows: rules.rows(),
            cols: rules.cols(),
        })?;
        Ok(Solver {
            rules,
            geo,
            table: Table::with_bytes(table_bytes).ok_or(SolveError::OutOfMemory {
                mib: table_bytes >> 20,
            })?,
            meter: Meter::new(),
            depth: None,
            moves: None,
            history: [0; 64],
            pairing: (0, 0),
            holding: search::OWN_HOLDING,
            prover: None,
            table_bytes,
        })
    }

    /// Whether boards of `rules` fit the solver.
    #[must_use]
    pub fn can_solve(rules: Rules) -> bool {
        !rules.is_exact() && Geometry::new(rules).is_ok()
    }

    /// Whether [`Solver::analyse`] values every move of `game` quickly
    /// enough to answer a person at once (hints, the analysis board): on
    /// boards of at most [`QUICK_MAX_CELLS`] cells, and on larger boards the
    /// solver handles once at most [`QUICK_MAX_EMPTY`] cells are empty.
    #[must_use]
    pub fn answers_quickly(game: &Game) -> bool {
        let rules = game.rules();
        let empty = rules.cell_count() - game.move_count();
        (rules.cell_count() <= QUICK_MAX_CELLS || empty <= QUICK_MAX_EMPTY)
            && Solver::can_solve(rules)
    }

    /// The rules this solver plays.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Call `report` about once every million positions while solving, or
    /// once a second when that is sooner.
    pub fn on_progress(&mut self, report: impl FnMut(Progress) + Send + 'static) {
        self.meter.on_progress(report);
    }

    /// Report every `nodes` positions instead, from the next call on.
    #[cfg(test)]
    pub(crate) fn set_report_every(&mut self, nodes: u64) {
        self.meter.set_report_every(nodes);
    }

    /// Let each call visit at most `nodes` positions (`None`: no limit);
    /// a call that runs out answers [`SolveError::OverBudget`] and stores
    /// nothing it had not finished, so later answers stay exact.
    pub fn set_budget(&mut self, nodes: Option<u64>) {
        self.meter.set_budget(nodes);
    }

    /// Stop each call once `stop` is true (`None`: no flag), as for Ctrl-C:
    /// the flag is read every 16,384 positions, right after any
    /// progress report (so the [`Solver::on_progress`] callback may raise
    /// it), and a call stopped answers [`SolveError::Stopped`],
    /// storing nothing it had not finished. A flag left raised stops every
    /// later call at once.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.meter.set_stop(stop);
    }

    /// `result`, unless the call ran out of budget or was stopped.
    fn within_budget<T>(&mut self, result: T) -> Result<T, SolveError> {
        if self.meter.stopped() {
            self.meter.finish();
            Err(SolveError::Stopped)
        } else if self.meter.finish() {
            Err(SolveError::OverBudget {
                nodes: self.meter.budget().unwrap_or(u64::MAX),
            })
        } else {
            Ok(result)
        }
    }

    /// Positions visited since the solver was made.
    #[must_use]
    pub const fn nodes(&self) -> u64 {
        self.meter.nodes()
    }

    /// Forget every stored result.
    pub fn clear(&mut self) {
        self.table.clear();
        if let Some(prover) = self.prover.as_mut() {
            prover.clear();
        }
    }

    fn check(&self, game: &Game) -> Result<(), SolveError> {
        if game.rules() == self.rules {
            Ok(())
        } else {
            Err(SolveError::WrongRules {
                expected: self.rules,
                found: game.rules(),
            })
        }
    }

    /// Win, draw or loss for the player to move, without distances: the
    /// fastest question to answer.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    ///
    /// Boards of more than [`PROVER_MIN_CELLS`] cells first ask the proof
    /// search ([`crate::Prover`]) whether either side can force a line
    /// against a defender who only blocks: a side that cannot cannot win,
    /// which settles a draw (or half of the question) in a fraction of the
    /// positions. Its positions count in [`Solver::nodes`] and the budget.
    pub fn value(&mut self, game: &Game) -> Result<Value, SolveError> {
        self.check(game)?;
        self.start();
        let value = match self.terminal(game) {
            Some(eval) => eval.value,
            None => {
                let pos = self.pos_of(game);
                match self.blockable(game) {
                    // Neither side can force a line.
                    (true, true) => Value::Draw,
                    // The mover cannot win: a loss or a draw.
                    (true, false) => {
                        if self.wdl(&pos, -1, 0) <= -1 {
                            Value::Loss
                        } else {
                            Value::Draw
                        }
                    }
                    (false, _) => self.wdl_root(&pos),
                }
            }
        };
        self.within_budget(value)
    }

    /// The value by this module's alpha-beta search alone, without the
    /// proof search: what the prover asks where a side forces a line
    /// against a mere blocker, and the baseline the benchmarks compare the
    /// prover with.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn value_by_search(&mut self, game: &Game) -> Result<Value, SolveError> {
        self.check(game)?;
        self.start();
        let value = match self.terminal(game) {
            Some(eval) => eval.value,
            None => self.wdl_root(&self.pos_of(game)),
        };
        self.within_budget(value)
    }

    /// Whether `side` can force a win from `game`: one of the two questions
    /// [`Solver::value`] asks, alone (a null-window search, after the
    /// prover's question as in [`Solver::value`]), which is all a proof
    /// split into one-sided jobs needs.
    ///
    /// # Errors
    /// A game under other rules than the solver's, or the budget ran out.
    pub fn can_force(&mut self, game: &Game, side: Player) -> Result<bool, SolveError> {
        self.check(game)?;
        self.start();
        let wins = match game.outcome() {
            Some(outcome) => outcome.winner() == Some(side),
            // A side that cannot force a line against a mere blocker
            // cannot win (see `Solver::value`).
            None if self.blocked(game, side) => false,
            None if game.to_move() == side => self.wdl(&self.pos_of(game), 0, 1) >= 1,
            None => self.wdl(&self.pos_of(game), -1, 0) <= -1,
        };
        self.within_budget(wins)
    }

    /// Whether the prover shows that the mover, and then the other side,
    /// cannot force a line against a defender who only blocks.
    fn blockable(&mut self, game: &Game) -> (bool, bool) {
        let mover = game.to_move();
        let mover_blocked = self.blocked(game, mover);
        let other_blocked = mover_blocked && self.blocked(game, mover.other());
        (mover_blocked, other_blocked)
    }

    /// Whether the prover shows that `side` cannot force a line against a
    /// defender who only blocks (`false` also when it could not tell within
    /// [`PROVER_BUDGET`] positions or the call's budget, and on boards of at
    /// most [`PROVER_MIN_CELLS`] cells, where it is not asked).
    fn blocked(&mut self, game: &Game, side: Player) -> bool {
        use crate::prover::Prover;
        if self.rules.cell_count() <= PROVER_MIN_CELLS || self.forces_in_open_square(game, side) {
            return false;
        }
        if self.prover.is_none() {
            match Prover::new(self.rules, self.table_bytes) {
                Ok(prover) => self.prover = Some(Box::new(prover)),
                Err(_) => return false,
            }
        }
        let prover = self.prover.as_mut().expect("made above");
        prover.set_budget(Some(self.meter.left().min(PROVER_BUDGET)));
        let before = prover.nodes();
        let answer = prover.maker_wins(game, side);
        self.meter.add(prover.nodes() - before);
        answer == Ok(false)
    }

    /// Whether `side`, to move, is known to force a line against a mere
    /// blocker without asking the prover: with k at most
    /// [`OPEN_SQUARE_MAX_K`], it does so inside any 5×5 square holding none
    /// of the other side's stones. The Maker to move wins that game on the
    /// empty 5×5 board with k = 4 (the prover shows it in 12 positions:
    /// `the_maker_forces_four_on_an_empty_five_by_five` in
    /// `tests/prover.rs`), and more
    /// room, more Maker stones or a shorter line only help the Maker: it
    /// plays the same strategy inside the square, taking a move of the
    /// Breaker's outside it as one inside. The prover's question could only
    /// say so again, at the cost of making a prover (6×6 k=4's empty board:
    /// 14 positions, a tenth of the whole search's time).
    fn forces_in_open_square(&self, game: &Game, side: Player) -> bool {
        const SIDE: u32 = 5;
        let (rows, cols) = (self.rules.rows(), self.rules.cols());
        if game.to_move() != side
            || self.rules.k() > OPEN_SQUARE_MAX_K
            || rows < SIDE
            || cols < SIDE
        {
            return false;
        }
        let blockers = self.geo.oriented(game, side.other())[0];
        let stride = cols + 1;
        let row = (1u64 << SIDE) - 1;
        let square = (0..SIDE).fold(0u64, |acc, r| acc | row << (r * stride));
        (0..=rows - SIDE)
            .any(|r| (0..=cols - SIDE).any(|c| blockers & square << (r * stride + c) == 0))
    }

    /// The value and distance of `game` for the player to move.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn evaluate(&mut self, game: &Game) -> Result<Eval, SolveError> {
        self.check(game)?;
        self.start();
        let eval = self.eval_pos(game);
        self.within_budget(eval)
    }

    /// The value and distance of `game` and of every legal move.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn analyse(&mut self, game: &Game) -> Result<Analysis, SolveError> {
        self.check(game)?;
        self.start();
        let before = self.meter.nodes();
        let eval = self.eval_pos(game);
        // In a position one side wins, most of the work is proving wins
        // and their lengths; blocking first pays only where draws are held.
        if eval.value != Value::Draw {
            self.holding = search::OWN_ATTACKING;
        }
        let mut moves = Vec::new();
        // Moves leading to the same position up to symmetry, solved once.
        let mut solved: Vec<(u64, u64, Eval)> = Vec::new();
        let legal = game.legal_moves().count();
        for (done, cell) in game.legal_moves().enumerate() {
            if self.meter.aborted() {
                break;
            }
            self.moves = Some((done, legal));
            let mut child = game.clone();
            child.play_unchecked(cell);
            let child_eval = match self.terminal(&child) {
                Some(eval) => eval,
                None => {
                    let pos = self.pos_of(&child);
                    let (_, me, opp) = self.canonical(&pos);
                    match solved.iter().find(|s| (s.0, s.1) == (me, opp)) {
                        Some(&(_, _, eval)) => eval,
                        None => {
                            let empties = (child.rules().cell_count() - child.move_count()) as u32;
                            let eval = self.eval_child(&pos, empties, eval);
                            solved.push((me, opp, eval));
                            eval
                        }
                    }
                }
            };
            moves.push((cell, child_eval.parent()));
        }
        self.moves = None;
        self.holding = search::OWN_HOLDING;
        // Best first; a stable sort keeps row-major order among equals.
        moves.sort_by_key(|&(_, eval)| std::cmp::Reverse(eval));
        self.within_budget(())?;
        Ok(Analysis {
            eval,
            moves,
            nodes: self.meter.nodes() - before,
        })
    }

    /// The evaluation of a position reached by a move from a position
    /// evaluated `parent`, with `empties` empty cells: what the parent's
    /// value implies of it, the value search for the rest, then the
    /// distance search from the least distance the parent leaves possible.
    fn eval_child(&mut self, pos: &Pos, empties: u32, parent: Eval) -> Eval {
        // From the child's side: a parent that wins in P has children lost
        // in P − 1 plies or more, drawn, or won; a drawn parent has no lost
        // children; a lost one only won ones.
        let value = match parent.value {
            Value::Loss => Value::Win,
            Value::Draw => {
                if self.wdl(pos, 0, 1) >= 1 {
                    Value::Win
                } else {
                    Value::Draw
                }
            }
            Value::Win => self.wdl_root(pos),
        };
        if self.meter.aborted() {
            // Whatever this says is discarded by the caller.
            return Eval { value, plies: 0 };
        }
        let plies = match value {
            Value::Draw => empties,
            Value::Win => self.distance(pos, empties, 1, true),
            Value::Loss => {
                self.distance(pos, empties, parent.plies.saturating_sub(1).max(2), false)
            }
        };
        Eval { value, plies }
    }

    /// The distance of a position won (`attack`) or lost, known to be at
    /// least `from` plies: the first d from there, in steps of two, within
    /// which it ends.
    fn distance(&mut self, pos: &Pos, empties: u32, from: u32, attack: bool) -> u32 {
        let plies = (from..=empties)
            .step_by(2)
            .find(|&d| {
                self.depth = Some(d);
                self.within(pos, d, attack) || self.meter.aborted()
            })
            .expect("a won or lost position ends within the empty cells");
        self.depth = None;
        plies
    }

    /// The position's evaluation and the moves that keep it (the moves
    /// [`Analysis::best_moves`] would list), found with one bounded
    /// search per move instead of a full evaluation of each: what a player
    /// needs, and much faster than [`Solver::analyse`] on larger boards.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn best_moves(&mut self, game: &Game) -> Result<(Eval, Vec<Cell>), SolveError> {
        self.check(game)?;
        self.start();
        let eval = self.eval_pos(game);
        let mut best = Vec::new();
        if game.is_over() {
            return self.within_budget((eval, best));
        }
        for cell in game.legal_moves() {
            if self.meter.aborted() {
                break;
            }
            let mut child = game.clone();
            child.play_unchecked(cell);
            let keeps = match (child.outcome(), eval.value) {
                (Some(_), _) => self.terminal(&child).map(Eval::parent) == Some(eval),
                (None, Value::Win) => {
                    // The opponent, to move, must lose within plies − 1.
                    self.within(&self.pos_of(&child), eval.plies - 1, false)
                }
                (None, Value::Draw) => self.wdl(&self.pos_of(&child), 0, 1) < 1,
                (None, Value::Loss) => {
                    // Every move loses within plies − 1; the best do not
                    // lose any sooner.
                    eval.plies < 3 || !self.within(&self.pos_of(&child), eval.plies - 2, true)
                }
            };
            if keeps {
                best.push(cell);
            }
        }
        self.within_budget((eval, best))
    }

    fn start(&mut self) {
        self.meter.start();
        self.depth = None;
        self.moves = None;
    }

    /// The evaluation of a finished game, or `None` while it goes on.
    fn terminal(&self, game: &Game) -> Option<Eval> {
        let outcome = game.outcome()?;
        // The game is over: the player "to move" either lost or drew.
        Some(Eval {
            value: if outcome.winner().is_some() {
                Value::Loss
            } else {
                Value::Draw
            },
            plies: 0,
        })
    }

    fn pos_of(&self, game: &Game) -> Pos {
        let mover = game.to_move();
        Pos {
            me: self.geo.oriented(game, mover),
            opp: self.geo.oriented(game, mover.other()),
        }
    }

    fn eval_pos(&mut self, game: &Game) -> Eval {
        if let Some(eval) = self.terminal(game) {
            return eval;
        }
        let pos = self.pos_of(game);
        let value = self.wdl_root(&pos);
        if self.meter.aborted() {
            // Whatever this says is discarded by the caller.
            return Eval { value, plies: 0 };
        }
        let empties = (game.rules().cell_count() - game.move_count()) as u32;
        let plies = match value {
            Value::Draw => empties,
            Value::Win => self.distance(&pos, empties, 1, true),
            Value::Loss => self.distance(&pos, empties, 2, false),
        };
        Eval { value, plies }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;

    #[test]
    fn a_stop_raised_by_the_progress_callback_ends_the_call_and_stores_nothing_wrong() {
        let rules = Rules::new(4, 4, 3).unwrap();
        let empty = Game::new(rules);
        let mut solver = Solver::new(rules, 1 << 16).unwrap();
        solver.set_report_every(8);
        let stop = Arc::new(AtomicBool::new(false));
        solver.set_stop(Some(Arc::clone(&stop)));
        let raise = Arc::clone(&stop);
        solver.on_progress(move |_| raise.store(true, Ordering::Relaxed));
        assert_eq!(solver.analyse(&empty), Err(SolveError::Stopped));
        assert!(solver.nodes() < 100, "{} positions", solver.nodes());
        // Lowered, the flag lets the next call finish, with the answer a
        // fresh solver gives.
        stop.store(false, Ordering::Relaxed);
        solver.on_progress(|_| {});
        let after = solver.analyse(&empty).unwrap();
        let fresh = Solver::new(rules, 1 << 16)
            .unwrap()
            .analyse(&empty)
            .unwrap();
        assert_eq!(after.eval, fresh.eval);
        assert_eq!(after.moves, fresh.moves);
    }
}
