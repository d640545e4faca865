"""The one 7x7 white game of the sweep against pure:1000 lost after positions the checker
left unsettled at 50,000 nodes (opening [14, 43], chunk 686:784 of
`hex7-2ply-second.jsonl`): its first two positions of white's judged again by DFPN with
H-search at 1,000,000 nodes, to say whether a win was dropped there.

    python reports/hex-perfect-play/hex7_white_unsettled.py
"""

import json
import time
from pathlib import Path

import numpy as np

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.solve import new_dfpn_table

NAMES = {1: "win", -1: "loss", 0: "unsettled"}
spec = GameSpec.parse("hex:7")
progress = Path(__file__).with_name("hex7-2ply-second.jsonl")
games = [g for line in progress.read_text().splitlines() for g in json.loads(line)["games"]]
game = next(g for g in games if g["moves"][:2] == [14, 43] and not g["first"])
table = new_dfpn_table(22)
for ply in (5, 3):  # the later one first: its proof is in the table when the earlier one is solved
    state = spec.new_game()
    for a in game["moves"][:ply]:
        state = state.apply(a)
    start = time.perf_counter()
    value, _, _ = hd.dfpn(
        state.array, np.int64(1_000_000), np.int64(hd.DFPN_ALL), hd.default_limits(), hd.centre_order(7), table
    )
    print(
        f"ply {ply}, after {game['moves'][:ply]}, white to move: {NAMES[int(value)]} for white"
        f" ({time.perf_counter() - start:.1f} s); the sweep's move {game['moves'][ply]}"
    )
