//! Messages and progress lines on standard error that never end the run:
//! a line that cannot be shown (the reader of a `2>&1 | head` went away,
//! stderr is a full disk) is dropped, where `eprintln!` would panic. Only
//! the exit code then says how the run ended.

use std::fmt;
use std::io::{self, Write};

/// `eprintln!` that drops a line it cannot write instead of panicking.
macro_rules! note {
    () => {
        $crate::stderr::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stderr::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Write `text` to standard error, as it is (no newline added); a failed
/// write is ignored.
pub(crate) fn write(text: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(text);
}

/// Standard error as a writer for the libraries' notes (a batch's refused
/// lines, a console game's refused moves) whose failed writes are ignored,
/// so that a closed stderr cannot stop a game or a batch.
pub(crate) struct Notes;

impl Write for Notes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = io::stderr().lock().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = io::stderr().flush();
        Ok(())
    }
}
