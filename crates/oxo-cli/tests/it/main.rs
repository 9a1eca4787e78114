//! The `oxo` binary's command tests, in one binary (one link instead of
//! one per file): `cli` (every command against golden files), `referee`
//! (the moves-file referee) and `fuzz_inputs` (the stream and the referee's
//! files fuzzed), `terminal` (`oxo play` under a pseudo-terminal). The tests that run `oxo serve` (serve.rs, nodes.rs,
//! soak.rs) keep binaries of their own, so that they never share the
//! machine with each other.

mod brain;
mod cli;
mod fuzz_inputs;
mod referee;
mod terminal;
