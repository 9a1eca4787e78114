//! Alphabeta's speed: `cargo bench -p oxo-ai --bench search`.
//!
//! Plays `alphabeta` against itself at its default budget of positions a
//! move, from four-move openings drawn near the centre, on 15×15 k=5 (the
//! gomoku board), 9×9 k=4 and 7×7 k=5 (where the learned player's model
//! replaces the window counts, as `oxo play --o learned` plays it), and
//! prints the time a move and a digest of every game's moves. At a fixed
//! budget the games depend only on the seeds and the search, so two builds
//! that print the same digests played the same games move for move, and the
//! ratio of their times compares their speed at the same work: the baseline
//! is the same bench on an older commit (docs/benchmarks.md gives both runs). Pass
//! a number of games a board to play more or fewer than 20; other
//! arguments (such as another bench's filters) are ignored.

use std::time::{Duration, Instant};

use oxo_ai::{AlphaBeta, Learned, Strategy, opening_room, rng_from_seed};
use oxo_core::{Game, Rules};
use rand::seq::IndexedRandom;

/// Moves of each opening, drawn from [`opening_room`].
const OPENING: u32 = 4;

fn main() {
    let games: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20);
    println!("alphabeta against itself, {games} games a board, default budget, one thread");
    println!(
        "{:<22} {:>6} {:>12} {:>10}  digest",
        "board", "moves", "time", "per move"
    );
    for (rows, cols, k, learned) in [(15, 15, 5, false), (9, 9, 4, false), (7, 7, 5, true)] {
        let rules = Rules::new(rows, cols, k).expect("a board");
        let mut thinking = Duration::ZERO;
        let mut moves = 0u64;
        // FNV-1a over the moves' rows and columns: the same on every build.
        let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
        for seed in 0..games {
            let mut game = Game::new(rules);
            let room = opening_room(rules, OPENING);
            let mut rng = rng_from_seed(seed);
            while game.move_count() < OPENING as usize {
                let cell = *room.choose(&mut rng).expect("room for an opening");
                if game.get(cell).is_none() {
                    game.play(cell).expect("an empty cell");
                }
            }
            let mut players: [Box<dyn Strategy>; 2] = if learned {
                [seed, seed + 1]
                    .map(|s| Box::new(Learned::builtin(rules, s).expect("a model")) as Box<_>)
            } else {
                [seed, seed + 1].map(|s| Box::new(AlphaBeta::new(s)) as Box<_>)
            };
            while !game.is_over() {
                let player = &mut players[game.move_count() % 2];
                let start = Instant::now();
                let cell = player.choose(&game).expect("a move in a live game");
                thinking += start.elapsed();
                moves += 1;
                game.play(cell).expect("a legal move");
                for part in [cell.row, cell.col] {
                    digest = (digest ^ u64::from(part)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
        let name = format!(
            "{rows}x{cols} k={k}{}",
            if learned { " (learned)" } else { "" }
        );
        println!(
            "{name:<22} {moves:>6} {:>9.3} s {:>7.2} ms  {:016x}",
            thinking.as_secs_f64(),
            thinking.as_secs_f64() * 1e3 / moves.max(1) as f64,
            digest
        );
    }
}
