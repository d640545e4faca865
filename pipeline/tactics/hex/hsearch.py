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

Bitsets are three uint64 words (cells 0-63, 64-127, 128-191), handled as three scalars
(w0, w1, w2) and stored as rows of WORDS: boards up to 13x13 (169 cells; the edges are
points but never in a carrier). On 11x11 and smaller the third word stays empty; carrying
it cost about 10% there, which the OR rule's pruning (`_or_search`) and one table block
per call more than win back: the same connections as the two-word version, found 2.5 to 3
times faster with benzene-like limits (16 VCs, 32 SCs a pair) on 9x9 and 11x11.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import edges_of, find
from pipeline.games.layout import BOARD, WIDTH

WORDS = 3
MAX_SIDE = 13
assert MAX_SIDE * MAX_SIDE <= 64 * WORDS
Z = np.uint64(0)
# BIT0[c] | BIT1[c] | BIT2[c]: cell c's bit in its word (the other two tables hold 0 there).
BIT0 = np.zeros(64 * WORDS, dtype=np.uint64)
BIT1 = np.zeros(64 * WORDS, dtype=np.uint64)
BIT2 = np.zeros(64 * WORDS, dtype=np.uint64)
for _i in range(64 * WORDS):
    (BIT0, BIT1, BIT2)[_i // 64][_i] = np.uint64(1) << np.uint64(_i % 64)

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
def _enqueue(qa, qb, q, tail, cap, x, y, w0, w1, w2):
    """Queue the new VC (w0, w1, w2) of pair (x, y) for combining, while the queue has
    room; return the new tail."""
    if tail < cap:
        qa[tail] = x
        qb[tail] = y
        q[tail, 0] = w0
        q[tail, 1] = w1
        q[tail, 2] = w2
        tail += 1
    return tail


@njit(cache=True, nogil=True)
def _add_vc(p, w0, w1, w2, v, vn, max_vc):
    """Keep VC (w0, w1, w2) of pair p (rows v[p, j]) unless an old one's carrier is a
    subset; drop the old supersets. Return True when it was kept."""
    k = vn[p]
    for j in range(k):
        if (v[p, j, 0] & ~w0) == Z and (v[p, j, 1] & ~w1) == Z and (v[p, j, 2] & ~w2) == Z:
            return False
    w = 0
    for j in range(k):
        if (w0 & ~v[p, j, 0]) == Z and (w1 & ~v[p, j, 1]) == Z and (w2 & ~v[p, j, 2]) == Z:
            continue  # the new carrier is inside this one: the old is redundant
        if w != j:
            v[p, w, 0] = v[p, j, 0]
            v[p, w, 1] = v[p, j, 1]
            v[p, w, 2] = v[p, j, 2]
        w += 1
    if w >= max_vc:
        vn[p] = w
        return False
    v[p, w, 0] = w0
    v[p, w, 1] = w1
    v[p, w, 2] = w2
    vn[p] = w + 1
    return True


@njit(cache=True, nogil=True)
def _or_search(p, w0, w1, w2, sc, sn, max_or, out, lst, inter, union, pos, length, suf):
    """The OR rule for a new SC (w0, w1, w2) of pair p: depth-first over subsets of p's
    SCs (rows sc[p, j]) in index order, each SC taken strictly shrinking the running
    intersection; when it is empty, the union is a VC, written to a row of out ([k,
    WORDS]; return how many). At most max_or SCs, the new one included. Iterative
    (numba's cache mishandles recursion).

    Each depth keeps the list of later SCs that shrink its intersection (lst[d]): one
    that does not shrink an intersection shrinks none of its subsets, so the children of
    a depth are taken from its list alone, and the last depth only looks for an SC
    disjoint from the intersection. And suf[j] is the intersection of the SCs from index j
    on: an intersection that meets suf[j + 1] after SC j is emptied by no later SCs, so
    nothing below it is searched. Same subsets found, in the same order, as by the plain
    enumeration of every index; lst, inter, union, pos, length are scratch of max_or - 1
    rows, suf of max_sc + 1."""
    depth_max = max_or - 1
    found = 0
    if depth_max <= 0:
        return found
    k = sn[p]
    full = ~Z
    suf[k, 0] = full
    suf[k, 1] = full
    suf[k, 2] = full
    for j in range(k - 1, -1, -1):
        suf[j, 0] = suf[j + 1, 0] & sc[p, j, 0]
        suf[j, 1] = suf[j + 1, 1] & sc[p, j, 1]
        suf[j, 2] = suf[j + 1, 2] & sc[p, j, 2]
    if ((w0 & suf[0, 0]) | (w1 & suf[0, 1]) | (w2 & suf[0, 2])) != Z:
        return found  # a cell of the new SC is in every SC
    m = 0
    for j in range(k):
        if (w0 & sc[p, j, 0]) != w0 or (w1 & sc[p, j, 1]) != w1 or (w2 & sc[p, j, 2]) != w2:
            lst[0, m] = j
            m += 1
    length[0] = m
    pos[0] = 0
    inter[0, 0] = w0
    inter[0, 1] = w1
    inter[0, 2] = w2
    union[0, 0] = w0
    union[0, 1] = w1
    union[0, 2] = w2
    d = 0
    while d >= 0:
        t = pos[d]
        if t >= length[d]:
            d -= 1
            continue
        pos[d] = t + 1
        j = lst[d, t]
        n0 = inter[d, 0] & sc[p, j, 0]
        n1 = inter[d, 1] & sc[p, j, 1]
        n2 = inter[d, 2] & sc[p, j, 2]
        if n0 == Z and n1 == Z and n2 == Z:
            out[found, 0] = union[d, 0] | sc[p, j, 0]
            out[found, 1] = union[d, 1] | sc[p, j, 1]
            out[found, 2] = union[d, 2] | sc[p, j, 2]
            found += 1
            if found == out.shape[0]:
                return found
            continue
        if d + 1 >= depth_max or ((n0 & suf[j + 1, 0]) | (n1 & suf[j + 1, 1]) | (n2 & suf[j + 1, 2])) != Z:
            continue
        a0 = union[d, 0] | sc[p, j, 0]
        a1 = union[d, 1] | sc[p, j, 1]
        a2 = union[d, 2] | sc[p, j, 2]
        if d + 2 == depth_max:
            # The next depth is the last: only an SC disjoint from (n0, n1, n2) counts.
            for r in range(t + 1, length[d]):
                i = lst[d, r]
                if ((n0 & sc[p, i, 0]) | (n1 & sc[p, i, 1]) | (n2 & sc[p, i, 2])) == Z:
                    out[found, 0] = a0 | sc[p, i, 0]
                    out[found, 1] = a1 | sc[p, i, 1]
                    out[found, 2] = a2 | sc[p, i, 2]
                    found += 1
                    if found == out.shape[0]:
                        return found
            continue
        m = 0
        for r in range(t + 1, length[d]):
            i = lst[d, r]
            if (n0 & sc[p, i, 0]) != n0 or (n1 & sc[p, i, 1]) != n1 or (n2 & sc[p, i, 2]) != n2:
                lst[d + 1, m] = i
                m += 1
        if m == 0:
            continue
        length[d + 1] = m
        pos[d + 1] = 0
        inter[d + 1, 0] = n0
        inter[d + 1, 1] = n1
        inter[d + 1, 2] = n2
        union[d + 1, 0] = a0
        union[d + 1, 1] = a1
        union[d + 1, 2] = a2
        d += 1
    return found


@njit(cache=True, nogil=True)
def hsearch(s, player, max_vc, max_sc, max_or, empty_pairs, stop_at_semi, sc_bits, sc_key):
    """Run H-search for `player` on state `s` (a board up to MAX_SIDE). Return (status,
    count, w0, w1, w2):

    * FULL: the edges are joined by a VC with carrier (w0, w1, w2) (empty when they are
      already joined by stones), so `player` wins even moving second;
    * otherwise the edges' SCs (at most len(sc_key)) are written to the rows of sc_bits
      ([k, WORDS]: carriers, keys included) and sc_key, `count` of them; status SEMI
      when there is one (then `player` wins by moving first, at key sc_key[0]), NONE
      when there is none.

    With `stop_at_semi` the search ends at the first SC between the edges (enough to know
    the player to move wins)."""
    n = s[WIDTH]
    if n > MAX_SIDE:
        raise ValueError("H-search's bitsets hold boards up to 13x13")
    cells = n * n
    first, second = edges_of(s, player)
    e1 = find(s, first)
    e2 = find(s, second)
    if e1 == e2:
        return FULL, 0, Z, Z, Z
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
    cap = pairs * max_vc // 2 + 4 * cells + 16
    # The tables live in one block per dtype: a few large blocks each call were handed
    # back to the system and faulted in again on the next (a third of a light call's
    # time on 11x11); one block of each stays with the allocator between calls.
    nv = pairs * max_vc * WORDS
    ns = pairs * max_sc * WORDS
    words = np.empty(nv + ns + cap * WORDS, dtype=np.uint64)
    vc = words[:nv].reshape((pairs, max_vc, WORDS))
    sc = words[nv : nv + ns].reshape((pairs, max_sc, WORDS))
    q = words[nv + ns :].reshape((cap, WORDS))
    ints = np.empty(pairs * (max_sc + 2) + 2 * cap, dtype=np.int64)
    skey = ints[: pairs * max_sc].reshape((pairs, max_sc))
    vn = ints[pairs * max_sc : pairs * (max_sc + 1)]
    sn = ints[pairs * (max_sc + 1) : pairs * (max_sc + 2)]
    vn[:] = 0
    sn[:] = 0
    qa = ints[pairs * (max_sc + 2) : pairs * (max_sc + 2) + cap]
    qb = ints[pairs * (max_sc + 2) + cap :]
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
            if _add_vc(x * npt + y, Z, Z, Z, vc, vn, max_vc):
                tail = _enqueue(qa, qb, q, tail, cap, x, y, Z, Z, Z)
    target = a_e1 * npt + a_e2
    or_out = np.empty((8, WORDS), dtype=np.uint64)
    or_rows = max(max_or - 1, 1)
    or_lst = np.empty((or_rows, max_sc), dtype=np.int64)
    or_inter = np.empty((or_rows, WORDS), dtype=np.uint64)
    or_union = np.empty((or_rows, WORDS), dtype=np.uint64)
    or_pos = np.empty(or_rows, dtype=np.int64)
    or_len = np.empty(or_rows, dtype=np.int64)
    or_suf = np.empty((max_sc + 1, WORDS), dtype=np.uint64)
    head = 0
    while head < tail:
        x0 = qa[head]
        y0 = qb[head]
        c0 = q[head, 0]
        c1 = q[head, 1]
        c2 = q[head, 2]
        head += 1
        for side in range(2):
            m = y0 if side == 0 else x0
            e = x0 if side == 0 else y0
            if kind[m] == EDGE_PT:
                continue
            e_cell = pcell[e]
            # e's own bit (none for a group or an edge): a carrier holding it is no use.
            e0 = BIT0[e_cell] if e_cell >= 0 else Z
            e1w = BIT1[e_cell] if e_cell >= 0 else Z
            e2w = BIT2[e_cell] if e_cell >= 0 else Z
            # A carrier d joins this one when d misses it and e.
            x0m = c0 | e0
            x1m = c1 | e1w
            x2m = c2 | e2w
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
                if z_cell >= 0 and ((c0 & BIT0[z_cell]) | (c1 & BIT1[z_cell]) | (c2 & BIT2[z_cell])) != Z:
                    continue
                x = min(e, z)
                y = max(e, z)
                p = x * npt + y
                for j in range(k):
                    d0 = vc[pm, j, 0]
                    d1 = vc[pm, j, 1]
                    d2 = vc[pm, j, 2]
                    if ((d0 & x0m) | (d1 & x1m) | (d2 & x2m)) != Z:
                        continue
                    u0 = c0 | d0
                    u1 = c1 | d1
                    u2 = c2 | d2
                    if kind[m] == GROUP_PT:
                        if _add_vc(p, u0, u1, u2, vc, vn, max_vc):
                            if p == target:
                                return FULL, 0, u0, u1, u2
                            tail = _enqueue(qa, qb, q, tail, cap, x, y, u0, u1, u2)
                        continue
                    # Through an empty cell: a semi-connection keyed at m.
                    mc = pcell[m]
                    u0 |= BIT0[mc]
                    u1 |= BIT1[mc]
                    u2 |= BIT2[mc]
                    useless = False
                    for i in range(vn[p]):
                        if ((vc[p, i, 0] & ~u0) | (vc[p, i, 1] & ~u1) | (vc[p, i, 2] & ~u2)) == Z:
                            useless = True
                            break
                    if not useless:
                        for i in range(sn[p]):
                            if ((sc[p, i, 0] & ~u0) | (sc[p, i, 1] & ~u1) | (sc[p, i, 2] & ~u2)) == Z:
                                useless = True
                                break
                    if useless:
                        continue
                    # OR: the new SC with earlier ones, intersections shrinking to empty.
                    ors = _or_search(
                        p, u0, u1, u2, sc, sn, max_or, or_out, or_lst, or_inter, or_union, or_pos, or_len, or_suf
                    )
                    for i in range(ors):
                        o0 = or_out[i, 0]
                        o1 = or_out[i, 1]
                        o2 = or_out[i, 2]
                        if _add_vc(p, o0, o1, o2, vc, vn, max_vc):
                            if p == target:
                                return FULL, 0, o0, o1, o2
                            tail = _enqueue(qa, qb, q, tail, cap, x, y, o0, o1, o2)
                    # Keep the new SC; older ones containing it are redundant.
                    w = 0
                    for i in range(sn[p]):
                        if ((u0 & ~sc[p, i, 0]) | (u1 & ~sc[p, i, 1]) | (u2 & ~sc[p, i, 2])) == Z:
                            continue
                        if w != i:
                            sc[p, w, 0] = sc[p, i, 0]
                            sc[p, w, 1] = sc[p, i, 1]
                            sc[p, w, 2] = sc[p, i, 2]
                            skey[p, w] = skey[p, i]
                        w += 1
                    sn[p] = w
                    if w < max_sc:
                        sc[p, w, 0] = u0
                        sc[p, w, 1] = u1
                        sc[p, w, 2] = u2
                        skey[p, w] = mc
                        sn[p] = w + 1
                        if p == target and stop_at_semi:
                            sc_bits[0, 0] = u0
                            sc_bits[0, 1] = u1
                            sc_bits[0, 2] = u2
                            sc_key[0] = mc
                            return SEMI, 1, Z, Z, Z
    count = min(sn[target], sc_key.shape[0])
    for i in range(count):
        sc_bits[i, 0] = sc[target, i, 0]
        sc_bits[i, 1] = sc[target, i, 1]
        sc_bits[i, 2] = sc[target, i, 2]
        sc_key[i] = skey[target, i]
    return (SEMI if count > 0 else NONE), count, Z, Z, Z


@njit(cache=True, nogil=True)
def empty_bits(s):
    """The empty cells of board `s` as a bitset (w0, w1, w2)."""
    w0 = Z
    w1 = Z
    w2 = Z
    for cell in range(s[WIDTH] * s[WIDTH]):
        if s[BOARD + cell] == 0:
            w0 |= BIT0[cell]
            w1 |= BIT1[cell]
            w2 |= BIT2[cell]
    return w0, w1, w2


@njit(cache=True, nogil=True)
def has_cell(w0, w1, w2, cell):
    """Is `cell` in the bitset (w0, w1, w2)?"""
    return ((w0 & BIT0[cell]) | (w1 & BIT1[cell]) | (w2 & BIT2[cell])) != Z


@njit(cache=True, nogil=True)
def must_play(s, player, max_vc, max_sc, max_or, empty_pairs):
    """The opponent of `player` is to move. Return (status, w0, w1, w2): FULL when
    `player` has a VC between its edges (the mover loses; the words are its carrier);
    else the must-play region, the intersection of the carriers of `player`'s SCs between
    its edges (all empty cells when it has none: status NONE). An empty region with
    status SEMI is a loss too (the OR rule over those SCs), which H-search's limits may
    not have combined."""
    sc_bits = np.empty((max_sc, WORDS), dtype=np.uint64)
    sc_key = np.empty(max_sc, dtype=np.int64)
    status, count, c0, c1, c2 = hsearch(s, player, max_vc, max_sc, max_or, empty_pairs, False, sc_bits, sc_key)
    if status == FULL:
        return FULL, c0, c1, c2
    r0, r1, r2 = empty_bits(s)
    for i in range(count):
        r0 &= sc_bits[i, 0]
        r1 &= sc_bits[i, 1]
        r2 &= sc_bits[i, 2]
    return status, r0, r1, r2


def cells_of_bits(words, cells: int) -> list[int]:
    """The cells (below `cells`) of a bitset given as its words (any sequence of WORDS
    integers): for tests and the Python API."""
    return [c for c in range(cells) if (int(words[c // 64]) >> (c % 64)) & 1]
