"""H-search: Anshelevich's virtual-connection calculus for Hex, compiled, on bitsets.

For one player P the *points* are P's stone groups, P's two edges (an edge and the stones
touching it are one group, as in the union-find forest of the state) and the empty cells.
A full connection (VC) between points x and y with carrier C (empty cells, x and y not in
C) means: with x and y P's, P joins them against any defence, moving second. A semi-
connection (SC) with key k (k in C) means P joins them by playing k first.

* Base: adjacent points are VC-connected with the empty carrier.
* AND: VC(x, m) with carrier A and VC(m, y) with carrier B, A and B disjoint, x not in B,
  y not in A: through a group m, VC(x, y) with A | B; through an empty cell m, SC(x, y)
  with key m and carrier A | B | {m}.
* OR: SCs between x and y whose carriers have an empty intersection: VC(x, y) with the
  union of the carriers (an intrusion misses one of them; P plays its key).

Every rule is sound, so each claim is a real connection; H-search is incomplete (the 4th
row edge template is beyond it). To keep it cheap, as in benzene: at most `max_vc` VCs and
`max_sc` SCs are kept per pair (smallest first come first: the work queue starts from the
base connections), OR combines at most `max_or` SCs, connections derived between two empty
cells are dropped unless `empty_pairs` (only the base adjacency joins two empty cells),
and edges are never midpoints (joining two points through an edge is no progress).
Bridges and ziggurats (pipeline.tactics.hex.connect) come out of the rules on their own
(tests), so nothing is seeded.

Bitsets are two uint64 words (cells 0-63, 64-127): boards up to 11x11.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import edges_of, find
from pipeline.games.layout import BOARD, WIDTH

MAX_SIDE = 11
Z = np.uint64(0)
BIT_LO = np.zeros(128, dtype=np.uint64)
BIT_HI = np.zeros(128, dtype=np.uint64)
for _i in range(128):
    if _i < 64:
        BIT_LO[_i] = np.uint64(1) << np.uint64(_i)
    else:
        BIT_HI[_i] = np.uint64(1) << np.uint64(_i - 64)

NB_R = np.array([-1, -1, 0, 0, 1, 1], dtype=np.int64)
NB_C = np.array([0, 1, -1, 1, -1, 0], dtype=np.int64)

EMPTY_PT = 0
GROUP_PT = 1
EDGE_PT = 2

# Status of a search: the edges joined by a VC, by an SC only, or neither.
NONE = 0
SEMI = 1
FULL = 2

DEFAULT_MAX_VC = 8
DEFAULT_MAX_SC = 16
DEFAULT_MAX_OR = 4


@njit(cache=True, nogil=True)
def popcount(lo, hi):
    k = 0
    x = lo
    while x != Z:
        x &= x - np.uint64(1)
        k += 1
    x = hi
    while x != Z:
        x &= x - np.uint64(1)
        k += 1
    return k


@njit(cache=True, nogil=True)
def _add_vc(p, lo, hi, vlo, vhi, vn, max_vc):
    """Keep VC (lo, hi) of pair p unless an old one's carrier is a subset; drop the old
    supersets. Return True when it was kept."""
    k = vn[p]
    for j in range(k):
        if (vlo[p, j] & ~lo) == Z and (vhi[p, j] & ~hi) == Z:
            return False
    w = 0
    for j in range(k):
        if (lo & ~vlo[p, j]) == Z and (hi & ~vhi[p, j]) == Z:
            continue  # the new carrier is inside this one: the old is redundant
        vlo[p, w] = vlo[p, j]
        vhi[p, w] = vhi[p, j]
        w += 1
    if w >= max_vc:
        vn[p] = w
        return False
    vlo[p, w] = lo
    vhi[p, w] = hi
    vn[p] = w + 1
    return True


@njit(cache=True, nogil=True)
def _or_search(p, lo, hi, slo, shi, sn, max_or, out):
    """The OR rule for a new SC (lo, hi) of pair p: depth-first over subsets of p's SCs in
    index order, each SC taken strictly shrinking the running intersection; when it is
    empty, the union is a VC, written to a row of out ([k, 2]; return how many). At most
    max_or SCs, the new one included. Iterative (numba's cache mishandles recursion)."""
    depth_max = max_or - 1
    found = 0
    if depth_max <= 0:
        return found
    idx = np.empty(depth_max + 1, dtype=np.int64)
    ilo = np.empty(depth_max + 1, dtype=np.uint64)
    ihi = np.empty(depth_max + 1, dtype=np.uint64)
    ulo = np.empty(depth_max + 1, dtype=np.uint64)
    uhi = np.empty(depth_max + 1, dtype=np.uint64)
    ilo[0] = lo
    ihi[0] = hi
    ulo[0] = lo
    uhi[0] = hi
    idx[0] = 0  # next SC index to try at depth d (the state at depth d is [d])
    d = 0
    k = sn[p]
    while d >= 0:
        j = idx[d]
        if j >= k:
            d -= 1
            continue
        idx[d] = j + 1
        nlo = ilo[d] & slo[p, j]
        nhi = ihi[d] & shi[p, j]
        if nlo == ilo[d] and nhi == ihi[d]:
            continue
        if nlo == Z and nhi == Z:
            out[found, 0] = ulo[d] | slo[p, j]
            out[found, 1] = uhi[d] | shi[p, j]
            found += 1
            if found == out.shape[0]:
                return found
            continue
        if d + 1 < depth_max:
            ilo[d + 1] = nlo
            ihi[d + 1] = nhi
            ulo[d + 1] = ulo[d] | slo[p, j]
            uhi[d + 1] = uhi[d] | shi[p, j]
            idx[d + 1] = j + 1
            d += 1
    return found


@njit(cache=True, nogil=True)
def hsearch(s, player, max_vc, max_sc, max_or, empty_pairs, stop_at_semi, sc_lo, sc_hi, sc_key):
    """Run H-search for `player` on state `s`. Return (status, count, lo, hi):

    * FULL: the edges are joined by a VC with carrier (lo, hi) (empty when they are
      already joined by stones), so `player` wins even moving second;
    * otherwise the edges' SCs (at most len(sc_key)) are written to sc_lo/sc_hi (carriers,
      keys included) and sc_key, `count` of them; status SEMI when there is one (then
      `player` wins by moving first, at key sc_key[0]), NONE when there is none.

    With `stop_at_semi` the search ends at the first SC between the edges (enough to know
    the player to move wins)."""
    n = s[WIDTH]
    cells = n * n
    first, second = edges_of(s, player)
    e1 = find(s, first)
    e2 = find(s, second)
    if e1 == e2:
        return FULL, 0, Z, Z
    value = player + 1
    # Points: empty cells and groups (by root; edges are roots of their groups).
    pid = np.full(cells + 4, -1, dtype=np.int64)
    kind = np.empty(cells + 2, dtype=np.int64)
    pcell = np.empty(cells + 2, dtype=np.int64)  # the cell of an empty point, else -1
    npt = 0
    for root in (e1, e2):
        pid[root] = npt
        kind[npt] = EDGE_PT
        pcell[npt] = -1
        npt += 1
    cell_pt = np.full(cells, -1, dtype=np.int64)
    for cell in range(cells):
        v = s[BOARD + cell]
        if v == 0:
            cell_pt[cell] = npt
            kind[npt] = EMPTY_PT
            pcell[npt] = cell
            npt += 1
        elif v == value:
            root = find(s, cell)
            if pid[root] < 0:
                pid[root] = npt
                kind[npt] = GROUP_PT
                pcell[npt] = -1
                npt += 1
            cell_pt[cell] = pid[root]
    a_e1 = 0
    a_e2 = 1
    pairs = npt * npt
    vlo = np.empty((pairs, max_vc), dtype=np.uint64)
    vhi = np.empty((pairs, max_vc), dtype=np.uint64)
    vn = np.zeros(pairs, dtype=np.int64)
    slo = np.empty((pairs, max_sc), dtype=np.uint64)
    shi = np.empty((pairs, max_sc), dtype=np.uint64)
    skey = np.empty((pairs, max_sc), dtype=np.int64)
    sn = np.zeros(pairs, dtype=np.int64)
    cap = pairs * max_vc // 2 + 4 * cells + 16
    qa = np.empty(cap, dtype=np.int64)
    qb = np.empty(cap, dtype=np.int64)
    qlo = np.empty(cap, dtype=np.uint64)
    qhi = np.empty(cap, dtype=np.uint64)
    tail = 0
    # Base: every empty cell with its neighbouring points (cells, groups, own edges).
    for cell in range(cells):
        if s[BOARD + cell] != 0:
            continue
        a = cell_pt[cell]
        r = cell // n
        c = cell % n
        for d in range(6):
            rr = r + NB_R[d]
            cc = c + NB_C[d]
            b = -1
            if 0 <= rr < n and 0 <= cc < n:
                b = cell_pt[rr * n + cc]  # -1 for an opponent stone
            elif player == 0 and 0 <= cc < n:
                b = pid[e1] if rr < 0 else pid[e2]
            elif player == 1 and 0 <= rr < n:
                b = pid[e1] if cc < 0 else pid[e2]
            if b < 0 or (kind[b] == EMPTY_PT and b < a):
                continue  # each empty-empty adjacency once
            x = min(a, b)
            y = max(a, b)
            if _add_vc(x * npt + y, Z, Z, vlo, vhi, vn, max_vc):
                qa[tail] = x
                qb[tail] = y
                qlo[tail] = Z
                qhi[tail] = Z
                tail += 1
    target = a_e1 * npt + a_e2
    or_out = np.empty((8, 2), dtype=np.uint64)
    head = 0
    while head < tail:
        x0 = qa[head]
        y0 = qb[head]
        clo = qlo[head]
        chi = qhi[head]
        head += 1
        for side in range(2):
            m = y0 if side == 0 else x0
            e = x0 if side == 0 else y0
            if kind[m] == EDGE_PT:
                continue
            e_cell = pcell[e]
            for z in range(npt):
                if z in (e, m):
                    continue
                if kind[e] == EMPTY_PT and kind[z] == EMPTY_PT and not empty_pairs:
                    continue
                pm = min(m, z) * npt + max(m, z)
                k = vn[pm]
                if k == 0:
                    continue
                z_cell = pcell[z]
                # z must not be in this VC's carrier (e is not: it is an endpoint of it).
                if z_cell >= 0 and ((clo & BIT_LO[z_cell]) != Z or (chi & BIT_HI[z_cell]) != Z):
                    continue
                x = min(e, z)
                y = max(e, z)
                p = x * npt + y
                for j in range(k):
                    dlo = vlo[pm, j]
                    dhi = vhi[pm, j]
                    if (dlo & clo) != Z or (dhi & chi) != Z:
                        continue
                    if e_cell >= 0 and ((dlo & BIT_LO[e_cell]) != Z or (dhi & BIT_HI[e_cell]) != Z):
                        continue
                    ulo = clo | dlo
                    uhi = chi | dhi
                    if kind[m] == GROUP_PT:
                        if _add_vc(p, ulo, uhi, vlo, vhi, vn, max_vc):
                            if p == target:
                                return FULL, 0, ulo, uhi
                            if tail < cap:
                                qa[tail] = x
                                qb[tail] = y
                                qlo[tail] = ulo
                                qhi[tail] = uhi
                                tail += 1
                        continue
                    # Through an empty cell: a semi-connection keyed at m.
                    mc = pcell[m]
                    ulo |= BIT_LO[mc]
                    uhi |= BIT_HI[mc]
                    useless = False
                    for i in range(vn[p]):
                        if (vlo[p, i] & ~ulo) == Z and (vhi[p, i] & ~uhi) == Z:
                            useless = True
                            break
                    if not useless:
                        for i in range(sn[p]):
                            if (slo[p, i] & ~ulo) == Z and (shi[p, i] & ~uhi) == Z:
                                useless = True
                                break
                    if useless:
                        continue
                    # OR: the new SC with earlier ones, intersections shrinking to empty.
                    for i in range(_or_search(p, ulo, uhi, slo, shi, sn, max_or, or_out)):
                        if _add_vc(p, or_out[i, 0], or_out[i, 1], vlo, vhi, vn, max_vc):
                            if p == target:
                                return FULL, 0, or_out[i, 0], or_out[i, 1]
                            if tail < cap:
                                qa[tail] = x
                                qb[tail] = y
                                qlo[tail] = or_out[i, 0]
                                qhi[tail] = or_out[i, 1]
                                tail += 1
                    # Keep the new SC; older ones containing it are redundant.
                    w = 0
                    for i in range(sn[p]):
                        if (ulo & ~slo[p, i]) == Z and (uhi & ~shi[p, i]) == Z:
                            continue
                        slo[p, w] = slo[p, i]
                        shi[p, w] = shi[p, i]
                        skey[p, w] = skey[p, i]
                        w += 1
                    sn[p] = w
                    if sn[p] < max_sc:
                        slo[p, sn[p]] = ulo
                        shi[p, sn[p]] = uhi
                        skey[p, sn[p]] = mc
                        sn[p] += 1
                        if p == target and stop_at_semi:
                            sc_lo[0] = ulo
                            sc_hi[0] = uhi
                            sc_key[0] = mc
                            return SEMI, 1, Z, Z
    count = min(sn[target], sc_key.shape[0])
    for i in range(count):
        sc_lo[i] = slo[target, i]
        sc_hi[i] = shi[target, i]
        sc_key[i] = skey[target, i]
    return (SEMI if count > 0 else NONE), count, Z, Z


@njit(cache=True, nogil=True)
def empty_bits(s):
    """The empty cells of board `s` as a two-word bitset (lo, hi)."""
    lo = Z
    hi = Z
    for cell in range(s[WIDTH] * s[WIDTH]):
        if s[BOARD + cell] == 0:
            lo |= BIT_LO[cell]
            hi |= BIT_HI[cell]
    return lo, hi


@njit(cache=True, nogil=True)
def must_play(s, player, max_vc, max_sc, max_or, empty_pairs):
    """The opponent of `player` is to move. Return (status, lo, hi): FULL when `player`
    has a VC between its edges (the mover loses); else the must-play region, the
    intersection of the carriers of `player`'s SCs between its edges (all empty cells
    when it has none: status NONE). An empty region with status SEMI is a loss too (the
    OR rule over those SCs), which H-search's limits may not have combined."""
    sc_lo = np.empty(max_sc, dtype=np.uint64)
    sc_hi = np.empty(max_sc, dtype=np.uint64)
    sc_key = np.empty(max_sc, dtype=np.int64)
    status, count, lo, hi = hsearch(s, player, max_vc, max_sc, max_or, empty_pairs, False, sc_lo, sc_hi, sc_key)
    if status == FULL:
        return FULL, lo, hi
    rlo, rhi = empty_bits(s)
    for i in range(count):
        rlo &= sc_lo[i]
        rhi &= sc_hi[i]
    return status, rlo, rhi
