//! `oxo stream`: the "Design Tic-Tac-Toe" command stream.

use std::io;
use std::path::PathBuf;

use anyhow::Context;
use oxo_cli::exit;
use oxo_core::Rules;
use oxo_text::stream;

use crate::args::StreamArgs;

/// Bytes read from the input at a time: instruction files run to megabytes.
const READ_BUFFER: usize = 256 * 1024;

pub(super) fn run(args: &StreamArgs) -> anyhow::Result<u8> {
    let rules: Rules = super::rules(&args.board)?;
    // `-` is standard input, as for `oxo solve -`.
    let input: Option<&PathBuf> = args.file.as_ref().filter(|p| p.as_os_str() != "-");
    let stdout = super::Labeled(raw_stdout());
    let result = match input {
        Some(path) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            // A directory opens, and fails only at the first read, with a
            // message that would not name it.
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                anyhow::bail!("cannot read {}: it is a directory", path.display());
            }
            stream::run(
                rules,
                io::BufReader::with_capacity(READ_BUFFER, file),
                stdout,
            )
        }
        None => stream::run(
            rules,
            io::BufReader::with_capacity(READ_BUFFER, io::stdin().lock()),
            stdout,
        ),
    };
    match result {
        Ok(()) => Ok(exit::SUCCESS),
        Err(stream::StreamError::Write(err)) if err.kind() == io::ErrorKind::BrokenPipe => {
            Ok(exit::SUCCESS)
        }
        Err(err) => Err(err.into()),
    }
}

/// Standard output without its line buffering: `stream::run` already
/// writes in big pieces, which the standard handle would split at the last
/// newline of each. (A duplicate of the descriptor, so nothing is closed
/// early; nothing else writes to standard output meanwhile.)
#[cfg(unix)]
fn raw_stdout() -> Box<dyn io::Write> {
    use std::os::fd::AsFd;
    let stdout = io::stdout();
    widen_pipe(stdout.as_fd());
    match stdout.as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(stdout.lock()),
    }
}

#[cfg(not(unix))]
fn raw_stdout() -> Box<dyn io::Write> {
    Box::new(io::stdout().lock())
}

/// When standard output is a pipe, ask for a 1 MiB pipe buffer (the most
/// Linux gives an unprivileged process by default) instead of 64 KiB: a
/// million answers are about 19 MB, and with the small buffer the writer
/// stops every 64 KiB until the reader catches up (91 ms against 67 ms end
/// to end, measured here). Not a pipe, or refused: nothing changes.
#[cfg(target_os = "linux")]
fn widen_pipe(fd: std::os::fd::BorrowedFd<'_>) {
    const WANTED: usize = 1 << 20;
    if let Ok(size) = rustix::pipe::fcntl_getpipe_size(fd)
        && size < WANTED
    {
        let _ = rustix::pipe::fcntl_setpipe_size(fd, WANTED);
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn widen_pipe(_fd: std::os::fd::BorrowedFd<'_>) {}
