//! The real terminal: raw mode, the alternate screen and mouse reports on
//! the way in, all undone on every way out: a normal return, an error, a
//! signal (SIGTERM, SIGHUP, SIGINT and SIGQUIT come to the event loop as
//! [`Input::Signal`], which ends the game as `q` does), or a panic (a hook
//! restores the terminal before the panic message is printed, so the
//! message is readable and the shell usable). Ctrl-Z hands the terminal
//! back while the game is stopped ([`Events::suspend`]); after a stop from
//! elsewhere the game takes the terminal back when continued
//! ([`Input::Continued`]).

use std::io::{self, Stdout};
use std::mem::ManuallyDrop;
use std::sync::Once;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste,
};
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{Command, execute};

use super::{Events, Input, Signal};

/// The terminal in full-screen mode; dropping it restores the terminal.
#[derive(Debug)]
pub struct FullScreen {
    /// Never dropped: ratatui's `Terminal` shows the cursor when dropped
    /// and, when that fails, prints to stderr, which panics once the
    /// terminal is gone (a hangup). [`restore`] shows the cursor instead,
    /// ignoring what fails; the few buffers left go with the process.
    terminal: ManuallyDrop<Terminal<CrosstermBackend<Stdout>>>,
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
            take_over(true)?;
            let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
            terminal.hide_cursor()?;
            Ok(terminal)
        })();
        match entered {
            Ok(terminal) => Ok(FullScreen {
                terminal: ManuallyDrop::new(terminal),
            }),
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

/// Raw mode, the alternate screen (cleared), pastes marked as such (so
/// that pasted text is not read as keys: a `q` in it would quit) and, when
/// `mouse`, reports of mouse clicks, the cursor hidden.
fn take_over(mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    // Cleared here rather than with `Terminal::clear`, which asks the
    // terminal where its cursor is and waits for the answer (an answer
    // the thread reading events would take).
    execute!(io::stdout(), EnterAlternateScreen)?;
    // Where the console cannot (legacy Windows consoles), pastes come as
    // keys, as before.
    let _ = execute!(io::stdout(), EnableBracketedPaste);
    if mouse {
        execute!(io::stdout(), ClickReports)?;
    }
    execute!(
        io::stdout(),
        Clear(ClearType::All),
        ratatui::crossterm::cursor::Hide
    )
}

/// Ask the terminal to report mouse buttons pressed and released, in SGR
/// form, and nothing else: no motion, which crossterm's
/// `EnableMouseCapture` asks for too, so that a pointer moved across the
/// window sends nothing (the game uses only clicks). `DisableMouseCapture`
/// turns off this and more.
struct ClickReports;

impl Command for ClickReports {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1000h\x1b[?1006h")
    }

    /// Windows consoles take mouse input as a console mode, not as an
    /// escape sequence: crossterm's own capture sets it.
    #[cfg(windows)]
    fn execute_winapi(&self) -> io::Result<()> {
        event::EnableMouseCapture.execute_winapi()
    }

    #[cfg(windows)]
    fn is_ansi_code_supported(&self) -> bool {
        false
    }
}

/// Back to the terminal as it was, the steps of [`take_over`] undone in
/// reverse (on Windows, undoing the mouse mode puts back the console mode
/// saved when it was set, raw, so raw mode is undone after it); each step
/// is tried whatever failed before it.
fn restore() {
    let mut out = io::stdout();
    let _ = execute!(out, ratatui::crossterm::cursor::Show);
    let _ = execute!(out, DisableMouseCapture);
    let _ = execute!(out, DisableBracketedPaste);
    let _ = execute!(out, LeaveAlternateScreen);
    let _ = disable_raw_mode();
}

/// The error number of a read from a terminal that was hung up (Linux and
/// the BSDs alike).
const EIO: i32 = 5;

/// Whether `err`, from drawing on or reading the terminal, says the
/// terminal was hung up (EIO), itself or as the backend's error it wraps:
/// the game then ends as SIGHUP ends it, whichever came first.
#[must_use]
pub fn hung_up(err: &io::Error) -> bool {
    let inner = err.get_ref().and_then(|e| e.downcast_ref::<io::Error>());
    [Some(err), inner]
        .into_iter()
        .flatten()
        .any(|e| e.raw_os_error() == Some(EIO))
}

/// Keys, clicks and resizes from the terminal, and the signals that end
/// the game. A thread reads the terminal and another waits for signals;
/// both send what they get here, so the loop waits on one queue.
#[derive(Debug)]
pub struct TerminalEvents {
    inputs: Receiver<io::Result<Input>>,
    /// Whether the terminal reports clicks: [`FullScreen::enter`] asks it
    /// to, `m` turns it off and on.
    mouse: bool,
}

impl TerminalEvents {
    /// Start reading the terminal and listening for SIGTERM, SIGHUP, SIGINT
    /// and SIGQUIT (in place of their default action of ending the process
    /// with the terminal left in raw mode), and for SIGCONT. Made before the terminal is
    /// taken over, so a signal that comes early is kept for the loop.
    ///
    /// # Errors
    /// The signals cannot be listened for.
    pub fn new() -> io::Result<TerminalEvents> {
        let (send, inputs) = mpsc::channel();
        let signalled = send.clone();
        // The game ends on the first; later ones have nothing left to end.
        crate::signals::on_signal(crate::signals::Signals::for_terminal, move |signal| {
            let _ = signalled.send(Ok(Input::Signal(signal)));
        })?;
        #[cfg(unix)]
        on_continue(send.clone())?;
        std::thread::spawn(move || {
            loop {
                let read = match event::read() {
                    Ok(event) => Ok(Input::Event(event)),
                    // EIO: the terminal was hung up (its window closed, the
                    // connection lost). The hangup's SIGHUP goes to the
                    // session's leader, the shell, which may or may not pass
                    // it on, and may come after this: the game ends as the
                    // signal would end it.
                    Err(e) if e.raw_os_error() == Some(EIO) => Ok(Input::Signal(Signal::Hangup)),
                    Err(e) => Err(e),
                };
                let failed = !matches!(read, Ok(Input::Event(_)));
                // Ends with the game (the receiver gone) or once the
                // terminal is gone (a read would fail again).
                if send.send(read).is_err() || failed {
                    return;
                }
            }
        });
        Ok(TerminalEvents {
            inputs,
            mouse: true,
        })
    }
}

/// Send [`Input::Continued`] each time the process is continued after a
/// stop (SIGCONT). A stop the game did not ask for (SIGTSTP or SIGSTOP
/// sent from elsewhere: Ctrl-Z at the game is a key) leaves raw mode and
/// the alternate screen to the shell, which restores its own modes, not
/// the game's; after Ctrl-Z the game has taken them back already, and
/// taking them again only draws the screen once more.
#[cfg(unix)]
fn on_continue(send: mpsc::Sender<io::Result<Input>>) -> io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut continued = {
        let _entered = runtime.enter();
        signal(SignalKind::from_raw(rustix::process::Signal::CONT.as_raw()))?
    };
    std::thread::spawn(move || {
        runtime.block_on(async {
            while continued.recv().await.is_some() {
                if send.send(Ok(Input::Continued)).is_err() {
                    return;
                }
            }
        });
    });
    Ok(())
}

/// How often a wait on the terminal checks that the terminal is still
/// there.
const HANGUP_CHECK: Duration = Duration::from_secs(1);

/// Whether standard output's terminal was hung up: asking it for its modes
/// fails with EIO then. Needed because on a hangup crossterm's reader
/// neither returns an error nor an event (it reads end-of-file over and
/// over), and the SIGHUP may never come: a shell passes it on to a job only
/// if it is interactive, and not to a game in a session of its own (`setsid`).
fn terminal_hung_up() -> bool {
    #[cfg(unix)]
    {
        hung_up_terminal(io::stdout())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Whether `fd` is a terminal that was hung up: asked for its modes, it
/// fails with EIO (a pipe or file fails otherwise).
#[cfg(unix)]
fn hung_up_terminal(fd: impl rustix::fd::AsFd) -> bool {
    matches!(rustix::termios::tcgetattr(fd), Err(e) if e.raw_os_error() == EIO)
}

/// Whether standard input or output is a terminal that was hung up (asked
/// for its modes, it fails with EIO): for the line protocol, whose read of
/// a terminal gone away fails with EIO if it was waiting, and finds the
/// end of the input if it came later. A pipe or file never is one.
#[must_use]
pub fn line_terminal_hung_up() -> bool {
    #[cfg(unix)]
    {
        terminal_hung_up() || hung_up_terminal(io::stdin())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

impl Events for TerminalEvents {
    /// The next input, or `None` once `timeout` has passed. A terminal found
    /// hung up while waiting is [`Signal::Hangup`], as its SIGHUP would be.
    fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Input>> {
        let deadline = timeout.map(|timeout| Instant::now() + timeout);
        loop {
            let left = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
            let wait = left.map_or(HANGUP_CHECK, |left| left.min(HANGUP_CHECK));
            match self.inputs.recv_timeout(wait) {
                Ok(input) => return input.map(Some),
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if terminal_hung_up() {
                return Ok(Some(Input::Signal(Signal::Hangup)));
            }
            if left.is_some_and(|left| left <= wait) {
                return Ok(None);
            }
        }
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
            take_over(self.mouse)?;
        }
        Ok(())
    }

    fn resume(&mut self) -> io::Result<()> {
        // crossterm believes raw mode is still on, and would leave the
        // terminal as the shell left it: undone first, raw mode is set anew.
        let _ = disable_raw_mode();
        take_over(self.mouse)
    }

    fn set_mouse(&mut self, on: bool) -> io::Result<()> {
        self.mouse = on;
        if on {
            execute!(io::stdout(), ClickReports)
        } else {
            execute!(io::stdout(), DisableMouseCapture)
        }
    }
}
