//! The exit codes of `oxo`, documented in the README and `oxo --help`.

/// Everything worked (also: the output pipe was closed by the reader, or
/// input ended in the middle of an interactive game).
pub const SUCCESS: u8 = 0;
/// A file could not be read or written.
pub const IO_ERROR: u8 = 1;
/// Bad usage or malformed input: a wrong flag, a malformed instruction or
/// moves file, a game that ends before its file does.
pub const BAD_INPUT: u8 = 2;
/// A long proof is not finished: `oxo solve --checkpoint` or `--worker`
/// stopped by Ctrl-C or SIGTERM (what it finished is kept), or
/// `--assemble` before the workers are done.
pub const STOPPED: u8 = 3;
/// `oxo solve --budget N`: the search needed more than N positions.
pub const OVER_BUDGET: u8 = 4;
/// `oxo arena`: an engine (`brain:PATH`) made no move in any game it
/// played (it would not start, or never gave a legal move); the results
/// are printed all the same.
pub const ENGINE_NEVER_MOVED: u8 = 5;
