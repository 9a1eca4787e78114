"""The PettingZoo AEC environment over ``oxo.Game`` (see ``oxo.env``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from ._oxo import Game

_MARKS: dict[str, Literal["X", "O"]] = {"player_1": "X", "player_2": "O"}
# What reset() sets and PettingZoo names when read before it.
_SET_BY_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "_cumulative_rewards"}
)
_OTHER = {"player_1": "player_2", "player_2": "player_1"}


class raw_env(AECEnv):
    """An m,n,k game with PettingZoo's AEC API; ``player_1`` plays X and moves
    first. ``oxo.env(...)`` makes one.

    It behaves as PettingZoo's classic environments do behind their
    wrappers, built in rather than wrapped (PettingZoo's wrappers forward
    every attribute through three layers, which cost more than the game):
    an illegal move ends the game with the mover losing (TerminateIllegal:
    reward -1 to the mover and 0 to the other, both terminated and
    truncated, a warning logged); an action outside the action space raises
    an AssertionError (AssertOutOfBounds); stepping, observing or rendering
    before ``reset()`` raises one (OrderEnforcing).
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "oxo_mnk_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self, rows: int = 3, cols: int = 3, k: int | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        # Game checks the board and raises oxo.RulesError for a bad one.
        self._game = Game(rows, cols, k)
        self.rows, self.cols, self.k = self._game.rows, self._game.cols, self._game.k
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not offered: choose one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.possible_agents = ["player_1", "player_2"]
        self.agents = self.possible_agents[:]
        self._cells = self.rows * self.cols
        self.action_spaces = {a: spaces.Discrete(self._cells) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0, high=1, shape=(self.rows, self.cols, 2), dtype=np.int8
                    ),
                    "action_mask": spaces.Box(
                        low=0, high=1, shape=(self._cells,), dtype=np.int8
                    ),
                }
            )
            for a in self.possible_agents
        }
        self._has_reset = False

    if not TYPE_CHECKING:  # a type checker still catches misspelt attributes

        def __getattr__(self, name):
            # Only for attributes not set: those reset() sets, before it is
            # called, are named as such (as PettingZoo's OrderEnforcing does).
            if name in _SET_BY_RESET:
                raise AttributeError(f"{name} cannot be accessed before reset")
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # The game has no randomness: every reset is the empty board.
        self._has_reset = True
        self._game = Game(self.rows, self.cols, self.k)
        self.agents = self.possible_agents[:]
        self.rewards = {"player_1": 0, "player_2": 0}
        self._cumulative_rewards = {"player_1": 0, "player_2": 0}
        self.terminations = {"player_1": False, "player_2": False}
        self.truncations = {"player_1": False, "player_2": False}
        self.infos: dict[str, dict[str, Any]] = {"player_1": {}, "player_2": {}}
        self.agent_selection = "player_1"
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        game = self._game
        if agent == self.agent_selection:
            mask = game.legal_mask()
        else:
            mask = np.zeros(self._cells, dtype=np.int8)
        return {"observation": game.planes(_MARKS[agent]), "action_mask": mask}

    def step(self, action: int | np.integer | np.ndarray | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            # Every agent is done and stepped out: nothing to step.
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        given = action
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            # A 0-d integer array (np.array(3)), which the action space
            # (gymnasium's Discrete) accepts as it does a NumPy integer.
            action = action[()]
        if not (isinstance(action, (int, np.integer)) and 0 <= action < self._cells):
            raise AssertionError(
                f"action is not in action space: {given!r} is not an integer from 0 to "
                f"{self._cells - 1}"
            )
        game = self._game
        other = _OTHER[agent]
        if not game.is_legal(int(action)):
            EnvLogger.warn_on_illegal_move()
            self.terminations = {"player_1": True, "player_2": True}
            self.truncations = {"player_1": True, "player_2": True}
            self.rewards = {agent: -1, other: 0}
            self._cumulative_rewards[agent] = 0
            self._accumulate_rewards()
            self._deads_step_first()
            return
        game.play(int(action))
        if game.is_over:
            if game.winner is not None:
                self.rewards[agent] = 1
                self.rewards[other] = -1
            self.terminations = {"player_1": True, "player_2": True}
            self._accumulate_rewards()
        self.agent_selection = other
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board as text (``"ansi"``), or printed (``"human"``, returning None:
        such an environment prints it after ``reset()`` and every move too)."""
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        text = self._game.render()
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def state(self) -> np.ndarray:
        """The board from X's side: a new (rows, cols) int8 array, 1 for X, -1 for O."""
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return self._game.board()

    @property
    def game(self) -> Game:
        """A copy of the game being played, as an ``oxo.Game``."""
        return self._game.copy()

    def close(self) -> None:
        pass
