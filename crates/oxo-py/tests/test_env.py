"""oxo.env: PettingZoo's own checks, and the game it plays."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import oxo


@pytest.mark.parametrize(
    "rows,cols,k,cycles", [(3, 3, 3, 1000), (7, 7, 5, 300), (15, 15, 5, 100), (4, 6, 3, 300)]
)
def test_pettingzoo_api_test(rows, cols, k, cycles):
    api_test(oxo.env(rows=rows, cols=cols, k=k, render_mode="ansi"), num_cycles=cycles)


@pytest.mark.parametrize("rows,cols,k", [(3, 3, 3), (7, 7, 5), (15, 15, 5)])
def test_pettingzoo_seed_test(rows, cols, k):
    seed_test(lambda: oxo.env(rows=rows, cols=cols, k=k), num_cycles=100)


def play(env, actions):
    for action in actions:
        env.step(action)


def test_observations_are_from_the_observing_agents_side():
    env = oxo.env()
    env.reset()
    play(env, [4, 0])  # X in the centre, O in the corner
    obs, reward, terminated, truncated, info = env.last()
    assert env.agent_selection == "player_1"
    assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (3, 3, 2)
    assert obs["observation"][1, 1].tolist() == [1, 0]  # own mark in plane 0
    assert obs["observation"][0, 0].tolist() == [0, 1]
    assert obs["action_mask"].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 1]
    other = env.observe("player_2")
    assert other["observation"][1, 1].tolist() == [0, 1]
    assert other["action_mask"].tolist() == [0] * 9  # not its turn
    assert (reward, terminated, truncated, info) == (0, False, False, {})


def finish(env):
    """Step the dead agents out, collecting each one's last reward."""
    rewards = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated
        rewards[agent] = reward
        env.step(None)
    return rewards


def test_a_win_pays_plus_one_and_minus_one():
    env = oxo.env(rows=4, cols=5, k=3)
    env.reset()
    play(env, [0, 5, 1, 6, 2])  # X takes the top row's first three cells
    assert finish(env) == {"player_2": -1, "player_1": 1}


def test_a_draw_pays_nothing():
    env = oxo.env()
    env.reset()
    play(env, [0, 1, 2, 4, 3, 5, 7, 6, 8])  # XOX/XOO/OXX
    assert finish(env) == {"player_2": 0, "player_1": 0}


def test_an_illegal_move_ends_the_game_with_the_mover_losing():
    # As PettingZoo's classic environments do (its TerminateIllegalWrapper).
    env = oxo.env()
    env.reset()
    play(env, [4, 4])  # O plays on X's mark
    assert finish(env) == {"player_1": 0, "player_2": -1}


def test_an_action_outside_the_space_is_refused():
    env = oxo.env()
    env.reset()
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(9)


def test_the_raw_environment_raises_on_an_illegal_move():
    env = oxo.raw_env()
    env.reset()
    env.step(4)
    with pytest.raises(oxo.IllegalMoveError, match="already taken"):
        env.step(4)
    assert env.agent_selection == "player_2" and env.state().tolist()[1][1] == 1


def test_ansi_rendering_and_bad_arguments():
    env = oxo.env(rows=2, cols=3, k=2, render_mode="ansi")
    env.reset()
    play(env, [0, 5])
    assert env.render() == "X . .\n. . O\n"
    with pytest.raises(ValueError, match="render_mode 'human' is not offered"):
        oxo.env(render_mode="human")
    with pytest.raises(oxo.RulesError, match="k=6 is impossible"):
        oxo.env(rows=5, cols=5, k=6)


def test_the_game_is_the_environments_own():
    env = oxo.raw_env(rows=3, cols=3)
    env.reset()
    play(env, [4])
    game = env.game
    assert game.notation == ".../.X./..."
    game.play(0)  # a copy: the environment does not change
    assert env.game.notation == ".../.X./..."
