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
//! In a tree, the prover's turn has one move; the other side's turn
//! answers every legal move; each leaf is a finished game the prover has
//! won, a full board (for "at least a draw") or a *pairing*: disjoint
//! pairs of empty cells such that every window without a prover mark holds
//! both cells of one pair. Whoever moves, the prover then answers each move
//! into a pair with the pair's other cell, and the opponent never fills a
//! window.
//!
//! [`Certificate::verify`] is deliberately small and uses only the rules
//! ([`Game::play`], [`Rules::windows`]): it walks every tree from the root,
//! plays each move, and checks each step. The text format is in
//! `docs/manual/solve.md`.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use crate::{BoardSize, Game, Outcome, Player, Rules};

/// The first line of every certificate: the format and its version.
pub const MAGIC: &str = "oxo-proof 1";

/// The most cells a certificate's board may have. The check walks the
/// trees depth first, one level a move, so this bounds its depth (and a
/// hostile file cannot make it recurse without end); 16×16 fits.
pub const MAX_CELLS: usize = 256;

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
    /// The game is over and the prover has won.
    Won,
    /// The game is over in a draw (the board is full).
    Full,
    /// A pairing strategy for the prover (see the module docs).
    Pairs(Vec<(usize, usize)>),
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

/// Why a certificate is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// Not a certificate at all.
    #[error("not an oxo proof certificate (it must begin with the line `{MAGIC}`)")]
    Foreign,
    /// A certificate of a version this program does not read.
    #[error("unsupported certificate version `{0}` (this program reads `{MAGIC}`)")]
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

fn cell_list(out: &mut String, code: char, items: &[(usize, usize)], sep: char) {
    out.push(code);
    for (a, b) in items {
        let _ = write!(out, " {a}{sep}{b}");
    }
    out.push('\n');
}

impl Certificate {
    /// The certificate as text (see `docs/manual/solve.md`).
    #[must_use]
    pub fn to_text(&self) -> String {
        let rules = self.game.rules();
        let mut out = String::new();
        let _ = writeln!(out, "{MAGIC}");
        let _ = writeln!(
            out,
            "rules {}x{} k={}",
            rules.rows(),
            rules.cols(),
            rules.k()
        );
        let _ = writeln!(out, "position {}", self.game);
        match self.claim {
            Claim::Win(p) => {
                let _ = writeln!(out, "claim win {p}");
            }
            Claim::Draw => out.push_str("claim draw\n"),
        }
        for tree in &self.trees {
            let _ = writeln!(
                out,
                "tree {} {} {}",
                tree.prover,
                tree.goal.word(),
                tree.root
            );
        }
        let _ = writeln!(out, "nodes {}", self.nodes.len());
        for node in &self.nodes {
            match node {
                Node::Move(cell, child) => {
                    let _ = writeln!(out, "m {cell} {child}");
                }
                Node::Answers(answers) => cell_list(&mut out, 'a', answers, ':'),
                Node::Won => out.push_str("w\n"),
                Node::Full => out.push_str("f\n"),
                Node::Pairs(pairs) => cell_list(&mut out, 'p', pairs, '-'),
            }
        }
        out.push_str("end\n");
        out
    }

    /// Read a certificate's text. Only its syntax is checked here; see
    /// [`Certificate::verify`].
    ///
    /// # Errors
    /// A foreign or truncated file, another version, or a malformed line.
    pub fn parse(text: &str) -> Result<Certificate, ProofError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let bad = |line: usize, reason: &str| ProofError::Syntax {
            line,
            reason: reason.to_owned(),
        };
        match lines.next() {
            Some((_, l)) if l == MAGIC => {}
            Some((_, l)) if l.starts_with("oxo-proof ") => {
                return Err(ProofError::Version(l.to_owned()));
            }
            _ => return Err(ProofError::Foreign),
        }
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
                ["nodes", count] => {
                    break count
                        .parse::<usize>()
                        .map_err(|_| bad(n, "expected `nodes N`"))?;
                }
                _ => return Err(bad(n, "expected `tree PLAYER GOAL ROOT` or `nodes N`")),
            }
        };
        let mut nodes = Vec::new();
        loop {
            let (n, line) = next("a node or `end`")?;
            if line == "end" {
                break;
            }
            nodes.push(parse_node(line).ok_or_else(|| bad(n, "malformed node line"))?);
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
        let mut walk = Walk {
            nodes: &self.nodes,
            seen: vec![None; self.nodes.len()],
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

fn parse_node(line: &str) -> Option<Node> {
    let (code, rest) = line.split_at_checked(1)?;
    let pairs = |sep: char| -> Option<Vec<(usize, usize)>> {
        rest.split(' ')
            .skip(1)
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
        "a" => Node::Answers(pairs(':')?),
        "p" => Node::Pairs(pairs('-')?),
        "w" if rest.is_empty() => Node::Won,
        "f" if rest.is_empty() => Node::Full,
        _ => return None,
    })
}

/// The check under way: what each node was first reached as.
struct Walk<'a> {
    nodes: &'a [Node],
    seen: Vec<Option<(String, Player, Goal)>>,
}

impl Walk<'_> {
    /// Check node `node`, reached from `from` (None: a tree's root) at
    /// `game`, as a strategy for `prover` reaching `goal`.
    fn visit(
        &mut self,
        node: usize,
        from: Option<usize>,
        game: &Game,
        prover: Player,
        goal: Goal,
    ) -> Result<(), ProofError> {
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
            if *seen != (position.clone(), prover, goal) {
                return Err(fail(format!(
                    "reached again as position {} for {} ({}), first as {} for {} ({})",
                    position,
                    prover,
                    goal.word(),
                    seen.0,
                    seen.1,
                    seen.2.word()
                )));
            }
            return Ok(());
        }
        self.seen[node] = Some((position.clone(), prover, goal));
        let cells = game.rules().cell_count();
        match kind {
            Node::Won => match game.outcome() {
                Some(Outcome::Win(p)) if p == prover => Ok(()),
                _ => Err(fail(format!(
                    "claims a finished game won by {prover}, but it is not"
                ))),
            },
            Node::Full => match (game.outcome(), goal) {
                (Some(Outcome::Draw), Goal::Draw) => Ok(()),
                (Some(Outcome::Draw), Goal::Win) => {
                    Err(fail(format!("a drawn game, but {prover} must win here")))
                }
                _ => Err(fail("claims a drawn, full board, but it is not".to_owned())),
            },
            Node::Pairs(pairs) => {
                if goal == Goal::Win {
                    return Err(fail(format!(
                        "a pairing only holds a draw, but {prover} must win here"
                    )));
                }
                if game.is_over() {
                    return Err(fail("a pairing on a finished game".to_owned()));
                }
                check_pairing(game, prover, pairs).map_err(fail)
            }
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
                self.visit(*child, Some(node), &next, prover, goal)
            }
            Node::Answers(answers) => {
                if game.is_over() {
                    return Err(fail("answers after the game is over".to_owned()));
                }
                if game.to_move() == prover {
                    return Err(fail(format!(
                        "answers every move, but it is {prover}'s own turn: give one move"
                    )));
                }
                let mut answered = vec![false; cells];
                for &(cell, _) in answers {
                    if cell < cells {
                        if answered[cell] {
                            return Err(fail(format!("move {cell} is answered twice")));
                        }
                        answered[cell] = true;
                    }
                }
                if let Some(missing) = game
                    .legal_moves()
                    .map(|c| game.rules().index(c))
                    .find(|&i| !answered[i])
                {
                    return Err(fail(format!(
                        "move {missing} of {} is not answered",
                        game.to_move()
                    )));
                }
                for &(cell, child) in answers {
                    let next = play(game, cell, cells).map_err(&fail)?;
                    self.visit(child, Some(node), &next, prover, goal)?;
                }
                Ok(())
            }
        }
    }
}

fn step(node: usize, game: &Game, reason: String) -> ProofError {
    ProofError::Step {
        node,
        position: game.to_string(),
        reason,
    }
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
            let list: Vec<String> = cells.iter().map(ToString::to_string).collect();
            return Err(format!(
                "the pairing leaves the open window {} without a pair",
                list.join(",")
            ));
        }
    }
    Ok(())
}
