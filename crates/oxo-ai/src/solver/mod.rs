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
//! ordering by the table's best move, then by the number of lines through
//! a cell.
//!
//! Distances (plies to the end) come from a second, depth-limited search:
//! "can the side to move force a win within d plies?" for increasing d.

mod geometry;
mod pairing;
mod strong;
mod table;

use std::time::{Duration, Instant};

use oxo_core::{Cell, Game, Rules};

use crate::value::{Eval, Value};
use geometry::{Geometry, MAX_SYMMETRIES};
use table::{EXACT, Entry, Kind, LOWER, Table, UPPER};

pub use strong::{Census, STRONG_MAX_CELLS, StrongSolution};

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
    /// The transposition table could not be allocated.
    #[error("cannot allocate a {mib} MiB transposition table: ask for less memory")]
    OutOfMemory {
        /// The size asked for, in MiB.
        mib: usize,
    },
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
    nodes: u64,
    started: Instant,
    next_report: u64,
    on_progress: Option<Box<dyn FnMut(Progress) + Send>>,
    depth: Option<u32>,
    /// How often each cell caused a cutoff, weighted by subtree size: a
    /// tie-break for move ordering (the history heuristic).
    history: [u32; 64],
    /// The last node the pairing lookahead settled (by its number in
    /// `nodes`), and the cells of the strategy it found there.
    pairing: (u64, u64),
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("rules", &self.rules)
            .field("table_bytes", &self.table.bytes())
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

const REPORT_EVERY: u64 = 1 << 20;

/// Below this many empty cells, searching is cheaper than looking for a
/// pairing strategy.
const PAIRING_MIN_EMPTIES: u32 = 6;
/// From this many empty cells up, a node that needs only a draw first
/// looks for a move that leaves it a pairing strategy.
const LOOKAHEAD_MIN_EMPTIES: u32 = 9;
/// Steps one pairing search may take before giving up.
const PAIRING_BUDGET: u32 = 64;

impl Solver {
    /// A solver for `rules` with a transposition table of at most
    /// `table_bytes` bytes.
    ///
    /// # Errors
    /// [`SolveError::TooLarge`] when the board has more than 64 bits with
    /// its padding column (`rows * (cols + 1) > 64`).
    pub fn new(rules: Rules, table_bytes: usize) -> Result<Solver, SolveError> {
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
            nodes: 0,
            started: Instant::now(),
            next_report: REPORT_EVERY,
            on_progress: None,
            depth: None,
            history: [0; 64],
            pairing: (0, 0),
        })
    }

    /// Whether boards of `rules` fit the solver.
    #[must_use]
    pub fn can_solve(rules: Rules) -> bool {
        Geometry::new(rules).is_ok()
    }

    /// The rules this solver plays.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Call `report` about once every million positions while solving.
    pub fn on_progress(&mut self, report: impl FnMut(Progress) + Send + 'static) {
        self.on_progress = Some(Box::new(report));
    }

    /// Positions visited since the solver was made.
    #[must_use]
    pub const fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Forget every stored result.
    pub fn clear(&mut self) {
        self.table.clear();
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
    pub fn value(&mut self, game: &Game) -> Result<Value, SolveError> {
        self.check(game)?;
        self.start();
        Ok(match self.terminal(game) {
            Some(eval) => eval.value,
            None => self.wdl_root(&self.pos_of(game)),
        })
    }

    /// The value and distance of `game` for the player to move.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn evaluate(&mut self, game: &Game) -> Result<Eval, SolveError> {
        self.check(game)?;
        self.start();
        Ok(self.eval_pos(game))
    }

    /// The value and distance of `game` and of every legal move.
    ///
    /// # Errors
    /// A game under other rules than the solver's.
    pub fn analyse(&mut self, game: &Game) -> Result<Analysis, SolveError> {
        self.check(game)?;
        self.start();
        let before = self.nodes;
        let eval = self.eval_pos(game);
        let mut moves = Vec::new();
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            moves.push((cell, self.eval_pos(&child).parent()));
        }
        // Best first; a stable sort keeps row-major order among equals.
        moves.sort_by_key(|&(_, eval)| std::cmp::Reverse(eval));
        Ok(Analysis {
            eval,
            moves,
            nodes: self.nodes - before,
        })
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
            return Ok((eval, best));
        }
        for cell in game.legal_moves() {
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
        Ok((eval, best))
    }

    fn start(&mut self) {
        self.started = Instant::now();
        self.next_report = self.nodes + REPORT_EVERY;
        self.depth = None;
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
        let empties = (game.rules().cell_count() - game.move_count()) as u32;
        let plies = match value {
            Value::Draw => empties,
            Value::Win => (1..=empties)
                .step_by(2)
                .find(|&d| {
                    self.depth = Some(d);
                    self.within(&pos, d, true)
                })
                .expect("a won position is won within the empty cells"),
            Value::Loss => (2..=empties)
                .step_by(2)
                .find(|&d| {
                    self.depth = Some(d);
                    self.within(&pos, d, false)
                })
                .expect("a lost position is lost within the empty cells"),
        };
        Eval { value, plies }
    }

    /// The position after the player to move takes bit `b`.
    #[inline]
    fn child(&self, pos: &Pos, b: u32) -> Pos {
        let mut next = Pos {
            me: pos.opp,
            opp: pos.me,
        };
        self.geo.place(&mut next.opp, b);
        next
    }

    /// The symmetry giving the smallest (me, opp) pair, and that pair.
    #[inline]
    fn canonical(&self, pos: &Pos) -> (usize, u64, u64) {
        let mut best = (0, pos.me[0], pos.opp[0]);
        for s in 1..self.geo.symmetry_count() {
            if (pos.me[s], pos.opp[s]) < (best.1, best.2) {
                best = (s, pos.me[s], pos.opp[s]);
            }
        }
        best
    }

    #[inline]
    fn visit(&mut self) {
        self.nodes += 1;
        if self.nodes >= self.next_report {
            self.next_report = self.nodes + REPORT_EVERY;
            if let Some(report) = self.on_progress.as_mut() {
                report(Progress {
                    nodes: self.nodes,
                    elapsed: self.started.elapsed(),
                    depth: self.depth,
                });
            }
        }
    }

    /// The value by two null-window searches, which prune far more than
    /// one full-window search: "is it a win?", then "is it a loss?".
    fn wdl_root(&mut self, pos: &Pos) -> Value {
        if self.wdl(pos, 0, 1) >= 1 {
            Value::Win
        } else if self.wdl(pos, -1, 0) <= -1 {
            Value::Loss
        } else {
            Value::Draw
        }
    }

    /// Negamax over win (1), draw (0), loss (−1) for the side to move, who
    /// has not already lost. Fail-soft within (alpha, beta).
    fn wdl(&mut self, pos: &Pos, mut alpha: i8, mut beta: i8) -> i8 {
        self.visit();
        let geo = &self.geo;
        let (me, opp) = (pos.me[0], pos.opp[0]);
        let empty = geo.valid & !(me | opp);
        if empty == 0 {
            return 0;
        }
        if geo.winning_cells(me, empty) != 0 {
            return 1;
        }
        let threats = geo.winning_cells(opp, empty);
        if threats.count_ones() > 1 {
            return -1;
        }
        if empty.count_ones() == 1 {
            // The last cell does not win: the board fills, a draw.
            return 0;
        }
        let mine = geo.live_cells(opp);
        let theirs = geo.live_cells(me);
        if mine == 0 && theirs == 0 {
            return 0;
        }
        if mine == 0 {
            beta = beta.min(0);
        }
        if theirs == 0 {
            alpha = alpha.max(0);
        }
        if alpha >= beta {
            return alpha;
        }
        let candidates = if threats != 0 {
            threats
        } else {
            empty & (mine | theirs)
        };

        let (sym, cme, copp) = self.canonical(pos);
        let mut hint = None;
        if let Some(entry) = self.table.get(cme, copp, Kind::Value) {
            let v = entry.a as i8 - 1;
            match entry.b {
                EXACT => return v,
                LOWER if v >= beta => return v,
                UPPER if v <= alpha => return v,
                LOWER => alpha = alpha.max(v),
                _ => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
            if entry.best != u8::MAX {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }

        // Pairing strategies settle many draws without search. A node that
        // needs only a draw and is about to look for a move that leaves it
        // a pairing skips the search for one it has already: the lookahead
        // finds that too (any move keeps a pairing).
        let look_ahead = beta <= 0 && empty.count_ones() >= LOOKAHEAD_MIN_EMPTIES;
        if empty.count_ones() >= PAIRING_MIN_EMPTIES {
            if beta > 0 && self.geo.has_pairing(me, opp, PAIRING_BUDGET) {
                beta = 0;
            }
            if alpha < 0
                && beta > alpha
                && !look_ahead
                && self.geo.has_pairing(opp, me, PAIRING_BUDGET)
            {
                alpha = 0;
            }
            if alpha >= beta {
                return alpha;
            }
        }

        // A move after which we have a pairing strategy holds the draw:
        // when a draw is all this node needs, look for one before searching.
        // Only a move into one of the opponent's open windows can help:
        // elsewhere it just takes a cell the pairing might have used. The
        // one search over all such moves may take as many steps as a
        // search per move would.
        if look_ahead
            && alpha < 0
            && let Some(cells) = self.geo.has_pairing_after_move(
                opp,
                me,
                candidates & theirs,
                PAIRING_BUDGET * (candidates & theirs).count_ones(),
            )
        {
            self.pairing = (self.nodes, cells);
            return 0;
        }

        let order = self.move_order(pos, candidates, hint);
        let alpha_in = alpha;
        let mut best = -2i8;
        let mut best_bit = u32::MAX;
        // The cells of a drawing strategy the opponent found after one of
        // our moves (its move and pairs): after any other move that leaves
        // those cells empty, the same strategy holds the draw, so the child
        // is a draw at best for us without being searched. With several
        // strategies found, a move must touch each of them to be searched.
        // That settles the child only while a draw is no better than what
        // we already have (then 0 is a fail-low bound, as the search would
        // have returned).
        let mut touches_all = !0u64;
        for b in order {
            let v = if alpha >= 0 && touches_all >> b & 1 == 0 {
                0
            } else {
                let child = self.child(pos, b);
                // The child is the next node visited: its number.
                let id = self.nodes + 1;
                let v = -self.wdl(&child, -beta, -alpha);
                if self.pairing.0 == id {
                    touches_all &= self.pairing.1;
                }
                v
            };
            if v > best {
                best = v;
                best_bit = b;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        let weight = empty.count_ones();
                        let h = &mut self.history[b as usize];
                        *h = h.saturating_add(weight * weight);
                        break;
                    }
                }
            }
        }
        let bound = if best <= alpha_in {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table.put(Entry {
            me: cme,
            opp: copp,
            kind: Kind::Value as u8,
            a: (best + 1) as u8,
            b: bound,
            best: self.geo.map(sym, best_bit) as u8,
            empties: empty.count_ones() as u8,
        });
        best
    }

    /// The bits of `candidates`, the hint first, then by the windows they
    /// make or break (see [`Geometry::cell_scores`]), then by history, ties
    /// in static order. Picked lazily: most nodes cut off after a move or two.
    fn move_order(&self, pos: &Pos, candidates: u64, hint: Option<u32>) -> MoveList {
        let mut list = MoveList::default();
        let hint = hint.filter(|&h| candidates >> h & 1 == 1);
        if let Some(h) = hint {
            list.push(h, u64::MAX, u32::MAX);
        }
        let rest = candidates & !hint.map_or(0, |h| 1 << h);
        let mut scores = [0u64; 64];
        if rest.count_ones() > 1 {
            self.geo.cell_scores(pos.me[0], pos.opp[0], &mut scores);
        }
        for &b in &self.geo.order {
            if rest >> b & 1 == 1 {
                let b = usize::from(b);
                list.push(b as u32, scores[b], self.history[b]);
            }
        }
        list
    }

    /// With `attack`: can the side to move force a win within `d` plies?
    /// Without: will the side to move lose within `d` plies whatever it
    /// does?
    ///
    /// Dead cells (in no window either side can still complete) are skipped
    /// here too: taking one is a pass, and for either side a live move is at
    /// least as good, in result and in time, as a pass (an extra own mark
    /// never hurts, and the number of empty cells left is the same).
    fn within(&mut self, pos: &Pos, d: u32, attack: bool) -> bool {
        self.visit();
        let geo = &self.geo;
        let (me, opp) = (pos.me[0], pos.opp[0]);
        let empty = geo.valid & !(me | opp);
        if empty == 0 {
            return false;
        }
        let wins_now = geo.winning_cells(me, empty) != 0;
        if attack {
            if wins_now {
                return d >= 1;
            }
            if d < 3 {
                return false;
            }
        } else if wins_now || d < 2 {
            return false;
        }
        let threats = geo.winning_cells(opp, empty);
        if threats.count_ones() > 1 {
            // Attacker: the defender wins first. Defender: it blocks one,
            // the attacker takes the other.
            return !attack;
        }
        if empty.count_ones() == 1 {
            return false;
        }

        // The attacker is the side to move when attacking, else the other.
        let (attacker, defender) = if attack { (me, opp) } else { (opp, me) };
        let live = geo.live_cells(defender) | geo.live_cells(attacker);
        if live & empty == 0 {
            return false;
        }
        // The attacker needs `need` more marks in its fullest open window:
        // 2·need − 1 plies if it moves now, 2·need if it moves next.
        let Some(most) = geo.best_window(attacker, defender) else {
            return false;
        };
        let need = geo.k - most;
        let fastest = if attack { 2 * need - 1 } else { 2 * need };
        if d < fastest {
            return false;
        }
        if empty.count_ones() >= PAIRING_MIN_EMPTIES
            && geo.has_pairing(attacker, defender, PAIRING_BUDGET)
        {
            return false;
        }

        let kind = if attack { Kind::Attack } else { Kind::Defend };
        let (sym, cme, copp) = self.canonical(pos);
        let stored = self.table.get(cme, copp, kind);
        let d8 = d.min(254) as u8;
        let mut hint = None;
        if let Some(entry) = stored {
            if entry.b != u8::MAX && d8 >= entry.b {
                return true;
            }
            if entry.a != u8::MAX && d8 <= entry.a {
                return false;
            }
            if entry.best != u8::MAX {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }
        if hint.is_none() {
            // The value search's best move is a good first guess here too.
            if let Some(entry) = self.table.get(cme, copp, Kind::Value)
                && entry.best != u8::MAX
            {
                hint = Some(self.geo.unmap(sym, u32::from(entry.best)));
            }
        }
        let candidates = if threats != 0 { threats } else { empty & live };
        let mut result = !attack;
        let mut deciding = u32::MAX;
        for b in self.move_order(pos, candidates, hint) {
            let child = self.child(pos, b);
            let answer = self.within(&child, d - 1, !attack);
            // Attacker wants a move after which the defender loses in time;
            // the defender escapes if any move avoids that.
            if attack && answer {
                result = true;
                deciding = b;
                break;
            }
            if !attack && !answer {
                result = false;
                deciding = b;
                break;
            }
        }
        let mut entry = stored.unwrap_or(Entry {
            me: cme,
            opp: copp,
            kind: kind as u8,
            a: u8::MAX,
            b: u8::MAX,
            best: u8::MAX,
            empties: empty.count_ones() as u8,
        });
        if result {
            entry.b = entry.b.min(d8);
        } else {
            entry.a = if entry.a == u8::MAX {
                d8
            } else {
                entry.a.max(d8)
            };
        }
        if deciding != u32::MAX {
            entry.best = self.geo.map(sym, deciding) as u8;
        }
        self.table.put(entry);
        result
    }
}

/// Up to 64 moves with their ordering keys, handed out best first.
#[derive(Clone, Copy, Debug)]
struct MoveList {
    bits: [u8; 64],
    keys: [u64; 64],
    len: usize,
    next: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            bits: [0; 64],
            keys: [0; 64],
            len: 0,
            next: 0,
        }
    }
}

impl MoveList {
    /// Add bit `b`, ordered by `score`, then by `history`, then by the
    /// order of pushing.
    fn push(&mut self, b: u32, score: u64, history: u32) {
        self.bits[self.len] = b as u8;
        // Score and history saturate: the order among huge values does not
        // matter. The low bits make every key unique, earlier pushes the
        // greater, so moves can be picked out of order by swapping.
        self.keys[self.len] = (score.min((1 << 34) - 1) << 30)
            | u64::from(history.min((1 << 24) - 1)) << 6
            | (63 - self.len as u64);
        self.len += 1;
    }
}

impl Iterator for MoveList {
    type Item = u32;

    /// The remaining move with the greatest key.
    fn next(&mut self) -> Option<u32> {
        if self.next >= self.len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.len {
            if self.keys[i] > self.keys[best] {
                best = i;
            }
        }
        self.bits.swap(self.next, best);
        self.keys.swap(self.next, best);
        self.next += 1;
        Some(u32::from(self.bits[self.next - 1]))
    }
}
