//! `oxo stream`: the "Design Tic-Tac-Toe" command stream.

use std::io;
use std::path::PathBuf;

use anyhow::Context;
use oxo_cli::{exit, stream};
use oxo_core::Rules;

use crate::args::StreamArgs;

pub(super) fn run(args: &StreamArgs) -> anyhow::Result<u8> {
    let rules: Rules = super::rules(&args.board)?;
    let input: Option<&PathBuf> = args.file.as_ref();
    let stdout = io::stdout().lock();
    let result = match input {
        Some(path) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            stream::run(rules, io::BufReader::new(file), stdout)
        }
        None => stream::run(rules, io::stdin().lock(), stdout),
    };
    match result {
        Ok(()) => Ok(exit::SUCCESS),
        Err(stream::StreamError::Io(err)) if err.kind() == io::ErrorKind::BrokenPipe => {
            Ok(exit::SUCCESS)
        }
        Err(err) => Err(err.into()),
    }
}
