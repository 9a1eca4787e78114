//! The seam between a campaign and the search that answers its jobs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use oxo_ai::{SolveError, Solver, Value};
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

/// A search that answers one-sided questions: can `attacker` force k in a
/// row from this position?
pub trait Prove: Send {
    /// The answer for `game`, or [`Answer::OverBudget`].
    ///
    /// # Errors
    /// The position is not one this prover can search.
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, SolveError>;
}

/// Makes one prover a worker thread, for the board given.
pub type MakeProver = dyn Fn(Rules, Limits) -> Result<Box<dyn Prove>, SolveError> + Send + Sync;

/// The exact solver ([`oxo_ai::Solver`], boards of up to 64 bits) as a
/// prover: it values the position (win, draw or loss) and reads the
/// question's answer from the value.
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
    pub fn boxed(rules: Rules, limits: Limits) -> Result<Box<dyn Prove>, SolveError> {
        Ok(Box::new(SolverProver::new(rules, limits)?))
    }
}

impl Prove for SolverProver {
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, SolveError> {
        let value = self.solver.value(game);
        self.nodes.store(self.solver.nodes(), Ordering::Relaxed);
        let value = match value {
            Ok(value) => value,
            Err(SolveError::OverBudget { .. }) => return Ok(Answer::OverBudget),
            Err(e) => return Err(e),
        };
        let wins = if game.to_move() == attacker {
            Value::Win
        } else {
            Value::Loss
        };
        Ok(Answer::Verdict(if value == wins {
            Verdict::Proven
        } else {
            Verdict::Disproven
        }))
    }
}
