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
//! (print each finished board), `--grade` (on boards the solver handles:
//! grade the moves of every game by the solver, and say for each player
//! how often it let a won position go or turned a draw into a loss, and in
//! how many drawn games neither side ever stood on a won position; on
//! boards of more than 25 cells the positions with fewer than two marks
//! are left out, as the solver takes minutes over them).

use std::error::Error;
use std::time::{Duration, Instant};

use oxo_ai::solver::QUICK_MAX_CELLS;
use oxo_ai::{
    AlphaBeta, Learned, Model, Random, SolveError, Solver, Strategy, StrategyKind, Value,
};
use oxo_core::{BoardSize, Cell, Game, Outcome, Player, Rules};

struct Config {
    players: [StrategyKind; 2],
    rules: Rules,
    games: u64,
    seed: u64,
    budgets: [Option<u64>; 2],
    opening: u32,
    model: Option<Model>,
    show: bool,
    grade: bool,
}

fn parse() -> Result<Config, Box<dyn Error>> {
    let mut names = Vec::new();
    let mut size = BoardSize { rows: 15, cols: 15 };
    let (mut k, mut games, mut seed, mut budgets, mut opening) = (5, 20, 1, [None, None], 0);
    let (mut model, mut show, mut grade) = (None, false, false);
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
            "--grade" => grade = true,
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
        grade,
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

/// Per strategy, what the solver found in its moves (`--grade`).
#[derive(Default)]
struct Grades {
    /// Moves from a won position to one not won.
    wins_let_go: u64,
    /// Moves from a drawn position to a lost one.
    draws_lost: u64,
    /// Games in which it stood on a won position and did not win.
    won_games_not_won: u64,
}

/// The solver's view of one game (`--grade`).
struct Graded {
    /// Per strategy index: whether it ever had a won position to move from.
    stood_on_win: [bool; 2],
    /// Positions left out for having too few marks.
    early: u64,
    /// Positions the solver gave up on, over its node budget.
    over_budget: u64,
    /// The first mistake: the ply, the strategy index, and what it did.
    first: Option<(usize, usize, &'static str)>,
}

/// Positions a grade may search before calling one ungraded.
const GRADE_BUDGET: u64 = 20_000_000;

/// On boards of more than [`QUICK_MAX_CELLS`] cells, positions with fewer
/// marks are not graded: on 7×7 they take the solver minutes (the empty
/// board a quarter of an hour).
const GRADE_FROM_MARKS: usize = 2;

/// Grade `moves` played from `start` by the solver; `index_of` says which
/// strategy moved for each side.
fn grade(
    solver: &mut Solver,
    start: &Game,
    moves: &[Cell],
    index_of: impl Fn(Player) -> usize,
    grades: &mut [Grades; 2],
) -> Result<Graded, Box<dyn Error>> {
    // The value of each position for its player to move, and who moved.
    let mut values = Vec::with_capacity(moves.len() + 1);
    let mut movers = Vec::with_capacity(moves.len());
    let mut game = start.clone();
    let from = if game.rules().cell_count() > QUICK_MAX_CELLS {
        GRADE_FROM_MARKS
    } else {
        0
    };
    let mut over_budget = 0;
    for ply in 0..=moves.len() {
        values.push(match Value::of_finished(&game) {
            Some(value) => Some(value),
            None if game.move_count() < from => None,
            None => match solver.value(&game) {
                Ok(value) => Some(value),
                Err(SolveError::OverBudget { .. }) => {
                    over_budget += 1;
                    None
                }
                Err(e) => return Err(e.into()),
            },
        });
        if let Some(&cell) = moves.get(ply) {
            movers.push(index_of(game.to_move()));
            game.play(cell)?;
        }
    }
    let mut graded = Graded {
        stood_on_win: [false; 2],
        early: values.iter().filter(|v| v.is_none()).count() as u64 - over_budget,
        over_budget,
        first: None,
    };
    for (ply, &mover) in movers.iter().enumerate() {
        if values[ply] == Some(Value::Win) {
            graded.stood_on_win[mover] = true;
        }
        let (Some(before), Some(after)) = (values[ply], values[ply + 1]) else {
            continue;
        };
        let after = -after;
        let mistake = match (before, after) {
            (Value::Win, Value::Draw | Value::Loss) => {
                grades[mover].wins_let_go += 1;
                "let a won position go"
            }
            (Value::Draw, Value::Loss) => {
                grades[mover].draws_lost += 1;
                "turned a draw into a loss"
            }
            _ => continue,
        };
        graded.first.get_or_insert((ply, mover, mistake));
    }
    Ok(graded)
}

fn main() -> Result<(), Box<dyn Error>> {
    let config = parse()?;
    let mut tallies = [Tally::default(), Tally::default()];
    let mut solver = if config.grade {
        let mut solver = Solver::new(config.rules, 256 << 20)?;
        solver.set_budget(Some(GRADE_BUDGET));
        Some(solver)
    } else {
        None
    };
    let mut grades = [Grades::default(), Grades::default()];
    // Drawn games in which neither side ever stood on a won position, and
    // positions the solver gave up on.
    let (mut clean_draws, mut early, mut over_budget) = (0u64, 0u64, 0u64);
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
        let start = game.clone();
        let mut moves = Vec::new();
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
            moves.push(cell);
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
        let mut verdict = String::new();
        if let Some(solver) = &mut solver {
            let index_of = |p: Player| if p == Player::X { x_index } else { 1 - x_index };
            let graded = grade(solver, &start, &moves, index_of, &mut grades)?;
            early += graded.early;
            over_budget += graded.over_budget;
            let winner = match outcome {
                Outcome::Win(p) => Some(index_of(p)),
                Outcome::Draw => None,
            };
            for (index, stood) in graded.stood_on_win.into_iter().enumerate() {
                if stood && winner != Some(index) {
                    grades[index].won_games_not_won += 1;
                }
            }
            // A position over the budget might have been a win.
            if winner.is_none() && !graded.stood_on_win.contains(&true) && graded.over_budget == 0 {
                clean_draws += 1;
            }
            verdict = match graded.first {
                None => "  (no graded mistake)".to_owned(),
                Some((ply, index, what)) => format!(
                    "  ({} {what} at move {})",
                    config.players[index].name(),
                    start.move_count() + ply + 1
                ),
            };
        }
        println!(
            "game {:>3}: X={:<9} {:>3} moves  {result}{verdict}",
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
    if config.grade {
        let draws = tallies[0].draws;
        println!(
            "graded by the solver: {clean_draws} of {draws} drawn games had no won position for either side; not graded: {early} positions with fewer than {GRADE_FROM_MARKS} marks, {over_budget} over {GRADE_BUDGET} nodes"
        );
        for (kind, g) in config.players.iter().zip(&grades) {
            println!(
                "{:<10} let a won position go {} times (in {} games it did not win), turned a draw into a loss {} times",
                kind.name(),
                g.wins_let_go,
                g.won_games_not_won,
                g.draws_lost
            );
        }
    }
    Ok(())
}
