"""What the DFPN evaluation cache saves in an 8x8 sweep (RESULTS.md, thirty-first session):
the solves a sweep's worker makes of a game's positions, the player's root solver (its own
table) and then the checker (another table), each at 50,000 nodes, once with a one-entry
cache (every probe a miss: the baseline) and once with the shipped 2**20 entries; CPU
seconds and nodes of each part. The positions are the champion's own in the first two games
as white of `hex8-sample-today.jsonl`.

    python reports/hex-perfect-play/hex8_eval_cache.py [--budget 50000] [--games 2]
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.tactics.hex import dfpn as hd

parser = argparse.ArgumentParser()
parser.add_argument("--budget", type=int, default=50_000)
parser.add_argument("--games", type=int, default=2)
args = parser.parse_args()

spec = GameSpec.parse("hex:8")
games = [
    game
    for line in Path("reports/hex-perfect-play/hex8-sample-today.jsonl").read_text().splitlines()
    for game in json.loads(line)["games"]
    if not game["first"]
][: args.games]
positions = [spec.replay(g["moves"][: int(ply)]).array.copy() for g in games for ply in sorted(g["values"], key=int)]
limits, order, flags = hd.default_limits(), hd.centre_order(8), np.int64(hd.DFPN_ALL)
hd.dfpn(positions[0], np.int64(10), flags, limits, order, hd.new_tt(4, hd.new_evaluations(0)))  # compiled or loaded
print(f"{len(positions)} positions of {len(games)} games, {args.budget} nodes a solve")
verdicts = {}
for name, log2 in (("one entry (baseline)", 0), (f"2**{hd.EVAL_LOG2} entries", hd.EVAL_LOG2)):
    evaluations = hd.new_evaluations(log2)
    tables = {"player": hd.new_tt(18, evaluations), "checker": hd.new_tt(20, evaluations)}
    seconds = dict.fromkeys(tables, 0.0)
    out = []
    for s in positions:
        for who, tt in tables.items():
            start = time.process_time()
            out.append(tuple(int(x) for x in hd.dfpn(s, np.int64(args.budget), flags, limits, order, tt)))
            seconds[who] += time.process_time() - start
    verdicts[name] = out
    parts = ", ".join(f"{who} {t:.1f} CPU s" for who, t in seconds.items())
    print(f"{name:24s} {parts}, all {sum(seconds.values()):.1f} s")
same = len({tuple(v) for v in verdicts.values()}) == 1
print(f"values, moves and node counts of every solve the same both ways: {same}")
