"""Train a tabular learner on tic-tac-toe against oxo's random player, then
grade it with oxo's solver.

The learner keeps a value for every position it moves into (an afterstate),
learned from the results of its games (Monte Carlo, epsilon-greedy), playing
X in half the games and O in the other half. It is then graded two ways:
games against `random` from both seats, and the share of all 4,520 positions
where it is to move in which its greedy move keeps the perfect-play value,
as `oxo.solve` tells it.

    python examples/tabular.py --episodes 20000
"""

import argparse
import random
from collections import defaultdict

import oxo


class Learner:
    def __init__(self, epsilon, alpha, rng):
        self.values = defaultdict(float)  # afterstate notation -> value for its mover
        self.epsilon, self.alpha, self.rng = epsilon, alpha, rng

    def value_after(self, game, action):
        game.play(action)
        value = 1.0 if game.winner else self.values[game.notation]
        game.undo()
        return value

    def choose(self, game, explore):
        moves = game.legal_moves()
        if explore and self.rng.random() < self.epsilon:
            return self.rng.choice(moves)
        best = max(self.value_after(game, a) for a in moves)
        return self.rng.choice([a for a in moves if self.value_after(game, a) == best])

    def learn(self, afterstates, result):
        for notation in afterstates:
            self.values[notation] += self.alpha * (result - self.values[notation])


def play(learner, opponent, learner_mark, explore):
    """One game; returns the learner's result (+1, 0, -1) and its afterstates."""
    game, afterstates = oxo.Game(), []
    while not game.is_over:
        if game.to_move == learner_mark:
            game.play(learner.choose(game, explore))
            afterstates.append(game.notation)
        else:
            opponent.play(game)
    result = 0 if game.winner is None else (1 if game.winner == learner_mark else -1)
    return result, afterstates


def positions_to_move(game, seen):
    """Every position reachable from `game` where the game goes on, once."""
    if game.is_over or game.notation in seen:
        return
    seen.add(game.notation)
    for action in game.legal_moves():
        game.play(action)
        positions_to_move(game, seen)
        game.undo()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    learner = Learner(epsilon=0.1, alpha=0.1, rng=rng)
    opponent = oxo.Strategy("random", seed=args.seed)

    for episode in range(args.episodes):
        result, afterstates = play(learner, opponent, "XO"[episode % 2], explore=True)
        learner.learn(afterstates, result)
    print(f"trained on {args.episodes} games against random: {len(learner.values)} positions valued")

    for mark in "XO":
        tally = {1: 0, 0: 0, -1: 0}
        for _ in range(1000):
            tally[play(learner, opponent, mark, explore=False)[0]] += 1
        print(f"as {mark} against random: {tally[1]} won, {tally[0]} drawn, {tally[-1]} lost of 1000")

    positions = set()
    positions_to_move(oxo.Game(), positions)
    kept = 0
    for notation in sorted(positions):
        game = oxo.Game.from_notation(notation)
        solution = oxo.solve(game)
        value, _ = solution.moves[learner.choose(game, explore=False)]
        kept += value == solution.value
    print(f"value kept (graded by oxo.solve): {kept} of {len(positions)} positions, "
          f"{100 * kept / len(positions):.1f}%")


if __name__ == "__main__":
    main()
