//! The perfect player: every move chosen by the solver.

use std::sync::Arc;

use oxo_core::{Cell, Game, Rules};
use rand::RngExt;

use crate::solver::{DEFAULT_TABLE_BYTES, SolveError, Solver, StrongSolution};
use crate::{AlphaBeta, SeededRng, Strategy, rng_from_seed};

/// The longest side of a board on which `perfect` is offered. Up to 6×6 a
/// whole game takes well under a second on one core, except 6×6 k=5 (a few
/// seconds). Longer boards that fit the solver (4×7 already takes ten
/// seconds a game, 7×7 k=5 a quarter of an hour for its first move) can
/// still be analysed with `oxo solve`, but a game would stall.
pub const PERFECT_MAX_SIDE: u32 = 6;

/// Plays a move of the best value: a win if there is one (the fastest),
/// else a draw, else the slowest loss. It never loses a game that can be
/// held. Ties are broken by the seeded generator, so games vary.
#[derive(Debug)]
pub struct Perfect<R = SeededRng> {
    solver: Solver,
    /// A strong solution to look positions up in before searching.
    table: Option<Arc<StrongSolution>>,
    rng: R,
    /// With a budget, who moves when the solver runs out of it.
    fallback: Option<AlphaBeta>,
}

impl Perfect {
    /// A perfect player for `rules`, its tie-breaks fixed by `seed`.
    ///
    /// # Errors
    /// [`SolveError::Beyond`] for boards with a side longer than
    /// [`PERFECT_MAX_SIDE`].
    pub fn new(rules: Rules, seed: u64) -> Result<Perfect, SolveError> {
        Perfect::with_rng(rules, rng_from_seed(seed))
    }
}

impl<R: rand::Rng> Perfect<R> {
    /// A perfect player drawing its tie-breaks from `rng`.
    ///
    /// # Errors
    /// As [`Perfect::new`].
    pub fn with_rng(rules: Rules, rng: R) -> Result<Perfect<R>, SolveError> {
        if rules.is_exact() {
            return Err(SolveError::Exact(rules));
        }
        if rules.rows().max(rules.cols()) > PERFECT_MAX_SIDE {
            return Err(SolveError::Beyond {
                what: "perfect play",
                limit: format!("at most {PERFECT_MAX_SIDE} a side"),
                rows: rules.rows(),
                cols: rules.cols(),
            });
        }
        // Small boards need a small table; larger ones get the default.
        let bytes = if rules.cell_count() <= 16 {
            1 << 20
        } else {
            DEFAULT_TABLE_BYTES
        };
        Ok(Perfect {
            solver: Solver::new(rules, bytes)?,
            table: None,
            rng,
            fallback: None,
        })
    }

    /// Search at most `nodes` positions a move; a position that needs more
    /// gets alphabeta's move (its default budget, tie-breaks from `seed`)
    /// instead, so no move takes long. Such a move may not be perfect: the
    /// player stays perfect only where the solver answers within budget.
    #[must_use]
    pub fn with_budget(mut self, nodes: u64, seed: u64) -> Perfect<R> {
        self.solver.set_budget(Some(nodes));
        self.fallback = Some(AlphaBeta::new(seed));
        self
    }

    /// Look positions up in `table` (a strong solution of the same rules,
    /// as `oxo solve --all --save` writes) instead of searching; positions
    /// it lacks (such as games where O moved first) are still searched.
    #[must_use]
    pub fn with_table(mut self, table: Arc<StrongSolution>) -> Perfect<R> {
        if table.rules() == self.solver.rules() {
            self.table = Some(table);
        }
        self
    }

    /// The best moves by table lookup, if every position involved is in it.
    fn best_from_table(&self, game: &Game) -> Option<Vec<Cell>> {
        let table = self.table.as_ref()?;
        let mut scored = Vec::new();
        for cell in game.legal_moves() {
            let mut child = game.clone();
            child.play_unchecked(cell);
            scored.push((cell, table.get(&child)?.parent()));
        }
        let best = scored.iter().map(|&(_, e)| e).max()?;
        Some(
            scored
                .into_iter()
                .filter(|&(_, e)| e == best)
                .map(|(c, _)| c)
                .collect(),
        )
    }
}

impl<R: rand::Rng + Send> Strategy for Perfect<R> {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        if game.is_over() {
            return None;
        }
        let best = match self.best_from_table(game) {
            Some(best) => best,
            None => match self.solver.best_moves(game) {
                Ok((_, best)) => best,
                Err(SolveError::OverBudget { .. }) => {
                    return self.fallback.as_mut()?.choose(game);
                }
                Err(_) => return None,
            },
        };
        if best.is_empty() {
            return None;
        }
        Some(best[self.rng.random_range(0..best.len())])
    }

    fn name(&self) -> &str {
        "perfect"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Random;
    use oxo_core::{Outcome, Player};

    fn play(x: &mut dyn Strategy, o: &mut dyn Strategy, rules: Rules) -> Game {
        let mut game = Game::new(rules);
        crate::play_out(&mut game, x, o).unwrap();
        game
    }

    #[test]
    fn out_of_budget_it_plays_alphabetas_move_and_within_it_stays_perfect() {
        // 5x5 k=4 from the empty board needs far more than 50 positions:
        // the move comes from alphabeta, at once.
        let rules = Rules::new(5, 5, 4).unwrap();
        let mut hurried = Perfect::new(rules, 1).unwrap().with_budget(50, 1);
        let game = Game::new(rules);
        let cell = hurried.choose(&game).expect("a move");
        assert!(game.legal_moves().any(|c| c == cell));
        // On 3x3 a generous budget is never reached: it never loses.
        for seed in 0..50 {
            let mut perfect = Perfect::new(Rules::TIC_TAC_TOE, seed)
                .unwrap()
                .with_budget(1_000_000, seed);
            let mut random = Random::new(seed + 1000);
            let game = play(&mut random, &mut perfect, Rules::TIC_TAC_TOE);
            assert_ne!(game.outcome(), Some(Outcome::Win(Player::X)), "{game}");
        }
    }

    #[test]
    fn never_loses_to_random_on_either_side() {
        let rules = Rules::TIC_TAC_TOE;
        for seed in 0..200 {
            let mut perfect = Perfect::new(rules, seed).unwrap();
            let mut random = Random::new(seed + 1000);
            let game = play(&mut perfect, &mut random, rules);
            assert_ne!(game.outcome(), Some(Outcome::Win(Player::O)), "{game}");
            let game = play(&mut random, &mut perfect, rules);
            assert_ne!(game.outcome(), Some(Outcome::Win(Player::X)), "{game}");
        }
    }

    #[test]
    fn against_itself_every_game_is_a_draw_yet_games_vary() {
        let rules = Rules::TIC_TAC_TOE;
        let mut seen = std::collections::HashSet::new();
        for seed in 0..50 {
            let mut x = Perfect::new(rules, seed).unwrap();
            let mut o = Perfect::new(rules, seed + 500).unwrap();
            let game = play(&mut x, &mut o, rules);
            assert_eq!(game.outcome(), Some(Outcome::Draw));
            seen.insert(game.to_string());
        }
        assert!(seen.len() > 5, "tie-breaks should vary the games: {seen:?}");
    }

    #[test]
    fn takes_the_fastest_win() {
        // X can win at once on (0, 2) or set up slower wins elsewhere.
        let game = Game::from_notation("XX./OO./...", 3).unwrap();
        for seed in 0..20 {
            let mut perfect = Perfect::new(Rules::TIC_TAC_TOE, seed).unwrap();
            assert_eq!(perfect.choose(&game), Some(Cell::new(0, 2)));
        }
    }

    #[test]
    fn wins_4x4_k3_as_first_player() {
        let rules = Rules::new(4, 4, 3).unwrap();
        for seed in 0..10 {
            let mut x = Perfect::new(rules, seed).unwrap();
            let mut o = Perfect::new(rules, seed + 1).unwrap();
            assert_eq!(
                play(&mut x, &mut o, rules).outcome(),
                Some(Outcome::Win(Player::X))
            );
        }
    }

    #[test]
    fn a_strong_table_gives_the_same_choices_as_the_search() {
        let rules = Rules::TIC_TAC_TOE;
        let table = Arc::new(StrongSolution::compute(rules).unwrap());
        for seed in 0..30 {
            // Same seed, same tie-breaks: the two must play the same game.
            let mut searching = Perfect::new(rules, seed).unwrap();
            let mut looking_up = Perfect::new(rules, seed)
                .unwrap()
                .with_table(Arc::clone(&table));
            let mut random = Random::new(seed);
            let mut game = Game::new(rules);
            while !game.is_over() {
                let cell = if game.to_move() == Player::X {
                    let a = searching.choose(&game);
                    assert!(
                        looking_up.best_from_table(&game).is_some(),
                        "{game} not in the table"
                    );
                    assert_eq!(a, looking_up.choose(&game), "{game}");
                    a
                } else {
                    random.choose(&game)
                };
                game.play(cell.unwrap()).unwrap();
            }
            assert_ne!(game.outcome(), Some(Outcome::Win(Player::O)));
        }
    }

    #[test]
    fn a_strong_table_is_not_misread_when_o_started() {
        let rules = Rules::TIC_TAC_TOE;
        let table = Arc::new(StrongSolution::compute(rules).unwrap());
        // O started and X is to move with equal counts: the table (X
        // started, so X to move means equal counts too) must not answer for
        // the wrong side, so the player searches and blocks O's line.
        let mut game = Game::starting_with(rules, Player::O);
        for (r, c) in [(2, 2), (1, 1), (2, 0)] {
            game.play(Cell::new(r, c)).unwrap();
        }
        assert_eq!(game.to_move(), Player::X);
        assert_eq!(table.get(&game), None);
        for seed in 0..10 {
            let mut x = Perfect::new(rules, seed)
                .unwrap()
                .with_table(Arc::clone(&table));
            assert_eq!(x.choose(&game), Some(Cell::new(2, 1)), "must block");
        }
        for seed in 0..20 {
            let mut x = Perfect::new(rules, seed)
                .unwrap()
                .with_table(Arc::clone(&table));
            let mut o = Perfect::new(rules, seed + 7)
                .unwrap()
                .with_table(Arc::clone(&table));
            let mut game = Game::starting_with(rules, Player::O);
            crate::play_out(&mut game, &mut x, &mut o).unwrap();
            assert_eq!(game.outcome(), Some(Outcome::Draw), "{game}");
        }
    }

    #[test]
    fn refuses_boards_it_cannot_finish() {
        assert!(Perfect::new(Rules::new(7, 7, 5).unwrap(), 0).is_err());
        assert!(Perfect::new(Rules::new(15, 15, 5).unwrap(), 0).is_err());
        assert!(Perfect::new(Rules::new(6, 6, 4).unwrap(), 0).is_ok());
        assert!(Perfect::new(Rules::new(4, 7, 4).unwrap(), 0).is_err());
    }
}
