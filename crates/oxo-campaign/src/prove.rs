//! The seam between a campaign and the search that answers its jobs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use oxo_ai::{ProveError, Prover, SolveError, Solver};
use oxo_core::{Game, Player, Rules};

use crate::plan::{Answer, Verdict};

/// What a prover is given: its share of the memory, a budget a job, and a
/// counter of positions visited that it keeps current while it searches
/// (read by the progress line).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes for the prover's tables.
    pub table_bytes: usize,
    /// Positions one job may visit before it is split deeper (`None`: no
    /// limit).
    pub budget: Option<u64>,
    /// Positions visited by this prover since it was made.
    pub nodes: Arc<AtomicU64>,
}

/// Why a prover could not be made or could not search a position: the
/// search's own error.
pub type ProveFailure = Box<dyn std::error::Error + Send + Sync>;

/// A search that answers one-sided questions: can `attacker` force k in a
/// row from this position?
pub trait Prove: Send {
    /// The answer for `game`, or [`Answer::OverBudget`].
    ///
    /// # Errors
    /// The position is not one this prover can search.
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, ProveFailure>;
}

/// Makes one prover a worker thread, for the board given.
pub type MakeProver = dyn Fn(Rules, Limits) -> Result<Box<dyn Prove>, ProveFailure> + Send + Sync;

/// The exact solver ([`oxo_ai::Solver`], boards of up to 64 bits) as a
/// prover, through [`Solver::can_force`]: the one question of the two its
/// value search asks.
pub struct SolverProver {
    solver: Solver,
    nodes: Arc<AtomicU64>,
}

impl std::fmt::Debug for SolverProver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverProver")
            .field("solver", &self.solver)
            .finish_non_exhaustive()
    }
}

impl SolverProver {
    /// A solver for `rules` within `limits`.
    ///
    /// # Errors
    /// The board does not fit the solver, or its table cannot be allocated.
    pub fn new(rules: Rules, limits: Limits) -> Result<SolverProver, SolveError> {
        let mut solver = Solver::new(rules, limits.table_bytes)?;
        solver.set_budget(limits.budget);
        // The solver's reports count positions since it was made.
        let counter = Arc::clone(&limits.nodes);
        solver.on_progress(move |p| counter.store(p.nodes, Ordering::Relaxed));
        Ok(SolverProver {
            solver,
            nodes: limits.nodes,
        })
    }

    /// [`SolverProver::new`], boxed: a [`MakeProver`].
    ///
    /// # Errors
    /// As [`SolverProver::new`].
    pub fn boxed(rules: Rules, limits: Limits) -> Result<Box<dyn Prove>, ProveFailure> {
        Ok(Box::new(SolverProver::new(rules, limits)?))
    }
}

impl Prove for SolverProver {
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, ProveFailure> {
        let wins = self.solver.can_force(game, attacker);
        self.nodes.store(self.solver.nodes(), Ordering::Relaxed);
        match wins {
            Ok(true) => Ok(Answer::Verdict(Verdict::Proven)),
            Ok(false) => Ok(Answer::Verdict(Verdict::Disproven)),
            Err(SolveError::OverBudget { .. }) => Ok(Answer::OverBudget),
            Err(e) => Err(e.into()),
        }
    }
}

/// The proof search ([`oxo_ai::Prover`], boards of up to 128 cells) as a
/// prover, through [`Prover::can_force`] (the real game's question). A job
/// over its budget is split deeper: its children are smaller questions,
/// and a finished game settles any of them.
pub struct SearchProver {
    prover: Prover,
    nodes: Arc<AtomicU64>,
}

impl std::fmt::Debug for SearchProver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchProver")
            .field("rules", &self.prover.rules())
            .finish_non_exhaustive()
    }
}

impl SearchProver {
    /// A proof search for `rules` within `limits`. On boards the 64-bit
    /// solver takes, the search makes one for the real game's wins, with
    /// a table as large as its own: each gets half of `limits`.
    ///
    /// # Errors
    /// The board does not fit the search, or its table cannot be allocated.
    pub fn new(rules: Rules, limits: Limits) -> Result<SearchProver, ProveError> {
        let bytes = if Solver::can_solve(rules) {
            limits.table_bytes / 2
        } else {
            limits.table_bytes
        };
        let mut prover = Prover::new(rules, bytes)?;
        prover.set_budget(limits.budget);
        let counter = Arc::clone(&limits.nodes);
        prover.on_progress(move |p| counter.store(p.nodes, Ordering::Relaxed));
        Ok(SearchProver {
            prover,
            nodes: limits.nodes,
        })
    }

    /// [`SearchProver::new`], boxed: a [`MakeProver`].
    ///
    /// # Errors
    /// As [`SearchProver::new`].
    pub fn boxed(rules: Rules, limits: Limits) -> Result<Box<dyn Prove>, ProveFailure> {
        Ok(Box::new(SearchProver::new(rules, limits)?))
    }
}

impl Prove for SearchProver {
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, ProveFailure> {
        let wins = self.prover.can_force(game, attacker);
        self.nodes.store(self.prover.nodes(), Ordering::Relaxed);
        match wins {
            Ok(true) => Ok(Answer::Verdict(Verdict::Proven)),
            Ok(false) => Ok(Answer::Verdict(Verdict::Disproven)),
            Err(ProveError::OverBudget { .. }) => Ok(Answer::OverBudget),
            Err(e) => Err(e.into()),
        }
    }
}
