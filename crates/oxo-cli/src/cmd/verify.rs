//! `oxo verify`: check a proof certificate with the rules alone.

use std::io::{BufRead, BufReader, Read as _, Write as _};

use oxo_cli::exit;
use oxo_core::proof::{self, Certificate, MAX_LINE_BYTES, ProofError};

use crate::args::VerifyArgs;

/// Check the certificate; print `valid: …` (exit 0) or why it is refused
/// (exit 1).
pub(super) fn run(args: &VerifyArgs) -> u8 {
    let path = args.file.display();
    let file = match std::fs::File::open(&args.file) {
        Ok(file) => file,
        Err(err) => {
            note!("oxo: cannot read {path}: {err}");
            return exit::IO_ERROR;
        }
    };
    let text = match read(BufReader::new(file)) {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(reason)) => Err(reason),
        Err(err) => {
            note!("oxo: cannot read {path}: {err}");
            return exit::IO_ERROR;
        }
    };
    let result = text
        .and_then(|text| Certificate::parse(&text).map_err(|e| e.to_string()))
        .and_then(|cert| cert.verify().map_err(|e| e.to_string()));
    match result {
        Ok(verified) => {
            let mut out = std::io::stdout();
            match writeln!(out, "{verified}").and_then(|()| out.flush()) {
                // A reader that went away early is not a failure.
                Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                    note!("oxo: cannot write to standard output: {err}");
                    exit::IO_ERROR
                }
                _ => exit::SUCCESS,
            }
        }
        Err(reason) => {
            note!("oxo: {path}: refused: {reason}");
            exit::IO_ERROR
        }
    }
}

/// The certificate's text, read a line at a time so that a file that is
/// not one is refused early: after its first line if that is not a
/// certificate's (`oxo verify /dev/zero` reads 64 KiB, not until memory
/// runs out), or at the first line longer than a certificate's can be.
/// The outer error is a failed read; the inner one, why the file is
/// refused.
fn read(mut input: impl BufRead) -> std::io::Result<Result<String, String>> {
    let mut text = String::new();
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let n = input.by_ref().take(limit).read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        // Cut off at the bound: no certificate's line is that long.
        let cut = n as u64 == limit && !line.ends_with(b"\n");
        let chars = match (cut, std::str::from_utf8(&line)) {
            (false, Ok(chars)) => chars,
            _ if number == 1 => return Ok(Err(ProofError::Foreign.to_string())),
            (true, _) => {
                return Ok(Err(ProofError::Syntax {
                    line: number,
                    reason: format!("longer than a certificate's lines ({MAX_LINE_BYTES} bytes)"),
                }
                .to_string()));
            }
            (false, Err(_)) => return Ok(Err(format!("line {number}: not text"))),
        };
        if number == 1 {
            let first = chars.strip_suffix('\n').unwrap_or(chars);
            let first = first.strip_suffix('\r').unwrap_or(first);
            if let Err(e) = proof::version(first) {
                return Ok(Err(e.to_string()));
            }
        }
        text.push_str(chars);
    }
    Ok(Ok(text))
}
