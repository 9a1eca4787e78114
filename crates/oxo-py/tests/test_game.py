"""oxo.Game: the API, its errors, and its rules against two other judges."""

import copy
import pickle
import random
import re
import subprocess
import sys

import numpy as np
import pytest

import oxo
from conftest import wins_through

BOARDS = [(3, 3, 3), (4, 4, 4), (5, 5, 4), (7, 7, 5), (15, 15, 5), (4, 6, 3), (1, 5, 2), (6, 2, 2)]


def test_a_new_game_is_empty_with_x_to_move():
    game = oxo.Game()
    assert (game.rows, game.cols, game.k) == (3, 3, 3)
    assert game.to_move == "X"
    assert game.notation == ".../.../..."
    assert game.legal_moves() == list(range(9))
    assert game.winner is None and game.outcome is None and not game.is_over
    assert oxo.Game(4, 9).k == 4  # k defaults to the shorter side...
    assert oxo.Game(7, 9).k == 5  # ...up to five in a row


def test_play_accepts_actions_and_pairs_and_finds_the_win():
    game = oxo.Game()
    for move in [0, (1, 0), 1, (1, 1)]:
        game.play(move)
    assert game.notation == "XX./OO./..."
    game.play(2)
    assert game.winner == "X" and game.outcome == "X" and game.is_over
    assert game.winning_line == [0, 1, 2]
    assert game.legal_moves() == []
    assert game.legal_mask().tolist() == [0] * 9


def test_a_refused_move_raises_and_changes_nothing():
    game = oxo.Game()
    game.play(4)
    before = game.copy()
    cases = [
        (4, "(1, 1) is already taken by X"),
        (9, "action 9 is off the board: a 3x3 k=3 board's actions are 0 to 8"),
        (-1, "action -1 is off the board"),
        ((3, 0), "(3, 0) is off the board"),
        ((0, -5), "(0, -5) is off the board"),
        # Past any machine integer: named as given, not clamped.
        (2**70, f"action {2**70} is off the board: a 3x3 k=3 board's actions are 0 to 8"),
        ((2**70, -(2**70)), f"({2**70}, {-(2**70)}) is off the board"),
    ]
    for move, message in cases:
        with pytest.raises(oxo.IllegalMoveError, match=message.replace("(", r"\(").replace(")", r"\)")):
            game.play(move)
        assert game == before and game.to_move == "O" and game.moves == [4]
    with pytest.raises(TypeError):
        game.play("centre")
    finished = oxo.Game.from_notation("XXX/OO./...")
    with pytest.raises(oxo.IllegalMoveError, match="the game is already over"):
        finished.play(8)
    assert isinstance(oxo.IllegalMoveError("x"), ValueError)


def test_bad_boards_raise_rules_errors():
    for args, message in [
        ((0, 3, 1), "at least one row"),
        ((3, 3, 4), "k=4 is impossible on a 3x3 board"),
        ((2000, 3, 3), "too large"),
    ]:
        with pytest.raises(oxo.RulesError, match=message):
            oxo.Game(*args)
    for text, message in [
        ("XXX/OOO/...", "both X and O have 3 in a row"),
        ("XX/O", "row 2 has 1 cell but row 1 has 2"),
        ("X?./.../...", "unexpected '\\?'"),
        ("OO./.../...", "X has 0 marks and O has 2"),
        ("", "empty position"),
    ]:
        with pytest.raises(oxo.RulesError, match=message):
            oxo.Game.from_notation(text)
    # A long position is quoted in part, its length said.
    for text, message in [
        ("." * 5000, r"too large"),
        ("/".join(["X" * 1000] * 1000), r"X has 1000000 marks and O has 0"),
    ]:
        with pytest.raises(oxo.RulesError, match=message) as refused:
            oxo.Game.from_notation(text)
        assert len(str(refused.value)) < 300, str(refused.value)[:400]
        assert f"({len(text)} bytes)" in str(refused.value)
    # Past u32 (negative, or huge): an error naming the argument, where
    # pyo3's conversion raised a bare OverflowError.
    for args, message in [
        ((-1, 3), "rows=-1 is not a board side: a side is from 1 to 1024 cells"),
        ((3, 2**40), "cols=1099511627776 is not a board side"),
        ((3, 3, -1), "k=-1 is impossible on a 3x3 board: k must be from 1 to 3"),
        ((3, 3, 2**200), "k=1606938044258990275541962092341162602522202993782792835301376 is impossible"),
    ]:
        with pytest.raises(oxo.RulesError, match=message):
            oxo.Game(*args)
    with pytest.raises(oxo.RulesError, match="k=-2 is impossible on a 3x3 board"):
        oxo.Game.from_notation("X../.../...", k=-2)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        oxo.Game(3.0, 3)
    assert oxo.Game(np.int64(4), np.int8(1)).notation == "./././."  # anything with __index__
    # ...but a bool, which Python counts as an int, is no size (nor a move).
    with pytest.raises(TypeError, match="a bool is not a number here: give an int, not True"):
        oxo.Game(4, True)
    with pytest.raises(TypeError, match="a bool is not a number here: give an int, not False"):
        oxo.Strategy("random", seed=False)


def test_undo_takes_moves_back_to_the_start():
    game = oxo.Game.from_notation("X../.O./...")
    for action in [8, 2, 3, 6]:
        game.play(action)
    assert game.winner == "O" and game.winning_line == [2, 4, 6]
    assert game.undo() == 6
    assert not game.is_over and game.to_move == "O" and game.winning_line is None
    assert [game.undo() for _ in range(3)] == [3, 2, 8]
    assert game.notation == "X../.O./..." and game.moves == []
    with pytest.raises(oxo.IllegalMoveError, match="no move to undo"):
        game.undo()


def test_what_is_not_a_move_is_a_type_error_that_says_what_a_move_is():
    game = oxo.Game()
    things = [
        ("a", "str 'a'"),
        (1.5, "float 1.5"),
        ((1,), "tuple (1,)"),
        (None, "NoneType None"),
        ((1, "x"), "tuple (1, 'x')"),
        (True, "bool True"),
        ((True, False), "tuple (True, False)"),
        ([1, 2, 0], "list [1, 2, 0]"),
        ([1.0, 2], "list [1.0, 2]"),
    ]
    for thing, shown in things:
        with pytest.raises(TypeError, match=r"a move is an action \(an int\) or a \(row, col\) pair of ints, as a tuple or a list, not "):
            game.play(thing)
        with pytest.raises(TypeError, match=re.escape(shown)):
            game.is_legal(thing)
    assert game.moves == []
    game.play(np.int64(4))
    game.play((np.int8(0), 0))
    # A list is a pair too: what json.loads makes of one.
    game.play([2, 2])
    assert game.moves == [4, 0, 8]


def test_copies_are_independent():
    game = oxo.Game()
    game.play(0)
    for other in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        other.play(4)
        assert game.notation == "X../.../..." and other.notation == "X../.O./..."
        assert other.moves == [0, 4]


def test_pickled_games_come_back_whole_with_their_moves_to_undo():
    game = oxo.Game.from_notation("X..../.O.../...../...../.....", k=4)
    game.play(12)
    game.play((4, 4))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(game, protocol))
        assert back == game and back.k == 4 and back.moves == [12, 24]
        assert back.undo() == 24 and back.undo() == 12
        assert back.notation == "X..../.O.../...../...../....."
    won = oxo.Game(3, 3)
    for action in (0, 3, 1, 4, 2):
        won.play(action)
    back = pickle.loads(pickle.dumps(won))
    assert back.winner == "X" and back.winning_line == [0, 1, 2]


def test_a_tampered_pickle_is_refused_and_changes_nothing():
    game = oxo.Game()
    cases = [
        (("X../.../...", [0]), oxo.IllegalMoveError, "already taken"),
        (("X../.../...", [9]), oxo.IllegalMoveError, "actions are 0 to 8"),
        (("XX./.../...", []), oxo.RulesError, "impossible position"),
        (("..../..../....", []), oxo.RulesError, "cannot start at"),
        (("X../.../...", [-1]), oxo.IllegalMoveError, "off the board"),
        # Past any machine integer: refused the same way (it was an
        # OverflowError).
        (("X../.../...", [2**63]), oxo.IllegalMoveError, "actions are 0 to 8"),
        (("X../.../...", [-(2**70)]), oxo.IllegalMoveError, "off the board"),
    ]
    for state, error, words in cases:
        with pytest.raises(error, match=words):
            game.__setstate__(state)
        assert game.notation == ".../.../..." and game.moves == []


def test_numpy_views():
    game = oxo.Game(2, 3, 2)
    game.play(0)
    game.play(5)
    board = game.board()
    assert board.dtype == np.int8 and board.shape == (2, 3)
    assert board.tolist() == [[1, 0, 0], [0, 0, -1]]
    planes = game.planes()  # X to move: plane 0 is X's marks
    assert planes.dtype == np.int8 and planes.shape == (2, 3, 2)
    assert planes[:, :, 0].tolist() == [[1, 0, 0], [0, 0, 0]]
    assert planes[:, :, 1].tolist() == [[0, 0, 0], [0, 0, 1]]
    assert game.planes("O")[:, :, 0].tolist() == [[0, 0, 0], [0, 0, 1]]
    assert game.legal_mask().tolist() == [0, 1, 1, 1, 1, 0]
    board[0, 0] = 0  # a new array each time: the game is not changed
    assert game.get(0) == "X" and game.get((1, 2)) == "O" and game.get(1) is None
    with pytest.raises(oxo.RulesError, match="unknown player"):
        game.planes("Z")


def test_text_forms():
    game = oxo.Game.from_notation("x.o/.X./..o")
    assert str(game) == game.notation == "X.O/.X./..O"
    assert repr(game) == 'oxo.Game.from_notation("X.O/.X./..O", k=3)'
    assert game.render() == "X . O\n. X .\n. . O\n"


def random_moves(rng, rows, cols, count):
    """Moves a random player makes, with some off the board and some taken."""
    moves = []
    for _ in range(count):
        if rng.random() < 0.1:
            moves.append((rng.randint(-2, rows + 1), rng.randint(-2, cols + 1)))
        else:
            moves.append((rng.randrange(rows), rng.randrange(cols)))
    return moves


@pytest.mark.parametrize("rows,cols,k", BOARDS)
def test_rules_agree_with_a_reference_on_random_games(rows, cols, k):
    """Replay random games (illegal moves included) in oxo.Game and in a
    reference written for this test: same refusals, winner and draw."""
    rng = random.Random(rows * 1000 + cols * 10 + k)
    games = 300 if rows * cols <= 25 else 20
    for _ in range(games):
        game = oxo.Game(rows, cols, k)
        board, over, mover = {}, False, "X"
        for r, c in random_moves(rng, rows, cols, rows * cols * 3):
            legal = not over and 0 <= r < rows and 0 <= c < cols and (r, c) not in board
            assert game.is_legal((r, c)) == legal
            if not legal:
                with pytest.raises(oxo.IllegalMoveError):
                    game.play((r, c))
                continue
            game.play((r, c))
            board[(r, c)] = mover
            if wins_through(board, rows, cols, k, r, c):
                over = True
                assert game.winner == mover
            elif len(board) == rows * cols:
                over = True
                assert game.outcome == "draw"
            else:
                assert game.outcome is None
            mover = "O" if mover == "X" else "X"
            assert game.to_move == mover and game.is_over == over
            if over:
                break
        assert game.board().tolist() == [
            [{"X": 1, "O": -1}.get(board.get((r, c)), 0) for c in range(cols)] for r in range(rows)
        ]


def stream_lines(game, moves):
    """What `oxo stream` prints for `moves`, as oxo.Game sees them."""
    lines = []
    for r, c in moves:
        if game.is_over:
            lines.append("Game already over")
            continue
        mover = game.to_move
        try:
            game.play((r, c))
        except oxo.IllegalMoveError:
            lines.append("Invalid move")
            continue
        if game.winner:
            lines.append(f"{mover} wins")
        elif game.outcome == "draw":
            lines.append("Draw")
        else:
            lines.append(f"{mover} placed at ({r}, {c})")
    return lines


@pytest.mark.parametrize("rows,cols,k", BOARDS)
def test_rules_agree_with_the_oxo_command_stream(oxo_bin, rows, cols, k):
    """The same random games through `oxo stream`, the command-line
    front end of the Rust rules: the same answer to every move."""
    rng = random.Random(k * 7919 + rows)
    for _ in range(30):
        moves = random_moves(rng, rows, cols, rows * cols + 5)
        text = f"{len(moves)}\n" + "".join(f"move {r} {c}\n" for r, c in moves)
        out = subprocess.run(
            [oxo_bin, "stream", "--size", f"{rows}x{cols}", "--k", str(k)],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert out.splitlines() == stream_lines(oxo.Game(rows, cols, k), moves)


def test_without_pettingzoo_the_rest_of_oxo_imports_whole():
    # In a child process where PettingZoo cannot be imported: a star import
    # works, hasattr says no, and asking for the environment says why.
    code = """
import sys
sys.modules["pettingzoo"] = None
import oxo
from oxo import *
print(sorted(set(oxo.__all__) - set(dir())), hasattr(oxo, "raw_env"))
try:
    oxo.env()
except ImportError as e:
    print(type(e).__name__, "needs PettingZoo and Gymnasium" in str(e))
try:
    oxo.raw_env
except AttributeError as e:
    print(type(e).__name__, "needs PettingZoo and Gymnasium" in str(e))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "[] False\nImportError True\nAttributeError True\n"
