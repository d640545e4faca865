"""A small HTP (GTP) Hex engine for the tests: it plays the first empty cell (a1, b1, ...)
and, from its move number --after on, commits the fault --fault: an occupied cell
(illegal), garbage, a `?` answer (refuse), an answer after --sleep seconds (slow),
exiting mid-game (exit) or `resign`. It refuses time_settings, as simple engines do, and
appends every command to --log."""

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--fault", default="none")
parser.add_argument("--after", type=int, default=0)
parser.add_argument("--sleep", type=float, default=30.0)
parser.add_argument("--log", default=None)
args = parser.parse_args()

size = 11
stones: set[str] = set()
moves = 0


def answer(text="", ok=True):
    sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
    sys.stdout.flush()


def cells():
    return [f"{chr(ord('a') + c)}{r + 1}" for r in range(size) for c in range(size)]


def genmove():
    global moves
    moves += 1
    empty = [c for c in cells() if c not in stones]
    fault = args.fault if moves > args.after else "none"
    if fault == "illegal":
        answer(next(iter(stones)) if stones else "a1")
    elif fault == "garbage":
        answer("pass the salt")
    elif fault == "refuse":
        answer("cannot think", ok=False)
    elif fault == "slow":
        time.sleep(args.sleep)
        answer(empty[0])
    elif fault == "exit":
        sys.exit(3)
    elif fault == "resign":
        answer("resign")
    else:
        stones.add(empty[0])
        answer(empty[0])


for raw in iter(sys.stdin.readline, ""):
    if args.log:
        with open(f"{args.log}.{os.getpid()}", "a") as f:  # one file per process: no interleaving
            f.write(raw)
    words = raw.split()
    if not words:
        continue
    cmd, rest = words[0], words[1:]
    if cmd == "boardsize":
        size = int(rest[0])
        answer()
    elif cmd == "clear_board":
        stones.clear()
        answer()
    elif cmd == "play":
        if rest[1] == "swap-pieces":  # the first stone, mirrored, changes hands
            (first,) = stones
            stones.clear()
            stones.add(f"{chr(ord('a') + int(first[1:]) - 1)}{ord(first[0]) - ord('a') + 1}")
        else:
            stones.add(rest[1])
        answer()
    elif cmd == "genmove":
        genmove()
    elif cmd == "quit":
        answer()
        break
    else:
        answer(f"unknown command {cmd}", ok=False)
