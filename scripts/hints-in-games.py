#!/usr/bin/env python3
"""How far the hints reach in games as played on 7x7 k=5.

Reads an `oxo arena --records` file (one game a line) and asks
`hints7 at POSITION --budget 300000` (the hints' own budget) for every
position of every game after its fourth move, up to its end; writes one
JSON line a position to standard output: its game, ply, position, whether
the first pass valued every move, the second pass's count when it did not,
and the seconds taken. docs/benchmarks.md ("The hints in played games")
gives the commands and the figures.

    python3 scripts/hints-in-games.py HINTS7 RECORDS > OUT.jsonl
"""
import json
import subprocess
import sys
import time


def notation(stones, rows, cols):
    """The position after `stones`, the first of them X's: a game O began
    is written with the colours swapped (oxo's notation has X move first;
    a position's values, for the side to move, are the same)."""
    board = [["."] * cols for _ in range(rows)]
    mark = "X"
    for row, col in stones:
        board[row][col] = mark
        mark = "O" if mark == "X" else "X"
    return "/".join("".join(row) for row in board)


def main():
    hints7, records = sys.argv[1], sys.argv[2]
    for line in open(records):
        game = json.loads(line)
        stones = game["opening"] + game["moves"]
        for ply in range(4, len(stones)):
            position = notation(stones[:ply], game["rows"], game["cols"])
            began = time.monotonic()
            out = subprocess.run(
                [hints7, "at", position, "--budget", "300000"],
                capture_output=True, text=True, check=True,
            ).stdout.splitlines()
            some = next((l for l in out if l.startswith("some values")), None)
            print(json.dumps({
                "game": game["game"],
                "ply": ply,
                "position": position,
                "first_pass": "no answer" not in out[0],
                "second_pass": some,
                "secs": round(time.monotonic() - began, 3),
            }), flush=True)


if __name__ == "__main__":
    main()
