//! Where a Breaker proof's work goes on a board the campaign splits:
//! `cargo run --release -p oxo-ai --example replies -- SIZE K BUDGET [POSITION]`.
//!
//! For the position given (X's first move in the centre by default), asks
//! the prover whether X forces a line against a mere blocker, first with O
//! to move (the prover choosing O's reply), then after each of O's replies
//! next to X's stone, each within BUDGET positions, and prints the answer
//! ("maker", "breaker" or "over") with the positions it took.

use std::time::Instant;

use oxo_ai::{ProveError, Prover};
use oxo_core::{Game, Player, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().map_or(8, |a| a.parse().expect("SIZE"));
    let k: u32 = args.get(1).map_or(5, |a| a.parse().expect("K"));
    let budget: u64 = args
        .get(2)
        .map_or(2_000_000, |a| a.parse().expect("BUDGET"));
    let rules = Rules::new(size, size, k).expect("rules");
    let game = args.get(3).map_or_else(
        || {
            let mut g = Game::new(rules);
            let c = (size - 1) / 2;
            g.play_unchecked(rules.cell_at((c * size + c) as usize));
            g
        },
        |text| Game::from_notation(text, k).expect("position"),
    );
    let mut prover = Prover::new(rules, 256 << 20).expect("prover");
    prover.set_budget(Some(budget));
    let mut ask = |label: &str, g: &Game| {
        prover.clear();
        let (before, start) = (prover.nodes(), Instant::now());
        let answer = match prover.maker_wins(g, Player::X) {
            Ok(true) => "maker",
            Ok(false) => "breaker",
            Err(ProveError::OverBudget { .. }) => "over",
            Err(e) => panic!("{e}"),
        };
        println!(
            "{label:<12} {answer:<8} {:>11} positions {:>7.1} s",
            prover.nodes() - before,
            start.elapsed().as_secs_f64()
        );
    };
    println!("{game}");
    ask("O to move", &game);
    let index = |c: oxo_core::Cell| rules.index(c) as i64;
    let x_cells: Vec<i64> = game
        .cells()
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == Some(Player::X))
        .map(|(i, _)| i as i64)
        .collect();
    for cell in game.legal_moves() {
        let i = index(cell);
        let near = x_cells.iter().any(|&x| {
            let (dr, dc) = (
                (i / size as i64 - x / size as i64).abs(),
                (i % size as i64 - x % size as i64).abs(),
            );
            dr <= 1 && dc <= 1
        });
        if !near {
            continue;
        }
        let mut g = game.clone();
        g.play_unchecked(cell);
        ask(&format!("O {cell}"), &g);
    }
}
