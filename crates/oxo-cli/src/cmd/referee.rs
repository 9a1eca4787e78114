//! `oxo referee`: CS 1044 moves files judged, reports written.

use std::io;

use oxo_cli::referee;

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
    referee::run(&job, &mut io::stdout().lock(), &mut io::stderr().lock())
}
