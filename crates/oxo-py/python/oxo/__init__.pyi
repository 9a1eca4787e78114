from typing import Optional

from . import aec
from ._oxo import (
    STRATEGIES as STRATEGIES,
    Game as Game,
    IllegalMoveError as IllegalMoveError,
    ModelError as ModelError,
    OxoError as OxoError,
    RulesError as RulesError,
    Solution as Solution,
    SolveError as SolveError,
    Strategy as Strategy,
    StrategyError as StrategyError,
    VectorGame as VectorGame,
    __version__ as __version__,
    solve as solve,
)

raw_env = aec.raw_env

def env(
    rows: int = 3, cols: int = 3, k: Optional[int] = None, render_mode: Optional[str] = None
) -> aec.raw_env: ...
