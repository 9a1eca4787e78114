"""oxo.Strategy: oxo's players, built in and from model files."""

import pickle
import subprocess
import sys

import pytest

import oxo
from conftest import run_interrupted


def play_out(x, o, game):
    players = {"X": x, "O": o}
    while not game.is_over:
        action = players[game.to_move].choose(game)
        assert game.is_legal(action)
        game.play(action)
    assert x.choose(game) is None and o.choose(game) is None
    return game


@pytest.mark.parametrize("name", oxo.STRATEGIES)
def test_every_strategy_plays_legal_moves_to_the_end(name):
    for seed in range(4):
        game = play_out(oxo.Strategy(name, seed=seed), oxo.Strategy("random", seed=seed), oxo.Game())
        if name == "perfect":
            assert game.winner != "O"


def test_alphabeta_plays_gomoku():
    strategy = oxo.Strategy("alphabeta", seed=1, budget=2000)
    game = oxo.Game(15, 15, 5)
    for _ in range(6):
        assert strategy.play(game) is not None
    assert game.move_count == 6


def test_choices_are_fixed_by_the_seed():
    games = []
    for _ in range(2):
        game = oxo.Game(5, 5, 4)
        play_out(oxo.Strategy("random", seed=3), oxo.Strategy("rules", seed=4), game)
        games.append(game.moves)
    assert games[0] == games[1]


def test_each_board_keeps_its_own_stream_whatever_boards_come_between():
    # A random opponent shared across boards (a curriculum, mixed sizes)
    # plays on each board as one that only ever saw that board: it used to
    # start again from its seed whenever the board changed.
    alone = oxo.Strategy("random", seed=1)
    expected = [alone.choose(oxo.Game(3, 3)) for _ in range(12)]
    shared = oxo.Strategy("random", seed=1)
    played = []
    for i in range(12):
        played.append(shared.choose(oxo.Game(3, 3)))
        shared.choose(oxo.Game(4, 4) if i % 2 else oxo.Game(3, 3, 2))
    assert played == expected
    # Past the boards kept, a board built again plays on with a stream of
    # its own, not its first one again.
    for n in range(5, 5 + 8):
        shared.choose(oxo.Game(n, n))
    again = [shared.choose(oxo.Game(3, 3)) for _ in range(12)]
    assert again != expected


def test_unknown_and_unsupported_strategies_are_refused():
    with pytest.raises(oxo.StrategyError, match='unknown strategy "best": choose one of random'):
        oxo.Strategy("best")
    with pytest.raises(oxo.StrategyError, match="perfect cannot play on a 9x9 k=5 board"):
        oxo.Strategy("perfect").choose(oxo.Game(9, 9, 5))
    with pytest.raises(oxo.StrategyError, match="learned cannot play on a 6x6 k=4 board"):
        oxo.Strategy("learned").choose(oxo.Game(6, 6, 4))


def test_a_seed_or_budget_out_of_range_names_the_argument():
    # pyo3's conversion to u64 raised a bare OverflowError naming neither.
    with pytest.raises(oxo.OxoError, match="seed must be from 0 to 18446744073709551615, not -1"):
        oxo.Strategy("random", seed=-1)
    with pytest.raises(oxo.OxoError, match="budget must be from 0 to 18446744073709551615, not 18446744073709551616"):
        oxo.Strategy("alphabeta", budget=2**64)
    assert oxo.Strategy("random", seed=2**64 - 1).choose(oxo.Game()) in range(9)


@pytest.fixture(scope="module")
def model(oxo_bin, tmp_path_factory):
    """A small 3x3 model trained by `oxo train`."""
    path = tmp_path_factory.mktemp("model") / "ttt.oxo"
    subprocess.run(
        [oxo_bin, "train", "--out", str(path), "--episodes", "3000", "--checkpoints", "1",
         "--eval-games", "1", "--grade-positions", "0"],
        check=True,
        capture_output=True,
    )
    return path


def test_a_learned_model_file_plays(model):
    strategy = oxo.Strategy("learned", seed=1, model=model)
    assert strategy.name == "learned"
    play_out(strategy, oxo.Strategy("random"), oxo.Game())
    with pytest.raises(oxo.ModelError, match="model trained for 3x3 k=3, not 4x4 k=4"):
        strategy.choose(oxo.Game(4, 4))


def test_model_files_that_cannot_be_played_are_refused(tmp_path, model):
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a model at all")
    with pytest.raises(oxo.ModelError, match="notes.txt: not an oxo model file"):
        oxo.Strategy("learned", model=foreign)
    truncated = tmp_path / "short.oxo"
    truncated.write_bytes(model.read_bytes()[:40])
    with pytest.raises(oxo.ModelError, match="short.oxo: the model file is truncated"):
        oxo.Strategy("learned", model=truncated)
    with pytest.raises(oxo.ModelError, match="cannot open model file .*missing.oxo"):
        oxo.Strategy("learned", model=tmp_path / "missing.oxo")
    with pytest.raises(oxo.StrategyError, match='played by the learned strategy, not "rules"'):
        oxo.Strategy("rules", model=model)
    # Why a file cannot be read is said, as the command line says it.
    with pytest.raises(oxo.ModelError, match=r"cannot read or write the model file: Is a directory"):
        oxo.Strategy("learned", model=tmp_path)
    # A model for another board names its file when it is asked to play.
    with pytest.raises(oxo.ModelError, match=r"ttt\.oxo: model trained for 3x3 k=3, not 4x4 k=4"):
        oxo.Strategy("learned", model=model).choose(oxo.Game(4, 4))


def test_strategies_pickle_and_start_afresh_from_their_seed(model, tmp_path):
    def moves(strategy):
        game = oxo.Game(5, 5, 4)
        return play_out(strategy, oxo.Strategy("random", seed=9), game).moves

    for strategy in [oxo.Strategy("random", seed=3), oxo.Strategy("alphabeta", seed=5, budget=300)]:
        fresh = moves(pickle.loads(pickle.dumps(strategy)))
        assert fresh == moves(strategy)
        # Played already, the original pickles as it was made.
        assert moves(pickle.loads(pickle.dumps(strategy))) == fresh
    learned = oxo.Strategy("learned", seed=1, model=model)
    model.rename(tmp_path / "moved.oxo")  # the bytes travel, not the path
    try:
        back = pickle.loads(pickle.dumps(learned))
    finally:
        (tmp_path / "moved.oxo").rename(model)
    game = oxo.Game()
    assert back.choose(game) == learned.choose(game)
    with pytest.raises(oxo.ModelError, match="model trained for 3x3 k=3, not 4x4 k=4"):
        back.choose(oxo.Game(4, 4))


def test_a_tampered_strategy_pickle_is_refused():
    with pytest.raises(oxo.ModelError, match="a pickled model: not an oxo model file"):
        oxo.Strategy("learned").__setstate__((b"not a model",))
    with pytest.raises(oxo.StrategyError, match='a pickled "rules" strategy cannot hold a model'):
        oxo.Strategy("rules").__setstate__((b"",))


def test_a_game_is_free_while_a_strategy_chooses_on_it():
    # In a child process, so that the long search ends with it: alphabeta
    # searching a 15x15 position for up to a billion positions on a daemon
    # thread, and the main thread meanwhile playing the game, by hand and
    # by another strategy (choose used to hold the game for its whole
    # search: "Already borrowed", then a panic). The search must still be
    # running when the main thread is done, or the test proves nothing.
    code = """
import threading, time
import oxo

game = oxo.Game(15, 15, 5)
for action in [112, 113, 97]:
    game.play(action)
started = threading.Event()

def think():
    started.set()
    oxo.Strategy("alphabeta", budget=10**9).choose(game)

searching = threading.Thread(target=think, daemon=True)
searching.start()
started.wait()
time.sleep(0.3)
game.play(0)
oxo.Strategy("random").play(game)
print(game.move_count, searching.is_alive())
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "5 True\n"


def test_ctrl_c_stops_a_long_search_and_the_strategy_plays_on():
    # alphabeta given 10**12 positions a move on a 15x15 position (hours)
    # is sent one SIGINT once it has begun; without the stop it would run
    # on and the child would time out.
    code = """
import oxo

game = oxo.Game(15, 15, 5)
for action in [112, 113, 97]:
    game.play(action)
strategy = oxo.Strategy("alphabeta", seed=5, budget=10**12)
try:
    begun.set()
    strategy.play(game)
    print("finished")
except KeyboardInterrupt:
    print("interrupted", game.move_count)
# The same strategy answers the next move: four in a row and a free end
# is won before any search.
for action in [0, 127, 1, 142, 2]:
    game.play(action)
print(strategy.choose(game))
"""
    interrupted, answer = run_interrupted(code)
    assert interrupted == "interrupted 3" and answer in {"82", "157"}


def test_a_signal_handler_that_calls_the_searching_strategy_is_refused():
    # A handler runs while the main thread waits on the strategy's search;
    # one that calls that strategy would wait on it for ever. It is told
    # so instead, and its error ends the search as Ctrl-C's would.
    code = """
import signal
import oxo

game = oxo.Game(15, 15, 5)
for action in [112, 113, 97]:
    game.play(action)
strategy = oxo.Strategy("alphabeta", seed=5, budget=10**12)

def tick(signum, frame):
    strategy.choose(game)

signal.signal(signal.SIGALRM, tick)
try:
    # Every 0.3 s, so that one comes while the search runs, however late
    # it starts (one before it would start a search of its own).
    signal.setitimer(signal.ITIMER_REAL, 0.3, 0.3)
    strategy.choose(game)
except oxo.OxoError as e:
    print(e)
finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == (
        "this strategy is searching for the main thread: a signal handler cannot use it until "
        "that search ends\n"
    )


def test_a_search_on_the_main_thread_chooses_as_one_on_another():
    # The main thread's search past the default budget runs on a thread of
    # its own (so that Ctrl-C can stop it): its move is the one any
    # thread's search makes.
    import threading

    game = oxo.Game(15, 15, 5)
    for action in [112, 113, 97]:
        game.play(action)
    budget = 100_001
    on_main = [oxo.Strategy("alphabeta", seed=s, budget=budget).choose(game) for s in range(3)]
    elsewhere = []
    side = threading.Thread(
        target=lambda: elsewhere.extend(
            oxo.Strategy("alphabeta", seed=s, budget=budget).choose(game) for s in range(3)
        )
    )
    side.start()
    side.join()
    assert elsewhere == on_main
