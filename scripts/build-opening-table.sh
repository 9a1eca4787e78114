#!/bin/sh
# Build the 7x7 k=5 opening table shipped in oxo-ai (crates/oxo-ai/data/):
# every move's value at every position after at most two moves (up to
# symmetry), each position within a budget of positions of search (counted,
# not timed, and every value exact, so a rerun writes the same bytes). See
# crates/oxo-ai/src/exact/opening.rs for the format.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --locked -p oxo-ai --example hints7
exec target/release/examples/hints7 build crates/oxo-ai/data/opening-7x7k5.bin \
  --depth 2 --budget 1000000000
