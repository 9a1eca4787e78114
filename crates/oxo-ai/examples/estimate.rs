//! What the analysis board's engine evaluation costs:
//! `cargo run --release -p oxo-ai --example estimate`.
//!
//! Estimates positions on 7×7 (k=5) and 15×15 (k=5) at
//! [`ESTIMATE_BUDGET`] and reviews two whole rounds of alphabeta against
//! itself, printing positions searched, depth reached and time. The figures
//! other than time depend only on the code: two runs print the same nodes,
//! depths and scores.

use std::time::Instant;

use oxo_ai::hints::hint_valuer;
use oxo_ai::review::{ESTIMATE_BUDGET, ESTIMATE_MOVES, Judged, review};
use oxo_ai::{AlphaBeta, Strategy};
use oxo_core::{Cell, Game, Rules};

fn main() {
    println!("estimate at {ESTIMATE_BUDGET} positions");
    println!(
        "{:<8} {:>6} {:>9} {:>6} {:>10}  score",
        "board", "moves", "nodes", "depth", "time"
    );
    for (side, plies) in [
        (7, 0),
        (7, 6),
        (7, 20),
        (15, 0),
        (15, 4),
        (15, 12),
        (15, 20),
    ] {
        let rules = Rules::new(side, side, 5).expect("a board");
        let (game, _) = played(rules, plies);
        let mut engine = AlphaBeta::new(0).with_budget(ESTIMATE_BUDGET);
        let start = Instant::now();
        let Some(estimate) = engine.estimate(&game, ESTIMATE_MOVES) else {
            println!("{side}x{side}: the game ended before move {plies}");
            continue;
        };
        let took = start.elapsed();
        println!(
            "{:<8} {:>6} {:>9} {:>6} {:>8.1}ms  {:?}",
            format!("{side}x{side}"),
            game.move_count(),
            estimate.nodes,
            estimate.depth,
            took.as_secs_f64() * 1e3,
            estimate.score
        );
    }
    println!("review of a whole round (alphabeta against itself)");
    for side in [7, 15] {
        let rules = Rules::new(side, side, 5).expect("a board");
        let (_, moves) = played(rules, u32::MAX);
        // The hints' valuer, as the server gives a review (none on 15×15).
        let mut valuer = hint_valuer(rules).ok();
        let start = Instant::now();
        let reviewed = review(&Game::new(rules), &moves, valuer.as_mut()).expect("legal moves");
        let took = start.elapsed();
        let mistakes = reviewed
            .moves
            .iter()
            .filter(|m| m.mistake.is_some())
            .count();
        let exact = reviewed
            .moves
            .iter()
            .filter(|m| matches!(m.judged, Judged::Exact { .. }))
            .count();
        println!(
            "{side}x{side}: {} moves ({exact} exact), {} engine nodes, {mistakes} marked, {:.0} ms",
            moves.len(),
            reviewed.nodes,
            took.as_secs_f64() * 1e3
        );
    }
}

/// `plies` moves of alphabeta (a small budget) against itself from the
/// empty board, or the whole game, and its moves.
fn played(rules: Rules, plies: u32) -> (Game, Vec<Cell>) {
    let mut game = Game::new(rules);
    let mut moves = Vec::new();
    let mut players = [
        AlphaBeta::new(1).with_budget(3_000),
        AlphaBeta::new(2).with_budget(3_000),
    ];
    while !game.is_over() && (game.move_count() as u32) < plies {
        let cell = players[game.move_count() % 2]
            .choose(&game)
            .expect("a move");
        game.play(cell).expect("a legal move");
        moves.push(cell);
    }
    (game, moves)
}
