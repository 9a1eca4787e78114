//! `oxo verify`: check a proof certificate with the rules alone.

use std::io::Write as _;

use oxo_cli::exit;
use oxo_core::proof::Certificate;

use crate::args::VerifyArgs;

/// Check the certificate; print `valid: …` (exit 0) or why it is refused
/// (exit 1).
pub(super) fn run(args: &VerifyArgs) -> u8 {
    let path = args.file.display();
    let bytes = match std::fs::read(&args.file) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("oxo: cannot read {path}: {err}");
            return exit::IO_ERROR;
        }
    };
    let result = std::str::from_utf8(&bytes)
        .map_err(|_| "not an oxo proof certificate (not text)".to_owned())
        .and_then(|text| Certificate::parse(text).map_err(|e| e.to_string()))
        .and_then(|cert| cert.verify().map_err(|e| e.to_string()));
    match result {
        Ok(verified) => {
            let mut out = std::io::stdout();
            match writeln!(out, "{verified}").and_then(|()| out.flush()) {
                // A reader that went away early is not a failure.
                Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("oxo: cannot write to standard output: {err}");
                    exit::IO_ERROR
                }
                _ => exit::SUCCESS,
            }
        }
        Err(reason) => {
            eprintln!("oxo: {path}: refused: {reason}");
            exit::IO_ERROR
        }
    }
}
