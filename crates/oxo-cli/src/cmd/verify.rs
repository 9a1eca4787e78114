//! `oxo verify`: check a proof certificate with the rules alone.

use std::io::{BufRead, BufReader, Read as _, Write as _};

use oxo_cli::exit;
use oxo_core::proof::{Certificate, CertificateLines, MAX_LINE_BYTES, ProofError};

use crate::args::VerifyArgs;

/// Check the certificate; print `valid: …` (exit 0) or why it is refused
/// (exit 1).
pub(super) fn run(args: &VerifyArgs) -> u8 {
    // `-` is standard input, as for the other commands that read files.
    let stdin = args.file.as_os_str() == "-";
    let path = if stdin {
        "standard input".to_owned()
    } else {
        args.file.display().to_string()
    };
    let certificate = if stdin {
        read(std::io::stdin().lock())
    } else {
        match std::fs::File::open(&args.file) {
            Ok(file) => read(BufReader::new(file)),
            Err(err) => {
                note!("oxo: cannot read {path}: {err}");
                return exit::IO_ERROR;
            }
        }
    };
    let certificate = match certificate {
        Ok(certificate) => certificate,
        Err(err) => {
            note!("oxo: cannot read {path}: {err}");
            return exit::IO_ERROR;
        }
    };
    let result = certificate
        .and_then(|cert| cert.verify())
        .map_err(|e| e.to_string());
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

/// The certificate in `input`, read a line at a time so that a file that
/// is not one is refused early ([`CertificateLines`]). The outer error is a
/// failed read; the inner one, why the file is refused.
fn read(mut input: impl BufRead) -> std::io::Result<Result<Certificate, ProofError>> {
    let mut lines = CertificateLines::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        if input.by_ref().take(limit).read_until(b'\n', &mut line)? == 0 {
            return Ok(lines.finish());
        }
        if let Err(refused) = lines.push(&line) {
            return Ok(Err(refused));
        }
    }
}
