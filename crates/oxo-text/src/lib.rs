//! oxo's text contracts as library code: each reads text from any
//! [`BufRead`](std::io::BufRead) and writes to any [`Write`](std::io::Write),
//! byte for byte as its seed defines, so the `oxo` binary only wires
//! standard input and output (and files) to them, and tests and benchmarks
//! drive them in memory.
//!
//! - [`stream`]: the "Design Tic-Tac-Toe" command stream (`oxo stream`).
//! - [`referee`]: the CS 1044 moves-file referee (`oxo referee`).
//! - [`play`]: the week-37 console game (`oxo play --plain`), people and
//!   computer players.
//! - [`input`]: reading untrusted text: lines of bounded length, integers of
//!   any size, a line quoted in a message.
//!
//! None of them knows the command line: errors say what went wrong in the
//! input, and the binary adds its flags, exit codes and program name.
//!
//! ```
//! use oxo_core::Rules;
//!
//! let mut out = Vec::new();
//! oxo_text::stream::run(Rules::TIC_TAC_TOE, &b"2\nmove 0 0\nmove 0 0\n"[..], &mut out)?;
//! assert_eq!(out, b"X placed at (0, 0)\nInvalid move\n");
//! # Ok::<(), oxo_text::stream::StreamError>(())
//! ```

#![warn(missing_docs)]

pub mod input;
pub mod play;
pub mod referee;
pub mod stream;
