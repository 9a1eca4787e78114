#!/usr/bin/env bash
# The Python package's tests: build crates/oxo-py as a wheel with maturin,
# install it into a throwaway virtual environment beside its test
# requirements (crates/oxo-py/requirements-test.txt, from the Python
# registry), build the `oxo` binary the tests compare against, and run the
# package's pytest files. Fails, never skips, when anything is missing;
# installs Debian's python3-venv and python3-dev first when they are.
#
# The wheel is built in debug mode (oxo-core and oxo-ai are optimised even
# there, see the workspace's Cargo.toml) into the workspace's target dir, so
# the crates `cargo test` compiled are not compiled again: after it, only
# pyo3, numpy and oxo-py are. Measured here: a clean build of oxo-py and its
# dependencies takes 37 CPU s in debug and 42 in release, of which release
# shares nothing with `cargo test`; the tests take 6.5 CPU s on the debug
# wheel and 4.6 on the release one.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRIPT=test-python.sh
PYTHON="${PYTHON:-python3}"

# A Python with venv, pip and its headers (python3-dev also brings the
# libpython that `cargo test` links the extension crate against).
python_ready() {
    command -v "$PYTHON" >/dev/null 2>&1 \
        && "$PYTHON" -c 'import ensurepip, os, sys, sysconfig, venv; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1
}
if ! python_ready; then
    source scripts/apt.sh
    apt_setup python3 python3-venv python3-dev
    apt_step update
    apt_step install -y --no-install-recommends python3 python3-venv python3-dev
    if ! python_ready; then
        echo "$SCRIPT: $PYTHON still lacks venv, ensurepip or its headers; set PYTHON to another" >&2
        exit 1
    fi
fi

venv="$(mktemp -d "${TMPDIR:-/tmp}/oxo-py-test.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
echo "$SCRIPT: a throwaway virtual environment in $venv" >&2
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r crates/oxo-py/requirements-test.txt

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
echo "$SCRIPT: building the wheel" >&2
"$venv/bin/maturin" build --quiet --locked --manifest-path crates/oxo-py/Cargo.toml \
    --interpreter "$venv/bin/python" --out "$venv/wheel"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$venv"/wheel/*.whl

# The rules tests replay random games through `oxo stream` as well, and
# the model tests train a model with `oxo train`. scripts/test passes the
# binary its `cargo test` built (OXO_BIN); building it here with `-p
# oxo-cli` would compile five crates again under other features.
if [[ -z "${OXO_BIN:-}" ]]; then
    echo "$SCRIPT: building the oxo binary" >&2
    cargo build --quiet --locked -p oxo-cli
    OXO_BIN="$CARGO_TARGET_DIR/debug/oxo"
fi
export OXO_BIN

# From the tests' folder, so that `import oxo` finds the installed wheel
# and not the package's source.
cd crates/oxo-py/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
