"""oxo.VectorGame: the batch is the single game, board by board."""

import re
import subprocess
import sys

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
    for i in (-1, 2**80):  # no negative indexing: -1 is not a board
        with pytest.raises(IndexError, match=f"board {i} of 4: boards are 0 to 3"):
            batch.game(i)
    with pytest.raises(IndexError, match="board 0 of 0: the batch has no boards"):
        oxo.VectorGame(0).game(0)


def test_counts_and_seeds_out_of_range_name_the_argument():
    with pytest.raises(oxo.RulesError, match="n=-1 is not a number of boards: n must be at least 0"):
        oxo.VectorGame(-1)
    with pytest.raises(oxo.RulesError, match="1180591620717411303424 boards of 3x3 k=3 are too many"):
        oxo.VectorGame(2**70)
    with pytest.raises(oxo.RulesError, match="rows=-3 is not a board side"):
        oxo.VectorGame(2, -3)
    for seed in (-1, 2**64):
        with pytest.raises(oxo.OxoError, match=f"seed must be from 0 to 18446744073709551615, not {seed}"):
            oxo.VectorGame(2, seed=seed)
    assert len(oxo.VectorGame(2, seed=2**64 - 1)) == 2  # every u64 is a seed


def test_a_batch_too_large_is_refused():
    with pytest.raises(oxo.RulesError, match="100000000 boards of 15x15 k=5 are too many"):
        oxo.VectorGame(100_000_000, 15, 15, 5)
    with pytest.raises(oxo.RulesError, match="k=4 is impossible on a 3x3 board"):
        oxo.VectorGame(2, 3, 3, 4)


def test_a_batch_too_large_for_memory_is_refused_not_an_abort():
    # 2**30 boards of 1x1 hold 2**30 cells, within the cell cap, but each
    # board costs its game and a heap block too: about 100 GB, which used to
    # abort the interpreter. The memory cap refuses it and names the limit.
    with pytest.raises(oxo.RulesError, match="1073741824 boards of 1x1 k=1 are too many") as e:
        oxo.VectorGame(2**30, 1, 1)
    assert "at most 4294967296 bytes (4 GiB)" in str(e.value)
    with pytest.raises(oxo.RulesError, match="a batch may take at most 4294967296 bytes"):
        oxo.VectorGame(100_000_000, 3, 3)  # 900,000,000 cells


@pytest.mark.skipif(sys.platform != "linux", reason="limits the address space with RLIMIT_AS")
def test_a_batch_the_machine_cannot_hold_is_a_memory_error():
    # The most 1x1 boards the memory cap allows, in a process that may grow
    # by only 512 MiB more: the allocation is refused, and that must be a
    # MemoryError the caller can catch, not an abort (in a child process, so
    # that a regression cannot take pytest down with it).
    with pytest.raises(oxo.RulesError) as e:
        oxo.VectorGame(2**30, 1, 1)
    most = int(re.search(r"(\d+) boards of this size", str(e.value)).group(1))
    code = f"""
import resource
import oxo
pages = int(open("/proc/self/statm").read().split()[0])
limit = pages * resource.getpagesize() + (512 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    oxo.VectorGame({most}, 1, 1)
except MemoryError as e:
    print("MemoryError:", e)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"MemoryError: {most} boards of 1x1 k=1: cannot allocate the batch")


def test_step_and_reset_take_integers_only_and_refuse_without_casting():
    batch = oxo.VectorGame(2, 3, 3)
    # NumPy's cast would play 1 and 8, 0 and 0 (its -0.5 and -1.0), or
    # whatever NaN becomes; each is refused instead, and nothing is played.
    for actions in ([1.9, 8.99], np.array([-0.5, -1.0]), np.array([np.nan, 1.0]), ["1", "2"], [True, False]):
        with pytest.raises(TypeError, match="actions must be integers"):
            batch.step(actions)
    assert batch.boards().sum() == 0 and not batch.boards().any()
    with pytest.raises(oxo.IllegalMoveError, match=r"must be a 1-D array, one value a board, not one of shape \(1, 2\)"):
        batch.step(np.array([[1, 2]]))
    with pytest.raises(oxo.IllegalMoveError, match="board 0: action 18446744073709551615 is off the board"):
        batch.step(np.array([2**64 - 1, 0], dtype=np.uint64))
    # The same for a list of ints past int64, which NumPy would make floats
    # or objects of; as a mask, such an int is true.
    for big in (2**63, 2**70, -(2**70), 2**200):
        with pytest.raises(oxo.IllegalMoveError, match=f"board 1: action {big} is off the board"):
            batch.step([0, big])
    # The count is checked first, whatever the values.
    for actions in ([0, 1, 2**70], np.array([0, 1, 2**64 - 1], dtype=np.uint64)):
        with pytest.raises(oxo.IllegalMoveError, match="3 actions for 2 boards"):
            batch.step(actions)
    assert not batch.boards().any()
    batch.step((0, 1))
    batch.reset([0, 2**70])
    assert [batch.game(i).notation for i in range(2)] == ["X../.../...", ".../.../..."]
    batch.reset()
    for mask in (np.array([1.0, 0.0]), ["yes", "no"], "abc"):
        with pytest.raises(TypeError, match="mask must be bools or integers"):
            batch.reset(mask)
    # Not an array of moves at all: a wrong type, not a move refused.
    for actions in (None, "abcd"):
        with pytest.raises(TypeError, match="actions must be integers"):
            batch.step(actions)
    # A mask of the wrong shape plays no move: an OxoError, not an illegal move.
    for mask, message in [
        (np.zeros((2, 2), dtype=bool), r"mask must be a 1-D array"),
        (np.zeros(5, dtype=bool), "a mask of 5 for 2 boards"),
        ([], "a mask of 0 for 2 boards"),
    ]:
        with pytest.raises(oxo.OxoError, match=message) as refused:
            batch.reset(mask)
        assert not isinstance(refused.value, oxo.IllegalMoveError)


def test_step_and_reset_read_any_integer_dtype_and_any_stride():
    batch = oxo.VectorGame(3, 3, 3)
    batch.step(np.arange(6)[::2])  # a strided view: 0, 2, 4
    acts = np.array([[1, 9], [3, 9], [5, 9]])
    batch.step(acts[:, 0])  # a column
    batch.step(np.array([8, 7, 6], dtype=np.uint8)[::-1])  # reversed: 6, 7, 8
    batch.step(np.array([-1, -1, 2], dtype=">i4"))  # big-endian
    assert [batch.game(i).notation for i in range(3)] == ["XO./.../X..", "..X/O../.X.", "..O/.XO/..X"]
    batch.reset(np.array([True, True, False, False, False, False])[::2])  # True, False, False
    batch.reset(np.array([[7, 0], [7, 1], [7, 0]])[:, 1])  # a column: 0, 1, 0
    assert [batch.game(i).notation for i in range(3)] == [".../.../...", ".../.../...", "..O/.XO/..X"]


def test_step_and_reset_read_fields_of_packed_records():
    # A replay buffer's packed record: a one-byte flag before each value,
    # so the values' field is neither aligned nor strided by its item size.
    records = np.zeros(3, dtype=[("flag", "u1"), ("action", "<i8"), ("keep", "<i4")])
    records["flag"] = [0, 7, 0]
    records["action"] = [4, 0, 8]
    assert not records["action"].flags.aligned
    batch = oxo.VectorGame(3, 3, 3)
    batch.step(records["action"])
    assert [batch.game(i).notation for i in range(3)] == [".../.X./...", "X../.../...", ".../.../..X"]
    records["keep"] = [1, 0, 1]
    batch.reset(records["keep"])
    assert [batch.game(i).notation for i in range(3)] == [".../.../...", "X../.../...", ".../.../..."]
