//! `oxo arena`: computer players against each other.

use std::io::{self, Write};
use std::time::Instant;

use oxo_cli::arena::{self, ArenaError};
use oxo_cli::exit;
use oxo_core::Player;

use crate::args::ArenaArgs;
use crate::failure::BadInput;

fn config(args: &ArenaArgs) -> anyhow::Result<arena::Config> {
    let threads = match args.threads {
        Some(n) => usize::try_from(n)?,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let rules = super::rules(&args.board)?;
    for strategy in [args.x, args.o] {
        strategy.check(rules).map_err(BadInput::from_error)?;
    }
    Ok(arena::Config {
        rules,
        x: args.x,
        o: args.o,
        games: args.games,
        first: args.first.map(Player::from),
        seed: super::seed_or_clock(args.seed),
        threads,
    })
}

pub(super) fn run(args: &ArenaArgs) -> anyhow::Result<u8> {
    let config = config(args)?;
    let status = super::StatusLine::new();
    let start = Instant::now();
    let results = arena::run(&config, |done| {
        let width = 30;
        let filled = (done * width / config.games) as usize;
        status.show(format_args!(
            "[{}{}] {done}/{} games",
            "#".repeat(filled),
            ".".repeat(width as usize - filled),
            config.games
        ));
    })
    .map_err(|e| match e {
        ArenaError::Build(err) => BadInput::from_error(err),
        other => other.into(),
    })?;
    status.clear();
    let elapsed = start.elapsed();
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", arena::json(&config, &results, elapsed))?;
    } else {
        write!(out, "{}", arena::table(&config, &results, elapsed))?;
    }
    Ok(exit::SUCCESS)
}
