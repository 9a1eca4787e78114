//! Several workers, on several machines, sharing proofs through a
//! PostgreSQL job table.
//!
//! Two tables, created by [`Queue::connect`] if missing (idempotent, under
//! an advisory lock so that workers starting together do not race):
//! `oxo_campaign`, one row a posted proof with its [`Plan`] as JSON (the
//! same JSON a checkpoint holds), and `oxo_campaign_job`, one row a job
//! (`open`, `taken` under a lease, `done`, or `dropped` once moot).
//!
//! A worker takes the first open job, or a taken one whose lease has
//! expired, with `SELECT … FOR UPDATE SKIP LOCKED` (workers never wait on
//! each other's rows), renews its lease while it proves, and writes the
//! answer back in one transaction that locks the proof's row, records the
//! answer in the plan ([`Plan::record`]), inserts the jobs it creates and
//! drops the ones it makes moot. A killed worker's job goes back to the
//! queue when its lease expires; an answer that comes after another
//! worker's for the same job is ignored (both are right: answers are
//! facts about positions).
//!
//! Time is passed in ([`Clock`]): leases compare the workers' clocks, so
//! machines should keep them in step (NTP) to well within a lease.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use oxo_core::{Game, Player, Rules};
use tokio_postgres::{Client, NoTls};

use crate::plan::{Answer, Cost, Job, Plan, PlanError, Verdict};
use crate::prove::{Limits, MakeProver, Prove, ProveFailure};

/// The tables, created if missing.
const SCHEMA: &str = "
BEGIN;
SELECT pg_advisory_xact_lock(5290029);
CREATE TABLE IF NOT EXISTS oxo_campaign (
    id BIGSERIAL PRIMARY KEY,
    rules TEXT NOT NULL,
    k INTEGER NOT NULL,
    position TEXT NOT NULL,
    plan TEXT NOT NULL,
    done BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (rules, position)
);
CREATE TABLE IF NOT EXISTS oxo_campaign_job (
    campaign BIGINT NOT NULL REFERENCES oxo_campaign (id),
    node INTEGER NOT NULL,
    position TEXT NOT NULL,
    attacker TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'open'
        CHECK (state IN ('open', 'taken', 'done', 'dropped')),
    worker TEXT,
    lease_until BIGINT,
    tries INTEGER NOT NULL DEFAULT 0,
    answer TEXT,
    nodes BIGINT,
    ms BIGINT,
    PRIMARY KEY (campaign, node)
);
CREATE INDEX IF NOT EXISTS oxo_campaign_job_waiting
    ON oxo_campaign_job (campaign, node) WHERE state IN ('open', 'taken');
COMMIT;
";

/// Why a job-table operation failed.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// The URL is not a PostgreSQL connection string.
    #[error("not a PostgreSQL connection string (postgres://USER@HOST/DB): {0}")]
    Url(tokio_postgres::Error),
    /// The database refused or the connection failed.
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
    /// A stored plan or job does not hold.
    #[error("stored proof {campaign}: {reason}")]
    Stored {
        /// The proof's id.
        campaign: i64,
        /// What is wrong.
        reason: String,
    },
    /// A prover could not be made or failed.
    #[error("{0}")]
    Prover(ProveFailure),
}

impl PgError {
    fn stored(campaign: i64, reason: impl std::fmt::Display) -> PgError {
        PgError::Stored {
            campaign,
            reason: reason.to_string(),
        }
    }
}

/// The time leases are measured in, passed in so tests control it.
pub trait Clock: Send + Sync {
    /// Milliseconds since some fixed moment, the same for every worker.
    fn now_ms(&self) -> i64;
    /// Wait a while before looking for jobs again (none is open, and others
    /// hold leases that may end or add jobs).
    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The system's clock (Unix milliseconds), pausing a second at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
    }

    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(Duration::from_secs(1)))
    }
}

/// A clock that moves only when told, or by `step` at every pause: a test
/// passes time without waiting for it.
#[derive(Debug)]
pub struct ManualClock {
    now: AtomicI64,
    step: i64,
}

impl ManualClock {
    /// A clock at `now` that moves `step` ms at every pause.
    #[must_use]
    pub const fn new(now: i64, step: i64) -> ManualClock {
        ManualClock {
            now: AtomicI64::new(now),
            step,
        }
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.now.fetch_add(self.step, Ordering::SeqCst);
        Box::pin(tokio::task::yield_now())
    }
}

/// A job handed to a worker under a lease.
#[derive(Clone, Debug)]
pub struct Taken {
    /// The proof it belongs to.
    pub campaign: i64,
    /// The job.
    pub job: Job,
}

/// A posted proof as the job table holds it.
#[derive(Clone, Debug)]
pub struct Posted {
    /// Its id.
    pub id: i64,
    /// Its plan, with every answer recorded so far.
    pub plan: Plan,
    /// Whether this call posted it (false: it was there already).
    pub new: bool,
}

/// One connection to the job table.
#[derive(Debug)]
pub struct Queue {
    client: Client,
}

fn side(p: Player) -> String {
    p.to_string()
}

impl Queue {
    /// Connect to the database at `url` and create the tables if missing.
    ///
    /// # Errors
    /// The URL is malformed, or the database refuses.
    pub async fn connect(url: &str) -> Result<Queue, PgError> {
        let config: tokio_postgres::Config = url.parse().map_err(PgError::Url)?;
        let (client, connection) = config.connect(NoTls).await?;
        tokio::spawn(async move {
            // Errors show up on the client's next call.
            let _ = connection.await;
        });
        client.batch_execute(SCHEMA).await?;
        Ok(Queue { client })
    }

    /// Post the proof of `plan` with its jobs, unless the same board and
    /// position is posted already: then the stored one is returned.
    ///
    /// # Errors
    /// The database refuses, or the stored plan does not hold.
    pub async fn post(&mut self, plan: &Plan) -> Result<Posted, PgError> {
        let game = plan.game();
        let rules = game.rules().to_string();
        let json = serde_json::to_string(plan).expect("a plan serializes");
        let tx = self.client.transaction().await?;
        let row = tx
            .query_opt(
                "INSERT INTO oxo_campaign (rules, k, position, plan) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (rules, position) DO NOTHING RETURNING id",
                &[&rules, &(game.rules().k() as i32), &game.to_string(), &json],
            )
            .await?;
        let Some(row) = row else {
            drop(tx);
            let posted = self
                .find(&game)
                .await?
                .expect("posted, as the insert found");
            return Ok(posted);
        };
        let id: i64 = row.get(0);
        insert_jobs(&tx, id, plan.open_jobs()).await?;
        tx.commit().await?;
        Ok(Posted {
            id,
            plan: plan.clone(),
            new: true,
        })
    }

    /// The posted proof of `game`, if any.
    ///
    /// # Errors
    /// The database refuses, or the stored plan does not hold.
    pub async fn find(&self, game: &Game) -> Result<Option<Posted>, PgError> {
        let row = self
            .client
            .query_opt(
                "SELECT id, plan FROM oxo_campaign WHERE rules = $1 AND position = $2",
                &[&game.rules().to_string(), &game.to_string()],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let id: i64 = row.get(0);
        let plan = parse_plan(id, row.get(1))?;
        Ok(Some(Posted {
            id,
            plan,
            new: false,
        }))
    }

    /// Take the first open job, or one whose lease ended before `now`,
    /// leased to `worker` until `until`.
    ///
    /// # Errors
    /// The database refuses, or the stored job does not hold.
    pub async fn take(&self, worker: &str, now: i64, until: i64) -> Result<Option<Taken>, PgError> {
        let row = self
            .client
            .query_opt(
                "UPDATE oxo_campaign_job j
                 SET state = 'taken', worker = $1, lease_until = $2, tries = j.tries + 1
                 FROM (SELECT campaign, node FROM oxo_campaign_job
                       WHERE state = 'open' OR (state = 'taken' AND lease_until < $3)
                       ORDER BY campaign, node LIMIT 1
                       FOR UPDATE SKIP LOCKED) t, oxo_campaign c
                 WHERE j.campaign = t.campaign AND j.node = t.node AND c.id = j.campaign
                 RETURNING j.campaign, j.node, j.position, j.attacker, c.k",
                &[&worker, &until, &now],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let campaign: i64 = row.get(0);
        let node: i32 = row.get(1);
        let position: &str = row.get(2);
        let attacker: &str = row.get(3);
        let k: i32 = row.get(4);
        let game = Game::from_notation(position, k as u32)
            .map_err(|e| PgError::stored(campaign, format!("job {node}: {e}")))?;
        let attacker = match attacker {
            "X" => Player::X,
            "O" => Player::O,
            other => {
                return Err(PgError::stored(
                    campaign,
                    format!("job {node}: not a side: {other:?}"),
                ));
            }
        };
        Ok(Some(Taken {
            campaign,
            job: Job {
                id: node as u32,
                game,
                attacker,
            },
        }))
    }

    /// Extend `worker`'s lease on a job it holds; false if it no longer
    /// holds it.
    ///
    /// # Errors
    /// The database refuses.
    pub async fn renew(&self, taken: &Taken, worker: &str, until: i64) -> Result<bool, PgError> {
        let n = self
            .client
            .execute(
                "UPDATE oxo_campaign_job SET lease_until = $4
                 WHERE campaign = $1 AND node = $2 AND worker = $3 AND state = 'taken'",
                &[&taken.campaign, &(taken.job.id as i32), &worker, &until],
            )
            .await?;
        Ok(n == 1)
    }

    /// Give a job back to the queue (a worker that stops early).
    ///
    /// # Errors
    /// The database refuses.
    pub async fn release(&self, taken: &Taken, worker: &str) -> Result<(), PgError> {
        self.client
            .execute(
                "UPDATE oxo_campaign_job SET state = 'open', worker = NULL, lease_until = NULL
                 WHERE campaign = $1 AND node = $2 AND worker = $3 AND state = 'taken'",
                &[&taken.campaign, &(taken.job.id as i32), &worker],
            )
            .await?;
        Ok(())
    }

    /// Write a job's answer back: record it in the proof's plan, add the
    /// jobs that creates and drop the ones it makes moot, in one
    /// transaction. An answer for a job already answered changes nothing.
    ///
    /// # Errors
    /// The database refuses, or the stored plan does not hold.
    pub async fn finish(
        &mut self,
        taken: &Taken,
        worker: &str,
        answer: Answer,
        cost: Cost,
    ) -> Result<(), PgError> {
        let campaign = taken.campaign;
        let node = taken.job.id as i32;
        let tx = self.client.transaction().await?;
        let row = tx
            .query_one(
                "SELECT plan FROM oxo_campaign WHERE id = $1 FOR UPDATE",
                &[&campaign],
            )
            .await?;
        let mut plan = parse_plan(campaign, row.get(0))?;
        let state: String = tx
            .query_one(
                "SELECT state FROM oxo_campaign_job WHERE campaign = $1 AND node = $2",
                &[&campaign, &node],
            )
            .await?
            .get(0);
        if state == "done" {
            return Ok(());
        }
        let before = plan.open_jobs().map(|j| j.id).max();
        plan.record(taken.job.id, answer, cost)
            .map_err(|e: PlanError| PgError::stored(campaign, e))?;
        let word = match answer {
            Answer::Verdict(Verdict::Proven) => "proven",
            Answer::Verdict(Verdict::Disproven) => "disproven",
            Answer::OverBudget => "split",
        };
        tx.execute(
            "UPDATE oxo_campaign_job
             SET state = 'done', answer = $3, nodes = $4, ms = $5, worker = $6
             WHERE campaign = $1 AND node = $2",
            &[
                &campaign,
                &node,
                &word,
                &(cost.nodes as i64),
                &(cost.ms as i64),
                &worker,
            ],
        )
        .await?;
        let live: Vec<Job> = plan.open_jobs().collect();
        // New nodes are numbered after every old one.
        let new = live.iter().filter(|j| before.is_none_or(|b| j.id > b));
        insert_jobs(&tx, campaign, new.cloned()).await?;
        let ids: Vec<i32> = live.iter().map(|j| j.id as i32).collect();
        tx.execute(
            "UPDATE oxo_campaign_job SET state = 'dropped'
             WHERE campaign = $1 AND state IN ('open', 'taken') AND NOT (node = ANY($2))",
            &[&campaign, &ids],
        )
        .await?;
        let json = serde_json::to_string(&plan).expect("a plan serializes");
        tx.execute(
            "UPDATE oxo_campaign SET plan = $2, done = $3 WHERE id = $1",
            &[&campaign, &json, &plan.value().is_some()],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Jobs open or taken, over every proof: none means there is nothing
    /// left to do.
    ///
    /// # Errors
    /// The database refuses.
    pub async fn waiting(&self) -> Result<i64, PgError> {
        Ok(self
            .client
            .query_one(
                "SELECT count(*) FROM oxo_campaign_job WHERE state IN ('open', 'taken')",
                &[],
            )
            .await?
            .get(0))
    }
}

async fn insert_jobs(
    tx: &tokio_postgres::Transaction<'_>,
    campaign: i64,
    jobs: impl Iterator<Item = Job>,
) -> Result<(), PgError> {
    let (mut ids, mut positions, mut attackers) = (Vec::new(), Vec::new(), Vec::new());
    for job in jobs {
        ids.push(job.id as i32);
        positions.push(job.game.to_string());
        attackers.push(side(job.attacker));
    }
    if ids.is_empty() {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO oxo_campaign_job (campaign, node, position, attacker)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[])
         ON CONFLICT DO NOTHING",
        &[&campaign, &ids, &positions, &attackers],
    )
    .await?;
    Ok(())
}

/// The plan in a campaign's row, checked whole: every reader of the row
/// (each job's answer included) builds on it, so a row edited into a plan
/// that does not hold together is refused wherever it is read.
fn parse_plan(campaign: i64, json: &str) -> Result<Plan, PgError> {
    let plan: Plan = serde_json::from_str(json).map_err(|e| PgError::stored(campaign, e))?;
    plan.check().map_err(|e| PgError::stored(campaign, e))?;
    Ok(plan)
}

/// When `stop` changes; never, once its sender is gone.
async fn changed(stop: &mut tokio::sync::watch::Receiver<bool>) {
    if stop.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// What one worker did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Worked {
    /// Jobs it answered.
    pub jobs: u64,
    /// Positions it visited.
    pub nodes: u64,
    /// Whether it stopped early (its job, if any, given back).
    pub stopped: bool,
}

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Its name in the job table (host, process and thread).
    pub name: String,
    /// Bytes for its prover's tables.
    pub table_bytes: usize,
    /// Positions a job may visit before it is split deeper.
    pub budget: Option<u64>,
    /// How long a lease lasts, in milliseconds (renewed at a third of it).
    pub lease_ms: i64,
}

/// Take jobs from `url`'s job table and answer them until none is left
/// (nothing open or taken) or `stop` turns true (the job in hand is given
/// back). `nodes` counts the positions visited, for progress.
///
/// # Errors
/// The database or a prover failed.
pub async fn work(
    url: &str,
    config: &WorkerConfig,
    make: Arc<MakeProver>,
    clock: Arc<dyn Clock>,
    nodes: Arc<AtomicU64>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<Worked, PgError> {
    let mut queue = Queue::connect(url).await?;
    let mut worked = Worked::default();
    let mut prover: Option<(Rules, Box<dyn Prove>)> = None;
    loop {
        if *stop.borrow() {
            worked.stopped = true;
            return Ok(worked);
        }
        let now = clock.now_ms();
        let Some(taken) = queue.take(&config.name, now, now + config.lease_ms).await? else {
            if queue.waiting().await? == 0 {
                return Ok(worked);
            }
            tokio::select! {
                () = clock.pause() => {}
                () = changed(&mut stop) => {}
            }
            continue;
        };
        let rules = taken.job.game.rules();
        let mut made = false;
        let mut held = match prover.take() {
            Some((r, p)) if r == rules => p,
            _ => {
                made = true;
                make(
                    rules,
                    Limits {
                        table_bytes: config.table_bytes,
                        budget: config.budget,
                        nodes: Arc::clone(&nodes),
                    },
                )
                .map_err(PgError::Prover)?
            }
        };
        let job = taken.job.clone();
        // A prover made for this job counts from 0.
        let before = if made {
            0
        } else {
            nodes.load(Ordering::Relaxed)
        };
        let started = std::time::Instant::now();
        let mut search = tokio::task::spawn_blocking(move || {
            let answer = held.prove(&job.game, job.attacker);
            (held, answer)
        });
        let renew_every = Duration::from_millis((config.lease_ms / 3).max(1) as u64);
        let (held, answer) = loop {
            tokio::select! {
                done = &mut search => break done.expect("the search does not panic"),
                () = tokio::time::sleep(renew_every) => {
                    let now = clock.now_ms();
                    queue.renew(&taken, &config.name, now + config.lease_ms).await?;
                }
                () = changed(&mut stop) => {
                    if *stop.borrow() {
                        queue.release(&taken, &config.name).await?;
                        worked.stopped = true;
                        return Ok(worked);
                    }
                }
            }
        };
        let answer = answer.map_err(PgError::Prover)?;
        let cost = Cost {
            nodes: nodes.load(Ordering::Relaxed).saturating_sub(before),
            ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        queue.finish(&taken, &config.name, answer, cost).await?;
        worked.jobs += 1;
        worked.nodes += cost.nodes;
        prover = Some((rules, held));
    }
}
