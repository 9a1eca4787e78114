//! Proof certificates ([`oxo_core::proof`]) from the solver's values.
//!
//! The trees follow the solver: at the prover's turn one move that reaches
//! the goal (for a win, the shortest, from [`Solver::best_moves`]; for a
//! draw, a move after which a pairing holds or whose position is already
//! in the tree, else the first the solver values as holding); at the other
//! side's turn every legal move. A position already in the tree, reached
//! again through another move order, is the same node. Where the prover
//! only needs a draw, a pairing found by a small budgeted search ends the
//! branch: on 4×4 k=4 that took the proof from 219 nodes to 35.

use std::collections::HashMap;

use oxo_core::proof::{Certificate, Claim, Goal, Node, Tree};
use oxo_core::{Game, Outcome, Player};

use super::{SolveError, Solver};
use crate::value::Value;

/// The most nodes a certificate may hold: beyond this, extraction stops
/// with [`SolveError::OverBudget`] rather than fill the memory (5×5 k=4
/// passes it).
pub const MAX_PROOF_NODES: usize = 1_000_000;

/// Steps one pairing search may take before giving up on that node.
const PAIRING_BUDGET: u32 = 2_000;

/// A certificate of `game`'s value, extracted from `solver`.
///
/// # Errors
/// A game under other rules than the solver's, the solver's budget ran
/// out, or the certificate would hold more than [`MAX_PROOF_NODES`] nodes
/// ([`SolveError::OverBudget`]).
pub fn certify(solver: &mut Solver, game: &Game) -> Result<Certificate, SolveError> {
    let claim = match game.outcome() {
        Some(Outcome::Win(p)) => Claim::Win(p),
        Some(Outcome::Draw) => Claim::Draw,
        None => match solver.value(game)? {
            Value::Win => Claim::Win(game.to_move()),
            Value::Loss => Claim::Win(game.to_move().other()),
            Value::Draw => Claim::Draw,
        },
    };
    let needed: &[(Player, Goal)] = match claim {
        Claim::Win(p) => &[(p, Goal::Win)],
        Claim::Draw => &[(Player::X, Goal::Draw), (Player::O, Goal::Draw)],
    };
    let windows: Vec<u64> = game
        .rules()
        .windows()
        .map(|w| w.cells().fold(0, |m, c| m | 1 << game.rules().index(c)))
        .collect();
    let mut builder = Builder {
        solver,
        windows,
        nodes: Vec::new(),
        memo: HashMap::new(),
    };
    let mut trees = Vec::new();
    for &(prover, goal) in needed {
        let root = builder.node(game, prover, goal)?;
        trees.push(Tree { prover, goal, root });
    }
    Ok(Certificate {
        game: game.clone(),
        claim,
        trees,
        nodes: builder.nodes,
    })
}

struct Builder<'a> {
    solver: &'a mut Solver,
    /// Every window as a mask of cell indices (boards the solver handles
    /// have fewer than 64 cells).
    windows: Vec<u64>,
    nodes: Vec<Node>,
    memo: HashMap<(String, Player, Goal), usize>,
}

impl Builder<'_> {
    /// The node proving `goal` for `prover` at `game` (which the solver
    /// says it reaches).
    fn node(&mut self, game: &Game, prover: Player, goal: Goal) -> Result<usize, SolveError> {
        let key = (game.to_string(), prover, goal);
        if let Some(&id) = self.memo.get(&key) {
            return Ok(id);
        }
        let id = self.nodes.len();
        if id >= MAX_PROOF_NODES {
            return Err(SolveError::OverBudget {
                nodes: MAX_PROOF_NODES as u64,
            });
        }
        self.nodes.push(Node::Won);
        self.memo.insert(key, id);
        let node = match game.outcome() {
            Some(Outcome::Win(_)) => Node::Won,
            Some(Outcome::Draw) => Node::Full,
            None => match (goal == Goal::Draw).then(|| self.pairing(game, prover)) {
                Some(Some(pairs)) => Node::Pairs(pairs),
                _ if game.to_move() == prover => {
                    let cell = self.choose(game, goal)?;
                    let child = self.node(&after(game, cell), prover, goal)?;
                    Node::Move(cell, child)
                }
                _ => {
                    let mut answers = Vec::new();
                    for cell in game.legal_moves() {
                        let i = game.rules().index(cell);
                        answers.push((i, self.node(&after(game, i), prover, goal)?));
                    }
                    Node::Answers(answers)
                }
            },
        };
        self.nodes[id] = node;
        Ok(id)
    }

    /// A move for the player to move that keeps `goal`.
    fn choose(&mut self, game: &Game, goal: Goal) -> Result<usize, SolveError> {
        let index = |c| game.rules().index(c);
        if goal == Goal::Win {
            let (_, best) = self.solver.best_moves(game)?;
            return Ok(best.first().map_or(0, |&c| index(c)));
        }
        // A move after which a pairing holds ends the branch at once; a
        // position already proved costs nothing more.
        let prover = game.to_move();
        for cell in game.legal_moves() {
            let child = after(game, index(cell));
            if !child.is_over()
                && (self.memo.contains_key(&(child.to_string(), prover, goal))
                    || self.pairing(&child, prover).is_some())
            {
                return Ok(index(cell));
            }
        }
        let mut fallback = None;
        for cell in game.legal_moves() {
            let child = after(game, index(cell));
            if child.is_over() {
                return Ok(index(cell));
            }
            if self.solver.value(&child)? != Value::Win {
                return Ok(index(cell));
            }
            fallback.get_or_insert(index(cell));
        }
        // Unreachable when the solver is right: the verifier would refuse.
        Ok(fallback.unwrap_or(0))
    }

    /// A pairing strategy for `defender` at `game`, if a short search
    /// finds one.
    fn pairing(&self, game: &Game, defender: Player) -> Option<Vec<(usize, usize)>> {
        let mut own = 0u64;
        let mut empty = 0u64;
        for (i, c) in game.cells().iter().enumerate() {
            match c {
                Some(p) if *p == defender => own |= 1 << i,
                Some(_) => {}
                None => empty |= 1 << i,
            }
        }
        let open: Vec<u64> = self
            .windows
            .iter()
            .copied()
            .filter(|w| w & own == 0)
            .collect();
        let mut budget = PAIRING_BUDGET;
        let mut pairs = Vec::new();
        cover(&open, empty, &mut budget, &mut pairs).then_some(pairs)
    }
}

/// Backtracking: disjoint pairs of `free` cells, one inside each window of
/// `open`, pushed onto `pairs`.
fn cover(open: &[u64], free: u64, budget: &mut u32, pairs: &mut Vec<(usize, usize)>) -> bool {
    let Some(&window) = open.iter().min_by_key(|&&w| (w & free).count_ones()) else {
        return true;
    };
    if (window & free).count_ones() < 2 || *budget == 0 {
        return false;
    }
    *budget -= 1;
    let cells: Vec<usize> = (0..64).filter(|&i| window & free & 1 << i != 0).collect();
    for (n, &a) in cells.iter().enumerate() {
        for &b in &cells[n + 1..] {
            let pair = 1 << a | 1 << b;
            let rest: Vec<u64> = open.iter().copied().filter(|w| w & pair != pair).collect();
            pairs.push((a, b));
            if cover(&rest, free & !pair, budget, pairs) {
                return true;
            }
            pairs.pop();
        }
    }
    false
}

/// `game` after the move at cell index `cell`.
fn after(game: &Game, cell: usize) -> Game {
    let mut next = game.clone();
    next.play_unchecked(game.rules().cell_at(cell));
    next
}

#[cfg(test)]
mod tests {
    use oxo_core::proof::{Certificate, Claim, ProofError};
    use oxo_core::{Game, Player, Rules};
    use rand::RngExt;

    use super::certify;
    use crate::Solver;

    fn text_of(game: &Game) -> String {
        let mut solver = Solver::new(game.rules(), 1 << 20).unwrap();
        certify(&mut solver, game).unwrap().to_text()
    }

    fn empty(rows: u32, cols: u32, k: u32) -> Game {
        Game::new(Rules::new(rows, cols, k).unwrap())
    }

    fn verify(text: &str) -> Result<Claim, ProofError> {
        Ok(Certificate::parse(text)?.verify()?.claim)
    }

    #[test]
    fn certificates_of_small_boards_verify() {
        let cases = [
            (empty(3, 3, 3), Claim::Draw),
            (empty(3, 4, 3), Claim::Win(Player::X)),
            (empty(4, 4, 3), Claim::Win(Player::X)),
            (empty(4, 4, 4), Claim::Draw),
            (
                Game::from_notation("XX./OO./...", 3).unwrap(),
                Claim::Win(Player::X),
            ),
            (Game::from_notation("X../.O./..X", 3).unwrap(), Claim::Draw),
            (
                Game::from_notation("XXX/OO./...", 3).unwrap(),
                Claim::Win(Player::X),
            ),
            (Game::from_notation("XOX/XOO/OXX", 3).unwrap(), Claim::Draw),
        ];
        for (game, claim) in cases {
            assert_eq!(verify(&text_of(&game)), Ok(claim), "{game}");
        }
    }

    /// The certificate's text with node line `node` replaced by `line`.
    fn with_node(text: &str, node: usize, line: &str) -> String {
        let start = text.lines().position(|l| l.starts_with("nodes ")).unwrap() + 1;
        let mut lines: Vec<&str> = text.lines().collect();
        lines[start + node] = line;
        lines.join("\n") + "\n"
    }

    fn node_line(text: &str, node: usize) -> &str {
        let start = text.lines().position(|l| l.starts_with("nodes ")).unwrap() + 1;
        text.lines().nth(start + node).unwrap()
    }

    /// The first node line starting with `prefix`, and its node number.
    fn first_node<'a>(text: &'a str, prefix: &str) -> (usize, &'a str) {
        text.lines()
            .skip_while(|l| !l.starts_with("nodes "))
            .skip(1)
            .enumerate()
            .find(|(_, l)| l.starts_with(prefix))
            .unwrap()
    }

    fn step_error(text: &str) -> (usize, String) {
        match verify(text) {
            Err(ProofError::Step { node, reason, .. }) => (node, reason),
            other => panic!("expected a refused step, got {other:?}"),
        }
    }

    #[test]
    fn a_changed_move_is_refused_where_it_breaks() {
        // X wins XX./OO./... with 2 (node 0: `m 2 1`).
        let text = text_of(&Game::from_notation("XX./OO./...", 3).unwrap());
        assert_eq!(node_line(&text, 0), "m 2 1");
        // On an occupied cell: illegal at node 0.
        let (node, reason) = step_error(&with_node(&text, 0, "m 3 1"));
        assert_eq!(node, 0);
        assert!(reason.contains("move 3 is illegal"), "{reason}");
        // A legal move that does not win: node 1 is no win.
        let (node, reason) = step_error(&with_node(&text, 0, "m 8 1"));
        assert_eq!(node, 1);
        assert!(reason.contains("not"), "{reason}");
    }

    #[test]
    fn a_removed_answer_is_refused_at_its_node() {
        let text = text_of(&empty(4, 4, 4));
        let (node, line) = first_node(&text, "a ");
        let mut items: Vec<&str> = line.split(' ').collect();
        let removed = items.remove(2);
        let cell = removed.split(':').next().unwrap();
        let (at, reason) = step_error(&with_node(&text, node, &items.join(" ")));
        assert_eq!(at, node);
        assert!(reason.contains(&format!("move {cell} of")), "{reason}");
    }

    #[test]
    fn a_broken_pairing_is_refused() {
        let text = text_of(&empty(4, 4, 4));
        let (node, line) = first_node(&text, "p ");
        let fewer = &line[..line.rfind(' ').unwrap()];
        let (at, reason) = step_error(&with_node(&text, node, fewer));
        assert_eq!(at, node);
        assert!(reason.contains("without a pair"), "{reason}");
        let twice = format!("{line} {}", line.split(' ').nth(1).unwrap());
        let (_, reason) = step_error(&with_node(&text, node, &twice));
        assert!(reason.contains("used twice"), "{reason}");
    }

    #[test]
    fn truncated_foreign_and_misclaimed_files_are_refused() {
        let text = text_of(&empty(3, 3, 3));
        let cut = &text[..text.len() / 2];
        assert!(
            matches!(verify(cut), Err(ProofError::Syntax { .. })),
            "{:?}",
            verify(cut)
        );
        assert_eq!(verify("hello\n"), Err(ProofError::Foreign));
        let huge = verify("oxo-proof 1\nrules 100x100 k=5\n");
        assert!(
            matches!(&huge, Err(ProofError::Syntax { line: 2, reason }) if reason.contains("256 cells")),
            "{huge:?}"
        );
        assert_eq!(verify(""), Err(ProofError::Foreign));
        assert!(matches!(
            verify(&text.replacen("oxo-proof 1", "oxo-proof 2", 1)),
            Err(ProofError::Version(_))
        ));
        assert!(matches!(
            verify(&text.replacen("claim draw", "claim win X", 1)),
            Err(ProofError::Header(_))
        ));
        // Another position than the one the trees were made for.
        assert!(verify(&text.replacen("position .../.../...", "position X../.../...", 1)).is_err());
    }

    /// Random damage never panics, and never proves another value.
    #[test]
    fn mutations_never_panic_nor_prove_another_value() {
        let mut rng = crate::rng_from_seed(29);
        for game in [empty(3, 3, 3), empty(3, 4, 3)] {
            let text = text_of(&game);
            let claim = verify(&text).unwrap();
            for _ in 0..400 {
                let mut bytes = text.clone().into_bytes();
                for _ in 0..rng.random_range(1..4) {
                    let at = rng.random_range(0..bytes.len());
                    match rng.random_range(0..3) {
                        0 => bytes[at] = b"0123456789 :-amwfp\n"[rng.random_range(0..19)],
                        1 => {
                            bytes.remove(at);
                        }
                        _ => bytes.truncate(at),
                    }
                }
                let Ok(damaged) = String::from_utf8(bytes) else {
                    continue;
                };
                if let Ok(proved) = verify(&damaged) {
                    assert_eq!(proved, claim, "{damaged}");
                }
            }
        }
    }
}
