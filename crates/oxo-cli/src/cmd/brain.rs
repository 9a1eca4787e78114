//! `oxo brain`: the Gomocup engine protocol on standard input and output.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use oxo_ai::StrategyKind;
use oxo_cli::exit;
use oxo_gomocup::{Brain, brain};

use crate::args::BrainArgs;
use crate::failure::BadInput;

pub(super) fn run(args: &BrainArgs) -> anyhow::Result<u8> {
    let kind = args.strategy;
    // Only the learned strategy reads a model: any other would ignore it
    // without a word.
    if args.model.is_some() && kind != StrategyKind::Learned {
        return Err(BadInput(format!(
            "--model is for --strategy learned; {} plays without one",
            kind.name()
        ))
        .into());
    }
    let catalog = super::catalog(args.model.as_slice(), None)?;
    // The board is known only at START: there a model given for another
    // board is refused (ERROR), as play and arena refuse it, instead of
    // the built-in model playing in its place.
    let path = args.model.clone();
    let seed = super::seed_or_clock(args.seed);
    let build = move |rules| {
        if let (Some(path), Err(wrong)) = (&path, catalog.given_fits(rules)) {
            // Boards as the protocol and the brain's other answers name
            // them: width x height.
            let wrong = match wrong {
                oxo_ai::ModelError::WrongBoard { model, rules } => format!(
                    "model trained for {}x{} k={}, not {}x{} k={} (width x height)",
                    model.cols(),
                    model.rows(),
                    model.k(),
                    rules.cols(),
                    rules.rows(),
                    rules.k()
                ),
                other => other.to_string(),
            };
            return Err(format!("{}: {wrong}", path.display()));
        }
        catalog
            .build(kind, rules, seed)
            .map_err(|e| crate::failure::with_flag_hints(e.to_string()))
    };
    let clock: oxo_ai::Clock = Arc::new(Instant::now);
    let mut brain = Brain::new(Box::new(build), clock, kind.name()).pondering(args.ponder);
    brain::run(&mut brain, io::stdin().lock(), super::stdout())?;
    if args.ponder {
        let pondered = brain.pondered();
        // One write, so that brains sharing a log (an arena runs games
        // side by side) never interleave their lines.
        let line = format!(
            "oxo brain: pondered on {} of the opponent's moves, guessed {} of them\n",
            pondered.started, pondered.hits
        );
        // A closed stderr is no reason to fail a finished session.
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }
    Ok(exit::SUCCESS)
}
