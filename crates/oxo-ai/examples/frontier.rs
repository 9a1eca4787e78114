//! Fixed sub-problems of a square board's proof, for comparing versions of
//! the prover: `cargo run --release -p oxo-ai --example frontier -- SIZE K
//! BUDGET [replies]`.
//!
//! For each class of X's first move (up to the board's symmetries), asks
//! whether X forces a line against a mere blocker with O to move (the
//! prover choosing O's reply), within BUDGET positions and a fresh 256 MiB
//! prover each. With `replies`, asks instead after O's reply next to X's
//! stone nearest the centre (X to move): smaller questions of the same
//! proof. Prints each answer ("maker", "breaker" or "over") with its
//! positions and seconds, then how many settled and the totals;
//! `OXO_PROVER_STATS=1` adds the prover's counts.

use std::time::Instant;

use oxo_ai::{ProveError, Prover};
use oxo_core::{Game, Player, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size: u32 = args.first().map_or(8, |a| a.parse().expect("SIZE"));
    let k: u32 = args.get(1).map_or(5, |a| a.parse().expect("K"));
    let budget: u64 = args
        .get(2)
        .map_or(1_000_000, |a| a.parse().expect("BUDGET"));
    let replies = args.iter().any(|a| a == "replies");
    if let Some(plies) = args.iter().find_map(|a| a.strip_prefix("random")) {
        let plies: u32 = plies.parse().expect("randomN: N plies");
        let count: u32 = args.get(4).map_or(20, |a| a.parse().expect("COUNT"));
        random_games(
            Rules::new(size, size, k).expect("rules"),
            budget,
            plies,
            count,
        );
        return;
    }
    let rules = Rules::new(size, size, k).expect("rules");
    let half = size.div_ceil(2);
    let centre2 = i64::from(size) - 1;
    let (mut settled, mut total_nodes, mut total_secs) = (0, 0, 0.0);
    let mut asked = 0;
    for r in 0..half {
        for c in r..half {
            let mut game = Game::new(rules);
            let first = oxo_core::Cell::new(r, c);
            game.play_unchecked(first);
            let mut label = format!("X {first}");
            if replies {
                // O's reply: X's neighbour nearest the centre (lowest
                // index on ties).
                let reply = game
                    .legal_moves()
                    .filter(|m| m.row.abs_diff(r) <= 1 && m.col.abs_diff(c) <= 1)
                    .min_by_key(|m| {
                        let (dr, dc) = (
                            2 * i64::from(m.row) - centre2,
                            2 * i64::from(m.col) - centre2,
                        );
                        (dr * dr + dc * dc, rules.index(*m))
                    })
                    .expect("a neighbour");
                game.play_unchecked(reply);
                label += &format!(" O {reply}");
            }
            let (answer, nodes, secs) = ask(&label, &game, budget);
            asked += 1;
            settled += usize::from(answer != "over");
            total_nodes += nodes;
            total_secs += secs;
        }
    }
    println!("settled {settled} of {asked}: {total_nodes} positions, {total_secs:.1} s");
}

/// Whether X forces a line against a blocker from `game`, within `budget`
/// positions and a fresh prover: the answer, positions and seconds,
/// printed under `label`.
fn ask(label: &str, game: &Game, budget: u64) -> (&'static str, u64, f64) {
    let mut prover = Prover::new(game.rules(), 256 << 20).expect("prover");
    prover.set_budget(Some(budget));
    let start = Instant::now();
    let answer = match prover.maker_wins(game, Player::X) {
        Ok(true) => "maker",
        Ok(false) => "breaker",
        Err(ProveError::OverBudget { .. }) => "over",
        Err(e) => panic!("{e}"),
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{label:<24} {answer:<8} {:>11} positions {secs:>7.2} s",
        prover.nodes()
    );
    if std::env::var_os("OXO_PROVER_STATS").is_some() {
        println!("    {:?}", prover.stats());
    }
    (answer, prover.nodes(), secs)
}

/// `count` positions of `plies` random moves (the first near the centre,
/// each later one within two cells of a stone; a fixed seed, so every run
/// asks the same questions), each asked as [`ask`] does; then the
/// answers' counts and the positions and seconds of the settled ones.
fn random_games(rules: Rules, budget: u64, plies: u32, count: u32) {
    let mut seed = 0x5eed_u64;
    let mut random = move |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % n as u64) as usize
    };
    let (mut settled, mut nodes_settled, mut secs_settled, mut makers) = (0, 0, 0.0, 0);
    for _ in 0..count {
        let mut game = Game::new(rules);
        let mut label = String::new();
        for ply in 0..plies {
            let stones: Vec<oxo_core::Cell> =
                rules.cells().filter(|&c| game.get(c).is_some()).collect();
            let near: Vec<oxo_core::Cell> = game
                .legal_moves()
                .filter(|m| {
                    if ply == 0 {
                        let mid = |x: u32, n: u32| (2 * x).abs_diff(n - 1) <= 3;
                        mid(m.row, rules.rows()) && mid(m.col, rules.cols())
                    } else {
                        stones
                            .iter()
                            .any(|s| s.row.abs_diff(m.row) <= 2 && s.col.abs_diff(m.col) <= 2)
                    }
                })
                .collect();
            let m = near[random(near.len())];
            label += &format!("{}{} ", m.row, m.col);
            game.play_unchecked(m);
        }
        let (answer, nodes, secs) = ask(label.trim_end(), &game, budget);
        if answer != "over" {
            settled += 1;
            nodes_settled += nodes;
            secs_settled += secs;
            makers += usize::from(answer == "maker");
        }
    }
    println!(
        "settled {settled} of {count} ({makers} maker): {nodes_settled} positions, {secs_settled:.1} s"
    );
}
