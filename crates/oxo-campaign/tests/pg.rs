//! Workers sharing proofs through a real PostgreSQL job table: three
//! workers and one that dies holding a job; its lease expires (time passed
//! in), another worker takes the job back, and the values are right.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use oxo_ai::{Solver, Value};
use oxo_campaign::pg::{self, Clock, ManualClock, Queue, WorkerConfig};
use oxo_campaign::{MakeProver, Plan, SolverProver};
use oxo_core::{Game, Rules};
use oxo_test_support::Postgres;

const LEASE: i64 = 60_000;

fn value(game: &Game) -> Value {
    Solver::new(game.rules(), 16 << 20)
        .unwrap()
        .value(game)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_share_proofs_and_take_back_a_dead_workers_job() {
    let db = Postgres::start().unwrap_or_else(|e| panic!("{e}"));
    let url = db.url();
    let draw = Game::new(Rules::new(5, 5, 4).unwrap());
    let win = Game::new(Rules::new(4, 4, 3).unwrap());

    let mut queue = Queue::connect(&url).await.unwrap();
    let posted = queue.post(&Plan::new(&draw, 2)).await.unwrap();
    assert!(posted.new);
    assert!(queue.post(&Plan::new(&win, 2)).await.unwrap().new);
    // Posting again finds the proof already there and adds nothing.
    let again = queue.post(&Plan::new(&draw, 2)).await.unwrap();
    assert!(!again.new);
    assert_eq!(again.id, posted.id);

    // A worker takes the first job and dies with it.
    let clock = Arc::new(ManualClock::new(0, LEASE / 2));
    let dead = queue
        .take("dead", clock.now_ms(), clock.now_ms() + LEASE)
        .await
        .unwrap()
        .expect("an open job");
    assert_eq!(dead.campaign, posted.id);

    let (_stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut workers = Vec::new();
    for i in 0..3 {
        let url = url.clone();
        let clock: Arc<dyn Clock> = Arc::clone(&clock) as Arc<dyn Clock>;
        let stop = stop_rx.clone();
        workers.push(tokio::spawn(async move {
            let config = WorkerConfig {
                name: format!("worker {i}"),
                table_bytes: 16 << 20,
                budget: None,
                lease_ms: LEASE,
            };
            let make: Arc<MakeProver> = Arc::new(SolverProver::boxed);
            pg::work(
                &url,
                &config,
                make,
                clock,
                Arc::new(AtomicU64::new(0)),
                stop,
            )
            .await
        }));
    }
    let mut jobs = 0;
    for worker in workers {
        let worked = worker.await.unwrap().unwrap();
        assert!(!worked.stopped);
        jobs += worked.jobs;
    }
    // How many jobs the workers answer depends on which finish first (a
    // settled node's other jobs are never handed out), so only the sure
    // part is counted: the dead worker's job, taken back, and at least one
    // job of the other proof. What was shared is checked below: every job
    // answered, both values right, the dead worker's job done by another.
    assert!(jobs >= 2, "{jobs}");
    assert_eq!(queue.waiting().await.unwrap(), 0);

    for game in [&draw, &win] {
        let found = queue.find(game).await.unwrap().unwrap();
        assert_eq!(found.plan.value(), Some(value(game)), "{}", game.rules());
    }

    // The dead worker's job was answered by another, after its lease.
    let row = db
        .psql(&format!(
            "SELECT state || ' ' || worker || ' ' || tries FROM oxo_campaign_job \
             WHERE campaign = {} AND node = {}",
            dead.campaign, dead.job.id
        ))
        .unwrap();
    assert!(row.trim().starts_with("done worker "), "{row}");
    // Taken by the dead worker, then again (more than once when the
    // clock's jumps end a live worker's lease too).
    let tries: u32 = row.trim().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(tries >= 2, "{row}");
}
