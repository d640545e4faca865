"""The four 8x8 games of the 200-opening sample (both colours, against pure:1000) where the
champion gave a proven win back: the position before each drop solved by DFPN with H-search
from a fresh table at several budgets, to size a root solver that runs from the first move.

    python reports/hex-perfect-play/hex8_drops.py
"""

import json
import time
from pathlib import Path

import numpy as np

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table, winning_move

NAMES = {1: "win", -1: "loss", 0: "unsettled"}
spec = GameSpec.parse("hex:8")
here = Path(__file__).parent
for name in ("hex8-sample.jsonl", "hex8-sample-second.jsonl"):
    games = [g for line in (here / name).read_text().splitlines() for g in json.loads(line)["games"]]
    for game in games:
        plies = sorted(int(p) for p in game["values"])
        drops = [p for p, q in zip(plies, plies[1:]) if game["values"][str(p)] == 1 and game["values"][str(q)] != 1]
        if not drops:
            continue
        ply = drops[0]
        state = spec.new_game()
        for a in game["moves"][:ply]:
            state = state.apply(a)
        played = game["moves"][ply]
        print(f"{name} opening {game['moves'][:2]}: won at ply {ply} ({spec.cells - ply} empty), played {played}")
        for budget in (5_000, 20_000, 50_000):
            table = new_dfpn_table(20)
            start = time.perf_counter()
            value, move, nodes = hd.dfpn(
                state.array, np.int64(budget), np.int64(hd.DFPN_ALL), hd.default_limits(), hd.centre_order(8), table
            )
            seconds = time.perf_counter() - start
            found = winning_move(state, budget, tt=table, preferred=played) if value == 1 else None
            print(
                f"  budget {budget:>6}: {NAMES[int(value)]} in {int(nodes)} nodes, {seconds:.1f} s;"
                f" winning move {found} ({time.perf_counter() - start:.1f} s in all)"
            )

# Two of the drops are drops only as far as the checker saw: the position after the champion's
# reply (the next of its own) was not settled at 50,000 nodes. Does the move played keep the
# win when the position after it is solved at a larger budget?
for name, opening in (("hex8-sample.jsonl", [9, 59]), ("hex8-sample.jsonl", [10, 14])):
    games = [g for line in (here / name).read_text().splitlines() for g in json.loads(line)["games"]]
    game = next(g for g in games if g["moves"][:2] == opening)
    plies = sorted(int(p) for p in game["values"])
    ply = next(p for p, q in zip(plies, plies[1:]) if game["values"][str(p)] == 1 and game["values"][str(q)] != 1)
    state = spec.new_game()
    for a in game["moves"][:ply]:
        state = state.apply(a)
    start = time.perf_counter()
    kept = keeps_win(state, game["moves"][ply], 500_000, new_dfpn_table(22))
    print(
        f"opening {opening}, ply {ply}: the move played, {game['moves'][ply]}, keeps the win within 500,000"
        f" nodes: {kept} ({time.perf_counter() - start:.1f} s)"
    )
