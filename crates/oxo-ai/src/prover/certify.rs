//! Certificates ([`oxo_core::proof`]) of the prover's Breaker proofs, on
//! every board the prover takes.
//!
//! A walk follows the proof the search found, position by position, and
//! writes it as one `oxo-proof` tree for the Breaker (the side that does
//! not lose) in a [`CertificateBuilder`]:
//! - the leaves are the search's own: no window left the Maker could fill,
//!   or the Erdős–Selfridge criterion (an `e` leaf either way), a pairing
//!   (`p`, its pairs written out by [`crate::pairing::pairing_strategy`]),
//!   and the real game's ends (the Breaker completing a line of its own is
//!   a won leaf, a full board a drawn one);
//! - at the Breaker's turn, the move the search proves: its moves are
//!   tried in the search's order and within the zones of the moves that
//!   failed, each answered by the search (from its table, mostly), and
//!   the first that holds is written;
//! - at the Maker's turn, the Maker's moves in the search's order, each
//!   with a node of its own unless it lies outside the zone of a node
//!   already written (the rest clause answers it as that node's move; the
//!   zones are the certificate's, computed by the builder, so the verifier
//!   agrees by construction).
//!
//! Positions reached again by another move order are one node, and a
//! position that is a symmetric image of one already written is an image
//! node (`s`) that refers to it, as the search's table folds symmetries. The walk
//! keeps no search of its own: it asks [`Prover::prove`] for each Breaker
//! candidate, so a certificate costs about one more pass over the proof.

use std::collections::HashMap;

use oxo_core::proof::{Certificate, CertificateBuilder, Claim, Goal, MAX_POTENTIAL_K};
use oxo_core::proof::{Node, Tree};
use oxo_core::{Game, Outcome, Player};

use super::board::bits;
use super::pairing::PAIRING_BUDGET;
use super::search::{LOOKAHEAD_BUDGET, Pos, breaker_weight};
use super::{ProveError, Prover};
use crate::pairing::pairing_strategy;

impl Prover {
    /// A certificate of `game`'s value where the prover proves it: a win
    /// for either side ([`Prover::certify_win`]), or a draw that blocking
    /// alone holds ([`Prover::certify_draw`]). `None` for a draw that only
    /// the defender's own threats hold (a side forces a line against a
    /// mere blocker, but not in the real game).
    ///
    /// # Errors
    /// As [`Prover::certify_draw`].
    pub fn certify(&mut self, game: &Game) -> Result<Option<Certificate>, ProveError> {
        self.check(game)?;
        match game.outcome() {
            Some(Outcome::Win(p)) => return self.certify_win(game, p),
            Some(Outcome::Draw) => return self.certify_draw(game),
            None => {}
        }
        let mover = game.to_move();
        for side in [mover, mover.other()] {
            self.start();
            if self.forces(game, side)? {
                return self.certify_win(game, side);
            }
        }
        self.certify_draw(game)
    }

    /// A certificate that `winner` wins the real game from `game`, from
    /// the real game's search ([`Prover::can_force`]): a tree for the
    /// winner with the move the search proves at its turns and every reply
    /// of the other side (those a rest clause can answer left to it).
    /// `None` when `winner` cannot force a win.
    ///
    /// # Errors
    /// As [`Prover::certify_draw`].
    pub fn certify_win(
        &mut self,
        game: &Game,
        winner: Player,
    ) -> Result<Option<Certificate>, ProveError> {
        self.check(game)?;
        self.start();
        if !self.forces(game, winner)? {
            return Ok(None);
        }
        self.start();
        let pos = Pos {
            maker: self.board.oriented(game, winner),
            breaker: self.board.oriented(game, winner.other()),
        };
        let mut builder = CertificateBuilder::new();
        let mut walk = Walk::new(&mut builder, winner, Goal::Win);
        let root = self.node(&mut walk, game, &pos)?;
        let tree = Tree {
            prover: winner,
            goal: Goal::Win,
            root,
        };
        Ok(Some(builder.finish(game, Claim::Win(winner), vec![tree])))
    }

    /// A certificate that `game` is a draw, from the two Breaker proofs:
    /// each side's tree blocks the other's lines as the search's proof
    /// does. `None` when a side can force a line against a mere blocker
    /// (or the game is over and not a draw).
    ///
    /// # Errors
    /// A game under other rules, the budget ran out
    /// ([`ProveError::OverBudget`]), or the certificate would hold more
    /// nodes than the cap ([`Prover::set_proof_cap`], at first
    /// [`crate::MAX_PROOF_NODES`]; [`ProveError::ProofTooLarge`]).
    pub fn certify_draw(&mut self, game: &Game) -> Result<Option<Certificate>, ProveError> {
        self.check(game)?;
        if let Some(outcome) = game.outcome() {
            if outcome != Outcome::Draw {
                return Ok(None);
            }
        } else {
            for maker in [Player::X, Player::O] {
                if self.maker_wins(game, maker)? {
                    return Ok(None);
                }
            }
        }
        let mut builder = CertificateBuilder::new();
        let mut trees = Vec::new();
        for holder in [Player::X, Player::O] {
            let Some(root) = self.write_hold(&mut builder, game, holder)? else {
                return Ok(None);
            };
            trees.push(Tree {
                prover: holder,
                goal: Goal::Draw,
                root,
            });
        }
        Ok(Some(builder.finish(game, Claim::Draw, trees)))
    }

    /// One side's half of a draw's certificate: a certificate of `game`
    /// holding only the tree that proves `holder` does not lose, from its
    /// Breaker proof, for assembling with other parts (alone it does not
    /// prove its claim of a draw, and the verifier says so). `None` when
    /// the other side forces a line against a mere blocker.
    ///
    /// # Errors
    /// As [`Prover::certify_draw`].
    pub fn certify_hold(
        &mut self,
        game: &Game,
        holder: Player,
    ) -> Result<Option<Certificate>, ProveError> {
        let mut builder = CertificateBuilder::new();
        let Some(root) = self.write_hold(&mut builder, game, holder)? else {
            return Ok(None);
        };
        let tree = Tree {
            prover: holder,
            goal: Goal::Draw,
            root,
        };
        Ok(Some(builder.finish(game, Claim::Draw, vec![tree])))
    }

    /// Write into `builder` a tree proving that `holder` does not lose at
    /// `game`, from its Breaker proof, and return its root node; `None`
    /// when the other side forces a line against a mere blocker (or has
    /// won).
    ///
    /// # Errors
    /// As [`Prover::certify_draw`].
    pub fn write_hold(
        &mut self,
        builder: &mut CertificateBuilder,
        game: &Game,
        holder: Player,
    ) -> Result<Option<usize>, ProveError> {
        self.check(game)?;
        let maker = holder.other();
        match game.outcome() {
            Some(Outcome::Win(p)) if p == maker => return Ok(None),
            Some(_) => {}
            None => {
                if self.maker_wins(game, maker)? {
                    return Ok(None);
                }
            }
        }
        self.start();
        let pos = Pos {
            maker: self.board.oriented(game, maker),
            breaker: self.board.oriented(game, holder),
        };
        let mut walk = Walk::new(builder, holder, Goal::Draw);
        self.node(&mut walk, game, &pos).map(Some)
    }

    /// The node proving the walk's goal for its prover at `game` (`pos` on
    /// the prover's boards, the Maker's stones the other side's for a
    /// draw, the prover's own for a win), where the search proves it.
    fn node(&mut self, walk: &mut Walk, game: &Game, pos: &Pos) -> Result<usize, ProveError> {
        let key = (pos.maker[0], pos.breaker[0]);
        if let Some(&node) = walk.memo.get(&key) {
            return Ok(node);
        }
        if walk.builder.len() >= self.proof_cap {
            return Err(ProveError::ProofTooLarge {
                nodes: self.proof_cap as u64,
            });
        }
        // A symmetric image of a position already written refers to it.
        let (sym, maker, breaker) = self.canonical(pos);
        let canonical = (maker, breaker);
        if !game.is_over()
            && let Some(&(target, target_sym)) = walk.images.get(&canonical)
        {
            let symmetry = self.certificate_symmetry(target_sym, sym);
            let id = walk
                .builder
                .push(game, walk.prover, Node::Image(symmetry, target));
            walk.memo.insert(key, id);
            return Ok(id);
        }
        let node = match game.outcome() {
            // The other side's line cannot be reached (the search proved
            // the prover's goal); if it were, the verifier would refuse the
            // leaf.
            Some(Outcome::Win(_)) => Node::Won,
            Some(Outcome::Draw) => Node::Full,
            None => match (walk.goal, game.to_move() == walk.prover) {
                (Goal::Draw, true) => self.breaker_turn(walk, game, pos)?,
                (Goal::Draw, false) => self.maker_turn(walk, game, pos)?,
                (Goal::Win, true) => self.attacker_turn(walk, game, pos)?,
                (Goal::Win, false) => self.defender_turn(walk, game, pos)?,
            },
        };
        let id = walk.builder.push(game, walk.prover, node);
        walk.memo.insert(key, id);
        walk.images.insert(canonical, (id, sym));
        Ok(id)
    }

    /// The certificate's number ([`oxo_core::Symmetry::number`]) of the
    /// symmetry taking the position that prover symmetry `from` sends to a
    /// canonical form, to the one that `to` sends there: `from`, then `to`
    /// undone.
    fn certificate_symmetry(&self, from: usize, to: usize) -> usize {
        let board = &self.board;
        board
            .symmetry(from)
            .then(board.symmetry(to).inverse())
            .number()
    }

    /// The windows the Maker can still fill at `pos`: their empty cells,
    /// the cells of those down to one, and whether the Erdős–Selfridge
    /// criterion holds for the Breaker (as the verifier computes it).
    fn scan(&self, pos: &Pos, maker_turn: bool) -> Scan {
        let board = &self.board;
        let (maker, breaker) = (pos.maker[0], pos.breaker[0]);
        let empty = board.valid & !(maker | breaker);
        let k = board.k;
        let mut scan = Scan {
            empty,
            live: 0,
            fours: 0,
            potential: k <= MAX_POTENTIAL_K,
        };
        let mut sum = 0u128;
        for &w in &board.windows {
            if w & breaker != 0 {
                continue;
            }
            let free = w & empty;
            scan.live |= free;
            if free.count_ones() == 1 {
                scan.fours |= free;
            }
            if scan.potential {
                // At most 256 windows of weight up to 2^100: no overflow.
                sum += 1 << (k - free.count_ones());
            }
        }
        scan.potential &= sum < 1 << (k - u32::from(maker_turn));
        scan
    }

    /// The Breaker's turn: a pairing after its move, or the move the
    /// search proves.
    fn breaker_turn(
        &mut self,
        walk: &mut Walk,
        game: &Game,
        pos: &Pos,
    ) -> Result<Node, ProveError> {
        let scan = self.scan(pos, false);
        if scan.live == 0 || scan.potential {
            return Ok(Node::Potential);
        }
        let (maker, breaker) = (pos.maker[0], pos.breaker[0]);
        let board = &self.board;
        // The Breaker facing a four must take its cell.
        let moves = if scan.fours == 0 {
            scan.live
        } else {
            scan.fours
        };
        if let Some(strategy) =
            pairing_strategy(board, maker, breaker, board.valid, moves, LOOKAHEAD_BUDGET)
        {
            let pairs = cell_pairs(&strategy.pairs);
            let Some(stone) = strategy.stone else {
                return Ok(Node::Pairs(pairs));
            };
            let (next, child) = self.played(game, pos, stone, false);
            let node = if next.is_over() {
                self.node(walk, &next, &child)?
            } else {
                let node = walk.builder.push(&next, walk.prover, Node::Pairs(pairs));
                walk.memo.insert((child.maker[0], child.breaker[0]), node);
                node
            };
            return Ok(Node::Move(stone as usize, node));
        }
        // The search's order: the cell in the most live windows first (a
        // window the Maker nearly fills counting twice), within the zones
        // of the moves that failed (and their images under the position's
        // symmetries).
        let mut scores = [0u32; 128];
        for &w in &board.windows {
            if w & breaker == 0 {
                for c in bits(w & scan.empty & moves) {
                    scores[c as usize] += breaker_weight(w, maker, board.k);
                }
            }
        }
        let stabilizer = self.stabilizer(pos);
        let (mut allowed, mut settled) = (moves, 0u128);
        while allowed & !settled != 0 {
            let board = &self.board;
            let x = bits(allowed & !settled)
                .max_by_key(|&c| {
                    (
                        scores[c as usize],
                        std::cmp::Reverse(board.rank[c as usize]),
                    )
                })
                .expect("a candidate is left");
            let (next, child) = self.played(game, pos, x, false);
            let proof = self.prove(&child, true).ok_or_else(|| self.over_budget())?;
            if !proof.maker_wins {
                return Ok(Node::Move(x as usize, self.node(walk, &next, &child)?));
            }
            settled |= 1 << x;
            allowed &= proof.zone;
            for &s in &stabilizer {
                settled |= 1 << self.board.map(s, x);
                allowed &= self.board.map_set(s, proof.zone);
            }
        }
        // Unreachable while the search is right: it proved the Breaker
        // wins here, and the loop above follows its own steps. A leaf the
        // verifier refuses keeps a wrong answer from passing unnoticed.
        Ok(Node::Potential)
    }

    /// The Maker's turn: a pairing now, or each Maker move that needs a
    /// node of its own, the rest clause answering the others.
    fn maker_turn(&mut self, walk: &mut Walk, game: &Game, pos: &Pos) -> Result<Node, ProveError> {
        let scan = self.scan(pos, true);
        if scan.live == 0 || scan.potential {
            return Ok(Node::Potential);
        }
        let (maker, breaker) = (pos.maker[0], pos.breaker[0]);
        let board = &self.board;
        if let Some(strategy) =
            pairing_strategy(board, maker, breaker, board.valid, 0, PAIRING_BUDGET)
        {
            return Ok(Node::Pairs(cell_pairs(&strategy.pairs)));
        }
        // The search's order: the cell whose live windows weigh most, a
        // window weighing 2 to the power of the Maker's stones in it; then
        // the cells in no live window, which every zone leaves out.
        let mut scores = [0u32; 128];
        for &w in &board.windows {
            if w & breaker == 0 {
                for c in bits(w & scan.empty) {
                    scores[c as usize] += 1 << (w & maker).count_ones();
                }
            }
        }
        let order = self.by_score(scan.empty, &scores);
        self.replies(walk, game, pos, &order, true)
    }

    /// The other side's turn: each of its moves (`order`, every empty
    /// cell, the Maker's when `maker`) that needs a node of its own, the
    /// rest clause answering the others ([`Node::replies`]).
    fn replies(
        &mut self,
        walk: &mut Walk,
        game: &Game,
        pos: &Pos,
        order: &[u32],
        maker: bool,
    ) -> Result<Node, ProveError> {
        let moves: Vec<usize> = order.iter().map(|&y| y as usize).collect();
        Node::replies(&moves, |y| {
            let (next, child) = self.played(game, pos, y as u32, maker);
            let node = self.node(walk, &next, &child)?;
            Ok((node, walk.builder.zone(node)))
        })
    }

    /// The winner's turn in the real game: a line completed at once, else
    /// the other side's four blocked, else the first move after which the
    /// search proves the win: a position already written (it costs no
    /// node), then the moves that make a four (the loser's replies but one
    /// then lose at once), then the real game's search order.
    fn attacker_turn(
        &mut self,
        walk: &mut Walk,
        game: &Game,
        pos: &Pos,
    ) -> Result<Node, ProveError> {
        let empty = self.board.valid & !(pos.maker[0] | pos.breaker[0]);
        let own = self.scan(pos, true).fours;
        let swapped = Pos {
            maker: pos.breaker,
            breaker: pos.maker,
        };
        let theirs = self.scan(&swapped, false).fours;
        let candidates = if own != 0 {
            own & own.wrapping_neg()
        } else if theirs != 0 {
            theirs
        } else {
            empty
        };
        let mut order = self.real_order(pos, true, candidates);
        // Moves that make a four first: the loser's replies but one then
        // lose at once, two nodes each.
        let fours = self
            .board
            .four_makers(pos.breaker[0], empty)
            .fold(0, |cells, pair| cells | pair);
        order.sort_by_key(|&x| fours & 1 << x == 0);
        let written = order.iter().copied().find(|&x| {
            let (_, child) = self.played(game, pos, x, true);
            walk.memo.contains_key(&(child.maker[0], child.breaker[0]))
                || walk.images.contains_key(&{
                    let (_, maker, breaker) = self.canonical(&child);
                    (maker, breaker)
                })
        });
        for x in written.into_iter().chain(order) {
            let (next, child) = self.played(game, pos, x, true);
            let proof = self
                .real_wins(&child, false)
                .ok_or_else(|| self.over_budget())?;
            if proof.wins {
                return Ok(Node::Move(x as usize, self.node(walk, &next, &child)?));
            }
        }
        // Unreachable while the search is right (it proved the win here);
        // a draw-holding leaf in a win tree is refused by the verifier.
        Ok(Node::Potential)
    }

    /// The other side's turn in the real game: every reply, in the real
    /// game's search order for the defender, the rest clause answering
    /// those outside a written reply's zone.
    fn defender_turn(
        &mut self,
        walk: &mut Walk,
        game: &Game,
        pos: &Pos,
    ) -> Result<Node, ProveError> {
        let empty = self.board.valid & !(pos.maker[0] | pos.breaker[0]);
        let order = self.real_order(pos, false, empty);
        self.replies(walk, game, pos, &order, false)
    }

    /// The cells of `cells` in the real game's search order at `pos` for
    /// the side to move (the attacker when `attacker_turn`): by
    /// [`Self::move_scores`], threats first.
    fn real_order(&self, pos: &Pos, attacker_turn: bool, cells: u128) -> Vec<u32> {
        self.by_score(cells, &self.move_scores(pos, attacker_turn, cells))
    }

    /// The cells of `cells`, the highest score first, then in the board's
    /// rank order.
    fn by_score(&self, cells: u128, scores: &[u32; 128]) -> Vec<u32> {
        let mut order: Vec<u32> = bits(cells).collect();
        order.sort_by_key(|&c| {
            (
                std::cmp::Reverse(scores[c as usize]),
                self.board.rank[c as usize],
            )
        });
        order
    }

    /// The symmetries (other than the identity) that leave `pos` as it is.
    fn stabilizer(&self, pos: &Pos) -> Vec<usize> {
        (1..self.board.symmetry_count())
            .filter(|&s| pos.maker[s] == pos.maker[0] && pos.breaker[s] == pos.breaker[0])
            .collect()
    }

    /// `game` and `pos` after a stone on `cell`, the Maker's or the
    /// Breaker's.
    fn played(&self, game: &Game, pos: &Pos, cell: u32, maker: bool) -> (Game, Pos) {
        let mut next = game.clone();
        next.play_unchecked(game.rules().cell_at(cell as usize));
        let mut child = *pos;
        if maker {
            self.board.place(&mut child.maker, cell);
        } else {
            self.board.place(&mut child.breaker, cell);
        }
        (next, child)
    }
}

/// A walk under way: the tree's table, and the node of each position
/// already written (by the Maker's and the Breaker's stones).
struct Walk<'a> {
    builder: &'a mut CertificateBuilder,
    memo: HashMap<(u128, u128), usize>,
    /// Each position written as a node of its own, by its canonical form:
    /// the node and the prover symmetry that gives that form.
    images: HashMap<(u128, u128), (usize, usize)>,
    /// The tree's prover: the Breaker of a draw's half, the winner of a
    /// win.
    prover: Player,
    goal: Goal,
}

impl<'a> Walk<'a> {
    fn new(builder: &'a mut CertificateBuilder, prover: Player, goal: Goal) -> Walk<'a> {
        Walk {
            builder,
            memo: HashMap::new(),
            images: HashMap::new(),
            prover,
            goal,
        }
    }
}

/// What [`Prover::scan`] finds.
struct Scan {
    empty: u128,
    live: u128,
    fours: u128,
    potential: bool,
}

fn cell_pairs(pairs: &[(u32, u32)]) -> Vec<(usize, usize)> {
    pairs
        .iter()
        .map(|&(a, b)| (a as usize, b as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use oxo_core::proof::{Certificate, Claim, Node, ProofError};
    use oxo_core::{Game, Player, Rules};

    use super::super::{ProveError, Prover};

    fn draw_certificate(rows: u32, cols: u32, k: u32) -> (Game, Certificate) {
        let game = Game::new(Rules::new(rows, cols, k).unwrap());
        let mut prover = Prover::new(game.rules(), 16 << 20).unwrap();
        let cert = prover.certify_draw(&game).unwrap().expect("a draw");
        (game, cert)
    }

    fn verify(text: &str) -> Result<Claim, ProofError> {
        Ok(Certificate::parse(text)?.verify()?.claim)
    }

    /// Draws the prover proves as two Breaker proofs come with
    /// certificates the verifier accepts; where a side forces a line
    /// against a mere blocker there is none.
    #[test]
    fn certificates_of_draws_from_the_prover() {
        for (rows, cols, k) in [(3, 3, 3), (4, 4, 4), (5, 5, 5), (6, 6, 5)] {
            let game = Game::new(Rules::new(rows, cols, k).unwrap());
            let mut prover = Prover::new(game.rules(), 16 << 20).unwrap();
            let cert = prover.certify_draw(&game).unwrap();
            // X forces three in a row on 3×3 against a mere blocker.
            let Some(cert) = cert else {
                assert_eq!(rows, 3, "{}", game.rules());
                continue;
            };
            assert_eq!(verify(&cert.to_text()), Ok(Claim::Draw), "{}", game.rules());
        }
        let game = Game::new(Rules::new(5, 5, 4).unwrap());
        let mut prover = Prover::new(game.rules(), 16 << 20).unwrap();
        assert!(prover.certify_draw(&game).unwrap().is_none());
    }

    /// (7,7,5)'s draw certificate from the prover, with its figures:
    /// `cargo test -p oxo-ai --release --lib seven_by_seven_k5_is_certified -- --ignored --nocapture`
    /// (minutes in a debug build).
    #[test]
    #[ignore = "minutes in a debug build"]
    fn seven_by_seven_k5_is_certified_a_draw() {
        let game = Game::new(Rules::new(7, 7, 5).unwrap());
        let mut prover = Prover::new(game.rules(), 64 << 20).unwrap();
        let started = std::time::Instant::now();
        let cert = prover.certify_draw(&game).unwrap().unwrap();
        let made = started.elapsed();
        let text = cert.to_text();
        let started = std::time::Instant::now();
        assert_eq!(verify(&text), Ok(Claim::Draw));
        eprintln!(
            "7x7 k=5: {} nodes, {} bytes, written in {made:.2?}, verified in {:.2?}",
            cert.nodes.len(),
            text.len(),
            started.elapsed()
        );
    }

    /// Boards over 64 cells (up to 11×11) that the prover proves drawn
    /// get certificates the verifier accepts.
    #[test]
    fn draws_beyond_64_cells_are_certified() {
        let mut images = 0;
        for (rows, cols, k) in [(11, 6, 6), (9, 9, 7), (10, 10, 7), (11, 11, 8), (9, 8, 6)] {
            let (game, cert) = draw_certificate(rows, cols, k);
            assert!(game.rules().cell_count() > 64);
            let text = cert.to_text();
            assert_eq!(verify(&text), Ok(Claim::Draw), "{}", game.rules());
            images += cert
                .nodes
                .iter()
                .filter(|n| matches!(n, Node::Image(..)))
                .count();
        }
        assert!(images > 0);
    }

    /// Each listed Maker reply of the first rest clause dropped in turn, on
    /// 9×8 k=6: refused at that node, for a move no listed reply's zone
    /// leaves out any more, or else still a draw.
    #[test]
    fn an_altered_certificate_is_refused_where_it_breaks() {
        let (_, cert) = draw_certificate(9, 8, 6);
        let (node, answers) = cert
            .nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| match n {
                Node::Rest(answers) if answers.len() > 1 => Some((i, answers.clone())),
                _ => None,
            })
            .expect("a rest clause");
        let mut refused = 0;
        for dropped in 0..answers.len() {
            let mut damaged = cert.clone();
            let mut fewer = answers.clone();
            fewer.remove(dropped);
            damaged.nodes[node] = Node::Rest(fewer);
            match Certificate::parse(&damaged.to_text()).unwrap().verify() {
                Ok(v) => assert_eq!(v.claim, Claim::Draw),
                Err(ProofError::Step {
                    node: at, reason, ..
                }) => {
                    // The dropped move, or one it was the model for.
                    assert_eq!(at, node, "{reason}");
                    assert!(reason.contains("left to the rest clause"), "{reason}");
                    refused += 1;
                }
                Err(ProofError::Header(reason)) => assert!(reason.contains("not reached")),
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(refused > 0);
        // A symmetric image under another symmetry: refused at the image
        // or its target, unless the position is symmetric under it too.
        let mut wrong = 0;
        for (at, node) in cert.nodes.iter().enumerate().take(2000) {
            let &Node::Image(symmetry, target) = node else {
                continue;
            };
            let mut damaged = cert.clone();
            damaged.nodes[at] = Node::Image(symmetry ^ 2, target);
            match damaged.verify() {
                Ok(v) => assert_eq!(v.claim, Claim::Draw),
                Err(ProofError::Step { .. }) => wrong += 1,
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(wrong > 0);
        // A pair with a cell moved onto a stone: refused at that leaf.
        let (leaf, pairs) = cert
            .nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| match n {
                Node::Pairs(pairs) => Some((i, pairs.clone())),
                _ => None,
            })
            .expect("a pairing");
        let mut damaged = cert.clone();
        let mut moved = pairs.clone();
        moved[0].1 = moved[0].0;
        damaged.nodes[leaf] = Node::Pairs(moved);
        match damaged.verify() {
            Err(ProofError::Step { node, reason, .. }) => {
                assert_eq!(node, leaf);
                assert!(reason.contains("used twice"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// Random byte damage to a certificate of a board over 64 cells never
    /// panics and never proves another value.
    #[test]
    fn damaged_big_certificates_never_prove_another_value() {
        let (_, cert) = draw_certificate(11, 6, 6);
        let text = cert.to_text();
        let mut state = 0x6464_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap()
        };
        for _ in 0..300 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + next(3) {
                let at = next(bytes.len());
                match next(3) {
                    0 => bytes[at] = b"0123456789 :-amwfpres\n"[next(22)],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.truncate(at.max(1)),
                }
            }
            if let Ok(damaged) = String::from_utf8(bytes)
                && let Ok(claim) = verify(&damaged)
            {
                assert_eq!(claim, Claim::Draw, "{damaged}");
            }
        }
    }

    /// A line the side to move completes at once, and a finished game,
    /// are certified wins; one side's tree alone does not prove a draw.
    #[test]
    fn wins_at_once_and_one_sided_parts() {
        let game = Game::from_notation(
            "XXXXX..../OOOOO..../........./........./........./........./........./........./.........",
            6,
        )
        .unwrap();
        let mut prover = Prover::new(game.rules(), 1 << 20).unwrap();
        let cert = prover.certify(&game).unwrap().unwrap();
        assert_eq!(verify(&cert.to_text()), Ok(Claim::Win(Player::X)));
        let empty = Game::new(Rules::new(9, 9, 7).unwrap());
        let mut prover = Prover::new(empty.rules(), 1 << 20).unwrap();
        let half = prover.certify_hold(&empty, Player::O).unwrap().unwrap();
        assert_eq!(half.trees.len(), 1);
        assert!(matches!(half.verify(), Err(ProofError::Header(_))));
    }

    /// The certificate `Prover::certify` writes for `notation`.
    fn certificate_of(notation: &str, k: u32) -> (Game, Certificate) {
        let game = Game::from_notation(notation, k).unwrap();
        let mut prover = Prover::new(game.rules(), 16 << 20).unwrap();
        let cert = prover.certify(&game).unwrap().expect("a certificate");
        (game, cert)
    }

    /// Real-game wins that take a forcing sequence (wins of the side to
    /// move and of the other side) on 7×7 k=5, 8×8 k=5 and 9×7 k=5 get
    /// certificates the verifier accepts.
    #[test]
    fn real_game_wins_are_certified() {
        use Player::{O, X};
        for (notation, winner, at_least) in [
            // X to move, O wins.
            (
                "......./.O.O.X./...O.O./.XXOX../.X...../......./.......",
                O,
                1_000,
            ),
            // X to move and wins.
            (
                "......./..O.X../..X..O./.OX.XX./...O.O./......./.......",
                X,
                500,
            ),
            // O to move, X wins.
            (
                "......./.X..OO./.OXX.../.O..X../....XX./.O...../.......",
                X,
                1_000,
            ),
            (
                "......../......../....X.../..OXX.../...X.O../..O..O../..XO..X./........",
                O,
                1_000,
            ),
            (
                "......./......./......./.XX..../.O.O.../.X..XO./.XOOX../......./.......",
                O,
                1_000,
            ),
            (
                "......./......./.X...../..O.O../..X.OX./..OX.../.XOOX../......./.......",
                X,
                50,
            ),
        ] {
            let (game, cert) = certificate_of(notation, 5);
            assert_eq!(cert.claim, Claim::Win(winner), "{game}");
            assert_eq!(verify(&cert.to_text()), Ok(Claim::Win(winner)), "{game}");
            assert!(cert.nodes.len() >= at_least, "{game}: {}", cert.nodes.len());
        }
    }

    /// A win whose tree would pass the size cap is refused as too large,
    /// not cut short.
    #[test]
    fn a_win_over_the_size_cap_is_refused() {
        let game =
            Game::from_notation("......./..O.X../..X..O./.OX.XX./...O.O./......./.......", 5)
                .unwrap();
        let mut prover = Prover::new(game.rules(), 16 << 20).unwrap();
        prover.set_proof_cap(100);
        assert_eq!(
            prover.certify(&game).unwrap_err(),
            ProveError::ProofTooLarge { nodes: 100 }
        );
    }

    /// A win certificate with one reply of the loser taken out, or one of
    /// the winner's moves changed, is refused at the node that breaks.
    #[test]
    fn an_altered_win_is_refused_where_it_breaks() {
        let (_, cert) =
            certificate_of("......./..O.X../..X..O./.OX.XX./...O.O./......./.......", 5);
        let (node, answers, rest) = cert
            .nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| match n {
                Node::Answers(answers) => Some((i, answers.clone(), false)),
                Node::Rest(answers) if answers.len() > 1 => Some((i, answers.clone(), true)),
                _ => None,
            })
            .expect("a turn of the loser");
        let mut refused = 0;
        for dropped in 0..answers.len() {
            let mut fewer = answers.clone();
            fewer.remove(dropped);
            let mut damaged = cert.clone();
            damaged.nodes[node] = if rest {
                Node::Rest(fewer)
            } else {
                Node::Answers(fewer)
            };
            match damaged.verify() {
                // A rest clause may answer it as another listed move.
                Ok(v) => assert!(rest && v.claim == Claim::Win(Player::X)),
                Err(ProofError::Step {
                    node: at, reason, ..
                }) => {
                    assert_eq!(at, node, "{reason}");
                    let missing = format!("move {} of O", answers[dropped].0);
                    assert!(reason.contains(&missing), "{reason}");
                    refused += 1;
                }
                Err(other) => panic!("{other:?}"),
            }
        }
        assert!(refused > 0);
        // A winning move played elsewhere: refused at the won leaf, no
        // win there.
        let (at, cell, won) = cert
            .nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| match *n {
                Node::Move(cell, won) if cert.nodes[won] == Node::Won => Some((i, cell, won)),
                _ => None,
            })
            .expect("a winning move");
        let mut damaged = cert.clone();
        damaged.nodes[at] = Node::Move(if cell == 0 { 6 } else { 0 }, won);
        match damaged.verify() {
            // Refused at the leaf, or at the move if its cell is taken.
            Err(ProofError::Step { node, reason, .. }) => {
                assert!(
                    node == won || (node == at && reason.contains("illegal")),
                    "{node}: {reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
