//! Long proofs of m,n,k-games, split into independent jobs: run on every
//! core of one machine with checkpoints ([`local`]), or shared by workers
//! on several machines through a PostgreSQL job table ([`pg`]).
//!
//! # The split
//! A position's value is two one-sided questions: can the side to move
//! force k in a row, and can the other side? (Win if the first is proven,
//! loss if the second is, draw if neither.) Each question is the root of
//! an AND/OR tree ([`plan::Plan`]) expanded a few plies (`split`) from the
//! root; its leaves are the jobs, each the same question about one
//! position, answered by a [`prove::Prove`].
//!
//! Each question has an *aim*, the answer expected (disproven: the boards
//! that need splitting, such as (7,7,5) and (8,8,5), are draws). Where the
//! side to move must reach the aim with *every* move (the attacker, when
//! the aim is "disproven"), every move up to the board's symmetries
//! becomes a child: an AND node, whose children run in parallel. Where one
//! move suffices (the defender's reply), the position is left to one job
//! however shallow it is, so that the prover chooses the reply inside its
//! own search (its Breaker ordering and zones find a refutation where a
//! reply chosen outside may need a proof tens of times larger). Only when
//! that job runs over its budget is one reply *chosen* by the split: the
//! most promising by the open windows through its cell, a finished game at
//! the aim first. If the chosen reply's subtree misses the aim, the node tries
//! its next candidate in the same way (the parent re-queued with that
//! reply excluded); when none is left the node misses the aim, which
//! settles its AND parent the other way. The alternative, proving the
//! failed job's parent whole as one job, would throw away the split just
//! when the subtree is known to be hard. Either way each node's value is
//! the minimax of its children's, so the combination is sound whatever the
//! aim: a wrong aim costs time (the candidates are tried one after
//! another), never a wrong answer. A settled node makes the jobs under it
//! moot; they are no longer handed out.
//!
//! A job that runs out of its node budget ([`plan::Answer::OverBudget`])
//! is split one ply deeper in the same way: a long run balances itself
//! without knowing which subtrees are hard.
//!
//! Positions equal under the board's symmetries are split once at a node;
//! the same position reached through different parents is two jobs
//! (rare this near the root; each prover's table remembers the other).
//!
//! # The seam
//! [`prove::Prove`] answers "can `attacker` force k in a row from this
//! position?" within a budget; [`prove::MakeProver`] makes one a worker,
//! given its share of the memory. [`prove::SolverProver`] puts the exact
//! solver behind it (boards of up to 64 bits); another search is one more
//! implementation of the trait.
//!
//! # What a run keeps
//! The [`plan::Plan`] is the whole state: the tree, the answers, the
//! figures. A [`checkpoint`] file is the plan as JSON under a digest,
//! rewritten after every answer; the job table's `oxo_campaign.plan`
//! column holds the same JSON.

pub mod certificate;
pub mod checkpoint;
pub mod local;
pub mod output;
pub mod pg;
pub mod plan;
pub mod prove;

pub use plan::{Answer, Cost, Job, Plan, PlanError, Progress, Verdict};
pub use prove::{Limits, MakeProver, Prove, ProveFailure, SearchProver, SolverProver};
