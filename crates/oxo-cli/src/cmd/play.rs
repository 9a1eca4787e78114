//! `oxo play`: the console game, people and computer players.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;

use oxo_ai::{PlayerKind, StrategyKind, StrongSolution};
use oxo_cli::{exit, tui};
use oxo_text::play;

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
        // A file only one kind of player reads, given with no such player,
        // would be ignored without a word.
        let seats = [args.x_player, args.o_player];
        for (given, kind, flag) in [
            (args.model.is_some(), StrategyKind::Learned, "--model"),
            (args.table.is_some(), StrategyKind::Perfect, "--table"),
        ] {
            if given && !seats.contains(&PlayerKind::Computer(kind)) {
                return Err(BadInput(format!(
                    "{flag} is for a {kind} player, and neither plays {kind}: X is {}, O is {}",
                    seats[0], seats[1]
                ))
                .into());
            }
        }
        let catalog = super::catalog(args.model.as_slice(), Some(game.rules))?;
        for kind in seats {
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

    /// The computer player in a seat (`None` for a person), its random
    /// choices fixed by `seed`.
    fn strategy(
        &self,
        kind: PlayerKind,
        seed: u64,
    ) -> anyhow::Result<Option<Box<dyn oxo_ai::Strategy>>> {
        let rules = self.game.rules;
        Ok(match (kind, &self.table) {
            (PlayerKind::Human, _) => None,
            (PlayerKind::Computer(StrategyKind::Perfect), Some(table)) => {
                let perfect = oxo_ai::Perfect::new(rules, seed)
                    .map_err(BadInput::from_error)?
                    .with_table(Arc::clone(table));
                Some(Box::new(perfect))
            }
            (PlayerKind::Computer(strategy), _) => Some(
                self.catalog
                    .build(strategy, rules, seed)
                    .map_err(BadInput::from_error)?,
            ),
        })
    }
}

pub(super) fn run(args: &PlayArgs) -> anyhow::Result<u8> {
    let config = Config::new(args)?;
    let strategies = [
        config.strategy(config.seats[0], config.seed)?,
        config.strategy(config.seats[1], config.seed ^ 0x9E37_79B9_7F4A_7C15)?,
    ];
    // A seed taken from the clock is said, so that a game against the
    // computer can be played again.
    let computer = config
        .seats
        .iter()
        .any(|s| matches!(s, PlayerKind::Computer(_)));
    let said_seed = (args.seed.is_none() && computer).then_some(config.seed);
    // The full-screen game needs a terminal on both sides that can draw
    // it; anything else (and --plain) gets the seed's line protocol.
    if !args.plain
        && io::stdin().is_terminal()
        && io::stdout().is_terminal()
        && draws_screens(std::env::var_os("TERM").as_deref())
    {
        let exit = full_screen(&config, strategies);
        if let Some(seed) = said_seed {
            note!("{}", super::seed_note("oxo", seed));
        }
        return exit;
    }
    if let Some(seed) = said_seed {
        note!("{}", super::seed_note("oxo", seed));
    }
    let mut seats = strategies.map(|strategy| -> Box<dyn play::Seat> {
        match strategy {
            None => Box::new(play::Human),
            Some(strategy) => Box::new(play::Computer::new(strategy)),
        }
    });
    let console = play::Console {
        input: io::stdin().lock(),
        output: super::stdout(),
        notes: crate::stderr::Notes,
    };
    // The terminal went away under the game (a read waiting on it fails
    // with EIO, a later one finds the end of the input; asked for its
    // modes, it fails with EIO): ended as a hang-up ends the full-screen
    // game, quietly. An EIO from a file or pipe is an error as any other.
    let hangup = Ok(tui::Signal::Hangup.exit_code());
    match play::run(&config.game, &mut seats, console) {
        Ok(play::End::InputEnded(_)) if tui::terminal::line_terminal_hung_up() => return hangup,
        Ok(play::End::InputEnded(_)) => note!("oxo: end of input, game abandoned"),
        Ok(play::End::Finished(_) | play::End::Quit(_)) => {}
        Err(e) if tui::terminal::hung_up(&e) && tui::terminal::line_terminal_hung_up() => {
            return hangup;
        }
        Err(e) => return Err(e.into()),
    }
    Ok(exit::SUCCESS)
}

/// The full-screen game, until the person quits; the score is printed
/// once the terminal is back to normal.
fn full_screen(
    config: &Config,
    strategies: [Option<Box<dyn oxo_ai::Strategy>>; 2],
) -> anyhow::Result<u8> {
    let seats = strategies.map(|strategy| strategy.map_or(tui::Seat::Human, tui::Seat::Computer));
    let mut app = tui::App::new(config.game.rules, seats, config.game.first);
    let palette = tui::Palette::from_no_color(std::env::var_os("NO_COLOR").as_deref());
    // Listening before the terminal is taken over: a signal from then on
    // ends the game as q does, the terminal restored and the score printed.
    let mut events = tui::terminal::TerminalEvents::new()?;
    let mut hinter = tui::hints::Threaded::start()?;
    let end = {
        let mut screen = tui::terminal::FullScreen::enter()?;
        match tui::run(
            &mut app,
            screen.terminal(),
            &mut events,
            &mut hinter,
            palette,
        ) {
            Ok(end) => end,
            Err(e) if tui::terminal::hung_up(&e) => tui::End::Signal(tui::Signal::Hangup),
            Err(e) => return Err(e.into()),
        }
    };
    let score = writeln!(super::stdout(), "Score: {}", app.score());
    match end {
        tui::End::Quit => {
            score?;
            Ok(exit::SUCCESS)
        }
        // After a hangup there may be no terminal to print on; the exit
        // code still says what ended the game (128 and the signal's
        // number, as `oxo arena` exits).
        tui::End::Signal(signal) => Ok(signal.exit_code()),
    }
}

/// Whether a terminal of type `term` (`$TERM`) can draw the full-screen
/// game: on Unix, not a `dumb` one (Emacs's shell, some serial consoles),
/// nor one that names no type at all; elsewhere (Windows consoles set no
/// `TERM`), any.
fn draws_screens(term: Option<&std::ffi::OsStr>) -> bool {
    !cfg!(unix) || term.is_some_and(|term| !term.is_empty() && term != "dumb")
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    #[test]
    fn a_dumb_terminal_or_none_named_gets_the_line_protocol() {
        for (term, full_screen) in [
            (Some("xterm-256color"), true),
            (Some("screen"), true),
            (Some("dumb"), false),
            (Some(""), false),
            (None, false),
        ] {
            assert_eq!(
                super::draws_screens(term.map(OsStr::new)),
                full_screen,
                "{term:?}"
            );
        }
    }
}
