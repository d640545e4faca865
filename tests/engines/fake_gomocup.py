"""A small Gomocup brain for the tests: it plays the first empty cell (row by row from
the top left) and, from its move number --after on, commits the fault --fault: an
occupied cell (illegal), a cell off the board (offboard), garbage, an ERROR line, an
answer after --sleep seconds (slow), or exiting mid-game (exit). Every command it
receives is appended to --log, so tests can check what the client sent. --stderr writes
lines to stderr at start (for the engine's log); on END it takes --farewell seconds (saving,
as a brain may), logs `saved on END` and exits."""

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--fault", default="none")
parser.add_argument("--after", type=int, default=0)
parser.add_argument("--sleep", type=float, default=30.0)
parser.add_argument("--log", default=None)
parser.add_argument("--after-restarts", type=int, default=0, help="faults only after this many RESTARTs")
parser.add_argument("--stderr", default="", help="lines (separated by |) written to stderr at start")
parser.add_argument("--farewell", type=float, default=0.0, help="seconds it takes to exit after END")
args = parser.parse_args()

width = height = 0
stones: dict[tuple[int, int], int] = {}
moves = 0
restarts = 0


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def log(line):
    if args.log:
        with open(f"{args.log}.{os.getpid()}", "a") as f:  # one file per process: no interleaving
            f.write(line + "\n")


def reply():
    global moves
    moves += 1
    empty = [(x, y) for y in range(height) for x in range(width) if (x, y) not in stones]
    fault = args.fault if moves > args.after and restarts >= args.after_restarts else "none"
    send("MESSAGE thinking")
    if fault == "illegal":
        x, y = next(iter(stones)) if stones else (0, 0)
        send(f"{x},{y}")
    elif fault == "offboard":
        send(f"{width},{height}")
    elif fault == "garbage":
        send("I resign, human")
    elif fault == "error":
        send("ERROR out of memory")
    elif fault == "slow":
        time.sleep(args.sleep)
        send(f"{empty[0][0]},{empty[0][1]}")
    elif fault == "exit":
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: fake brain gave up\n")
        sys.exit(3)
    else:
        stones[empty[0]] = 1
        send(f"{empty[0][0]},{empty[0][1]}")


if args.stderr:
    sys.stderr.write("".join(f"{line}\n" for line in args.stderr.split("|")))
    sys.stderr.flush()

lines = iter(sys.stdin.readline, "")
for raw in lines:
    line = raw.strip()
    log(line)
    cmd, _, arg = line.partition(" ")
    cmd = cmd.upper()
    if cmd == "START":
        width = height = int(arg)
        stones.clear()
        send("OK")
    elif cmd == "RECTSTART":
        width, height = (int(v) for v in arg.split(","))
        stones.clear()
        send("OK")
    elif cmd == "RESTART":
        restarts += 1
        stones.clear()
        send("OK")
    elif cmd == "BEGIN":
        reply()
    elif cmd == "TURN":
        x, y = (int(v) for v in arg.split(","))
        stones[(x, y)] = 2
        reply()
    elif cmd == "BOARD":
        stones.clear()
        for entry in lines:
            entry = entry.strip()
            log(entry)
            if entry == "DONE":
                break
            x, y, field = (int(v) for v in entry.split(","))
            stones[(x, y)] = field
        reply()
    elif cmd == "END":
        time.sleep(args.farewell)
        log("saved on END")
        break
