"""The tree's tactical verdict over recorded search leaves (`scripts.tactics_replay
collect`), calls/s, for code with the scratch (`tactical_verdict_into`) and for the
reference code before it (`tactical_verdict`, allocating: copy this file into a checkout
of it) alike: one pair of tables kept across calls, as BatchedMCTS does. Prints a digest
of the verdicts and moves, so that two checkouts can be seen to agree.

    python -m scripts.verdict_rate .tmp/leaves-15.npz [--limit 25000] [--repeats 1]"""

# ruff: noqa: I001 (pipeline first: it points numba's cache at a directory keyed on the
# solvers' source before numba is imported)

import argparse
import hashlib
import time

import pipeline  # noqa: F401
import numpy as np
from numba import njit

from pipeline.games.kernels import legal_mask
from pipeline.games.layout import HEIGHT, WIDTH
from pipeline.search.forced import TACTICS_MODES
from pipeline.tactics.lines.table import new_table

try:
    from pipeline.search.forced import tactical_verdict_into
    from pipeline.tactics.lines.scratch import scratch_for

    NEW = True
except ImportError:
    from pipeline.search.forced import tactical_verdict

    NEW = False

if NEW:

    @njit(nogil=True)
    def run(states, mode, budget, depth, table, null_table, pv, verdicts, actions):
        mask = np.zeros(states[0, HEIGHT] * states[0, WIDTH], dtype=np.bool_)
        sc = scratch_for(states[0], depth)
        for i in range(states.shape[0]):
            legal_mask(states[i], mask)
            verdicts[i], actions[i] = tactical_verdict_into(
                states[i], mask, mode, budget, depth, table, null_table, pv, sc
            )
else:

    @njit(nogil=True)
    def run(states, mode, budget, depth, table, null_table, pv, verdicts, actions):
        mask = np.zeros(states[0, HEIGHT] * states[0, WIDTH], dtype=np.bool_)
        for i in range(states.shape[0]):
            legal_mask(states[i], mask)
            verdicts[i], actions[i] = tactical_verdict(states[i], mask, mode, budget, depth, table, null_table, pv)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--mode", default="vcf")
    a = p.parse_args()
    states = np.ascontiguousarray(np.load(a.path)["states"])
    if a.limit:
        states = states[: a.limit]
    n = len(states)
    m = TACTICS_MODES[a.mode]
    pv = np.zeros(512, dtype=np.int64)
    v = np.zeros(n, dtype=np.int64)
    act = np.zeros(n, dtype=np.int64)
    run(states[:2], m, 200, 12, new_table(16), new_table(16), pv, v[:2], act[:2])  # compile
    best = float("inf")
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        run(states, m, 200, 12, new_table(16), new_table(16), pv, v, act)
        best = min(best, time.perf_counter() - t0)
    digest = hashlib.sha256(v.tobytes() + act.tobytes()).hexdigest()[:12]
    side = "new" if NEW else "old"
    print(
        f"{side} {a.path} {n} leaves {a.mode}: best of {a.repeats} {best:.2f} s, "
        f"{n / best:,.0f} calls/s; verdicts {digest}"
    )


if __name__ == "__main__":
    main()
