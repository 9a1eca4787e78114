//! Proof certificates ([`oxo_core::proof`]) from the solver's values.
//!
//! The trees follow the solver: at the prover's turn one move that reaches
//! the goal (for a win, the shortest, from [`Solver::best_moves`]; for a
//! draw, a move after which a pairing or Erdős and Selfridge's criterion
//! holds or whose position is already in the tree, else the shortest win
//! if the position is won, else the holding move in the most windows
//! either side can still fill: it blocks and builds most, where the first
//! in cell order (a corner) let the other side attack for long, 4×5 k=4
//! taking 56,726 nodes instead of 530). At the other side's turn the
//! replies are taken least lively first, and a reply outside the zone of
//! one already proved is left to the rest clause.
//! A position already in the tree, reached again through another move
//! order, is the same node. Where the prover only needs a draw, a pairing
//! found by a small budgeted search ends the branch (on 4×4 k=4 that took
//! the proof from 219 nodes to 35), or else Erdős and Selfridge's
//! criterion when it holds (4×4 k=4: 18 nodes).

use std::collections::HashMap;

use oxo_core::proof::{Certificate, CertificateBuilder, Claim, Goal, Node, Tree, potential_holds};
use oxo_core::{Game, Outcome, Player};

use super::{SolveError, Solver};
use crate::pairing::pairing_strategy;
use crate::prover::Board;
use crate::value::Value;

/// The most nodes a certificate may hold (counting those built and then
/// left unused): beyond this, extraction stops with
/// [`SolveError::OverBudget`] rather than fill the memory.
pub const MAX_PROOF_NODES: usize = 1_000_000;

/// Steps one pairing search may take before giving up on that node.
const PAIRING_BUDGET: u32 = 2_000;

/// How many of the liveliest moves the prover's turn looks for a pairing
/// after.
const LOOKAHEAD_MOVES: usize = 12;

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
    build(solver, game, claim)
}

/// What the extractor asks of a search.
trait Oracle {
    type Error;
    /// Whether `prover` reaches `goal` at `game` (not over).
    fn reaches(&mut self, game: &Game, prover: Player, goal: Goal) -> Result<bool, Self::Error>;
    /// Whether the player to move at `game` can force a win, when the
    /// search knows cheaply (else `false`).
    fn is_won(&mut self, game: &Game) -> Result<bool, Self::Error>;
    /// The move that wins soonest for the player to move at `game`, which
    /// wins.
    fn winning_move(&mut self, game: &Game) -> Result<usize, Self::Error>;
    /// The certificate would pass [`MAX_PROOF_NODES`].
    fn too_large() -> Self::Error;
}

impl Oracle for Solver {
    type Error = SolveError;

    fn reaches(&mut self, game: &Game, prover: Player, goal: Goal) -> Result<bool, SolveError> {
        let value = self.value(game)?;
        let mover_wins = match goal {
            Goal::Win => value == Value::Win,
            Goal::Draw => value != Value::Loss,
        };
        let mover_holds = match goal {
            Goal::Win => value == Value::Loss,
            Goal::Draw => value != Value::Win,
        };
        Ok(if game.to_move() == prover {
            mover_wins
        } else {
            mover_holds
        })
    }

    fn is_won(&mut self, game: &Game) -> Result<bool, SolveError> {
        Ok(self.value(game)? == Value::Win)
    }

    fn winning_move(&mut self, game: &Game) -> Result<usize, SolveError> {
        let (_, best) = self.best_moves(game)?;
        Ok(best.first().map_or(0, |&c| game.rules().index(c)))
    }

    fn too_large() -> SolveError {
        SolveError::OverBudget {
            nodes: MAX_PROOF_NODES as u64,
        }
    }
}

/// The certificate of `claim` at `game`, with `oracle` answering.
fn build<O: Oracle>(oracle: &mut O, game: &Game, claim: Claim) -> Result<Certificate, O::Error> {
    let needed: &[(Player, Goal)] = match claim {
        Claim::Win(p) => &[(p, Goal::Win)],
        Claim::Draw => &[(Player::X, Goal::Draw), (Player::O, Goal::Draw)],
    };
    let mut builder = Builder {
        oracle,
        board: Board::new(game.rules()).ok(),
        table: CertificateBuilder::new(),
        memo: HashMap::new(),
    };
    let mut trees = Vec::new();
    for &(prover, goal) in needed {
        let root = builder.node(game, prover, goal)?;
        trees.push(Tree { prover, goal, root });
    }
    Ok(builder.table.finish(game, claim, trees))
}

struct Builder<'a, O> {
    oracle: &'a mut O,
    /// The board's windows as masks of cell indices, for the shared
    /// pairing search (`None` on a board with more windows than it takes:
    /// then no pairings).
    board: Option<Board>,
    table: CertificateBuilder,
    memo: HashMap<(String, Player, Goal), usize>,
}

impl<O: Oracle> Builder<'_, O> {
    /// The node proving `goal` for `prover` at `game` (which the solver
    /// says it reaches).
    fn node(&mut self, game: &Game, prover: Player, goal: Goal) -> Result<usize, O::Error> {
        let key = (game.to_string(), prover, goal);
        if let Some(&id) = self.memo.get(&key) {
            return Ok(id);
        }
        if self.table.len() >= MAX_PROOF_NODES {
            return Err(O::too_large());
        }
        let node = match game.outcome() {
            Some(Outcome::Win(_)) => Node::Won,
            Some(Outcome::Draw) => Node::Full,
            None => match (goal == Goal::Draw).then(|| self.pairing(game, prover)) {
                Some(Some(pairs)) => Node::Pairs(pairs),
                _ if goal == Goal::Draw && potential_holds(game, prover) => Node::Potential,
                _ if game.to_move() == prover => {
                    let cell = self.choose(game, goal)?;
                    let child = self.node(&after(game, cell), prover, goal)?;
                    Node::Move(cell, child)
                }
                _ => self.answers(game, prover, goal)?,
            },
        };
        let id = self.table.push(game, prover, node);
        self.memo.insert(key, id);
        Ok(id)
    }

    /// The other side's turn: its replies, the least lively first, each
    /// listed with a node of its own unless it lies outside the zone of a
    /// reply listed before it (then the rest clause answers it).
    fn answers(&mut self, game: &Game, prover: Player, goal: Goal) -> Result<Node, O::Error> {
        let moves = self.by_liveness(game, prover);
        Node::replies(&moves, |y| {
            let child = self.node(&after(game, y), prover, goal)?;
            Ok((child, self.table.zone(child)))
        })
    }

    /// The legal moves at `game`, those in the fewest windows either side
    /// can still fill first.
    fn by_liveness(&self, game: &Game, prover: Player) -> Vec<usize> {
        let rules = game.rules();
        let mut moves: Vec<usize> = game.legal_moves().map(|c| rules.index(c)).collect();
        let Some(board) = &self.board else {
            return moves;
        };
        let (own, theirs) = stones(game, prover);
        let live = |cell: usize| {
            board
                .windows
                .iter()
                .filter(|&&w| w & 1 << cell != 0 && (w & own == 0 || w & theirs == 0))
                .count()
        };
        moves.sort_by_key(|&c| (live(c), c));
        moves
    }

    /// A move for the player to move that keeps `goal`.
    fn choose(&mut self, game: &Game, goal: Goal) -> Result<usize, O::Error> {
        let index = |c| game.rules().index(c);
        if goal == Goal::Win {
            return self.oracle.winning_move(game);
        }
        let prover = game.to_move();
        // A move after which a pairing or Erdős and Selfridge's criterion
        // holds ends the branch; a position already proved costs nothing
        // more.
        // The pairing search, the costly part, only after the liveliest
        // moves (a pairing needs a move that blocks).
        let lively: Vec<usize> = self.by_liveness(game, prover);
        let lively = &lively[lively.len().saturating_sub(LOOKAHEAD_MOVES)..];
        for cell in game.legal_moves() {
            let child = after(game, index(cell));
            if !child.is_over()
                && (self.memo.contains_key(&(child.to_string(), prover, goal))
                    || potential_holds(&child, prover)
                    || (lively.contains(&index(cell)) && self.pairing(&child, prover).is_some()))
            {
                return Ok(index(cell));
            }
        }
        // So does a move that wins at once.
        for cell in game.legal_moves() {
            if after(game, index(cell)).outcome() == Some(Outcome::Win(prover)) {
                return Ok(index(cell));
            }
        }
        // A won position ends soonest along the shortest win.
        if self.oracle.is_won(game)? {
            return self.oracle.winning_move(game);
        }
        // Else the liveliest move that holds: it blocks and builds most.
        let mut fallback = None;
        for cell in self.by_liveness(game, prover).into_iter().rev() {
            let child = after(game, cell);
            if child.is_over() || self.oracle.reaches(&child, prover, goal)? {
                return Ok(cell);
            }
            fallback.get_or_insert(cell);
        }
        // Unreachable when the search is right: the verifier would refuse.
        Ok(fallback.unwrap_or(0))
    }

    /// A pairing strategy for `defender` at `game`, if a short search
    /// finds one (the search [`crate::pairing`] shares with the solver and
    /// the prover).
    fn pairing(&self, game: &Game, defender: Player) -> Option<Vec<(usize, usize)>> {
        let board = self.board.as_ref()?;
        let (own, theirs) = stones(game, defender);
        let strategy = pairing_strategy(board, theirs, own, board.valid, 0, PAIRING_BUDGET)?;
        Some(
            strategy
                .pairs
                .iter()
                .map(|&(a, b)| (a as usize, b as usize))
                .collect(),
        )
    }
}

/// `player`'s stones and the other side's in `game`, by cell index.
fn stones(game: &Game, player: Player) -> (u128, u128) {
    let (mut own, mut theirs) = (0u128, 0u128);
    for (i, c) in game.cells().iter().enumerate() {
        match c {
            Some(p) if *p == player => own |= 1 << i,
            Some(_) => theirs |= 1 << i,
            None => {}
        }
    }
    (own, theirs)
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
    use oxo_core::{Game, Outcome, Player, Rules};
    use rand::RngExt;

    use super::certify;
    use crate::Solver;
    use crate::value::Value;

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
            (empty(4, 5, 4), Claim::Draw),
            (empty(5, 4, 4), Claim::Draw),
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
        let text = text_of(&empty(3, 3, 3));
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
            verify(&text.replacen("oxo-proof 2", "oxo-proof 9", 1)),
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
        for game in [empty(3, 3, 3), empty(3, 4, 3), empty(4, 4, 4)] {
            let text = text_of(&game);
            let claim = verify(&text).unwrap();
            for _ in 0..400 {
                let mut bytes = text.clone().into_bytes();
                for _ in 0..rng.random_range(1..4) {
                    if bytes.is_empty() {
                        break;
                    }
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

    /// The value of `game` for the certificate's claim, by the solver.
    fn true_claim(game: &Game) -> Claim {
        claim_by(&mut Solver::new(game.rules(), 1 << 20).unwrap(), game)
    }

    fn claim_by(solver: &mut Solver, game: &Game) -> Claim {
        match game.outcome() {
            Some(Outcome::Win(p)) => Claim::Win(p),
            Some(Outcome::Draw) => Claim::Draw,
            None => match solver.value(game).unwrap() {
                Value::Win => Claim::Win(game.to_move()),
                Value::Loss => Claim::Win(game.to_move().other()),
                Value::Draw => Claim::Draw,
            },
        }
    }

    /// One structural change to a node line: a move, a listed reply, a
    /// rest clause's model reply, a pair or a leaf's kind.
    fn mutate(line: &str, rng: &mut crate::SeededRng, cells: usize, nodes: usize) -> String {
        let mut words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        let cell = |rng: &mut crate::SeededRng| rng.random_range(0..cells).to_string();
        match words[0].as_str() {
            "m" => {
                let at = rng.random_range(1..3);
                words[at] = if at == 1 {
                    cell(rng)
                } else {
                    rng.random_range(0..nodes).to_string()
                };
            }
            "a" | "r" if words.len() > 2 => {
                let at = rng.random_range(1..words.len());
                match rng.random_range(0..3) {
                    // Drop a listed reply: it falls to the rest clause.
                    0 => {
                        words.remove(at);
                        words[0] = "r".to_owned();
                    }
                    // Drop the rest clause: every reply must be listed.
                    1 => words[0] = "a".to_owned(),
                    // Send a reply to another node.
                    _ => {
                        let cell = words[at].split(':').next().unwrap().to_owned();
                        words[at] = format!("{cell}:{}", rng.random_range(0..nodes));
                    }
                }
            }
            "p" if words.len() > 1 => {
                let at = rng.random_range(1..words.len());
                if rng.random_bool(0.3) {
                    words.remove(at);
                } else {
                    let (a, b) = words[at].split_once('-').unwrap();
                    words[at] = if rng.random_bool(0.5) {
                        format!("{}-{b}", cell(rng))
                    } else {
                        format!("{a}-{}", cell(rng))
                    };
                }
            }
            _ => {
                let image = format!(
                    "s {} {}",
                    rng.random_range(0..9),
                    rng.random_range(0..nodes)
                );
                let kinds = ["w", "f", "e", "p 0-1", &image];
                return kinds[rng.random_range(0..kinds.len())].to_owned();
            }
        }
        words.join(" ")
    }

    /// Certificates changed in their structure (and roots moved to other
    /// positions) are refused, or else claim the true value of their root.
    #[test]
    fn structural_damage_never_proves_a_false_value() {
        let mut rng = crate::rng_from_seed(2929);
        let boards = [
            (empty(3, 3, 3), 600),
            (empty(3, 4, 3), 300),
            (empty(4, 4, 3), 300),
            (empty(4, 4, 4), 200),
            (
                Game::from_notation("X..../...../..O../.....", 4).unwrap(),
                30,
            ),
        ];
        for (game, rounds) in boards {
            let text = text_of(&game);
            let start = text.lines().position(|l| l.starts_with("nodes ")).unwrap() + 1;
            let nodes = text.lines().count() - start - 1;
            let cells = game.rules().cell_count();
            let (mut accepted, mut refused) = (0, 0);
            for _ in 0..rounds {
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                for _ in 0..rng.random_range(1..3) {
                    let at = start + rng.random_range(0..nodes);
                    lines[at] = mutate(&lines[at], &mut rng, cells, nodes);
                }
                // Now and then, the same trees for another root.
                if rng.random_bool(0.2) {
                    let mut root = game.clone();
                    let moves: Vec<_> = root.legal_moves().collect();
                    root.play(moves[rng.random_range(0..moves.len())]).unwrap();
                    lines[2] = format!("position {root}");
                }
                // Version 3 reads what version 2 does, and symmetric images.
                let damaged = (lines.join("\n") + "\n").replacen("oxo-proof 2", "oxo-proof 3", 1);
                let cert = Certificate::parse(&damaged).unwrap();
                match cert.verify() {
                    Ok(v) => {
                        accepted += 1;
                        assert_eq!(v.claim, true_claim(&cert.game), "{damaged}");
                    }
                    Err(ProofError::Step { reason, .. } | ProofError::Header(reason)) => {
                        assert!(!reason.is_empty());
                        refused += 1;
                    }
                    Err(other) => panic!("{other:?}"),
                }
            }
            assert!(
                refused > rounds / 2,
                "{game}: {accepted} accepted, {refused} refused"
            );
        }
    }

    /// Each listed reply of a rest clause dropped in turn: refused at that
    /// node when it lies in every other listed reply's zone, naming the
    /// move; else still true.
    #[test]
    fn a_reply_inside_the_zones_left_to_the_rest_is_refused_there() {
        let text = text_of(&empty(3, 3, 3));
        let (node, line) = first_node(&text, "r ");
        let words: Vec<&str> = line.split(' ').collect();
        let mut refused = 0;
        for dropped in 1..words.len() {
            let cell = words[dropped].split(':').next().unwrap();
            let mut fewer = words.clone();
            fewer.remove(dropped);
            let damaged = with_node(&text, node, &fewer.join(" "));
            match Certificate::parse(&damaged).unwrap().verify() {
                Ok(v) => assert_eq!(v.claim, Claim::Draw),
                Err(ProofError::Step {
                    node: at,
                    position,
                    reason,
                }) if at == node => {
                    refused += 1;
                    assert!(!position.is_empty());
                    assert_eq!(
                        reason,
                        format!(
                            "move {cell} of X is left to the rest clause, but it lies in the \
                             zone of every listed move's node, so no answer is sure to hold"
                        )
                    );
                }
                // The dropped reply's node is no longer reached.
                Err(ProofError::Header(reason)) => assert!(reason.contains("not reached")),
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(refused > 0, "{line}");
    }

    /// The rest clauses are right: every reply they answer leaves the
    /// prover its goal, by the solver (an independent check of the zone
    /// argument in `oxo_core::proof`).
    #[test]
    fn every_reply_a_rest_clause_answers_keeps_the_goal() {
        use oxo_core::proof::{Goal, Node};
        let mut rested = 0;
        for game in [
            empty(3, 3, 3),
            empty(3, 4, 3),
            empty(4, 4, 3),
            empty(4, 5, 4),
            empty(5, 5, 4),
            empty(6, 5, 4),
        ] {
            let mut solver = Solver::new(game.rules(), 1 << 20).unwrap();
            let cert = certify(&mut solver, &game).unwrap();
            let mut seen = vec![false; cert.nodes.len()];
            let mut stack: Vec<(usize, Game, Player, Goal)> = cert
                .trees
                .iter()
                .map(|t| (t.root, game.clone(), t.prover, t.goal))
                .collect();
            let after = |g: &Game, cell: usize| {
                let mut next = g.clone();
                next.play(g.rules().cell_at(cell)).unwrap();
                next
            };
            while let Some((n, at, prover, goal)) = stack.pop() {
                if std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                match &cert.nodes[n] {
                    Node::Move(cell, child) => {
                        stack.push((*child, after(&at, *cell), prover, goal))
                    }
                    Node::Answers(answers) | Node::Rest(answers) => {
                        for &(cell, child) in answers {
                            stack.push((child, after(&at, cell), prover, goal));
                        }
                        for y in at.legal_moves().map(|c| at.rules().index(c)) {
                            if answers.iter().any(|&(cell, _)| cell == y) {
                                continue;
                            }
                            rested += 1;
                            let next = after(&at, y);
                            let value = claim_by(&mut solver, &next);
                            let holds = match goal {
                                Goal::Win => value == Claim::Win(prover),
                                Goal::Draw => value != Claim::Win(prover.other()),
                            };
                            assert!(holds, "{at} + {y}: {value} for {prover} ({goal:?})");
                        }
                    }
                    _ => {}
                }
            }
        }
        assert!(rested > 1000, "{rested}");
    }

    /// The certificates of the boards these tests use, pinned byte for
    /// byte (length and FNV-1a hash of the text): a change to the writer
    /// or to the pairing search it shares with the solver and the prover
    /// shows here. (Moving from the extractor's own pairing search, which
    /// tried every two cells of a window, to the shared one, which pairs
    /// neighbours along a window, changed 4×5 k=4, 5×4 k=4, 5×5 k=4 and
    /// X..../...../..O../..... and left the others byte-identical.)
    #[test]
    fn certificates_are_pinned() {
        let fnv = |text: &str| {
            text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            })
        };
        let cases = [
            (empty(3, 3, 3), 1770, 0xde3c_546d_e449_d8bb),
            (empty(4, 5, 4), 11001, 0xba18_afd4_a7df_ab47),
            (empty(5, 4, 4), 11499, 0x45e7_fbb9_a8ee_7d4f),
            (empty(3, 4, 3), 1644, 0x6544_9693_c975_667e),
            (empty(4, 4, 3), 2719, 0x15d9_40a8_949d_1b94),
            (empty(4, 4, 4), 221, 0xf061_3bc0_4b72_9368),
            (empty(6, 5, 4), 972_784, 0x7030_82b1_ca7d_eb6f),
            (empty(5, 5, 4), 984_585, 0x107c_d644_59fb_8365),
            (notation("XX./OO./...", 3), 92, 0xe906_a347_7746_fe7a),
            (notation("X../.O./..X", 3), 174, 0x72a6_a641_b2a2_a596),
            (notation("XXX/OO./...", 3), 86, 0x3f4d_9705_6efa_d8b3),
            (notation("XOX/XOO/OXX", 3), 102, 0x2711_0eb6_1342_e067),
            (
                notation("X..../...../..O../.....", 4),
                1002,
                0xf405_7722_79cb_8cc0,
            ),
        ];
        for (game, len, hash) in cases {
            let text = text_of(&game);
            assert_eq!((text.len(), fnv(&text)), (len, hash), "{game}");
        }
    }

    fn notation(text: &str, k: u32) -> Game {
        Game::from_notation(text, k).unwrap()
    }
}
