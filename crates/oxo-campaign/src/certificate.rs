//! A certificate ([`oxo_core::proof`]) of a split proof: the top of the
//! split tree written as certificate nodes above a certificate of each job.
//!
//! The plan's tree is walked from the root along the answers that settled
//! it: where the tree's prover moves, the move of a child that reached the
//! node's answer; where the other side moves, every legal move, each with
//! the child that stands for it up to the board's symmetries. A job's
//! certificate, written for the job's own position, is copied in under the
//! symmetry that takes that position to the one reached, since the format
//! has no node for "this position up to symmetry". The claim and its trees
//! follow the plan's value: a win for P is P's tree from the question "can
//! P win?"; a draw is both sides' "does not lose" trees, each from the
//! other side's question.

use std::collections::HashMap;

use oxo_ai::Value;
use oxo_core::proof::{
    Certificate, CertificateBuilder, Claim, Goal, Node, Tree, symmetric_source, symmetry_cell,
};
use oxo_core::{Game, Outcome, Player};

use crate::plan::{Plan, image, map_cell, symmetries};

/// Why a split proof's certificate cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum AssembleError {
    /// The plan has no value yet.
    #[error("the proof is not finished")]
    Unfinished,
    /// A job's certificate could not be had.
    #[error("the job at {position}: {reason}")]
    Job {
        /// The job's position.
        position: String,
        /// Why.
        reason: String,
    },
    /// A job's certificate has no tree for the side that holds there.
    #[error("the certificate of the job at {position} has no tree for {prover}")]
    NoTree {
        /// The job's position.
        position: String,
        /// The side whose tree was wanted.
        prover: Player,
    },
    /// The plan does not cover a move it should (a damaged plan).
    #[error("the plan answers no move to {0}")]
    Uncovered(String),
}

/// The certificate of `plan`'s value, with each job's certificate from
/// `job`, given the job's position (as the plan holds it) and the tree
/// wanted there: its prover and goal. The certificate `job` gives may
/// hold other trees too; only that one is copied.
///
/// # Errors
/// The plan is unfinished, a job's certificate could not be had or lacks
/// the tree needed, or the plan does not cover a move.
pub fn assemble<E: std::fmt::Display>(
    plan: &Plan,
    mut job: impl FnMut(&Game, Player, Goal) -> Result<Certificate, E>,
) -> Result<Certificate, AssembleError> {
    let game = plan.game();
    let value = plan.value().ok_or(AssembleError::Unfinished)?;
    let mover = game.to_move();
    let [mine, theirs] = plan.roots();
    let mut top = Top {
        plan,
        builder: CertificateBuilder::new(),
        job: &mut job,
    };
    let (claim, trees) = match value {
        Value::Win => (Claim::Win(mover), vec![(mover, Goal::Win, mine)]),
        Value::Loss => (
            Claim::Win(mover.other()),
            vec![(mover.other(), Goal::Win, theirs)],
        ),
        // Each side holds the draw against the other's question.
        Value::Draw => (
            Claim::Draw,
            vec![
                (mover.other(), Goal::Draw, mine),
                (mover, Goal::Draw, theirs),
            ],
        ),
    };
    let mut roots = Vec::new();
    for (prover, goal, root) in trees {
        let node = top.node(root, &game, prover, goal)?;
        roots.push(Tree {
            prover,
            goal,
            root: node,
        });
    }
    Ok(top.builder.finish(&game, claim, roots))
}

struct Top<'a, F> {
    plan: &'a Plan,
    builder: CertificateBuilder,
    job: &'a mut F,
}

/// The symmetry taking `from` to `to`, if they are images of each other.
fn symmetry(from: &Game, to: &Game) -> Option<u8> {
    let target = image(to, 0);
    (0..symmetries(from.rules())).find(|&t| image(from, t) == target)
}

fn played(game: &Game, cell: usize) -> Game {
    let mut next = game.clone();
    next.play_unchecked(game.rules().cell_at(cell));
    next
}

impl<F, E> Top<'_, F>
where
    F: FnMut(&Game, Player, Goal) -> Result<Certificate, E>,
    E: std::fmt::Display,
{
    /// The certificate node for plan node `id`, reached at `real` (the
    /// node's position or an image of it), in `prover`'s tree.
    fn node(
        &mut self,
        id: u32,
        real: &Game,
        prover: Player,
        goal: Goal,
    ) -> Result<usize, AssembleError> {
        let (stored, _, state, children) = self.plan.view(id);
        let t =
            symmetry(&stored, real).ok_or_else(|| AssembleError::Uncovered(real.to_string()))?;
        let Some(children) = children else {
            if let Some(outcome) = real.outcome() {
                let leaf = match outcome {
                    Outcome::Win(p) if p == prover => Node::Won,
                    Outcome::Draw => Node::Full,
                    Outcome::Win(_) => return Err(AssembleError::Uncovered(real.to_string())),
                };
                return Ok(self.builder.push(real, prover, leaf));
            }
            return self.job(&stored, real, t, prover, goal);
        };
        let rules = real.rules();
        let node = if real.to_move() == prover {
            // The child that reached this node's answer.
            let child = children
                .iter()
                .copied()
                .find(|&c| self.plan.view(c).2 == state)
                .ok_or_else(|| AssembleError::Uncovered(real.to_string()))?;
            let (child_stored, ..) = self.plan.view(child);
            let cell = (0..rules.cell_count())
                .find(|&i| stored.cells()[i].is_none() && child_stored.cells()[i].is_some())
                .expect("a child is its parent and one move");
            let cell = map_cell(rules, t, cell);
            let next = played(real, cell);
            Node::Move(cell, self.node(child, &next, prover, goal)?)
        } else {
            let mut answers = Vec::new();
            for cell in real.legal_moves() {
                let cell = rules.index(cell);
                let next = played(real, cell);
                let child = children
                    .iter()
                    .copied()
                    .find(|&c| {
                        let (g, _, s, _) = self.plan.view(c);
                        s == state && symmetry(&g, &next).is_some()
                    })
                    .ok_or_else(|| AssembleError::Uncovered(next.to_string()))?;
                answers.push((cell, self.node(child, &next, prover, goal)?));
            }
            Node::Answers(answers)
        };
        Ok(self.builder.push(real, prover, node))
    }

    /// A job's certificate, copied in under symmetry `t`.
    fn job(
        &mut self,
        stored: &Game,
        real: &Game,
        t: u8,
        prover: Player,
        goal: Goal,
    ) -> Result<usize, AssembleError> {
        let cert = (self.job)(stored, prover, goal).map_err(|e| AssembleError::Job {
            position: stored.to_string(),
            reason: e.to_string(),
        })?;
        let tree = cert
            .trees
            .iter()
            .find(|tree| tree.prover == prover && tree.goal == goal)
            .or_else(|| cert.trees.iter().find(|tree| tree.prover == prover))
            .ok_or_else(|| AssembleError::NoTree {
                position: stored.to_string(),
                prover,
            })?;
        let mut copied = HashMap::new();
        Ok(self.copy(&cert, tree.root, real, t, prover, &mut copied))
    }

    /// Node `n` of `cert` and everything below it, cells mapped by `t`,
    /// standing for `real`.
    fn copy(
        &mut self,
        cert: &Certificate,
        n: usize,
        real: &Game,
        t: u8,
        prover: Player,
        copied: &mut HashMap<usize, usize>,
    ) -> usize {
        if let Some(&done) = copied.get(&n) {
            return done;
        }
        let rules = real.rules();
        let map = |cell: usize| map_cell(rules, t, cell);
        let mut list = |this: &mut Self, answers: &[(usize, usize)]| -> Vec<(usize, usize)> {
            answers
                .iter()
                .map(|&(cell, child)| {
                    let cell = map(cell);
                    let next = played(real, cell);
                    (cell, this.copy(cert, child, &next, t, prover, copied))
                })
                .collect()
        };
        let node = match &cert.nodes[n] {
            Node::Move(cell, child) => {
                let cell = map(*cell);
                let next = played(real, cell);
                Node::Move(cell, self.copy(cert, *child, &next, t, prover, copied))
            }
            Node::Answers(answers) => Node::Answers(list(self, answers)),
            Node::Rest(answers) => Node::Rest(list(self, answers)),
            Node::Pairs(pairs) => {
                Node::Pairs(pairs.iter().map(|&(a, b)| (map(a), map(b))).collect())
            }
            Node::Image(symmetry, child) => {
                // The same image, seen through `t`: the symmetry u with
                // u(t(c)) = t(s(c)) for every cell c.
                let cells = rules.cell_count();
                let s = |c: usize| symmetry_cell(rules, *symmetry, c);
                let conjugate = (0..8).find(|&u| {
                    (0..cells).all(|c| symmetry_cell(rules, u, map(c)) == s(c).map(map))
                });
                let source = conjugate.and_then(|u| Some((u, symmetric_source(real, u)?)));
                match source {
                    Some((u, source)) => {
                        Node::Image(u, self.copy(cert, *child, &source, t, prover, copied))
                    }
                    // Not a symmetry of this board: copied as it is, for
                    // the verifier to refuse.
                    None => Node::Image(*symmetry, *child),
                }
            }
            leaf @ (Node::Won | Node::Full | Node::Potential) => leaf.clone(),
        };
        let number = self.builder.push(real, prover, node);
        copied.insert(n, number);
        number
    }
}

#[cfg(test)]
mod tests {
    use oxo_ai::{Solver, certify};
    use oxo_core::Rules;

    use super::*;
    use crate::plan::solve_all;

    #[test]
    fn assembled_certificates_verify() {
        for (rows, cols, k, splits) in [
            (3, 3, 3, 0..3),
            (4, 4, 3, 0..3),
            (4, 4, 4, 0..3),
            (4, 5, 4, 1..3),
            (5, 5, 4, 2..3),
        ] {
            let game = Game::new(Rules::new(rows, cols, k).unwrap());
            for split in splits {
                let mut plan = Plan::new(&game, split);
                solve_all(&mut plan);
                let mut solver = Solver::new(game.rules(), 1 << 20).unwrap();
                let cert = assemble(&plan, |g, _, _| certify(&mut solver, g)).unwrap();
                let checked = Certificate::parse(&cert.to_text())
                    .unwrap()
                    .verify()
                    .unwrap_or_else(|e| panic!("{rows}x{cols} k={k} split {split}: {e}"));
                let expected = match plan.value().unwrap() {
                    Value::Win => Claim::Win(game.to_move()),
                    Value::Loss => Claim::Win(game.to_move().other()),
                    Value::Draw => Claim::Draw,
                };
                assert_eq!(checked.claim, expected, "{rows}x{cols} k={k} split {split}");
            }
        }
    }

    #[test]
    fn an_unfinished_proof_has_no_certificate() {
        let plan = Plan::new(&Game::new(Rules::new(3, 3, 3).unwrap()), 1);
        let err = assemble(&plan, |_, _, _| Err::<Certificate, &str>("unused")).unwrap_err();
        assert_eq!(err.to_string(), "the proof is not finished");
    }
}
