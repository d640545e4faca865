"""The games two 8x8 sample runs have in common (same chunk side and opening): how many are
the same move for move, and for the others the ply where they part and both results.

    python reports/hex-perfect-play/hex8_compare_runs.py [OLD.jsonl NEW.jsonl]
"""

import json
import sys
from pathlib import Path

here = Path(__file__).parent


def load(path: Path) -> dict[tuple[str, tuple[int, ...]], dict]:
    games = {}
    with path.open() as lines:
        for line in lines:
            chunk = json.loads(line)
            side = chunk["chunk"].split()[1]  # "first" or "second"
            for game in chunk["games"]:
                games[(side, tuple(game["moves"][:2]))] = game
    return games


def parting_ply(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


old_name, new_name = (
    sys.argv[1:3] if len(sys.argv) > 2 else ("hex8-sample-mended-hex11.jsonl", "hex8-sample-refute-hex11.jsonl")
)
old, new = load(here / old_name), load(here / new_name)
same = 0
common = [key for key in new if key in old]
for key in common:
    before, now = old[key]["moves"], new[key]["moves"]
    if before == now:
        same += 1
        continue
    ply = parting_ply(before, now)
    print(
        f"{key}: parts at ply {ply} ({before[ply : ply + 3]} then {now[ply : ply + 3]});"
        f" won {old[key]['won']}, now {new[key]['won']}"
    )
print(f"{same} of {len(common)} common games the same move for move, {len(common) - same} differ")
