#!/bin/sh
# Build the 7x7 k=5 opening table shipped in oxo-ai (crates/oxo-ai/data/):
# every move's value at every position after at most two moves (up to
# symmetry), and at the positions after three moves listed in
# opening-7x7k5-forced3.txt (ones where X, moving twice, would force a line
# against a mere blocker, so that each of O's moves needs proofs of its
# own), and at the later positions of played games listed in
# opening-7x7k5-played.txt (ones the hints' budget does not value whole). Every position is valued in full (the budget of 10^9 positions is
# far above what any of them takes) and every value is exact, so a rerun
# writes the same bytes whatever the prover's speed or the thread count.
# See crates/oxo-ai/src/exact/opening.rs for the format and
# docs/benchmarks.md for the time it takes.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --locked -p oxo-ai --example hints7
exec target/release/examples/hints7 build crates/oxo-ai/data/opening-7x7k5.bin \
  --depth 2 --budget 1000000000 \
  --forced-list crates/oxo-ai/data/opening-7x7k5-forced3.txt \
  --forced-list crates/oxo-ai/data/opening-7x7k5-played.txt --threads 2
