"""oxo for Python: m,n,k games (tic-tac-toe to gomoku) for reinforcement learning.

The rules, players and solver are oxo's Rust crates; this package is their
Python face:

- ``Game(rows, cols, k)``: one game, move by move (play, undo, legal moves,
  winner, copy, oxo's notation, NumPy boards);
- ``VectorGame(n, rows, cols, k)``: ``n`` games stepped in one call, NumPy
  arrays in and out, for self-play at speed;
- ``env(rows=..., cols=..., k=...)``: an environment with PettingZoo's AEC API,
  as its tic-tac-toe (needs PettingZoo and Gymnasium: from a clone of oxo,
  ``pip install './crates/oxo-py[pettingzoo]'``; the ``oxo`` on PyPI is
  another package);
- ``Strategy(name, seed=...)``: oxo's computer players as opponents;
- ``solve(position)``: the exact value of a position and of every move.

Actions are ``row * cols + col``. Every refusal is an ``OxoError`` (a
``ValueError``) with a message saying what was wrong.
"""

from ._oxo import (
    STRATEGIES,
    Game,
    IllegalMoveError,
    ModelError,
    OxoError,
    RulesError,
    Solution,
    SolveError,
    Strategy,
    StrategyError,
    VectorGame,
    __version__,
    solve,
)

_ALL = [
    "STRATEGIES",
    "Game",
    "IllegalMoveError",
    "ModelError",
    "OxoError",
    "RulesError",
    "Solution",
    "SolveError",
    "Strategy",
    "StrategyError",
    "VectorGame",
    "__version__",
    "env",
    "solve",
]


def env(rows=3, cols=3, k=None, render_mode=None):
    """An m,n,k game with PettingZoo's AEC API (``oxo.raw_env``), behaving as
    PettingZoo's classic environments do behind their wrappers: an illegal
    move ends the game with the mover losing (reward -1, the other 0), an
    action outside the action space is an error, and so is a call before
    ``reset()``.

    Observations are ``{"observation": (rows, cols, 2) int8, "action_mask":
    (rows * cols,) int8}`` from the observing agent's side (plane 0 its own
    marks), actions ``row * cols + col``, rewards +1 / -1 / 0 at the end.
    ``render_mode="ansi"`` makes ``render()`` return the board as text,
    ``"human"`` print it.
    """
    return _aec().raw_env(rows=rows, cols=cols, k=k, render_mode=render_mode)


def _aec(error=ImportError):
    try:
        from . import aec
    except ImportError as e:
        raise error(
            f"oxo.env needs PettingZoo and Gymnasium ({e}): "
            "pip install pettingzoo gymnasium, or install oxo with its [pettingzoo] extra "
            "(from a clone of oxo: pip install './crates/oxo-py[pettingzoo]')"
        ) from e
    return aec


def __getattr__(name):
    # raw_env subclasses PettingZoo's AECEnv: import PettingZoo only when
    # it is asked for, so the rest of oxo needs only NumPy. Without it (or
    # with one that fails to import), oxo.raw_env is an AttributeError
    # saying why, so hasattr is False (`from oxo import raw_env` is then
    # Python's bare ImportError; oxo.env() says why), and `__all__`, which
    # a star import reads, leaves it out. So reading `__all__` imports
    # PettingZoo where it is installed: the only way to know that it works.
    if name == "raw_env":
        return _aec(AttributeError).raw_env
    if name == "__all__":
        try:
            _aec()
        except ImportError:
            return list(_ALL)
        return [*_ALL, "raw_env"]
    raise AttributeError(f"module 'oxo' has no attribute {name!r}")
