//! The front ends of `oxo`, kept apart from the binary so tests and
//! benchmarks can drive them with in-memory input and output. The binary
//! (`src/main.rs`, `src/args.rs`, `src/cmd/`) only parses arguments,
//! validates them and calls these.
//!
//! - [`stream`]: the "Design Tic-Tac-Toe" command stream (`oxo stream`).
//! - [`referee`]: the CS 1044 moves-file referee (`oxo referee`).
//! - [`play`]: the week-37 console game (`oxo play --plain`), people and computer players.
//! - [`tui`]: the full-screen terminal game (`oxo play` on a terminal).
//! - [`solve`]: perfect-play values as a table or JSON (`oxo solve`).
//! - [`arena`], [`tournament`]: computer players against each other, two
//!   at a time or in a round robin with Elo ratings (`oxo arena`).
//! - [`train`]: a learned player trained by self-play, its learning curve (`oxo train`).
//! - [`brain`]: the Gomocup engine protocol (`oxo brain`); [`engine`]: an
//!   external engine as a player (`oxo arena --x brain:PATH`).
//! - [`logbuf`]: `oxo serve`'s log lines, written by a thread of their own.
//! - [`exit`]: the documented exit codes; [`text`]: lenient integer reading.

#![warn(missing_docs)]

pub mod arena;
pub mod brain;
pub mod engine;
pub mod exit;
pub mod logbuf;
pub mod play;
pub mod referee;
pub mod solve;
pub mod stream;
pub mod text;
pub mod tournament;
pub mod train;
pub mod tui;
