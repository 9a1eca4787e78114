"""The docs say what the package does: install commands and examples."""

import pathlib
import re

import pytest

import oxo

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOCS = [ROOT / "README.md", ROOT / "docs" / "README.md", ROOT / "docs" / "python.md"]


def test_every_install_command_installs_this_package():
    # PyPI's `oxo` is another package: `pip install 'oxo[pettingzoo]'` would
    # fetch it. Every command installs the clone's crates/oxo-py, and one
    # that promises oxo.env carries the [pettingzoo] extra.
    texts = {str(path.relative_to(ROOT)): path.read_text() for path in DOCS}
    texts["oxo.__doc__"] = oxo.__doc__
    commands = 0
    for name, text in texts.items():
        for line in text.splitlines():
            for target in re.findall(r"pip install ([^\s`]+)", line):
                commands += 1
                assert target.strip("'") in ("./crates/oxo-py", "./crates/oxo-py[pettingzoo]"), (name, line)
                if "env" in line.split("#", 1)[-1] and line.lstrip().startswith("pip"):
                    assert "[pettingzoo]" in target, (name, line)
    assert commands >= 6


def example(heading, index=0):
    """The `index`th ```python block of the section `heading` of docs/python.md."""
    text = (ROOT / "docs" / "python.md").read_text()
    after = text[text.index(heading) :]
    end = after.find("\n## ", 1)
    section = after if end < 0 else after[:end]
    return [m.group(1) for m in re.finditer(r"```python\n(.*?)```", section, re.S)][index]


def as_doctest(block):
    """`block` with each error the docs show as `oxo.XError: message` after
    a statement written as the traceback doctest expects."""
    lines = []
    for line in block.splitlines():
        if re.match(r"oxo\.\w+Error: ", line) and lines and lines[-1].startswith((">>>", "...")):
            lines.append("Traceback (most recent call last):")
            lines.append("  ...")
        lines.append(line)
    return "\n".join(lines) + "\n"


def examples():
    """Every ```python block of docs/python.md as (its section's heading,
    its number in the section), but the env's, which has a test of its own:
    so that no example added to the page goes untested."""
    found, heading, index = [], None, 0
    for line in (ROOT / "docs" / "python.md").read_text().splitlines():
        if line.startswith("## "):
            heading, index = line, 0
        elif line.startswith("```python"):
            assert heading, "an example before the first section"
            found.append((heading, index))
            index += 1
    return [(h, i) for h, i in found if not h.startswith("## `oxo.env`")]


@pytest.mark.parametrize("heading, index", examples())
def test_each_example_prints_what_the_docs_show(heading, index):
    # Every example in docs/python.md, run as a doctest, errors included.
    import doctest

    test = doctest.DocTestParser().get_doctest(
        as_doctest(example(heading, index)), {"oxo": oxo}, f"docs/python.md {heading} {index}", "docs/python.md", 0
    )
    assert test.examples, heading
    runner = doctest.DocTestRunner(optionflags=doctest.REPORT_NDIFF)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_env_example_prints_what_the_docs_show():
    # Run as a doctest: the output must match the docs line for line (NumPy
    # 2 showed np.int64(48) for a bare sum, and print() added a blank line
    # after render()'s last newline).
    import doctest

    test = doctest.DocTestParser().get_doctest(
        example("## `oxo.env`"), {"oxo": oxo}, "docs/python.md oxo.env", "docs/python.md", 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.REPORT_NDIFF)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
