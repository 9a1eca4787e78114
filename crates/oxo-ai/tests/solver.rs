//! The solver against an independent brute-force search on every reachable
//! 3×3 position, and against published values of larger boards.

use std::collections::HashMap;

use oxo_ai::{Eval, Solver, Value};
use oxo_core::{Cell, Game, Outcome, Player, Rules};

mod common;
use common::known_values;

/// Plain minimax over the core's `Game`, memoised by notation: value and
/// plies to the end with the winner hurrying and the loser stalling. Shares
/// no code with the solver beyond the rules.
fn brute(game: &Game, memo: &mut HashMap<String, (i32, u32)>) -> (i32, u32) {
    let key = game.to_string();
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let result = match game.outcome() {
        Some(Outcome::Win(_)) => (-1, 0),
        Some(Outcome::Draw) => (0, 0),
        None => {
            let mut best: Option<(i32, u32)> = None;
            for cell in game.legal_moves() {
                let mut child = game.clone();
                child.play(cell).unwrap();
                let (v, plies) = brute(&child, memo);
                let mine = (-v, plies + 1);
                best = Some(match best {
                    None => mine,
                    Some(b) => better(mine, b),
                });
            }
            best.unwrap()
        }
    };
    memo.insert(key, result);
    result
}

/// The better of two (value, plies) for the mover.
fn better(a: (i32, u32), b: (i32, u32)) -> (i32, u32) {
    if a.0 != b.0 {
        return if a.0 > b.0 { a } else { b };
    }
    match a.0 {
        1 => {
            if a.1 <= b.1 {
                a
            } else {
                b
            }
        }
        -1 => {
            if a.1 >= b.1 {
                a
            } else {
                b
            }
        }
        _ => a,
    }
}

fn as_pair(eval: Eval) -> (i32, u32) {
    (i32::from(eval.value.sign()), eval.plies)
}

/// Every position reachable from the empty board, each once.
fn reachable(rules: Rules) -> Vec<Game> {
    let mut seen = HashMap::new();
    let mut stack = vec![Game::new(rules)];
    while let Some(game) = stack.pop() {
        if seen.insert(game.to_string(), game.clone()).is_some() {
            continue;
        }
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play(cell).unwrap();
            stack.push(child);
        }
    }
    seen.into_values().collect()
}

#[test]
fn every_reachable_3x3_position_matches_brute_force() {
    let rules = Rules::TIC_TAC_TOE;
    let positions = reachable(rules);
    assert_eq!(positions.len(), 5478);
    let mut memo = HashMap::new();
    let mut solver = Solver::new(rules, 1 << 20).unwrap();
    let mut checked = 0;
    for game in positions.iter().filter(|g| !g.is_over()) {
        let analysis = solver.analyse(game).unwrap();
        assert_eq!(as_pair(analysis.eval), brute(game, &mut memo), "{game}");
        for &(cell, eval) in &analysis.moves {
            let mut child = game.clone();
            child.play(cell).unwrap();
            let (v, plies) = brute(&child, &mut memo);
            assert_eq!(as_pair(eval), (-v, plies + 1), "{game} move {cell}");
        }
        // The listed best moves are exactly those that keep the best value,
        // and the fast path finds the same ones.
        let best = analysis.moves[0].1;
        assert_eq!(best, analysis.eval, "{game}");
        let (eval, fast) = solver.best_moves(game).unwrap();
        assert_eq!(eval, analysis.eval, "{game}");
        let mut slow: Vec<Cell> = analysis.best_moves().collect();
        slow.sort();
        assert_eq!(fast, slow, "{game}");
        checked += 1;
    }
    assert_eq!(checked, 4520);
}

#[test]
fn a_fresh_solver_agrees_with_a_warm_one() {
    // The table must not change answers: solve positions in another order.
    let rules = Rules::TIC_TAC_TOE;
    let mut positions = reachable(rules);
    positions.sort_by_key(|g| std::cmp::Reverse(g.to_string()));
    let mut warm = Solver::new(rules, 1 << 12).unwrap();
    for game in positions.iter().filter(|g| !g.is_over()).step_by(7) {
        let mut fresh = Solver::new(rules, 1 << 16).unwrap();
        assert_eq!(
            warm.evaluate(game).unwrap(),
            fresh.evaluate(game).unwrap(),
            "{game}"
        );
    }
}

#[test]
fn reachable_counts_of_3x3() {
    let positions = reachable(Rules::TIC_TAC_TOE);
    let x_wins = positions
        .iter()
        .filter(|g| g.outcome() == Some(Outcome::Win(oxo_core::Player::X)))
        .count();
    let o_wins = positions
        .iter()
        .filter(|g| g.outcome() == Some(Outcome::Win(oxo_core::Player::O)))
        .count();
    let draws = positions
        .iter()
        .filter(|g| g.outcome() == Some(Outcome::Draw))
        .count();
    assert_eq!(
        (positions.len(), x_wins, o_wins, draws),
        (5478, 626, 316, 16)
    );

    fn games(game: &Game) -> u64 {
        if game.is_over() {
            return 1;
        }
        game.legal_moves()
            .map(|cell| {
                let mut child = game.clone();
                child.play(cell).unwrap();
                games(&child)
            })
            .sum()
    }
    assert_eq!(games(&Game::default()), 255_168);
}

#[test]
fn known_values_of_small_boards() {
    for (rules, expected) in known_values() {
        // 7×7 is beyond this solver (see the benchmark); the rest take
        // milliseconds.
        if rules.cell_count() > 36 {
            continue;
        }
        let mut solver = Solver::new(rules, 16 << 20).unwrap();
        assert_eq!(
            solver.value(&Game::new(rules)).unwrap(),
            expected,
            "{rules}"
        );
    }
}

/// Every known value up to 6×6 has a certificate that `oxo_core::proof`
/// accepts, claiming that value.
#[test]
fn certificates_of_every_known_value() {
    for (rules, expected) in known_values() {
        if rules.cell_count() > 36 {
            continue;
        }
        let mut solver = Solver::new(rules, 16 << 20).unwrap();
        let certificate = oxo_ai::certify(&mut solver, &Game::new(rules)).unwrap();
        let text = certificate.to_text();
        let verified = oxo_core::proof::Certificate::parse(&text)
            .and_then(|c| c.verify())
            .unwrap();
        let claim = match expected {
            Value::Win => oxo_core::proof::Claim::Win(Player::X),
            Value::Loss => oxo_core::proof::Claim::Win(Player::O),
            Value::Draw => oxo_core::proof::Claim::Draw,
        };
        assert_eq!(verified.claim, claim, "{rules}");
    }
}

#[test]
fn a_cell_that_wins_at_once_is_a_win_in_one() {
    let game = Game::from_notation("XX./OO./...", 3).unwrap();
    let mut solver = Solver::new(Rules::TIC_TAC_TOE, 1 << 16).unwrap();
    let analysis = solver.analyse(&game).unwrap();
    assert_eq!(
        analysis.eval,
        Eval {
            value: Value::Win,
            plies: 1
        }
    );
    assert_eq!(analysis.best_moves().collect::<Vec<_>>(), [Cell::new(0, 2)]);
}

#[test]
fn finished_games_and_wrong_rules() {
    let mut solver = Solver::new(Rules::TIC_TAC_TOE, 1 << 16).unwrap();
    let won = Game::from_notation("XXX/OO./...", 3).unwrap();
    assert_eq!(
        solver.evaluate(&won).unwrap(),
        Eval {
            value: Value::Loss,
            plies: 0
        }
    );
    assert!(solver.analyse(&won).unwrap().moves.is_empty());
    let other = Game::new(Rules::new(4, 4, 4).unwrap());
    assert!(solver.evaluate(&other).is_err());
    assert!(Solver::new(Rules::new(8, 8, 5).unwrap(), 1 << 16).is_err());
}

#[test]
fn strong_solution_of_3x3_counts_and_agrees_with_the_search() {
    let rules = Rules::TIC_TAC_TOE;
    let strong = oxo_ai::StrongSolution::compute(rules).unwrap();
    let census = strong.census();
    assert_eq!(
        (
            census.positions,
            census.terminal,
            census.x_wins,
            census.o_wins,
            census.draws
        ),
        (5478, 958, 626, 316, 16)
    );
    let mut memo = HashMap::new();
    for game in reachable(rules) {
        let eval = strong
            .get(&game)
            .unwrap_or_else(|| panic!("{game} missing"));
        assert_eq!(as_pair(eval), brute(&game, &mut memo), "{game}");
    }
    // Unreachable with X first: O has moved more.
    let odd = Game::from_notation("O../.../...", 3);
    assert!(odd.is_err());
}

#[test]
fn strong_solution_round_trips_through_a_file() {
    let rules = Rules::TIC_TAC_TOE;
    let strong = oxo_ai::StrongSolution::compute(rules).unwrap();
    let mut bytes = Vec::new();
    strong.save(&mut bytes).unwrap();
    let loaded = oxo_ai::StrongSolution::load(&bytes[..]).unwrap();
    assert_eq!(loaded.stored(), strong.stored());
    for game in reachable(rules) {
        assert_eq!(loaded.get(&game), strong.get(&game));
    }
    assert!(oxo_ai::StrongSolution::load(&b"oxo-strong v9 3 3 3 0\n"[..]).is_err());
    assert!(oxo_ai::StrongSolution::load(&b"garbage"[..]).is_err());
}

// The checksum of a table file, to forge damage the checksum itself does
// not catch.
use oxo_ai::checksum::fnv1a;

#[test]
fn a_damaged_strong_solution_table_is_refused() {
    use oxo_ai::StrongTableError as E;
    let strong = oxo_ai::StrongSolution::compute(Rules::TIC_TAC_TOE).unwrap();
    let mut bytes = Vec::new();
    strong.save(&mut bytes).unwrap();
    let load = |bytes: &[u8]| oxo_ai::StrongSolution::load(bytes);
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    assert!(bytes.starts_with(b"oxo-strong v2 3 3 3 "));

    // Every byte flipped in turn, header, records and checksum alike.
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        assert!(load(&bad).is_err(), "byte {i} flipped was accepted");
    }
    // Every value rewritten (a loss for a draw, a draw for a win, a win for
    // a loss).
    let mut bad = bytes.clone();
    for record in bad[header..bytes.len() - 8].chunks_mut(18) {
        record[16] = (record[16] + 1) % 3;
    }
    assert!(matches!(load(&bad), Err(E::Checksum)));
    // Anything after the checksum.
    let mut bad = bytes.clone();
    bad.extend_from_slice(b"garbage");
    assert!(matches!(load(&bad), Err(E::Trailing)));
    // Cut short, even by the checksum's last byte.
    assert!(matches!(load(&bytes[..bytes.len() - 1]), Err(E::Truncated)));
    // A record that cannot be under a checksum that matches: a value past
    // win, and two records swapped.
    let forge = |edit: &dyn Fn(&mut [u8])| {
        let mut bad = bytes[..bytes.len() - 8].to_vec();
        edit(&mut bad[header..]);
        let sum = fnv1a(&bad);
        bad.extend_from_slice(&sum.to_le_bytes());
        bad
    };
    assert!(matches!(load(&forge(&|r| r[16] = 3)), Err(E::Record(0))));
    assert!(matches!(
        load(&forge(&|r| r.copy_within(0..18, 18))),
        Err(E::Record(1))
    ));
    // A table of version 1, which had no checksum: refused, saying how to
    // make a new one.
    let mut old = bytes[..bytes.len() - 8].to_vec();
    old[12] = b'1';
    let err = load(&old).unwrap_err();
    assert!(matches!(err, E::Unchecked));
    assert!(err.to_string().contains("oxo solve --all --save"), "{err}");
}

#[test]
fn strong_solution_of_4x4_k4_counts_every_reachable_position() {
    let rules = Rules::new(4, 4, 4).unwrap();
    let strong = oxo_ai::StrongSolution::compute(rules).unwrap();
    assert_eq!(strong.census().positions, 9_722_011);
    assert_eq!(strong.get(&Game::new(rules)).unwrap().value, Value::Draw);
    // The strong solution is a plain minimax over every position, with no
    // pruning: check the search's values and distances against it on the
    // positions of random games (every position along each game).
    let mut solver = Solver::new(rules, 16 << 20).unwrap();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut checked = 0;
    for _ in 0..60 {
        let mut game = Game::new(rules);
        while !game.is_over() {
            let expected = strong.get(&game).expect("reachable");
            assert_eq!(solver.evaluate(&game).unwrap(), expected, "{game}");
            let (eval, best) = solver.best_moves(&game).unwrap();
            assert_eq!(eval, expected, "{game}");
            // Every move's value and distance, from the full analysis.
            if checked % 3 == 0 {
                let analysis = solver.analyse(&game).unwrap();
                assert_eq!(analysis.eval, expected, "{game}");
                for &(cell, eval) in &analysis.moves {
                    let mut child = game.clone();
                    child.play(cell).unwrap();
                    let expected = strong.get(&child).unwrap().parent();
                    assert_eq!(eval, expected, "{game} {cell}");
                }
            }
            // A fresh solver has no table entries to lean on: its pairing
            // cutoffs and the draws they settle stand alone.
            if checked % 5 == 0 {
                let mut fresh = Solver::new(rules, 1 << 20).unwrap();
                assert_eq!(fresh.value(&game).unwrap(), expected.value, "{game}");
            }
            for cell in game.legal_moves() {
                let mut child = game.clone();
                child.play(cell).unwrap();
                let keeps = strong.get(&child).unwrap().parent() == expected;
                assert_eq!(best.contains(&cell), keeps, "{game} {cell}");
            }
            checked += 1;
            let moves: Vec<Cell> = game.legal_moves().collect();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            game.play(moves[(seed % moves.len() as u64) as usize])
                .unwrap();
        }
    }
    assert!(checked > 500, "{checked}");
}

/// Positions of `rules` reached by `n` pseudo-random moves each (a fixed
/// linear congruential walk, so the test is the same every run).
fn walks(rules: Rules, count: usize, plies: usize) -> Vec<Game> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut games = Vec::new();
    while games.len() < count {
        let mut game = Game::new(rules);
        for _ in 0..plies {
            let moves: Vec<Cell> = game.legal_moves().collect();
            if game.is_over() || moves.is_empty() {
                break;
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            game.play(moves[(state >> 33) as usize % moves.len()])
                .unwrap();
        }
        if !game.is_over() {
            games.push(game);
        }
    }
    games
}

#[test]
fn a_search_cut_short_by_its_budget_leaves_later_answers_exact() {
    let rules = Rules::new(5, 5, 4).unwrap();
    let positions = walks(rules, 40, 4);
    let mut budgeted = Solver::new(rules, 8 << 20).unwrap();
    let mut cut_short = 0;
    for (n, game) in positions.iter().enumerate() {
        // Budgets from tiny to generous: many calls stop part-way, and
        // leave whatever they had stored in the table.
        budgeted.set_budget(Some(10 + 97 * n as u64 * n as u64));
        match budgeted.analyse(game) {
            Err(oxo_ai::SolveError::OverBudget { .. }) => cut_short += 1,
            Err(e) => panic!("{e}"),
            Ok(_) => {}
        }
    }
    assert!(cut_short > 10, "only {cut_short} searches were cut short");
    // The same solver without a budget agrees with a fresh one everywhere.
    budgeted.set_budget(None);
    let mut fresh = Solver::new(rules, 8 << 20).unwrap();
    for game in &positions {
        let a = budgeted.analyse(game).unwrap();
        let b = fresh.analyse(game).unwrap();
        assert_eq!(a.eval, b.eval, "{game}");
        assert_eq!(a.moves, b.moves, "{game}");
        assert_eq!(
            budgeted.best_moves(game).unwrap(),
            fresh.best_moves(game).unwrap(),
            "{game}"
        );
    }
}

/// `analyse` on positions of several board shapes against the brute-force
/// minimax: the value and distance of the position and of every move, with
/// one warm solver per board (answers must not depend on what its table
/// holds) and a fresh one for some positions.
#[test]
fn analyse_matches_brute_force_on_random_positions() {
    // (rows, cols, k, plies played): few enough cells left for brute force.
    let boards = [
        (4, 4, 3, 5),
        (3, 4, 3, 2),
        (4, 4, 4, 5),
        (5, 4, 4, 8),
        (4, 5, 3, 9),
        (5, 5, 4, 13),
        (6, 5, 4, 19),
        (6, 6, 4, 25),
    ];
    for (rows, cols, k, plies) in boards {
        let rules = Rules::new(rows, cols, k).unwrap();
        let mut memo = HashMap::new();
        let mut warm = Solver::new(rules, 1 << 20).unwrap();
        for (n, game) in walks(rules, 20, plies).iter().enumerate() {
            let mut fresh;
            let solver = if n % 4 == 0 {
                fresh = Solver::new(rules, 1 << 20).unwrap();
                &mut fresh
            } else {
                &mut warm
            };
            let analysis = solver.analyse(game).unwrap();
            assert_eq!(as_pair(analysis.eval), brute(game, &mut memo), "{game}");
            assert_eq!(analysis.moves.len(), game.legal_moves().count(), "{game}");
            for &(cell, eval) in &analysis.moves {
                let mut child = game.clone();
                child.play(cell).unwrap();
                let (v, plies) = brute(&child, &mut memo);
                assert_eq!(as_pair(eval), (-v, plies + 1), "{game} move {cell}");
            }
        }
    }
}

/// The move ordering of the full analysis (a regression guard on a count
/// of positions, which is deterministic, not on time): with the mover's own
/// windows weighing 4 everywhere, 6×6 k=4 took 5,570,015 positions; with 16
/// only at nodes out to win, 1,199,718; with 16 at every node of a won
/// position, 719,057.
#[test]
fn the_full_analysis_of_six_by_six_k4_stays_under_a_million_positions() {
    let rules = Rules::new(6, 6, 4).unwrap();
    let mut solver = Solver::new(rules, 64 << 20).unwrap();
    let analysis = solver.analyse(&Game::new(rules)).unwrap();
    assert_eq!(analysis.eval.value, Value::Win);
    assert!(analysis.nodes < 1_000_000, "{} positions", analysis.nodes);
}

#[test]
fn can_force_answers_each_side_as_the_value_does() {
    for (text, k) in [
        (".../.../...", 3),
        (".O./.X./...", 3),
        ("X.O/.X./..O", 3),
        ("XX./OO./...", 3),
        ("..../..../..../....", 3),
        ("...../...../...../...../.....", 4),
    ] {
        let game = Game::from_notation(text, k).unwrap();
        let rules: Rules = game.rules();
        let mut solver = Solver::new(rules, 1 << 20).unwrap();
        let value = solver.value(&game).unwrap();
        let mover = game.to_move();
        assert_eq!(
            solver.can_force(&game, mover).unwrap(),
            value == Value::Win,
            "{text}"
        );
        assert_eq!(
            solver.can_force(&game, mover.other()).unwrap(),
            value == Value::Loss,
            "{text}"
        );
    }
}
