//! Every move's value on 7×7 k=5, timed, and the opening table built.
//!
//! `cargo run --release -p oxo-ai --example hints7 -- time [--depth D]
//! [--playouts N] [--seed S]` times `Valuer::values` (a fresh valuer a
//! position, 16 MiB tables, the shipped opening table) on every position
//! after up to D moves (up to symmetry; default 2) and on N random games
//! played out to their end (default 10), and prints the worst and median
//! times per group.
//!
//! `... -- at NOTATION [--budget N]` values one position's moves (rows
//! split by `/`) and prints the time and positions.
//!
//! `... -- build FILE [--depth D] [--keep K] [--budget N]` values every
//! position after up to D moves (up to symmetry; default 1) without the
//! shipped table, each search within N positions (no limit by default),
//! keeps every value the 64-bit solver had to decide and every value of a
//! position of at most K stones (default 2), and writes them as an opening
//! table to FILE (`scripts/build-opening-table.sh` runs this). The budget
//! counts positions, not time, so the same command writes the same bytes.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use oxo_ai::exact::{OpeningTable, Valuer};
use oxo_ai::hints::HINT_TABLE_BYTES;
use oxo_core::{Cell, Game, Rules};
use rand::seq::IndexedRandom;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == name)
            .map_or(default, |i| args[i + 1].parse().expect("a number"))
    };
    let rules = Rules::new(7, 7, 5).expect("7x7 k=5");
    match args.first().map(String::as_str) {
        Some("build") => {
            let file = args.get(1).expect("build FILE");
            build(
                rules,
                file,
                flag("--depth", 1) as usize,
                flag("--keep", 2) as usize,
                Some(flag("--budget", 0)).filter(|&b| b > 0),
            );
        }
        Some("at") => {
            let game = Game::from_notation(args.get(1).expect("at NOTATION"), 5)
                .expect("a 7x7 k=5 position, rows split by '/'");
            at(&game, Some(flag("--budget", 0)).filter(|&b| b > 0));
        }
        Some("time") | None => time(
            rules,
            flag("--depth", 2) as usize,
            flag("--playouts", 10) as usize,
            flag("--seed", 1),
            Some(flag("--budget", 0)).filter(|&b| b > 0),
        ),
        Some(other) => panic!("unknown mode {other}: time or build"),
    }
}

/// Every position after exactly `depth` moves, one per class under the
/// board's symmetries, in a fixed order.
fn positions(rules: Rules, depth: usize) -> Vec<Game> {
    let mut layer = vec![Game::new(rules)];
    for _ in 0..depth {
        let mut seen = BTreeSet::new();
        let mut next = Vec::new();
        for game in &layer {
            for cell in game.legal_moves() {
                let mut child = game.clone();
                child.play_unchecked(cell);
                if child.is_over() {
                    continue;
                }
                if seen.insert(canonical(&child)) {
                    next.push(child);
                }
            }
        }
        layer = next;
    }
    layer
}

/// The least of the position's 8 images, as its cells.
fn canonical(game: &Game) -> Vec<Option<oxo_core::Player>> {
    let n = game.rules().rows();
    (0..8)
        .map(|s| {
            (0..n * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    let (r, c) = match s {
                        0 => (r, c),
                        1 => (c, n - 1 - r),
                        2 => (n - 1 - r, n - 1 - c),
                        3 => (n - 1 - c, r),
                        4 => (r, n - 1 - c),
                        5 => (n - 1 - r, c),
                        6 => (c, r),
                        _ => (n - 1 - c, n - 1 - r),
                    };
                    game.get(Cell::new(r, c))
                })
                .collect::<Vec<_>>()
        })
        .min()
        .expect("8 images")
}

fn build(rules: Rules, file: &str, depth: usize, keep: usize, budget: Option<u64>) {
    let started = Instant::now();
    let mut valuer = Valuer::with_opening(rules, 256 << 20, None).expect("7x7 k=5");
    valuer.record_solved(keep);
    valuer.set_budget(budget);
    let mut over = 0;
    for d in 0..=depth {
        let layer = positions(rules, d);
        for (i, game) in layer.iter().enumerate() {
            // Every value found before a search ran over the budget is
            // exact and kept; the position's other values are left out.
            if valuer.values(game).is_err() {
                over += 1;
            }
            if i % 50 == 0 {
                eprintln!(
                    "depth {d}: {}/{} positions, {} solved, {:.0?}",
                    i + 1,
                    layer.len(),
                    valuer.solved_count(),
                    started.elapsed()
                );
            }
        }
    }
    let bytes = valuer.solved_table();
    let table = OpeningTable::parse(&bytes).expect("a valid table");
    std::fs::write(file, &bytes).expect("write the table");
    eprintln!(
        "{file}: {} positions, {} bytes, in {:.1?}; {over} positions valued only in part (over the budget)",
        table.len(),
        bytes.len(),
        started.elapsed()
    );
}

fn time(rules: Rules, depth: usize, playouts: usize, seed: u64, budget: Option<u64>) {
    let run = |game: &Game| -> (Duration, String) {
        let started = Instant::now();
        let mut valuer = Valuer::new(rules, HINT_TABLE_BYTES).expect("7x7 k=5");
        valuer.set_budget(budget);
        let values = match valuer.values(game) {
            Ok(values) => values,
            Err(e) => {
                let took = started.elapsed();
                if std::env::var_os("VERBOSE").is_some() {
                    eprintln!("{took:>10.1?} {e}  {}", notation(game));
                }
                return (took, format!("no answer: {e}"));
            }
        };
        let took = started.elapsed();
        if std::env::var_os("VERBOSE").is_some() {
            eprintln!("{took:>10.1?} {} nodes  {}", values.nodes, notation(game));
        }
        let wins = values
            .moves
            .iter()
            .filter(|(_, v)| v.value == oxo_ai::Value::Win)
            .count();
        let losses = values
            .moves
            .iter()
            .filter(|(_, v)| v.value == oxo_ai::Value::Loss)
            .count();
        (
            took,
            format!(
                "{} ({wins} winning, {losses} losing moves)",
                values.value.value
            ),
        )
    };
    let report = |name: &str, mut times: Vec<(Duration, String, String)>| {
        times.sort_by_key(|t| t.0);
        let Some(worst) = times.last() else { return };
        let median = times[times.len() / 2].0;
        println!(
            "{name}: {} positions, median {median:.1?}, worst {:.1?} ({}: {})",
            times.len(),
            worst.0,
            worst.1,
            worst.2
        );
    };
    for d in 0..=depth {
        let times = positions(rules, d)
            .iter()
            .map(|game| {
                let (took, what) = run(game);
                (took, notation(game), what)
            })
            .collect();
        report(&format!("after {d} moves"), times);
    }
    let mut rng = oxo_ai::rng_from_seed(seed);
    let mut times = Vec::new();
    for _ in 0..playouts {
        let mut game = Game::new(rules);
        while !game.is_over() {
            let (took, what) = run(&game);
            times.push((took, notation(&game), what));
            let moves: Vec<Cell> = game.legal_moves().collect();
            game.play_unchecked(*moves.choose(&mut rng).expect("a move"));
        }
    }
    report(&format!("{playouts} random games"), times);
}

/// Every move's value at one position, with each child's time and positions
/// (`VERBOSE` prints the children as they are valued).
fn at(game: &Game, budget: Option<u64>) {
    if std::env::var_os("VERBOSE").is_some() {
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            let started = Instant::now();
            let mut prover = oxo_ai::Prover::new(game.rules(), HINT_TABLE_BYTES).expect("7x7");
            let value = prover.value(&child);
            eprintln!(
                "  {cell}: {value:?} {:.1?} {} positions",
                started.elapsed(),
                prover.nodes()
            );
        }
    }
    let started = Instant::now();
    let mut valuer = Valuer::new(game.rules(), HINT_TABLE_BYTES).expect("7x7 k=5");
    valuer.set_budget(budget);
    match valuer.values(game) {
        Ok(values) => {
            println!(
                "{}: {} in {:.1?}, {} positions",
                notation(game),
                values.value.value,
                started.elapsed(),
                values.nodes
            );
            for (cell, valued) in values.moves {
                println!("  {cell}: {}", valued.value);
            }
        }
        Err(e) => println!("{}: {e} after {:.1?}", notation(game), started.elapsed()),
    }
}

fn notation(game: &Game) -> String {
    game.to_string().replace('\n', "/")
}
