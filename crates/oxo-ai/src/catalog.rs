//! The strategies a program offers, with the models it was given.

use std::sync::Arc;

use oxo_core::Rules;

use crate::learned::{self, Learned, Model, ModelError};
use crate::{AlphaBeta, BuildError, Perfect, Strategy, StrategyKind};

/// The strategies on offer: every [`StrategyKind`], the `learned` player
/// using a model given here for its board, or else oxo's built-in one.
///
/// Cheap to clone (the models are shared).
///
/// ```
/// use oxo_ai::{Catalog, StrategyKind};
/// use oxo_core::Rules;
///
/// let catalog = Catalog::default();
/// assert!(catalog.check(StrategyKind::Learned, Rules::TIC_TAC_TOE).is_ok());
/// assert!(catalog.check(StrategyKind::Learned, Rules::new(9, 9, 5)?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    models: Vec<Arc<Model>>,
    /// Positions `perfect` may search for one move (`None`: no limit).
    perfect_budget: Option<u64>,
    /// Positions `alphabeta` and searching `learned` players search a move
    /// (`None`: their own default).
    search_budget: Option<u64>,
}

impl Catalog {
    /// This catalog with `perfect` searching at most `nodes` positions a
    /// move, playing alphabeta's move when a position needs more (see
    /// [`Perfect::with_budget`]); `None` for no limit (the default).
    #[must_use]
    pub fn with_perfect_budget(mut self, nodes: Option<u64>) -> Catalog {
        self.perfect_budget = nodes;
        self
    }

    /// This catalog with `alphabeta`, and `learned` players where they
    /// search, searching `nodes` positions a move ([`AlphaBeta::with_budget`],
    /// [`Learned::with_budget`]); `None` for their default,
    /// [`AlphaBeta::DEFAULT_BUDGET`].
    #[must_use]
    pub fn with_search_budget(mut self, nodes: Option<u64>) -> Catalog {
        self.search_budget = nodes;
        self
    }

    /// The budget `perfect` gets, if any.
    #[must_use]
    pub const fn perfect_budget(&self) -> Option<u64> {
        self.perfect_budget
    }

    /// This catalog with `model` for its board, in place of any model it
    /// had for that board (the built-in one included).
    #[must_use]
    pub fn with_model(mut self, model: Model) -> Catalog {
        self.models.retain(|m| m.rules() != model.rules());
        self.models.push(Arc::new(model));
        self
    }

    /// The models given (not the built-in ones).
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.models.iter().map(|m| &**m)
    }

    /// Whether a model was given for `rules`, when any was given: a
    /// caller that takes one model from its user (a `--model` file) refuses
    /// another board with this, rather than let the built-in model play
    /// in its place. `Ok` when no model was given.
    ///
    /// # Errors
    /// [`ModelError::WrongBoard`], naming the first model's board.
    pub fn given_fits(&self, rules: Rules) -> Result<(), ModelError> {
        match self.models.first() {
            Some(first) if !self.models.iter().any(|m| m.rules() == rules) => {
                first.check_rules(rules)
            }
            _ => Ok(()),
        }
    }

    /// The model `learned` plays with under `rules`: a given one, or else
    /// the built-in one.
    #[must_use]
    pub fn model(&self, rules: Rules) -> Option<Model> {
        self.models
            .iter()
            .find(|m| m.rules() == rules)
            .map(|m| (**m).clone())
            .or_else(|| learned::builtin_model(rules))
    }

    /// Every board `learned` can play: the given models' and the built-in
    /// ones, each once.
    #[must_use]
    pub fn learned_boards(&self) -> Vec<Rules> {
        let mut boards: Vec<Rules> = learned::builtin_boards().collect();
        for model in &self.models {
            if !boards.contains(&model.rules()) {
                boards.push(model.rules());
            }
        }
        boards
    }

    /// Whether `kind` can play under `rules`, without building it.
    ///
    /// # Errors
    /// [`BuildError::Unsupported`], with the reason.
    pub fn check(&self, kind: StrategyKind, rules: Rules) -> Result<(), BuildError> {
        if kind == StrategyKind::Learned && self.models.iter().any(|m| m.rules() == rules) {
            return Ok(());
        }
        kind.check(rules)
    }

    /// A player of `kind` for `rules`, its random choices fixed by `seed`.
    ///
    /// # Errors
    /// `kind` cannot play under `rules` (see [`Catalog::check`]).
    pub fn build(
        &self,
        kind: StrategyKind,
        rules: Rules,
        seed: u64,
    ) -> Result<Box<dyn Strategy>, BuildError> {
        if kind == StrategyKind::Perfect
            && let Some(nodes) = self.perfect_budget
        {
            kind.check(rules)?;
            let perfect = Perfect::new(rules, seed).map_err(|e| BuildError::Unsupported {
                strategy: kind,
                rules,
                reason: e.to_string(),
            })?;
            return Ok(Box::new(perfect.with_budget(nodes, seed)));
        }
        if kind == StrategyKind::AlphaBeta
            && let Some(nodes) = self.search_budget
        {
            kind.check(rules)?;
            return Ok(Box::new(AlphaBeta::new(seed).with_budget(nodes)));
        }
        if kind != StrategyKind::Learned {
            return kind.build(rules, seed);
        }
        self.check(kind, rules)?;
        let unsupported = |reason: String| BuildError::Unsupported {
            strategy: kind,
            rules,
            reason,
        };
        let model = self
            .model(rules)
            .ok_or_else(|| unsupported("the built-in model cannot be read".to_owned()))?;
        let learned = Learned::new(model, rules, seed).map_err(|e| unsupported(e.to_string()))?;
        Ok(match self.search_budget {
            Some(nodes) => Box::new(learned.with_budget(nodes)),
            None => Box::new(learned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_core::Game;

    #[test]
    fn a_search_budget_reaches_the_searching_players() {
        let rules = Rules::new(7, 7, 5).unwrap();
        let catalog = Catalog::default().with_search_budget(Some(50));
        for kind in [StrategyKind::AlphaBeta, StrategyKind::Learned] {
            let mut player = catalog.build(kind, rules, 1).unwrap();
            let game = Game::new(rules);
            let cell = player.choose(&game).unwrap();
            assert!(game.legal_moves().any(|c| c == cell), "{kind}");
        }
    }

    #[test]
    fn a_given_model_adds_a_board_for_learned() {
        let rules = Rules::new(3, 4, 3).unwrap();
        let catalog = Catalog::default();
        assert!(catalog.check(StrategyKind::Learned, rules).is_err());
        assert!(catalog.build(StrategyKind::Learned, rules, 1).is_err());
        let catalog = catalog.with_model(Model::new(rules));
        assert!(catalog.check(StrategyKind::Learned, rules).is_ok());
        let mut player = catalog.build(StrategyKind::Learned, rules, 1).unwrap();
        assert!(player.choose(&Game::new(rules)).is_some());
        assert!(catalog.learned_boards().contains(&rules));
        assert!(catalog.learned_boards().contains(&Rules::TIC_TAC_TOE));
        // Other kinds are as StrategyKind builds them.
        assert!(
            catalog
                .check(StrategyKind::Perfect, Rules::new(9, 9, 5).unwrap())
                .is_err()
        );
    }

    #[test]
    fn a_given_model_replaces_the_built_in_one() {
        let rules = Rules::TIC_TAC_TOE;
        let untrained = Model::new(rules);
        let catalog = Catalog::default().with_model(untrained.clone());
        assert_eq!(catalog.model(rules), Some(untrained.clone()));
        assert_ne!(Catalog::default().model(rules), Some(untrained.clone()));
        assert_eq!(catalog.with_model(untrained).models().count(), 1);
    }

    #[test]
    fn given_models_fit_their_boards_only_and_no_model_fits_every_board() {
        let gomoku = Rules::new(15, 15, 5).unwrap();
        assert!(Catalog::default().given_fits(gomoku).is_ok());
        let small = Rules::new(3, 4, 3).unwrap();
        let catalog = Catalog::default().with_model(Model::new(small));
        assert!(catalog.given_fits(small).is_ok());
        // Tic-tac-toe has a built-in model, but a model was given for
        // another board: refused, not played with the built-in one.
        assert!(matches!(
            catalog.given_fits(Rules::TIC_TAC_TOE),
            Err(ModelError::WrongBoard { model, rules })
                if model == small && rules == Rules::TIC_TAC_TOE
        ));
        let both = catalog.with_model(Model::new(gomoku));
        assert!(both.given_fits(gomoku).is_ok());
        assert!(both.given_fits(small).is_ok());
    }
}
