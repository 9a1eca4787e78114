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


def test_an_action_outside_the_space_or_a_call_before_reset_is_refused():
    env = oxo.env()
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before step"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before observe"):
        env.observe("player_1")
    env.reset()
    for action in [9, -1, None, 1.0, np.array(1.0), np.array([3]), np.array(9), 2**70]:
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(action)
    assert env.agent_selection == "player_1" and env.state().sum() == 0
    env.step(np.int64(4))
    assert env.state().tolist()[1][1] == 1


def test_step_takes_whatever_the_action_space_contains():
    # A Python int, a NumPy integer, a 0-d integer array: each is in the
    # action space (gymnasium's Discrete says so), so step plays it.
    env = oxo.env()
    env.reset()
    space = env.action_space("player_1")
    for action in [0, np.int32(1), np.array(3), np.array(5, dtype=np.int8)]:
        assert space.contains(action)
        env.step(action)
    assert env.state().tolist() == [[1, -1, 0], [1, 0, -1], [0, 0, 0]]


def test_ansi_rendering_and_bad_arguments():
    env = oxo.env(rows=2, cols=3, k=2, render_mode="ansi")
    env.reset()
    play(env, [0, 5])
    assert env.render() == "X . .\n. . O\n"
    with pytest.raises(ValueError, match="render_mode 'rgb_array' is not offered"):
        oxo.env(render_mode="rgb_array")
    with pytest.raises(oxo.RulesError, match="k=6 is impossible"):
        oxo.env(rows=5, cols=5, k=6)


def test_human_rendering_prints_the_board_after_every_move(capsys):
    env = oxo.env(rows=2, cols=3, k=2, render_mode="human")
    env.reset()
    play(env, [0, 5])
    assert capsys.readouterr().out == ". . .\n. . .\n" "X . .\n. . .\n" "X . .\n. . O\n"
    assert env.render() is None
    assert capsys.readouterr().out == "X . .\n. . O\n"


def test_what_reset_sets_is_named_when_read_before_it():
    env = oxo.env()
    for read in [lambda: env.agent_selection, lambda: env.rewards, env.last]:
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            read()
    with pytest.raises(AttributeError, match="'raw_env' object has no attribute 'nothing'"):
        env.nothing
    env.reset()
    assert env.agent_selection == "player_1"


def test_a_step_once_every_agent_is_done_does_nothing(caplog):
    env = oxo.env()
    env.reset()
    play(env, [0, 3, 1, 4, 2])  # X wins along the top row
    while env.agents:
        env.step(None)
    env.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert env.agents == [] and env.state().tolist()[0] == [1, 1, 1]


def test_the_game_is_the_environments_own():
    env = oxo.raw_env(rows=3, cols=3)
    assert isinstance(oxo.env(), oxo.raw_env)
    env.reset()
    play(env, [4])
    game = env.game
    assert game.notation == ".../.X./..."
    game.play(0)  # a copy: the environment does not change
    assert env.game.notation == ".../.X./..."


def test_on_3x3_it_plays_as_pettingzoos_tictactoe_illegal_moves_included():
    """The same actions (a tenth of them illegal) in oxo.env and PettingZoo's
    tictactoe_v3 behind its classic wrappers: the same agents, observations,
    rewards, terminations and truncations at every step."""
    import logging
    import random

    from pettingzoo.classic import tictactoe_v3

    logging.getLogger("pettingzoo.utils.env_logger").disabled = True
    rng = random.Random(5)
    for _ in range(300):
        ours, theirs = oxo.env(), tictactoe_v3.env()
        ours.reset()
        theirs.reset()
        for agent, their_agent in zip(ours.agent_iter(), theirs.agent_iter()):
            assert agent == their_agent
            obs, *rest = ours.last()
            their_obs, *their_rest = theirs.last()
            assert rest == their_rest
            np.testing.assert_array_equal(obs["observation"], their_obs["observation"])
            if rest[1] or rest[2]:
                action = None
            else:
                np.testing.assert_array_equal(obs["action_mask"], their_obs["action_mask"])
                legal = np.flatnonzero(obs["action_mask"])
                action = rng.randrange(9) if rng.random() < 0.1 else int(rng.choice(legal))
            ours.step(action)
            theirs.step(action)
        assert ours.agents == theirs.agents == []
