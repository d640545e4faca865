"""A small HTP (GTP) Hex engine for the tests: it plays the first empty cell (a1, b1, ...)
and, from its move number --after on, commits the fault --fault: an occupied cell
(illegal), garbage, a `?` answer (refuse), an answer after --sleep seconds (slow),
exiting mid-game (exit) or `resign`. It refuses time_settings, as simple engines do, and
appends every command to --log. --stderr writes lines to stderr at start; on `quit` it
takes --farewell seconds, logs `saved on quit` and exits.

Like MoHex, it refuses `swap-pieces` unless told `param_game allow_swap 1`; it accepts any
`param_*` setting, unless --no-params (an engine that knows none of them).

It keeps its own board in HTP's meaning, as MoHex and HexGui do: `swap-pieces` leaves the
board as it is and the players exchange colours (white moves next). A move onto an occupied
cell or out of turn is refused, and each game's final board is logged as `BOARD ...` at
`clear_board` and `quit`, so a controller that names moves in another frame is caught."""

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--fault", default="none")
parser.add_argument("--after", type=int, default=0)
parser.add_argument("--sleep", type=float, default=30.0)
parser.add_argument("--log", default=None)
parser.add_argument("--stderr", default="", help="lines (separated by |) written to stderr at start")
parser.add_argument("--farewell", type=float, default=0.0, help="seconds it takes to exit after quit")
parser.add_argument("--no-params", action="store_true", help="refuse every param_* command")
args = parser.parse_args()

if args.stderr:
    sys.stderr.write("".join(f"{line}\n" for line in args.stderr.split("|")))
    sys.stderr.flush()

size = 11
stones: dict[str, str] = {}  # cell -> colour (b or w), in HTP's frame
to_move = "b"
moves = 0
allow_swap = False  # MoHex's default


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
        stones[empty[0]] = to_move
        answer(empty[0])


for raw in iter(sys.stdin.readline, ""):
    if args.log:
        with open(f"{args.log}.{os.getpid()}", "a") as f:  # one file per process: no interleaving
            f.write(raw)
    words = raw.split()
    if not words:
        continue
    cmd, rest = words[0], words[1:]
    if cmd in ("clear_board", "quit") and args.log and stones:
        with open(f"{args.log}.{os.getpid()}", "a") as f:
            f.write("BOARD " + " ".join(f"{c}:{stones[c]}" for c in sorted(stones)) + "\n")
    if cmd == "boardsize":
        size = int(rest[0])
        answer()
    elif cmd == "clear_board":
        stones.clear()
        to_move = "b"
        answer()
    elif cmd == "play":
        colour, move = rest[0][0].lower(), rest[1]
        if colour != to_move:
            answer(f"it is {to_move}'s turn", ok=False)
            continue
        if move == "swap-pieces":  # HTP: the board stays, the players exchange colours
            if not allow_swap:
                answer("swap is not allowed", ok=False)
                continue
            if len(stones) != 1 or colour != "w":
                answer("swap-pieces only as white's first move", ok=False)
                continue
            to_move = "w"  # white (the player who moved first) moves next
            answer()
            continue
        elif move in stones:
            answer(f"{move} is occupied", ok=False)
            continue
        else:
            stones[move] = colour
        to_move = "w" if colour == "b" else "b"
        answer()
    elif cmd == "genmove":
        if rest[0][0].lower() != to_move:
            answer(f"it is {to_move}'s turn", ok=False)
            continue
        genmove()
        to_move = "w" if to_move == "b" else "b"
    elif cmd.startswith("param_") and not args.no_params:
        if cmd == "param_game" and rest[:1] == ["allow_swap"]:
            allow_swap = rest[1:] == ["1"]
        answer()
    elif cmd == "quit":
        answer()
        time.sleep(args.farewell)
        if args.log:
            with open(f"{args.log}.{os.getpid()}", "a") as f:
                f.write("saved on quit\n")
        break
    else:
        answer(f"unknown command {cmd}", ok=False)
