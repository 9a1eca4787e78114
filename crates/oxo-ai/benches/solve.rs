//! Solve times for empty boards: `cargo bench -p oxo-ai --bench solve`.
//!
//! Prints, for each board, the value for the first player, the time and the
//! positions searched for the win/draw/loss value, and (where asked) for the
//! full evaluation with distance. Pass board names to run only those, for
//! example `cargo bench -p oxo-ai --bench solve -- 6x6k5 7x7k5`; the default
//! set leaves out the boards that take minutes or more. The table is 64 MiB,
//! as in `oxo solve`; `OXO_TABLE_MB` sets another size.

use std::time::Instant;

use oxo_ai::Solver;
use oxo_core::{Game, Rules};

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
    println!("empty-board solves, {table_mb} MiB table, one thread");
    println!(
        "{:<10} {:>6} {:>12} {:>14}",
        "board", "value", "time", "positions"
    );
    for (rows, cols, k) in boards {
        let rules = Rules::new(rows, cols, k).unwrap();
        let mut solver = Solver::new(rules, table).unwrap();
        let start = Instant::now();
        let value = solver.value(&Game::new(rules)).unwrap();
        let time = start.elapsed();
        println!(
            "{:<10} {:>6} {:>10.3} ms {:>14}",
            format!("{rows}x{cols} k={k}"),
            value.as_str(),
            time.as_secs_f64() * 1e3,
            solver.nodes()
        );
    }
}
