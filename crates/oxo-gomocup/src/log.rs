//! The engine log: every line the arena sends an engine, and every line an
//! engine writes (its answers, its `MESSAGE` and `DEBUG` lines, its
//! standard error), each with when and whose, as c-gomoku-cli's `-log` and
//! Piskvork's message window give them: what an organiser or an engine's
//! author reads to see why a game went as it did (`oxo arena --engine-log
//! FILE`).
//!
//! One line a line heard or said:
//!
//! ```text
//!     0.012 game 0 X brain:./pbrain-a < START 15
//!     0.015 game 0 X brain:./pbrain-a > OK
//!     0.203 game 0 X brain:./pbrain-a > MESSAGE depth 4
//!     0.204 game 0 X brain:./pbrain-a ! warning: no opening book
//!     0.310 game 0 X brain:./pbrain-a # no move: brain:./pbrain-a answered 15,0: …
//! ```
//!
//! The seconds since the log was opened, the game (its index, as
//! `--records` gives it), the side and the engine, then `<` for what the
//! arena sent, `>` for the engine's output, `!` for its standard error and
//! `#` for what the arena made of it. Bytes that are not text, and control
//! characters (but tabs), are shown as U+FFFD; a line is kept to
//! [`MAX_LINE`] bytes of the engine's, and an engine's output and standard
//! error in one game to [`ENGINE_BYTES`] of log (their lines whole, times
//! and labels included), so that an engine that floods them cannot fill
//! the disk; what the arena sends and makes of it does not count against
//! that bound.
//!
//! The log is written by a thread of its own, through a queue of
//! [`QUEUED`] lines: no engine's reader and no move's timing ever waits
//! for the file. A log that falls that far behind (a slow disk, a pipe
//! nobody reads) leaves lines out, and says how many where it goes on.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::Instant;

use oxo_core::Player;
use oxo_text::input::MAX_LINE;

/// The most log one engine's output and standard error may take in one
/// game, in bytes (each line whole: its time and label too); a line then
/// says the rest is left out.
pub const ENGINE_BYTES: u64 = 1 << 20;

/// How many lines may wait for the log's writer before lines are left out.
pub const QUEUED: usize = 8192;

/// A log that every engine of an arena writes to, from any thread.
#[derive(Clone)]
pub struct EngineLog {
    shared: Arc<Shared>,
}

struct Shared {
    opened: Instant,
    /// The writer's queue; `None` once [`EngineLog::finish`] has run.
    queue: Mutex<Option<mpsc::SyncSender<String>>>,
    /// Lines left out because the queue was full, not yet said.
    dropped: AtomicU64,
    writer: Mutex<Option<JoinHandle<io::Result<()>>>>,
}

impl std::fmt::Debug for EngineLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineLog").finish_non_exhaustive()
    }
}

impl EngineLog {
    /// A log written to `writer` by a thread of its own, its times counted
    /// from now.
    #[must_use]
    pub fn new(mut writer: Box<dyn Write + Send>) -> EngineLog {
        let (queue, lines) = mpsc::sync_channel::<String>(QUEUED);
        let opened = Instant::now();
        let handle = std::thread::spawn(move || -> io::Result<()> {
            for line in lines {
                writer.write_all(line.as_bytes())?;
            }
            writer.flush()
        });
        EngineLog {
            shared: Arc::new(Shared {
                opened,
                queue: Mutex::new(Some(queue)),
                dropped: AtomicU64::new(0),
                writer: Mutex::new(Some(handle)),
            }),
        }
    }

    /// The log of `engine` playing `side` in game `game`.
    #[must_use]
    pub fn engine(&self, game: u64, side: Player, engine: &str) -> EngineLogger {
        EngineLogger {
            log: self.clone(),
            label: format!("game {game} {side} {engine}"),
            written: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        }
    }

    /// Write what is queued (and how many lines were left out since the
    /// last said so) and end the writer: lines logged after are left out.
    ///
    /// # Errors
    /// The first write that failed (the log stopped there), or the flush.
    pub fn finish(&self) -> io::Result<()> {
        let queue = lock(&self.shared.queue).take();
        let missed = self.shared.dropped.swap(0, Ordering::Relaxed);
        if let Some(queue) = queue
            && missed > 0
        {
            // The end of the log, where they would have been: waited for.
            let _ = queue.send(self.left_out(missed));
        }
        match lock(&self.shared.writer).take() {
            Some(writer) => writer
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the log's writer panicked"))),
            None => Ok(()),
        }
    }

    /// The line that says `missed` lines were left out here.
    fn left_out(&self, missed: u64) -> String {
        let seconds = self.shared.opened.elapsed().as_secs_f64();
        format!("{seconds:>9.3} # {missed} lines left out here: the log fell behind\n")
    }

    /// Queue `line` for the writer, or count it left out when the queue is
    /// full; the first line queued after some were left out says how many,
    /// where they would have been.
    fn write(&self, line: String) {
        let guard = lock(&self.shared.queue);
        let Some(queue) = guard.as_ref() else {
            return;
        };
        let dropped = &self.shared.dropped;
        let missed = dropped.swap(0, Ordering::Relaxed);
        let line = if missed > 0 {
            self.left_out(missed) + &line
        } else {
            line
        };
        if let Err(mpsc::TrySendError::Full(_)) = queue.try_send(line) {
            dropped.fetch_add(missed + 1, Ordering::Relaxed);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What was said between the arena and one engine in one game, as it
/// goes into the [`EngineLog`].
#[derive(Debug)]
pub struct EngineLogger {
    log: EngineLog,
    label: String,
    /// The bytes of log this engine's output and standard error have
    /// taken so far.
    written: AtomicU64,
    /// Set when the engine's game is over: nothing more is logged under
    /// its label (a process it left behind may still hold its pipes).
    closed: AtomicBool,
}

/// Which way a logged line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    /// From the arena to the engine.
    Sent,
    /// The engine's standard output.
    Output,
    /// The engine's standard error.
    Error,
    /// What the arena made of the engine (why it has no move).
    Note,
}

impl Said {
    const fn mark(self) -> char {
        match self {
            Said::Sent => '<',
            Said::Output => '>',
            Said::Error => '!',
            Said::Note => '#',
        }
    }

    /// Whether the engine said it (and so its lines count against
    /// [`ENGINE_BYTES`]).
    const fn by_engine(self) -> bool {
        matches!(self, Said::Output | Said::Error)
    }
}

impl EngineLogger {
    /// Log `text`, one line (without its end); a line over [`MAX_LINE`]
    /// bytes is cut there and marked with `…`.
    pub fn line(&self, said: Said, text: &[u8]) {
        self.cut_line(said, text, text.len() > MAX_LINE);
    }

    /// [`EngineLogger::line`] for a line already cut (`cut`: there was
    /// more of it).
    pub(crate) fn cut_line(&self, said: Said, text: &[u8], cut: bool) {
        // Past its bound, an engine's flood costs no formatting.
        if self.is_closed()
            || (said.by_engine() && self.written.load(Ordering::Relaxed) >= ENGINE_BYTES)
        {
            return;
        }
        let text = &text[..text.len().min(MAX_LINE)];
        let seconds = self.log.shared.opened.elapsed().as_secs_f64();
        let more = if cut { " …" } else { "" };
        let mut line = format!(
            "{seconds:>9.3} {} {} {}{more}\n",
            self.label,
            said.mark(),
            shown(text)
        );
        if said.by_engine() {
            let bytes = line.len() as u64;
            let before = self.written.fetch_add(bytes, Ordering::Relaxed);
            if before >= ENGINE_BYTES {
                return;
            }
            if before + bytes >= ENGINE_BYTES {
                line.push_str(&format!(
                    "{seconds:>9.3} {} # the rest of this engine's output and standard error in \
                     this game is left out (over {ENGINE_BYTES} bytes of log)\n",
                    self.label
                ));
            }
        }
        self.log.write(line);
    }

    /// End this engine's log: its game is over, and nothing more is logged
    /// under its label.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }

    /// Whether [`EngineLogger::close`] has run.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Log each of `lines` as sent.
    pub fn sent(&self, lines: &[String]) {
        for line in lines {
            self.line(Said::Sent, line.as_bytes());
        }
    }
}

/// `bytes` as text for one line of the log: invalid UTF-8 and control
/// characters (but tabs), which could break the line or a terminal, as
/// U+FFFD.
fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}
