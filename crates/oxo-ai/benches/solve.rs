//! Solve times for empty boards: `cargo bench -p oxo-ai --bench solve`.
//!
//! Prints, for each board, the value for the first player with the time and
//! the positions searched for the win/draw/loss value alone, then for the
//! full analysis (`Solver::analyse`: the value and distance of every move,
//! what `oxo solve` prints), and, as the baseline in the same run, for the
//! same figures found the plain way, `Solver::evaluate` on the board and
//! then on each move's position, with the ratio of the two times. Each
//! figure comes from a fresh solver. Pass board names to run only those,
//! for example `cargo bench -p oxo-ai --bench solve -- 6x6k5 7x7k5`; the
//! default set leaves out the boards that take minutes or more, and
//! `--value-only` skips the analyses. The table is 64 MiB, as in
//! `oxo solve`; `OXO_TABLE_MB` sets another size.

use std::time::Instant;

use oxo_ai::{Eval, Solver};
use oxo_core::{Cell, Game, Rules};

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
];

fn main() {
    let value_only = std::env::args().any(|a| a == "--value-only");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let boards: Vec<(u32, u32, u32)> = if args.is_empty() {
        DEFAULT.to_vec()
    } else {
        args.iter()
            .map(|a| {
                let (size, k) = a.split_once('k').expect("boards look like 6x6k5");
                let (r, c) = size.split_once('x').expect("boards look like 6x6k5");
                (r.parse().unwrap(), c.parse().unwrap(), k.parse().unwrap())
            })
            .collect()
    };
    let table_mb: usize = std::env::var("OXO_TABLE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let table = table_mb << 20;
    println!("empty-board solves, {table_mb} MiB table, one thread, a fresh solver each");
    println!(
        "{:<10} {:>6} {:>12} {:>12} | {:>12} {:>12} | {:>12} {:>12} {:>7}",
        "board",
        "value",
        "value time",
        "positions",
        "analysis",
        "positions",
        "per move",
        "positions",
        "ratio"
    );
    for (rows, cols, k) in boards {
        let rules = Rules::new(rows, cols, k).unwrap();
        let game = Game::new(rules);
        let mut solver = Solver::new(rules, table).unwrap();
        let start = Instant::now();
        let value = solver.value(&game).unwrap();
        let value_time = start.elapsed();
        print!(
            "{:<10} {:>6} {:>9.3} ms {:>12}",
            format!("{rows}x{cols} k={k}"),
            value.as_str(),
            value_time.as_secs_f64() * 1e3,
            solver.nodes()
        );
        if value_only {
            println!();
            continue;
        }
        // The full analysis...
        let mut solver = Solver::new(rules, table).unwrap();
        let start = Instant::now();
        let analysis = solver.analyse(&game).unwrap();
        let time = start.elapsed();
        print!(
            " | {:>9.3} ms {:>12}",
            time.as_secs_f64() * 1e3,
            analysis.nodes
        );
        // ...and the baseline: the board, then each move, evaluated alone
        // (one solver, so its table carries over as in the analysis).
        let mut solver = Solver::new(rules, table).unwrap();
        let start = Instant::now();
        let eval = solver.evaluate(&game).unwrap();
        let mut moves: Vec<(Cell, Eval)> = game
            .legal_moves()
            .map(|cell| {
                let mut child = game.clone();
                child.play(cell).unwrap();
                (cell, solver.evaluate(&child).unwrap().parent())
            })
            .collect();
        let baseline = start.elapsed();
        moves.sort_by_key(|&(_, e)| std::cmp::Reverse(e));
        assert_eq!(
            (eval, moves),
            (analysis.eval, analysis.moves),
            "the analysis and the baseline disagree on {rows}x{cols} k={k}"
        );
        println!(
            " | {:>9.3} ms {:>12} {:>6.2}x",
            baseline.as_secs_f64() * 1e3,
            solver.nodes(),
            baseline.as_secs_f64() / time.as_secs_f64()
        );
    }
}
