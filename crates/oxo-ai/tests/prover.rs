//! The prover against the published values and against the 64-bit solver.

use oxo_ai::prover::{ProveError, Prover};
use oxo_ai::{Solver, Value};
use oxo_core::{Game, Player, Rules};

mod common;
use common::known_values;

#[test]
fn every_known_value() {
    // (7,7,5) included: the prover takes a fraction of a second on it in
    // release builds and a few seconds in debug ones.
    for (rules, expected) in known_values() {
        let mut prover = Prover::new(rules, 32 << 20).unwrap();
        assert_eq!(
            prover.value(&Game::new(rules)).unwrap(),
            expected,
            "{rules}"
        );
    }
}

#[test]
fn seven_by_seven_after_a_few_moves() {
    // X in the centre, O beside it: still a draw (neither side can force
    // five against a defender who only blocks), and O after a corner
    // reply has no way to a line either.
    let rules = Rules::new(7, 7, 5).unwrap();
    let mut prover = Prover::new(rules, 32 << 20).unwrap();
    let mut game = Game::new(rules);
    game.play_at(3, 3).unwrap();
    game.play_at(3, 4).unwrap();
    assert!(!prover.maker_wins(&game, Player::X).unwrap());
    assert!(!prover.maker_wins(&game, Player::O).unwrap());
    assert_eq!(prover.value(&game).unwrap(), Value::Draw);
}

#[test]
fn the_maker_forces_four_on_an_empty_five_by_five() {
    // What `Solver::value` takes as known, without asking the prover, on
    // boards of k <= 4 where a 5x5 square holds none of the Breaker's
    // stones: the Maker to move forces a line there. On 5x4 it cannot.
    let rules = Rules::new(5, 5, 4).unwrap();
    let mut prover = Prover::new(rules, 8 << 20).unwrap();
    assert!(prover.maker_wins(&Game::new(rules), Player::X).unwrap());
    let rules = Rules::new(5, 4, 4).unwrap();
    let mut prover = Prover::new(rules, 8 << 20).unwrap();
    assert!(!prover.maker_wins(&Game::new(rules), Player::X).unwrap());
    // Larger boards and shorter lines, and an open square beside the
    // Breaker's stones: the same answer.
    for (rows, cols, k) in [(6, 6, 4), (7, 5, 3), (6, 7, 4)] {
        let rules = Rules::new(rows, cols, k).unwrap();
        let mut game = Game::new(rules);
        game.play_at(0, i64::from(cols) - 1).unwrap();
        game.play_at(i64::from(rows) - 1, i64::from(cols) - 1)
            .unwrap();
        let mut prover = Prover::new(rules, 8 << 20).unwrap();
        assert!(prover.maker_wins(&game, Player::X).unwrap(), "{rules}");
    }
}

/// Random positions reached by random play (finished ones included).
fn random_games(rules: Rules, count: usize, seed: u64) -> Vec<Game> {
    let mut state = seed;
    let mut random = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..count)
        .map(|_| {
            let mut game = Game::new(rules);
            let plies = random() % (rules.cell_count() + 1);
            for _ in 0..plies {
                let moves: Vec<_> = game.legal_moves().collect();
                if moves.is_empty() {
                    break;
                }
                game.play_unchecked(moves[random() % moves.len()]);
            }
            game
        })
        .collect()
}

#[test]
fn agrees_with_the_solver_on_random_positions() {
    // Both questions, on boards where the defender often wins by its own
    // line first (5×5 k=4: X forces four against a mere blocker, yet the
    // real game is a draw).
    for (rows, cols, k, count) in [
        (3, 3, 3, 80),
        (4, 4, 3, 80),
        (4, 4, 4, 80),
        (5, 4, 4, 80),
        (4, 5, 3, 60),
        (5, 5, 4, 60),
        (6, 5, 4, 30),
    ] {
        let rules = Rules::new(rows, cols, k).unwrap();
        let mut prover = Prover::new(rules, 8 << 20).unwrap();
        let mut solver = Solver::new(rules, 8 << 20).unwrap();
        for game in random_games(rules, count, u64::from(rows * 31 + cols * 7 + k)) {
            let expected = solver.value(&game).unwrap();
            assert_eq!(prover.value(&game).unwrap(), expected, "{rules} {game}");
            let mover = game.to_move();
            let (mover_wins, other_wins) = if game.is_over() {
                let winner = game.outcome().and_then(|o| o.winner());
                (winner == Some(mover), winner == Some(mover.other()))
            } else {
                (expected == Value::Win, expected == Value::Loss)
            };
            assert_eq!(
                prover.can_force(&game, mover).unwrap(),
                mover_wins,
                "{rules} {game}"
            );
            assert_eq!(
                prover.can_force(&game, mover.other()).unwrap(),
                other_wins,
                "{rules} {game}"
            );
            // A side that cannot force a line against a mere blocker
            // cannot win the real game.
            for side in [Player::X, Player::O] {
                if !game.is_over() && !prover.maker_wins(&game, side).unwrap() {
                    assert!(!prover.can_force(&game, side).unwrap(), "{rules} {game}");
                }
            }
        }
    }
}

#[test]
fn boards_it_cannot_take_and_questions_it_cannot_answer() {
    let too_large = Rules::new(12, 11, 5).unwrap();
    assert_eq!(
        Prover::new(too_large, 1 << 20).unwrap_err(),
        ProveError::TooLarge { rows: 12, cols: 11 }
    );
    assert!(matches!(
        Prover::new(Rules::new(10, 10, 3).unwrap(), 1 << 20),
        Err(ProveError::TooManyWindows { windows: 288, .. })
    ));
    assert!(Prover::can_prove(Rules::new(11, 11, 5).unwrap()));
    assert!(Prover::can_prove(Rules::new(8, 8, 5).unwrap()));

    let rules = Rules::new(7, 7, 5).unwrap();
    let mut prover = Prover::new(rules, 1 << 20).unwrap();
    assert!(matches!(
        prover.value(&Game::new(Rules::TIC_TAC_TOE)),
        Err(ProveError::WrongRules { .. })
    ));
    prover.set_budget(Some(10));
    assert_eq!(
        prover.value(&Game::new(rules)),
        Err(ProveError::OverBudget { nodes: 10 })
    );
    // Nothing unfinished was stored: without a budget the answer is exact.
    prover.set_budget(None);
    assert_eq!(prover.value(&Game::new(rules)).unwrap(), Value::Draw);

    // On 9×9 k=4, X to move with an open two makes an open three: a win
    // against a mere blocker, and of the real game too (O has no threat),
    // found by the real game's search beyond the 64-bit solver's boards.
    let rules = Rules::new(9, 9, 4).unwrap();
    let mut prover = Prover::new(rules, 1 << 20).unwrap();
    let mut game = Game::new(rules);
    for (r, c) in [(4, 4), (0, 0), (4, 5), (0, 8)] {
        game.play_at(r, c).unwrap();
    }
    assert!(prover.maker_wins(&game, Player::X).unwrap());
    assert_eq!(prover.value(&game), Ok(Value::Win));
    assert_eq!(prover.can_force(&game, Player::O), Ok(false));
    // One more X mark and one O: X, to move with three in a row, completes
    // four at once, a win of the real game on any board, with no search.
    game.play_at(4, 3).unwrap();
    game.play_at(8, 0).unwrap();
    assert_eq!(prover.value(&game), Ok(Value::Win));
    assert_eq!(prover.can_force(&game, Player::X), Ok(true));
}

#[test]
fn lines_longer_than_the_potential_test_takes() {
    // The Erdős–Selfridge sum is scaled by 2^k: very long lines on a
    // 1×128 board must neither overflow it nor lose the answer.
    for k in [60, 64, 100, 119, 120, 125, 128] {
        let rules = Rules::new(1, 128, k).unwrap();
        let mut prover = Prover::new(rules, 1 << 20).unwrap();
        assert_eq!(prover.value(&Game::new(rules)), Ok(Value::Draw), "k={k}");
    }
}
