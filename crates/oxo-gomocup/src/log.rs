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
//! characters (but tabs), are shown as U+FFFD; a line is kept to [`MAX_LINE`] bytes, and an engine's lines in
//! one game to [`ENGINE_BYTES`], so that an engine that floods its output
//! cannot fill the disk.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use oxo_core::Player;
use oxo_text::input::MAX_LINE;

/// The most of one engine's lines in one game that the log keeps, in
/// bytes; a line then says the rest is left out.
pub const ENGINE_BYTES: u64 = 1 << 20;

/// A log that every engine of an arena writes to, from any thread.
#[derive(Clone)]
pub struct EngineLog {
    shared: Arc<Shared>,
}

struct Shared {
    opened: Instant,
    out: Mutex<Out>,
}

struct Out {
    writer: Box<dyn Write + Send>,
    /// The first write that failed; nothing is written after it.
    failed: Option<io::Error>,
}

impl std::fmt::Debug for EngineLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineLog").finish_non_exhaustive()
    }
}

impl EngineLog {
    /// A log written to `writer`, its times counted from now.
    #[must_use]
    pub fn new(writer: Box<dyn Write + Send>) -> EngineLog {
        EngineLog {
            shared: Arc::new(Shared {
                opened: Instant::now(),
                out: Mutex::new(Out {
                    writer,
                    failed: None,
                }),
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
        }
    }

    /// Flush what was written.
    ///
    /// # Errors
    /// The first write that failed (the log stopped there), or the flush.
    pub fn finish(&self) -> io::Result<()> {
        let mut out = self
            .shared
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(failed) = out.failed.take() {
            return Err(failed);
        }
        out.writer.flush()
    }

    fn write(&self, line: &str) {
        let mut out = self
            .shared
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if out.failed.is_none()
            && let Err(e) = out.writer.write_all(line.as_bytes())
        {
            out.failed = Some(e);
        }
    }
}

/// What was said between the arena and one engine in one game, as it
/// goes into the [`EngineLog`].
#[derive(Debug)]
pub struct EngineLogger {
    log: EngineLog,
    label: String,
    /// The bytes of this engine's lines logged so far.
    written: AtomicU64,
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
    /// What the arena made of the engine (a failure, its end).
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
        let text = &text[..text.len().min(MAX_LINE)];
        let bytes = text.len() as u64 + 1;
        let before = self.written.fetch_add(bytes, Ordering::Relaxed);
        if before >= ENGINE_BYTES {
            return;
        }
        let seconds = self.log.shared.opened.elapsed().as_secs_f64();
        let more = if cut { " …" } else { "" };
        let mut line = format!(
            "{seconds:>9.3} {} {} {}{more}\n",
            self.label,
            said.mark(),
            shown(text)
        );
        if before + bytes >= ENGINE_BYTES {
            line.push_str(&format!(
                "{seconds:>9.3} {} # the rest of this engine's lines in this game are left out \
                 (over {ENGINE_BYTES} bytes)\n",
                self.label
            ));
        }
        self.log.write(&line);
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
