"""oxo.VectorGame: the batch is the single game, board by board."""

import numpy as np
import pytest

import oxo


@pytest.mark.parametrize("rows,cols,k", [(3, 3, 3), (4, 5, 3), (7, 7, 5), (15, 15, 5)])
def test_the_vector_form_equals_the_single_form_game_by_game(rows, cols, k):
    n = 48
    batch = oxo.VectorGame(n, rows, cols, k, seed=rows + cols + k)
    singles = [oxo.Game(rows, cols, k) for _ in range(n)]
    finished = 0
    for _ in range(rows * cols * 3):
        actions = batch.random_actions()
        # Leave some boards alone this step.
        actions[::7] = -1
        for game, action in zip(singles, actions):
            if action == -1:
                continue
            assert game.is_legal(int(action))
        rewards, dones = batch.step(actions)
        for i, (game, action) in enumerate(zip(singles, actions)):
            if action != -1:
                game.play(int(action))
            assert rewards[i] == (1 if action != -1 and game.winner else 0)
            assert dones[i] == game.is_over
            assert batch.game(i) == game
        observations, masks, boards = batch.observe(), batch.action_masks(), batch.boards()
        assert observations.shape == (n, rows, cols, 2) and observations.dtype == np.int8
        assert masks.shape == (n, rows * cols) and masks.dtype == np.int8
        for i, game in enumerate(singles):
            np.testing.assert_array_equal(observations[i], game.planes())
            np.testing.assert_array_equal(masks[i], game.legal_mask())
            np.testing.assert_array_equal(boards[i], game.board())
        signs = {"X": 1, "O": -1, None: 0}
        assert batch.to_move().tolist() == [signs[g.to_move] for g in singles]
        assert batch.winners().tolist() == [signs[g.winner] for g in singles]
        assert batch.dones().tolist() == [g.is_over for g in singles]
        # Start the finished boards again, in both forms.
        finished += int(dones.sum())
        batch.reset(dones)
        for i in np.flatnonzero(dones):
            singles[i] = oxo.Game(rows, cols, k)
    assert finished > n


def test_random_actions_are_legal_and_minus_one_on_finished_boards():
    batch = oxo.VectorGame(200, 3, 3, seed=7)
    for _ in range(9):
        actions = batch.random_actions()
        masks = batch.action_masks()
        dones = batch.dones()
        assert ((actions == -1) == dones).all()
        live = ~dones
        assert masks[live, actions[live]].all()
        batch.step(actions)
    assert batch.dones().all()
    assert (batch.random_actions() == -1).all()


def test_a_refused_step_names_the_board_and_changes_nothing():
    batch = oxo.VectorGame(3, 3, 3)
    batch.step(np.array([4, 4, 0]))
    before = batch.boards()
    for actions, message in [
        ([0, 4, 1], "board 1: \\(1, 1\\) is already taken by X"),
        ([0, 1, 9], "board 2: action 9 is off the board"),
        ([0, 1], "2 actions for 3 boards"),
    ]:
        with pytest.raises(oxo.IllegalMoveError, match=message):
            batch.step(np.array(actions))
        np.testing.assert_array_equal(batch.boards(), before)
    done = oxo.VectorGame(1, 1, 1)
    done.step([0])
    with pytest.raises(oxo.IllegalMoveError, match="board 0: the game is already over"):
        done.step([0])
    done.step([-1])  # nothing to play: fine


def test_reset_and_indexing():
    batch = oxo.VectorGame(4, 3, 3)
    batch.step(np.array([0, 1, 2, 3], dtype=np.int32))  # any integer dtype
    batch.reset(np.array([True, False, True, False]))
    assert [batch.game(i).notation for i in range(4)] == [
        ".../.../...",
        ".X./.../...",
        ".../.../...",
        ".../X../...",
    ]
    batch.reset()
    assert batch.boards().sum() == 0 and len(batch) == 4
    with pytest.raises(IndexError, match="board 4 of 4"):
        batch.game(4)


def test_a_batch_too_large_is_refused():
    with pytest.raises(oxo.RulesError, match="100000000 boards of 15x15 k=5 are too many"):
        oxo.VectorGame(100_000_000, 15, 15, 5)
    with pytest.raises(oxo.RulesError, match="k=4 is impossible on a 3x3 board"):
        oxo.VectorGame(2, 3, 3, 4)
