//! Log lines written by a thread of their own, so that logging a request
//! costs a copy into memory instead of a system call (and a wake-up of
//! whatever reads the log) on the thread serving it.
//!
//! [`LogBuffer`] is a `tracing_subscriber` writer: each event's formatted
//! line is appended to a shared buffer, which a writer thread hands to the
//! output every [`FLUSH_EVERY`], or at once when it holds [`FLUSH_AT`]
//! bytes. Dropping the [`Flusher`] writes what is left and stops the
//! thread. A line is never split, and lines keep their order. What a
//! process killed outright leaves in the buffer (at most `FLUSH_EVERY` of
//! lines) is lost; a panic's message goes to stderr directly.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long a line may wait in the buffer.
pub const FLUSH_EVERY: Duration = Duration::from_millis(100);
/// Bytes that make the writer thread write at once.
pub const FLUSH_AT: usize = 64 * 1024;

#[derive(Debug, Default)]
struct State {
    lines: Vec<u8>,
    closing: bool,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// Where log lines go: see the module docs.
#[derive(Clone, Debug)]
pub struct LogBuffer {
    shared: Arc<Shared>,
}

/// Owns the writer thread; dropping it writes the last lines and joins it.
#[derive(Debug)]
pub struct Flusher {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl LogBuffer {
    /// A buffer whose lines a new thread writes to `out`.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn start(out: impl Write + Send + 'static) -> io::Result<(LogBuffer, Flusher)> {
        let shared = Arc::new(Shared::default());
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("oxo-log".into())
                .spawn(move || write_lines(&shared, out))?
        };
        Ok((
            LogBuffer {
                shared: shared.clone(),
            },
            Flusher {
                shared,
                thread: Some(thread),
            },
        ))
    }
}

/// The writer thread: wait for lines (or the time to pass), take them all,
/// write them outside the lock.
fn write_lines(shared: &Shared, mut out: impl Write) {
    let mut taken = Vec::new();
    loop {
        let closing = {
            let state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            let (mut state, _) = shared
                .wake
                .wait_timeout_while(state, FLUSH_EVERY, |s| {
                    !s.closing && s.lines.len() < FLUSH_AT
                })
                .unwrap_or_else(PoisonError::into_inner);
            std::mem::swap(&mut taken, &mut state.lines);
            state.closing
        };
        if !taken.is_empty() {
            // Nowhere to report a failure to write the log.
            let _ = out.write_all(&taken).and_then(|()| out.flush());
            taken.clear();
        }
        if closing {
            return;
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closing = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One event's line, appended whole when it is dropped.
#[derive(Debug)]
pub struct Line<'a> {
    shared: &'a Shared,
    text: Vec<u8>,
}

impl Write for Line<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Line<'_> {
    fn drop(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let full = {
            let mut state = self
                .shared
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            state.lines.extend_from_slice(&self.text);
            state.lines.len() >= FLUSH_AT
        };
        if full {
            self.shared.wake.notify_one();
        }
    }
}

impl<'a> MakeWriter<'a> for LogBuffer {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line {
            shared: &self.shared,
            text: Vec::with_capacity(256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output that records what it was given, and in how many writes.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<(Vec<u8>, usize)>>);

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut seen = self.0.lock().unwrap();
            seen.0.extend_from_slice(buf);
            seen.1 += 1;
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_arrive_whole_in_order_and_in_few_writes() {
        let out = Recorder::default();
        let (buffer, flusher) = LogBuffer::start(out.clone()).unwrap();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let buffer = buffer.clone();
                std::thread::spawn(move || {
                    for i in 0..1000 {
                        let mut line = buffer.make_writer();
                        // Written in pieces, as a formatter does.
                        write!(line, "thread {t} ").unwrap();
                        writeln!(line, "line {i}").unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        drop(flusher);
        let (bytes, writes) = out.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4000);
        for t in 0..4 {
            let mine: Vec<&str> = lines
                .iter()
                .copied()
                .filter(|l| l.starts_with(&format!("thread {t} ")))
                .collect();
            let want: Vec<String> = (0..1000).map(|i| format!("thread {t} line {i}")).collect();
            assert_eq!(mine, want, "whole, and in order");
        }
        assert!(writes < 100, "{writes} writes for 4000 lines");
    }

    #[test]
    fn a_line_waits_no_longer_than_the_flush_interval() {
        let out = Recorder::default();
        let (buffer, _flusher) = LogBuffer::start(out.clone()).unwrap();
        writeln!(buffer.make_writer(), "hello").unwrap();
        let deadline = std::time::Instant::now() + FLUSH_EVERY * 20;
        while out.0.lock().unwrap().0.is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "the line was not written"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(out.0.lock().unwrap().0, b"hello\n");
    }
}
