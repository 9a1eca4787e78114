//! A proof search for k-in-a-row games on boards of up to 128 cells
//! (11×11; rows and columns of any shape, at most 256 k-windows).
//!
//! # The method
//!
//! The value of a position is two one-sided questions: can the side to
//! move force k in a row, and can the other side? A side that cannot force
//! a line against a defender who *only blocks* (the Maker–Breaker game: the
//! attacker is the Maker, the defender the Breaker, whose own lines count
//! for nothing) cannot win the real game either: the defender plays the
//! Breaker's strategy, and the real game ending early by a defender's line
//! only helps it. So a draw is two Breaker proofs, and [`Prover`] searches
//! the Maker–Breaker game, an AND/OR search that is monotone: an extra
//! Breaker stone or one Maker stone fewer never hurts the Breaker.
//!
//! A node is settled at once when the Maker has a line, or a four (k − 1
//! stones and the last cell empty) on its move, or two fours with
//! different cells on the Breaker's (Maker wins); when no window is left
//! the Maker could fill, or the Erdős–Selfridge criterion holds (the sum
//! over live windows of 2^−(empty cells) below 1/2 with the Maker to move,
//! below 1 with the Breaker to move), or the Breaker has a *pairing*
//! strategy, disjoint pairs of empty cells with one whole pair in every
//! live window, after one move of its own (Breaker wins). A single Maker
//! four forces the Breaker's move.
//!
//! # Zones
//!
//! Every result comes with a *zone*, the cells its proof depends on: a
//! Breaker win stays a Breaker win with Maker stones added anywhere outside
//! its zone, and a Maker win stays a Maker win with Breaker stones added
//! anywhere outside its zone. Leaves: a pairing's zone is its pairs (and
//! the move before them), the Erdős–Selfridge criterion's the empty cells
//! of the live windows (its sum reads nothing else), a four's its cell, two
//! fours their two cells, a complete line or no live window nothing. A node
//! the mover wins with move x has the child's zone and x; a node the mover
//! loses has the union of its children's zones (and the forced cell, when a
//! four restricted the Breaker to it).
//!
//! **Lemma.** If the mover's move x loses, with a proof of zone Z for the
//! child, then every move y outside Z loses too. For the Maker: the child
//! P+x is a Breaker win with zone Z, so by the zone's definition P+x+y is
//! one too (y is a Maker stone outside Z), and by monotonicity so is P+y
//! (one Maker stone fewer). For the Breaker the same with the colours
//! exchanged. So at every node only the moves inside the *intersection* of
//! the zones of the moves already refuted need a proof of their own; and
//! the union of those zones is a correct zone for the node: with stones
//! added outside it, every refuted move is still refuted by its own proof,
//! and every move left out is still outside one of the zones that left it
//! out. Moves in no live window are never searched (they are outside every
//! zone, which only ever holds cells of live windows), and at a position
//! symmetric under some of the board's symmetries, a refuted move refutes
//! its images, with the images of its zone. `prove`'s test checks answers
//! and zones against plain minimax on small boards, adding stones outside
//! each zone; a zone computed too small fails it.
//!
//! **Domination.** A move y whose every live window (one the Maker can
//! still fill) also holds another empty cell x is *dominated* by x: if x
//! loses for the mover, so does y. Exchange the two cells' contents and
//! play x's strategy: a window that strategy fills (or keeps from
//! filling) holds both cells or neither, or holds only x and was not live
//! at y. The argument needs x empty, so a node that settles moves this
//! way adds the dominating moves to its zone; adding Breaker stones only
//! kills windows, and Maker stones leave liveness alone, so the
//! domination still holds wherever the zone says the proof does.
//!
//! **Zones that leave the open moves out.** At a Maker node, every Maker
//! move inside the zones so far needs a proof of its own. Before each, the
//! search hands the child the moves still open: its pairing search tries
//! first the pairs (and Breaker stones) that leave those cells out, so
//! that a pairing found there settles them too.
//!
//! Results go to a transposition table keyed by the canonical position
//! under the board's symmetries (8 on square boards, 4 otherwise) and who
//! is to move, with their zones. The search is a depth-first AND/OR search
//! with no depth limit; a node budget stops it, storing nothing unfinished.
//!
//! # Measurements
//!
//! Move ordering decides the size of the proof. The Breaker takes first
//! the cell in the most live windows (closing the most lines; since the
//! sixth session a window the Maker is two stones from filling counts
//! twice, see below). On the
//! empty (7,7,5) board, with X as the Maker, weighing each window by the
//! Maker's stones in it instead made the proof take 2,952,111 positions
//! (twice a stone, the Erdős–Selfridge potential) and 11,453,600 (four
//! times a stone); counting windows, 44,125, and with the Breaker node's
//! pairing search given 8 pairing budgets instead of 4, 24,243. The
//! Maker's order matters little there but decides the size of win proofs:
//! counting windows for both sides, O's win as the Maker on 6×6 k=4 took
//! 412,656 positions; weighing the Maker's windows 2 to the power of its
//! stones, 159. With those orders (and before the two rules of the next
//! paragraph) the value of (7,7,5) took 24,571 positions, about 0.2 s on
//! this machine kind (busy), where the 64-bit solver's alpha-beta search
//! takes 125 s and 61,403,478 positions. Of X's proof, about 800 nodes
//! were Maker nodes whose 23,000 moves each needed a proof of their own,
//! and the Breaker's first move won at all but a dozen of its 800 nodes:
//! the time went to the 19,000 pairing searches (nine in ten find a
//! pairing). `cargo bench -p oxo-ai --bench
//! prove` prints the figures (`OXO_PROVER_STATS=1` adds [`Stats`]);
//! `docs/benchmarks.md` has them.
//!
//! On 8×8 k=5 the Maker nodes are the cost: a Breaker proof needs a proof
//! for 25 to 30 Maker moves at each (the pairings that settle nine in ten
//! of them cover almost every live cell, so their zones exclude little).
//! Measured on fixed sub-problems (`cargo run --release -p oxo-ai
//! --example frontier -- 8 5 500000 random7 30`: 30 positions of seven
//! random stones near the centre, O to move, 500,000 positions each):
//!
//! | version | settled | positions (the 14 the first settles) | (7,7,5) |
//! |---|--:|--:|--:|
//! | before | 14 | 1,195,197 | 24,571 |
//! | pairs leave the open moves out | 15 | 827,759 | 18,273 |
//! | pairs and the Breaker's stone | 15 | 774,060 | 15,105 |
//! | and domination | 19 | 427,390 | 12,335 |
//!
//! (7,7,5) took 12,335 positions then: 272–384 ms against 395–546 ms
//! before, run alternately on a busy machine. Domination settles, without
//! a search, between half as many and as many moves as the search proves
//! (Maker and Breaker moves together; 182,488 against 443,125 Maker moves
//! proven in one position, 416,614 against 345,743 in another).
//!
//! The Breaker node's pairing search was then given 8 times the budget
//! of one search (512 steps). 64 times (4,096 steps) finds a pairing at
//! more Breaker nodes, and each saves a Maker node and its moves: (7,7,5)
//! takes 3,471 positions instead of 12,325, the frontier settles 21 of
//! the 30 instead of 19 (the 19 in 948,452 positions instead of
//! 1,912,446, 3.5 s instead of 4.7), and on 7×7 k=5 the Maker–Breaker
//! proofs that each of O's moves needs after three moves where the pass
//! test fails (X the Maker, to move; four positions of
//! `docs/benchmarks.md`) take 1,877,648, 660,779, 2,370,610 and
//! 3,190,251 positions instead of 1,967,534, 738,981, 2,621,755 and
//! 3,799,253, with the same answers. Budgets of 128 and 256 search the
//! same positions within 0.1%: the searches that fail at 64 fail for
//! good. The time is about the same: the failed searches now cost what
//! the positions did (hints after three moves, 300,000 positions: 4.89 s
//! against 4.85 s over 40 positions, 694,601 positions against 1,554,162
//! on the 36 answered).
//!
//! Pairs of neighbouring cells are not the only pairs: any two free cells
//! of a window will do (the strategy and its zone are the same), but a
//! search that tries them all has many more ways to fail. Where the
//! search over neighbours finds no pairing, a second one of 64 steps
//! tries the other pairs of each window after its neighbours: the four
//! positions' per-move proofs take 1,286,781, 523,857, 1,614,952 and
//! 2,701,530 positions instead of 1,877,648, 660,779, 2,370,610 and
//! 3,190,251 (the same answers and time, run alternately), the frontier
//! settles 25 of the 30 (the 21 in 788,946 positions instead of
//! 1,350,732), (7,7,5) still takes 3,471. The hints after three moves
//! search 632,738 positions instead of 694,601 on the 36 answered, but
//! take 5–8% more time: where a search fails, it fails twice. A second
//! search of 512 steps saved more positions (1,129,113 in the first
//! position) and made the hints slower still (5.57 s for the 40 against
//! 5.12–5.25 s with 64 steps and 4.78–4.86 s with no second search); one
//! search over every pair, 4,096 steps (1,135,702), took twice the time.
//!
//! The Breaker's order then counted every live window once. Counting
//! twice the windows the Maker is two stones (or fewer) from filling, its
//! threats, the four positions' per-move proofs take 1,077,721, 390,598,
//! 1,162,063 and 1,985,127 positions instead of 1,286,781, 523,857,
//! 1,614,952 and 2,701,530, in a tenth less time (alternated; the same
//! answers), the frontier settles 26 instead of 25 (the 25 in 1,192,755
//! positions instead of 1,677,014, 9.9 s instead of 11.0), (7,7,5) takes
//! 3,467 positions, the hints after three moves search 588,779 positions
//! instead of 632,738 on the 36 answered in the same time. More weight
//! saves more positions on 7×7 and costs time on 8×8: windows three
//! stones from full counting 2 and threats 4 made the per-move proofs
//! 956,987, 269,113, 1,076,015 and 1,806,539 positions in the same time,
//! but the frontier took 16.4 s instead of 11.0 for the 25 (in 987,661
//! positions), and (7,7,5) 3,561; threats counting 3 settled 25 (1,379,059
//! positions, 11.3 s), 4 only 24.
//!
//! Budgeting the Breaker's candidates instead (each tried within a budget
//! that grows fourfold a round, the df-pn idea of not sinking everything
//! into the first) settled 9 of those 30 with a first budget of 1,000
//! positions and 12 with 30,000, against 14: a Breaker node's first move
//! wins five times in six, and every nested node then pays for trying the
//! others. The search stays depth-first.
//!
//! A Maker win in the Maker–Breaker game is not a win of the real game
//! (on 5×5 k=4, X forces four in a row against a mere blocker, but O's own
//! threats hold the real game to a draw). For those, [`Prover::value`] and
//! [`Prover::can_force`] search the real game itself on the same boards,
//! with the Maker–Breaker search as an oracle for sound cuts and threat
//! sequences as leaves (the `real` module's doc has the method and why it
//! is sound). The oracle is what makes it fast: on 7×7 k=5, the positions
//! after X's centre move and O's reply on the edge, where X forces a line
//! against a mere blocker but not in the real game, took the 64-bit
//! solver up to 40M positions and 88 s each; the real-game search settles
//! each in 0.4–0.9 s (150,000–240,000 positions, most of them the
//! oracle's).
//!
//! On the 64-bit solver's boards (at most 64 cells) a real-game question
//! goes to two searches that take turns, each within a cap that starts at
//! 20,000 positions and grows fourfold a round: the solver's alpha-beta
//! search and the real game's search. Neither is best at both answers.
//! On 7×7 k=5, after three moves (`......./......O/..X..../....X../
//! ......./......./.......`, O to move), X forces a line against a mere
//! blocker after 33 of O's moves; of those, X wins 24 (the real game's
//! search took 1.4M–19.5M positions each and did not finish one within
//! 20M, 150M in all; alpha-beta 0.24M–3.3M, 28.5M in all) and 9 are draws
//! held by O's threats (the real game's search 0.06M–1.7M, 6.2M in all;
//! alpha-beta 0.16M–16M, 66M in all). Taking turns, the 33 took 64M
//! positions (wins 44M, draws 20M) against over 156M with the real game's
//! search alone. Each search keeps what it finished in its table and
//! stores nothing unfinished, so a round repeats little of the last and
//! every answer stays exact.

mod board;
mod certify;
mod pairing;
mod real;
mod search;
mod table;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use oxo_core::{Game, Player, Rules};

use crate::meter::Meter;
use crate::solver::{MAX_PROOF_NODES, SolveError, Solver};
use crate::value::Value;
pub(crate) use board::Board;
use board::{MAX_CELLS, MAX_WINDOWS, Unfit};
use search::Pos;
use table::Table;

/// The most cells a board may have (11×11 = 121 fits).
pub const MAX_BOARD_CELLS: u32 = MAX_CELLS;

/// Why a question cannot be answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProveError {
    /// The board has more cells than the prover's 128-bit boards.
    #[error("the {rows}x{cols} board is too large to prove: at most {MAX_CELLS} cells (11x11)")]
    TooLarge {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
    /// The board has more k-windows than the prover keeps track of.
    #[error("{rules} has {windows} lines of k cells; the prover takes at most {MAX_WINDOWS}")]
    TooManyWindows {
        /// The rules.
        rules: Rules,
        /// Its k-windows.
        windows: usize,
    },
    /// The rules count only runs of exactly k.
    #[error("the prover plays k or more in a row; it cannot prove {0} (exactly k)")]
    Exact(Rules),
    /// The transposition table could not be allocated.
    #[error("cannot allocate a {mib} MiB transposition table: ask for less memory")]
    OutOfMemory {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// The call visited as many positions as its budget allows.
    #[error("no answer within the budget of {nodes} positions")]
    OverBudget {
        /// The budget.
        nodes: u64,
    },
    /// The caller raised the prover's stop flag ([`Prover::set_stop`])
    /// before the call had an answer.
    #[error("the search was stopped before it had an answer")]
    Stopped,
    /// A certificate would hold more nodes than the prover's cap
    /// ([`Prover::set_proof_cap`]): a size limit, not a search budget.
    #[error("the certificate would hold more than {nodes} positions")]
    ProofTooLarge {
        /// The cap.
        nodes: u64,
    },
    /// The game was played under other rules than the prover's.
    #[error("this prover is for {expected} games, not {found}")]
    WrongRules {
        /// The prover's rules.
        expected: Rules,
        /// The game's rules.
        found: Rules,
    },
}

/// Search statistics, reported as the search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Positions visited so far by this prover.
    pub nodes: u64,
    /// Time since the current call began.
    pub elapsed: Duration,
}

/// Where a prover's positions went: counts since it was made, for
/// measuring the search (each position counts under the first heading
/// that settled it, or as an inner node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// A line complete, or a four the Maker plays (or two the Breaker
    /// cannot both block).
    pub won: u64,
    /// No window left the Maker could fill.
    pub blocked: u64,
    /// The Erdős–Selfridge criterion.
    pub potential: u64,
    /// Found in the transposition table.
    pub table: u64,
    /// Pairing searches made, and those that found a pairing.
    pub pairing_searches: u64,
    /// Pairings found.
    pub pairings: u64,
    /// Inner nodes with the Maker to move...
    pub maker_nodes: u64,
    /// ...and the Maker moves proven there (the rest were settled by zones
    /// and symmetry).
    pub maker_moves: u64,
    /// Inner nodes with the Breaker to move...
    pub breaker_nodes: u64,
    /// ...the Breaker moves that turned out to lose there...
    pub breaker_failures: u64,
    /// ...and those nodes the Breaker won with its first move.
    pub breaker_first: u64,
    /// Moves settled by a lost move that dominates them.
    pub dominated: u64,
}

/// Positions the 64-bit solver may take, on its boards, for a real-game
/// question before the real game's search is asked instead: the first cap
/// of the two searches that then take turns ([`Prover::forces`]).
const SOLVER_FIRST: u64 = 20_000;

/// Proves who can force k in a row, for one board shape, keeping what it
/// learns in its table between calls. One prover per thread: it is `Send`,
/// and provers share nothing.
pub struct Prover {
    rules: Rules,
    board: Board,
    table: Table,
    /// The real game's results ([`real`]), made on first use.
    real_table: Option<Table>,
    table_bytes: usize,
    /// Positions visited, the budget and progress reports.
    meter: Meter<Progress>,
    /// The progress callback, shared with the 64-bit solver's meter so
    /// that its rounds report too (`None`: no callback).
    relay: Option<Arc<Mutex<Relay>>>,
    /// The number of the current search's first node.
    root_node: u64,
    stats: Stats,
    /// The 64-bit solver, for the values of the smallest boards.
    solver: Option<Solver>,
    /// Cells the next node's pairing search should leave out if it can.
    avoid: u128,
    /// The most nodes a certificate's tree may hold.
    proof_cap: usize,
    /// How the real-game question's two searches take turns: the first
    /// cap ([`SOLVER_FIRST`]) and what happened since the prover was made
    /// (the tests make the caps tiny, so that both searches are cut again
    /// and again).
    turns: Turns,
}

/// The prover's progress callback and, for the 64-bit solver's current
/// call, what to add to the solver's count and time to make the prover's.
struct Relay {
    report: Box<dyn FnMut(Progress) + Send>,
    nodes: u64,
    elapsed: Duration,
}

impl Relay {
    /// The relay, even if a callback panicked while holding it.
    fn lock(relay: &Mutex<Relay>) -> std::sync::MutexGuard<'_, Relay> {
        relay.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Have `solver` report through `relay`, in the prover's terms.
    fn attach(relay: &Arc<Mutex<Relay>>, solver: &mut Solver) {
        let relay = Arc::clone(relay);
        solver.on_progress(move |p| {
            let mut relay = Relay::lock(&relay);
            let progress = Progress {
                nodes: relay.nodes + p.nodes,
                elapsed: relay.elapsed + p.elapsed,
            };
            (relay.report)(progress);
        });
    }
}

/// The real-game question's two searches taking turns ([`Prover::forces`]).
#[derive(Clone, Copy, Debug, Default)]
struct Turns {
    /// The first round's cap.
    first: u64,
    /// Alpha-beta's cap is the round's shifted right by this (0, except
    /// in tests that want the real game's search to answer).
    solver_shift: u32,
    /// Real-game searches cut at their cap.
    handovers: u64,
    /// Questions alpha-beta answered, and those the real game's search
    /// answered after it had been cut at least once.
    solver_answers: u64,
    resumed_answers: u64,
}

impl std::fmt::Debug for Prover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prover")
            .field("rules", &self.rules)
            .field("table_bytes", &self.table.bytes())
            .field("nodes", &self.meter.nodes())
            .finish_non_exhaustive()
    }
}

impl Prover {
    /// A prover for `rules` with a transposition table of at most
    /// `table_bytes` bytes.
    ///
    /// # Errors
    /// Boards of more than 128 cells or 256 k-windows, the exactly-k rule,
    /// a table that cannot be allocated.
    pub fn new(rules: Rules, table_bytes: usize) -> Result<Prover, ProveError> {
        if rules.is_exact() {
            return Err(ProveError::Exact(rules));
        }
        let board = Board::new(rules).map_err(|unfit| match unfit {
            Unfit::Cells => ProveError::TooLarge {
                rows: rules.rows(),
                cols: rules.cols(),
            },
            Unfit::Windows(windows) => ProveError::TooManyWindows { rules, windows },
        })?;
        let table = Table::with_bytes(table_bytes).ok_or(ProveError::OutOfMemory {
            mib: table_bytes >> 20,
        })?;
        Ok(Prover {
            rules,
            board,
            table,
            real_table: None,
            table_bytes,
            meter: Meter::new(),
            relay: None,
            root_node: 0,
            stats: Stats::default(),
            solver: None,
            avoid: 0,
            proof_cap: MAX_PROOF_NODES,
            turns: Turns {
                first: SOLVER_FIRST,
                ..Turns::default()
            },
        })
    }

    /// Whether boards of `rules` fit the prover.
    #[must_use]
    pub fn can_prove(rules: Rules) -> bool {
        !rules.is_exact() && Board::new(rules).is_ok()
    }

    /// The rules this prover plays.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Positions visited since the prover was made, with the 64-bit
    /// solver's on boards of at most 64 cells (where [`Prover::value`]
    /// and the real-game questions ask it too).
    #[must_use]
    pub const fn nodes(&self) -> u64 {
        self.meter.nodes()
    }

    /// Where the positions visited so far went.
    #[must_use]
    pub const fn stats(&self) -> Stats {
        self.stats
    }

    /// Call `report` about once every million positions while proving, or
    /// once a second when that is sooner, the 64-bit solver's positions
    /// included.
    pub fn on_progress(&mut self, report: impl FnMut(Progress) + Send + 'static) {
        let relay = Arc::new(Mutex::new(Relay {
            report: Box::new(report),
            nodes: 0,
            elapsed: Duration::ZERO,
        }));
        let own = Arc::clone(&relay);
        self.meter
            .on_progress(move |progress| (Relay::lock(&own).report)(progress));
        self.relay = Some(relay);
    }

    /// Report every `nodes` of its own positions instead, from the next
    /// call on.
    #[cfg(test)]
    pub(crate) fn set_report_every(&mut self, nodes: u64) {
        self.meter.set_report_every(nodes);
    }

    /// Let each call visit at most `nodes` positions (`None`: no limit); a
    /// call that runs out answers [`ProveError::OverBudget`] and stores
    /// nothing it had not finished, so later answers stay exact.
    pub fn set_budget(&mut self, nodes: Option<u64>) {
        self.meter.set_budget(nodes);
    }

    /// Stop each call once `stop` is true (`None`: no flag), the 64-bit
    /// solver's rounds within it too: the flag is read every 16,384
    /// positions, and a call stopped answers [`ProveError::Stopped`],
    /// storing nothing it had not finished. A flag left raised stops every
    /// later call at once.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        if let Some(solver) = self.solver.as_mut() {
            solver.set_stop(stop.clone());
        }
        self.meter.set_stop(stop);
    }

    /// Let one tree of a certificate hold at most `nodes` nodes (at first
    /// [`MAX_PROOF_NODES`]); a bigger one is refused with
    /// [`ProveError::ProofTooLarge`] rather than fill the memory (a node
    /// costs about 100 bytes while the tree is written).
    pub fn set_proof_cap(&mut self, nodes: usize) {
        self.proof_cap = nodes;
    }

    /// Forget every stored result.
    pub fn clear(&mut self) {
        self.table.clear();
        if let Some(table) = self.real_table.as_mut() {
            table.clear();
        }
        if let Some(solver) = self.solver.as_mut() {
            solver.clear();
        }
    }

    fn check(&self, game: &Game) -> Result<(), ProveError> {
        if game.rules() == self.rules {
            Ok(())
        } else {
            Err(ProveError::WrongRules {
                expected: self.rules,
                found: game.rules(),
            })
        }
    }

    fn start(&mut self) {
        self.meter.start();
    }

    /// Why a search of the current call gave no answer: its stop flag, or
    /// its budget.
    fn over_budget(&self) -> ProveError {
        if self.meter.stopped() {
            ProveError::Stopped
        } else {
            ProveError::OverBudget {
                nodes: self.meter.budget().unwrap_or(u64::MAX),
            }
        }
    }

    /// Whether `maker` can force k in a row from `game` against an
    /// opponent who only blocks (the Maker–Breaker game: the opponent's
    /// own lines count for nothing), with the player to move in `game`
    /// moving next. A `false` proves that `maker` cannot win the real
    /// game either: the opponent's blocking strategy keeps it from ever
    /// completing a line.
    ///
    /// # Errors
    /// A game under other rules; [`ProveError::OverBudget`].
    pub fn maker_wins(&mut self, game: &Game, maker: Player) -> Result<bool, ProveError> {
        self.maker_wins_moving(game, maker, game.to_move() == maker)
    }

    /// [`Prover::maker_wins`] with the next move given to the Maker when
    /// `maker_moves`, to the Breaker otherwise, whoever is to move in
    /// `game`. With the move given to the side that did not just move
    /// (a pass), a Breaker win answers for every move the other side could
    /// have made instead: an extra Breaker stone never hurts the Breaker.
    ///
    /// # Errors
    /// A game under other rules; [`ProveError::OverBudget`].
    pub fn maker_wins_moving(
        &mut self,
        game: &Game,
        maker: Player,
        maker_moves: bool,
    ) -> Result<bool, ProveError> {
        self.check(game)?;
        self.start();
        self.maker_breaker(game, maker, maker_moves)
    }

    /// [`Prover::maker_wins_moving`] within the current call's budget.
    fn maker_breaker(
        &mut self,
        game: &Game,
        maker: Player,
        maker_moves: bool,
    ) -> Result<bool, ProveError> {
        let pos = Pos {
            maker: self.board.oriented(game, maker),
            breaker: self.board.oriented(game, maker.other()),
        };
        self.root_node = self.meter.nodes() + 1;
        match self.prove(&pos, maker_moves) {
            Some(proof) => Ok(proof.maker_wins),
            None => Err(self.over_budget()),
        }
    }

    /// Whether `side` can force a win in the real game from `game`.
    ///
    /// # Errors
    /// A game under other rules; [`ProveError::OverBudget`].
    pub fn can_force(&mut self, game: &Game, side: Player) -> Result<bool, ProveError> {
        self.check(game)?;
        self.start();
        self.forces(game, side)
    }

    fn forces(&mut self, game: &Game, side: Player) -> Result<bool, ProveError> {
        if let Some(outcome) = game.outcome() {
            return Ok(outcome.winner() == Some(side));
        }
        if side == game.to_move() && wins_at_once(game) {
            return Ok(true);
        }
        if !self.maker_breaker(game, side, game.to_move() == side)? {
            return Ok(false);
        }
        let pos = Pos {
            maker: self.board.oriented(game, side),
            breaker: self.board.oriented(game, side.other()),
        };
        // Two searches take turns, each within a cap that grows fourfold a
        // round: the 64-bit solver's alpha-beta search, which proves wins
        // fastest, and the real game's search, which proves draws held by
        // the defender's threats fastest (see the module doc's figures).
        // Each keeps what it finished in its table, so a round repeats
        // little of the last. Beyond the solver's boards, the real game's
        // search goes alone, uncapped.
        let solver_too = Solver::can_solve(self.rules);
        let mut cap = self.turns.first;
        loop {
            if let Some(value) = self.solver_value(game, cap >> self.turns.solver_shift)? {
                self.turns.solver_answers += 1;
                return Ok(value
                    == if game.to_move() == side {
                        Value::Win
                    } else {
                        Value::Loss
                    });
            }
            let outer = self.meter.narrow(if solver_too { cap } else { u64::MAX });
            let proof = self.real_wins(&pos, game.to_move() == side);
            let cut = self.meter.widen(outer);
            match proof {
                Some(proof) => {
                    // The cap grows only when the search was cut.
                    self.turns.resumed_answers += u64::from(cap > self.turns.first);
                    return Ok(proof.wins);
                }
                None if cut => {
                    self.turns.handovers += 1;
                    cap = cap.saturating_mul(4);
                }
                None => return Err(self.over_budget()),
            }
        }
    }

    /// The 64-bit solver's value of `game`, if the board fits it and the
    /// solver finds it within `cap` positions.
    fn solver_value(&mut self, game: &Game, cap: u64) -> Result<Option<Value>, ProveError> {
        if !Solver::can_solve(self.rules) {
            return Ok(None);
        }
        let left = self.meter.left();
        let capped = left > cap;
        let left = left.min(cap);
        let solver = match self.solver.as_mut() {
            Some(solver) => solver,
            None => {
                let mut solver =
                    Solver::new(self.rules, self.table_bytes).map_err(|e| match e {
                        SolveError::OutOfMemory { mib } => ProveError::OutOfMemory { mib },
                        other => unreachable!("the 64-bit solver takes these rules: {other}"),
                    })?;
                solver.set_stop(self.meter.stop_flag().cloned());
                self.solver.insert(solver)
            }
        };
        solver.set_budget((left != u64::MAX).then_some(left));
        let before = solver.nodes();
        // The solver reports through the prover's callback (attached each
        // round, so that one set after the solver was made is heard too).
        if let Some(relay) = &self.relay {
            Relay::attach(relay, solver);
            let mut relay = Relay::lock(relay);
            relay.nodes = self.meter.nodes().saturating_sub(before);
            relay.elapsed = self.meter.elapsed();
        }
        let value = solver.value_by_search(game);
        self.meter.add(solver.nodes() - before);
        match value {
            Ok(value) => Ok(Some(value)),
            Err(SolveError::OverBudget { .. }) if capped => Ok(None),
            Err(SolveError::OverBudget { .. }) => Err(self.over_budget()),
            Err(SolveError::Stopped) => Err(ProveError::Stopped),
            Err(other) => unreachable!("the 64-bit solver takes these rules: {other}"),
        }
    }

    /// Win, draw or loss for the player to move: whether the mover, then
    /// the other side, can force a win ([`Prover::can_force`]; a draw when
    /// neither can force a line against a defender who only blocks). The
    /// 64-bit solver alone values boards of at most
    /// [`crate::solver::PROVER_MIN_CELLS`] cells.
    ///
    /// # Errors
    /// A game under other rules; [`ProveError::OverBudget`].
    pub fn value(&mut self, game: &Game) -> Result<Value, ProveError> {
        self.check(game)?;
        self.start();
        if let Some(value) = Value::of_finished(game) {
            return Ok(value);
        }
        if wins_at_once(game) {
            return Ok(Value::Win);
        }
        if self.rules.cell_count() <= crate::solver::PROVER_MIN_CELLS {
            // The solver's own search takes milliseconds at most here.
            if let Some(value) = self.solver_value(game, u64::MAX)? {
                return Ok(value);
            }
        }
        let mover = game.to_move();
        Ok(if self.forces(game, mover)? {
            Value::Win
        } else if self.forces(game, mover.other())? {
            Value::Loss
        } else {
            Value::Draw
        })
    }
}

/// Whether the side to move completes a line with one move: a real-game
/// win whatever the opponent has, settled before any search (and on boards
/// where the Maker–Breaker game alone could not say it).
fn wins_at_once(game: &Game) -> bool {
    let mover = game.to_move();
    game.legal_moves().any(|cell| {
        let mut next = game.clone();
        next.play_unchecked(cell);
        next.outcome().and_then(|o| o.winner()) == Some(mover)
    })
}
