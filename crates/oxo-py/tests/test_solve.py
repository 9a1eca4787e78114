"""oxo.solve against a minimax written here, on every 3x3 position."""

import copy
import pickle
import subprocess
import sys

import pytest

import oxo
from conftest import run_interrupted, wins_through


def reference(board, mover, last, memo):
    """(value, distance) for `mover` by plain minimax: the winner wins as fast
    as it can, the loser holds out as long as it can, a draw fills the board."""
    key = (tuple(sorted(board.items())), mover)
    if key in memo:
        return memo[key]
    empty = [(r, c) for r in range(3) for c in range(3) if (r, c) not in board]
    if last is not None and wins_through(board, 3, 3, 3, *last):
        result = (-1, 0)
    elif not empty:
        result = (0, 0)
    else:
        moves = {}
        for cell in empty:
            board[cell] = mover
            value, distance = reference(board, "O" if mover == "X" else "X", cell, memo)
            del board[cell]
            moves[cell] = (-value, distance + 1)
        result = max(moves.values(), key=score)
    memo[key] = result
    return result


def score(eval):
    value, distance = eval
    return value * (100 - distance) if value else 0


def positions():
    """Every position play reaches on 3x3, once each, with its board."""
    seen = {}

    def walk(board, mover, last):
        notation = "/".join(
            "".join(board.get((r, c), ".") for c in range(3)) for r in range(3)
        )
        if notation in seen:
            return
        seen[notation] = (dict(board), mover, last)
        if last is not None and wins_through(board, 3, 3, 3, *last):
            return
        for cell in [(r, c) for r in range(3) for c in range(3) if (r, c) not in board]:
            board[cell] = mover
            walk(board, "O" if mover == "X" else "X", cell)
            del board[cell]

    walk({}, "X", None)
    return seen


def test_the_solver_agrees_on_every_3x3_position():
    memo = {}
    everything = positions()
    assert len(everything) == 5478
    for notation, (board, mover, last) in everything.items():
        solution = oxo.solve(notation)
        assert solution.position == notation and solution.to_move == mover
        assert (solution.value, solution.distance) == reference(board, mover, last, memo), notation
        over = last is not None and wins_through(board, 3, 3, 3, *last)
        expected = {}
        for r, c in [(r, c) for r in range(3) for c in range(3) if (r, c) not in board and not over]:
            board[(r, c)] = mover
            value, distance = reference(board, "O" if mover == "X" else "X", (r, c), memo)
            del board[(r, c)]
            expected[r * 3 + c] = (-value, distance + 1)
        assert solution.moves == expected, notation
        best = max(expected.values(), key=score, default=None)
        assert solution.best_moves == sorted(a for a, e in expected.items() if e == best)


def test_solve_takes_a_game_and_other_boards():
    game = oxo.Game(4, 4)
    solution = oxo.solve(game)
    assert (solution.value, solution.distance) == (0, 16)
    assert len(solution.moves) == 16
    assert oxo.solve("XX./OO./...").best_moves == [2]
    assert oxo.solve("XX../OO../..../....", k=3).value == 1


def test_solve_refuses_what_it_cannot_do():
    with pytest.raises(oxo.SolveError, match="too large to solve"):
        oxo.solve(oxo.Game(9, 9, 5))
    with pytest.raises(oxo.SolveError, match="no answer within the budget of 1000 positions"):
        oxo.solve(oxo.Game(7, 7, 4), budget=1000)
    with pytest.raises(oxo.RulesError, match="impossible position"):
        oxo.solve("XXX/OOO/...")
    with pytest.raises(TypeError, match=r"solve takes an oxo.Game or a position in notation .*, not int"):
        oxo.solve(42)
    # Past u64 or u32: an error naming the argument, not a bare OverflowError.
    with pytest.raises(oxo.OxoError, match="budget must be from 0 to 18446744073709551615, not -5"):
        oxo.solve("X../.../...", budget=-5)
    with pytest.raises(oxo.RulesError, match="k=-5 is impossible on a 3x3 board"):
        oxo.solve("X../.../...", k=-5)
    with pytest.raises(oxo.RulesError, match="k=-5 was given with a game of 3x3 k=3"):
        oxo.solve(oxo.Game(), k=-5)


def test_solve_refuses_a_k_other_than_the_games_own():
    game = oxo.Game.from_notation("XX../OO../..../....", k=3)
    # It used to answer about the game's k=3 (a win) and ignore k=4.
    with pytest.raises(oxo.RulesError, match="k=4 was given with a game of 4x4 k=3"):
        oxo.solve(game, k=4)
    assert oxo.solve(game, k=3).value == 1  # its own k: fine
    assert oxo.solve(game).value == 1


def test_a_long_solve_does_not_hold_up_another_thread():
    # In a child process, so that the long solve ends with it: a solve that
    # takes minutes (7x7 k=5 from the empty board, a budget of a billion
    # positions) on a daemon thread, and a 3x3 solve on the main thread
    # meanwhile, which must not wait for it (the solvers' pool used to stay
    # locked for a whole analysis). The timeout is a bound for a protocol,
    # not a speed test; if the long solve has not started by the time the
    # short one runs, the test cannot tell, and passes.
    code = """
import threading, time
import oxo

def long_solve():
    try:
        oxo.solve(oxo.Game(7, 7, 5), budget=10**9)
    except oxo.SolveError:
        pass

threading.Thread(target=long_solve, daemon=True).start()
time.sleep(0.5)
print(oxo.solve("XX./OO./...").best_moves)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "[2]\n"


def test_ctrl_c_stops_a_long_solve_and_the_next_solve_answers():
    # A solve that takes minutes (7x7 k=5 from the empty board) is sent one
    # SIGINT once it has begun; without the stop it would run on and the
    # child would time out.
    code = """
import oxo

try:
    begun.set()
    oxo.solve(oxo.Game(7, 7, 5))
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
# The stopped solver went back to the pool: the next call on that board
# runs (here to its budget) instead of stopping at once.
try:
    oxo.solve(oxo.Game(7, 7, 5), budget=1000)
except oxo.SolveError as e:
    print(e)
print(oxo.solve("XX./OO./...").best_moves)
"""
    assert run_interrupted(code) == [
        "interrupted",
        "no answer within the budget of 1000 positions",
        "[2]",
    ]


def test_solutions_pickle_and_compare_by_their_answer():
    first = oxo.solve("X.O/.X./..O")
    state = first.__reduce__()[1][0]
    restore = first.__reduce__()[0]
    # The same answer found with other work is equal, and hashes alike.
    again = restore(state[:-1] + (first.nodes + 1,))
    assert first == again and hash(first) == hash(again) and again.nodes != first.nodes
    assert first != oxo.solve("X.O/.X./O..") and first != "X.O/.X./..O"
    # One position, two games: a 4x4 board that is a draw with k=3 and k=4 alike.
    board = "XXOO/OOXX/XXOO/.OXX"
    three, four = oxo.solve(board, k=3), oxo.solve(board, k=4)
    assert (three.value, three.moves) == (four.value, four.moves) and three != four
    assert (three.k, four.k) == (3, 4) and "k=4" in repr(four)
    for copied in [pickle.loads(pickle.dumps(first)), copy.copy(first), copy.deepcopy(first)]:
        assert copied == first and copied.nodes == first.nodes
        assert (copied.moves, copied.best_moves, copied.to_move, copied.k) == (
            first.moves,
            first.best_moves,
            first.to_move,
            first.k,
        )


def test_every_solution_pickles_back():
    # The loader's checks hold for the solver's every answer: every 3x3
    # position (a win, a loss, a draw, a finished game) and 4x4 k=3 ones.
    games = [oxo.Game(3, 3)]
    seen = set()
    while games:
        game = games.pop()
        if game.notation in seen:
            continue
        seen.add(game.notation)
        solution = oxo.solve(game)
        assert pickle.loads(pickle.dumps(solution)) == solution
        for action in game.legal_moves():
            child = game.copy()
            child.play(action)
            games.append(child)
    assert len(seen) == 5478
    for position in ["X.../.O../..X./....", "XO../OX../..../....", "XXO./OOX./X.../...."]:
        solution = oxo.solve(position, k=3)
        assert pickle.loads(pickle.dumps(solution)) == solution


def test_a_tampered_solution_pickle_is_refused():
    solution = oxo.solve("X.O/.X./..O")
    restore, (state,) = solution.__reduce__()
    # position, k, to_move, value, distance, moves, best_moves, nodes
    for change, message in [
        ({0: "X.O/.X"}, "has no position of a game"),
        ({0: "XXX/XXX/XXX"}, "has no position of a game"),
        ({0: "x.o/.x./..o"}, "writes its position"),
        ({1: 4}, "has no position of a game"),
        ({2: "O"}, 'has "O" to move in a position where X moves'),
        ({2: "Z"}, 'has "Z" to move'),
        ({3: 2}, "has a value that is not -1, 0 or 1"),
        ({3: -1}, "has value -1 in 5 plies where its moves give 0 in 5"),
        ({4: 3}, "has value 0 in 3 plies where its moves give 0 in 5"),
        ({5: {}}, "has moves \\[\\], not the legal ones"),
        ({5: {**state[5], 9: (0, 1)}}, "not the legal ones"),
        ({5: {**state[5], 1: (1, 2)}}, "where its moves give 1 in 2"),
        ({6: [4]}, "has best moves \\[4\\] where its moves give \\[5\\]"),
        ({6: [5, 5]}, "has best moves"),
        ({6: []}, "has best moves"),
    ]:
        bad = tuple(change.get(i, field) for i, field in enumerate(state))
        with pytest.raises(oxo.OxoError, match=message):
            restore(bad)
