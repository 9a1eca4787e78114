//! The prover against the 64-bit solver on empty boards:
//! `cargo bench -p oxo-ai --bench prove`.
//!
//! For each board: the value by `Prover::value` with its time and
//! positions, by `Solver::value` (which asks the prover first), and by the
//! solver's alpha-beta search alone (`Solver::value_by_search`, what
//! `Solver::value` was before it asked the prover) in the same run, and
//! the ratios of the alpha-beta search's time to the other two; each figure
//! from a fresh prover or solver with a 64 MiB table (`OXO_TABLE_MB` sets
//! another size). Name boards to pick them (`-- 7x7k5 8x8k5`; the default
//! set leaves out 7×7 k=5, whose alpha-beta search takes minutes); `--budget N`
//! caps the positions of each call (a board over budget prints so);
//! `--no-solver` leaves the solver out (boards beyond its 64 bits are
//! always left out). Besides the value, each board prints the two
//! Maker–Breaker questions the value is made of ("can X force a line
//! against a blocker", "can O") with their times and positions.

use std::time::Instant;

use oxo_ai::{Prover, Solver};
use oxo_core::{Game, Player, Rules};

const DEFAULT: &[(u32, u32, u32)] = &[
    (3, 3, 3),
    (4, 4, 3),
    (4, 4, 4),
    (5, 4, 4),
    (5, 5, 4),
    (6, 5, 4),
    (6, 6, 4),
    (5, 5, 5),
    (6, 6, 5),
    (7, 7, 4),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_solver = args.iter().any(|a| a == "--no-solver");
    let budget: Option<u64> = args
        .iter()
        .position(|a| a == "--budget")
        .map(|i| args[i + 1].parse().expect("--budget takes a number"));
    let boards: Vec<(u32, u32, u32)> = args
        .iter()
        .filter(|a| a.contains('k') && a.contains('x'))
        .map(|a| {
            let (size, k) = a.split_once('k').expect("boards look like 6x6k5");
            let (r, c) = size.split_once('x').expect("boards look like 6x6k5");
            (r.parse().unwrap(), c.parse().unwrap(), k.parse().unwrap())
        })
        .collect();
    let boards = if boards.is_empty() {
        DEFAULT.to_vec()
    } else {
        boards
    };
    let table_mb: usize = std::env::var("OXO_TABLE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let table = table_mb << 20;
    // Warm up (the process's first allocations and page faults), so that
    // the first board's figures are the search's own.
    Prover::new(Rules::TIC_TAC_TOE, table)
        .unwrap()
        .value(&Game::new(Rules::TIC_TAC_TOE))
        .unwrap();
    Solver::new(Rules::TIC_TAC_TOE, table)
        .unwrap()
        .value(&Game::new(Rules::TIC_TAC_TOE))
        .unwrap();
    println!("empty-board values, {table_mb} MiB table, one thread, a fresh prover or solver each");
    println!(
        "{:<10} {:>6} {:>12} {:>11} | {:>12} {:>11} | {:>13} {:>11} {:>8} {:>8} | {:>11} {:>10} | {:>11} {:>10}",
        "board",
        "value",
        "Prover",
        "positions",
        "Solver",
        "positions",
        "alpha-beta",
        "positions",
        "ratio P",
        "ratio S",
        "X maker",
        "positions",
        "O maker",
        "positions"
    );
    for (rows, cols, k) in boards {
        let rules = Rules::new(rows, cols, k).unwrap();
        let game = Game::new(rules);
        let mut prover = Prover::new(rules, table).unwrap();
        prover.set_budget(budget);
        let start = Instant::now();
        // Beyond the solver's boards the bench asks only the two one-sided
        // questions below (a real-game win there can take the prover long).
        let value = if Solver::can_solve(rules) {
            prover.value(&game).map_err(|e| e.to_string())
        } else {
            Err("not asked beyond 64 cells".to_owned())
        };
        let prover_time = start.elapsed();
        let shown = match &value {
            Ok(v) => v.as_str().to_owned(),
            Err(e) => format!("({e})"),
        };
        print!(
            "{:<10} {:>6} {:>9.3} ms {:>11}",
            format!("{rows}x{cols} k={k}"),
            if value.is_ok() { &shown } else { "?" },
            prover_time.as_secs_f64() * 1e3,
            prover.nodes()
        );
        if !no_solver && Solver::can_solve(rules) {
            // The solver as `oxo solve --value` uses it (the proof search
            // first), then its alpha-beta search alone.
            let mut solver = Solver::new(rules, table).unwrap();
            solver.set_budget(budget);
            let start = Instant::now();
            let now = solver.value(&game);
            let now_time = start.elapsed();
            let now_nodes = solver.nodes();
            let mut solver = Solver::new(rules, table).unwrap();
            solver.set_budget(budget);
            let start = Instant::now();
            let old = solver.value_by_search(&game);
            let solver_time = start.elapsed();
            if let (Ok(new), Ok(old)) = (&value, &old) {
                assert_eq!(new, old, "the prover and the solver disagree on {rules}");
            }
            if let (Ok(now), Ok(old)) = (&now, &old) {
                assert_eq!(now, old, "Solver::value and its search disagree on {rules}");
            }
            print!(
                " | {:>9.3} ms {:>11} | {:>10.3} ms {:>11} {:>7.2}x {:>7.2}x",
                now_time.as_secs_f64() * 1e3,
                now_nodes,
                solver_time.as_secs_f64() * 1e3,
                solver.nodes(),
                solver_time.as_secs_f64() / prover_time.as_secs_f64(),
                solver_time.as_secs_f64() / now_time.as_secs_f64(),
            );
        } else {
            print!(
                " | {:>12} {:>11} | {:>13} {:>11} {:>8} {:>8}",
                "-", "-", "-", "-", "-", "-"
            );
        }
        for maker in [Player::X, Player::O] {
            let mut prover = Prover::new(rules, table).unwrap();
            prover.set_budget(budget);
            let start = Instant::now();
            let wins = prover.maker_wins(&game, maker);
            let time = start.elapsed();
            let said = match wins {
                Ok(true) => "forces",
                Ok(false) => "cannot",
                Err(_) => "?",
            };
            print!(
                " | {said:>6} {:>6.0}ms {:>10}",
                time.as_secs_f64() * 1e3,
                prover.nodes()
            );
            std::io::Write::flush(&mut std::io::stdout()).unwrap();
            if std::env::var_os("OXO_PROVER_STATS").is_some() {
                eprintln!("{maker} as the Maker: {:?}", prover.stats());
            }
        }
        println!();
        if std::env::var_os("OXO_PROVER_STATS").is_some() {
            println!("           {:?}", prover.stats());
        }
        if let (true, Err(e)) = (Solver::can_solve(rules), value) {
            println!("           {e}");
        }
    }
}
