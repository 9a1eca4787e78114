//! The front ends of `oxo`, kept apart from the binary so tests and
//! benchmarks can drive them with in-memory input and output. The binary
//! (`src/main.rs`, `src/args.rs`, `src/cmd/`) only parses arguments,
//! validates them and calls these.
//!
//! - [`tui`]: the full-screen terminal game (`oxo play` on a terminal).
//! - [`solve`]: perfect-play values as a table or JSON (`oxo solve`).
//! - [`render`]: the results of `oxo arena` (matches, round robins with Elo
//!   ratings) and `oxo train` (learning curves) as tables, JSON, CSV and
//!   SVG; the games and the training are `oxo_ai`'s.
//! - [`exit`]: the documented exit codes.
//!
//! The seeds' text contracts (stream, referee, the plain console game) are
//! the `oxo-text` crate; the Gomocup protocol, both sides (`oxo brain`,
//! `oxo arena --x brain:PATH`), is `oxo-gomocup`.

#![warn(missing_docs)]

pub mod exit;
pub mod render;
pub mod signals;
pub mod solve;
pub mod tui;
