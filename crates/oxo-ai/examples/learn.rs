//! Train a learned player by self-play and measure it.
//!
//! ```text
//! cargo run --release -p oxo-ai --example learn                       # 3x3, every figure
//! cargo run --release -p oxo-ai --example learn -- --size 4 --k 4 --episodes 200000
//! cargo run --release -p oxo-ai --example learn -- --size 5 --k 4 --seconds 180 --out m.oxo
//! ```
//!
//! Options: `--size N|RxC` (default 3), `--k K` (default: the shorter
//! side), `--episodes N` (default: 3×3 150000; else as many as `--seconds`
//! allows, measured on a short run first), `--seconds S` (a time budget:
//! without `--episodes` it sizes the run, 60 by default; given, it also
//! stops training when spent, which makes the result depend on the machine),
//! `--seed S` (default 1), `--out FILE` (save the model), `--model FILE`
//! (measure that model instead of training one), `--no-eval`
//! (train and save only), `--positions N` (positions from random games to
//! grade on boards other than 3×3, default 300), `--rate A,B` and
//! `--epsilon A,B` (the step size and exploration rate at the start and
//! end of the run), `--show-misses` (3×3: list the positions where a move
//! loses the value), `--games N` (games per seat
//! against each of 5 perfect players, 5 times that against rules;
//! default 20), `--no-grade` (skip grading moves with the solver, for
//! boards too large for it), `--scheme ID` (see `Scheme::id`; by default
//! `Scheme::for_rules`, which picks `Tallies`, id 6, for k = 5 and 6),
//! `--search-rounds N` (rounds of 1,000 games of searched self-play after
//! the episodes, `learned::refit`, for the models played inside
//! alphabeta's search; by default `RefitConfig::default_rounds`, as `oxo
//! train`: 3 for those on boards of 100 cells or more, 0 elsewhere).

use std::error::Error;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use oxo_ai::learned::{self, MatchRecord, TrainConfig};
use oxo_ai::{Learned, Model, Perfect, Random, RuleBased, Solver, StrongSolution, Value};
use oxo_core::{BoardSize, Rules};

struct Config {
    rules: Rules,
    episodes: Option<u64>,
    scheme: Option<u16>,
    seconds: Option<f64>,
    seed: u64,
    out: Option<String>,
    eval: bool,
    positions: usize,
    games: u32,
    grade: bool,
    rate: Option<(f32, f32)>,
    epsilon: Option<(f32, f32)>,
    show_misses: bool,
    /// Measure this model file instead of training one.
    model: Option<String>,
    /// Rounds of searched self-play after the episodes.
    search_rounds: Option<u32>,
}

fn parse() -> Result<Config, Box<dyn Error>> {
    let mut size = BoardSize { rows: 3, cols: 3 };
    let mut k = None;
    let mut config = Config {
        rules: Rules::default(),
        episodes: None,
        scheme: None,
        seconds: None,
        seed: 1,
        out: None,
        eval: true,
        positions: 300,
        games: 20,
        grade: true,
        rate: None,
        epsilon: None,
        show_misses: false,
        model: None,
        search_rounds: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--size" => size = value()?.parse()?,
            "--k" => k = Some(value()?.parse()?),
            "--episodes" => config.episodes = Some(value()?.parse()?),
            "--seconds" => config.seconds = Some(value()?.parse()?),
            "--scheme" => config.scheme = Some(value()?.parse()?),
            "--seed" => config.seed = value()?.parse()?,
            "--out" => config.out = Some(value()?),
            "--model" => config.model = Some(value()?),
            "--no-eval" => config.eval = false,
            "--no-grade" => config.grade = false,
            "--show-misses" => config.show_misses = true,
            "--rate" => config.rate = Some(pair(&value()?)?),
            "--epsilon" => config.epsilon = Some(pair(&value()?)?),
            "--positions" => config.positions = value()?.parse()?,
            "--games" => config.games = value()?.parse()?,
            "--search-rounds" => config.search_rounds = Some(value()?.parse()?),
            _ => return Err(format!("unknown argument {arg}").into()),
        }
    }
    config.rules = Rules::with_size(size, k)?;
    Ok(config)
}

/// `A,B` as two numbers.
fn pair(text: &str) -> Result<(f32, f32), Box<dyn Error>> {
    let (a, b) = text.split_once(',').ok_or("expected START,END")?;
    Ok((a.parse()?, b.parse()?))
}

fn record(r: &MatchRecord) -> String {
    format!(
        "as X {}W {}D {}L, as O {}W {}D {}L",
        r.as_x[0], r.as_x[1], r.as_x[2], r.as_o[0], r.as_o[1], r.as_o[2]
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    let config = parse()?;
    let rules = config.rules;
    let model = match &config.model {
        Some(path) => {
            let model = Model::load(std::io::BufReader::new(std::fs::File::open(path)?))?;
            model.check_rules(rules)?;
            println!("{rules}: the model in {path}, not trained here");
            model
        }
        None => train(&config)?,
    };
    if let Some(path) = &config.out {
        let file = std::fs::File::create(path)?;
        model.save(std::io::BufWriter::new(file))?;
        println!("saved {path} ({} bytes)", model.to_bytes().len());
    }
    if !config.eval {
        return Ok(());
    }

    let check = Instant::now();
    if rules == Rules::default() {
        let solution = StrongSolution::compute(rules)?;
        let positions = oxo_ai::learned::reachable_positions(rules);
        for seed in 0..3 {
            let share = learned::value_keeping_share(&model, &positions, seed, |g| {
                solution.get(g).map(|e| e.value)
            })?;
            println!(
                "keeps the value in {}/{} positions (tie-break seed {seed})",
                share.kept, share.graded
            );
        }
        if config.show_misses {
            let mut me = Learned::new(model.clone(), rules, 0)?;
            for g in &positions {
                let before = solution.get(g).unwrap().value;
                let cell = oxo_ai::Strategy::choose(&mut me, g).unwrap();
                let mut c = g.clone();
                c.play_unchecked(cell);
                let after = if c.is_over() {
                    None
                } else {
                    solution.get(&c).map(|e| e.value)
                };
                if before != Value::Loss
                    && c.outcome().is_none()
                    && after.map(|a| -a) != Some(before)
                {
                    println!(
                        "miss: {g} ({before}) plays {cell} -> {after:?} value {:?}",
                        model.value(&c)
                    );
                }
            }
        }
        let mut me = Learned::new(model.clone(), rules, 1)?;
        let mut random = Random::new(2);
        let r = learned::play_match(rules, &mut me, &mut random, 10_000)?;
        println!("vs random, 10000 games a seat: {}", record(&r));
        let mut total = MatchRecord::default();
        for seed in 0..20 {
            let mut me = Learned::new(model.clone(), rules, seed + 100)?;
            let mut perfect = Perfect::new(rules, seed)?;
            let r = learned::play_match(rules, &mut me, &mut perfect, 50)?;
            for i in 0..3 {
                total.as_x[i] += r.as_x[i];
                total.as_o[i] += r.as_o[i];
            }
        }
        println!(
            "vs perfect (20 seeds x 50 games a seat): {}",
            record(&total)
        );
    } else {
        if config.grade {
            let positions =
                oxo_ai::learned::sample_positions(rules, config.positions, config.seed + 1000);
            let mut solver = Solver::new(rules, 256 << 20)?;
            let share =
                learned::value_keeping_share(&model, &positions, 0, |g| solver.value(g).ok())?;
            let mut wins = 0;
            for g in &positions {
                if solver.value(g)? == Value::Win {
                    wins += 1;
                }
            }
            println!(
                "keeps the value in {}/{} positions from random games ({:.1}%; {wins} of them won)",
                share.kept,
                share.graded,
                100.0 * share.share()
            );
        }
        let mut me = Learned::new(model.clone(), rules, 1)?;
        let mut rule_based = RuleBased::new(2);
        let r = learned::play_match(rules, &mut me, &mut rule_based, config.games * 5)?;
        println!(
            "vs rules, {} games a seat: {}",
            config.games * 5,
            record(&r)
        );
        let mut random = Random::new(3);
        let r = learned::play_match(rules, &mut me, &mut random, 500)?;
        println!("vs random, 500 games a seat: {}", record(&r));
        if rules.rows().max(rules.cols()) <= oxo_ai::PERFECT_MAX_SIDE {
            let mut total = MatchRecord::default();
            for seed in 0..5 {
                let mut perfect = Perfect::new(rules, seed)?;
                let r = learned::play_match(rules, &mut me, &mut perfect, config.games)?;
                for i in 0..3 {
                    total.as_x[i] += r.as_x[i];
                    total.as_o[i] += r.as_o[i];
                }
            }
            println!(
                "vs perfect (5 seeds x {} games a seat): {}",
                config.games,
                record(&total)
            );
        }
    }
    println!("evaluated in {:.1} s", check.elapsed().as_secs_f64());
    Ok(())
}

/// Train a model as `config` says, printing the progress.
fn train(config: &Config) -> Result<Model, Box<dyn Error>> {
    let rules = config.rules;
    let episodes = match config.episodes {
        Some(n) => n,
        None if rules == Rules::default() => 150_000,
        None => {
            // Measure the pace, then fit the schedule to the budget.
            let probe = 200;
            let started = Instant::now();
            let mut probe_config = TrainConfig::new(rules, probe, config.seed);
            if let Some(scheme) = config.scheme.and_then(learned::Scheme::from_id) {
                probe_config.scheme = scheme;
            }
            learned::train(&probe_config, |_, _| ControlFlow::Continue(()));
            let per = started.elapsed().as_secs_f64() / probe as f64;
            // Games lengthen as play improves: aim at half the pace.
            ((config.seconds.unwrap_or(60.0) / per / 2.0) as u64).max(probe)
        }
    };
    let mut train_config = TrainConfig::new(rules, episodes, config.seed);
    if let Some((start, end)) = config.rate {
        (train_config.rate_start, train_config.rate_end) = (start, end);
    }
    if let Some((start, end)) = config.epsilon {
        (train_config.epsilon_start, train_config.epsilon_end) = (start, end);
    }
    if let Some(id) = config.scheme {
        train_config.scheme = learned::Scheme::from_id(id).ok_or("unknown scheme id")?;
    }
    train_config.report_every = if rules == Rules::default() { 100 } else { 5000 };
    println!(
        "{rules}: scheme {:?}, {} weights, {} tuples a position; {episodes} episodes, seed {}",
        train_config.scheme,
        Model::with_scheme(rules, train_config.scheme)
            .weights()
            .len(),
        Model::with_scheme(rules, train_config.scheme).tuple_count(),
        config.seed
    );

    // On 3×3, find when the player stops losing to random (timing only
    // the training, not these checks).
    let mut checking = Duration::ZERO;
    let mut first_clean: Option<(u64, Duration)> = None;
    let started = Instant::now();
    let model = learned::train(&train_config, |progress, model| {
        if config.eval && rules == Rules::default() && first_clean.is_none() {
            let check = Instant::now();
            let trained = check - started - checking;
            let mut me = Learned::new(model.clone(), rules, 7).unwrap();
            let mut random = Random::new(8);
            let r = learned::play_match(rules, &mut me, &mut random, 10_000).unwrap();
            if r.losses() == 0 {
                first_clean = Some((progress.episodes, trained));
            }
            checking += check.elapsed();
        }
        let spent = (started.elapsed() - checking).as_secs_f64();
        if config.seconds.is_some_and(|budget| spent > budget) {
            println!(
                "  stopped at the time budget after {} episodes",
                progress.episodes
            );
            return ControlFlow::Break(());
        }
        if rules != Rules::default() && progress.episodes % 50_000 == 0 {
            println!("  {} episodes, {:.0} s", progress.episodes, spent);
        }
        ControlFlow::Continue(())
    });
    let trained = started.elapsed() - checking;
    println!("trained in {:.2} s", trained.as_secs_f64());
    if let Some((n, t)) = first_clean {
        println!(
            "first 0 losses in 10000 games a seat vs random after {n} episodes ({:.1} ms of training)",
            t.as_secs_f64() * 1000.0
        );
    }
    let rounds = config
        .search_rounds
        .unwrap_or_else(|| learned::RefitConfig::default_rounds(rules));
    if rounds == 0 || !model.scheme().translation_invariant() {
        return Ok(model);
    }
    // The same searched self-play as `oxo train`'s (the same model on any
    // thread count).
    let mut refit = learned::RefitConfig::new(rounds, config.seed);
    refit.threads = std::thread::available_parallelism().map_or(1, usize::from);
    let started = Instant::now();
    let model = learned::refit(
        &model,
        &refit,
        |_| {},
        |round, _| {
            let [x, o, draws] = round.results;
            println!(
                "  searched round {}: {x} X wins, {o} O wins, {draws} draws; {} positions, error {:.4} -> {:.4}; {:.0} s",
                round.round,
                round.positions,
                round.error.0,
                round.error.1,
                started.elapsed().as_secs_f64()
            );
            ControlFlow::Continue(())
        },
    )?;
    Ok(model)
}
