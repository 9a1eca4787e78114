//! Proof certificates: a game's value written down so that anyone can check
//! it with the rules alone, without searching.
//!
//! A certificate holds the root position, the value it claims and one or
//! two strategy trees over a shared table of nodes (a DAG: a position
//! reached by several move orders is stored once). A tree proves that its
//! *prover* wins, or that it does not lose (at least a draw). A claimed win
//! for P needs a tree proving P wins; a claimed draw needs a tree each way
//! (X does not lose, O does not lose).
//!
//! In a tree, the prover's turn has one move. The other side's turn lists
//! legal moves, each with its node, and either lists them all or ends with
//! a *rest clause*: "every other legal move is answered as a listed move
//! is, one whose node's zone leaves it out". The leaves are:
//! - a finished game the prover has won (`w`);
//! - a full board (`f`, for "at least a draw");
//! - a *pairing* (`p`, for "at least a draw"): disjoint pairs of empty
//!   cells such that every window without a prover mark holds both cells
//!   of one pair. Whoever moves, the prover then answers each move into a
//!   pair with the pair's other cell, and the opponent never fills a
//!   window;
//! - an *Erdős–Selfridge* leaf (`e`, for "at least a draw"): the windows
//!   the opponent can still fill (no prover mark) are so few and so empty
//!   that Σ 2^−(empty cells of W) < ½ with the opponent to move, or < 1
//!   with the prover to move. By Erdős and Selfridge's potential argument
//!   ("On a combinatorial game", J. Combin. Theory A 14, 1973) the prover,
//!   always taking the empty cell whose open windows weigh most, keeps the
//!   sum below 1 after each of its moves, and a filled window alone weighs
//!   1: the opponent never fills one.
//!
//! A node may also stand for a *symmetric image* (`s T N`, version 3):
//! its position is the image, under the board symmetry T (a rotation or a
//! reflection that maps the board onto itself), of the position of node
//! N, which is not itself such a node; the prover follows N with every
//! cell mapped by T. Symmetries map windows to windows, so a strategy and
//! its image hold alike.
//!
//! # Zones, and why a rest clause is sound
//!
//! Every node has a *zone*, a set of cells the verifier computes from the
//! certificate alone, bottom up over the DAG:
//! - a won leaf, an Erdős–Selfridge leaf: the empty cells of every window
//!   without a prover mark (the windows the opponent could still fill);
//! - a full board: no cell (it has no empty one);
//! - a pairing: the cells of its pairs;
//! - the prover's move `m` to node `c`: {m} ∪ zone(c);
//! - the other side's turn: the union over its listed moves `x` to `c` of
//!   {x} ∪ zone(c);
//! - a symmetric image `s T N`: the image under T of zone(N).
//!
//! A rest clause at position P is accepted when every unlisted legal move
//! `y` lies outside the zone of some listed move's node: the first listed
//! `x1`, with node `c1` (proved at P + x1), such that `y` ∉ zone(c1). The
//! claim behind it: if the real opponent plays `y`, the prover follows
//! `c1` as if the opponent had played `x1`.
//!
//! **Lemma.** Let node `n` be verified at position Q for the prover, and
//! let R be a position with the same side to move, the same prover marks,
//! and opponent marks R ⊆ Q ∪ E, where E is a set of cells empty in Q and
//! outside zone(n). Then the prover reaches the node's goal from R (win:
//! completes a line first; draw: the opponent never completes a line).
//!
//! *Proof.* The prover keeps an *imagined* position I = Q' ∪ E' beside the
//! real one, where Q' is the position of its current node `n'` and E' is
//! empty in Q' and outside zone(n'); the prover marks are the same in I and
//! in the real game and the real opponent's marks are a subset of I's.
//! Zones only shrink going down (each parent's zone holds its children's),
//! so the invariant passes from parent to child:
//! - at the prover's move `m`: `m` is in the zone, so not in E', and empty
//!   in Q', so empty in I and in the real game (fewer marks): it is legal;
//! - at the other side's turn, a real move `y` that is empty in I: if it is
//!   listed, follow its node (it is in the zone, so not in E'); if not, it
//!   lies outside zone(c1) and differs from `x1`: follow `c1`, whose
//!   position Q' + x1 lacks `y`, adding `y` to E' (E' was outside
//!   zone(n) ⊇ zone(c1) and ∌ x1, which is in zone(n));
//! - at a symmetric image `s T N` (position Q' = T(Q_N)): the prover
//!   goes on with N in the frame of T, reading every real move through
//!   T⁻¹ and playing the image under T of N's moves. The invariant maps
//!   with it: T⁻¹(I) = Q_N ∪ T⁻¹(E'), and T⁻¹(E') is empty in Q_N and
//!   outside zone(N) exactly when E' is empty in Q' and outside
//!   T(zone(N)), the image node's zone. Lines and windows map to lines
//!   and windows, so what the lemma says of N in its frame holds of the
//!   image in the real one. (N is never an image itself, so following
//!   images always reaches a node of another kind at once.)
//! - a real move on a cell already opponent's in I (one imagined before):
//!   the imagined opponent plays any empty cell of I instead, handled as
//!   above. One exists: the zone of a node at the other side's turn holds a
//!   legal move of Q' (a listed one: a rest clause needs one), and it is
//!   not in E'.
//!
//! The tree is finite (each step adds a mark), so every play reaches a
//! leaf with I = Q ∪ E, E empty in Q and outside the leaf's zone. The real
//! prover completes a line exactly when I's does (the same marks); the real
//! board is never full before I's (it has at least as many empty cells).
//! Suppose the real opponent fills a window L at some point. L ⊆ I's
//! opponent marks from then on, and it stays free of prover marks (the
//! prover only plays cells empty in I): follow the tree on from there
//! with any moves to a leaf; L is a window without prover marks, inside
//! Q ∪ E, at that leaf. At a won or an Erdős–Selfridge leaf, every empty
//! cell of such a window is in the zone, so L ⊆ Q: the opponent has a line
//! in Q, which the rules rule out (the game stops at the first line, and
//! neither leaf is a position the opponent has won). At a pairing, L holds
//! both cells of a pair, in the zone, so empty in I: impossible. At a full
//! board, E is empty (Q has no empty cell) and Q is a draw. So the
//! opponent never fills a window, which proves "does not lose"; a won leaf
//! is reached with the prover's line complete, which proves "wins"; and
//! from a leaf on, the leaf's own strategy plays on in the real game: the
//! pairing's answers (both cells of every pair are empty there), the
//! Erdős–Selfridge greedy move (fewer opponent marks only lower the sum),
//! or, past a full imagined board, any move (the real opponent can only
//! fill cells of Q's opponent marks, which hold no line). ∎
//!
//! The root is verified at the certificate's position with E = ∅, so the
//! lemma is exactly "the tree proves its goal". The argument leans on two
//! facts of the rules: a line of k or more wins (overlines count, so one
//! more opponent mark never undoes an opponent line), and the game stops
//! at the first line.
//!
//! [`Certificate::verify`] is deliberately small and uses only the rules
//! ([`Game::play`], [`Rules::windows`]) and the zone fold ([`zone_of`]): it
//! walks every tree from the root, plays each move, and checks each step.
//! [`CertificateBuilder`] is how a search writes one. The text format is in
//! `docs/manual/solve.md`.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use crate::{BoardSize, Game, Outcome, Player, Rules, Symmetry};

/// The first line of the newest version of the format, which symmetric
/// images ([`Node::Image`]) need. A certificate without them is written as
/// version 2 ([`MAGIC_V2`]), which programs before version 3 read too.
pub const MAGIC: &str = "oxo-proof 3";

/// The first line of version 2 certificates: rest clauses and
/// Erdős–Selfridge leaves, no symmetric images.
pub const MAGIC_V2: &str = "oxo-proof 2";

/// The first line of version 1 certificates, which are still read: every
/// reply listed, no rest clauses, no Erdős–Selfridge leaves.
pub const MAGIC_V1: &str = "oxo-proof 1";

/// The most cells a certificate's board may have. The check walks the
/// trees depth first, one level a move, so this bounds its depth (and a
/// hostile file cannot make it recurse without end); 16×16 fits.
pub const MAX_CELLS: usize = 256;

/// The most nodes a certificate may announce.
pub const MAX_NODES: usize = 1 << 28;

/// The most strategy trees a certificate may have: a win needs one, a
/// draw two; the bound keeps a header short.
pub const MAX_TREES: usize = 16;

/// A certificate of `count` nodes, more than the memory this process can
/// have holds for its nodes and the check's table of them (reserved at
/// once; what else the check takes, about 100 bytes a node in all, is not,
/// so a file near the limit may still run out of memory).
fn too_many_for_memory(count: usize) -> ProofError {
    ProofError::Header(format!(
        "{count} nodes are more than this machine's memory holds for the check (about 100 bytes a node)"
    ))
}

/// Bytes that no line of a certificate of up to [`MAX_CELLS`] cells needs
/// (a node line lists each cell at most once: a few thousand bytes), so a
/// reader may refuse a longer line as no certificate's without reading on
/// (`oxo verify` does).
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// The largest k an Erdős–Selfridge leaf is checked for (its sum is
/// computed exactly in 128 bits).
pub const MAX_POTENTIAL_K: u32 = 100;

/// What a tree proves for its prover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// The prover wins.
    Win,
    /// The prover does not lose: a win or a draw.
    Draw,
}

impl Goal {
    const fn word(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::Draw => "draw",
        }
    }
}

/// The value a certificate claims for its root position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This player wins with perfect play.
    Win(Player),
    /// Neither side can force a win.
    Draw,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Claim::Win(p) => write!(f, "a win for {p}"),
            Claim::Draw => f.write_str("a draw"),
        }
    }
}

/// One node of the table. Cells are row-major indices from 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// The prover's turn: this move, leading to that node.
    Move(usize, usize),
    /// The other side's turn: every legal move with the node it leads to.
    Answers(Vec<(usize, usize)>),
    /// The other side's turn: some legal moves with their nodes, and a rest
    /// clause: every legal move not listed is answered as the first listed
    /// move whose node's zone leaves it out (see the module docs).
    Rest(Vec<(usize, usize)>),
    /// The game is over and the prover has won.
    Won,
    /// The game is over in a draw (the board is full).
    Full,
    /// A pairing strategy for the prover (see the module docs).
    Pairs(Vec<(usize, usize)>),
    /// An Erdős–Selfridge leaf: the opponent's open windows weigh too
    /// little to fill one (see the module docs).
    Potential,
    /// The image under board symmetry `.0` (see [`symmetry_cell`]) of
    /// node `.1`'s position, with its strategy mapped alike (see the
    /// module docs). Node `.1` is not an image itself.
    Image(usize, usize),
}

impl Node {
    /// The other side's turn, written the way the verifier accepts it by
    /// construction: `moves` (every legal move, in the order to prove
    /// them) are taken in turn, and each that lies inside the zone of every
    /// node proved so far here is proved by `prove` (its node and that
    /// node's zone, as [`CertificateBuilder::zone`] gives it); the others
    /// are left to the rest clause. [`Node::Answers`] when every move is
    /// listed, else [`Node::Rest`].
    ///
    /// # Errors
    /// The first error of `prove`.
    pub fn replies<E>(
        moves: &[usize],
        mut prove: impl FnMut(usize) -> Result<(usize, CellSet), E>,
    ) -> Result<Node, E> {
        let mut answers = Vec::new();
        let mut zones: Vec<CellSet> = Vec::new();
        for &y in moves {
            if zones.iter().any(|zone| !zone.contains(y)) {
                continue;
            }
            let (node, zone) = prove(y)?;
            zones.push(zone);
            answers.push((y, node));
        }
        answers.sort_unstable();
        Ok(if answers.len() == moves.len() {
            Node::Answers(answers)
        } else {
            Node::Rest(answers)
        })
    }
}

/// One strategy tree: its prover, its goal and its root node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tree {
    /// The player the tree is a strategy for.
    pub prover: Player,
    /// What it proves.
    pub goal: Goal,
    /// Its root, an index into [`Certificate::nodes`].
    pub root: usize,
}

/// A proof of a position's value.
#[derive(Clone, Debug)]
pub struct Certificate {
    /// The position proved.
    pub game: Game,
    /// Its claimed value.
    pub claim: Claim,
    /// The strategy trees that prove it.
    pub trees: Vec<Tree>,
    /// The nodes the trees share.
    pub nodes: Vec<Node>,
}

/// A set of cells by row-major index, on boards of up to [`MAX_CELLS`]
/// cells: a node's zone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CellSet([u64; MAX_CELLS / 64]);

impl CellSet {
    /// Add `cell`.
    ///
    /// # Panics
    /// If `cell` is not below [`MAX_CELLS`].
    pub fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }

    /// Whether `cell` is in the set (never, off its range).
    #[must_use]
    pub fn contains(&self, cell: usize) -> bool {
        cell < MAX_CELLS && self.0[cell / 64] & 1 << (cell % 64) != 0
    }

    /// The cells in either set.
    #[must_use]
    pub fn union(mut self, other: &CellSet) -> CellSet {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        self
    }

    /// How many cells the set holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set holds no cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The cells, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_CELLS).filter(|&c| self.contains(c))
    }
}

/// Why a certificate is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// Not a certificate at all.
    #[error(
        "not an oxo proof certificate (it must begin with the line `{MAGIC}`, `{MAGIC_V2}` or `{MAGIC_V1}`)"
    )]
    Foreign,
    /// A certificate of a version this program does not read.
    #[error(
        "unsupported certificate version `{0}` (this program reads `{MAGIC_V1}`, `{MAGIC_V2}` and `{MAGIC}`)"
    )]
    Version(String),
    /// A line that does not parse, or a file that ends early.
    #[error("line {line}: {reason}")]
    Syntax {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The certificate's header contradicts itself.
    #[error("{0}")]
    Header(String),
    /// A step of a tree that does not hold.
    #[error("node {node} (position {position}): {reason}")]
    Step {
        /// The node, from 0 (the first node line).
        node: usize,
        /// The position the node stands for.
        position: String,
        /// What does not hold.
        reason: String,
    },
}

/// What a valid certificate proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The position.
    pub position: String,
    /// Its rules.
    pub rules: Rules,
    /// Its value.
    pub claim: Claim,
    /// Positions (nodes) checked.
    pub nodes: usize,
}

impl fmt::Display for Verified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "valid: {} position {}: {} ({} position{})",
            self.rules,
            self.position,
            self.claim,
            self.nodes,
            if self.nodes == 1 { "" } else { "s" }
        )
    }
}

fn cell_list(
    f: &mut fmt::Formatter<'_>,
    head: &str,
    items: &[(usize, usize)],
    sep: char,
) -> fmt::Result {
    f.write_str(head)?;
    for (a, b) in items {
        write!(f, " {a}{sep}{b}")?;
    }
    Ok(())
}

/// A node's line in the text format, without its newline.
impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Move(cell, child) => write!(f, "m {cell} {child}"),
            Node::Answers(answers) => cell_list(f, "a", answers, ':'),
            Node::Rest(answers) => cell_list(f, "r", answers, ':'),
            Node::Won => f.write_str("w"),
            Node::Full => f.write_str("f"),
            Node::Pairs(pairs) => cell_list(f, "p", pairs, '-'),
            Node::Potential => f.write_str("e"),
            Node::Image(symmetry, node) => write!(f, "s {symmetry} {node}"),
        }
    }
}

/// The lines of a certificate's text before its nodes, through `nodes
/// N`: version 3 when it holds symmetric images (`images`), else 2. With
/// one line per node ([`Node`]'s `Display`) and `end`, a certificate's
/// text ([`Certificate::to_text`]); a writer that streams its nodes to a
/// file starts with this.
#[must_use]
pub fn head(game: &Game, claim: Claim, trees: &[Tree], nodes: usize, images: bool) -> String {
    let rules = game.rules();
    let mut out = String::new();
    let _ = writeln!(out, "{}", if images { MAGIC } else { MAGIC_V2 });
    let _ = writeln!(
        out,
        "rules {}x{} k={}",
        rules.rows(),
        rules.cols(),
        rules.k()
    );
    let _ = writeln!(out, "position {game}");
    match claim {
        Claim::Win(p) => {
            let _ = writeln!(out, "claim win {p}");
        }
        Claim::Draw => out.push_str("claim draw\n"),
    }
    for tree in trees {
        let _ = writeln!(
            out,
            "tree {} {} {}",
            tree.prover,
            tree.goal.word(),
            tree.root
        );
    }
    let _ = writeln!(out, "nodes {nodes}");
    out
}

impl Certificate {
    /// The certificate as text (see `docs/manual/solve.md`): version 3
    /// when it holds symmetric images, else version 2.
    #[must_use]
    pub fn to_text(&self) -> String {
        let images = self.nodes.iter().any(|n| matches!(n, Node::Image(..)));
        let mut out = head(
            &self.game,
            self.claim,
            &self.trees,
            self.nodes.len(),
            images,
        );
        for node in &self.nodes {
            let _ = writeln!(out, "{node}");
        }
        out.push_str("end\n");
        out
    }

    /// Read a certificate's text, of version 1, 2 or 3. Only its syntax is
    /// checked here; see [`Certificate::verify`].
    ///
    /// # Errors
    /// A foreign or truncated file, another version, or a malformed line.
    pub fn parse(text: &str) -> Result<Certificate, ProofError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let bad = |line: usize, reason: &str| ProofError::Syntax {
            line,
            reason: reason.to_owned(),
        };
        let version = version(lines.next().map_or("", |(_, l)| l))?;
        let mut next = |what: &str| {
            lines.next().ok_or_else(|| ProofError::Syntax {
                line: text.lines().count() + 1,
                reason: format!("the file ends early, where {what} should be"),
            })
        };
        let (n, line) = next("the rules line")?;
        let rules = line
            .strip_prefix("rules ")
            .and_then(|r| r.split_once(" k="))
            .and_then(|(size, k)| {
                let size: BoardSize = size.parse().ok()?;
                Rules::with_size(size, Some(k.parse().ok()?)).ok()
            })
            .ok_or_else(|| bad(n, "expected `rules RxC k=K` with rules oxo plays"))?;
        if rules.cell_count() > MAX_CELLS {
            return Err(bad(
                n,
                &format!("boards of more than {MAX_CELLS} cells are not checked ({rules})"),
            ));
        }
        let (n, line) = next("the position line")?;
        let game = line
            .strip_prefix("position ")
            .and_then(|p| Game::from_notation(p, rules.k()).ok())
            .filter(|g| g.rules() == rules)
            .ok_or_else(|| {
                bad(
                    n,
                    "expected `position BOARD`, a legal position of these rules",
                )
            })?;
        let (n, line) = next("the claim line")?;
        let claim = match line.strip_prefix("claim ") {
            Some("draw") => Claim::Draw,
            Some("win X") => Claim::Win(Player::X),
            Some("win O") => Claim::Win(Player::O),
            _ => {
                return Err(bad(
                    n,
                    "expected `claim draw`, `claim win X` or `claim win O`",
                ));
            }
        };
        let mut trees = Vec::new();
        let count = loop {
            let (n, line) = next("a tree or the nodes line")?;
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["tree", ..] if trees.len() == MAX_TREES => {
                    return Err(bad(
                        n,
                        &format!("more than {MAX_TREES} trees, which no certificate needs"),
                    ));
                }
                ["tree", p, goal, root] => trees.push(Tree {
                    prover: match *p {
                        "X" => Player::X,
                        "O" => Player::O,
                        _ => return Err(bad(n, "a tree's prover is X or O")),
                    },
                    goal: match *goal {
                        "win" => Goal::Win,
                        "draw" => Goal::Draw,
                        _ => return Err(bad(n, "a tree's goal is win or draw")),
                    },
                    root: root
                        .parse()
                        .map_err(|_| bad(n, "a tree's root is a node number"))?,
                }),
                ["nodes", _] => match announced_nodes(line) {
                    Some(count) if count <= MAX_NODES => break count,
                    Some(_) => {
                        return Err(bad(
                            n,
                            &format!("more than {MAX_NODES} nodes are not checked"),
                        ));
                    }
                    None => return Err(bad(n, "expected `nodes N`")),
                },
                _ => return Err(bad(n, "expected `tree PLAYER GOAL ROOT` or `nodes N`")),
            }
        };
        let mut nodes = Vec::new();
        // All at once, so that a count this machine cannot hold is said
        // (not an abort when memory runs out half way); no more than the
        // file has lines, so that a header announcing more nodes than
        // follow is refused as such below.
        let held = count.min(text.lines().count());
        nodes
            .try_reserve_exact(held)
            .map_err(|_| too_many_for_memory(held))?;
        loop {
            let (n, line) = next("a node or `end`")?;
            if line == "end" {
                break;
            }
            if nodes.len() == count {
                return Err(bad(
                    n,
                    &format!("more node lines than the {count} the header announces"),
                ));
            }
            nodes.push(read_node(version, line).map_err(|why| bad(n, why))?);
        }
        if nodes.len() != count {
            return Err(ProofError::Header(format!(
                "the header announces {count} nodes but {} follow",
                nodes.len()
            )));
        }
        if let Some((n, _)) = lines.next() {
            return Err(bad(n, "text after `end`"));
        }
        Ok(Certificate {
            game,
            claim,
            trees,
            nodes,
        })
    }

    /// Check every step of every tree with the rules alone, and that the
    /// trees prove the claim.
    ///
    /// # Errors
    /// The first step that does not hold: which node, which move, why.
    pub fn verify(&self) -> Result<Verified, ProofError> {
        let needed: &[(Player, Goal)] = match self.claim {
            Claim::Win(p) => &[(p, Goal::Win)],
            Claim::Draw => &[(Player::X, Goal::Draw), (Player::O, Goal::Draw)],
        };
        for &(prover, goal) in needed {
            if !self
                .trees
                .iter()
                .any(|t| t.prover == prover && t.goal == goal)
            {
                return Err(ProofError::Header(format!(
                    "the claim of {} needs a tree proving {prover} {}s, and there is none",
                    self.claim,
                    goal.word()
                )));
            }
        }
        let mut seen = Vec::new();
        seen.try_reserve_exact(self.nodes.len())
            .map_err(|_| too_many_for_memory(self.nodes.len()))?;
        seen.resize(self.nodes.len(), None);
        let mut walk = Walk {
            nodes: &self.nodes,
            seen,
        };
        for tree in &self.trees {
            walk.visit(tree.root, None, &self.game, tree.prover, tree.goal)?;
        }
        if let Some(node) = walk.seen.iter().position(Option::is_none) {
            return Err(ProofError::Header(format!(
                "node {node} is not reached from any tree"
            )));
        }
        Ok(Verified {
            position: self.game.to_string(),
            rules: self.game.rules(),
            claim: self.claim,
            nodes: self.nodes.len(),
        })
    }
}

/// The format version a certificate's first line (without its line end)
/// announces, 1 to 3: what a reader checks before it reads on.
///
/// # Errors
/// [`ProofError::Foreign`] for a line that is not a certificate's first,
/// [`ProofError::Version`] for one of a version this program does not read.
pub fn version(first_line: &str) -> Result<u8, ProofError> {
    match first_line {
        MAGIC => Ok(3),
        MAGIC_V2 => Ok(2),
        MAGIC_V1 => Ok(1),
        l if l.starts_with("oxo-proof ") => Err(ProofError::Version(l.chars().take(40).collect())),
        _ => Err(ProofError::Foreign),
    }
}

/// A certificate's text gathered a line at a time as it is read, so that a
/// file that is not one is refused early: after its first line if that is
/// not a certificate's (`oxo verify /dev/zero` reads 64 KiB, not until
/// memory runs out), at the first line longer than a certificate's can
/// be, at a line after `end`, or at a node line past the count its header
/// announces (so what is held is bounded by the header). The reader does
/// the I/O; this holds the rule.
#[derive(Debug, Default)]
pub struct CertificateLines {
    text: String,
    lines: usize,
    /// The node count the `nodes N` line announced, once it has come, and
    /// the lines since.
    announced: Option<(usize, usize)>,
    /// Whether `end` has come after the nodes.
    ended: bool,
    /// The format's version, from the first line.
    version: u8,
}

impl CertificateLines {
    /// Nothing read yet.
    #[must_use]
    pub fn new() -> CertificateLines {
        CertificateLines::default()
    }

    /// Take the next line as read: its bytes with its line end, if it had
    /// one. A line of more than [`MAX_LINE_BYTES`] bytes, its line end
    /// aside, is no certificate's, so a reader may stop reading one there
    /// and push the [`MAX_LINE_BYTES`] + 1 bytes it has.
    ///
    /// # Errors
    /// [`ProofError::Foreign`] or [`ProofError::Version`] for a first line
    /// that is not a certificate's of a version read here;
    /// [`ProofError::Syntax`] for a later line that is too long or not
    /// text; for a header line [`Certificate::parse`] refuses; and for a
    /// line after `end` or past the nodes the header announced, the error
    /// [`Certificate::parse`] gives the lines so far.
    pub fn push(&mut self, line: &[u8]) -> Result<(), ProofError> {
        self.lines += 1;
        let number = self.lines;
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let cut = body.len() > MAX_LINE_BYTES;
        let chars = match (cut, std::str::from_utf8(line)) {
            // A byte-order mark some editors put first is no part of it.
            (false, Ok(chars)) if number == 1 => chars.strip_prefix('\u{feff}').unwrap_or(chars),
            (false, Ok(chars)) => chars,
            _ if number == 1 => return Err(ProofError::Foreign),
            (true, _) => {
                return Err(ProofError::Syntax {
                    line: number,
                    reason: format!("longer than a certificate's lines ({MAX_LINE_BYTES} bytes)"),
                });
            }
            (false, Err(_)) => {
                return Err(ProofError::Syntax {
                    line: number,
                    reason: "not text".to_owned(),
                });
            }
        };
        // The line as `Certificate::parse` reads it (`str::lines`).
        let plain = chars.strip_suffix('\n').unwrap_or(chars);
        let plain = plain.strip_suffix('\r').unwrap_or(plain);
        if number == 1 {
            self.version = version(plain)?;
            self.text.push_str(chars);
            return Ok(());
        }
        // What is held stays bounded by the header: the header is checked
        // line by line (it is short: `MAX_TREES` trees at most), each node
        // line as it comes, and a line after `end` or past the nodes the
        // header announced is refused. Refused with `Certificate::parse`'s
        // answer for what has come (the earliest fault, which may lie
        // before this line), so that the answer is the one the whole file
        // would get.
        self.text.push_str(chars);
        let answer = |text: &str| {
            Certificate::parse(text)
                .err()
                .unwrap_or(ProofError::Syntax {
                    line: number,
                    reason: "not a certificate's line here".to_owned(),
                })
        };
        if self.ended {
            return Err(answer(&self.text));
        }
        match &mut self.announced {
            None => {
                // A fault at this line is refused now (a partial header
                // always ends early, after it).
                if let Err(e) = Certificate::parse(&self.text)
                    && matches!(&e, ProofError::Syntax { line, .. } if *line == number)
                {
                    return Err(e);
                }
                if let Some(count) = announced_nodes(plain) {
                    self.announced = Some((count, 0));
                }
            }
            Some((count, since)) => {
                *since += 1;
                if plain == "end" {
                    self.ended = true;
                } else if *since > *count || read_node(self.version, plain).is_err() {
                    return Err(answer(&self.text));
                }
            }
        }
        Ok(())
    }

    /// The certificate the lines make.
    ///
    /// # Errors
    /// As [`Certificate::parse`].
    pub fn finish(self) -> Result<Certificate, ProofError> {
        Certificate::parse(&self.text)
    }
}

/// A node line as a file of format `version` reads it, or why it cannot.
fn read_node(version: u8, line: &str) -> Result<Node, &'static str> {
    let node = parse_node(line).ok_or("malformed node line")?;
    if version == 1 && matches!(node, Node::Rest { .. } | Node::Potential) {
        return Err("rest clauses and Erdős–Selfridge leaves need version 2");
    }
    if version < 3 && matches!(node, Node::Image(..)) {
        return Err("symmetric images need version 3");
    }
    Ok(node)
}

/// The count a `nodes N` line gives, as the header reads it (a word that
/// is not a count is no count).
fn announced_nodes(line: &str) -> Option<usize> {
    match line.split(' ').collect::<Vec<_>>().as_slice() {
        ["nodes", count] => count.parse().ok(),
        _ => None,
    }
}

fn parse_node(line: &str) -> Option<Node> {
    let (code, rest) = line.split_at_checked(1)?;
    let items = |skip: usize, sep: char| -> Option<Vec<(usize, usize)>> {
        rest.split(' ')
            .skip(1 + skip)
            .map(|item| {
                let (a, b) = item.split_once(sep)?;
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .collect()
    };
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some(match code {
        "m" => match rest.split(' ').collect::<Vec<_>>().as_slice() {
            ["", cell, child] => Node::Move(cell.parse().ok()?, child.parse().ok()?),
            _ => return None,
        },
        "a" => Node::Answers(items(0, ':')?),
        "r" => Node::Rest(items(0, ':')?),
        "p" => Node::Pairs(items(0, '-')?),
        "w" if rest.is_empty() => Node::Won,
        "f" if rest.is_empty() => Node::Full,
        "e" if rest.is_empty() => Node::Potential,
        "s" => match rest.split(' ').collect::<Vec<_>>().as_slice() {
            ["", symmetry, node] => Node::Image(symmetry.parse().ok()?, node.parse().ok()?),
            _ => return None,
        },
        _ => return None,
    })
}

/// The zone of `node` at `game` for `prover` (see the module docs), given
/// the zones of the nodes it leads to. Cells out of the board's range are
/// left out (the verifier refuses them before it asks).
pub fn zone_of(
    node: &Node,
    game: &Game,
    prover: Player,
    zone: impl Fn(usize) -> CellSet,
) -> CellSet {
    let mut out = CellSet::default();
    let mut below = CellSet::default();
    let mut add = |cell: usize| {
        if cell < MAX_CELLS {
            out.insert(cell);
        }
    };
    match node {
        Node::Full => {}
        Node::Won | Node::Potential => {
            let rules = game.rules();
            for window in rules.windows() {
                let cells: Vec<usize> = window.cells().map(|c| rules.index(c)).collect();
                if cells.iter().all(|&c| game.cells()[c] != Some(prover)) {
                    cells
                        .into_iter()
                        .filter(|&c| game.cells()[c].is_none())
                        .for_each(&mut add);
                }
            }
        }
        Node::Pairs(pairs) => {
            for &(a, b) in pairs {
                add(a);
                add(b);
            }
        }
        Node::Move(cell, child) => {
            add(*cell);
            below = zone(*child);
        }
        Node::Answers(answers) | Node::Rest(answers) => {
            for &(cell, child) in answers {
                add(cell);
                below = below.union(&zone(child));
            }
        }
        Node::Image(symmetry, node) => {
            let rules = game.rules();
            for cell in zone(*node).iter() {
                if let Some(image) = symmetry_cell(rules, *symmetry, cell) {
                    add(image);
                }
            }
        }
    }
    out.union(&below)
}

/// What a node was first reached as, and its zone.
#[derive(Clone)]
struct Seen {
    position: String,
    prover: Player,
    goal: Goal,
    zone: CellSet,
    /// Whether its check is over (its zone is final).
    done: bool,
}

/// The check under way: what each node was first reached as.
struct Walk<'a> {
    nodes: &'a [Node],
    seen: Vec<Option<Seen>>,
}

impl Walk<'_> {
    /// Check node `node`, reached from `from` (None: a tree's root) at
    /// `game`, as a strategy for `prover` reaching `goal`; its zone.
    fn visit(
        &mut self,
        node: usize,
        from: Option<usize>,
        game: &Game,
        prover: Player,
        goal: Goal,
    ) -> Result<CellSet, ProofError> {
        let position = game.to_string();
        let Some(kind) = self.nodes.get(node) else {
            return Err(match from {
                Some(parent) => step(
                    parent,
                    game,
                    format!("leads to node {node}, which does not exist"),
                ),
                None => ProofError::Header(format!(
                    "a tree's root is node {node}, which does not exist"
                )),
            });
        };
        let fail = |reason: String| ProofError::Step {
            node,
            position: position.clone(),
            reason,
        };
        if let Some(seen) = &self.seen[node] {
            if (&seen.position, seen.prover, seen.goal) != (&position, prover, goal) {
                return Err(fail(format!(
                    "reached again as position {} for {} ({}), first as {} for {} ({})",
                    position,
                    prover,
                    goal.word(),
                    seen.position,
                    seen.prover,
                    seen.goal.word()
                )));
            }
            if !seen.done {
                return Err(fail(
                    "reached again while it is still being checked".to_owned(),
                ));
            }
            return Ok(seen.zone);
        }
        // Marked before its children are checked: the trees only add
        // marks, so a node cannot be its own descendant at one position.
        self.seen[node] = Some(Seen {
            position: position.clone(),
            prover,
            goal,
            zone: CellSet::default(),
            done: false,
        });
        let cells = game.rules().cell_count();
        match kind {
            Node::Won => match game.outcome() {
                Some(Outcome::Win(p)) if p == prover => {}
                _ => {
                    return Err(fail(format!(
                        "claims a finished game won by {prover}, but it is not"
                    )));
                }
            },
            Node::Full => match (game.outcome(), goal) {
                (Some(Outcome::Draw), Goal::Draw) => {}
                (Some(Outcome::Draw), Goal::Win) => {
                    return Err(fail(format!("a drawn game, but {prover} must win here")));
                }
                _ => return Err(fail("claims a drawn, full board, but it is not".to_owned())),
            },
            Node::Pairs(_) | Node::Potential if goal == Goal::Win => {
                return Err(fail(format!(
                    "this leaf only holds a draw, but {prover} must win here"
                )));
            }
            Node::Pairs(_) | Node::Potential if game.is_over() => {
                return Err(fail("a draw-holding leaf on a finished game".to_owned()));
            }
            Node::Pairs(pairs) => check_pairing(game, prover, pairs).map_err(fail)?,
            Node::Potential => check_potential(game, prover).map_err(fail)?,
            Node::Move(cell, child) => {
                if game.is_over() {
                    return Err(fail("a move after the game is over".to_owned()));
                }
                if game.to_move() != prover {
                    return Err(fail(format!(
                        "gives one move, but it is {}'s turn: every move must be answered",
                        game.to_move()
                    )));
                }
                let next = play(game, *cell, cells).map_err(&fail)?;
                self.visit(*child, Some(node), &next, prover, goal)?;
            }
            Node::Answers(answers) => {
                self.check_answers(node, game, prover, goal, answers, false)?;
            }
            Node::Rest(answers) => {
                self.check_answers(node, game, prover, goal, answers, true)?;
            }
            Node::Image(symmetry, target) => {
                if matches!(self.nodes.get(*target), Some(Node::Image(..))) {
                    return Err(fail(format!(
                        "leads to node {target}, another symmetric image: it must lead to a \
                         node of its own"
                    )));
                }
                let source = preimage(game, *symmetry).map_err(&fail)?;
                self.visit(*target, Some(node), &source, prover, goal)?;
            }
        }
        let zone = zone_of(kind, game, prover, |n| {
            self.seen[n].as_ref().map(|s| s.zone).unwrap_or_default()
        });
        if let Some(seen) = self.seen[node].as_mut() {
            seen.zone = zone;
            seen.done = true;
        }
        Ok(zone)
    }

    /// The other side's turn at `game`: each listed move legal, listed
    /// once and proved; every other legal move answered by the rest clause
    /// (when there is one), outside the zone of some listed move's node.
    fn check_answers(
        &mut self,
        node: usize,
        game: &Game,
        prover: Player,
        goal: Goal,
        answers: &[(usize, usize)],
        rest: bool,
    ) -> Result<(), ProofError> {
        let fail = |reason: String| step(node, game, reason);
        if game.is_over() {
            return Err(fail("answers after the game is over".to_owned()));
        }
        if game.to_move() == prover {
            return Err(fail(format!(
                "answers moves, but it is {prover}'s own turn: give one move"
            )));
        }
        let cells = game.rules().cell_count();
        let mut answered = vec![false; cells];
        for &(cell, _) in answers {
            if cell < cells {
                if answered[cell] {
                    return Err(fail(format!("move {cell} is answered twice")));
                }
                answered[cell] = true;
            }
        }
        for &(cell, child) in answers {
            let next = play(game, cell, cells).map_err(&fail)?;
            self.visit(child, Some(node), &next, prover, goal)?;
        }
        let unlisted = game
            .legal_moves()
            .map(|c| game.rules().index(c))
            .filter(|&i| !answered[i]);
        for missing in unlisted {
            if !rest {
                return Err(fail(format!(
                    "move {missing} of {} is not answered",
                    game.to_move()
                )));
            }
            let zone = |child: usize| self.seen[child].as_ref().map(|s| s.zone);
            if !answers
                .iter()
                .any(|&(_, child)| zone(child).is_some_and(|z| !z.contains(missing)))
            {
                return Err(fail(format!(
                    "move {missing} of {} is left to the rest clause, but it lies in the zone \
                     of every listed move's node, so no answer is sure to hold",
                    game.to_move()
                )));
            }
        }
        Ok(())
    }
}

fn step(node: usize, game: &Game, reason: String) -> ProofError {
    ProofError::Step {
        node,
        position: game.to_string(),
        reason,
    }
}

/// Where board symmetry number `symmetry` ([`Symmetry::number`]: 0 the
/// identity, 1–3 the turns, 4 and 5 the mirrors, 6 and 7 the diagonal
/// reflections) sends `cell` (a row-major index) on boards of `rules`, if
/// there is such a symmetry and it maps this board onto itself.
#[must_use]
pub fn symmetry_cell(rules: Rules, symmetry: usize, cell: usize) -> Option<usize> {
    Symmetry::from_number(symmetry)?.cell(rules, cell)
}

/// The position whose image under `symmetry` is `game`.
fn preimage(game: &Game, symmetry: usize) -> Result<Game, String> {
    let rules = game.rules();
    let not_one = || format!("symmetry {symmetry} is not one of the {rules} board's");
    let cells = (0..rules.cell_count())
        .map(|c| Ok(game.cells()[symmetry_cell(rules, symmetry, c).ok_or_else(not_one)?]))
        .collect::<Result<Vec<_>, String>>()?;
    let setup = crate::Setup::from_cells(rules.rows(), rules.cols(), cells);
    Game::from_setup(&setup, rules.k()).map_err(|e| format!("its symmetric source: {e}"))
}

/// `game` after the move at `cell`, if that is legal.
fn play(game: &Game, cell: usize, cells: usize) -> Result<Game, String> {
    if cell >= cells {
        return Err(format!("move {cell} is off the board of {cells} cells"));
    }
    let mut next = game.clone();
    next.play(game.rules().cell_at(cell))
        .map_err(|e| format!("move {cell} is illegal: {e}"))?;
    Ok(next)
}

/// Whether `pairs` is a pairing strategy for `defender` at `game`: pairs of
/// distinct empty cells, no cell in two pairs, every window without a
/// defender mark holding both cells of one pair.
fn check_pairing(game: &Game, defender: Player, pairs: &[(usize, usize)]) -> Result<(), String> {
    let rules = game.rules();
    let mut partner: HashMap<usize, usize> = HashMap::new();
    for &(a, b) in pairs {
        for c in [a, b] {
            if c >= rules.cell_count() || game.cells()[c].is_some() {
                return Err(format!("pair {a}-{b}: cell {c} is not an empty cell"));
            }
        }
        if a == b || partner.insert(a, b).is_some() || partner.insert(b, a).is_some() {
            return Err(format!(
                "pair {a}-{b}: a cell used twice (pairs must be disjoint)"
            ));
        }
    }
    for window in rules.windows() {
        let cells: Vec<usize> = window.cells().map(|c| rules.index(c)).collect();
        if cells.iter().any(|&c| game.cells()[c] == Some(defender)) {
            continue;
        }
        let covered = cells
            .iter()
            .any(|c| partner.get(c).is_some_and(|p| cells.contains(p)));
        if !covered {
            return Err(format!(
                "the pairing leaves the open window {} without a pair",
                window_name(&cells)
            ));
        }
    }
    Ok(())
}

fn window_name(cells: &[usize]) -> String {
    let list: Vec<String> = cells.iter().map(ToString::to_string).collect();
    list.join(",")
}

/// Whether an Erdős–Selfridge leaf ([`Node::Potential`]) holds for
/// `defender` at `game` (see the module docs): the check the verifier
/// makes, for a search deciding whether to end a branch with one.
#[must_use]
pub fn potential_holds(game: &Game, defender: Player) -> bool {
    !game.is_over() && check_potential(game, defender).is_ok()
}

/// Whether Erdős and Selfridge's criterion holds for `defender` at
/// `game`: Σ over the windows without a defender mark of 2^−(their empty
/// cells) below ½ with the other side to move, below 1 with the defender
/// to move. Computed exactly, scaled by 2^k.
fn check_potential(game: &Game, defender: Player) -> Result<(), String> {
    let rules = game.rules();
    let k = rules.k();
    if k > MAX_POTENTIAL_K {
        return Err(format!(
            "Erdős–Selfridge leaves are checked for k up to {MAX_POTENTIAL_K}"
        ));
    }
    let mut sum: u128 = 0;
    for window in rules.windows() {
        let mut empty = 0;
        let mut dead = false;
        for c in window.cells() {
            match game.cells()[rules.index(c)] {
                Some(p) if p == defender => dead = true,
                Some(_) => {}
                None => empty += 1,
            }
        }
        if !dead {
            // Windows ≤ 4 × 256 and k ≤ 100: no overflow.
            sum += 1u128 << (k - empty);
        }
    }
    let bound = if game.to_move() == defender {
        1u128 << k
    } else {
        1u128 << (k - 1)
    };
    if sum < bound {
        Ok(())
    } else {
        Err(format!(
            "the open windows of {} weigh {sum}/2^{k}, not below {}",
            defender.other(),
            if game.to_move() == defender {
                "1"
            } else {
                "1/2"
            }
        ))
    }
}

/// Writes a certificate node by node, children first, keeping each node's
/// zone so that a search can decide which replies a rest clause may
/// answer (those outside the zone of the node it answers them with).
///
/// The builder checks nothing: [`Certificate::verify`] does. Nodes a
/// search built and then did not use are dropped by
/// [`CertificateBuilder::finish`].
///
/// ```
/// use oxo_core::proof::{CertificateBuilder, Claim, Goal, Node, Tree};
/// use oxo_core::{Game, Player};
///
/// // X to move at XX./OO./... wins with cell 2.
/// let game = Game::from_notation("XX./OO./...", 3)?;
/// let mut won = game.clone();
/// won.play(game.rules().cell_at(2))?;
/// let mut builder = CertificateBuilder::new();
/// let leaf = builder.push(&won, Player::X, Node::Won);
/// let root = builder.push(&game, Player::X, Node::Move(2, leaf));
/// let tree = Tree { prover: Player::X, goal: Goal::Win, root };
/// let certificate = builder.finish(&game, Claim::Win(Player::X), vec![tree]);
/// assert!(certificate.verify().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CertificateBuilder {
    nodes: Vec<Node>,
    zones: Vec<CellSet>,
}

impl CertificateBuilder {
    /// An empty table.
    #[must_use]
    pub fn new() -> CertificateBuilder {
        CertificateBuilder::default()
    }

    /// Add `node`, standing for `game` in a tree for `prover`, and return
    /// its number. The nodes it leads to must already be in the table.
    ///
    /// # Panics
    /// If `node` leads to a node not yet added.
    pub fn push(&mut self, game: &Game, prover: Player, node: Node) -> usize {
        let zone = zone_of(&node, game, prover, |n| self.zones[n]);
        self.nodes.push(node);
        self.zones.push(zone);
        self.nodes.len() - 1
    }

    /// The zone of node `node` (see the module docs): a reply outside it
    /// may be left to a rest clause answering as `node`'s move does.
    ///
    /// # Panics
    /// If there is no such node.
    #[must_use]
    pub fn zone(&self, node: usize) -> CellSet {
        self.zones[node]
    }

    /// Node `node`.
    ///
    /// # Panics
    /// If there is no such node.
    #[must_use]
    pub fn node(&self, node: usize) -> &Node {
        &self.nodes[node]
    }

    /// How many nodes the table holds, used or not.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the table holds no node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The certificate of `game` claiming `claim` with `trees`, keeping
    /// only the nodes the trees reach, renumbered in the order they are
    /// first reached.
    ///
    /// # Panics
    /// If a tree's root or a node's child is not in the table.
    #[must_use]
    pub fn finish(self, game: &Game, claim: Claim, trees: Vec<Tree>) -> Certificate {
        const UNSEEN: usize = usize::MAX;
        let mut number = vec![UNSEEN; self.nodes.len()];
        let mut order = Vec::new();
        let mut stack: Vec<usize> = trees.iter().rev().map(|t| t.root).collect();
        while let Some(n) = stack.pop() {
            if number[n] != UNSEEN {
                continue;
            }
            number[n] = order.len();
            order.push(n);
            for child in children(&self.nodes[n]).rev() {
                if number[child] == UNSEEN {
                    stack.push(child);
                }
            }
        }
        let renumber = |items: &[(usize, usize)]| -> Vec<(usize, usize)> {
            items.iter().map(|&(c, n)| (c, number[n])).collect()
        };
        let nodes = order
            .iter()
            .map(|&n| match &self.nodes[n] {
                Node::Move(cell, child) => Node::Move(*cell, number[*child]),
                Node::Image(symmetry, child) => Node::Image(*symmetry, number[*child]),
                Node::Answers(answers) => Node::Answers(renumber(answers)),
                Node::Rest(answers) => Node::Rest(renumber(answers)),
                leaf => leaf.clone(),
            })
            .collect();
        let trees = trees
            .into_iter()
            .map(|t| Tree {
                root: number[t.root],
                ..t
            })
            .collect();
        Certificate {
            game: game.clone(),
            claim,
            trees,
            nodes,
        }
    }
}

/// The nodes `node` leads to, in order.
fn children(node: &Node) -> impl DoubleEndedIterator<Item = usize> + '_ {
    let (one, many): (Option<usize>, &[(usize, usize)]) = match node {
        Node::Move(_, child) | Node::Image(_, child) => (Some(*child), &[]),
        Node::Answers(answers) | Node::Rest(answers) => (None, answers),
        _ => (None, &[]),
    };
    one.into_iter().chain(many.iter().map(|&(_, n)| n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verify(text: &str) -> Result<Claim, ProofError> {
        Ok(Certificate::parse(text)?.verify()?.claim)
    }

    #[test]
    fn lines_are_refused_as_soon_as_they_show_a_file_is_no_certificate() {
        let mut lines = CertificateLines::new();
        assert_eq!(lines.push(&[0; 100]), Err(ProofError::Foreign));
        let mut lines = CertificateLines::new();
        assert!(matches!(
            lines.push(b"oxo-proof 9\n"),
            Err(ProofError::Version(_))
        ));

        // A damaged node line is refused as it comes, as the whole file is.
        let text = double_threat("m 0 1 2");
        let mut lines = CertificateLines::new();
        let refused = text
            .split_inclusive('\n')
            .find_map(|line| lines.push(line.as_bytes()).err());
        assert_eq!(refused.map(Err), Some(verify(&text)));
        // A byte-order mark before it is no part of it.
        let text = double_threat("r 1:1 3:3 7:5");
        let mut lines = CertificateLines::new();
        for line in format!("\u{feff}{text}").split_inclusive('\n') {
            lines.push(line.as_bytes()).expect("a certificate's line");
        }
        assert_eq!(
            lines.finish().and_then(|c| c.verify()).map(|v| v.claim),
            Ok(Claim::Win(Player::X))
        );

        let mut lines = CertificateLines::new();
        lines.push(b"oxo-proof 2\n").expect("a first line");
        assert_eq!(
            lines.push(b"rules \xff\n"),
            Err(ProofError::Syntax {
                line: 2,
                reason: "not text".into()
            })
        );
        let mut lines = CertificateLines::new();
        lines
            .push(b"oxo-proof 2\r\n")
            .expect("a first line with CRLF");
        let long = vec![b'm'; MAX_LINE_BYTES + 1];
        assert!(matches!(
            lines.push(&long),
            Err(ProofError::Syntax { line: 2, .. })
        ));
        // A whole line given at once is held to the same bound.
        let mut lines = CertificateLines::new();
        lines.push(b"oxo-proof 2\n").expect("a first line");
        let mut long = vec![b'm'; MAX_LINE_BYTES + 1];
        long.push(b'\n');
        assert!(matches!(
            lines.push(&long),
            Err(ProofError::Syntax { line: 2, .. })
        ));
    }

    /// A line after `end`, or a node line past the count the header
    /// announced, is refused as it comes (not after the rest of an endless
    /// input), with the words and line number `Certificate::parse` gives.
    #[test]
    fn what_follows_the_announced_nodes_is_refused_as_it_comes() {
        let whole = double_threat("r 1:1 3:3 7:5");
        for (extra, line, reason) in [
            ("w\n", 15, "text after `end`"),
            ("\n", 15, "text after `end`"),
        ] {
            let text = format!("{whole}{extra}");
            let mut lines = CertificateLines::new();
            let mut refused = None;
            for line in text.split_inclusive('\n') {
                if let Err(e) = lines.push(line.as_bytes()) {
                    refused = Some(e);
                    break;
                }
            }
            let said = ProofError::Syntax {
                line,
                reason: reason.to_owned(),
            };
            assert_eq!(refused.as_ref(), Some(&said), "{extra:?}");
            assert_eq!(Certificate::parse(&text).err(), Some(said));
        }
        // Node lines without end past the seven announced: refused at the
        // eighth (line 14), however many more would come.
        let text = whole.replace("end\n", "w\nw\nw\n");
        let mut lines = CertificateLines::new();
        let refused = text
            .split_inclusive('\n')
            .find_map(|line| lines.push(line.as_bytes()).err());
        let said = ProofError::Syntax {
            line: 14,
            reason: "more node lines than the 7 the header announces".to_owned(),
        };
        assert_eq!(refused, Some(said.clone()));
        assert_eq!(Certificate::parse(&text).err(), Some(said));
        // The answer is the whole file's, whose earliest fault may come
        // before the line that stops the reading: a damaged node line, a
        // count of nodes short of the header's.
        let first = |text: &str| {
            let mut lines = CertificateLines::new();
            text.split_inclusive('\n')
                .find_map(|line| lines.push(line.as_bytes()).err())
        };
        for text in [
            format!("{}\n", whole.replace("m 3 2", "m three 2")),
            format!("{}w\n", whole.replace("m 3 6\nw\n", "")),
            whole
                .replace("end\n", "m 3 2\nw\n")
                .replace("m 3 6", "m x 6"),
        ] {
            let refused = first(&text);
            assert!(refused.is_some(), "{text}");
            assert_eq!(refused, Certificate::parse(&text).err(), "{text}");
        }
        // Headers are read a line at a time: an endless input that is no
        // header, a count past what is checked, too many trees are refused
        // at their line.
        let endless = format!("oxo-proof 3\n{}", "y\n".repeat(1000));
        assert!(matches!(
            first(&endless),
            Some(ProofError::Syntax { line: 2, .. })
        ));
        let header = "oxo-proof 3\nrules 3x3 k=3\nposition .../.../...\nclaim draw\n";
        let refused = first(&format!("{header}nodes {}\n", MAX_NODES + 1));
        assert!(
            matches!(&refused, Some(ProofError::Syntax { line: 5, reason }) if reason.contains("nodes are not checked")),
            "{refused:?}"
        );
        // Node lines are read as they come: an endless run of blank lines
        // after the largest count is refused at the first.
        let endless = format!(
            "{header}tree X draw 0\nnodes {MAX_NODES}\n{}",
            "\n".repeat(1000)
        );
        let refused = first(&endless);
        assert!(
            matches!(&refused, Some(ProofError::Syntax { line: 7, reason }) if reason == "malformed node line"),
            "{refused:?}"
        );
        let trees = "tree X draw 0\n".repeat(MAX_TREES + 5);
        let refused = first(&format!("{header}{trees}"));
        assert!(
            matches!(&refused, Some(ProofError::Syntax { line, reason }) if *line == 5 + MAX_TREES && reason.contains("trees")),
            "{refused:?}"
        );
    }

    /// The symmetries' numbers mean what docs/manual/solve.md says, cell by
    /// cell (an independent checker needs to know which way a turn goes).
    #[test]
    fn symmetry_numbers_are_as_documented() {
        let rules = Rules::new(4, 4, 3).unwrap();
        let n = 4;
        type Map = fn(usize, usize) -> (usize, usize);
        let said: [Map; 8] = [
            |r, c| (r, c),
            |r, c| (c, 4 - 1 - r),
            |r, c| (4 - 1 - r, 4 - 1 - c),
            |r, c| (4 - 1 - c, r),
            |r, c| (r, 4 - 1 - c),
            |r, c| (4 - 1 - r, c),
            |r, c| (c, r),
            |r, c| (4 - 1 - c, 4 - 1 - r),
        ];
        for (t, map) in said.iter().enumerate() {
            for cell in 0..n * n {
                let (r, c) = map(cell / n, cell % n);
                assert_eq!(
                    symmetry_cell(rules, t, cell),
                    Some(r * n + c),
                    "T={t}, cell {cell}"
                );
            }
        }
        // Three rows of five: the half turn and the mirrors, none of the
        // others.
        let rules = Rules::new(3, 5, 3).unwrap();
        let said: [(usize, Map); 3] = [
            (2, |r, c| (3 - 1 - r, 5 - 1 - c)),
            (4, |r, c| (r, 5 - 1 - c)),
            (5, |r, c| (3 - 1 - r, c)),
        ];
        for (t, map) in said {
            for cell in 0..15 {
                let (r, c) = map(cell / 5, cell % 5);
                assert_eq!(
                    symmetry_cell(rules, t, cell),
                    Some(r * 5 + c),
                    "T={t}, cell {cell}"
                );
            }
        }
        for t in [1, 3, 6, 7] {
            assert_eq!(symmetry_cell(rules, t, 0), None, "T={t}");
        }
    }

    /// X at 0, 2, 6 and O at 4, 8, O to move: X threatens 1 and 3.
    fn double_threat(node0: &str) -> String {
        format!(
            "oxo-proof 2\nrules 3x3 k=3\nposition X.X/.O./X.O\nclaim win X\ntree X win 0\n\
             nodes 7\n{node0}\nm 3 2\nw\nm 1 4\nw\nm 3 6\nw\nend\n"
        )
    }

    #[test]
    fn a_rest_clause_holds_outside_the_zone_only() {
        // After O 1 and X 3 the won leaf's zone is 7 (the column O could
        // fill with 1, 4, 7) and the move 3; after O 3 and X 1, it is 5
        // (the row 3, 4, 5) and the move 1. O's 5 and 7 each lie outside
        // one of them.
        assert_eq!(
            verify(&double_threat("r 1:1 3:3 7:5")),
            Ok(Claim::Win(Player::X))
        );
        let two = double_threat("r 1:1 3:3")
            .replace("nodes 7", "nodes 5")
            .replace("m 3 6\nw\n", "");
        assert_eq!(verify(&two), Ok(Claim::Win(Player::X)), "{two}");
        let err = verify(&double_threat("r 1:1 7:5")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "node 0 (position X.X/.O./X.O): move 3 of O is left to the rest clause, but it lies \
             in the zone of every listed move's node, so no answer is sure to hold"
        );
        let err = verify(&double_threat("r")).unwrap_err();
        assert!(err.to_string().contains("move 1 of O is left"), "{err}");
        // Without a rest clause every move is listed.
        let err = verify(&double_threat("a 1:1 3:3 7:5")).unwrap_err();
        assert!(
            err.to_string().contains("move 5 of O is not answered"),
            "{err}"
        );
    }

    /// X.X/.O./X.O is its own mirror image in the main diagonal
    /// (symmetry 6): O's move 3 is the image of O's move 1, and its node
    /// refers to move 1's.
    fn with_image(version: u32, image: &str) -> String {
        format!(
            "oxo-proof {version}\nrules 3x3 k=3\nposition X.X/.O./X.O\nclaim win X\n\
             tree X win 0\nnodes 4\nr 1:1 3:3\nm 3 2\nw\n{image}\nend\n"
        )
    }

    #[test]
    fn symmetric_images_are_checked_in_their_source_position() {
        assert_eq!(verify(&with_image(3, "s 6 1")), Ok(Claim::Win(Player::X)));
        let cert = Certificate::parse(&with_image(3, "s 6 1")).unwrap();
        assert_eq!(cert.to_text(), with_image(3, "s 6 1"));
        // The image's zone is the image of its source's: {3, 7} → {1, 5},
        // so O's 7 is left out of it (and 5 out of move 1's).
        let mut b = CertificateBuilder::new();
        let game = Game::from_notation("X.X/.O./X.O", 3).unwrap();
        let after = |cells: &[usize]| {
            let mut g = game.clone();
            for &c in cells {
                g.play(g.rules().cell_at(c)).unwrap();
            }
            g
        };
        let won = b.push(&after(&[1, 3]), Player::X, Node::Won);
        let one = b.push(&after(&[1]), Player::X, Node::Move(3, won));
        let three = b.push(&after(&[3]), Player::X, Node::Image(6, one));
        assert_eq!(b.zone(one).iter().collect::<Vec<_>>(), [3, 7]);
        assert_eq!(b.zone(three).iter().collect::<Vec<_>>(), [1, 5]);
        // Another symmetry gives another position than node 1's.
        let err = verify(&with_image(3, "s 4 1")).unwrap_err();
        assert!(
            matches!(&err, ProofError::Step { node: 1, reason, .. } if reason.contains("reached again as position")),
            "{err}"
        );
        let err = verify(&with_image(3, "s 6 3")).unwrap_err();
        assert!(err.to_string().contains("another symmetric image"), "{err}");
        let err = verify(&with_image(3, "s 9 1")).unwrap_err();
        assert!(
            err.to_string()
                .contains("symmetry 9 is not one of the 3x3 k=3 board's"),
            "{err}"
        );
        assert_eq!(
            verify(&with_image(2, "s 6 1")),
            Err(ProofError::Syntax {
                line: 10,
                reason: "symmetric images need version 3".to_owned()
            })
        );
        // A quarter turn is no symmetry of a board that is not square.
        let rules = Rules::new(3, 4, 3).unwrap();
        assert_eq!(symmetry_cell(rules, 1, 0), None);
        assert_eq!(symmetry_cell(rules, 2, 0), Some(11));
        assert_eq!(symmetry_cell(rules, 5, 1), Some(9));
    }

    #[test]
    fn zones_of_leaves_and_moves() {
        let game = Game::from_notation("XXX/OO./...", 3).unwrap();
        // Windows without an X: row 1 (5 empty), row 2 (6, 7, 8) and the
        // columns and diagonals through O's cells all hold an X except
        // row 1 and row 2.
        let zone = zone_of(&Node::Won, &game, Player::X, |_| CellSet::default());
        assert_eq!(zone.iter().collect::<Vec<_>>(), [5, 6, 7, 8]);
        let pairs = Node::Pairs(vec![(1, 7), (3, 5)]);
        let zone = zone_of(&pairs, &Game::default(), Player::O, |_| CellSet::default());
        assert_eq!(zone.iter().collect::<Vec<_>>(), [1, 3, 5, 7]);
        let full = Game::from_notation("XOX/XOO/OXX", 3).unwrap();
        assert!(zone_of(&Node::Full, &full, Player::X, |_| CellSet::default()).is_empty());
        let mut below = CellSet::default();
        below.insert(8);
        let zone = zone_of(&Node::Move(4, 0), &Game::default(), Player::X, |_| below);
        assert_eq!(zone.iter().collect::<Vec<_>>(), [4, 8]);
        let answers = Node::Rest(vec![(0, 0), (2, 0)]);
        let zone = zone_of(&answers, &Game::default(), Player::X, |_| below);
        assert_eq!(zone.iter().collect::<Vec<_>>(), [0, 2, 8]);
        assert_eq!(zone.len(), 3);
    }

    #[test]
    fn erdos_selfridge_leaves() {
        // No window is open to either side.
        let dead = "oxo-proof 2\nrules 3x3 k=3\nposition XOX/XOO/OX.\nclaim draw\n\
                    tree X draw 0\ntree O draw 1\nnodes 2\ne\ne\nend\n";
        assert_eq!(verify(dead), Ok(Claim::Draw));
        assert!(potential_holds(
            &Game::from_notation("XOX/XOO/OX.", 3).unwrap(),
            Player::O
        ));
        // On the empty board the eight windows weigh 8/8.
        let empty = dead.replace("XOX/XOO/OX.", ".../.../...");
        let err = verify(&empty).unwrap_err();
        assert_eq!(
            err.to_string(),
            "node 0 (position .../.../...): the open windows of O weigh 8/2^3, not below 1"
        );
        assert!(!potential_holds(&Game::default(), Player::X));
        // It only ever holds a draw.
        let win = "oxo-proof 2\nrules 3x3 k=3\nposition XOX/XOO/OX.\nclaim win X\n\
                   tree X win 0\nnodes 1\ne\nend\n";
        assert!(
            verify(win)
                .unwrap_err()
                .to_string()
                .contains("only holds a draw")
        );
    }

    #[test]
    fn version_1_files_are_read_without_the_new_nodes() {
        let v1 = "oxo-proof 1\nrules 3x3 k=3\nposition XX./OO./...\nclaim win X\n\
                  tree X win 0\nnodes 2\nm 2 1\nw\nend\n";
        assert_eq!(verify(v1), Ok(Claim::Win(Player::X)));
        let cert = Certificate::parse(v1).unwrap();
        assert!(cert.to_text().starts_with("oxo-proof 2\n"));
        assert_eq!(verify(&cert.to_text()), Ok(Claim::Win(Player::X)));
        let rest = double_threat("r 1:1 3:3 7:5").replace("oxo-proof 2", "oxo-proof 1");
        assert_eq!(
            verify(&rest),
            Err(ProofError::Syntax {
                line: 7,
                reason: "rest clauses and Erdős–Selfridge leaves need version 2".to_owned()
            })
        );
        assert!(matches!(
            verify(&rest.replace("oxo-proof 1", "oxo-proof 4")),
            Err(ProofError::Version(_))
        ));
    }

    #[test]
    fn hostile_headers_and_node_lines_are_refused() {
        let text = double_threat("r 1:1 3:3 7:5");
        let huge = text.replace("nodes 7", &format!("nodes {}", MAX_NODES + 1));
        assert!(matches!(
            verify(&huge),
            Err(ProofError::Syntax { line: 6, .. })
        ));
        let fewer = text.replace("nodes 7", "nodes 6");
        assert!(matches!(
            verify(&fewer),
            Err(ProofError::Syntax { line: 13, .. })
        ));
        for bad in ["r 1", "r x:1", "r 1-1", "e 3", "rr 1:1"] {
            let broken = text.replace("r 1:1 3:3 7:5", bad);
            assert!(
                matches!(verify(&broken), Err(ProofError::Syntax { line: 7, .. })),
                "{bad}"
            );
        }
        // A node that leads to itself is a later position, never itself.
        let looped = text.replace("m 3 2", "m 3 1");
        assert!(matches!(
            verify(&looped),
            Err(ProofError::Step { node: 1, .. })
        ));
        let off = text.replace("r 1:1 3:3 7:5", "r 1:1 3:3 7:5 999:1");
        assert!(
            verify(&off)
                .unwrap_err()
                .to_string()
                .contains("move 999 is off the board")
        );
    }

    #[test]
    fn the_builder_keeps_only_what_the_trees_reach() {
        let game = Game::from_notation("X.X/.O./X.O", 3).unwrap();
        let after = |cells: &[usize]| {
            let mut g = game.clone();
            for &c in cells {
                g.play(g.rules().cell_at(c)).unwrap();
            }
            g
        };
        let mut b = CertificateBuilder::new();
        let unused = b.push(&after(&[5, 1]), Player::X, Node::Won);
        let won3 = b.push(&after(&[1, 3]), Player::X, Node::Won);
        let m3 = b.push(&after(&[1]), Player::X, Node::Move(3, won3));
        let won1 = b.push(&after(&[3, 1]), Player::X, Node::Won);
        let m1 = b.push(&after(&[3]), Player::X, Node::Move(1, won1));
        let won7 = b.push(&after(&[7, 3]), Player::X, Node::Won);
        let m7 = b.push(&after(&[7]), Player::X, Node::Move(3, won7));
        assert_eq!(b.zone(m3).iter().collect::<Vec<_>>(), [3, 7]);
        assert!(!b.zone(m3).contains(5) && !b.zone(m3).contains(unused));
        let root = b.push(
            &game,
            Player::X,
            Node::Rest(vec![(1, m3), (3, m1), (7, m7)]),
        );
        assert_eq!(b.len(), 8);
        let tree = Tree {
            prover: Player::X,
            goal: Goal::Win,
            root,
        };
        let cert = b.finish(&game, Claim::Win(Player::X), vec![tree]);
        assert_eq!(cert.nodes.len(), 7);
        assert_eq!(cert.trees[0].root, 0);
        assert_eq!(cert.to_text(), double_threat("r 1:1 3:3 7:5"));
        assert_eq!(cert.verify().map(|v| v.claim), Ok(Claim::Win(Player::X)));
    }

    /// Random bytes changed, dropped or cut: never a panic, and never a
    /// proof of another value than the true one (X wins at X.X/.O./X.O).
    #[test]
    fn random_damage_never_panics() {
        let mut state = 0x2929_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap()
        };
        for round in 0..4000 {
            let text = if round % 2 == 0 {
                double_threat("r 1:1 3:3 7:5")
            } else {
                with_image(3, "s 6 1")
            };
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + next(3) {
                if bytes.is_empty() {
                    break;
                }
                let at = next(bytes.len());
                match next(3) {
                    0 => bytes[at] = b"0123456789 :-amwfpres\n"[next(22)],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.truncate(at),
                }
            }
            let Ok(damaged) = String::from_utf8(bytes) else {
                continue;
            };
            if let Ok(claim) = verify(&damaged) {
                assert_eq!(claim, Claim::Win(Player::X), "{damaged}");
            }
        }
    }
}
