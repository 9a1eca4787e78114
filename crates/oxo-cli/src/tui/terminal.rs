//! The real terminal: raw mode, the alternate screen and mouse reports on
//! the way in, all undone on every way out: a normal return, an error, a
//! signal (SIGTERM, SIGHUP and SIGINT come to the event loop as
//! [`Input::Signal`], which ends the game as `q` does), or a panic (a hook
//! restores the terminal before the panic message is printed, so the
//! message is readable and the shell usable). Ctrl-Z hands the terminal
//! back while the game is stopped ([`Events::suspend`]).

use std::io::{self, Stdout};
use std::sync::Once;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use super::{Events, Input, Signal};

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
            take_over()?;
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

/// Raw mode, the alternate screen (cleared) and mouse reports, the cursor
/// hidden.
fn take_over() -> io::Result<()> {
    enable_raw_mode()?;
    // Cleared here rather than with `Terminal::clear`, which asks the
    // terminal where its cursor is and waits for the answer (an answer
    // the thread reading events would take).
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        Clear(ClearType::All),
        ratatui::crossterm::cursor::Hide
    )
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

/// Keys, clicks and resizes from the terminal, and the signals that end
/// the game. A thread reads the terminal and another waits for signals;
/// both send what they get here, so the loop waits on one queue.
#[derive(Debug)]
pub struct TerminalEvents {
    inputs: Receiver<io::Result<Input>>,
}

impl TerminalEvents {
    /// Start reading the terminal and listening for SIGTERM, SIGHUP and
    /// SIGINT (in place of their default action of ending the process
    /// with the terminal left in raw mode). Made before the terminal is
    /// taken over, so a signal that comes early is kept for the loop.
    ///
    /// # Errors
    /// The signals cannot be listened for.
    pub fn new() -> io::Result<TerminalEvents> {
        let (send, inputs) = mpsc::channel();
        #[cfg(unix)]
        {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let mut signals = {
                let _entered = runtime.enter();
                unix::Signals::new()?
            };
            let send = send.clone();
            std::thread::spawn(move || {
                // The game ends on the first; later ones have nothing
                // left to end.
                let signal = runtime.block_on(signals.recv());
                let _ = send.send(Ok(Input::Signal(signal)));
            });
        }
        std::thread::spawn(move || {
            loop {
                let read = event::read().map(Input::Event);
                let failed = read.is_err();
                // Ends with the game (the receiver gone) or on a failed
                // read (the terminal gone: it would fail again).
                if send.send(read).is_err() || failed {
                    return;
                }
            }
        });
        Ok(TerminalEvents { inputs })
    }
}

impl Events for TerminalEvents {
    fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Input>> {
        let input = match timeout {
            Some(timeout) => match self.inputs.recv_timeout(timeout) {
                Ok(input) => input,
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            },
            None => match self.inputs.recv() {
                Ok(input) => input,
                Err(mpsc::RecvError) => return Ok(None),
            },
        };
        input.map(Some)
    }

    /// Hand the terminal back, stop this process group as Ctrl-Z would
    /// outside raw mode (SIGTSTP, whose default action stops), and take
    /// the terminal over again once continued (`fg`). Elsewhere than on
    /// Unix, nothing.
    fn suspend(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        {
            restore();
            // Returns once the process is continued.
            rustix::process::kill_current_process_group(rustix::process::Signal::TSTP)?;
            take_over()?;
        }
        Ok(())
    }
}

#[cfg(unix)]
mod unix {
    use std::io;

    use tokio::signal::unix::{Signal as Listener, SignalKind, signal};

    use super::Signal;

    /// SIGTERM, SIGHUP and SIGINT, listened for from the moment this is
    /// made.
    pub(super) struct Signals {
        terminate: Listener,
        hangup: Listener,
        interrupt: Listener,
    }

    impl Signals {
        /// Listen, within a Tokio runtime.
        pub(super) fn new() -> io::Result<Signals> {
            Ok(Signals {
                terminate: signal(SignalKind::terminate())?,
                hangup: signal(SignalKind::hangup())?,
                interrupt: signal(SignalKind::interrupt())?,
            })
        }

        /// The next signal.
        pub(super) async fn recv(&mut self) -> Signal {
            tokio::select! {
                _ = self.terminate.recv() => Signal::Terminate,
                _ = self.hangup.recv() => Signal::Hangup,
                _ = self.interrupt.recv() => Signal::Interrupt,
            }
        }
    }
}
