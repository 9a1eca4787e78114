//! The split of one proof into independent jobs, and how their answers
//! combine. Pure: no threads, files or clocks (see the crate docs for the
//! design).

use std::collections::{BTreeSet, HashSet};

use oxo_ai::Value;
use oxo_core::{Game, Outcome, Player, Rules, Symmetry};
use serde::{Deserialize, Serialize};

/// The answer to a one-sided question: can the attacker force k in a row?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The attacker wins, whatever the defender does.
    Proven,
    /// The defender keeps the attacker from winning.
    Disproven,
}

impl Verdict {
    /// The other answer.
    #[must_use]
    pub const fn not(self) -> Verdict {
        match self {
            Verdict::Proven => Verdict::Disproven,
            Verdict::Disproven => Verdict::Proven,
        }
    }
}

/// What a job came back with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The question is answered.
    Verdict(Verdict),
    /// The job ran out of its budget: its position is split one ply
    /// deeper into new jobs.
    OverBudget,
}

/// What a job cost, kept for the figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Positions the prover visited.
    pub nodes: u64,
    /// Milliseconds it took.
    pub ms: u64,
}

/// One job: a position and a one-sided question about it.
#[derive(Clone, Debug)]
pub struct Job {
    /// The job's node in the plan (stable across checkpoints and workers).
    pub id: u32,
    /// The position.
    pub game: Game,
    /// The side whose forced win is asked about.
    pub attacker: Player,
}

/// Why a plan (from a checkpoint or a job table) is refused, or a result
/// does not fit it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A node refers to something that is not there.
    #[error("node {node}: {reason}")]
    Node {
        /// The node.
        node: u32,
        /// What is wrong.
        reason: String,
    },
    /// The plan's board or position cannot be read.
    #[error("{0}")]
    Header(String),
}

/// How far a node is settled.
type State = Option<Verdict>;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// A position proved by one job; `done` once it answered.
    Job { done: Option<Cost> },
    /// A finished game.
    End,
    /// Every move of the side to move, up to symmetry, is a child: the
    /// node needs all of them to reach the aim.
    All { children: Vec<u32> },
    /// One move of the side to move is chosen (`candidates`, best first,
    /// as cell indices); when its child misses the aim, the next is tried.
    One {
        candidates: Vec<u16>,
        next: u32,
        child: Option<u32>,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Node {
    /// The position, in oxo's notation.
    position: String,
    #[serde(with = "side")]
    attacker: Player,
    parent: Option<u32>,
    /// Plies below the plan's root.
    depth: u32,
    state: State,
    kind: Kind,
}

/// Figures over every job answered so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Jobs answered (over-budget ones included).
    pub jobs: u64,
    /// Positions the jobs visited.
    pub nodes: u64,
    /// The jobs' own time, summed over workers, in milliseconds.
    pub ms: u64,
    /// Jobs over their budget, split deeper.
    #[serde(default)]
    pub split: u64,
}

/// Where a plan stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Jobs answered.
    pub done: u64,
    /// Jobs still needed (not answered and not made moot).
    pub open: usize,
    /// The root's moves (up to symmetry) whose question is settled, and
    /// all of them, for the side to move's question.
    pub root_moves: (usize, usize),
    /// The jobs' totals.
    pub totals: Totals,
}

/// One proof split into jobs: the value of a position, as two one-sided
/// questions (can the side to move win? can the other side?), each the
/// root of an AND/OR tree whose leaves are jobs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    rows: u32,
    cols: u32,
    k: u32,
    position: String,
    /// Plies split into jobs up front.
    split: u32,
    /// The answer each question is expected to have: nodes whose every
    /// move must reach it are split into all their moves; the others
    /// choose one move at a time.
    aim: Verdict,
    roots: Vec<u32>,
    nodes: Vec<Node>,
    totals: Totals,
    /// Jobs handed out and not yet answered (not saved: after a restart
    /// they are open again).
    #[serde(skip)]
    running: BTreeSet<u32>,
}

impl Plan {
    /// The plan for the value of `game`, split `split` plies deep, each
    /// question aiming at "disproven" (a draw expected, as on the boards
    /// whose proofs need splitting; a wrong aim costs time, never
    /// soundness).
    #[must_use]
    pub fn new(game: &Game, split: u32) -> Plan {
        let rules = game.rules();
        let mut plan = Plan {
            rows: rules.rows(),
            cols: rules.cols(),
            k: rules.k(),
            position: game.to_string(),
            split,
            aim: Verdict::Disproven,
            roots: Vec::new(),
            nodes: Vec::new(),
            totals: Totals::default(),
            running: BTreeSet::new(),
        };
        let mover = game.to_move();
        for attacker in [mover, mover.other()] {
            let root = plan.create(None, game, attacker, 0);
            plan.roots.push(root);
        }
        plan
    }

    /// The rules of the plan's board.
    ///
    /// # Panics
    /// Never for a plan made by [`Plan::new`] or accepted by
    /// [`Plan::check`].
    #[must_use]
    pub fn rules(&self) -> Rules {
        Rules::new(self.rows, self.cols, self.k).expect("checked rules")
    }

    /// The position proved.
    #[must_use]
    pub fn game(&self) -> Game {
        self.parse(&self.position)
    }

    /// Plies split up front.
    #[must_use]
    pub const fn split(&self) -> u32 {
        self.split
    }

    fn parse(&self, position: &str) -> Game {
        Game::from_notation(position, self.k).expect("checked positions")
    }

    /// The position's value for the side to move, once the jobs settle it.
    #[must_use]
    pub fn value(&self) -> Option<Value> {
        let state = |i: usize| self.nodes[self.roots[i] as usize].state;
        match (state(0), state(1)) {
            (Some(Verdict::Proven), _) => Some(Value::Win),
            (_, Some(Verdict::Proven)) => Some(Value::Loss),
            (Some(Verdict::Disproven), Some(Verdict::Disproven)) => Some(Value::Draw),
            _ => None,
        }
    }

    /// Whether a node's answer still matters: it and every node above it
    /// are open, and the value is not known yet.
    fn live(&self, id: u32) -> bool {
        if self.value().is_some() {
            return false;
        }
        let mut at = Some(id);
        while let Some(i) = at {
            let node = &self.nodes[i as usize];
            if node.state.is_some() {
                return false;
            }
            at = node.parent;
        }
        true
    }

    fn is_open_job(&self, id: u32) -> bool {
        matches!(self.nodes[id as usize].kind, Kind::Job { done: None }) && self.live(id)
    }

    fn job(&self, id: u32) -> Job {
        let node = &self.nodes[id as usize];
        Job {
            id,
            game: self.parse(&node.position),
            attacker: node.attacker,
        }
    }

    /// Every job still needed, in the order they are best taken.
    pub fn open_jobs(&self) -> impl Iterator<Item = Job> + '_ {
        (0..self.nodes.len() as u32)
            .filter(|&id| self.is_open_job(id))
            .map(|id| self.job(id))
    }

    /// The next job still needed that is not handed out, now handed out.
    pub fn take(&mut self) -> Option<Job> {
        let id = (0..self.nodes.len() as u32)
            .find(|&id| !self.running.contains(&id) && self.is_open_job(id))?;
        self.running.insert(id);
        Some(self.job(id))
    }

    /// Whether jobs are handed out and not answered.
    #[must_use]
    pub fn is_running(&self) -> bool {
        !self.running.is_empty()
    }

    /// Record a job's answer and settle what it decides; an answer for a
    /// job already answered, or no longer needed, is kept in the figures
    /// and changes nothing else.
    ///
    /// # Errors
    /// `id` is not a job of this plan (nothing changes).
    pub fn record(&mut self, id: u32, answer: Answer, cost: Cost) -> Result<(), PlanError> {
        let Some(node) = self.nodes.get(id as usize) else {
            return Err(PlanError::Node {
                node: id,
                reason: "no such job".to_owned(),
            });
        };
        if !matches!(node.kind, Kind::Job { .. }) {
            return Err(PlanError::Node {
                node: id,
                reason: "not a job".to_owned(),
            });
        }
        self.running.remove(&id);
        self.totals.jobs += 1;
        self.totals.nodes += cost.nodes;
        self.totals.ms += cost.ms;
        if !self.is_open_job(id) {
            return Ok(());
        }
        match answer {
            Answer::Verdict(verdict) => {
                let node = &mut self.nodes[id as usize];
                node.kind = Kind::Job { done: Some(cost) };
                node.state = Some(verdict);
            }
            Answer::OverBudget => {
                self.totals.split += 1;
                let game = self.parse(&self.nodes[id as usize].position);
                self.expand(id, &game);
                if self.nodes[id as usize].state.is_none() {
                    return Ok(());
                }
            }
        }
        self.propagate(id);
        Ok(())
    }

    /// Where the plan stands.
    #[must_use]
    pub fn progress(&self) -> Progress {
        let done = self
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, Kind::Job { done: Some(_) }))
            .count() as u64;
        let open = (0..self.nodes.len() as u32)
            .filter(|&id| self.is_open_job(id))
            .count();
        let root = &self.nodes[self.roots[0] as usize];
        let root_moves = match &root.kind {
            Kind::All { children } => (
                children
                    .iter()
                    .filter(|&&c| self.nodes[c as usize].state.is_some())
                    .count(),
                children.len(),
            ),
            _ => (usize::from(root.state.is_some()), 1),
        };
        Progress {
            done,
            open,
            root_moves: if self.value().is_some() {
                (root_moves.1, root_moves.1)
            } else {
                root_moves
            },
            totals: self.totals,
        }
    }

    /// Check a plan read from elsewhere: its board and positions parse,
    /// every node refers to nodes that exist, and the tree holds together
    /// as a proof: each position one move below its parent's, each split
    /// with the moves it makes, each answer what its game or children say.
    ///
    /// # Errors
    /// The first thing that does not hold.
    pub fn check(&self) -> Result<(), PlanError> {
        self.check_links()?;
        self.check_tree()
    }

    /// The part of [`Plan::check`] that keeps the plan usable: its board
    /// and positions parse, and every node refers to nodes that exist.
    fn check_links(&self) -> Result<(), PlanError> {
        let rules = Rules::new(self.rows, self.cols, self.k)
            .map_err(|e| PlanError::Header(format!("bad board: {e}")))?;
        let game = Game::from_notation(&self.position, self.k)
            .map_err(|e| PlanError::Header(format!("bad position: {e}")))?;
        if game.rules() != rules {
            return Err(PlanError::Header(
                "the position is not on the plan's board".to_owned(),
            ));
        }
        if self.roots.len() != 2 || self.roots.iter().any(|&r| r as usize >= self.nodes.len()) {
            return Err(PlanError::Header("the plan needs two roots".to_owned()));
        }
        let len = self.nodes.len() as u32;
        for (id, node) in self.nodes.iter().enumerate() {
            let id = id as u32;
            let bad = |reason: &str| PlanError::Node {
                node: id,
                reason: reason.to_owned(),
            };
            let g = Game::from_notation(&node.position, self.k)
                .map_err(|e| bad(&format!("bad position: {e}")))?;
            if g.rules() != rules {
                return Err(bad("position on another board"));
            }
            if node.parent.is_some_and(|p| p >= id) {
                return Err(bad("parent after its child"));
            }
            let refs: Vec<u32> = match &node.kind {
                Kind::All { children } => children.clone(),
                Kind::One {
                    candidates,
                    next,
                    child,
                } => {
                    if *next as usize > candidates.len()
                        || candidates.iter().any(|&c| c as usize >= rules.cell_count())
                    {
                        return Err(bad("bad candidates"));
                    }
                    child.iter().copied().collect()
                }
                Kind::Job { .. } | Kind::End => Vec::new(),
            };
            if refs
                .iter()
                .any(|&c| c >= len || c <= id || self.nodes[c as usize].parent != Some(id))
            {
                return Err(bad("bad child"));
            }
        }
        Ok(())
    }

    /// Check that the tree holds together as a proof: the two roots are
    /// the plan's position, one question for each side; every node's
    /// position is its parent's after a move the parent's split allows,
    /// and every split node has exactly the children its split makes; a
    /// finished game is an end whose answer is the game's; and every
    /// settled node says what its children say. A job's own answer is the
    /// prover's, taken as recorded: a checkpoint's digest catches damage,
    /// not a forged answer, and only a certificate (`--proof`, checked by
    /// `oxo verify`) is a proof anyone can check.
    fn check_tree(&self) -> Result<(), PlanError> {
        let root = self.game();
        let mover = root.to_move();
        for (i, attacker) in [mover, mover.other()].into_iter().enumerate() {
            let node = &self.nodes[self.roots[i] as usize];
            if node.parent.is_some()
                || node.depth != 0
                || node.attacker != attacker
                || self.parse(&node.position) != root
            {
                return Err(PlanError::Header(format!(
                    "root {i} is not {attacker}'s question about the plan's position"
                )));
            }
        }
        let mut kids: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        for (id, node) in self.nodes.iter().enumerate() {
            match node.parent {
                Some(parent) => kids[parent as usize].push(id as u32),
                None if self.roots.contains(&(id as u32)) => {}
                None => {
                    return Err(PlanError::Node {
                        node: id as u32,
                        reason: "no parent, and not a root".to_owned(),
                    });
                }
            }
        }
        let windows = windows(self.rules());
        let positions = |ids: &mut dyn Iterator<Item = u32>| -> Vec<Game> {
            ids.map(|c| self.parse(&self.nodes[c as usize].position))
                .collect()
        };
        // Children before their parents, so that a wrong answer is reported
        // where it is written, not at the parent it misleads.
        for (id, node) in self.nodes.iter().enumerate().rev() {
            let id = id as u32;
            let bad = |reason: String| PlanError::Node { node: id, reason };
            let game = self.parse(&node.position);
            if let Some(parent) = node.parent.map(|p| &self.nodes[p as usize])
                && (node.attacker != parent.attacker || node.depth != parent.depth + 1)
            {
                return Err(bad("not its parent's question one ply down".to_owned()));
            }
            let end = terminal(&game, node.attacker);
            if matches!(node.kind, Kind::End) != end.is_some() {
                return Err(bad(format!(
                    "{} is {}a finished game",
                    node.position,
                    if end.is_some() { "" } else { "not " }
                )));
            }
            // Every node below this one is a child its split made.
            let split = matches!(node.kind, Kind::All { .. } | Kind::One { .. });
            if !split && !kids[id as usize].is_empty() {
                return Err(bad("nodes below a node that is not split".to_owned()));
            }
            if split && matches!(node.kind, Kind::All { .. }) != self.every(&game, node.attacker) {
                return Err(bad(format!(
                    "split {} where {} the side to move must reach the aim",
                    if matches!(node.kind, Kind::All { .. }) {
                        "into every move"
                    } else {
                        "into one move"
                    },
                    if self.every(&game, node.attacker) {
                        "every move of"
                    } else {
                        "one move of"
                    }
                )));
            }
            let settled = match &node.kind {
                Kind::End => end,
                Kind::Job { done } => {
                    if done.is_some() != node.state.is_some() {
                        return Err(bad(
                            "a job's answer without its cost, or a cost without an answer"
                                .to_owned(),
                        ));
                    }
                    node.state
                }
                Kind::All { children } => {
                    let (expected, _) = self.split_of(&game, node.attacker, &windows);
                    if *children != kids[id as usize]
                        || positions(&mut children.iter().copied()) != expected
                    {
                        return Err(bad(
                            "its children are not every move of its position".to_owned()
                        ));
                    }
                    self.all_state(children)
                }
                Kind::One {
                    candidates,
                    next,
                    child,
                } => {
                    let (_, expected) = self.split_of(&game, node.attacker, &windows);
                    if *candidates != expected {
                        return Err(bad("its moves are not its position's".to_owned()));
                    }
                    // The moves tried, in order, the last the current one.
                    let tried = &kids[id as usize];
                    let made: Vec<Game> = candidates[..tried.len().min(candidates.len())]
                        .iter()
                        .map(|&cell| {
                            let mut g = game.clone();
                            g.play_unchecked(g.rules().cell_at(cell.into()));
                            g
                        })
                        .collect();
                    if tried.len() != *next as usize
                        || tried.last() != child.as_ref()
                        || positions(&mut tried.iter().copied()) != made
                    {
                        return Err(bad("its children are not the moves it tried".to_owned()));
                    }
                    let missed = |c: &u32| self.nodes[*c as usize].state == Some(self.aim.not());
                    if !tried[..tried.len().saturating_sub(1)].iter().all(missed) {
                        return Err(bad(
                            "a move was tried before the one before it missed".to_owned()
                        ));
                    }
                    match child.map(|c| self.nodes[c as usize].state) {
                        Some(Some(v)) if v == self.aim => Some(v),
                        Some(Some(_)) | None if tried.len() == candidates.len() => {
                            Some(self.aim.not())
                        }
                        Some(Some(_)) | None => {
                            return Err(bad("a move missed and the next was not tried".to_owned()));
                        }
                        Some(None) => None,
                    }
                }
            };
            if settled != node.state {
                return Err(bad(format!(
                    "it says {}, its {} say {}",
                    shown(node.state),
                    if matches!(node.kind, Kind::End) {
                        "game and rules"
                    } else {
                        "children"
                    },
                    shown(settled)
                )));
            }
        }
        Ok(())
    }

    /// What splitting a node of `attacker`'s question at `game` makes: the
    /// positions of an All node's children, or a One node's candidates.
    fn split_of(&self, game: &Game, attacker: Player, windows: &Windows) -> (Vec<Game>, Vec<u16>) {
        let moves = moves(game, attacker, windows);
        if self.every(game, attacker) {
            // A finished game that misses the aim settles the node alone.
            let children = match moves.iter().position(|m| m.end == Some(self.aim.not())) {
                Some(i) => vec![moves[i].game.clone()],
                None => moves.into_iter().map(|m| m.game).collect(),
            };
            (children, Vec::new())
        } else {
            let rules = game.rules();
            let mut candidates: Vec<u16> =
                moves.iter().map(|m| rules.index(m.cell) as u16).collect();
            // A move that ends the game at the aim goes first.
            if let Some(i) = moves.iter().position(|m| m.end == Some(self.aim)) {
                let best = candidates.remove(i);
                candidates.insert(0, best);
            }
            (Vec::new(), candidates)
        }
    }

    /// An All node's answer from its children's.
    fn all_state(&self, children: &[u32]) -> State {
        let state = |c: &u32| self.nodes[*c as usize].state;
        if children.iter().any(|c| state(c) == Some(self.aim.not())) {
            Some(self.aim.not())
        } else if children.iter().all(|c| state(c) == Some(self.aim)) {
            Some(self.aim)
        } else {
            None
        }
    }

    /// The roots of the two questions: the side to move's, the other's.
    pub(crate) fn roots(&self) -> [u32; 2] {
        [self.roots[0], self.roots[1]]
    }

    /// Node `id` as the certificate assembly reads it: its position, the
    /// side whose win is asked about, its answer, and its children (for
    /// a One node, those tried so far), or `None` for a leaf.
    pub(crate) fn view(&self, id: u32) -> (Game, Player, Option<Verdict>, Option<Vec<u32>>) {
        let node = &self.nodes[id as usize];
        let children = match &node.kind {
            Kind::All { children } => Some(children.clone()),
            Kind::One { .. } => Some(
                (id + 1..self.nodes.len() as u32)
                    .filter(|&c| self.nodes[c as usize].parent == Some(id))
                    .collect(),
            ),
            Kind::Job { .. } | Kind::End => None,
        };
        (
            self.parse(&node.position),
            node.attacker,
            node.state,
            children,
        )
    }

    /// A new node for `game`, split further while above the plan's split
    /// depth where every move must reach the aim. Where one reply
    /// suffices, the node stays a job whatever its depth: the prover picks
    /// the reply inside its own search, which orders the replies better
    /// than [`moves`] and refutes the others through its zones; only when
    /// that job runs over its budget are the replies tried one by one.
    fn create(&mut self, parent: Option<u32>, game: &Game, attacker: Player, depth: u32) -> u32 {
        let id = self.nodes.len() as u32;
        let end = terminal(game, attacker);
        self.nodes.push(Node {
            position: game.to_string(),
            attacker,
            parent,
            depth,
            state: end,
            kind: if end.is_some() {
                Kind::End
            } else {
                Kind::Job { done: None }
            },
        });
        if end.is_none() && depth < self.split && self.every(game, attacker) {
            self.expand(id, game);
        }
        id
    }

    /// Whether every move of the side to move in `game` must reach the
    /// aim (an All node once split), rather than one of them.
    fn every(&self, game: &Game, attacker: Player) -> bool {
        (game.to_move() == attacker) == (self.aim == Verdict::Disproven)
    }

    /// Split node `id` (position `game`) one ply: every move, or the
    /// best move first.
    fn expand(&mut self, id: u32, game: &Game) {
        let node = &self.nodes[id as usize];
        let attacker = node.attacker;
        let depth = node.depth;
        let (positions, candidates) = self.split_of(game, attacker, &windows(game.rules()));
        if self.every(game, attacker) {
            let children = positions
                .iter()
                .map(|g| self.create(Some(id), g, attacker, depth + 1))
                .collect();
            self.nodes[id as usize].kind = Kind::All { children };
        } else {
            self.nodes[id as usize].kind = Kind::One {
                candidates,
                next: 0,
                child: None,
            };
        }
        self.review(id);
    }

    /// Settle node `id` if its children decide it, or try a One node's
    /// next move; whether it is now settled.
    fn review(&mut self, id: u32) -> bool {
        let aim = self.aim;
        let node = &self.nodes[id as usize];
        if node.state.is_some() {
            return false;
        }
        let state = |plan: &Plan, c: u32| plan.nodes[c as usize].state;
        match node.kind.clone() {
            Kind::All { children } => {
                self.nodes[id as usize].state = self.all_state(&children);
            }
            Kind::One {
                candidates,
                mut next,
                mut child,
            } => {
                let (attacker, depth) = (node.attacker, node.depth);
                let game = self.parse(&node.position);
                let verdict = loop {
                    match child.map(|c| state(self, c)) {
                        Some(None) => break None,
                        Some(Some(v)) if v == aim => break Some(aim),
                        _ => {}
                    }
                    let Some(&cell) = candidates.get(next as usize) else {
                        break Some(aim.not());
                    };
                    next += 1;
                    let mut g = game.clone();
                    g.play_unchecked(g.rules().cell_at(cell.into()));
                    child = Some(self.create(Some(id), &g, attacker, depth + 1));
                };
                let node = &mut self.nodes[id as usize];
                node.kind = Kind::One {
                    candidates,
                    next,
                    child,
                };
                node.state = verdict;
            }
            Kind::Job { .. } | Kind::End => {}
        }
        self.nodes[id as usize].state.is_some()
    }

    /// After node `id` settled: settle what it decides above it.
    fn propagate(&mut self, mut id: u32) {
        while let Some(parent) = self.nodes[id as usize].parent {
            if !self.review(parent) {
                break;
            }
            id = parent;
        }
    }
}

/// An answer as the checks show it.
fn shown(state: State) -> &'static str {
    match state {
        Some(Verdict::Proven) => "proven",
        Some(Verdict::Disproven) => "disproven",
        None => "open",
    }
}

/// The answer a finished game gives, or `None` while it goes on.
fn terminal(game: &Game, attacker: Player) -> Option<Verdict> {
    Some(match game.outcome()? {
        Outcome::Win(p) if p == attacker => Verdict::Proven,
        _ => Verdict::Disproven,
    })
}

/// The board's windows (each k cells in a row), as row-major indices.
type Windows = Vec<Vec<usize>>;

fn windows(rules: Rules) -> Windows {
    rules
        .windows()
        .map(|w| w.cells().map(|c| rules.index(c)).collect())
        .collect()
}

/// One move of an expansion.
struct Move {
    cell: oxo_core::Cell,
    game: Game,
    end: Option<Verdict>,
}

/// The moves of `game` up to the board's symmetries (the first of each
/// class in row-major order kept), most promising first: by the open
/// windows through the cell, each weighing 4 to the power of the marks
/// already in it (a line's extension or block first).
fn moves(game: &Game, attacker: Player, windows: &Windows) -> Vec<Move> {
    let rules = game.rules();
    let cells = game.cells();
    let score = |index: usize| -> u64 {
        windows
            .iter()
            .filter(|w| w.contains(&index))
            .map(|w| {
                let x = w.iter().filter(|&&i| cells[i] == Some(Player::X)).count() as u32;
                let o = w.iter().filter(|&&i| cells[i] == Some(Player::O)).count() as u32;
                match (x, o) {
                    (0, 0) => 2,
                    (n, 0) | (0, n) => 4u64.pow(n + 1),
                    _ => 0,
                }
            })
            .sum()
    };
    let mut seen = HashSet::new();
    let mut out: Vec<(u64, Move)> = Vec::new();
    for cell in game.legal_moves() {
        let mut child = game.clone();
        child.play_unchecked(cell);
        if !seen.insert(canonical(&child)) {
            continue;
        }
        let end = terminal(&child, attacker);
        out.push((
            score(rules.index(cell)),
            Move {
                cell,
                game: child,
                end,
            },
        ));
    }
    // Stable: equal scores keep row-major order.
    out.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
    out.into_iter().map(|(_, m)| m).collect()
}

/// The image of a position under `symmetry` (one of its board's), one
/// byte a cell.
pub(crate) fn image(game: &Game, symmetry: Symmetry) -> Vec<u8> {
    let rules = game.rules();
    let cells = game.cells();
    let mut image = vec![0u8; cells.len()];
    for (i, cell) in cells.iter().enumerate() {
        image[symmetry.cell(rules, i).unwrap_or(i)] = match cell {
            None => 0,
            Some(Player::X) => 1,
            Some(Player::O) => 2,
        };
    }
    image
}

/// The least of a position's images under the board's symmetries.
fn canonical(game: &Game) -> Vec<u8> {
    (game.rules().symmetries())
        .map(|t| image(game, t))
        .min()
        .expect("at least the identity")
}

/// `Player` as `"X"` or `"O"` in the plan's JSON.
mod side {
    use oxo_core::Player;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(p: &Player, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&p.to_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Player, D::Error> {
        let text = String::deserialize(d)?;
        let mut chars = text.chars();
        match (chars.next().and_then(Player::from_char), chars.next()) {
            (Some(p), None) => Ok(p),
            _ => Err(serde::de::Error::custom(format!("not a side: {text:?}"))),
        }
    }
}

/// Answers every job of `plan` with the 64-bit solver, one at a time;
/// the number of jobs.
#[cfg(test)]
pub(crate) fn solve_all(plan: &mut Plan) -> usize {
    let mut solver = oxo_ai::Solver::new(plan.rules(), 1 << 20).unwrap();
    let mut jobs = 0;
    while let Some(job) = plan.take() {
        let verdict = if solver.can_force(&job.game, job.attacker).unwrap() {
            Verdict::Proven
        } else {
            Verdict::Disproven
        };
        plan.record(job.id, Answer::Verdict(verdict), Cost::default())
            .unwrap();
        jobs += 1;
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(text: &str, k: u32) -> Game {
        Game::from_notation(text, k).unwrap()
    }

    #[test]
    fn symmetric_moves_are_one_job() {
        // The empty 3×3 board has three moves up to symmetry.
        let plan = Plan::new(&Game::new(Rules::new(3, 3, 3).unwrap()), 1);
        assert_eq!(plan.progress().root_moves, (0, 3));
    }

    #[test]
    fn split_answers_agree_with_the_solver() {
        for (text, k) in [
            (".../.../...", 3),
            ("..../..../..../....", 3),
            ("..../..../..../....", 4),
            ("X.O/.X./...", 3),
            ("...../...../...../.....", 4),
        ] {
            let g = game(text, k);
            let expected = oxo_ai::Solver::new(g.rules(), 1 << 20)
                .unwrap()
                .value(&g)
                .unwrap();
            for split in 0..3 {
                let mut plan = Plan::new(&g, split);
                solve_all(&mut plan);
                assert_eq!(plan.value(), Some(expected), "{text} k={k} split {split}");
            }
        }
    }

    #[test]
    fn the_prover_chooses_the_defenders_reply() {
        // X's question on the empty 4×4 board, split two plies: X's three
        // moves, each a job with O to move (O's reply is the prover's).
        let g = Game::new(Rules::new(4, 4, 4).unwrap());
        let mut plan = Plan::new(&g, 2);
        let x_jobs: Vec<Job> = plan
            .open_jobs()
            .filter(|j| j.attacker == Player::X)
            .collect();
        assert_eq!(x_jobs.len(), 3);
        assert!(x_jobs.iter().all(|j| j.game.to_move() == Player::O));
        // O's question, X to move: one job, the root itself.
        let o_jobs: Vec<Job> = plan
            .open_jobs()
            .filter(|j| j.attacker == Player::O)
            .collect();
        assert_eq!(o_jobs.len(), 1);
        assert_eq!(o_jobs[0].id, plan.roots[1]);
        // Over its budget, O's reply is chosen by the split: one child,
        // a job with X to move.
        let id = x_jobs[0].id;
        plan.record(id, Answer::OverBudget, Cost::default())
            .unwrap();
        let deeper: Vec<Job> = plan
            .open_jobs()
            .filter(|j| j.game.move_count() == 2)
            .collect();
        assert_eq!(deeper.len(), 1);
        assert_eq!(deeper[0].game.to_move(), Player::X);
        solve_all(&mut plan);
        assert_eq!(plan.value(), Some(Value::Draw));
    }

    #[test]
    fn over_budget_jobs_split_deeper() {
        let g = Game::new(Rules::new(4, 4, 3).unwrap());
        let mut plan = Plan::new(&g, 0);
        let job = plan.take().unwrap();
        assert_eq!(job.id, plan.roots[0]);
        plan.record(job.id, Answer::OverBudget, Cost::default())
            .unwrap();
        let x_jobs: Vec<Job> = plan
            .open_jobs()
            .filter(|j| j.attacker == Player::X)
            .collect();
        // The empty 4×4 board's three moves up to symmetry.
        assert_eq!(x_jobs.len(), 3);
        assert!(x_jobs.iter().all(|j| j.game.move_count() == 1));
        solve_all(&mut plan);
        assert_eq!(plan.value(), Some(Value::Win));
    }

    #[test]
    fn a_plan_survives_json() {
        let g = Game::new(Rules::new(4, 4, 4).unwrap());
        let mut plan = Plan::new(&g, 2);
        let job = plan.take().unwrap();
        plan.record(
            job.id,
            Answer::Verdict(Verdict::Disproven),
            Cost { nodes: 5, ms: 1 },
        )
        .unwrap();
        let text = serde_json::to_string(&plan).unwrap();
        let mut back: Plan = serde_json::from_str(&text).unwrap();
        back.check().unwrap();
        assert_eq!(back.progress(), plan.progress());
        solve_all(&mut back);
        assert_eq!(back.value(), Some(Value::Draw));
    }

    #[test]
    fn unknown_jobs_are_refused() {
        let mut plan = Plan::new(&Game::new(Rules::new(3, 3, 3).unwrap()), 1);
        let root = plan.roots[0];
        assert!(
            plan.record(999, Answer::OverBudget, Cost::default())
                .is_err()
        );
        assert!(
            plan.record(root, Answer::OverBudget, Cost::default())
                .is_err()
        );
    }

    /// Every plan on the way to an answer, with jobs over budget split
    /// deeper, passes the checks, as written and read back.
    #[test]
    fn every_plan_on_the_way_holds_together() {
        let mut ones = [0; 2];
        for (text, k) in [
            (".../.../...", 3),
            ("..../..../..../....", 3),
            ("..../..../..../....", 4),
            ("X.O/.X./...", 3),
            ("..../..../..../..../....", 4),
            ("...../...../...../...../.....", 4),
        ] {
            let g = game(text, k);
            let mut solver = oxo_ai::Solver::new(g.rules(), 1 << 20).unwrap();
            let expected = solver.value(&g).unwrap();
            for split in 0..3 {
                let mut plan = Plan::new(&g, split);
                plan.check().unwrap();
                let mut n = 0;
                while let Some(job) = plan.take() {
                    n += 1;
                    let answer = if n % 2 == 0 && job.game.move_count() < 4 {
                        Answer::OverBudget
                    } else if solver.can_force(&job.game, job.attacker).unwrap() {
                        Answer::Verdict(Verdict::Proven)
                    } else {
                        Answer::Verdict(Verdict::Disproven)
                    };
                    plan.record(job.id, answer, Cost::default()).unwrap();
                    let back: Plan =
                        serde_json::from_str(&serde_json::to_string(&plan).unwrap()).unwrap();
                    back.check()
                        .unwrap_or_else(|e| panic!("{text} k={k} split {split}, job {n}: {e}"));
                }
                assert_eq!(plan.value(), Some(expected), "{text} k={k} split {split}");
                for node in &plan.nodes {
                    if let Kind::One { next, .. } = node.kind {
                        ones[usize::from(next > 1)] += 1;
                    }
                }
            }
        }
        // Both kinds of split were checked, and moves tried after others
        // missed.
        assert!(ones[0] > 0 && ones[1] > 0, "{ones:?}");
    }

    /// A plan edited so that it no longer holds together is refused at the
    /// node that breaks.
    #[test]
    fn forged_plans_are_refused_where_they_break() {
        let g = Game::new(Rules::new(4, 4, 3).unwrap());
        let mut solved = Plan::new(&g, 2);
        solve_all(&mut solved);
        assert_eq!(solved.value(), Some(Value::Win));
        solved.check().unwrap();
        let refused = |edit: &dyn Fn(&mut Plan) -> u32, words: &str| {
            let mut plan = solved.clone();
            let node = edit(&mut plan);
            let error = plan.check().unwrap_err().to_string();
            assert!(error.starts_with(&format!("node {node}: ")), "{error}");
            assert!(error.contains(words), "{error}");
        };
        let root = solved.roots[0];
        // A settled node that says the opposite of its children.
        refused(
            &|p| {
                p.nodes[root as usize].state = Some(Verdict::Disproven);
                root
            },
            "it says disproven, its children say proven",
        );
        // A job's answer flipped, its parent left as it was.
        let (job, parent) = (0..solved.nodes.len() as u32)
            .find_map(|id| {
                let node = &solved.nodes[id as usize];
                (matches!(node.kind, Kind::Job { done: Some(_) })
                    && node.parent.is_some_and(|p| {
                        matches!(solved.nodes[p as usize].kind, Kind::All { .. })
                            && solved.nodes[p as usize].state.is_some()
                    }))
                .then(|| (id, node.parent.unwrap()))
            })
            .expect("an answered job under a settled split");
        refused(
            &|p| {
                let node = &mut p.nodes[job as usize];
                node.state = node.state.map(Verdict::not);
                parent
            },
            "its children say",
        );
        // A split node missing a move, or with another position in its
        // place.
        let Kind::All { children } = solved.nodes[root as usize].kind.clone() else {
            panic!("the root is split into every move");
        };
        refused(
            &|p| {
                p.nodes[root as usize].kind = Kind::All {
                    children: children[1..].to_vec(),
                };
                root
            },
            "its children are not every move of its position",
        );
        let first = children[0];
        refused(
            &|p| {
                let taken = p.nodes[children[1] as usize].position.clone();
                p.nodes[first as usize].position = taken;
                root
            },
            "its children are not every move of its position",
        );
        // A game going on called finished, and a finished game whose
        // answer is not the game's.
        refused(
            &|p| {
                p.nodes[job as usize].kind = Kind::End;
                job
            },
            "is not a finished game",
        );
        let mut won = Plan::new(&game("XX./OO./...", 3), 1);
        solve_all(&mut won);
        let end = (0..won.nodes.len() as u32)
            .find(|&id| matches!(won.nodes[id as usize].kind, Kind::End))
            .expect("X's winning move is a finished game");
        won.nodes[end as usize].state = Some(Verdict::Disproven);
        let error = won.check().unwrap_err().to_string();
        assert_eq!(
            error,
            format!("node {end}: it says disproven, its game and rules say proven")
        );
        // A split of the wrong kind: the root (X to move, X's question:
        // every move must miss) split into one move, with none to try, so
        // it would settle as X's win.
        let mut unsplit = Plan::new(&game(".../.../...", 3), 0);
        let top = unsplit.roots[0];
        unsplit.nodes[top as usize].kind = Kind::One {
            candidates: Vec::new(),
            next: 0,
            child: None,
        };
        unsplit.nodes[top as usize].state = Some(Verdict::Proven);
        assert_eq!(
            unsplit.value(),
            Some(Value::Win),
            "what the forgery would claim"
        );
        assert_eq!(
            unsplit.check().unwrap_err().to_string(),
            format!(
                "node {top}: split into one move where every move of the side to move must reach the aim"
            )
        );
        // A node its parent's split did not make: under an All node that
        // does not list it, under a job, or with no parent at all.
        let stray = |p: &mut Plan, parent: Option<u32>| {
            let mut node = p.nodes[job as usize].clone();
            node.depth = parent.map_or(0, |at| p.nodes[at as usize].depth + 1);
            node.parent = parent;
            node.state = None;
            node.kind = Kind::Job { done: None };
            p.nodes.push(node);
        };
        refused(
            &|p| {
                stray(p, Some(root));
                root
            },
            "its children are not every move of its position",
        );
        refused(
            &|p| {
                stray(p, Some(job));
                job
            },
            "nodes below a node that is not split",
        );
        let last = solved.nodes.len() as u32;
        refused(
            &|p| {
                stray(p, None);
                last
            },
            "no parent, and not a root",
        );
        // The roots swapped: each is the other side's question.
        refused_header(
            &solved,
            |p| p.roots.swap(0, 1),
            "root 0 is not X's question",
        );
    }

    fn refused_header(solved: &Plan, edit: impl Fn(&mut Plan), words: &str) {
        let mut plan = solved.clone();
        edit(&mut plan);
        let error = plan.check().unwrap_err().to_string();
        assert!(error.contains(words), "{error}");
    }
}
