//! Local runs against the plain solver: the same values, and a run stopped
//! and resumed from its checkpoint does no finished job twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use oxo_ai::{Solver, Value};
use oxo_campaign::local::{self, Config, Finish};
use oxo_campaign::{
    Answer, Limits, MakeProver, Plan, Prove, ProveFailure, SearchProver, SolverProver, checkpoint,
};
use oxo_core::{Game, Player, Rules};

/// The solver, counting its jobs and setting `stop` once it has answered
/// `stop_after` of them.
struct Counting {
    inner: SolverProver,
    calls: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    stop_after: u64,
}

impl Prove for Counting {
    fn prove(&mut self, game: &Game, attacker: Player) -> Result<Answer, ProveFailure> {
        let answer = self.inner.prove(game, attacker);
        if self.calls.fetch_add(1, Ordering::SeqCst) + 1 == self.stop_after {
            self.stop.store(true, Ordering::SeqCst);
        }
        answer
    }
}

fn counting(calls: &Arc<AtomicU64>, stop: &Arc<AtomicBool>, stop_after: u64) -> Arc<MakeProver> {
    let (calls, stop) = (Arc::clone(calls), Arc::clone(stop));
    Arc::new(move |rules: Rules, limits: Limits| {
        Ok(Box::new(Counting {
            inner: SolverProver::new(rules, limits)?,
            calls: Arc::clone(&calls),
            stop: Arc::clone(&stop),
            stop_after,
        }) as Box<dyn Prove>)
    })
}

fn config(threads: usize, checkpoint: Option<std::path::PathBuf>) -> Config {
    Config {
        threads,
        memory: 64 << 20,
        budget: None,
        checkpoint,
        report_every: Duration::from_secs(3600),
    }
}

fn value(game: &Game) -> Value {
    Solver::new(game.rules(), 16 << 20)
        .unwrap()
        .value(game)
        .unwrap()
}

#[test]
fn local_runs_agree_with_the_solver() {
    for (text, k, split, threads) in [
        ("..../..../..../....", 3, 2, 2),           // X wins
        ("..../..../..../....", 4, 1, 2),           // a draw
        ("...../...../...../...../.....", 4, 2, 3), // a draw
        ("X..../...../..O../...../.....", 4, 3, 2),
        (".O./.X./...", 3, 2, 1), // X wins
    ] {
        let game = Game::from_notation(text, k).unwrap();
        let makers: [Arc<MakeProver>; 2] =
            [Arc::new(SolverProver::boxed), Arc::new(SearchProver::boxed)];
        for make in makers {
            let stop = Arc::new(AtomicBool::new(false));
            let (plan, finish) = local::run(
                Plan::new(&game, split),
                &config(threads, None),
                make,
                stop,
                |_| {},
            )
            .unwrap();
            assert_eq!(finish, Finish::Done(value(&game)), "{text} k={k}");
            assert_eq!(plan.value(), Some(value(&game)));
        }
    }
}

#[test]
fn a_stopped_run_resumes_without_redoing_jobs() {
    let game = Game::new(Rules::new(5, 5, 4).unwrap());
    let never = Arc::new(AtomicBool::new(false));

    // The whole run, one thread, for its number of jobs.
    let calls = Arc::new(AtomicU64::new(0));
    let (_, whole) = local::run(
        Plan::new(&game, 2),
        &config(1, None),
        counting(&calls, &never, 0),
        Arc::clone(&never),
        |_| {},
    )
    .unwrap();
    assert_eq!(whole, Finish::Done(Value::Draw));
    let all_jobs = calls.load(Ordering::SeqCst);
    assert!(all_jobs > 4, "{all_jobs}");

    // Stopped after 3 jobs: the checkpoint keeps what was recorded.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.checkpoint");
    let stop = Arc::new(AtomicBool::new(false));
    let first = Arc::new(AtomicU64::new(0));
    let (_, finish) = local::run(
        Plan::new(&game, 2),
        &config(1, Some(path.clone())),
        counting(&first, &stop, 3),
        Arc::clone(&stop),
        |_| {},
    )
    .unwrap();
    assert_eq!(finish, Finish::Stopped);
    let saved = checkpoint::load(&path).unwrap();
    let done = saved.progress().done;
    assert!((2..=3).contains(&done), "{done}");
    checkpoint::check_for(&path, &saved, &game).unwrap();

    // Resumed: the same answer, and only the jobs not done.
    let again = Arc::new(AtomicU64::new(0));
    let (plan, finish) = local::run(
        saved,
        &config(1, Some(path.clone())),
        counting(&again, &never, 0),
        Arc::clone(&never),
        |_| {},
    )
    .unwrap();
    assert_eq!(finish, Finish::Done(Value::Draw));
    assert_eq!(again.load(Ordering::SeqCst), all_jobs - done);
    assert_eq!(plan.progress().totals.jobs, all_jobs);
    assert_eq!(checkpoint::load(&path).unwrap().value(), Some(Value::Draw));
}

#[test]
fn over_budget_jobs_are_split_until_they_fit() {
    let game = Game::new(Rules::new(5, 5, 4).unwrap());
    let mut config = config(2, None);
    // Small enough that both searches run over it at the root.
    config.budget = Some(200);
    let makers: [Arc<MakeProver>; 2] =
        [Arc::new(SolverProver::boxed), Arc::new(SearchProver::boxed)];
    for make in makers {
        let stop = Arc::new(AtomicBool::new(false));
        let (plan, finish) = local::run(Plan::new(&game, 0), &config, make, stop, |_| {}).unwrap();
        assert_eq!(finish, Finish::Done(Value::Draw));
        assert!(plan.progress().totals.jobs > 2);
        assert!(plan.progress().totals.split > 0);
    }
}
