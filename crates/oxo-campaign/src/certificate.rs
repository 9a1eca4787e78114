//! A certificate ([`oxo_core::proof`]) of a split proof: the top of the
//! split tree written as certificate nodes above a certificate of each job,
//! streamed to a file.
//!
//! The plan's tree is walked from the root along the answers that settled
//! it: where the tree's prover moves, the move of a child that reached the
//! node's answer; where the other side moves, every legal move, each with
//! the child that stands for it up to the board's symmetries. Each plan
//! node is written once, at the position the plan holds for it; a move
//! that reaches a symmetric image of it is a symmetric image node (`s T
//! N`) referring to it. So each job's tree is written once, however many
//! moves reach its position up to symmetry (on (8,8,5) the top's 11,283
//! reaches of jobs are 1,566 jobs: copying a job's tree for each reach
//! would write it 7 times over). The claim and its trees follow the plan's
//! value: a win for P is P's tree from the question "can P win?"; a draw
//! is both sides' "does not lose" trees, each from the other side's
//! question.
//!
//! # Size, memory and threads
//! A job's tree can be far larger than the job's search suggests: a
//! worker's table keeps what earlier jobs learnt, so a job answered in a
//! handful of positions may need a tree of millions of nodes once written
//! out alone. The whole certificate need not fit in memory: the jobs'
//! trees are written on `threads` workers ([`write()`]), each with its own
//! job writer (its own prover and table), and handed to one writer thread
//! that appends them to a scratch file in the order the top walk first
//! reaches them; then the file's head, the top's nodes and the scratch
//! file's nodes are written out. At most two trees per worker are held at
//! once (one being written, one waiting for its turn), so memory is
//! bounded by the workers' tables and the largest trees, whatever the
//! certificate's size. A job writer must answer each job as if it had
//! answered none before (a prover clears its table first): the trees, and
//! so the file, are then the same whatever the thread count.
//!
//! A job whose tree would be larger than its writer allows is refused by
//! that writer with a size error ([`oxo_ai::ProveError::ProofTooLarge`]),
//! which stops the writing. [`WriterMemory`] sizes that cap from the memory
//! given (each worker's tree gets three quarters of its share, at about
//! [`TREE_BYTES_PER_NODE`] bytes a node), rather than a fixed cap: a
//! fixed one either stops proofs the machine could write or lets a worker
//! run out of memory. Splitting an over-cap job further (writing its top
//! plies as top nodes) was left out: a tree written in pieces is no
//! smaller, the prover's choice of the holder's move would have to be
//! made outside its search, and what stops (8,8,5)'s certificate is its
//! total size (billions of nodes, see `docs/benchmarks.md`), not one job.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use oxo_ai::Value;
use oxo_core::proof::{self, Certificate, Claim, Goal, Node, Tree};
use oxo_core::{Game, Outcome, Player, Symmetry};

use crate::plan::{Plan, image};

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
    /// A job writer could not be made.
    #[error("cannot start a job writer: {0}")]
    Writer(String),
    /// Asked to stop before every job's tree was written.
    #[error("stopped after writing {written} of the {all} jobs' trees: no certificate written")]
    Stopped {
        /// Jobs whose trees were written.
        written: usize,
        /// Jobs in all.
        all: usize,
    },
    /// The certificate could not be written.
    #[error("cannot write the certificate: {0}")]
    Io(#[from] io::Error),
}

/// One job's tree that the certificate needs: the job's position (as the
/// plan holds it), the side the tree is for and what it proves.
#[derive(Clone, Debug)]
pub struct JobTree {
    /// The position.
    pub game: Game,
    /// The tree's prover: the side that holds against the job's attacker.
    pub prover: Player,
    /// What the tree proves.
    pub goal: Goal,
}

/// Where the writing stands, after each job's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Jobs whose trees are written...
    pub jobs: usize,
    /// ...of all the certificate needs.
    pub all_jobs: usize,
    /// Nodes written so far (the top's included at the end).
    pub nodes: u64,
    /// Bytes of node lines written so far.
    pub bytes: u64,
    /// The most nodes one job's tree had.
    pub largest: usize,
    /// What the certificate proves.
    pub claim: Claim,
}

/// Bytes of memory one node of a job's tree takes at most while it is
/// written: the node and its zone, the walk's two position maps, the
/// renumbered copy the tree is finished into, and the copy waiting for
/// its turn (measured on (8,8,5) jobs of up to 23 million nodes).
pub const TREE_BYTES_PER_NODE: u64 = 320;

/// How a certificate's writing shares `memory` bytes among `threads` job
/// writers: each one's share, a quarter of it for its search's table (at
/// least 1 MiB) and three quarters for the job's tree, whose nodes are
/// capped to fit (at least [`oxo_ai::MAX_PROOF_NODES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriterMemory {
    /// Each writer's table.
    pub table_bytes: usize,
    /// The most nodes a job's tree may have.
    pub cap: usize,
}

impl WriterMemory {
    /// The shares of `memory` bytes among `threads` writers.
    #[must_use]
    pub fn new(memory: u64, threads: usize) -> WriterMemory {
        let share = memory / threads.max(1) as u64;
        WriterMemory {
            table_bytes: usize::try_from(share / 4)
                .unwrap_or(usize::MAX)
                .max(1 << 20),
            cap: usize::try_from(share * 3 / 4 / TREE_BYTES_PER_NODE)
                .unwrap_or(usize::MAX)
                .max(oxo_ai::MAX_PROOF_NODES),
        }
    }
}

/// A job writer for [`write()`] on `rules`' board, within `memory`: a job's
/// tree from the prover where it has one ([`oxo_ai::Prover::certify_hold`]
/// for a side that does not lose; [`oxo_ai::Prover::certify_win`] for a
/// side that wins, beyond the 64-bit boards), else from the 64-bit solver
/// ([`oxo_ai::certify`]); each job from an empty table, so the file is the
/// same whatever the thread count.
///
/// # Errors
/// The writer's: a search failed, a tree over the cap, or no Breaker proof
/// on a board the solver cannot take.
pub fn job_writer(
    rules: oxo_core::Rules,
    memory: WriterMemory,
) -> impl FnMut(&JobTree) -> Result<Certificate, String> {
    let mut prover = oxo_ai::Prover::new(rules, memory.table_bytes).ok();
    if let Some(prover) = prover.as_mut() {
        prover.set_proof_cap(memory.cap);
    }
    let mut solver: Option<oxo_ai::Solver> = None;
    move |job: &JobTree| {
        let from_prover = match prover.as_mut() {
            Some(prover) => {
                prover.clear();
                if job.goal == Goal::Draw {
                    prover.certify_hold(&job.game, job.prover)
                } else if oxo_ai::Solver::can_solve(rules) {
                    // The 64-bit solver's own win trees on its boards.
                    Ok(None)
                } else {
                    prover.certify_win(&job.game, job.prover)
                }
            }
            None => Ok(None),
        }
        .map_err(|e| e.to_string())?;
        if let Some(certificate) = from_prover {
            return Ok(certificate);
        }
        let solver = match &mut solver {
            Some(solver) => solver,
            None => solver.insert(oxo_ai::Solver::new(rules, memory.table_bytes).map_err(|e| {
                format!("no Breaker proof here, and the 64-bit solver cannot write one: {e}")
            })?),
        };
        solver.clear();
        oxo_ai::certify(solver, &job.game).map_err(|e| e.to_string())
    }
}

/// The certificate of `plan`'s value, whole in memory (for small proofs
/// and tests; see [`write()`] for large ones), with each job's tree from
/// `job`.
///
/// # Errors
/// As [`write()`].
pub fn assemble<F, E>(
    plan: &Plan,
    job: impl Fn() -> Result<F, E> + Sync,
) -> Result<Certificate, AssembleError>
where
    F: FnMut(&JobTree) -> Result<Certificate, E>,
    E: std::fmt::Display,
{
    let mut out = Vec::new();
    let scratch = io::Cursor::new(Vec::new());
    write(
        plan,
        1,
        job,
        (&mut out, scratch),
        &AtomicBool::new(false),
        |_| {},
    )?;
    let text = String::from_utf8(out).expect("the text format is ASCII");
    Ok(Certificate::parse(&text).expect("the writer writes the format"))
}

/// Write the certificate of `plan`'s value to `out`, the jobs' trees
/// written on `threads` workers, each with its own job writer from
/// `writer` (called once in each worker's thread), and gathered in
/// `scratch` (a file that can hold them: it is rewound and read back);
/// `progress` hears after each job's tree. Once `stop` is set, no job is
/// begun and the writing stops when those under way are done, with
/// nothing written to `out`. The same plan gives the same
/// bytes whatever `threads`, provided each job writer answers a job alike
/// whatever it answered before.
///
/// The certificate a job writer gives may hold other trees too; only the
/// one wanted (its prover's, with its goal, or else any of its prover's)
/// is copied.
///
/// # Errors
/// The plan is unfinished, a job's certificate could not be had or lacks
/// the tree needed, the plan does not cover a move, writing failed, or
/// `stop` was set ([`AssembleError::Stopped`]).
pub fn write<F, E, S>(
    plan: &Plan,
    threads: usize,
    writer: impl Fn() -> Result<F, E> + Sync,
    (out, mut scratch): (&mut impl Write, S),
    stop: &AtomicBool,
    mut progress: impl FnMut(&Written),
) -> Result<Written, AssembleError>
where
    F: FnMut(&JobTree) -> Result<Certificate, E>,
    E: std::fmt::Display,
    S: Read + Write + Seek,
{
    let game = plan.game();
    let value = plan.value().ok_or(AssembleError::Unfinished)?;
    let mover = game.to_move();
    let [mine, theirs] = plan.roots();
    let (claim, wanted) = match value {
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
    let mut top = Top {
        plan,
        nodes: Vec::new(),
        written: HashMap::new(),
        jobs: Vec::new(),
    };
    let mut roots = Vec::new();
    for (prover, goal, root) in wanted {
        roots.push((prover, goal, top.node(root, prover, goal)?));
    }
    let jobs = std::mem::take(&mut top.jobs);
    let mut images = top.nodes.iter().any(|n| matches!(n, Node::Image(..)));
    let mut written = Written {
        jobs: 0,
        all_jobs: jobs.len(),
        nodes: 0,
        bytes: 0,
        largest: 0,
        claim,
    };
    // The jobs' trees, numbered from 0 in the scratch file, each job's
    // root remembered.
    let mut job_roots = Vec::with_capacity(jobs.len());
    {
        let mut body = io::BufWriter::new(&mut scratch);
        write_jobs(&jobs, threads, &writer, stop, |tree: JobNodes| {
            let base = written.nodes;
            job_roots.push(base + tree.root as u64);
            for node in &tree.nodes {
                images |= matches!(node, Node::Image(..));
                let line = format!("{}\n", renumber(node, |n| base + n as u64));
                body.write_all(line.as_bytes())?;
                written.bytes += line.len() as u64;
            }
            written.nodes += tree.nodes.len() as u64;
            written.largest = written.largest.max(tree.nodes.len());
            written.jobs += 1;
            progress(&written);
            Ok(())
        })?;
        body.flush()?;
    }
    // The jobs' nodes first, as numbered, then the top's after them.
    let offset = written.nodes;
    let resolve = |r: Ref| match r {
        Ref::Top(n) => offset + n as u64,
        Ref::Job(j) => job_roots[j],
    };
    let trees: Vec<Tree> = roots
        .iter()
        .map(|&(prover, goal, root)| Tree {
            prover,
            goal,
            root: to_index(resolve(root)),
        })
        .collect();
    let total = offset + top.nodes.len() as u64;
    let head = proof::head(&game, claim, &trees, to_index(total), images);
    out.write_all(head.as_bytes())?;
    scratch.seek(SeekFrom::Start(0))?;
    io::copy(&mut scratch, out)?;
    let mut tail = String::new();
    for node in &top.nodes {
        tail.push_str(&renumber(node, |n| resolve(Ref::decode(n))).to_string());
        tail.push('\n');
    }
    tail.push_str("end\n");
    out.write_all(tail.as_bytes())?;
    out.flush()?;
    written.nodes = total;
    written.bytes += (head.len() + tail.len()) as u64;
    Ok(written)
}

/// A node of the certificate before its number is known: one of the
/// top's, or a job's root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ref {
    /// The top's node of this index.
    Top(usize),
    /// The root of the job of this index.
    Job(usize),
}

impl Ref {
    /// As a child number in a top node, until the numbers are known.
    const fn encode(self) -> usize {
        match self {
            Ref::Top(n) => n * 2,
            Ref::Job(j) => j * 2 + 1,
        }
    }

    const fn decode(n: usize) -> Ref {
        if n.is_multiple_of(2) {
            Ref::Top(n / 2)
        } else {
            Ref::Job(n / 2)
        }
    }
}

fn to_index(n: u64) -> usize {
    usize::try_from(n).expect("a node number fits the address space")
}

/// `node` with every child number `n` replaced by `number(n)`.
fn renumber(node: &Node, number: impl Fn(usize) -> u64) -> Node {
    let number = |n: usize| to_index(number(n));
    let list = |items: &[(usize, usize)]| -> Vec<(usize, usize)> {
        items.iter().map(|&(c, n)| (c, number(n))).collect()
    };
    match node {
        Node::Move(cell, child) => Node::Move(*cell, number(*child)),
        Node::Image(symmetry, child) => Node::Image(*symmetry, number(*child)),
        Node::Answers(answers) => Node::Answers(list(answers)),
        Node::Rest(answers) => Node::Rest(list(answers)),
        leaf => leaf.clone(),
    }
}

/// The walk of the plan's top: its nodes (children as [`Ref::encode`]d),
/// each plan node's, and the jobs it reaches, in the order first reached.
struct Top<'a> {
    plan: &'a Plan,
    nodes: Vec<Node>,
    written: HashMap<u32, Ref>,
    jobs: Vec<JobTree>,
}

/// The order the symmetries are tried in: where a position is symmetric
/// itself, two of them take it to the same image, and the first found is
/// the one its image node names. This order (the mirrors, then the
/// transposes) keeps the certificates assembled from a plan as they were
/// written before the symmetries had one type.
const SEARCH_ORDER: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::MirrorColumns,
    Symmetry::MirrorRows,
    Symmetry::HalfTurn,
    Symmetry::Transpose,
    Symmetry::ThreeQuarterTurn,
    Symmetry::QuarterTurn,
    Symmetry::AntiTranspose,
];

/// The symmetry taking `from` to `to`, if they are images of each other.
fn symmetry(from: &Game, to: &Game) -> Option<Symmetry> {
    let target = image(to, Symmetry::Identity);
    let rules = from.rules();
    SEARCH_ORDER
        .into_iter()
        .filter(|t| t.fits(rules.rows(), rules.cols()))
        .find(|&t| image(from, t) == target)
}

fn played(game: &Game, cell: usize) -> Game {
    let mut next = game.clone();
    next.play_unchecked(game.rules().cell_at(cell));
    next
}

impl Top<'_> {
    fn push(&mut self, node: Node) -> Ref {
        self.nodes.push(node);
        Ref::Top(self.nodes.len() - 1)
    }

    /// The node of a finished game, for `prover`.
    fn end(&mut self, game: &Game, prover: Player) -> Result<Option<Ref>, AssembleError> {
        Ok(match game.outcome() {
            None => None,
            Some(Outcome::Win(p)) if p == prover => Some(self.push(Node::Won)),
            Some(Outcome::Draw) => Some(self.push(Node::Full)),
            Some(Outcome::Win(_)) => return Err(AssembleError::Uncovered(game.to_string())),
        })
    }

    /// The certificate node for plan node `id`, at the position the plan
    /// holds for it, in `prover`'s tree: written once, however often the
    /// walk reaches it.
    fn node(&mut self, id: u32, prover: Player, goal: Goal) -> Result<Ref, AssembleError> {
        if let Some(&done) = self.written.get(&id) {
            return Ok(done);
        }
        let (stored, _, state, children) = self.plan.view(id);
        let done = match children {
            None => match self.end(&stored, prover)? {
                Some(leaf) => leaf,
                None => {
                    self.jobs.push(JobTree {
                        game: stored,
                        prover,
                        goal,
                    });
                    Ref::Job(self.jobs.len() - 1)
                }
            },
            Some(children) => {
                let rules = stored.rules();
                let node = if stored.to_move() == prover {
                    // The child that reached this node's answer.
                    let child = children
                        .iter()
                        .copied()
                        .find(|&c| self.plan.view(c).2 == state)
                        .ok_or_else(|| AssembleError::Uncovered(stored.to_string()))?;
                    let (child_stored, ..) = self.plan.view(child);
                    let cell = (0..rules.cell_count())
                        .find(|&i| stored.cells()[i].is_none() && child_stored.cells()[i].is_some())
                        .expect("a child is its parent and one move");
                    let next = played(&stored, cell);
                    Node::Move(cell, self.reached(child, &next, prover, goal)?.encode())
                } else {
                    let mut answers = Vec::new();
                    for cell in stored.legal_moves() {
                        let cell = rules.index(cell);
                        let next = played(&stored, cell);
                        let child = children
                            .iter()
                            .copied()
                            .find(|&c| {
                                let (g, _, s, _) = self.plan.view(c);
                                s == state && symmetry(&g, &next).is_some()
                            })
                            .ok_or_else(|| AssembleError::Uncovered(next.to_string()))?;
                        answers.push((cell, self.reached(child, &next, prover, goal)?.encode()));
                    }
                    Node::Answers(answers)
                };
                self.push(node)
            }
        };
        self.written.insert(id, done);
        Ok(done)
    }

    /// Plan node `id` reached at `real`, its own position or a symmetric
    /// image of it: its node, or an image node referring to it.
    fn reached(
        &mut self,
        id: u32,
        real: &Game,
        prover: Player,
        goal: Goal,
    ) -> Result<Ref, AssembleError> {
        if let Some(leaf) = self.end(real, prover)? {
            return Ok(leaf);
        }
        let (stored, ..) = self.plan.view(id);
        let t =
            symmetry(&stored, real).ok_or_else(|| AssembleError::Uncovered(real.to_string()))?;
        let node = self.node(id, prover, goal)?;
        if t == Symmetry::Identity {
            return Ok(node);
        }
        Ok(self.push(Node::Image(t.number(), node.encode())))
    }
}

/// One job's tree as the certificate holds it: its nodes, numbered from
/// 0, and its root.
struct JobNodes {
    nodes: Vec<Node>,
    root: usize,
}

/// The nodes of `cert` that `wanted`'s tree reaches: a tree of the goal
/// wanted, or a win standing in for a draw (a prover who wins does not
/// lose). Where the certificate proves only a draw but a win is wanted,
/// the job's recorded answer is wrong (a faulty worker's, or a damaged
/// plan's): refused, never written as a proof of the win.
fn job_nodes(cert: Certificate, wanted: &JobTree) -> Result<JobNodes, AssembleError> {
    let of_prover = || {
        cert.trees
            .iter()
            .filter(|tree| tree.prover == wanted.prover)
    };
    let tree = of_prover()
        .find(|tree| tree.goal == wanted.goal)
        .or_else(|| of_prover().find(|tree| tree.goal == Goal::Win))
        .ok_or_else(|| match of_prover().next() {
            Some(_) => AssembleError::Job {
                position: wanted.game.to_string(),
                reason: format!(
                    "it is recorded as a win for {}, but its certificate proves only a draw",
                    wanted.prover
                ),
            },
            None => AssembleError::NoTree {
                position: wanted.game.to_string(),
                prover: wanted.prover,
            },
        })?;
    let root = tree.root;
    if matches!(cert.nodes.get(root), Some(Node::Image(..)) | None) {
        return Err(AssembleError::Job {
            position: wanted.game.to_string(),
            reason: "its tree's root is not a node of its own".to_owned(),
        });
    }
    if cert.trees.len() == 1 {
        // A certificate's nodes are those its trees reach.
        return Ok(JobNodes {
            nodes: cert.nodes,
            root,
        });
    }
    // Only the nodes this tree reaches, in the order first reached.
    const UNSEEN: usize = usize::MAX;
    let mut number = vec![UNSEEN; cert.nodes.len()];
    let mut order = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if number[n] != UNSEEN {
            continue;
        }
        number[n] = order.len();
        order.push(n);
        let children: Vec<usize> = match &cert.nodes[n] {
            Node::Move(_, c) | Node::Image(_, c) => vec![*c],
            Node::Answers(a) | Node::Rest(a) => a.iter().map(|&(_, c)| c).collect(),
            _ => Vec::new(),
        };
        stack.extend(children.into_iter().rev());
    }
    let nodes = order
        .iter()
        .map(|&n| renumber(&cert.nodes[n], |c| number[c] as u64))
        .collect();
    Ok(JobNodes { nodes, root: 0 })
}

/// Write `jobs`' trees on `threads` workers, each with a job writer from
/// `writer`, handing them to `sink` in the jobs' order. A worker starts
/// job `i` only once the jobs before `i - 2 × threads` are handed over,
/// so at most that many trees are held at once. Once `asked` is set, no
/// job is begun.
fn write_jobs<F, E>(
    jobs: &[JobTree],
    threads: usize,
    writer: &(impl Fn() -> Result<F, E> + Sync),
    asked: &AtomicBool,
    mut sink: impl FnMut(JobNodes) -> io::Result<()>,
) -> Result<(), AssembleError>
where
    F: FnMut(&JobTree) -> Result<Certificate, E>,
    E: std::fmt::Display,
{
    let threads = threads.clamp(1, jobs.len().max(1));
    let ahead = 2 * threads;
    // The next job to take and the next to hand over.
    let window = Mutex::new((0usize, 0usize));
    let turn = Condvar::new();
    // Set on a failure, or when asked.
    let halt = AtomicBool::new(false);
    let stop = || halt.load(Ordering::Relaxed) || asked.load(Ordering::Relaxed);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Result<JobNodes, AssembleError>)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (window, turn, stop) = (&window, &turn, &stop);
            scope.spawn(move || {
                let mut job = match writer() {
                    Ok(job) => job,
                    Err(e) => {
                        let _ = tx.send((usize::MAX, Err(AssembleError::Writer(e.to_string()))));
                        return;
                    }
                };
                loop {
                    let i = {
                        let mut w = window.lock().expect("no worker panics holding it");
                        while !stop() && w.0 < jobs.len() && w.0 >= w.1 + ahead {
                            w = turn.wait(w).expect("no worker panics holding it");
                        }
                        if stop() || w.0 >= jobs.len() {
                            return;
                        }
                        w.0 += 1;
                        w.0 - 1
                    };
                    let wanted = &jobs[i];
                    let tree = job(wanted)
                        .map_err(|e| AssembleError::Job {
                            position: wanted.game.to_string(),
                            reason: e.to_string(),
                        })
                        .and_then(|cert| job_nodes(cert, wanted));
                    if tx.send((i, tree)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let mut failed = None;
        for (i, tree) in rx {
            match tree {
                Ok(tree) if failed.is_none() => {
                    waiting.insert(i, tree);
                }
                Ok(_) => {}
                Err(e) => {
                    // The first failure in the jobs' order is the one
                    // reported, as with one thread.
                    if failed.as_ref().is_none_or(|&(at, _)| i < at) {
                        failed = Some((i, e));
                    }
                }
            }
            while failed.as_ref().is_none_or(|&(at, _)| next < at)
                && let Some(tree) = waiting.remove(&next)
            {
                if let Err(e) = sink(tree) {
                    failed = Some((next, e.into()));
                    break;
                }
                next += 1;
                window.lock().expect("no worker panics holding it").1 = next;
                turn.notify_all();
            }
            if failed.is_some() {
                halt.store(true, Ordering::Relaxed);
                turn.notify_all();
            }
        }
        match failed {
            Some((_, e)) => Err(e),
            None if next < jobs.len() => Err(AssembleError::Stopped {
                written: next,
                all: jobs.len(),
            }),
            None => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    use oxo_ai::{ProveError, Prover, SolveError, Solver, certify};
    use oxo_core::Rules;

    use super::*;
    use crate::plan::solve_all;
    use crate::{Answer, Cost, Verdict};

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
                let cert = assemble(&plan, || solver_writer(&game)).unwrap();
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
    fn a_job_recorded_as_a_win_whose_certificate_proves_a_draw_is_refused() {
        // 3×3's empty board is a draw: its certificate has draw trees only.
        let game = Game::new(Rules::new(3, 3, 3).unwrap());
        let cert = certify(&mut Solver::new(game.rules(), 1 << 20).unwrap(), &game).unwrap();
        assert_eq!(cert.claim, Claim::Draw);
        let wanted = |goal| JobTree {
            game: game.clone(),
            prover: Player::X,
            goal,
        };
        assert!(job_nodes(cert.clone(), &wanted(Goal::Draw)).is_ok());
        let err = job_nodes(cert, &wanted(Goal::Win)).err().unwrap();
        assert!(
            err.to_string()
                .contains("recorded as a win for X, but its certificate proves only a draw"),
            "{err}"
        );
    }

    #[test]
    fn an_unfinished_proof_has_no_certificate() {
        let plan = Plan::new(&Game::new(Rules::new(3, 3, 3).unwrap()), 1);
        let unused = || Ok::<_, &str>(|_: &JobTree| Err::<Certificate, &str>("unused"));
        let err = assemble(&plan, unused).unwrap_err();
        assert_eq!(err.to_string(), "the proof is not finished");
    }

    /// A job writer from the 64-bit solver, its table cleared for each
    /// job so that its trees do not depend on the jobs before.
    fn solver_writer(
        game: &Game,
    ) -> Result<impl FnMut(&JobTree) -> Result<Certificate, SolveError>, SolveError> {
        let mut solver = Solver::new(game.rules(), 1 << 20)?;
        Ok(move |job: &JobTree| {
            solver.clear();
            certify(&mut solver, &job.game)
        })
    }

    fn written(plan: &Plan, threads: usize) -> (Vec<u8>, Written) {
        let game = plan.game();
        let mut out = Vec::new();
        let scratch = tempfile::tempfile().unwrap();
        let w = write(
            plan,
            threads,
            || solver_writer(&game),
            (&mut out, scratch),
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
        (out, w)
    }

    /// Asked to stop, the writing stops after the jobs under way and
    /// writes nothing.
    #[test]
    fn a_stop_writes_nothing() {
        let game = Game::new(Rules::new(4, 5, 4).unwrap());
        let mut plan = Plan::new(&game, 2);
        solve_all(&mut plan);
        let stop = AtomicBool::new(false);
        let mut out = Vec::new();
        let scratch = io::Cursor::new(Vec::new());
        let asked = |w: &Written| {
            if w.jobs == 1 {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let err = write(
            &plan,
            1,
            || solver_writer(&game),
            (&mut out, scratch),
            &stop,
            asked,
        )
        .unwrap_err();
        assert!(
            matches!(err, AssembleError::Stopped { written, all } if written < all),
            "{err}"
        );
        assert!(out.is_empty());
    }

    /// The same bytes on one thread and on two, each job's tree written
    /// once however many moves reach it, and the file verifies.
    #[test]
    fn the_file_is_the_same_whatever_the_threads() {
        let game = Game::new(Rules::new(5, 5, 4).unwrap());
        let mut plan = Plan::new(&game, 2);
        solve_all(&mut plan);
        let (one, w1) = written(&plan, 1);
        let (two, w2) = written(&plan, 2);
        let (three, _) = written(&plan, 3);
        assert!(w1.all_jobs > 4, "{w1:?}");
        assert_eq!(w1, w2);
        assert!(
            one == two && one == three,
            "the thread count changed the file"
        );
        assert_eq!(w1.bytes, one.len() as u64);
        let text = String::from_utf8(one).unwrap();
        let cert = Certificate::parse(&text).unwrap();
        assert_eq!(cert.nodes.len() as u64, w1.nodes);
        assert_eq!(cert.verify().unwrap().claim, Claim::Draw);
        assert!(cert.nodes.iter().any(|n| matches!(n, Node::Image(..))));
    }

    /// A job writer's failure names the job and its reason; a size cap
    /// says it is one.
    #[test]
    fn a_job_over_the_size_cap_says_so() {
        let game = Game::new(Rules::new(9, 8, 6).unwrap());
        let mut plan = Plan::new(&game, 1);
        let mut prover = Prover::new(game.rules(), 1 << 20).unwrap();
        while let Some(job) = plan.take() {
            let verdict = if prover.maker_wins(&job.game, job.attacker).unwrap() {
                Verdict::Proven
            } else {
                Verdict::Disproven
            };
            plan.record(job.id, Answer::Verdict(verdict), Cost::default())
                .unwrap();
        }
        assert_eq!(plan.value(), Some(Value::Draw));
        let capped = || {
            let mut prover = Prover::new(game.rules(), 1 << 20)?;
            prover.set_proof_cap(3);
            Ok::<_, ProveError>(move |job: &JobTree| {
                prover.clear();
                Ok(prover
                    .certify_hold(&job.game, job.prover)?
                    .expect("a Breaker proof"))
            })
        };
        let err = assemble(&plan, capped).unwrap_err().to_string();
        assert!(err.starts_with("the job at "), "{err}");
        assert!(
            err.ends_with(": the certificate would hold more than 3 positions"),
            "{err}"
        );
        let uncapped = || {
            let mut prover = Prover::new(game.rules(), 1 << 20)?;
            Ok::<_, ProveError>(move |job: &JobTree| {
                prover.clear();
                Ok(prover
                    .certify_hold(&job.game, job.prover)?
                    .expect("a Breaker proof"))
            })
        };
        let cert = assemble(&plan, uncapped).unwrap();
        assert_eq!(cert.verify().unwrap().claim, Claim::Draw);
    }
}
