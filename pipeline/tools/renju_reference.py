"""The compiled renju rules against the reference written from the definitions
(`pipeline.games.renju_reference`), over random games (RESULTS.md, "renju rules against the
reference from the definitions"):

    python -m pipeline.tools.renju_reference --games 2000 --seed 0

At every ply of every game both sides are asked the legal moves and (on black's turns)
black's forbidden cells with their reasons, and after every move the result. Printed: games,
plies, disagreements (with the first few), black's forbidden cells met by reason, results."""

from __future__ import annotations

import argparse
import time

from pipeline.games.renju_reference import Comparison, compare
from pipeline.runtime.pipe import run_main


def main(argv: list[str] | None = None) -> Comparison:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--near", type=float, default=0.85, help="share of moves played next to a stone")
    args = parser.parse_args(argv)
    if args.games < 1 or not 0 <= args.near <= 1:
        parser.error("--games takes at least 1, --near a share from 0 to 1")
    began = time.perf_counter()

    def progress(so_far: Comparison) -> None:
        if so_far.games % 100 == 0:
            print(
                f"  {so_far.games} games, {so_far.plies} plies, {so_far.disagreements} disagreements,"
                f" {time.perf_counter() - began:.0f} s",
                flush=True,
            )

    result = compare(args.games, args.seed, args.size, args.near, progress)
    print(f"games {result.games}  plies {result.plies}  disagreements {result.disagreements}")
    for line in result.examples:
        print("  " + line)
    seen = ", ".join(f"{why} {n}" for why, n in sorted(result.forbidden_seen.items()))
    print(f"black's forbidden cells met (cell x position): {seen or 'none'}")
    print(f"threes refused because their straight four needs a forbidden move: {result.refused_threes}")
    print("results: " + ", ".join(f"{k} {v}" for k, v in sorted(result.results.items())))
    print(f"{time.perf_counter() - began:.0f} s")
    return result


if __name__ == "__main__":
    run_main(main)
