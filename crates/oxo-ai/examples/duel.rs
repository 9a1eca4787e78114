//! Play two strategies against each other, swapping colours every game, and
//! report the score and the time each took per move.
//!
//! ```text
//! cargo run --release -p oxo-ai --example duel -- alphabeta rules --size 15 --k 5 --games 20
//! ```
//!
//! Options: `--size N|RxC` (default 15), `--k K` (default 5), `--games N`
//! (default 20), `--seed S` (default 1; game `i` seeds its players from
//! `S + i`), `--budget N` or `--budget A,B` (nodes per move for
//! `alphabeta` and for `learned` on the boards where it searches inside
//! alphabeta's search, the same for both players or one each), `--opening N`
//! (default 0: start each pair of games from the same N random moves, so
//! that deterministic players meet in more than one game), `--model FILE`
//! (the model `learned` plays, instead of the built-in one), `--show`
//! (print each finished board).

use std::error::Error;
use std::time::{Duration, Instant};

use oxo_ai::{AlphaBeta, Learned, Model, Random, Strategy, StrategyKind};
use oxo_core::{BoardSize, Game, Outcome, Player, Rules};

struct Config {
    players: [StrategyKind; 2],
    rules: Rules,
    games: u64,
    seed: u64,
    budgets: [Option<u64>; 2],
    opening: u32,
    model: Option<Model>,
    show: bool,
}

fn parse() -> Result<Config, Box<dyn Error>> {
    let mut names = Vec::new();
    let mut size = BoardSize { rows: 15, cols: 15 };
    let (mut k, mut games, mut seed, mut budgets, mut opening) = (5, 20, 1, [None, None], 0);
    let (mut model, mut show) = (None, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--size" => size = value()?.parse()?,
            "--k" => k = value()?.parse()?,
            "--games" => games = value()?.parse()?,
            "--seed" => seed = value()?.parse()?,
            "--opening" => opening = value()?.parse()?,
            "--model" => model = Some(Model::load(std::fs::File::open(value()?)?)?),
            "--show" => show = true,
            "--budget" => {
                let text = value()?;
                let (a, b) = text.split_once(',').unwrap_or((&text, &text));
                budgets = [Some(a.parse()?), Some(b.parse()?)];
            }
            _ => names.push(arg.parse::<StrategyKind>()?),
        }
    }
    let [a, b] = names[..] else {
        return Err("name two strategies, such as: alphabeta rules".into());
    };
    Ok(Config {
        players: [a, b],
        rules: Rules::with_size(size, Some(k))?,
        games,
        seed,
        budgets,
        opening,
        model,
        show,
    })
}

fn build(config: &Config, index: usize, seed: u64) -> Result<Box<dyn Strategy>, Box<dyn Error>> {
    let kind = config.players[index];
    Ok(match (kind, config.budgets[index]) {
        (StrategyKind::AlphaBeta, Some(nodes)) => Box::new(AlphaBeta::new(seed).with_budget(nodes)),
        (StrategyKind::Learned, budget) => {
            let model = match &config.model {
                Some(model) if model.rules() != config.rules => model.transfer(config.rules)?,
                Some(model) => model.clone(),
                None => oxo_ai::learned::builtin_model(config.rules)
                    .ok_or("no built-in model for this board")?,
            };
            let learned = Learned::new(model, config.rules, seed)?;
            match budget {
                Some(nodes) => Box::new(learned.with_budget(nodes)),
                None => Box::new(learned),
            }
        }
        _ => kind.build(config.rules, seed)?,
    })
}

/// Per strategy: wins, losses, draws, and the time spent choosing.
#[derive(Default)]
struct Tally {
    wins: u64,
    losses: u64,
    draws: u64,
    moves: u64,
    thinking: Duration,
    slowest: Duration,
}

fn main() -> Result<(), Box<dyn Error>> {
    let config = parse()?;
    let mut tallies = [Tally::default(), Tally::default()];
    for i in 0..config.games {
        // Player `a` (index 0) is X in even games.
        let x_index = (i % 2) as usize;
        let seed = config.seed + i;
        let mut players = [
            build(&config, 0, seed)?,
            build(&config, 1, seed.wrapping_mul(31).wrapping_add(7))?,
        ];
        let mut game = Game::new(config.rules);
        // Both games of a pair start from the same random opening.
        let mut random = Random::new(config.seed + i / 2);
        for _ in 0..config.opening {
            if let Some(cell) = random.choose(&game) {
                game.play(cell)?;
            }
        }
        while !game.is_over() {
            let index = if game.to_move() == Player::X {
                x_index
            } else {
                1 - x_index
            };
            let start = Instant::now();
            let cell = players[index]
                .choose(&game)
                .ok_or("no move in a live game")?;
            let took = start.elapsed();
            let tally = &mut tallies[index];
            tally.moves += 1;
            tally.thinking += took;
            tally.slowest = tally.slowest.max(took);
            game.play(cell)?;
        }
        let outcome = game.outcome().ok_or("the game ended")?;
        let result = match outcome {
            Outcome::Draw => "draw".to_owned(),
            Outcome::Win(p) => {
                let winner = if p == Player::X { x_index } else { 1 - x_index };
                tallies[winner].wins += 1;
                tallies[1 - winner].losses += 1;
                format!("{} wins", config.players[winner])
            }
        };
        if outcome == Outcome::Draw {
            tallies[0].draws += 1;
            tallies[1].draws += 1;
        }
        println!(
            "game {:>3}: X={:<9} {:>3} moves  {result}",
            i + 1,
            config.players[x_index].name(),
            game.move_count(),
        );
        if config.show {
            println!("{}", game.to_string().replace('/', "\n"));
        }
    }
    println!("{} games of {}", config.games, config.rules);
    for (kind, t) in config.players.iter().zip(&tallies) {
        let per_move = t.thinking.as_secs_f64() * 1000.0 / t.moves.max(1) as f64;
        println!(
            "{:<10} won {:>3} lost {:>3} drew {:>3}   {:>8.3} ms/move (slowest {:.1} ms, {} moves)",
            kind.name(),
            t.wins,
            t.losses,
            t.draws,
            per_move,
            t.slowest.as_secs_f64() * 1000.0,
            t.moves
        );
    }
    Ok(())
}
