"""The threat solvers on the test suite's positions (tests/tactics/positions.txt) and on
random middle games: solve rates, per-position time (warm JIT, one core) and nodes per
second (RESULTS.md, "tactics for the k-in-a-row games": the threat solvers' table).

    python -m pipeline.tools.bench_tactics [--repeats 20] [--random 200] [--budget 20000]

Printed: the suite's VCF positions solved within 20 ms with per-call times, the suite's
VCT positions solved, the no-VCF positions wrongly claimed (always 0), then one line per
random set (Gomoku 15x15 freestyle and exact five, VCF and VCT; Connect6 19x19, double
threats): wins found, nodes/s and per-call times.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pipeline.bench.search import centre_weighted
from pipeline.games.base import GameSpec, GameState
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.vcf import vcf
from pipeline.tactics.lines.vct import vct

SUITE = Path(__file__).resolve().parents[2] / "tests" / "tactics" / "positions.txt"
RANDOM_SETS = (("gomoku:15", 30), ("gomoku:15x15:k5:exact", 30), ("connect6:19", 31))  # spec, stones
LIMIT_MS = 20.0


def build(spec: GameSpec, black: list[str], white: list[str]) -> GameState:
    state = spec.new_game()
    stones = {0: list(black), 1: list(white)}
    while stones[0] or stones[1]:
        state.apply(stones[state.current_player].pop(0))
    return state


def load_suite(path: Path = SUITE) -> list[tuple[GameState, str]]:
    """(position, expected) for each line of the suite: vcf, vct, novcf or none."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            spec, black, white, expected, _ = (x.strip() for x in line.split("|"))
            out.append((build(GameSpec.parse(spec), black.split(), white.split()), expected))
    return out


def timed(solver: Callable, state: GameState, budget: int, depth: int, table: np.ndarray) -> tuple[int, int, float]:
    """(result, nodes, milliseconds) of one solver call from an empty table."""
    table[:] = 0
    pv = np.zeros(512, dtype=np.int64)
    t0 = time.perf_counter()
    result, _, nodes = solver(state.array, np.int64(budget), np.int64(depth), table, pv)
    return int(result), int(nodes), (time.perf_counter() - t0) * 1e3


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20, help="timed calls per suite VCF position (best kept)")
    parser.add_argument("--random", type=int, default=200, help="random middle games per set")
    parser.add_argument("--budget", type=int, default=20000, help="solver nodes a call")
    parser.add_argument("--suite", type=Path, default=SUITE, help="the position suite")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.random < 1:
        parser.error("--repeats and --random take at least 1")
    suite = load_suite(args.suite)
    table = new_table(14)
    t0 = time.perf_counter()
    for state, _ in suite[:2] + suite[-6:-5]:  # compile or load every kernel from the cache
        timed(vcf, state, 100, 4, table)
        timed(vct, state, 100, 4, table)
    print(f"warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")

    wins = [(s, e) for s, e in suite if e == "vcf"]
    times, solved = [], 0
    for state, _ in wins:
        best = []
        for _ in range(args.repeats):
            result, _, ms = timed(vcf, state, args.budget, 40, table)
            best.append(ms)
        solved += result == 1 and min(best) <= LIMIT_MS
        times.extend(best)
    t = np.array(times)
    print(
        f"VCF suite: {solved}/{len(wins)} solved within {LIMIT_MS:.0f} ms; per call "
        f"median {np.median(t):.3f} ms, p99 {np.percentile(t, 99):.3f} ms, max {t.max():.3f} ms"
    )
    for label, cases in (("VCT", [(s, e) for s, e in suite if e in ("vcf", "vct")]),):
        ok, t_all = 0, []
        for state, _ in cases:
            result, _, ms = timed(vct, state, args.budget, 8, table)
            ok += result == 1
            t_all.append(ms)
        t = np.array(t_all)
        print(
            f"{label} suite: {ok}/{len(cases)} solved; median {np.median(t):.3f} ms, "
            f"p99 {np.percentile(t, 99):.3f} ms, max {t.max():.3f} ms"
        )
    false_alarms = sum(timed(vcf, s, args.budget, 40, table)[0] for s, e in suite if e in ("none", "novcf"))
    print(f"no-VCF positions claimed as VCF: {false_alarms}")

    rng = np.random.default_rng(0)
    for spec_text, stones in RANDOM_SETS:
        spec = GameSpec.parse(spec_text)
        states = [s for s in (centre_weighted(spec, rng, stones) for _ in range(args.random)) if s is not None]
        for name, solver, depth in (("VCF", vcf, 40), ("VCT", vct, 8)):
            if spec.game == "connect6" and name == "VCT":
                continue
            nodes, ms_all, found = 0, [], 0
            for state in states:
                result, n, ms = timed(solver, state, args.budget, depth, table)
                nodes += n
                ms_all.append(ms)
                found += result
            t = np.array(ms_all)
            print(
                f"{spec_text} random {stones}-stone positions ({len(states)}), {name} budget {args.budget}: "
                f"{found} wins, {nodes / max(t.sum(), 1e-9) * 1e3:,.0f} nodes/s, median {np.median(t):.2f} ms, "
                f"p99 {np.percentile(t, 99):.2f} ms, max {t.max():.2f} ms"
            )


if __name__ == "__main__":
    main()
