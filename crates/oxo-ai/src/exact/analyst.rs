//! The best exact answer oxo has for a position, whichever search gives it:
//! what `oxo solve` answers with, one board at a time.
//!
//! - The value alone: from the shipped opening table where it holds the
//!   position, else the 64-bit solver, and on boards beyond the solver the
//!   proof search.
//! - Every move's value and distance: the solver's full analysis, except on
//!   the boards whose moves are valued at every stage ([`every_stage_boards`],
//!   7×7 k=5) while the solver is slow there, where the [`Valuer`] gives
//!   every move's value without distances.
//! - A certificate of the value: from the prover's Maker–Breaker proof of a
//!   draw where it has one, else from the solver's search, and beyond the
//!   solver from the prover that valued the position.

use std::sync::{Arc, Mutex, PoisonError};

use oxo_core::Game;
use oxo_core::Rules;
use oxo_core::proof::Certificate;

use super::{OpeningTable, Valuer, Values, ValuesError, every_stage_boards, shipped};
use crate::prover::{self, ProveError, Prover};
use crate::solver::{self, Analysis, SolveError, Solver};
use crate::value::Value;

/// What an [`Analyst`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The position's value alone, and the positions searched for it (none
    /// when the opening table held it).
    Value {
        /// The value, for the player to move.
        value: Value,
        /// Positions searched.
        nodes: u64,
    },
    /// Every move's value, without distances ([`Valuer::values`]).
    Values(Values),
    /// Every move's value and distance ([`Solver::analyse`]).
    Analysis(Analysis),
}

/// A search under way, as an [`Analyst`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searching {
    /// The solver.
    Solving(solver::Progress),
    /// The proof search, on a board beyond the solver's.
    Proving(prover::Progress),
    /// The valuer, valuing every move.
    Valuing(super::Progress),
}

/// Why no certificate could be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertifyError {
    /// It would hold more than [`crate::MAX_PROOF_NODES`] positions.
    #[error(
        "the proof would hold more than {} positions: too large to write",
        crate::MAX_PROOF_NODES
    )]
    TooLarge,
    /// A draw beyond the solver's boards that the defender's own threats
    /// hold: the prover's certificates of draws are Breaker proofs.
    #[error(
        "no certificate written: on boards beyond the 64-bit solver's ({0}), certificates prove \
         wins and only those draws that blocking alone holds"
    )]
    NoBreakerProof(Rules),
    /// The game was played under other rules than the analyst's.
    #[error("this analyst is for {expected} games, not {found}")]
    WrongRules {
        /// The analyst's rules.
        expected: Rules,
        /// The game's rules.
        found: Rules,
    },
    /// The solver failed.
    #[error(transparent)]
    Solve(SolveError),
    /// The prover failed.
    #[error(transparent)]
    Prove(ProveError),
}

/// The engine behind an [`Analyst`].
enum Engine {
    /// The solver, and (made on first use, on the boards valued at every
    /// stage) the valuer.
    Solver(Box<Solver>, Option<Box<Valuer>>),
    /// The proof search, for values on boards beyond the solver.
    Prover(Box<Prover>),
}

/// A progress callback the engines share, made before the valuer is.
type Report = Arc<Mutex<Box<dyn FnMut(Searching) + Send>>>;

/// A callback for one engine that hands what it reports, as `kind` names
/// it, to the shared `report`.
fn relay<P: 'static>(report: &Report, kind: fn(P) -> Searching) -> impl FnMut(P) + Send + 'static {
    let report = Arc::clone(report);
    move |progress| (report.lock().unwrap_or_else(PoisonError::into_inner))(kind(progress))
}

/// The exact answers oxo can give on one board, each search made once and
/// kept warm for the positions after.
pub struct Analyst {
    engine: Engine,
    value_only: bool,
    table_bytes: usize,
    budget: Option<u64>,
    /// The board's opening table, read on first use (`None` inside: the
    /// board ships none).
    opening: Option<Option<OpeningTable>>,
    report: Option<Report>,
}

impl std::fmt::Debug for Analyst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyst")
            .field("rules", &self.rules())
            .field("value_only", &self.value_only)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Analyst {
    /// An analyst of `rules`' positions with tables of `table_bytes`, each
    /// search within `budget` positions (no limit for `None`): for their
    /// values alone when `value_only`, else for every move's.
    ///
    /// # Errors
    /// A board no search here takes ([`ValuesError::Solve`] or, for values
    /// beyond the solver, [`ValuesError::Prove`]).
    pub fn new(
        rules: Rules,
        table_bytes: usize,
        budget: Option<u64>,
        value_only: bool,
    ) -> Result<Analyst, ValuesError> {
        let engine = if value_only && !Solver::can_solve(rules) {
            let mut prover = Prover::new(rules, table_bytes)?;
            prover.set_budget(budget);
            Engine::Prover(Box::new(prover))
        } else {
            let mut solver = Solver::new(rules, table_bytes)?;
            solver.set_budget(budget);
            Engine::Solver(Box::new(solver), None)
        };
        Ok(Analyst {
            engine,
            value_only,
            table_bytes,
            budget,
            opening: None,
            report: None,
        })
    }

    /// The board.
    #[must_use]
    pub fn rules(&self) -> Rules {
        match &self.engine {
            Engine::Solver(solver, _) => solver.rules(),
            Engine::Prover(prover) => prover.rules(),
        }
    }

    /// Report each search's progress to `report` as it runs.
    pub fn on_progress(&mut self, report: impl FnMut(Searching) + Send + 'static) {
        let report: Report = Arc::new(Mutex::new(Box::new(report)));
        match &mut self.engine {
            Engine::Solver(solver, valuer) => {
                solver.on_progress(relay(&report, Searching::Solving));
                if let Some(valuer) = valuer {
                    valuer.on_progress(relay(&report, Searching::Valuing));
                }
            }
            Engine::Prover(prover) => prover.on_progress(relay(&report, Searching::Proving)),
        }
        self.report = Some(report);
    }

    /// Read or make what answering `game` needs and is kept for the games
    /// after (the opening table, the valuer), so that a caller timing
    /// [`Analyst::answer`] times the search alone; `answer` does it too.
    ///
    /// # Errors
    /// A game of other rules; the valuer could not be made.
    pub fn prepare(&mut self, game: &Game) -> Result<(), ValuesError> {
        let rules = self.rules();
        if game.rules() != rules {
            return Err(ValuesError::WrongRules {
                expected: rules,
                found: game.rules(),
            });
        }
        match &mut self.engine {
            Engine::Solver(..) if self.value_only => {
                self.opening.get_or_insert_with(|| shipped(rules));
            }
            Engine::Solver(_, valuer @ None)
                if every_stage_boards().contains(&rules) && !Solver::answers_quickly(game) =>
            {
                let mut made = Valuer::new(rules, self.table_bytes)?;
                made.set_budget(self.budget);
                if let Some(report) = &self.report {
                    made.on_progress(relay(report, Searching::Valuing));
                }
                *valuer = Some(Box::new(made));
            }
            _ => {}
        }
        Ok(())
    }

    /// `game`'s value, or every move's, as [`Analyst::new`] was asked.
    ///
    /// # Errors
    /// A search failed or ran out of the budget
    /// ([`ValuesError::is_over_budget`]); a game of other rules.
    pub fn answer(&mut self, game: &Game) -> Result<Answer, ValuesError> {
        self.prepare(game)?;
        let rules = self.rules();
        match &mut self.engine {
            Engine::Solver(solver, _) if self.value_only => {
                let table = self.opening.as_ref().and_then(Option::as_ref);
                if let Some(value) = table.and_then(|t| t.value(game)) {
                    return Ok(Answer::Value { value, nodes: 0 });
                }
                let before = solver.nodes();
                let value = solver.value(game)?;
                Ok(Answer::Value {
                    value,
                    nodes: solver.nodes() - before,
                })
            }
            // 7×7 k=5 before the solver's full analysis is quick: every
            // move's value from the prover and the shipped opening table.
            Engine::Solver(_, Some(valuer))
                if every_stage_boards().contains(&rules) && !Solver::answers_quickly(game) =>
            {
                Ok(Answer::Values(valuer.values(game)?))
            }
            Engine::Solver(solver, _) => Ok(Answer::Analysis(solver.analyse(game)?)),
            Engine::Prover(prover) => {
                let before = prover.nodes();
                let value = prover.value(game)?;
                Ok(Answer::Value {
                    value,
                    nodes: prover.nodes() - before,
                })
            }
        }
    }

    /// A certificate of `game`'s value, with no budget on its search (the
    /// certificate's own size limit holds): from the prover's Breaker
    /// proofs where it proves a draw that way, else from the solver; on a
    /// board beyond the solver, from the prover that valued `game` (its
    /// table still holds the proof).
    ///
    /// # Errors
    /// [`CertifyError::WrongRules`]; [`CertifyError::TooLarge`];
    /// [`CertifyError::NoBreakerProof`]; a search failed.
    pub fn certificate(&mut self, game: &Game) -> Result<Certificate, CertifyError> {
        let rules = self.rules();
        if game.rules() != rules {
            return Err(CertifyError::WrongRules {
                expected: rules,
                found: game.rules(),
            });
        }
        let budget = self.budget;
        let certificate = self.certify(game, rules);
        // The answers after keep the budget they were promised.
        match &mut self.engine {
            Engine::Solver(solver, _) => solver.set_budget(budget),
            Engine::Prover(prover) => prover.set_budget(budget),
        }
        certificate
    }

    fn certify(&mut self, game: &Game, rules: Rules) -> Result<Certificate, CertifyError> {
        let too_large = |e: &ProveError| {
            matches!(
                e,
                ProveError::OverBudget { .. } | ProveError::ProofTooLarge { .. }
            )
        };
        match &mut self.engine {
            Engine::Solver(solver, _) => {
                solver.set_budget(None);
                if Prover::can_prove(rules) {
                    let mut prover =
                        Prover::new(rules, self.table_bytes).map_err(CertifyError::Prove)?;
                    match prover.certify_draw(game) {
                        Ok(Some(certificate)) => return Ok(certificate),
                        Ok(None) => {}
                        Err(e) if too_large(&e) => return Err(CertifyError::TooLarge),
                        Err(e) => return Err(CertifyError::Prove(e)),
                    }
                }
                crate::certify(solver, game).map_err(|e| match e {
                    SolveError::OverBudget { .. } => CertifyError::TooLarge,
                    e => CertifyError::Solve(e),
                })
            }
            Engine::Prover(prover) => {
                prover.set_budget(None);
                match prover.certify(game) {
                    Ok(Some(certificate)) => Ok(certificate),
                    Ok(None) => Err(CertifyError::NoBreakerProof(rules)),
                    Err(e) if too_large(&e) => Err(CertifyError::TooLarge),
                    Err(e) => Err(CertifyError::Prove(e)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn each_question_goes_to_the_search_that_answers_it() {
        // Beyond the solver's 64 bits, the value comes from the prover.
        let wide = Rules::new(9, 9, 9).expect("9x9 k=9");
        let mut analyst = Analyst::new(wide, 4 * MIB, None, true).expect("an analyst");
        assert!(matches!(
            analyst.answer(&Game::new(wide)),
            Ok(Answer::Value {
                value: Value::Draw,
                ..
            })
        ));
        // 7x7 k=5 early: every move's value, from the valuer.
        let seven = Rules::new(7, 7, 5).expect("7x7 k=5");
        let mut analyst = Analyst::new(seven, 4 * MIB, None, false).expect("an analyst");
        let centre =
            Game::from_notation("......./......./......./...X.../......./......./.......", 5)
                .expect("a position");
        match analyst.answer(&centre) {
            Ok(Answer::Values(values)) => assert_eq!(values.moves.len(), 48),
            other => panic!("{other:?}"),
        }
        // A small board: the full analysis, and a game of another board
        // refused by both questions.
        let mut analyst = Analyst::new(Rules::TIC_TAC_TOE, MIB, None, false).expect("an analyst");
        assert!(matches!(
            analyst.answer(&Game::new(Rules::TIC_TAC_TOE)),
            Ok(Answer::Analysis(_))
        ));
        let other = Game::new(Rules::new(4, 4, 3).expect("4x4 k=3"));
        assert!(matches!(
            analyst.answer(&other),
            Err(ValuesError::WrongRules { .. })
        ));
        assert!(matches!(
            analyst.certificate(&other),
            Err(CertifyError::WrongRules { .. })
        ));
    }

    #[test]
    fn a_certificate_leaves_the_budget_as_it_was() {
        let rules = Rules::new(5, 4, 4).expect("5x4 k=4");
        let empty = Game::new(rules);
        let mut analyst = Analyst::new(rules, MIB, Some(5), true).expect("an analyst");
        let over =
            |analyst: &mut Analyst| matches!(analyst.answer(&empty), Err(e) if e.is_over_budget());
        assert!(
            over(&mut analyst),
            "the empty 5x4 board takes more than 5 positions"
        );
        // A certificate is searched without the budget...
        let won = Game::from_notation("XXX./OOO./..../..../....", 4).expect("a position");
        let certificate = analyst.certificate(&won).expect("a certificate");
        assert_eq!(
            certificate.verify().expect("a valid certificate").claim,
            oxo_core::proof::Claim::Win(oxo_core::Player::X)
        );
        // ...and the answers after keep it.
        assert!(
            over(&mut analyst),
            "the budget holds again after the certificate"
        );
    }
}
