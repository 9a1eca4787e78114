//! The text front ends of `oxo`, kept out of `main.rs` so tests and
//! benchmarks can drive them with in-memory input and output.
//!
//! - [`stream`]: the "Design Tic-Tac-Toe" command stream (`oxo stream`).
//! - [`referee`]: the CS 1044 moves-file referee (`oxo referee`).
//! - [`play`]: the week-37 console game (`oxo play`).

pub mod arena;
pub mod exit;
pub mod play;
pub mod referee;
pub mod solve;
pub mod stream;
pub mod text;
