"""oxo's Python package against OpenSpiel and PettingZoo, side by side.

Random players in a Python loop, on tic-tac-toe (3x3 k=3), 7x7 k=5 and
gomoku (15x15 k=5):

- state API: oxo.Game against OpenSpiel's state (``tic_tac_toe``, ``mnk``
  with m=n=7 k=5, ``gomoku``): legal moves, a random choice, apply;
- AEC: oxo.env against PettingZoo's ``tictactoe_v3`` (3x3 only; both with
  their wrappers): ``last()``, a random legal action from the mask, ``step``;
- batch: oxo.VectorGame stepping many boards a call, with its own random
  legal actions, finished boards reset.

Each figure is moves (plies) a second; each run lasts about --seconds and is
repeated --repeat times, printed as the median and the range. Build the
wheel in release mode first (scripts/bench-python.sh does it all).
"""

import argparse
import random
import statistics
import time

import numpy as np
import pyspiel
from pettingzoo.classic import tictactoe_v3

import oxo

BOARDS = [
    ("3x3 k=3", (3, 3, 3), ("tic_tac_toe", {})),
    ("7x7 k=5", (7, 7, 5), ("mnk", {"m": 7, "n": 7, "k": 5})),
    ("15x15 k=5", (15, 15, 5), ("gomoku", {})),
]


def rate(run, seconds):
    """Moves a second: `run()` plays some games and returns its moves."""
    moves, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        moves += run()
    return moves / elapsed


def openspiel(name, params, rng):
    game = pyspiel.load_game(name, params)

    def run():
        state, moves = game.new_initial_state(), 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        return moves

    return run


def oxo_game(shape, rng):
    def run():
        game = oxo.Game(*shape)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        return game.move_count

    return run


def aec(make, rng):
    env = make()

    def run():
        env.reset()
        moves = 0
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
                moves += 1
        return moves

    return run


def vector(shape, boards, observe):
    batch = oxo.VectorGame(boards, *shape, seed=1)

    def run():
        moves = 0
        for _ in range(20):
            actions = batch.random_actions()
            _, dones = batch.step(actions)
            if observe:
                batch.observe()
                batch.action_masks()
            moves += int(np.count_nonzero(actions >= 0))
            batch.reset(dones)
        return moves

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one run")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement")
    parser.add_argument("--boards", type=int, default=4096, help="boards in a VectorGame")
    args = parser.parse_args()
    rng = random.Random(1)

    rows = []
    for label, shape, (name, params) in BOARDS:
        rows.append((label, "OpenSpiel state API", openspiel(name, params, rng)))
        rows.append((label, "oxo.Game", oxo_game(shape, rng)))
        if shape == (3, 3, 3):
            rows.append((label, "PettingZoo tictactoe_v3 (AEC)", aec(tictactoe_v3.env, rng)))
        rows.append(
            (label, "oxo.env (AEC)", aec(lambda s=shape: oxo.env(rows=s[0], cols=s[1], k=s[2]), rng))
        )
        rows.append((label, f"oxo.VectorGame x{args.boards}", vector(shape, args.boards, False)))
        rows.append(
            (label, f"oxo.VectorGame x{args.boards} + observe", vector(shape, args.boards, True))
        )

    # Interleave the repeats so that a busy spell of the machine spreads
    # over every measurement instead of spoiling one.
    figures = {i: [] for i in range(len(rows))}
    for _ in range(args.repeat):
        for i, (_, _, run) in enumerate(rows):
            figures[i].append(rate(run, args.seconds))

    print(f"moves/s, median of {args.repeat} runs of {args.seconds} s (min-max); oxo {oxo.__version__}")
    print("ratio: the median of each round's ratio (the rounds interleave every measurement,")
    print("so a ratio compares two figures taken moments apart), with its min-max")
    print(f"{'board':<10} {'what':<38} {'median':>12} {'min':>12} {'max':>12}  ratio")
    base = {}
    for i, (label, what, _) in enumerate(rows):
        runs = figures[i]
        # AEC environments against PettingZoo's, the rest against OpenSpiel.
        against = "PettingZoo" if "AEC" in what else "OpenSpiel"
        ratio = ""
        if what.startswith(against):
            base[against, label] = runs
        elif (against, label) in base:
            ratios = [a / b for a, b in zip(runs, base[against, label])]
            ratio = (
                f"{statistics.median(ratios):.1f}x {against} "
                f"({min(ratios):.1f}-{max(ratios):.1f})"
            )
        print(
            f"{label:<10} {what:<38} {statistics.median(runs):>12,.0f} {min(runs):>12,.0f} "
            f"{max(runs):>12,.0f}  {ratio}"
        )


if __name__ == "__main__":
    main()
