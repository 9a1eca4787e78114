"""Type stubs for oxo's extension module (the Rust side of the package)."""

from os import PathLike
from typing import ClassVar, Final, Literal, Optional, SupportsIndex, Union, final

import numpy as np
import numpy.typing as npt

Move = Union[SupportsIndex, tuple[SupportsIndex, SupportsIndex], list[int]]
"""An action ``row * cols + col`` (an int or a NumPy integer, not a bool), or a ``(row, col)``
pair (a tuple, or a list of two)."""

Mark = Literal["X", "O"]

STRATEGIES: Final[list[str]]
"""The strategies ``Strategy`` accepts: random, rules, alphabeta, perfect, learned."""

__version__: Final[str]

class OxoError(ValueError):
    """Base of every error oxo raises: an argument it refused."""

class RulesError(OxoError):
    """A board or position oxo cannot play: a bad size or k, a position play
    cannot reach, text that is not a board."""

class IllegalMoveError(OxoError):
    """A move the rules refuse (off the board, taken, after the end); the game
    is unchanged."""

class StrategyError(OxoError):
    """A strategy that does not exist or cannot play this board."""

class ModelError(OxoError):
    """A learned model file that cannot be read, or that was trained for
    another board."""

class SolveError(OxoError):
    """A position the solver does not handle, or one it could not finish
    within its budget."""

class Game:
    """An m,n,k game: X and O take turns marking cells of a ``rows`` x
    ``cols`` board; the first with ``k`` in a row (row, column or diagonal)
    wins. Moves are actions ``row * cols + col`` or ``(row, col)`` pairs; a
    refused move raises ``IllegalMoveError`` and changes nothing."""

    # Equal games compare equal, but a game changes: it is not hashable.
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def __init__(self, rows: int = 3, cols: int = 3, k: Optional[int] = None) -> None:
        """An empty board, X to move; ``k`` defaults to the shorter side, at most 5."""
    @staticmethod
    def from_notation(position: str, k: Optional[int] = None) -> Game:
        """The game at ``position`` in oxo's notation (``"X.O/.X./..O"``)."""
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def to_move(self) -> Mark:
        """Whose turn it is (after the end, who would be next)."""
    @property
    def move_count(self) -> int:
        """Marks on the board."""
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> Optional[Mark]:
        """The winner, or None (also for a draw)."""
    @property
    def outcome(self) -> Optional[Literal["X", "O", "draw"]]:
        """The winner, "draw", or None while the game goes on."""
    @property
    def winning_line(self) -> Optional[list[int]]:
        """The actions of the winning run through the last move."""
    @property
    def moves(self) -> list[int]:
        """The actions played since the game was made."""
    @property
    def notation(self) -> str:
        """The position in oxo's notation, as ``oxo solve`` writes it."""
    def play(self, move: Move, /) -> None:
        """The player to move marks ``move``; ``IllegalMoveError`` if refused."""
    def undo(self) -> int:
        """Take back the last move and return its action."""
    def legal_moves(self) -> list[int]:
        """The legal actions, in increasing order (none once the game is over)."""
    def is_legal(self, move: Move, /) -> bool: ...
    def get(self, move: Move, /) -> Optional[Mark]:
        """The mark at a cell (``IllegalMoveError`` off the board)."""
    def board(self) -> npt.NDArray[np.int8]:
        """A new (rows, cols) array: 1 for X, -1 for O, 0 for empty."""
    def planes(self, player: Optional[Mark] = None) -> npt.NDArray[np.int8]:
        """A new (rows, cols, 2) array: the marks of ``player`` (by default the
        player to move), then the other's."""
    def legal_mask(self) -> npt.NDArray[np.int8]:
        """A new (rows * cols,) array, 1 where a move is legal."""
    def copy(self) -> Game:
        """An independent copy, with the same moves to undo."""
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: object) -> Game: ...
    def render(self) -> str:
        """The board as text, a row a line (``X . O``)."""
    def __eq__(self, other: object, /) -> bool: ...

class VectorGame:
    """``n`` games on one board stepped together: one call plays a move on
    every board, NumPy arrays in and out, the GIL released while Rust works."""

    def __init__(
        self, n: int, rows: int = 3, cols: int = 3, k: Optional[int] = None, seed: int = 0
    ) -> None: ...
    def __len__(self) -> int: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def k(self) -> int: ...
    def reset(self, mask: Optional[npt.ArrayLike] = None) -> None:
        """Empty the boards where ``mask`` (bools or integers) is true (every
        board if None); another dtype raises ``TypeError``."""
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Play ``actions[i]`` on board ``i`` (-1: nothing); return (rewards, dones).
        Actions are integers (any integer dtype, any stride); floats, strings or
        an array of bools raise ``TypeError``. Every action is checked first: one refused
        raises ``IllegalMoveError`` naming the board, and nothing changes."""
    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action a board (-1 on finished ones)."""
    def observe(self) -> npt.NDArray[np.int8]:
        """(n, rows, cols, 2): each board's planes from its player to move."""
    def action_masks(self) -> npt.NDArray[np.int8]:
        """(n, rows * cols): 1 where a move is legal."""
    def boards(self) -> npt.NDArray[np.int8]:
        """(n, rows, cols): 1 for X, -1 for O, 0 for empty."""
    def to_move(self) -> npt.NDArray[np.int8]:
        """(n,): 1 where X is to move, -1 where O is."""
    def winners(self) -> npt.NDArray[np.int8]:
        """(n,): 1 where X won, -1 where O won, else 0."""
    def dones(self) -> npt.NDArray[np.bool_]:
        """(n,): whether each board's game is over."""
    def game(self, i: int) -> Game:
        """A copy of board ``i`` (no moves to undo)."""

class Strategy:
    """One of oxo's computer players (see ``STRATEGIES``), built for a board
    the first time it chooses on one; its choices are fixed by ``seed``."""

    def __init__(
        self,
        name: str,
        seed: int = 0,
        model: Optional[Union[str, PathLike[str]]] = None,
        budget: Optional[int] = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    def choose(self, game: Game) -> Optional[int]:
        """The action this strategy plays in ``game`` (None once it is over)."""
    def play(self, game: Game) -> Optional[int]:
        """Choose a move, play it in ``game``, return its action."""

@final
class Solution:
    """The perfect-play value of a position and of each legal move. Values
    are for the player who moves: 1 a win, 0 a draw, -1 a loss; distances are
    plies to the end. Made by ``solve`` only (``Solution()`` raises
    ``TypeError``)."""

    @property
    def position(self) -> str: ...
    @property
    def k(self) -> int:
        """Marks in a row to win: with ``position``, the game answered."""
    @property
    def to_move(self) -> Mark: ...
    @property
    def value(self) -> Literal[-1, 0, 1]: ...
    @property
    def distance(self) -> int: ...
    @property
    def moves(self) -> dict[int, tuple[int, int]]:
        """Every legal action with (value, distance) for the player making it."""
    @property
    def best_moves(self) -> list[int]: ...
    @property
    def nodes(self) -> int: ...
    def __eq__(self, other: object, /) -> bool:
        """Equal answers for one position of one game (``nodes`` left out)."""
    def __hash__(self) -> int: ...

def solve(
    position: Union[Game, str], k: Optional[int] = None, budget: Optional[int] = None
) -> Solution:
    """Solve ``position`` (a Game, or oxo's notation with ``k``) exactly; ``k``
    given with a Game must be the game's own (``RulesError`` otherwise)."""
