"""Time the DFPN Hex solver on middle-game positions: random legal play (seeded) for a
number of stones, no one connected yet, then a solve with a node budget (RESULTS.md, "Hex
H-search and a DFPN solver": the middle games).

    python -m pipeline.tools.hex_middle_game --size 8 --stones 10 --positions 10 --budget 50000

Printed: one line per position (the side to move, wins/loses/unknown, nodes, seconds),
then the share solved within the budget and the seconds per solved position.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.tactics.hex import dfpn as hd


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--stones", type=int, default=20)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--budget", type=int, default=200_000, help="node budget per position")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not 0 <= args.stones < args.size * args.size or args.positions < 1:
        parser.error("--stones takes 0 to cells - 1, --positions at least 1")
    spec = GameSpec.parse(f"hex:{args.size}")
    rng = np.random.default_rng(args.seed)
    limits, order = hd.default_limits(), hd.centre_order(args.size)
    hd.dfpn(spec.new_game().apply(0).array, np.int64(1), np.int64(hd.DFPN_ALL), limits, order, hd.new_tt(4))
    rows = []
    while len(rows) < args.positions:
        state = spec.new_game()
        for cell in rng.permutation(spec.cells)[: args.stones]:
            state.apply(int(cell))
            if state.is_terminal:
                break
        if state.is_terminal:
            continue
        start = time.perf_counter()
        v, _, nodes = hd.dfpn(state.array, np.int64(args.budget), np.int64(hd.DFPN_ALL), limits, order, hd.new_tt(20))
        seconds = time.perf_counter() - start
        rows.append((v, nodes, seconds))
        mover = "black" if state.current_player == 0 else "white"
        result = {1: "wins", -1: "loses", 0: "unknown"}[int(v)]
        print(f"position {len(rows):>3}: {mover} to move {result:<7} {nodes:>8} nodes {seconds:7.2f}s", flush=True)
    solved = [r for r in rows if r[0] != 0]
    times = sorted(r[2] for r in solved)
    print(
        f"\n{args.size}x{args.size}, {args.stones} stones: {len(solved)}/{len(rows)} solved within {args.budget} "
        f"nodes; seconds per solved position: median {times[len(times) // 2] if times else 0:.2f}, "
        f"max {max(times, default=0):.2f}; {sum(r[1] for r in rows)} nodes in {sum(r[2] for r in rows):.1f}s"
    )


if __name__ == "__main__":
    main()
