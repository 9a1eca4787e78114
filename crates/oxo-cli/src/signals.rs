//! The signals that stop a command: Ctrl-C (SIGINT), SIGTERM and, for the
//! full-screen game, SIGHUP and SIGQUIT. They are listened for in place of their
//! default action, so that a command ends its own way (an arena's engines
//! ended, a proof's checkpoint kept, a server's requests finished, the
//! terminal restored), and then exits with 128 and the signal's number, as
//! a program the signal had ended would.

use std::io;
use std::time::Duration;

/// A second signal within this time of the first is the same stop sent
/// twice, not a second Ctrl-C: `timeout -s INT` sends its signal to the
/// command and then to the command's process group. A command that stops
/// gently on the first signal and at once on the second ignores such a
/// repeat.
pub const SAME_STOP: Duration = Duration::from_secs(1);

/// A signal asking a command to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP: the terminal went away.
    Hangup,
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGQUIT (Ctrl-\\ outside raw mode).
    Quit,
}

impl Signal {
    /// The exit code of a program this signal ended: 128 and its number.
    #[must_use]
    pub const fn exit_code(self) -> u8 {
        match self {
            Signal::Hangup => 129,
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
            Signal::Quit => 131,
        }
    }

    /// The signal's name, such as `SIGINT`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Signal::Hangup => "SIGHUP",
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Quit => "SIGQUIT",
        }
    }
}

/// Ctrl-C and SIGTERM, and SIGHUP and SIGQUIT when asked for, listened for from the
/// moment this is made (a signal that comes before [`Signals::recv`] is
/// asked is kept for it). Elsewhere than on Unix, only Ctrl-C, and only
/// from the first `recv`.
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    /// SIGHUP and SIGQUIT, for a command on a terminal.
    #[cfg(unix)]
    terminal: Option<[tokio::signal::unix::Signal; 2]>,
}

impl Signals {
    /// Listen for Ctrl-C and SIGTERM, within a Tokio runtime.
    ///
    /// # Errors
    /// The system refused a signal handler.
    pub fn new() -> io::Result<Signals> {
        Signals::listen(false)
    }

    /// Listen for SIGHUP and SIGQUIT too, within a Tokio runtime: what
    /// ends a command that holds the terminal in raw mode, which must be
    /// restored.
    ///
    /// # Errors
    /// The system refused a signal handler.
    pub fn for_terminal() -> io::Result<Signals> {
        Signals::listen(true)
    }

    #[cfg(unix)]
    fn listen(terminal: bool) -> io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            terminal: terminal
                .then(|| {
                    Ok::<_, io::Error>([signal(SignalKind::hangup())?, signal(SignalKind::quit())?])
                })
                .transpose()?,
        })
    }

    #[cfg(not(unix))]
    fn listen(_terminal: bool) -> io::Result<Signals> {
        Ok(Signals {})
    }

    /// The next signal.
    pub async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            let terminal = async {
                match &mut self.terminal {
                    Some([hangup, quit]) => tokio::select! {
                        _ = hangup.recv() => Signal::Hangup,
                        _ = quit.recv() => Signal::Quit,
                    },
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = self.interrupt.recv() => Signal::Interrupt,
                _ = self.terminate.recv() => Signal::Terminate,
                signal = terminal => signal,
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            Signal::Interrupt
        }
    }
}

/// Run `then` on a thread of its own once one of `signals`' signals comes
/// (`signals` is [`Signals::new`] or [`Signals::for_terminal`]); they are
/// listened for before this returns.
///
/// # Errors
/// The thread's runtime could not be made, or the system refused a signal
/// handler.
pub fn on_signal(
    signals: fn() -> io::Result<Signals>,
    then: impl FnOnce(Signal) + Send + 'static,
) -> io::Result<()> {
    let (runtime, mut signals) = listen(signals)?;
    std::thread::spawn(move || then(runtime.block_on(signals.recv())));
    Ok(())
}

/// As [`on_signal`], but `then` runs for every signal that comes, one
/// after the other (a first Ctrl-C to stop gently, a second to stop now).
///
/// # Errors
/// As [`on_signal`].
pub fn on_each_signal(
    signals: fn() -> io::Result<Signals>,
    mut then: impl FnMut(Signal) + Send + 'static,
) -> io::Result<()> {
    let (runtime, mut signals) = listen(signals)?;
    std::thread::spawn(move || {
        loop {
            then(runtime.block_on(signals.recv()));
        }
    });
    Ok(())
}

/// A runtime for a thread of its own, and `signals` listened for in it.
fn listen(signals: fn() -> io::Result<Signals>) -> io::Result<(tokio::runtime::Runtime, Signals)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let signals = {
        let _entered = runtime.enter();
        signals()?
    };
    Ok((runtime, signals))
}
