//! A campaign on one machine: a worker thread a core, each with its own
//! prover and its share of the memory, taking jobs from one plan; the plan
//! is checkpointed after every answer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use oxo_ai::Value;

use crate::checkpoint::{self, CheckpointError};
use crate::plan::{Cost, Plan, Progress};
use crate::prove::{Limits, MakeProver, ProveFailure};

/// How a local run is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads (one a core).
    pub threads: usize,
    /// Memory for all the provers' tables together, in bytes.
    pub memory: u64,
    /// Positions one job may visit before it is split deeper (`None`: no
    /// limit).
    pub budget: Option<u64>,
    /// Where the plan is saved after every answer (`None`: nowhere).
    pub checkpoint: Option<PathBuf>,
    /// How often the status is reported.
    pub report_every: Duration,
}

/// Bytes of memory kept outside the provers' tables: the plan, the
/// threads' stacks and the allocator's own.
const RESERVE: u64 = 64 << 20;

impl Config {
    /// Each prover's table size: the memory less a reserve, shared equally.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        let reserve = RESERVE.min(self.memory / 8);
        let share = (self.memory - reserve) / self.threads.max(1) as u64;
        usize::try_from(share).unwrap_or(usize::MAX)
    }
}

/// A local run's status, reported as it goes.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    /// The plan's standing.
    pub progress: Progress,
    /// Positions visited in this run so far (running jobs included).
    pub nodes: u64,
    /// Time since this run began.
    pub elapsed: Duration,
    /// The process's resident memory, where the system tells it.
    pub resident: Option<u64>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The value is proven.
    Done(Value),
    /// Stopped before the end; the checkpoint holds every answer so far.
    Stopped,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A prover could not be made or refused a position.
    #[error("{0}")]
    Prover(ProveFailure),
    /// The checkpoint could not be written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// The plan and whether the run is over (after which no worker writes).
struct Board {
    plan: Plan,
    closed: bool,
    error: Option<RunError>,
}

struct Shared {
    board: Mutex<Board>,
    wake: Condvar,
    stop: Arc<AtomicBool>,
    /// Worker threads still running.
    active: AtomicUsize,
    config: Config,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Run `plan` to its end on `config.threads` threads, with provers from
/// `make`, until the value is proven, `stop` is set (the checkpoint then
/// holds every answer recorded; jobs being searched are dropped and done
/// again on resuming), or a worker fails. `report` is called every
/// `config.report_every` and once at the end. Returns the plan as it
/// stands.
///
/// Worker threads are not waited for: a stopped run's searches go on until
/// their job ends (their answers are not recorded), which is moot in a
/// process that then exits.
///
/// # Errors
/// A prover could not be made or failed, or a checkpoint could not be
/// written.
pub fn run(
    plan: Plan,
    config: &Config,
    make: Arc<MakeProver>,
    stop: Arc<AtomicBool>,
    mut report: impl FnMut(&Status),
) -> Result<(Plan, Finish), RunError> {
    let started = Instant::now();
    let rules = plan.rules();
    let shared = Arc::new(Shared {
        board: Mutex::new(Board {
            plan,
            closed: false,
            error: None,
        }),
        wake: Condvar::new(),
        stop,
        active: AtomicUsize::new(config.threads.max(1)),
        config: config.clone(),
    });
    let counters: Vec<Arc<AtomicU64>> = (0..config.threads.max(1))
        .map(|_| Arc::new(AtomicU64::new(0)))
        .collect();
    for counter in &counters {
        let shared = Arc::clone(&shared);
        let make = Arc::clone(&make);
        let limits = Limits {
            table_bytes: config.table_bytes(),
            budget: config.budget,
            nodes: Arc::clone(counter),
        };
        std::thread::spawn(move || {
            if let Err(e) = work(&shared, &*make, rules, limits) {
                shared.lock().error.get_or_insert(e);
            }
            shared.active.fetch_sub(1, Ordering::SeqCst);
            shared.wake.notify_all();
        });
    }
    let status = |plan: &Plan| Status {
        progress: plan.progress(),
        nodes: counters.iter().map(|c| c.load(Ordering::Relaxed)).sum(),
        elapsed: started.elapsed(),
        resident: resident_bytes(),
    };
    let mut board = shared.lock();
    let mut last = Instant::now();
    loop {
        let value = board.plan.value();
        let stopped = shared.stop.load(Ordering::SeqCst);
        let idle = shared.active.load(Ordering::SeqCst) == 0;
        if value.is_some() || stopped || idle || board.error.is_some() {
            board.closed = true;
            report(&status(&board.plan));
            if let Some(e) = board.error.take() {
                return Err(e);
            }
            if let Some(path) = &config.checkpoint {
                checkpoint::save(path, &board.plan)?;
            }
            let finish = value.map_or(Finish::Stopped, Finish::Done);
            return Ok((board.plan.clone(), finish));
        }
        // Woken by every answer; a stop is looked at four times a second.
        let wait = config
            .report_every
            .saturating_sub(last.elapsed())
            .min(Duration::from_millis(250));
        board = shared
            .wake
            .wait_timeout(board, wait)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        if last.elapsed() >= config.report_every {
            last = Instant::now();
            report(&status(&board.plan));
        }
    }
}

/// One worker: take a job, prove it, record the answer, until none is left.
fn work(
    shared: &Shared,
    make: &MakeProver,
    rules: oxo_core::Rules,
    limits: Limits,
) -> Result<(), RunError> {
    let counter = Arc::clone(&limits.nodes);
    let mut prover = make(rules, limits).map_err(RunError::Prover)?;
    loop {
        let job = {
            let mut board = shared.lock();
            loop {
                if board.closed
                    || shared.stop.load(Ordering::SeqCst)
                    || board.plan.value().is_some()
                {
                    return Ok(());
                }
                if let Some(job) = board.plan.take() {
                    break job;
                }
                if !board.plan.is_running() {
                    // Nothing to take and nothing that could add jobs.
                    return Ok(());
                }
                board = shared
                    .wake
                    .wait(board)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let before = counter.load(Ordering::Relaxed);
        let started = Instant::now();
        let answer = prover
            .prove(&job.game, job.attacker)
            .map_err(RunError::Prover)?;
        let cost = Cost {
            nodes: counter.load(Ordering::Relaxed) - before,
            ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        let mut board = shared.lock();
        if board.closed {
            return Ok(());
        }
        board
            .plan
            .record(job.id, answer, cost)
            .expect("the plan's own job");
        if let Some(path) = &shared.config.checkpoint {
            checkpoint::save(path, &board.plan)?;
        }
        drop(board);
        shared.wake.notify_all();
    }
}

/// The process's resident memory in bytes (Linux: `VmRSS` in
/// `/proc/self/status`), or `None` where it cannot be read.
#[must_use]
pub fn resident_bytes() -> Option<u64> {
    proc_status("VmRSS:")
}

/// The most resident memory the process has had, in bytes (Linux:
/// `VmHWM`), or `None` where it cannot be read.
#[must_use]
pub fn peak_resident_bytes() -> Option<u64> {
    proc_status("VmHWM:")
}

/// The machine's memory, in bytes (Linux: `MemTotal` of /proc/meminfo),
/// or `None` where it cannot be read.
#[must_use]
pub fn physical_bytes() -> Option<u64> {
    kib_field("/proc/meminfo", "MemTotal:")
}

fn proc_status(field: &str) -> Option<u64> {
    kib_field("/proc/self/status", field)
}

/// The `field` line of the /proc file `path`, given in kB, in bytes.
fn kib_field(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}
