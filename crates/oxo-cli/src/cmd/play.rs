//! `oxo play`: the console game, people and computer players.

use std::io;
use std::sync::Arc;

use oxo_ai::{PlayerKind, StrategyKind, StrongSolution};
use oxo_cli::{exit, play};

use crate::args::PlayArgs;
use crate::failure::BadInput;

/// `oxo play`, validated: every seat can be built on this board.
#[derive(Debug)]
struct Config {
    game: play::Config,
    seats: [PlayerKind; 2],
    seed: u64,
    table: Option<Arc<StrongSolution>>,
    catalog: oxo_ai::Catalog,
}

impl Config {
    fn new(args: &PlayArgs) -> anyhow::Result<Config> {
        let game = play::Config {
            rules: super::rules(&args.board)?,
            rounds: args.rounds,
            first: args.first.into(),
        };
        let catalog = super::catalog(args.model.as_slice(), Some(game.rules))?;
        for kind in [args.x_player, args.o_player] {
            if let PlayerKind::Computer(strategy) = kind {
                catalog
                    .check(strategy, game.rules)
                    .map_err(BadInput::from_error)?;
            }
        }
        let table = match &args.table {
            Some(path) => Some(Arc::new(super::load_table(path, game.rules)?)),
            None => None,
        };
        Ok(Config {
            game,
            seats: [args.x_player, args.o_player],
            seed: super::seed_or_clock(args.seed),
            table,
            catalog,
        })
    }

    /// The player in a seat, its random choices fixed by `seed`.
    fn seat(&self, kind: PlayerKind, seed: u64) -> anyhow::Result<Box<dyn play::Seat>> {
        let rules = self.game.rules;
        Ok(match (kind, &self.table) {
            (PlayerKind::Human, _) => Box::new(play::Human),
            (PlayerKind::Computer(StrategyKind::Perfect), Some(table)) => {
                let perfect = oxo_ai::Perfect::new(rules, seed)
                    .map_err(BadInput::from_error)?
                    .with_table(Arc::clone(table));
                Box::new(play::Computer::new(Box::new(perfect)))
            }
            (PlayerKind::Computer(strategy), _) => Box::new(play::Computer::new(
                self.catalog
                    .build(strategy, rules, seed)
                    .map_err(BadInput::from_error)?,
            )),
        })
    }
}

pub(super) fn run(args: &PlayArgs) -> anyhow::Result<u8> {
    let config = Config::new(args)?;
    let mut seats = [
        config.seat(config.seats[0], config.seed)?,
        config.seat(config.seats[1], config.seed ^ 0x9E37_79B9_7F4A_7C15)?,
    ];
    // Every session speaks the plain protocol, on a terminal or not: it is
    // what --plain and pipes promise, and the only interface so far.
    let (stdin, stdout) = (io::stdin().lock(), io::stdout().lock());
    if let play::End::InputEnded(_) = play::run(&config.game, &mut seats, stdin, stdout)? {
        eprintln!("oxo: end of input, game abandoned");
    }
    Ok(exit::SUCCESS)
}
