"""Shared by the package's tests: the `oxo` binary, a rules reference and
a child process that is sent Ctrl-C."""

import os
import pathlib
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def oxo_bin():
    """The `oxo` command-line binary (scripts/test-python.sh builds it and
    sets OXO_BIN); the tests that compare against it fail without it."""
    path = os.environ.get("OXO_BIN")
    assert path, "set OXO_BIN to the oxo binary (scripts/test-python.sh does)"
    assert pathlib.Path(path).is_file(), f"OXO_BIN={path} is not a file"
    return path


DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def wins_through(board, rows, cols, k, row, col):
    """Whether the mark at (row, col) lies in k equal marks in a line: a
    reference written for these tests, apart from oxo's own rules. `board`
    maps (row, col) to "X" or "O"."""
    mark = board[(row, col)]
    for dr, dc in DIRECTIONS:
        # Every window of k cells along this line that holds (row, col).
        for offset in range(k):
            cells = [(row + (i - offset) * dr, col + (i - offset) * dc) for i in range(k)]
            if all(0 <= r < rows and 0 <= c < cols and board.get((r, c)) == mark for r, c in cells):
                return True
    return False


# Prepended to a child's code: `begun.set()` just before a long call has
# one SIGINT sent to the child 0.3 s later, as Ctrl-C would.
INTERRUPTER = """
import os, signal, threading, time

begun = threading.Event()

def interrupt():
    begun.wait()
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=interrupt, daemon=True).start()
"""


def run_interrupted(code):
    """Run `code` in a child Python (which gets the SIGINT, not pytest)
    after INTERRUPTER; its standard output's lines once it exited 0. The
    timeout bounds a call that ignored the signal: a protocol's bound, not
    a speed test."""
    run = subprocess.run(
        [sys.executable, "-c", INTERRUPTER + code], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()
