//! The learned player never plays an illegal move, whatever the board, the
//! model's weights or the position (a property test).

use std::ops::ControlFlow;

use oxo_ai::Strategy as _;
use oxo_ai::learned::{self, TrainConfig};
use oxo_ai::{Learned, Model};
use oxo_core::{Game, Rules};
use proptest::prelude::*;

/// A board up to 9×9 with any k that fits.
fn rules() -> impl proptest::strategy::Strategy<Value = Rules> {
    (1u32..=9, 1u32..=9)
        .prop_flat_map(|(rows, cols)| (Just(rows), Just(cols), 1..=rows.max(cols)))
        .prop_map(|(rows, cols, k)| Rules::new(rows, cols, k).expect("k fits"))
}

/// A model for `rules` after a few self-play games (so its weights are
/// neither zero nor tidy), or untrained.
fn model(rules: Rules, episodes: u64, seed: u64) -> Model {
    if episodes == 0 {
        return Model::new(rules);
    }
    let config = TrainConfig::new(rules, episodes, seed);
    learned::train(&config, |_, _| ControlFlow::Continue(()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn learned_moves_are_always_legal(
        rules in rules(),
        episodes in 0u64..20,
        seed in any::<u64>(),
        opening in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let model = model(rules, episodes, seed);
        let mut player = Learned::new(model, rules, seed).expect("the model's own board");
        // Any position reached by random moves, then the learned player
        // plays both sides to the end.
        let mut game = Game::new(rules);
        for pick in opening {
            let moves: Vec<_> = game.legal_moves().collect();
            if game.is_over() || moves.is_empty() {
                break;
            }
            game.play(moves[pick.index(moves.len())]).expect("a legal move");
        }
        while !game.is_over() {
            let cell = player.choose(&game);
            prop_assert!(cell.is_some(), "no move in {game}");
            let cell = cell.unwrap();
            prop_assert!(game.get(cell).is_none() && rules.contains(cell), "{cell} in {game}");
            game.play(cell).expect("legal, as checked");
        }
        prop_assert_eq!(player.choose(&game), None);
    }
}
