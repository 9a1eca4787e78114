#!/usr/bin/env bash
# The Python package's benchmark (crates/oxo-py/bench/compare.py): oxo's
# Game, env and VectorGame against OpenSpiel and PettingZoo, side by side in
# one run. Builds the wheel in release mode into a throwaway virtual
# environment with the libraries it is compared with (from the Python
# registry); arguments go to compare.py (--seconds, --repeat, --boards).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
venv="$(mktemp -d "${TMPDIR:-/tmp}/oxo-py-bench.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r crates/oxo-py/requirements-test.txt -r crates/oxo-py/requirements-bench.txt
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
"$venv/bin/maturin" build --quiet --release --locked --manifest-path crates/oxo-py/Cargo.toml \
    --interpreter "$venv/bin/python" --out "$venv/wheel"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$venv"/wheel/*.whl
cd "$venv"
"$venv/bin/python" "$OLDPWD/crates/oxo-py/bench/compare.py" "$@"
