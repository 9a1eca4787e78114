//! Every move's value on 7×7 k=5, timed, and the opening table built.
//!
//! `cargo run --release -p oxo-ai --example hints7 -- time [--depth D]
//! [--sample M] [--playouts N] [--seed S]` times `Valuer::some_values` as
//! hints call it (a fresh valuer a position, 16 MiB tables, the shipped
//! opening table) on every position after up to D moves (up to symmetry;
//! default 2; with M, only on M of those after D moves, drawn with S) and
//! on N random games played out to their end (default 10), and
//! prints the worst and median times per group, and how many positions
//! lack some move's value (and how many of their moves have theirs).
//!
//! `... -- at NOTATION [--budget N]` values one position's moves (rows
//! split by `/`) and prints the time and positions, and where the budget
//! runs out, the moves `Valuer::some_values` values (`VERBOSE` also asks,
//! after each move, whether the player to move forces a line against a
//! blocker and each side's real-game question, a fresh prover each);
//! `... -- force NOTATION [--budget N]` asks only whether the player to
//! move forces a win. `... -- again NOTATION [--budget N] [--asks A]`
//! asks one valuer for the position's hints up to A times (default 10), as
//! a server's pooled valuer would be asked, and prints how many moves each
//! ask values.
//!
//! `... -- list [--depth D] [--sample N] [--playouts P] [--seed S]` prints
//! N positions drawn from those after D moves (all when N is 0; default
//! depth 3) and every position of P random games, one a line, to time
//! one at a time with `at` and two builds alternated.
//!
//! `... -- build FILE [--depth D] [--budget N] [--forced F | --forced-list
//! LIST] [--forced-budget M] [--threads T] [--known TABLE]... [--partial
//! PREFIX]` values every move of every position after up to D
//! moves (up to symmetry; default 2) without the shipped table, each
//! position within N positions of search (no limit by default), and, with
//! `--forced`, of every position after F moves where the side that just
//! moved forces a line against a mere blocker if it moves again (the pass
//! test of `Valuer` fails there, so each move needs proofs of its own),
//! each of those after the layers of up to D moves, by a fresh valuer with
//! those layers as its table (never the shipped table, so that a rebuild
//! reads none of its own answers) within M
//! positions (no limit by default), on T threads (default 1); and writes
//! them as an opening table to FILE (`scripts/build-opening-table.sh` runs
//! this). Positions over their budget are left out. Budgets count
//! positions, not time, every value is exact, and no position's search
//! depends on another's, so the same command writes the same bytes
//! whatever the thread count. `--known TABLE` takes every position TABLE
//! holds from it instead of searching it again (to finish an earlier
//! build; the values are the same, so are the bytes; the flag may come
//! more than once). `--forced-list LIST` values the positions of LIST (one
//! a line, rows split by `/`; `#` starts a comment) instead of those after
//! F moves; given more than once, the positions of every list. With `--partial PREFIX`, as each of those is done,
//! `PREFIX.txt` gains a line and `PREFIX.bin` holds the ones valued so far,
//! to give `--known` if the build is stopped.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oxo_ai::Value;
use oxo_ai::exact::{OpeningTable, Valuer, read_list};
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
    // Every flag takes a value.
    if let Some(last) = args.last().filter(|a| a.starts_with("--")) {
        panic!("{last} needs a value");
    }
    // Every value given to a flag that may come more than once.
    let values_of = |name: &'static str| {
        args.windows(2)
            .filter(move |pair| pair[0] == name)
            .map(|pair| pair[1].as_str())
    };
    let rules = Rules::new(7, 7, 5).expect("7x7 k=5");
    match args.first().map(String::as_str) {
        Some("build") => {
            let file = args.get(1).expect("build FILE");
            let options = Build {
                depth: flag("--depth", 2) as usize,
                budget: Some(flag("--budget", 0)).filter(|&b| b > 0),
                forced: Some(flag("--forced", 0) as usize).filter(|&d| d > 0),
                forced_budget: Some(flag("--forced-budget", 0)).filter(|&b| b > 0),
                threads: flag("--threads", 1).max(1) as usize,
                known: values_of("--known")
                    .map(|path| {
                        let bytes = std::fs::read(path).expect("read the known table");
                        OpeningTable::parse(&bytes).expect("a valid table")
                    })
                    .collect(),
                partial: values_of("--partial").next_back().map(str::to_owned),
                forced_list: {
                    // Each list's positions, in the order given.
                    let lists: Vec<Vec<Game>> = values_of("--forced-list")
                        .map(|path| {
                            let text = std::fs::read_to_string(path).expect("read the forced list");
                            read_list(&text, rules).unwrap_or_else(|e| panic!("{path}: {e}"))
                        })
                        .collect();
                    (!lists.is_empty()).then(|| lists.concat())
                },
            };
            build(rules, file, &options);
        }
        Some("at") => {
            let game = Game::from_notation(args.get(1).expect("at NOTATION"), 5)
                .expect("a 7x7 k=5 position, rows split by '/'");
            at(&game, Some(flag("--budget", 0)).filter(|&b| b > 0));
        }
        Some("again") => {
            let game = Game::from_notation(args.get(1).expect("again NOTATION"), 5)
                .expect("a 7x7 k=5 position, rows split by '/'");
            again(&game, flag("--budget", 300_000), flag("--asks", 10));
        }
        Some("force") => {
            let game = Game::from_notation(args.get(1).expect("force NOTATION"), 5)
                .expect("a 7x7 k=5 position, rows split by '/'");
            let started = Instant::now();
            let mut prover = oxo_ai::Prover::new(rules, HINT_TABLE_BYTES).expect("7x7");
            prover.set_budget(Some(flag("--budget", 0)).filter(|&b| b > 0));
            let forces = prover.can_force(&game, game.to_move());
            println!(
                "{} to move forces a win: {forces:?} in {:.1?}, {} positions; {:?}",
                game.to_move(),
                started.elapsed(),
                prover.nodes(),
                prover.stats()
            );
        }
        Some("list") => {
            for game in list(
                rules,
                flag("--depth", 3) as usize,
                flag("--sample", 0) as usize,
                flag("--playouts", 0) as usize,
                flag("--seed", 1),
            ) {
                println!("{}", notation(&game));
            }
        }
        Some("time") | None => time(
            rules,
            flag("--depth", 2) as usize,
            flag("--sample", 0) as usize,
            flag("--playouts", 10) as usize,
            flag("--seed", 1),
            Some(flag("--budget", 0)).filter(|&b| b > 0),
        ),
        Some(other) => panic!("unknown mode {other}: time, at, again, force, list or build"),
    }
}

/// `sample` positions after `depth` moves (up to symmetry; all of them
/// when 0) drawn with `seed`, then every position of `playouts` random
/// games, for timing one position at a time (`at`) with two builds.
fn list(rules: Rules, depth: usize, sample: usize, playouts: usize, seed: u64) -> Vec<Game> {
    let mut rng = oxo_ai::rng_from_seed(seed);
    let layer = positions(rules, depth);
    let mut games: Vec<Game> = if sample == 0 {
        layer
    } else {
        layer.sample(&mut rng, sample).cloned().collect()
    };
    for _ in 0..playouts {
        let mut game = Game::new(rules);
        while !game.is_over() {
            games.push(game.clone());
            let moves: Vec<Cell> = game.legal_moves().collect();
            game.play_unchecked(*moves.choose(&mut rng).expect("a move"));
        }
    }
    games
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

type Entry = (Game, Vec<(Cell, Value)>);

/// What `build` values (see the module doc's flags).
struct Build {
    depth: usize,
    budget: Option<u64>,
    forced: Option<usize>,
    forced_budget: Option<u64>,
    threads: usize,
    /// Tables whose positions are taken as they are.
    known: Vec<OpeningTable>,
    /// The forced layer's positions, instead of those of `forced` moves
    /// that fail the pass test.
    forced_list: Option<Vec<Game>>,
    /// Where the forced layer keeps its log and partial table.
    partial: Option<String>,
}

/// `entries` as a table.
fn table_of(rules: Rules, entries: &[Entry]) -> OpeningTable {
    OpeningTable::parse(&OpeningTable::to_bytes(rules, entries)).expect("a valid table")
}

/// The moves of `game` from the first of `tables` that holds it.
fn known_moves(tables: &[OpeningTable], game: &Game) -> Option<Vec<(Cell, Value)>> {
    tables.iter().find_map(|table| table.moves(game))
}

fn build(rules: Rules, file: &str, options: &Build) {
    let Build {
        depth,
        budget,
        forced,
        forced_budget,
        threads,
        ref known,
        ref forced_list,
        ref partial,
    } = *options;
    let started = Instant::now();
    let mut entries: Vec<Entry> = Vec::new();
    let mut over = Vec::new();
    // The deepest positions first: each shallower layer's moves are then
    // valued from the entries already found.
    for d in (0..=depth).rev() {
        let mut valuer = Valuer::with_opening(rules, 256 << 20, Some(table_of(rules, &entries)))
            .expect("7x7 k=5");
        valuer.set_budget(budget);
        let layer = positions(rules, d);
        for (i, game) in layer.iter().enumerate() {
            // A position whose search ran over the budget is left out.
            if let Some(moves) = known_moves(known, game) {
                entries.push((game.clone(), moves));
                continue;
            }
            match valuer.values(game) {
                Ok(values) => entries.push((
                    game.clone(),
                    values.moves.iter().map(|&(c, v)| (c, v.value)).collect(),
                )),
                Err(_) => over.push(notation(game)),
            }
            if i % 25 == 0 {
                eprintln!(
                    "depth {d}: {}/{} positions, {:.0?}",
                    i + 1,
                    layer.len(),
                    started.elapsed()
                );
            }
        }
    }
    // Then the forced layer, its valuers given the layers just built (and
    // never the shipped table, so that a rebuild reads none of its answers).
    let hard = match (forced_list, forced) {
        (Some(list), _) => Some(list.clone()),
        (None, Some(d)) => Some(failing_the_pass_test(rules, d)),
        (None, None) => None,
    };
    if let Some(hard) = hard {
        let early = table_of(rules, &entries);
        let (found, left_out) = forced_layer(
            rules,
            &hard,
            &early,
            partial.as_deref(),
            threads,
            forced_budget,
            known,
        );
        eprintln!(
            "{} positions where the last mover forces a line if it moves again, \
             {} over the budget, {:.0?}",
            found.len() + left_out.len(),
            left_out.len(),
            started.elapsed()
        );
        entries.extend(found);
        over.extend(left_out);
    }
    let bytes = OpeningTable::to_bytes(rules, &entries);
    let table = OpeningTable::parse(&bytes).expect("a valid table");
    std::fs::write(file, &bytes).expect("write the table");
    eprintln!(
        "{file}: {} positions, {} bytes, in {:.1?}; {} positions left out (over the budget){}",
        table.len(),
        bytes.len(),
        started.elapsed(),
        over.len(),
        over.iter().map(|p| format!("\n  {p}")).collect::<String>()
    );
}

/// The positions after `depth` moves where the side that just moved
/// forces a line against a mere blocker if it moves again.
fn failing_the_pass_test(rules: Rules, depth: usize) -> Vec<Game> {
    let mut prover = oxo_ai::Prover::new(rules, 64 << 20).expect("7x7");
    let hard: Vec<Game> = positions(rules, depth)
        .into_iter()
        .filter(|game| {
            prover
                .maker_wins_moving(game, game.to_move().other(), true)
                .expect("no budget")
        })
        .collect();
    eprintln!("after {depth} moves: {} positions to value", hard.len());
    hard
}

/// Every move's value at each of the `hard` positions, each valued by a
/// fresh valuer with the `early` table within `budget`, on `threads`
/// threads, in the list's order; and the positions over the budget. With
/// a `partial` prefix, as each position is done, `PREFIX.txt` gains a line
/// (`valued` or `over`, and the position) and `PREFIX.bin` is rewritten as
/// a table of those valued so far, to give `--known` after a stop.
fn forced_layer(
    rules: Rules,
    hard: &[Game],
    early: &OpeningTable,
    partial: Option<&str>,
    threads: usize,
    budget: Option<u64>,
    known: &[OpeningTable],
) -> (Vec<Entry>, Vec<String>) {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Entry, String>>>> = Mutex::new(vec![None; hard.len()]);
    let log = Mutex::new(partial.map(|prefix| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(format!("{prefix}.txt"))
            .expect("open the forced layer's log")
    }));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(game) = hard.get(i) else { break };
                    let result = match known_moves(known, game) {
                        Some(moves) => Ok((game.clone(), moves)),
                        None => {
                            let mut valuer =
                                Valuer::with_opening(rules, 64 << 20, Some(early.clone()))
                                    .expect("7x7 k=5");
                            valuer.set_budget(budget);
                            match valuer.values(game) {
                                Ok(values) => Ok((
                                    game.clone(),
                                    values.moves.iter().map(|&(c, v)| (c, v.value)).collect(),
                                )),
                                Err(_) => Err(notation(game)),
                            }
                        }
                    };
                    let mut log = log.lock().expect("no thread panics");
                    let mut results = results.lock().expect("no thread panics");
                    let line = match &result {
                        Ok(_) => format!("valued {}", notation(game)),
                        Err(position) => format!("over {position}"),
                    };
                    results[i] = Some(result);
                    if let (Some(prefix), Some(log)) = (partial, log.as_mut()) {
                        let valued: Vec<Entry> = results
                            .iter()
                            .filter_map(|r| r.as_ref().and_then(|r| r.as_ref().ok()).cloned())
                            .collect();
                        // Renamed into place, so that a stop never
                        // leaves half a table.
                        let bin = format!("{prefix}.bin");
                        std::fs::write(
                            format!("{bin}.new"),
                            OpeningTable::to_bytes(rules, &valued),
                        )
                        .expect("write the partial table");
                        std::fs::rename(format!("{bin}.new"), &bin)
                            .expect("write the partial table");
                        writeln!(log, "{line}").expect("write the forced layer's log");
                    }
                    let done = results.iter().filter(|r| r.is_some()).count();
                    eprintln!("forced layer: {done}/{} done, {line}", hard.len());
                }
            });
        }
    });
    let mut found = Vec::new();
    let mut over = Vec::new();
    for result in results.into_inner().expect("no thread panics") {
        match result.expect("every position valued") {
            Ok(entry) => found.push(entry),
            Err(position) => over.push(position),
        }
    }
    (found, over)
}

/// One position's time, its notation, what was found, and where not every
/// move has its value, its moves and how many were valued.
type Timed = (Duration, String, String, Option<(usize, usize)>);

fn time(
    rules: Rules,
    depth: usize,
    sample: usize,
    playouts: usize,
    seed: u64,
    budget: Option<u64>,
) {
    // The time, what was found, and for a position without every move's
    // value, its moves and how many of them were valued.
    let run = |game: &Game| -> (Duration, String, Option<(usize, usize)>) {
        let started = Instant::now();
        let mut valuer = Valuer::new(rules, HINT_TABLE_BYTES).expect("7x7 k=5");
        valuer.set_budget(budget);
        let values = valuer.some_values(game).expect("7x7 k=5 positions");
        let took = started.elapsed();
        let verbose = std::env::var_os("VERBOSE").is_some();
        if !values.is_complete() {
            let moves = values.moves.len() + values.unvalued.len();
            if verbose {
                eprintln!(
                    "{took:>10.1?} {} of {moves} moves valued  {}",
                    values.moves.len(),
                    notation(game)
                );
            }
            let what = format!("no answer: {} of {moves} moves valued", values.moves.len());
            return (took, what, Some((moves, values.moves.len())));
        }
        if verbose {
            eprintln!("{took:>10.1?} {} nodes  {}", values.nodes, notation(game));
        }
        let count = |value| {
            values
                .moves
                .iter()
                .filter(|(_, v)| v.value == value)
                .count()
        };
        let what = match values.moves.first() {
            Some((_, best)) => format!(
                "{} ({} winning, {} losing moves)",
                best.value,
                count(Value::Win),
                count(Value::Loss)
            ),
            None => "over".to_owned(),
        };
        (took, what, None)
    };
    let report = |name: &str, mut times: Vec<Timed>| {
        times.sort_by_key(|t| t.0);
        let Some(worst) = times.last() else { return };
        let median = times[times.len() / 2].0;
        let slow = times
            .iter()
            .filter(|t| t.0 > Duration::from_secs(1))
            .count();
        let (unanswered, moves, valued) = times
            .iter()
            .filter_map(|t| t.3)
            .fold((0, 0, 0), |(n, m, v), (moves, valued)| {
                (n + 1, m + moves, v + valued)
            });
        println!(
            "{name}: {} positions, median {median:.1?}, worst {:.1?} ({}: {}); \
             {slow} over 1 s, {unanswered} without every move's exact value \
             ({valued} of their {moves} moves valued)",
            times.len(),
            worst.0,
            worst.1,
            worst.2
        );
    };
    let mut rng = oxo_ai::rng_from_seed(seed);
    // With a sample, only the deepest layer, drawn as `list` draws it.
    let first = if sample > 0 { depth } else { 0 };
    for d in first..=depth {
        let layer = positions(rules, d);
        let total = layer.len();
        let games: Vec<&Game> = if sample > 0 {
            layer.sample(&mut rng, sample).collect()
        } else {
            layer.iter().collect()
        };
        let times = games
            .into_iter()
            .map(|game| {
                let (took, what, some) = run(game);
                (took, notation(game), what, some)
            })
            .collect();
        let name = if sample > 0 {
            format!("after {d} moves (a sample of {total})")
        } else {
            format!("after {d} moves")
        };
        report(&name, times);
    }
    let mut times = Vec::new();
    for _ in 0..playouts {
        let mut game = Game::new(rules);
        while !game.is_over() {
            let (took, what, some) = run(&game);
            times.push((took, notation(&game), what, some));
            let moves: Vec<Cell> = game.legal_moves().collect();
            game.play_unchecked(*moves.choose(&mut rng).expect("a move"));
        }
    }
    report(&format!("{playouts} random games"), times);
}

/// Hints asked again and again of one valuer (as a server's pooled one
/// is): the moves valued after each ask, and the positions it took.
fn again(game: &Game, budget: u64, asks: u64) {
    let mut valuer = Valuer::new(game.rules(), HINT_TABLE_BYTES).expect("7x7 k=5");
    valuer.set_budget(Some(budget));
    let mut known = BTreeSet::new();
    for ask in 1..=asks {
        let started = Instant::now();
        let some = valuer.some_values(game).expect("7x7 k=5 positions");
        known.extend(some.moves.iter().map(|(cell, _)| (cell.row, cell.col)));
        let moves = some.moves.len() + some.unvalued.len();
        println!(
            "ask {ask}: {} of {moves} valued ({} with the asks before), {} positions, {:.1?}",
            some.moves.len(),
            known.len(),
            some.nodes,
            started.elapsed()
        );
        if some.unvalued.is_empty() {
            break;
        }
    }
}

/// Every move's value at one position, with each child's time and positions
/// (`VERBOSE` prints the children as they are valued).
fn at(game: &Game, budget: Option<u64>) {
    if std::env::var_os("VERBOSE").is_some() {
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            // Each side's real-game question on its own, a fresh prover
            // each.
            let mut line = format!("  {cell}:");
            // The Maker-Breaker question alone, for the player to move.
            let started = Instant::now();
            let mut prover = oxo_ai::Prover::new(game.rules(), HINT_TABLE_BYTES).expect("7x7");
            prover.set_budget(budget);
            let line_forced = prover.maker_wins(&child, child.to_move());
            line += &format!(
                " {} forces a line {line_forced:?} {:.1?} {} positions;",
                child.to_move(),
                started.elapsed(),
                prover.nodes()
            );
            for side in [child.to_move(), game.to_move()] {
                let started = Instant::now();
                let mut prover = oxo_ai::Prover::new(game.rules(), HINT_TABLE_BYTES).expect("7x7");
                prover.set_budget(budget);
                let forces = prover.can_force(&child, side);
                line += &format!(
                    " {side} forces {forces:?} {:.1?} {} positions;",
                    started.elapsed(),
                    prover.nodes()
                );
            }
            eprintln!("{line}");
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
        Err(e) => {
            println!("{}: {e} after {:.1?}", notation(game), started.elapsed());
            // What hints show instead: the moves a second pass reaches.
            let started = Instant::now();
            let mut valuer = Valuer::new(game.rules(), HINT_TABLE_BYTES).expect("7x7 k=5");
            valuer.set_budget(budget);
            let some = valuer.some_values(game).expect("7x7 k=5 positions");
            println!(
                "some values: {} of {} moves in {:.1?}, {} positions",
                some.moves.len(),
                some.moves.len() + some.unvalued.len(),
                started.elapsed(),
                some.nodes
            );
            for (cell, valued) in some.moves {
                println!("  {cell}: {}", valued.value);
            }
            let unvalued: Vec<String> = some.unvalued.iter().map(Cell::to_string).collect();
            println!("  unvalued: {}", unvalued.join(" "));
        }
    }
}

fn notation(game: &Game) -> String {
    game.to_string().replace('\n', "/")
}
