//! The real terminal: raw mode, the alternate screen and mouse reports on
//! the way in, all undone on every way out: a normal return, an error, or
//! a panic (a hook restores the terminal before the panic message is
//! printed, so the message is readable and the shell usable).

use std::io::{self, Stdout};
use std::sync::Once;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use super::Events;

/// The terminal in full-screen mode; dropping it restores the terminal.
#[derive(Debug)]
pub struct FullScreen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl FullScreen {
    /// Take over the terminal.
    ///
    /// # Errors
    /// The terminal refused raw mode or the alternate screen (it was
    /// restored again).
    pub fn enter() -> io::Result<FullScreen> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        let entered = (|| {
            enable_raw_mode()?;
            // Cleared here rather than with `Terminal::clear`, which asks
            // the terminal where its cursor is and waits for the answer.
            execute!(
                io::stdout(),
                EnterAlternateScreen,
                EnableMouseCapture,
                Clear(ClearType::All)
            )?;
            let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
            terminal.hide_cursor()?;
            Ok(terminal)
        })();
        match entered {
            Ok(terminal) => Ok(FullScreen { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }

    /// The terminal to draw on.
    pub fn terminal(&mut self) -> &mut Terminal<CrosstermBackend<Stdout>> {
        &mut self.terminal
    }
}

impl Drop for FullScreen {
    fn drop(&mut self) {
        restore();
    }
}

/// Back to the terminal as it was; each step is tried whatever failed
/// before it.
fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Keys, clicks and resizes from the terminal.
#[derive(Clone, Copy, Debug, Default)]
pub struct TerminalEvents;

impl Events for TerminalEvents {
    fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Event>> {
        match timeout {
            Some(timeout) if !event::poll(timeout)? => Ok(None),
            _ => event::read().map(Some),
        }
    }
}
