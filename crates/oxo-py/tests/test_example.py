"""The package's example runs and reports what it says."""

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "tabular.py"


def test_the_tabular_example_trains_and_grades():
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--episodes", "300"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.startswith("trained on 300 games against random")
    assert "as X against random:" in out and "as O against random:" in out
    assert "of 4520 positions" in out
