//! `oxo solve --value` as a long proof split into jobs: on every core with
//! a checkpoint (`--checkpoint FILE [--resume]`), or shared by workers
//! through PostgreSQL (`--post`, `--worker`, `--assemble`).

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use oxo_campaign::certificate::{self, Written};
use oxo_campaign::local::{self, Finish, Status};
use oxo_campaign::pg::{self, Queue, SystemClock, WorkerConfig};
use oxo_campaign::{Limits, MakeProver, Plan, SearchProver, checkpoint};
use oxo_cli::exit;
use oxo_cli::render::count;
use oxo_cli::solve::{self, Answer as _, ValueReport};
use oxo_core::{Game, Rules};

use crate::args::SolveArgs;
use crate::failure::BadInput;

/// How often the progress line is written.
const REPORT_EVERY: Duration = Duration::from_secs(3);

/// The prover every job goes to: the seam to change for another search.
fn prover() -> Arc<MakeProver> {
    Arc::new(SearchProver::boxed)
}

/// `--memory` when not given.
const DEFAULT_MEMORY: &str = "1G";
/// `--split` when not given.
const DEFAULT_SPLIT: u32 = 2;
/// `--lease` when not given, in seconds.
const DEFAULT_LEASE_SECS: u64 = 60;

pub(super) fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    let c = &args.campaign;
    if !args.value && !c.worker {
        return Err(BadInput("a long proof proves the value alone: add --value".to_owned()).into());
    }
    if args.json && (c.worker || c.post) {
        return Err(BadInput("--json is for the value: leave it out here".to_owned()).into());
    }
    let memory = parse_size(c.memory.as_deref().unwrap_or(DEFAULT_MEMORY)).map_err(BadInput)?;
    // A size given that the machine does not have (the default is left to
    // the tables' own allocation, on however small a machine).
    if let Some(given) = c.memory.as_deref()
        && let Some(total) = local::physical_bytes()
        && memory > total
    {
        return Err(BadInput(format!(
            "--memory {given}: {} MiB is more than this machine's {} MiB of memory",
            memory >> 20,
            total >> 20
        ))
        .into());
    }
    let threads = threads(args);
    if let Some(path) = &args.proof {
        if c.worker || c.post {
            return Err(BadInput(
                "--proof writes the certificate of a finished proof: give it with --assemble or --checkpoint".to_owned(),
            )
            .into());
        }
        if let Some(checkpoint) = &c.checkpoint {
            let mut lock = checkpoint.as_os_str().to_owned();
            lock.push(".lock");
            if super::same_file(path, checkpoint) || super::same_file(path, Path::new(&lock)) {
                return Err(BadInput(format!(
                    "--proof names the checkpoint or its lock file, {}: give the certificate a file of its own",
                    path.display()
                ))
                .into());
            }
        }
        super::check_writable(path)?;
    }
    if c.worker {
        return worker(args, threads, memory);
    }
    let game = match args.position.as_deref() {
        Some("-") => {
            return Err(BadInput("a long proof is of one position, not -".to_owned()).into());
        }
        Some(text) => solve::parse_position(text, args.k).map_err(BadInput::from_error)?,
        None => Game::new(Rules::with_size(args.size, args.k)?),
    };
    // Refuse a board the prover cannot take before any work.
    drop(
        prover()(
            game.rules(),
            Limits {
                table_bytes: 1 << 16,
                budget: None,
                nodes: Arc::default(),
            },
        )
        .map_err(BadInput::from_error)?,
    );
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    };
    let db = c.db.as_deref().unwrap_or_default();
    if c.post {
        let plan = Plan::new(&game, c.split.unwrap_or(DEFAULT_SPLIT));
        return runtime()?.block_on(async {
            let mut queue = Queue::connect(db).await?;
            let posted = queue.post(&plan).await?;
            let p = posted.plan.progress();
            let what = if posted.new {
                "posted"
            } else {
                "already posted"
            };
            writeln!(
                super::stdout(),
                "proof {}: {} position {game} {what}: {} open, {} done",
                posted.id,
                game.rules(),
                count(p.open as u64, "job"),
                p.done
            )?;
            Ok(exit::SUCCESS)
        });
    }
    if c.assemble {
        return runtime()?.block_on(async {
            let queue = Queue::connect(db).await?;
            let Some(posted) = queue.find(&game).await? else {
                return Err(BadInput(format!(
                    "no proof of {} position {game} is posted: post it with --post",
                    game.rules()
                ))
                .into());
            };
            // The time: the jobs' own, summed over workers.
            let time = Duration::from_millis(posted.plan.progress().totals.ms);
            Ok(finished(args, &game, &posted.plan, time))
        });
    }
    let path = c.checkpoint.as_deref().expect("a long proof's mode");
    local_run(args, game, path, threads, memory)
}

/// The worker threads asked for, or one a core.
fn threads(args: &SolveArgs) -> usize {
    args.campaign.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |n| n as usize,
    )
}

/// The value once `plan` has it (exit 0), or where it stands (exit 3).
fn finished(args: &SolveArgs, game: &Game, plan: &Plan, time: Duration) -> u8 {
    let p = plan.progress();
    let Some(value) = plan.value() else {
        note!(
            "oxo: not proven yet: {} done, {} open; root moves settled {}/{}",
            count(p.done, "job"),
            p.open,
            p.root_moves.0,
            p.root_moves.1
        );
        return exit::STOPPED;
    };
    if let Some(path) = &args.proof {
        // Checked when the run began.
        let memory = args.campaign.memory.as_deref().unwrap_or(DEFAULT_MEMORY);
        let memory = parse_size(memory).unwrap_or(1 << 30);
        if let Err(e) = write_certificate(plan, path, threads(args), memory) {
            note!("oxo: {}", crate::failure::message(&e));
            return match e.downcast_ref() {
                Some(certificate::AssembleError::Stopped { .. }) => exit::STOPPED,
                _ => exit::IO_ERROR,
            };
        }
    }
    let report = ValueReport {
        game: game.clone(),
        value,
        nodes: p.totals.nodes,
        time,
    };
    let mut out = super::stdout();
    let _ = if args.json {
        writeln!(out, "{}", report.json())
    } else {
        write!(out, "{}", report.table())
    };
    note!(
        "oxo: {}, {:.1} s of search over all workers and runs",
        count(p.totals.jobs, "job"),
        p.totals.ms as f64 / 1e3
    );
    exit::SUCCESS
}

fn local_run(
    args: &SolveArgs,
    game: Game,
    path: &Path,
    threads: usize,
    memory: u64,
) -> anyhow::Result<u8> {
    let c = &args.campaign;
    // Held to the end of the run: a second run on this checkpoint is
    // refused, not left to overwrite this one's answers.
    let _lock = checkpoint::Lock::take(path).map_err(|e| match e {
        checkpoint::CheckpointError::Locked { .. } => BadInput::from_error(e),
        e => e.into(),
    })?;
    let plan = if c.resume {
        let plan = checkpoint::load(path)?;
        checkpoint::check_for(path, &plan, &game)?;
        plan
    } else {
        if path.exists() {
            return Err(BadInput(format!(
                "{} exists: add --resume to continue its proof, or remove it",
                path.display()
            ))
            .into());
        }
        Plan::new(&game, c.split.unwrap_or(DEFAULT_SPLIT))
    };
    // The handler first: once the checkpoint exists, a signal stops the
    // run cleanly.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    super::on_signal(move |_| flag.store(true, Ordering::SeqCst))?;
    checkpoint::save(path, &plan)?;
    let config = local::Config {
        threads,
        memory,
        budget: c.job_nodes,
        checkpoint: Some(path.to_owned()),
        report_every: REPORT_EVERY,
    };
    let p = plan.progress();
    note!(
        "oxo: proving {} position {game}: {}, {} MiB of tables{}; {} done, {} open; checkpoint {}",
        game.rules(),
        count(threads as u64, "thread"),
        config.table_bytes() >> 20,
        if threads > 1 { " each" } else { "" },
        count(p.done, "job"),
        p.open,
        path.display()
    );
    let status = super::StatusLine::new();
    let started = Instant::now();
    // The last report, at the end, stays on the screen.
    let (plan, finish) = local::run(plan, &config, prover(), stop, |s| {
        let line = status_text(s);
        if status.is_shown() {
            status.show(format_args!("{line}"));
        } else {
            note!("{line}");
        }
    })?;
    if status.is_shown() {
        note!();
    }
    if let Some(peak) = local::peak_resident_bytes() {
        note!("oxo: peak resident memory {} MiB", peak >> 20);
    }
    match finish {
        Finish::Done(_) => Ok(finished(args, &game, &plan, started.elapsed())),
        Finish::Stopped => {
            note!(
                "oxo: stopped; {} done, saved in {}: continue with --resume",
                count(plan.progress().done, "job"),
                path.display()
            );
            Ok(exit::STOPPED)
        }
    }
}

/// `proof: 12 jobs done, 30 open; root moves 3/10; 1.2 M positions/s; 350 MiB; 83 s`.
fn status_text(s: &Status) -> String {
    let p = &s.progress;
    let rate = s.nodes as f64 / s.elapsed.as_secs_f64().max(1e-3);
    let rate = if s.nodes == 0 {
        String::new()
    } else if rate >= 1e5 {
        format!("; {:.2} M positions/s", rate / 1e6)
    } else {
        format!("; {rate:.0} positions/s")
    };
    let memory = s
        .resident
        .map_or(String::new(), |r| format!("; {} MiB resident", r >> 20));
    let split = if p.totals.split > 0 {
        format!(" ({} more split deeper)", p.totals.split)
    } else {
        String::new()
    };
    format!(
        "proof: {} done{split}, {} open; root moves settled {}/{}{rate}{memory}; {:.0} s",
        count(p.done, "job"),
        p.open,
        p.root_moves.0,
        p.root_moves.1,
        s.elapsed.as_secs_f64()
    )
}

/// `oxo solve --worker`: `threads` workers in this process, until no job
/// is left.
fn worker(args: &SolveArgs, threads: usize, memory: u64) -> anyhow::Result<u8> {
    let c = &args.campaign;
    let url = c.db.clone().expect("--worker requires --db");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let table_bytes = local::Config {
        threads,
        memory,
        budget: None,
        checkpoint: None,
        report_every: REPORT_EVERY,
    }
    .table_bytes();
    let host = std::fs::read_to_string("/etc/hostname")
        .map_or_else(|_| "host".to_owned(), |h| h.trim().to_owned());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let counters: Vec<Arc<AtomicU64>> = (0..threads).map(|_| Arc::default()).collect();
    let started = Instant::now();
    // Listened for before any worker starts, and once: a signal between
    // two passes of the loop below is kept for the next.
    let mut signals = {
        let _entered = runtime.enter();
        oxo_cli::signals::Signals::new().context("cannot listen for Ctrl-C and SIGTERM")?
    };
    let worked = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (i, counter) in counters.iter().enumerate() {
            let config = WorkerConfig {
                name: format!("{host}:{}:{i}", std::process::id()),
                table_bytes,
                budget: c.job_nodes,
                lease_ms: (c.lease.unwrap_or(DEFAULT_LEASE_SECS) * 1000) as i64,
            };
            let url = url.clone();
            let counter = Arc::clone(counter);
            let stop = stop_rx.clone();
            tasks.push(tokio::spawn(async move {
                pg::work(
                    &url,
                    &config,
                    prover(),
                    Arc::new(SystemClock),
                    counter,
                    stop,
                )
                .await
            }));
        }
        let mut all = tokio::spawn(async move {
            let mut total = pg::Worked::default();
            for task in tasks {
                let w = task.await.expect("a worker does not panic")?;
                total.jobs += w.jobs;
                total.nodes += w.nodes;
                total.stopped |= w.stopped;
            }
            Ok::<_, pg::PgError>(total)
        });
        let mut tick = tokio::time::interval(REPORT_EVERY);
        loop {
            tokio::select! {
                done = &mut all => break done.expect("the workers' join does not panic"),
                _ = signals.recv() => {
                    let _ = stop_tx.send(true);
                }
                _ = tick.tick() => {
                    let nodes: u64 = counters.iter().map(|c| c.load(Ordering::Relaxed)).sum();
                    let secs = started.elapsed().as_secs_f64();
                    let memory = local::resident_bytes()
                        .map_or(String::new(), |r| format!("; {} MiB resident", r >> 20));
                    if secs >= 1.0 {
                        note!(
                            "worker: {}; {:.2} M positions/s{memory}; {secs:.0} s",
                            count(threads as u64, "thread"),
                            nodes as f64 / secs / 1e6
                        );
                    }
                }
            }
        }
    })?;
    note!(
        "oxo: worker answered {}, {}, in {:.1} s{}",
        count(worked.jobs, "job"),
        count(worked.nodes, "position"),
        started.elapsed().as_secs_f64(),
        if worked.stopped {
            " (stopped; its job went back to the queue)"
        } else {
            ""
        }
    );
    Ok(if worked.stopped {
        exit::STOPPED
    } else {
        exit::SUCCESS
    })
}

/// Write the certificate of `plan`'s proof to `path`: the top of the
/// split tree above a certificate of each job, the jobs' trees written on
/// `threads` workers sharing `memory` ([`certificate::WriterMemory`]), each
/// by [`certificate::job_writer`].
fn write_certificate(plan: &Plan, path: &Path, threads: usize, memory: u64) -> anyhow::Result<()> {
    let shares = certificate::WriterMemory::new(memory, threads);
    let (table_bytes, cap) = (shares.table_bytes, shares.cap);
    let rules = plan.rules();
    let writer = || Ok::<_, String>(certificate::job_writer(rules, shares));
    let mut file = oxo_campaign::output::OutputFile::create(path)?;
    // The trees wait in a scratch file of no name (nothing to remove, and
    // no file of the user's is touched), beside the certificate or, where
    // none can be made there (`--proof /dev/null`), in the temp directory.
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let scratch = tempfile::tempfile_in(dir)
        .or_else(|_| tempfile::tempfile())
        .with_context(|| format!("cannot make a scratch file beside {}", path.display()))?;
    let mut out = std::io::BufWriter::new(&mut file);
    note!(
        "oxo: writing the certificate to {}: {}, {} MiB of table and at most {cap} nodes a job{}",
        path.display(),
        oxo_cli::render::count(threads as u64, "thread"),
        table_bytes >> 20,
        if threads > 1 { " each" } else { "" }
    );
    let started = Instant::now();
    let mut last = Instant::now();
    let report = |w: &Written| {
        if last.elapsed() >= REPORT_EVERY || w.jobs == w.all_jobs {
            last = Instant::now();
            let memory = local::resident_bytes()
                .map_or(String::new(), |r| format!("; {} MiB resident", r >> 20));
            note!(
                "certificate: {}/{} jobs written; {} nodes, {} MiB{memory}; {:.0} s",
                w.jobs,
                w.all_jobs,
                w.nodes,
                w.bytes >> 20,
                started.elapsed().as_secs_f64()
            );
        }
    };
    // Ctrl-C or SIGTERM stops the writing after the jobs under way.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    super::on_signal(move |_| flag.store(true, Ordering::SeqCst))?;
    // On an error or a stop, `file` is dropped uncommitted: its temporary
    // file goes, and whatever was at `path` stays.
    let written = certificate::write(plan, threads, writer, (&mut out, scratch), &stop, report)
        .map_err(|e| match e {
            certificate::AssembleError::Io(e) => {
                anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
            }
            e => e.into(),
        })?;
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    drop(out);
    file.commit()?;
    note!(
        "oxo: proof of {} ({}) written to {}",
        written.claim,
        oxo_cli::render::count(written.nodes, "position"),
        path.display()
    );
    note!(
        "oxo: certificate of {}, {} bytes, largest job tree {} nodes, in {:.1} s",
        oxo_cli::render::count(written.all_jobs as u64, "job"),
        written.bytes,
        written.largest,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `512M`, `4G`, `1T` or plain bytes.
fn parse_size(text: &str) -> Result<u64, String> {
    let bad = || format!("--memory {text:?}: give a size such as 512M or 4G");
    let (digits, shift) = match text.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&text[..text.len() - 1], 10),
        Some('M') => (&text[..text.len() - 1], 20),
        Some('G') => (&text[..text.len() - 1], 30),
        Some('T') => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1 << shift)
        .filter(|&b| b >= 1 << 20)
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert!(parse_size("1K").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("").is_err());
    }
}
