"""The PettingZoo AEC environment over ``oxo.Game`` (see ``oxo.env``)."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ._oxo import Game

_MARKS = {"player_1": "X", "player_2": "O"}


class raw_env(AECEnv):
    """An m,n,k game with PettingZoo's AEC API and no wrappers (``oxo.env``
    adds PettingZoo's classic ones). ``player_1`` plays X and moves first.

    An illegal action raises ``oxo.IllegalMoveError`` here and changes
    nothing; ``oxo.env`` ends the game instead, as PettingZoo's classic
    environments do.
    """

    metadata = {
        "render_modes": ["ansi"],
        "name": "oxo_mnk_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rows=3, cols=3, k=None, render_mode=None):
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
        cells = self.rows * self.cols
        self.action_spaces = {a: spaces.Discrete(cells) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0, high=1, shape=(self.rows, self.cols, 2), dtype=np.int8
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(cells,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._no_moves = np.zeros(cells, dtype=np.int8)
        self._start()

    def _start(self):
        self._game = Game(self.rows, self.cols, self.k)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        mask = self._game.legal_mask() if agent == self.agent_selection else self._no_moves.copy()
        return {"observation": self._game.planes(_MARKS[agent]), "action_mask": mask}

    def reset(self, seed=None, options=None):
        # The game has no randomness: every reset is the empty board.
        self._start()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._game.play(int(action))
        other = "player_2" if agent == "player_1" else "player_1"
        if self._game.is_over:
            if self._game.winner is not None:
                self.rewards[agent] = 1
                self.rewards[other] = -1
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self.agent_selection = other

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        return self._game.render()

    def state(self):
        """The board from X's side: a new (rows, cols) int8 array, 1 for X, -1 for O."""
        return self._game.board()

    @property
    def game(self):
        """A copy of the game being played, as an ``oxo.Game``."""
        return self._game.copy()

    def close(self):
        pass
