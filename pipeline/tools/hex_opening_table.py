"""Solve every first move of Hex on an NxN board (no swap) and print the table (RESULTS.md,
"Hex connections and solver" and "Hex H-search and a DFPN solver": the opening tables).

    python -m pipeline.tools.hex_opening_table --size 7 --symmetric            # DFPN + H-search
    python -m pipeline.tools.hex_opening_table --size 5 --solver negamax --budget 2000000

Each cell shows W (the first player wins by opening there), L (loses) or ? (not settled
within the node budget), drawn as the rhombus HexGui shows (a1 top-left, letters are
columns; black joins top and bottom). Published theory: every 7x7 opening is solved,
the centre wins, and the table is symmetric under the 180-degree rotation.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pipeline.games.base import COLUMNS, GameSpec
from pipeline.runtime.pipe import run_main
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.solve import new_dfpn_table, new_table


def diagram(table: np.ndarray) -> str:
    """The table as HexGui draws the board: W, L or ? on each cell, rows shifted right."""
    n = table.shape[0]
    mark = {1: "W", -1: "L", 0: "?"}
    lines = ["   " + " ".join(COLUMNS[c] for c in range(n))]
    for r in range(n):
        lines.append(f"{r + 1:>2} " + " " * r + " ".join(mark[int(v)] for v in table[r]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> np.ndarray:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--budget", type=int, default=2_000_000, help="node budget per opening")
    parser.add_argument("--symmetric", action="store_true", help="solve half the board, mirror the rest")
    parser.add_argument("--solver", choices=["dfpn", "negamax"], default="dfpn")
    parser.add_argument("--cells", default="", help="solve only these openings (comma-separated, e.g. g7,f7)")
    parser.add_argument("--second-half", action="store_true", help="solve only the half --symmetric leaves out")
    parser.add_argument("--log2-table", type=int, default=21, help="transposition table entries (log2)")
    parser.add_argument("--max-vc", type=int, default=16, help="H-search: full connections kept per pair")
    parser.add_argument("--max-sc", type=int, default=32, help="H-search: semi-connections kept per pair")
    parser.add_argument("--max-or", type=int, default=4, help="H-search: semi-connections per OR")
    parser.add_argument("--no-empty-pairs", action="store_true", help="H-search: no derived cell-cell connections")
    args = parser.parse_args(argv)
    n = args.size
    spec = GameSpec.parse(f"hex:{n}")
    limits = hd.default_limits(args.max_vc, args.max_sc, args.max_or, not args.no_empty_pairs)
    order = hd.centre_order(n)
    table = new_table(args.log2_table) if args.solver == "negamax" else new_dfpn_table(args.log2_table)

    def solve(state_array: np.ndarray) -> tuple[int, int]:
        if args.solver == "negamax":
            v, _, used = hs.solve(state_array, np.int64(args.budget), np.int64(hs.USE_ALL), *table)
        else:
            v, _, used = hd.dfpn(state_array, np.int64(args.budget), np.int64(hd.DFPN_ALL), limits, order, table)
        return int(v), int(used)

    # Compile outside the timings, then empty the table again.
    solve(spec.new_game().apply(0).array)
    table[0][:] = 0
    only = {spec.parse_action(x) for x in args.cells.split(",") if x}
    out = np.zeros((n, n), dtype=np.int8)
    times = np.zeros((n, n))
    nodes = np.zeros((n, n), dtype=np.int64)
    start = time.perf_counter()
    for cell in range(n * n):
        r, c = divmod(cell, n)
        twin = (n - 1 - r) * n + (n - 1 - c)
        if args.symmetric and twin < cell:
            out[r, c] = out.flat[twin]
            continue
        if (only and cell not in only) or (args.second_half and twin >= cell):
            continue
        opened = spec.new_game().apply(cell)
        t0 = time.perf_counter()
        v, used = solve(opened.array)
        times[r, c] = time.perf_counter() - t0
        nodes[r, c] = used
        out[r, c] = -v  # the solver's value is the second player's
        name = spec.action_name(cell)
        print(f"{name:>4}: {'WL?'[[1, -1, 0].index(int(out[r, c]))]}  {used:>9} nodes  {times[r, c]:8.2f}s", flush=True)
    total = time.perf_counter() - start
    print()
    print(diagram(out))
    solved = int((out != 0).sum())
    print(
        f"\n{n}x{n}: {solved}/{n * n} openings solved in {total:.1f}s "
        f"({total / max(1, int((times > 0).sum())):.2f}s per solve, max {times.max():.2f}s), "
        f"{int(nodes.sum())} nodes, budget {args.budget}/opening, solver {args.solver}"
    )
    centre = [(n // 2, n // 2)] if n % 2 else [(n // 2 - 1, n // 2), (n // 2, n // 2 - 1)]
    print("centre wins:", all(out[r, c] == 1 for r, c in centre))
    symmetric = bool((out == out[::-1, ::-1]).all())
    print("symmetric under 180-degree rotation:", symmetric, "(by construction)" if args.symmetric else "")
    unknown = [spec.action_name(int(x)) for x in np.flatnonzero(out.reshape(-1) == 0)]
    if unknown:
        print("unknown:", " ".join(unknown))
    return out


if __name__ == "__main__":
    run_main(main)
