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
    // Only a search that stops at its deadline can think on the
    // opponent's time; it also depends on the machine's speed.
    let to_deadline = matches!(kind, StrategyKind::AlphaBeta | StrategyKind::Learned);
    if args.ponder && !to_deadline {
        return Err(BadInput(format!(
            "--ponder is for --strategy alphabeta or learned, which search until a deadline; {} \
             answers at once",
            kind.name()
        ))
        .into());
    }
    let catalog = super::catalog(args.model.as_slice(), None)?;
    // A brain plays five in a row (Gomocup's rules): a model for another k
    // could never play, and would answer every START with an ERROR.
    if let Some(path) = &args.model
        && let Some(model) = catalog.models().find(|m| m.rules().k() != oxo_gomocup::K)
    {
        return Err(BadInput(format!(
            "{}: model trained for k={}, but a Gomocup brain plays five in a row: train one with \
             --k 5 on the tournament's board",
            path.display(),
            model.rules().k()
        ))
        .into());
    }
    // The board is known only at START: there a model given for another
    // board is refused (ERROR), as play and arena refuse it, instead of
    // the built-in model playing in its place.
    let path = args.model.clone();
    let seed = super::seed_or_clock(args.seed);
    // A seed taken from the clock is said, so that a game can be played
    // again; a search that stops at a deadline depends on the machine's
    // speed too.
    let message = args.seed.is_none().then(|| {
        if to_deadline {
            format!(
                "oxo brain: the computer plays with seed {seed} (--seed {seed} makes the same \
                 random choices again; its search, which stops at a deadline, may still choose \
                 otherwise)"
            )
        } else {
            super::seed_note("oxo brain", seed)
        }
    });
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
    if let Some(message) = &message {
        // To the manager, before the first answer: not on standard error,
        // which Piskvork reads as the brain's output.
        brain = brain.saying(message);
    }
    brain::run(&mut brain, io::stdin().lock(), super::stdout())?;
    if args.ponder {
        let pondered = brain.pondered();
        // One write, so that brains sharing a log (an arena runs games
        // side by side) never interleave their lines.
        let line = format!(
            "oxo brain: pondered on {} of the opponent's moves, guessed {} of them\n",
            pondered.met, pondered.hits
        );
        // A closed stderr is no reason to fail a finished session.
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }
    Ok(exit::SUCCESS)
}
