//! Every move's exact value, quickly, wherever oxo can: the one function
//! behind hints, the analysis board and `oxo solve`'s analysis of boards
//! the solver alone is too slow for.
//!
//! # How
//!
//! Where [`Solver::answers_quickly`] holds, [`Valuer::values`] is the
//! solver's full analysis: every move's value and distance. Elsewhere, on
//! the boards [`Valuer::answers_quickly`] names (7×7 k=5), values come from
//! the [`Prover`]: a side that cannot force a line against a defender who
//! only blocks cannot win, so most positions of a game that is a draw are
//! settled by two Maker–Breaker proofs of a few thousand positions each.
//! Where a side does force a line against a mere blocker, the real game
//! may still be a draw (the defender's own threats); the prover's search of
//! the real game decides those ([`Prover::can_force`]), which takes from
//! milliseconds to minutes in the opening, so every move's value at every
//! position after at most two moves, and at all 831 of the hardest
//! positions after three, is solved ahead of time and shipped in the binary
//! ([`OpeningTable`], built by `scripts/build-opening-table.sh`); the table
//! also values each position one move later.
//!
//! The position's value comes first and bounds its moves': in a lost
//! position every move loses, and in a drawn one no move wins, so each move
//! of a drawn position needs only one question (can the opponent force a
//! line against a blocker after it, and if so, a win?): the real game's
//! search is asked for one side only. Moves that lead to the same position
//! under a symmetry are valued once.
//!
//! # Cost
//!
//! After three moves on 7×7 k=5 most positions (6,207 of the 7,038 up to
//! symmetry) cost one Maker–Breaker proof: the pass test (`held`) shows
//! the side that just moved cannot force a line even moving again, so
//! every move is a draw. Where it can (X, moving twice, has one or two
//! moves that force a line), every move of the other side needs a proof of
//! its own, of up to about a million positions, and those after which the
//! line is still forced need the real game's search too: millions of
//! positions, beyond the hints' budget, for most of those 831 positions.
//! Sharing between the moves helps little there: the zones of those forced
//! lines cover the board, and each move's proof costs what refuting the
//! one or two forcing moves costs, the others being cheap
//! (`docs/benchmarks.md` has the figures). The shipped table holds all
//! 831, each valued within 30, 60, 200 or 1,000 million positions when
//! the list was made (`data/opening-7x7k5-forced3.txt`). Where the hints'
//! budget runs out, [`Valuer::some_values`] gives the values of the moves
//! a second pass of the budget reaches, each move given a growing share
//! of it. With the table of 333 and both passes, 498 positions after three
//! moves lacked some move's exact value, and got 8,186 of their 22,908
//! moves' (837 positions had no answer with none of them listed, 627 with
//! 210, 507 with 330 and one pass); those 498 are the ones listed since,
//! and with the whole table every position after three moves has every
//! move's value within the budget (`hints7 time --depth 3`). Later layers,
//! sampled: about one position in twelve after four moves, and one in
//! seven after five, lacks some move's value within the budget
//! (`docs/benchmarks.md`, "How far the hints reach").
//!
//! # Distances
//!
//! The prover proves values, not distances. A draw's distance is known
//! (the board fills: the empty cells); a win's or loss's is left unknown
//! (`None`) when the values come from the prover.

mod analyst;
mod opening;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use oxo_core::{Cell, Game, Rules};

use crate::prover::{ProveError, Prover};
use crate::solver::{SolveError, Solver};
use crate::value::{Eval, Value};
pub use analyst::{Analyst, Answer, CertifyError, Searching};
pub use opening::{FORMAT_VERSION, ListError, OpeningTable, TableError, read_list};
use opening::{Key, Symmetries};

/// What each move not yet valued may visit in [`Valuer::some_values`]'s
/// first round (four times as many each round after).
pub const FIRST_SHARE: u64 = 2_000;

/// The opening table shipped for 7×7 k=5, built by
/// `scripts/build-opening-table.sh`.
pub static OPENING_7X7K5: &[u8] = include_bytes!("../../data/opening-7x7k5.bin");

/// The positions after three moves the table holds as well (one a line),
/// the build script's list.
#[cfg(test)]
static OPENING_7X7K5_FORCED: &str = include_str!("../../data/opening-7x7k5-forced3.txt");

/// The later positions of played games the table holds (one a line), the
/// build script's second list.
#[cfg(test)]
static OPENING_7X7K5_PLAYED: &str = include_str!("../../data/opening-7x7k5-played.txt");

/// A value, and its distance in plies when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Valued {
    /// Win, draw or loss, for the player concerned.
    pub value: Value,
    /// Plies to the end under perfect play (the winner as fast as
    /// possible), when known.
    pub plies: Option<u32>,
}

impl From<Eval> for Valued {
    fn from(eval: Eval) -> Valued {
        Valued {
            value: eval.value,
            plies: Some(eval.plies),
        }
    }
}

impl Valued {
    /// The evaluation, when the distance is known.
    #[must_use]
    pub fn eval(self) -> Option<Eval> {
        self.plies.map(|plies| Eval {
            value: self.value,
            plies,
        })
    }

    /// Best first: by value, then (where both are known) faster wins and
    /// slower losses first; an unknown distance after known ones.
    fn rank(self) -> (i8, i64) {
        let distance = match (self.value, self.plies) {
            (_, None) => 0,
            (Value::Win, Some(p)) => -i64::from(p),
            (Value::Loss, Some(p)) => i64::from(p),
            (Value::Draw, Some(_)) => 0,
        };
        (self.value.sign(), distance)
    }
}

/// A position's value and the value of each of its legal moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    /// The position's value for the player to move.
    pub value: Valued,
    /// Every legal move with what it leads to for the player making it,
    /// best first (ties in row-major order).
    pub moves: Vec<(Cell, Valued)>,
    /// Positions the searches visited.
    pub nodes: u64,
}

impl Values {
    /// Whether every distance is known (the values came from the solver's
    /// full analysis).
    #[must_use]
    pub fn distances_known(&self) -> bool {
        self.value.plies.is_some() && self.moves.iter().all(|(_, v)| v.plies.is_some())
    }
}

/// What [`Valuer::some_values`] found: the values of the moves its
/// budget reached, which is every move wherever [`Valuer::values`]
/// answers within it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SomeValues {
    /// The moves valued, with what each leads to for the player making
    /// it, best first (ties in row-major order).
    pub moves: Vec<(Cell, Valued)>,
    /// The legal moves left without a value, in row-major order.
    pub unvalued: Vec<Cell>,
    /// Positions the searches visited.
    pub nodes: u64,
}

/// Every move's value: nothing left unvalued.
impl From<Values> for SomeValues {
    fn from(values: Values) -> SomeValues {
        SomeValues {
            moves: values.moves,
            unvalued: Vec::new(),
            nodes: values.nodes,
        }
    }
}

impl SomeValues {
    /// Whether every legal move has its value.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.unvalued.is_empty()
    }
}

/// Why [`Valuer::values`] gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValuesError {
    /// The position is on a board and at a stage where no search here
    /// answers quickly (see [`Valuer::answers_quickly`]), and no budget
    /// was lifted.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The prover could not answer.
    #[error(transparent)]
    Prove(#[from] ProveError),
    /// The game was played under other rules than the valuer's.
    #[error("this valuer is for {expected} games, not {found}")]
    WrongRules {
        /// The valuer's rules.
        expected: Rules,
        /// The game's rules.
        found: Rules,
    },
}

impl ValuesError {
    /// Whether this is a board too large for the full analysis (every
    /// move's value) whose value alone the prover can still look for.
    #[must_use]
    pub fn value_alone_fits(&self, rules: Rules) -> bool {
        matches!(self, ValuesError::Solve(SolveError::TooLarge { .. })) && Prover::can_prove(rules)
    }

    /// Whether a search ran out of the valuer's budget (and would answer
    /// with more).
    #[must_use]
    pub const fn is_over_budget(&self) -> bool {
        matches!(
            self,
            ValuesError::Prove(ProveError::OverBudget { .. })
                | ValuesError::Solve(SolveError::OverBudget { .. })
        )
    }

    /// Whether the caller stopped the search ([`Valuer::set_stop`]).
    #[must_use]
    pub const fn is_stopped(&self) -> bool {
        matches!(
            self,
            ValuesError::Prove(ProveError::Stopped) | ValuesError::Solve(SolveError::Stopped)
        )
    }
}

/// The boards larger than [`QUICK_MAX_CELLS`](crate::solver::QUICK_MAX_CELLS)
/// cells whose every position [`Valuer`] answers quickly, with the prover
/// and the opening table shipped for them: 7×7 k=5.
#[must_use]
pub fn every_stage_boards() -> Vec<Rules> {
    vec![Rules::new(7, 7, 5).expect("7x7 k=5 is a board")]
}

/// Values every move of positions of one board, keeping its searches'
/// tables between calls.
pub struct Valuer {
    rules: Rules,
    table_bytes: usize,
    solver: Option<Solver>,
    prover: Option<Prover>,
    opening: Option<OpeningTable>,
    symmetries: Option<Symmetries>,
    budget: Option<u64>,
    /// Stops both searches' calls once raised ([`Valuer::set_stop`]).
    stop: Option<Arc<AtomicBool>>,
    /// The node count (of both searches) at which the current call stops.
    limit: Option<u64>,
    /// The progress callback, which both searches report through.
    reporter: Option<Arc<Mutex<Reporter>>>,
}

/// Search statistics of a [`Valuer`] call, reported as it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Positions visited so far in this call, by both searches.
    pub nodes: u64,
    /// Time since the call began.
    pub elapsed: Duration,
}

/// A valuer's progress callback and what its two searches last reported,
/// to make the valuer's report of the call from either one's.
struct Reporter {
    report: Box<dyn FnMut(Progress) + Send>,
    /// The solver's and the prover's counts, as each last reported them.
    nodes: [u64; 2],
    /// The two counts' sum when the call began.
    before: u64,
    started: Instant,
}

impl Reporter {
    /// The reporter, even if a callback panicked while holding it.
    fn lock(reporter: &Mutex<Reporter>) -> std::sync::MutexGuard<'_, Reporter> {
        reporter.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Search `search` (0 the solver, 1 the prover) has visited `nodes`
    /// positions since it was made: report the call's progress.
    fn heard(reporter: &Mutex<Reporter>, search: usize, nodes: u64) {
        let mut reporter = Reporter::lock(reporter);
        reporter.nodes[search] = nodes;
        let progress = Progress {
            nodes: (reporter.nodes[0] + reporter.nodes[1]).saturating_sub(reporter.before),
            elapsed: reporter.started.elapsed(),
        };
        (reporter.report)(progress);
    }

    fn attach_solver(reporter: &Arc<Mutex<Reporter>>, solver: &mut Solver) {
        let reporter = Arc::clone(reporter);
        solver.on_progress(move |p| Reporter::heard(&reporter, 0, p.nodes));
    }

    fn attach_prover(reporter: &Arc<Mutex<Reporter>>, prover: &mut Prover) {
        let reporter = Arc::clone(reporter);
        prover.on_progress(move |p| Reporter::heard(&reporter, 1, p.nodes));
    }
}

impl std::fmt::Debug for Valuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Valuer")
            .field("rules", &self.rules)
            .field("opening", &self.opening.as_ref().map(OpeningTable::len))
            .finish_non_exhaustive()
    }
}

impl Valuer {
    /// A valuer for `rules` whose searches keep tables of at most
    /// `table_bytes` bytes each, with the opening table shipped for its
    /// board if there is one.
    ///
    /// # Errors
    /// Boards neither the solver nor the prover takes; a table that cannot
    /// be allocated.
    pub fn new(rules: Rules, table_bytes: usize) -> Result<Valuer, ValuesError> {
        let opening = shipped(rules);
        Valuer::with_opening(rules, table_bytes, opening)
    }

    /// [`Valuer::new`] with the opening table given (or none).
    ///
    /// # Errors
    /// As [`Valuer::new`], and a table for other rules.
    pub fn with_opening(
        rules: Rules,
        table_bytes: usize,
        opening: Option<OpeningTable>,
    ) -> Result<Valuer, ValuesError> {
        if let Some(table) = &opening
            && table.rules() != rules
        {
            return Err(ValuesError::WrongRules {
                expected: rules,
                found: table.rules(),
            });
        }
        if !Solver::can_solve(rules) && !Prover::can_prove(rules) {
            return Err(Solver::new(rules, 0)
                .expect_err("the solver refuses")
                .into());
        }
        Ok(Valuer {
            rules,
            table_bytes,
            solver: None,
            prover: None,
            opening,
            symmetries: Symmetries::of(rules),
            budget: None,
            stop: None,
            limit: None,
            reporter: None,
        })
    }

    /// Call `report` while a call searches, about once every million
    /// positions or once a second, whichever is sooner (as
    /// [`Solver::on_progress`]); answers from the opening table report
    /// nothing.
    pub fn on_progress(&mut self, report: impl FnMut(Progress) + Send + 'static) {
        let reporter = Arc::new(Mutex::new(Reporter {
            report: Box::new(report),
            nodes: [0; 2],
            before: 0,
            started: Instant::now(),
        }));
        if let Some(solver) = self.solver.as_mut() {
            Reporter::attach_solver(&reporter, solver);
        }
        if let Some(prover) = self.prover.as_mut() {
            Reporter::attach_prover(&reporter, prover);
        }
        self.reporter = Some(reporter);
    }

    /// Begin a call: its progress counts from here.
    fn begin(&mut self) {
        let nodes = [
            self.solver.as_ref().map_or(0, Solver::nodes),
            self.prover.as_ref().map_or(0, Prover::nodes),
        ];
        if let Some(reporter) = &self.reporter {
            let mut reporter = Reporter::lock(reporter);
            reporter.nodes = nodes;
            reporter.before = nodes[0] + nodes[1];
            reporter.started = Instant::now();
        }
    }

    /// Whether [`Valuer::values`] answers `game` quickly enough for a
    /// person waiting (hints, the analysis board): where the solver does
    /// ([`Solver::answers_quickly`]), and at every stage of a 7×7 k=5
    /// game.
    #[must_use]
    pub fn answers_quickly(game: &Game) -> bool {
        let rules = game.rules();
        Solver::answers_quickly(game) || prover_board(rules)
    }

    /// The rules this valuer plays.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Let each call that values by the prover visit at most `nodes`
    /// positions in all, across its searches (`None`: no limit); a call
    /// that runs out answers an over-budget error and stores nothing
    /// unfinished. The solver's full analysis, on the positions it answers
    /// at once ([`Solver::answers_quickly`]), is not limited.
    pub fn set_budget(&mut self, nodes: Option<u64>) {
        self.budget = nodes;
    }

    /// Stop each call once `stop` is true (`None`: no flag), whichever
    /// search it is in: the flag is read every 16,384 positions, and
    /// a call stopped answers an error for which
    /// [`ValuesError::is_stopped`] holds, storing nothing it had not
    /// finished (what its searches finished stays, so a later call goes on
    /// from there). A flag left raised stops every later search at once;
    /// answers from the opening table and finished positions still come.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        if let Some(solver) = self.solver.as_mut() {
            solver.set_stop(stop.clone());
        }
        if let Some(prover) = self.prover.as_mut() {
            prover.set_stop(stop.clone());
        }
        self.stop = stop;
    }

    /// The budget [`Valuer::set_budget`] set.
    #[must_use]
    pub const fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// The positions the current call may still visit (`None`: no limit).
    fn left(&self) -> Result<Option<u64>, ValuesError> {
        match self.limit {
            None => Ok(None),
            Some(limit) => match limit.checked_sub(self.nodes()) {
                Some(left) if left > 0 => Ok(Some(left)),
                _ => Err(ProveError::OverBudget {
                    nodes: self.budget.unwrap_or(u64::MAX),
                }
                .into()),
            },
        }
    }

    fn solver(&mut self) -> Result<&mut Solver, ValuesError> {
        let left = self.left()?;
        if self.solver.is_none() {
            let mut solver = Solver::new(self.rules, self.table_bytes)?;
            if let Some(reporter) = &self.reporter {
                Reporter::attach_solver(reporter, &mut solver);
            }
            solver.set_stop(self.stop.clone());
            self.solver = Some(solver);
        }
        let solver = self.solver.as_mut().expect("just made");
        solver.set_budget(left);
        Ok(solver)
    }

    fn prover(&mut self) -> Result<&mut Prover, ValuesError> {
        let left = self.left()?;
        if self.prover.is_none() {
            let mut prover = Prover::new(self.rules, self.table_bytes)?;
            if let Some(reporter) = &self.reporter {
                Reporter::attach_prover(reporter, &mut prover);
            }
            prover.set_stop(self.stop.clone());
            self.prover = Some(prover);
        }
        let prover = self.prover.as_mut().expect("just made");
        prover.set_budget(left);
        Ok(prover)
    }

    fn nodes(&self) -> u64 {
        self.solver.as_ref().map_or(0, Solver::nodes)
            + self.prover.as_ref().map_or(0, Prover::nodes)
    }

    /// The value of `game` and of each legal move, best first: with every
    /// distance where the solver answers quickly, with draws' distances
    /// only where the prover gives the values (see the module doc).
    ///
    /// # Errors
    /// A game under other rules; a board neither search takes; a search
    /// over its budget.
    pub fn values(&mut self, game: &Game) -> Result<Values, ValuesError> {
        self.begin();
        self.values_in_call(game)
    }

    /// [`Valuer::values`] within a call already begun.
    fn values_in_call(&mut self, game: &Game) -> Result<Values, ValuesError> {
        if game.rules() != self.rules {
            return Err(ValuesError::WrongRules {
                expected: self.rules,
                found: game.rules(),
            });
        }
        if Solver::answers_quickly(game) || !Prover::can_prove(self.rules) {
            let analysis = self.solver()?.analyse(game)?;
            return Ok(Values {
                value: analysis.eval.into(),
                moves: analysis
                    .moves
                    .into_iter()
                    .map(|(cell, eval)| (cell, eval.into()))
                    .collect(),
                nodes: analysis.nodes,
            });
        }
        self.limit = self
            .budget
            .map(|budget| self.nodes().saturating_add(budget));
        let values = self.prover_values(game);
        self.limit = None;
        // Say the call's budget, not what was left of it for the search
        // that ran out.
        values.map_err(|e| {
            if e.is_over_budget() {
                ValuesError::Prove(ProveError::OverBudget {
                    nodes: self.budget.unwrap_or(u64::MAX),
                })
            } else {
                e
            }
        })
    }

    /// [`Valuer::values`]'s moves where it answers within the budget, and
    /// where it runs out, the values of the moves a second pass finds
    /// within the budget again: hints for a position whose hardest moves
    /// need a long search still give every other move's value. The second
    /// pass values each move on its own (the position's value unknown),
    /// the cheap ones first: in rounds, each move not yet valued may visit
    /// [`FIRST_SHARE`] positions, four times as many the next round, until
    /// every move has its value or the budget is spent. What earlier
    /// attempts proved stays in the searches' tables, so a move tried again
    /// goes on from there, and so does a later call with the same valuer:
    /// it may value more moves of a position than a fresh valuer. A call
    /// visits at most twice the budget in all, and a few positions more
    /// (each pass's last searches find they have run out a position or two
    /// past it).
    ///
    /// # Errors
    /// As [`Valuer::values`], except running out of budget.
    pub fn some_values(&mut self, game: &Game) -> Result<SomeValues, ValuesError> {
        self.begin();
        let start = self.nodes();
        let first = match self.values_in_call(game) {
            Ok(values) => return Ok(values.into()),
            Err(e) if e.is_over_budget() => e,
            Err(e) => return Err(e),
        };
        let (Some(budget), false) = (self.budget, Solver::answers_quickly(game)) else {
            // The solver's full analysis is whole or nothing.
            return Err(first);
        };
        let mut moves = self.replies(game);
        let end = self.nodes().saturating_add(budget);
        let mut held = None;
        let mut share = FIRST_SHARE;
        let mut failed = None;
        loop {
            let round = self.nodes();
            for reply in moves.iter_mut().filter(|m| m.valued.is_none()) {
                let now = self.nodes();
                if now >= end {
                    break;
                }
                self.limit = Some(now.saturating_add(share).min(end));
                match self.child_value(&reply.child, None, &mut held, game) {
                    Ok(value) => reply.valued = Some(valued_with_draws(game, -value)),
                    Err(e) if e.is_over_budget() => {}
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let spent = self.nodes() >= end || self.nodes() == round;
            if failed.is_some() || spent || moves.iter().all(|m| m.valued.is_some()) {
                break;
            }
            share = share.saturating_mul(4);
        }
        self.limit = None;
        if let Some(e) = failed {
            return Err(e);
        }
        let (valued, unvalued) = spread(moves);
        Ok(SomeValues {
            moves: valued,
            unvalued,
            nodes: self.nodes() - start,
        })
    }

    /// [`Valuer::values`] by the prover, whatever the board.
    fn prover_values(&mut self, game: &Game) -> Result<Values, ValuesError> {
        if let Some(value) = Value::of_finished(game) {
            return Ok(Values {
                value: Valued {
                    value,
                    plies: Some(0),
                },
                moves: Vec::new(),
                nodes: 0,
            });
        }
        if let Some(moves) = self.opening.as_ref().and_then(|table| table.moves(game)) {
            let mut moves: Vec<(Cell, Valued)> = moves
                .into_iter()
                .map(|(cell, value)| (cell, valued_with_draws(game, value)))
                .collect();
            moves.sort_by_key(|&(_, valued)| std::cmp::Reverse(valued.rank()));
            return Ok(Values {
                value: moves[0].1,
                moves,
                nodes: 0,
            });
        }
        let before = self.nodes();
        // Whether the other side can force a line even if it moved now, as
        // if the mover passed (if not, it can force one after no move
        // either): asked only when a value needs it.
        let mut held = None;
        let value = self.root_value(game, &mut held)?;
        let mut replies = self.replies(game);
        for reply in &mut replies {
            let child_value = self.child_value(&reply.child, Some(value), &mut held, game)?;
            reply.valued = Some(valued_with_draws(game, -child_value));
        }
        let (moves, _) = spread(replies);
        Ok(Values {
            value: valued_with_draws(game, value),
            moves,
            nodes: self.nodes() - before,
        })
    }

    /// The legal moves of `game`, those leading to the same position under
    /// a symmetry together (each position valued once), in the order of
    /// each one's first move.
    fn replies(&self, game: &Game) -> Vec<Reply> {
        let mut replies: Vec<Reply> = Vec::new();
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            let key = self.symmetries.as_ref().map(|s| s.key(&child));
            match replies.iter_mut().find(|r| key.is_some() && r.key == key) {
                Some(same) => same.cells.push(cell),
                None => replies.push(Reply {
                    key,
                    child,
                    cells: vec![cell],
                    valued: None,
                }),
            }
        }
        replies
    }

    /// Whether the side not to move in `game` is held: it cannot force a
    /// line even moving first. Asked once, kept in `held`.
    fn held(&mut self, game: &Game, held: &mut Option<bool>) -> Result<bool, ValuesError> {
        if let Some(held) = *held {
            return Ok(held);
        }
        let answer = !self
            .prover()?
            .maker_wins_moving(game, game.to_move().other(), true)?;
        *held = Some(answer);
        Ok(answer)
    }

    /// The value of `game` for its player to move; `held` as for
    /// [`Valuer::held`].
    fn root_value(&mut self, game: &Game, held: &mut Option<bool>) -> Result<Value, ValuesError> {
        if let Some(value) = self.stored(game) {
            return Ok(value);
        }
        let mover = game.to_move();
        let value = if self.prover()?.maker_wins(game, mover)?
            || (!self.held(game, held)? && self.prover()?.maker_wins(game, mover.other())?)
        {
            self.real(game)?
        } else {
            Value::Draw
        };
        Ok(value)
    }

    /// The value of `child` for its player to move, reached by a move from
    /// `parent` of value `value` (for the player who made it), if known;
    /// `held` as for [`Valuer::held`] of `parent`.
    fn child_value(
        &mut self,
        child: &Game,
        value: Option<Value>,
        held: &mut Option<bool>,
        parent: &Game,
    ) -> Result<Value, ValuesError> {
        if let Some(value) = Value::of_finished(child) {
            return Ok(value);
        }
        if value == Some(Value::Loss) {
            // Every move of a lost position loses.
            return Ok(Value::Win);
        }
        if let Some(value) = self.stored(child) {
            return Ok(value);
        }
        let mover = child.to_move();
        let child_value = if !self.held(parent, held)? && self.prover()?.maker_wins(child, mover)? {
            if value == Some(Value::Draw) {
                // No move of a drawn position loses for the player to move
                // next: one question, whether it forces a win, decides.
                if self.prover()?.can_force(child, mover)? {
                    Value::Win
                } else {
                    Value::Draw
                }
            } else {
                self.real(child)?
            }
        } else if value != Some(Value::Draw) && self.prover()?.maker_wins(child, mover.other())? {
            // The player to move cannot force a line even against a mere
            // blocker, so it does not win: it loses if the last mover
            // forces a line (which it cannot from a drawn position).
            if self.prover()?.can_force(child, mover.other())? {
                Value::Loss
            } else {
                Value::Draw
            }
        } else {
            Value::Draw
        };
        Ok(child_value)
    }

    /// The value of `game` from the opening table, if it holds it or a
    /// position one move before.
    fn stored(&self, game: &Game) -> Option<Value> {
        self.opening.as_ref()?.value(game)
    }

    /// The real game's value of `game`, where a side forces a line against
    /// a mere blocker: from the opening table, else the prover's real-game
    /// search.
    fn real(&mut self, game: &Game) -> Result<Value, ValuesError> {
        if let Some(value) = self.stored(game) {
            return Ok(value);
        }
        Ok(self.prover()?.value(game)?)
    }
}

/// The moves of a position leading to one position up to symmetry
/// ([`Valuer::replies`]): the position, its key (if the board has
/// symmetries), the moves, and their value once found.
struct Reply {
    key: Option<Key>,
    child: Game,
    cells: Vec<Cell>,
    valued: Option<Valued>,
}

/// The moves of `replies` with their values, best first (ties in
/// row-major order), and those without, in row-major order.
fn spread(replies: Vec<Reply>) -> (Vec<(Cell, Valued)>, Vec<Cell>) {
    let mut valued = Vec::new();
    let mut unvalued = Vec::new();
    for reply in replies {
        match reply.valued {
            Some(value) => valued.extend(reply.cells.into_iter().map(|cell| (cell, value))),
            None => unvalued.extend(reply.cells),
        }
    }
    valued.sort_by_key(|&(cell, valued)| (std::cmp::Reverse(valued.rank()), cell));
    unvalued.sort_unstable();
    (valued, unvalued)
}

/// A value for the player to move in `game` (of the position or of a move
/// made there), with its distance where it is known without a search: a
/// draw lasts until the board is full.
fn valued_with_draws(game: &Game, value: Value) -> Valued {
    let empty = game.rules().cell_count() - game.move_count();
    Valued {
        value,
        plies: (value == Value::Draw).then(|| u32::try_from(empty).expect("a small board")),
    }
}

fn prover_board(rules: Rules) -> bool {
    every_stage_boards().contains(&rules)
}

/// The opening table shipped for `rules`, if any.
#[must_use]
pub fn shipped(rules: Rules) -> Option<OpeningTable> {
    if prover_board(rules) {
        Some(OpeningTable::parse(OPENING_7X7K5).expect("the shipped table is valid"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::{Game, Player, Rules};

    use super::*;
    use crate::checksum::fnv1a as checksum;

    const TABLE: usize = 4 << 20;

    /// A game of `stones` random moves under `rules`, or fewer where it
    /// ends sooner.
    fn random_game(rules: Rules, stones: usize, rng: &mut impl rand::Rng) -> Game {
        let mut game = Game::new(rules);
        while game.move_count() < stones && !game.is_over() {
            let moves: Vec<_> = game.legal_moves().collect();
            let cell = *rand::seq::IndexedRandom::choose(&moves[..], rng).unwrap();
            game.play_unchecked(cell);
        }
        game
    }

    /// The prover's path, forced on a board the solver also answers: its
    /// values must be the solver's, and its draws' distances too.
    fn agrees_with_the_solver(game: &Game) {
        let mut valuer = Valuer::with_opening(game.rules(), TABLE, None).unwrap();
        let ours = valuer.prover_values(game).unwrap();
        let theirs = Solver::new(game.rules(), TABLE)
            .unwrap()
            .analyse(game)
            .unwrap();
        assert_eq!(ours.value.value, theirs.eval.value, "{game}");
        for &(cell, eval) in &theirs.moves {
            let valued = ours.moves.iter().find(|(c, _)| *c == cell).unwrap().1;
            assert_eq!(valued.value, eval.value, "{game} {cell}");
            if eval.value == Value::Draw {
                assert_eq!(valued.plies, Some(eval.plies), "{game} {cell}");
            }
        }
        assert_eq!(ours.moves.len(), theirs.moves.len());
    }

    #[test]
    fn the_prover_path_agrees_with_the_solver_on_small_boards() {
        let mut rng = crate::rng_from_seed(29);
        for (rows, cols, k) in [(3, 3, 3), (4, 4, 3), (4, 4, 4), (5, 5, 4)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            for _ in 0..6 {
                let stones = rand::RngExt::random_range(&mut rng, 0..rules.cell_count() / 2);
                let game = random_game(rules, stones, &mut rng);
                if !game.is_over() {
                    agrees_with_the_solver(&game);
                }
            }
        }
    }

    /// A call reports its progress through both searches, whether each
    /// was made before the callback was given or after: positions of this
    /// call only, never more than it visits in all.
    #[test]
    fn a_call_reports_its_progress_through_both_searches() {
        use std::sync::{Arc, Mutex};

        let rules = Rules::new(6, 6, 4).unwrap();
        let mut rng = crate::rng_from_seed(41);
        let mut heard_in_calls = 0;
        for _ in 0..20 {
            let game = random_game(rules, 12, &mut rng);
            if game.is_over() || Solver::answers_quickly(&game) {
                continue;
            }
            let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
            valuer.solver().unwrap().set_report_every(64);
            let heard = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&heard);
            valuer.on_progress(move |p| sink.lock().unwrap().push(p));
            valuer.prover().unwrap().set_report_every(64);
            let values = valuer.values(&game).unwrap();
            let heard = heard.lock().unwrap();
            assert!(
                heard.windows(2).all(|pair| pair[0].nodes <= pair[1].nodes),
                "{heard:?}"
            );
            if let Some(last) = heard.last() {
                assert!(last.nodes <= values.nodes, "{last:?} of {}", values.nodes);
                heard_in_calls += 1;
            }
        }
        assert!(heard_in_calls >= 3, "{heard_in_calls} calls reported");
    }

    /// A stop flag raised while a call searches ends it with an error that
    /// says so (not one of budget); lowered, the next call finishes with
    /// the values a fresh valuer gives. Raised before a call, it stops the
    /// valuer's solver and its prover at once. (A stop within the prover's
    /// own rounds of the 64-bit solver: `prover::real`'s tests.)
    #[test]
    fn a_stop_ends_a_call_in_either_search_and_later_calls_stay_exact() {
        use std::sync::atomic::Ordering;

        let rules = Rules::new(6, 6, 4).unwrap();
        let mut rng = crate::rng_from_seed(47);
        let (mut stopped, mut tried) = (0, 0);
        while tried < 8 {
            let stones = rand::RngExt::random_range(&mut rng, 6..10);
            let game = random_game(rules, stones, &mut rng);
            if game.is_over() || Solver::answers_quickly(&game) {
                continue;
            }
            tried += 1;
            let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            valuer.set_stop(Some(Arc::clone(&stop)));
            valuer.solver().unwrap().set_report_every(64);
            let raise = Arc::clone(&stop);
            valuer.on_progress(move |_| raise.store(true, Ordering::Relaxed));
            valuer.prover().unwrap().set_report_every(64);
            valuer.set_budget(Some(1_000_000));
            // A call may be done before a search's first report.
            if let Err(e) = valuer.some_values(&game) {
                assert!(e.is_stopped() && !e.is_over_budget(), "{e}: {game}");
                stopped += 1;
            }
            stop.store(false, Ordering::Relaxed);
            valuer.on_progress(|_| {});
            let after = valuer.values(&game).unwrap();
            let fresh = Valuer::with_opening(rules, TABLE, None)
                .unwrap()
                .values(&game)
                .unwrap();
            assert_eq!(after.value.value, fresh.value.value, "{game}");
            let values = |v: &Values| {
                v.moves
                    .iter()
                    .map(|&(c, v)| (c, v.value))
                    .collect::<Vec<_>>()
            };
            let (mut mine, mut theirs) = (values(&after), values(&fresh));
            mine.sort_unstable_by_key(|&(c, _)| c);
            theirs.sort_unstable_by_key(|&(c, _)| c);
            assert_eq!(mine, theirs, "{game}");
        }
        assert!(stopped >= 4, "{stopped} calls stopped");
        // Raised before a call, the flag stops each search at once, with
        // its own error.
        let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
        valuer.set_stop(Some(Arc::new(AtomicBool::new(true))));
        let game = Game::new(rules);
        assert_eq!(
            valuer.solver().unwrap().value_by_search(&game),
            Err(SolveError::Stopped)
        );
        assert_eq!(
            valuer.prover().unwrap().value(&game),
            Err(ProveError::Stopped)
        );
    }

    /// Where [`Valuer::values`] runs out of budget, [`Valuer::some_values`]
    /// values some moves and names the others: every legal move once, each
    /// value the solver's; with budget enough, it is [`Valuer::values`].
    #[test]
    fn some_values_are_the_solvers_and_name_the_moves_left() {
        let rules = Rules::new(6, 6, 4).unwrap();
        let mut rng = crate::rng_from_seed(41);
        let (mut partial, mut tried) = (0, 0);
        while tried < 12 {
            let stones = rand::RngExt::random_range(&mut rng, 10..16);
            let game = random_game(rules, stones, &mut rng);
            if game.is_over() || Solver::answers_quickly(&game) {
                continue;
            }
            tried += 1;
            let theirs = Solver::new(rules, TABLE).unwrap().analyse(&game).unwrap();
            let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
            valuer.set_budget(Some(300));
            let some = valuer.some_values(&game).unwrap();
            let mut named: Vec<Cell> = some.moves.iter().map(|&(cell, _)| cell).collect();
            named.extend(&some.unvalued);
            named.sort_unstable();
            assert_eq!(named, game.legal_moves().collect::<Vec<_>>(), "{game}");
            // Twice the budget, and the position or two each pass's last
            // searches visit past it to find it has run out.
            assert!(some.nodes <= 604, "{} positions for {game}", some.nodes);
            for &(cell, valued) in &some.moves {
                let eval = theirs.moves.iter().find(|(c, _)| *c == cell).unwrap().1;
                assert_eq!(valued.value, eval.value, "{game} {cell}");
            }
            assert!(
                some.moves
                    .windows(2)
                    .all(|pair| pair[0].1.rank() >= pair[1].1.rank()),
                "best first: {game}"
            );
            if !some.is_complete() {
                assert!(
                    Valuer::with_opening(rules, TABLE, None)
                        .map(|mut v| {
                            v.set_budget(Some(300));
                            v.values(&game).unwrap_err().is_over_budget()
                        })
                        .unwrap(),
                    "{game}"
                );
                if !some.moves.is_empty() {
                    partial += 1;
                }
            }
            // Without a budget every move has its value, the solver's.
            let mut whole = Valuer::with_opening(rules, TABLE, None).unwrap();
            let all = whole.some_values(&game).unwrap();
            assert!(all.is_complete() && all.moves.len() == theirs.moves.len());
            for &(cell, valued) in &all.moves {
                let eval = theirs.moves.iter().find(|(c, _)| *c == cell).unwrap().1;
                assert_eq!(valued.value, eval.value, "{game} {cell}");
            }
        }
        assert!(partial >= 2, "{partial} positions valued in part");
    }

    /// The value of a move found without the position's value (as the
    /// second pass of [`Valuer::some_values`] finds each) is the solver's,
    /// for every move of random positions, wins, draws and losses alike.
    #[test]
    fn a_moves_value_without_the_positions_is_the_solvers() {
        let mut rng = crate::rng_from_seed(43);
        let mut seen = [0usize; 3];
        for (rows, cols, k) in [(4, 4, 3), (5, 4, 3), (5, 5, 4), (6, 6, 4)] {
            let rules = Rules::new(rows, cols, k).unwrap();
            let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
            let mut solver = Solver::new(rules, TABLE).unwrap();
            for _ in 0..12 {
                let stones = rand::RngExt::random_range(&mut rng, 1..rules.cell_count() / 2);
                let game = random_game(rules, stones, &mut rng);
                if game.is_over() || (rules.cell_count() > 25 && game.move_count() < 10) {
                    continue;
                }
                let theirs = solver.analyse(&game).unwrap();
                let mut held = None;
                for (cell, eval) in theirs.moves {
                    let mut child = game.clone();
                    child.play_unchecked(cell);
                    let ours = -valuer.child_value(&child, None, &mut held, &game).unwrap();
                    assert_eq!(ours, eval.value, "{game} {cell}");
                    seen[usize::try_from(eval.value.sign() + 1).unwrap()] += 1;
                }
            }
        }
        assert!(
            seen.iter().all(|&n| n >= 20),
            "losses, draws, wins: {seen:?}"
        );
    }

    #[test]
    fn late_seven_by_seven_k5_agrees_with_the_solver() {
        let game =
            Game::from_notation("XX.O.OO/.X.XO../O...XO./.O.XOX./.OO...X/OO..X.X/O.X.X.X", 5)
                .unwrap();
        assert!(game.move_count() >= 20);
        agrees_with_the_solver(&game);
    }

    #[test]
    fn the_shipped_table_is_versioned_and_holds_solved_values() {
        assert_eq!(&OPENING_7X7K5[..4], b"OXOV");
        assert_eq!(OPENING_7X7K5[4], FORMAT_VERSION);
        assert_eq!(&OPENING_7X7K5[5..8], &[7, 7, 5]);
        let rules = Rules::new(7, 7, 5).unwrap();
        let table = shipped(rules).unwrap();
        // The empty board, X's first moves and every reply to them, the
        // listed positions after three moves, and those of played games.
        let listed = read_list(OPENING_7X7K5_FORCED, rules).unwrap();
        assert!(listed.iter().all(|game| game.move_count() == 3));
        let played = read_list(OPENING_7X7K5_PLAYED, rules).unwrap();
        assert!(
            played
                .iter()
                .all(|game| (4..=8).contains(&game.move_count()))
        );
        assert_eq!(table.len(), 1 + 10 + 315 + listed.len() + played.len());
        assert!(
            listed
                .iter()
                .chain(&played)
                .all(|game| table.moves(game).is_some())
        );
        // A few moves of the first two, valued again without it (the
        // listed positions take minutes each).
        let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
        let early: Vec<_> = table
            .positions()
            .filter(|(game, _)| game.move_count() <= 2)
            .collect();
        for (game, moves) in early.iter().step_by(early.len().div_ceil(4)) {
            for &(cell, value) in moves.iter().step_by(16) {
                let mut child = game.clone();
                child.play_unchecked(cell);
                let mut held = None;
                assert_eq!(
                    -valuer.root_value(&child, &mut held).unwrap(),
                    value,
                    "{game} {cell}"
                );
                // The table answers the later position too.
                assert_eq!(table.value(&child), Some(-value), "{game} {cell}");
            }
        }
        // Each listed position's value, its best move's, is the value of
        // the move to it from each position before it. (All 831 are draws,
        // so this shows that no move wins and not every move loses; each
        // move's own value is checked by the build, and some by the test
        // below.)
        for game in &listed {
            let own = table.moves(game).unwrap();
            let best = own.iter().map(|(_, v)| *v).max_by_key(|v| v.sign());
            let stones = |player| -> Vec<Cell> {
                (0..7)
                    .flat_map(|r| (0..7).map(move |c| Cell::new(r, c)))
                    .filter(|&cell| game.get(cell) == Some(player))
                    .collect()
            };
            let (xs, os) = (stones(Player::X), stones(Player::O));
            for (i, &last) in xs.iter().enumerate() {
                let mut before = Game::new(rules);
                before.play_unchecked(xs[1 - i]);
                before.play_unchecked(os[0]);
                let into = table.moves(&before).unwrap();
                let into = into.iter().find(|(c, _)| *c == last).unwrap().1;
                assert_eq!(best, Some(-into), "{game}");
            }
        }
    }

    /// The moves of the listed positions that the hints' search values
    /// within the hints' budget (without the table) have the table's
    /// values: every 24th position, 35 of them, 485 of their 1,610 moves (the
    /// others take minutes each and are checked when the table is built).
    #[test]
    fn the_listed_moves_valued_within_the_hints_budget_are_the_tables() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let table = shipped(rules).unwrap();
        let listed = read_list(OPENING_7X7K5_FORCED, rules).unwrap();
        let mut valuer = Valuer::with_opening(rules, TABLE, None).unwrap();
        valuer.set_budget(Some(crate::hints::HINT_BUDGET));
        let (mut checked, mut moves) = (0, 0);
        for game in listed.iter().step_by(24) {
            let own = table.moves(game).unwrap();
            let some = valuer
                .some_values(game)
                .unwrap_or_else(|e| panic!("{game}: {e}"));
            for (cell, valued) in &some.moves {
                let held = own.iter().find(|(c, _)| c == cell).unwrap().1;
                assert_eq!(valued.value, held, "{game} {cell}");
            }
            checked += some.moves.len();
            moves += own.len();
        }
        // 485 of 1,610: the budget is counted in positions, so this does
        // not depend on the machine's speed.
        assert!(checked >= 200 && moves == 1610, "{checked} of {moves}");
    }

    #[test]
    fn the_table_answers_every_orientation_and_the_next_move() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let table = shipped(rules).unwrap();
        let mut valuer = Valuer::new(rules, TABLE).unwrap();
        // X at the edge, O next to it, then the same position mirrored
        // and turned: the same values, cell for mirrored cell.
        let game =
            Game::from_notation(".X...../.O...../......./......./......./......./.......", 5)
                .unwrap();
        let turned =
            Game::from_notation("......./......./......./......./......./.....O./.....X.", 5)
                .unwrap();
        let ours = valuer.values(&game).unwrap();
        assert_eq!(ours.nodes, 0, "answered from the table");
        let theirs = valuer.values(&turned).unwrap();
        let value_at =
            |values: &Values, cell: Cell| values.moves.iter().find(|(c, _)| *c == cell).unwrap().1;
        for &(cell, valued) in &ours.moves {
            // Rotated half a turn: (r, c) to (6 - r, 6 - c).
            let image = Cell::new(6 - cell.row, 6 - cell.col);
            assert_eq!(value_at(&theirs, image), valued, "{cell}");
        }
        assert_eq!(ours.value, theirs.value);
        assert_eq!(ours.value, ours.moves[0].1);
        // The position after one more move is valued from this entry.
        for &(cell, valued) in &ours.moves {
            let mut child = game.clone();
            child.play_unchecked(cell);
            assert_eq!(table.value(&child), Some(-valued.value), "{cell}");
        }
    }

    #[test]
    fn the_empty_seven_by_seven_k5_board_is_a_draw_whatever_the_first_move() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let values = Valuer::new(rules, TABLE)
            .unwrap()
            .values(&Game::new(rules))
            .unwrap();
        assert_eq!(
            values.value,
            Valued {
                value: Value::Draw,
                plies: Some(49)
            }
        );
        assert_eq!(values.moves.len(), 49);
        assert!(values.moves.iter().all(|(_, v)| *v
            == Valued {
                value: Value::Draw,
                plies: Some(49)
            }));
    }

    #[test]
    fn bad_tables_are_refused() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let mut game = Game::new(rules);
        game.play_unchecked(Cell::new(3, 3));
        let moves: Vec<(Cell, Value)> = game.legal_moves().map(|c| (c, Value::Draw)).collect();
        let good = OpeningTable::to_bytes(rules, &[(game, moves)]);
        assert_eq!(good.len(), 12 + 16 + 13 + 8);
        assert!(OpeningTable::parse(&good).is_ok());
        assert_eq!(
            OpeningTable::parse(b"PNG").unwrap_err(),
            TableError::Foreign
        );
        let mut version = good.clone();
        version[4] = 9;
        assert_eq!(
            OpeningTable::parse(&version).unwrap_err(),
            TableError::Version(9)
        );
        assert_eq!(
            OpeningTable::parse(&good[..good.len() - 1]).unwrap_err(),
            TableError::Length
        );
        // Any byte of the body changed: the checksum says so.
        for at in 12..good.len() {
            let mut damaged = good.clone();
            damaged[at] ^= 0x10;
            assert_eq!(
                OpeningTable::parse(&damaged).unwrap_err(),
                TableError::Checksum,
                "byte {at}"
            );
        }
        // A consistent checksum over entries no game reaches.
        let resum = |mut bytes: Vec<u8>| {
            let n = bytes.len() - 8;
            let sum = checksum(&bytes[..n]);
            bytes[n..].copy_from_slice(&sum.to_le_bytes());
            bytes
        };
        let mut value = good.clone();
        value[12 + 16] |= 3; // a move at a cell the table says is empty: none
        assert_eq!(
            OpeningTable::parse(&resum(value)).unwrap_err(),
            TableError::Entry(0)
        );
        let mut overlap = good.clone();
        overlap[12 + 3] = 1; // the mover's stone on the other side's
        assert_eq!(
            OpeningTable::parse(&resum(overlap)).unwrap_err(),
            TableError::Entry(0)
        );
        assert!(OpeningTable::parse(&resum(good)).is_ok());
    }

    #[test]
    fn a_position_list_is_read_or_refused_at_its_line() {
        let rules = Rules::new(3, 3, 3).unwrap();
        let text = "# a comment\n\n  X../.O./...  \nXO./.../...\n";
        let games = read_list(text, rules).unwrap();
        let boards: Vec<String> = games.iter().map(Game::to_string).collect();
        assert_eq!(boards, ["X../.O./...", "XO./.../..."]);
        // Another board's position, and a line that is no position.
        for (bad, line) in [("X..../...../.....", 2), ("X../.O./.!.", 2)] {
            let err = read_list(&format!("X../.../...\n{bad}\n"), rules).unwrap_err();
            assert_eq!((err.line, err.text.as_str()), (line, bad));
            assert!(
                err.to_string()
                    .starts_with(&format!("line {line}: not a position of 3x3 k=3: {bad} (")),
                "{err}"
            );
        }
    }
}
