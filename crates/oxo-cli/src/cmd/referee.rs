//! `oxo referee`: CS 1044 moves files judged, reports written.

use std::io::{self, Write};

use oxo_cli::exit;
use oxo_text::referee::{self, Status, UsageError};

use crate::args::RefereeArgs;

/// The referee reports each file's problems itself and returns the exit
/// code: one bad file does not stop the others.
pub(super) fn run(args: RefereeArgs) -> u8 {
    let job = referee::Job {
        inputs: args.inputs,
        output: args.output,
        out_dir: args.out_dir,
        options: referee::Options {
            programmer: args.programmer,
            project: args.project,
        },
    };
    let mut stderr = io::stderr().lock();
    let result = referee::run(
        &job,
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
        &mut |problem| {
            let _ = writeln!(stderr, "oxo referee: {problem}");
        },
    );
    match result {
        Ok(Status::Reported) => exit::SUCCESS,
        Ok(Status::Io) => exit::IO_ERROR,
        Ok(Status::BadInput) => exit::BAD_INPUT,
        Err(usage) => {
            let _ = writeln!(stderr, "oxo referee: {}", usage_message(&usage));
            exit::BAD_INPUT
        }
    }
}

/// A usage mistake as the command line spells it.
fn usage_message(usage: &UsageError) -> String {
    match usage {
        UsageError::FileAndDirectory => "-o and --out-dir cannot be used together".to_owned(),
        UsageError::OneFileForMany(n) => format!(
            "-o writes one report but {n} moves files were given: \
             use --out-dir DIR for one report per file"
        ),
        UsageError::StdoutForMany(n) => format!(
            "{n} moves files were given but standard output takes one report: \
             use --out-dir DIR for one report per file"
        ),
        UsageError::HeaderControl { field, text } => format!(
            "--{field} cannot hold control characters such as line breaks \
             (the report's header is one line each): {text:?}"
        ),
        other => other.to_string(),
    }
}
