#!/bin/sh
# Build the 7x7 k=5 opening table shipped in oxo-ai (crates/oxo-ai/data/),
# the values the prover alone is slow to give: every position after at most
# one move and every reply to it, within a budget of positions a search
# (counted, not timed, so a rerun writes the same bytes). See
# crates/oxo-ai/src/exact/opening.rs for the format.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --locked -p oxo-ai --example hints7
exec target/release/examples/hints7 build crates/oxo-ai/data/opening-7x7k5.bin \
  --depth 1 --keep 2 --budget 50000000
