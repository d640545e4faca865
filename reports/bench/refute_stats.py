"""What the refutation of the opponent's VCF costs in the tree's verdict (RESULTS.md, sixteenth
session): over leaves collected by `python -m pipeline.tools.tactics_replay collect --fresh
--simulations 32 --games 50 --out .tmp/leaves-fresh.npz`, for each leaf where the verdict
reaches the refutation, how many candidates (the mover's fours, the proof's cells) are solved
again, how many of those re-solves find the opponent's win and their nodes.

    python reports/bench/refute_stats.py .tmp/leaves-fresh.npz
"""
import pipeline  # noqa numba cache
import time, sys
import numpy as np
from numba import njit
from pipeline.games.layout import HEIGHT, WIDTH, TO_MOVE, WINNER
from pipeline.games.kernels import apply_unchecked
from pipeline.search import forced as F
from pipeline.tactics.lines.scratch import CANDIDATE, MARKS, PROBE, PROBE_LINE, PROOF, SURVIVE, WIN_DIRS, HOT, PASSED, scratch_for
from pipeline.tactics.lines.threats import four_moves_into, null_move, threat_defences
from pipeline.tactics.lines.vcf import vcf_into, gomoku_solve_scanned
from pipeline.tactics.lines.table import new_table
from pipeline.games.kernels import legal_mask

@njit
def refute_stats(s, mask, budget, max_depth, table, pv, pv_len, sc, st):
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    candidate = sc.flags[CANDIDATE]
    work = sc.states[PROBE]
    four_moves_into(s, me, candidate, work, sc.flags[MARKS], sc.ints[PROBE_LINE])
    nfour = 0
    for a in range(cells):
        if candidate[a] and mask[a]:
            nfour += 1
    onpv = 0
    for i in range(pv_len):
        if not candidate[pv[i]]:
            onpv += 1
        candidate[pv[i]] = True
    st[0] += nfour
    st[1] += onpv
    for a in range(cells):
        if not mask[a] or not candidate[a]:
            continue
        work[:] = s
        apply_unchecked(work, a)
        if work[WINNER] >= 0:
            continue
        r, l, n = vcf_into(work, budget, max_depth, table, sc.ints[PROOF], sc)
        if r == 1:
            st[2] += 1; st[3] += n
        else:
            st[4] += 1; st[5] += n
            if n >= budget: st[6] += 1

data = np.load(sys.argv[1]); states = np.ascontiguousarray(data["states"])
from pipeline.search.forced import tactical_verdict_into, TACTICS_VCF, LOSS, WIN
cells = states[0, HEIGHT] * states[0, WIDTH]
mask = np.zeros(cells, np.bool_); pv = np.zeros(512, np.int64)
sc = scratch_for(states[0], 12); sc2 = scratch_for(states[0], 12)
table = new_table(16); null_table = new_table(16); t2 = new_table(16)
st = np.zeros(8, np.int64); calls = 0; passed = states[0].copy()
for i in range(len(states)):
    s = states[i]
    legal_mask(s, mask)
    v, a = tactical_verdict_into(s, mask, TACTICS_VCF, 200, 12, table, null_table, pv, sc)
    if v == WIN: continue
    # was the refute reached? redo the null search on a separate table
    if threat_defences(s, np.zeros(cells, np.bool_)) != 0: continue
    null_move(s, passed)
    r, l, n = vcf_into(passed, 200, 12, t2, pv, sc2)
    if r != 1: continue
    calls += 1
    m2 = np.zeros(cells, np.bool_); legal_mask(s, m2)
    refute_stats(s, m2, 200, 12, t2, pv, l, sc2, st)
print("refute calls", calls, "fours/call %.2f" % (st[0]/calls), "pv-only cands/call %.2f" % (st[1]/calls))
print("re-solves refuted", st[2], "nodes mean %.1f" % (st[3]/max(st[2],1)), "kept", st[4], "nodes mean %.1f" % (st[5]/max(st[4],1)), "at budget", st[6])
