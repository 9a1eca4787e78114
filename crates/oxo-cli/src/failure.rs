//! How a failed command ends: its message and its documented exit code.

use std::fmt;
use std::io;

use oxo_cli::exit;
use oxo_text::stream;

/// An error in what the user asked for (a flag, a position, a file's
/// contents): exit code 2. Anything else that fails is an I/O error: 1.
#[derive(Debug)]
pub(crate) struct BadInput(pub String);

impl BadInput {
    /// Wrap any error's message as bad input.
    pub(crate) fn from_error(err: impl fmt::Display) -> anyhow::Error {
        BadInput(err.to_string()).into()
    }
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// The error and its causes in one sentence, each said once: a wrapper
/// that already quotes its cause (as many library errors do) is not
/// followed by the cause again.
pub(crate) fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    with_flag_hints(out)
}

/// `text` with the command line's hints where a library error says what
/// is missing and only this command line can say how to give it.
pub(crate) fn with_flag_hints(mut text: String) -> String {
    if let Some(at) = text.find(oxo_ai::learned::NO_BUILTIN_MODEL) {
        text.insert_str(
            at + oxo_ai::learned::NO_BUILTIN_MODEL.len(),
            "; train one with `oxo train` and play it with --model FILE",
        );
    }
    text
}

/// The reader of our output went away (`oxo … | head`): not a failure.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Bad input (rules, malformed streams) is 2; a failed read or write is 1.
pub(crate) fn exit_code_for(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(stream_err) = cause.downcast_ref::<stream::StreamError>() {
            return match stream_err {
                stream::StreamError::Write(_) | stream::StreamError::Read(_) => exit::IO_ERROR,
                _ => exit::BAD_INPUT,
            };
        }
        if cause.downcast_ref::<oxo_core::RulesError>().is_some()
            || cause.downcast_ref::<BadInput>().is_some()
            || matches!(
                cause.downcast_ref::<oxo_campaign::pg::PgError>(),
                Some(oxo_campaign::pg::PgError::Url(_))
            )
        {
            return exit::BAD_INPUT;
        }
        if cause.downcast_ref::<io::Error>().is_some() {
            return exit::IO_ERROR;
        }
    }
    exit::IO_ERROR
}
