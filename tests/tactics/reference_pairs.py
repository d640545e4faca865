"""The Connect6 search before line tables, kept as the reference the tests compare the
threat-space search (`pipeline.tactics.lines.c6_search.c6_solve`) with: every pair of
candidate cells (the empty cells of the windows that reach four with the turn's stones,
and of the defender's threat windows) is tried as the attacker's turn and counted as a
node; a turn that hits every threat window of the defender and leaves the attacker two
threats is answered by every pair of defender stones that hits them all, three threats
or more win. Each node sweeps the board's windows (`threats.all_windows`); nothing here
is fast, and only tests use it.

`c6_solve_pairs(s, budget, max_depth, table, pv, sc)` has the contract of `c6_solve`.
"""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn, window_stones
from pipeline.games.gomoku import DIR_C, DIR_R
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import BOARD, HEIGHT, ONGOING, PLY, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.lines.gomoku_vcf import take_back as take_back_gomoku
from pipeline.tactics.lines.scratch import (
    BUDGET,
    CTX,
    CTX_SLOTS,
    LOCAL_CELLS,
    NODES,
    PV_LEN,
    SEEN,
    THREAT_CELLS,
    WORK,
    check_room,
)
from pipeline.tactics.lines.table import SALT_C6, ZOBRIST, board_key, probe_failed, store_failed
from pipeline.tactics.lines.threats import (
    all_windows,
    hitting_number,
    hitting_pairs,
    mark_window_cells,
    shown_reply,
    window_empties,
)

ROOT_SEEN = 5  # ctx: the root got past the table in this search (the slot CUT of the others)
# Rows of the search's own room (int64 [depth + 2, ROOM_ROWS, 4 x cells]): row `depth` a
# node's, the last one `_win_now`'s.
D_KEYS, D_E0, D_E1 = 0, 1, 2  # the defender's threat windows: key and empty cells
A_KEYS, A_E0, A_E1 = 3, 4, 5  # the attacker's
CANDIDATES = 6
PAIR_A, PAIR_B = 7, 8  # the defender's replies
ROOM_ROWS = 9


@njit(cache=True, nogil=True)
def take_back(w, cell):
    """`gomoku_vcf.take_back` of a Connect6 stone: the mover follows the turns of two."""
    take_back_gomoku(w, cell)
    w[TO_MOVE] = mover_at_ply(w[PLY])


@njit(cache=True, nogil=True)
def windows_through(s, cell, player, min_own, keys, e0, e1, n):
    """Add the six-windows through `cell` with at least `min_own` stones of `player` and
    none of the other, skipping keys already listed; return the new count."""
    w = s[WIDTH]
    r0 = cell // w
    c0 = cell % w
    for d in range(4):
        for back in range(6):
            rs = r0 - DIR_R[d] * back
            cs = c0 - DIR_C[d] * back
            if window_stones(s, rs, cs, d, player + 1) < min_own:
                continue
            key = (rs * w + cs) * 4 + d
            listed = False
            for j in range(n):
                listed = listed or keys[j] == key
            if not listed:
                keys[n] = key
                window_empties(s, rs * w + cs, d, e0, e1, n)
                n += 1
    return n


@njit(cache=True, nogil=True)
def _fill(e0, e1, pos, pv, ctx):
    """Write the stones e0 (and e1 when there is one) that complete a window at pv[pos]."""
    pv[pos] = e0
    ctx[PV_LEN] = pos + 1
    if e1 >= 0:
        pv[pos + 1] = e1
        ctx[PV_LEN] = pos + 2


@njit(cache=True, nogil=True)
def _win_now(w, atk, pos, pv, ctx, room):
    """Complete a window the attacker can fill with the stones left this turn (the first
    that `all_windows` lists)."""
    row = room[room.shape[0] - 1]
    left = stones_left_in_turn(w[PLY])
    if all_windows(w, atk, 6 - left, row[A_KEYS], row[A_E0], row[A_E1]) == 0 or pos + 2 > pv.shape[0]:
        return 0
    _fill(row[A_E0, 0], row[A_E1, 0], pos, pv, ctx)
    return 1


@njit(cache=True, nogil=True)
def c6_attack_pairs(w, atk, depth, pos, ctx, table, pv, key, sc, room, root):
    """Attacker turn in Connect6 (`atk` to move, one or two stones left this turn).
    Row `depth` of `room` is this node's."""
    if depth <= 0 or pos + 8 > pv.shape[0]:
        return _win_now(w, atk, pos, pv, ctx, room)
    cells = w[HEIGHT] * w[WIDTH]
    left = stones_left_in_turn(w[PLY])
    # The windows: one to fill now, the defender's threats (our stones this turn must hit
    # every one of them), our own windows of four (only possible mid-turn), and the cells
    # of the windows that reach four with this turn's stones.
    dkeys = room[depth, D_KEYS]
    de0 = room[depth, D_E0]
    de1 = room[depth, D_E1]
    akeys = room[depth, A_KEYS]
    ae0 = room[depth, A_E0]
    ae1 = room[depth, A_E1]
    if all_windows(w, atk, 6 - left, akeys, ae0, ae1) > 0:
        _fill(ae0[0], ae1[0], pos, pv, ctx)
        return 1
    nd = all_windows(w, 1 - atk, 4, dkeys, de0, de1)
    na0 = all_windows(w, atk, 4, akeys, ae0, ae1)
    mark = sc.flags[LOCAL_CELLS]
    mark[:cells] = False
    mark_window_cells(w, atk + 1, 4 - left, 5, 6, mark)
    if probe_failed(table, key, depth):
        return 0
    if root != 0:
        ctx[ROOT_SEEN] = 1
    dmark = sc.flags[THREAT_CELLS]
    dmark[:cells] = False
    hd = hitting_number(de0, de1, nd, dmark)
    if hd > left:
        store_failed(table, key, depth)
        return 0
    cand = room[depth, CANDIDATES]
    nc = 0
    for c in range(cells):
        if mark[c] or dmark[c]:
            cand[nc] = c
            nc += 1
    pa = room[depth, PAIR_A]
    pb = room[depth, PAIR_B]
    tmark = sc.flags[SEEN]  # hitting_number's marks, not read here
    dval = 2 - atk
    for i in range(nc):
        # Two stones left: the pairs (i, j > i); one left: a single pass with no c2.
        for j in range(i + 1 if left == 2 else nc, nc if left == 2 else nc + 1):
            c1 = cand[i]
            c2 = cand[j] if left == 2 else -1
            covered = True
            for q in range(nd):
                if not (c1 == de0[q] or c1 == de1[q] or (c2 >= 0 and (c2 == de0[q] or c2 == de1[q]))):
                    covered = False
                    break
            if not covered:
                continue
            if ctx[NODES] >= ctx[BUDGET]:
                return -1
            ctx[NODES] += 1
            apply_unchecked(w, c1)
            if c2 >= 0 and w[WINNER] == ONGOING:
                apply_unchecked(w, c2)
            if w[WINNER] != ONGOING:  # a full board: a win was ruled out above
                if c2 >= 0 and w[BOARD + c2] != 0:
                    take_back(w, c2)
                take_back(w, c1)
                continue
            # Our threats after this turn: the old fours (still unblocked: our stones
            # cannot block them) and the windows through the new stones.
            for q in range(na0):  # re-read their empty cells: our stones may be in them
                window_empties(w, akeys[q] // 4, akeys[q] % 4, ae0, ae1, q)
            na = windows_through(w, c1, atk, 4, akeys, ae0, ae1, na0)
            if c2 >= 0:
                na = windows_through(w, c2, atk, 4, akeys, ae0, ae1, na)
            ha = hitting_number(ae0, ae1, na, tmark)
            ckey = key ^ ZOBRIST[atk + 1, c1]
            if c2 >= 0:
                ckey ^= ZOBRIST[atk + 1, c2]
            r = 0
            off = 2 if c2 >= 0 else 1
            if ha >= 3:
                # The defender cannot hit them all: show one reply and our completion.
                d1, d2 = shown_reply(ae0, ae1, na)
                apply_unchecked(w, d1)
                if d2 >= 0 and w[WINNER] == ONGOING:
                    apply_unchecked(w, d2)
                if w[WINNER] == ONGOING and pos + off + 4 <= pv.shape[0]:
                    r = _win_now(w, atk, pos + off + 2, pv, ctx, room)
                if d2 >= 0 and w[BOARD + d2] != 0:
                    take_back(w, d2)
                take_back(w, d1)
                if r == 1:
                    pv[pos + off] = d1
                    pv[pos + off + 1] = d2
                    if d2 < 0:  # no second window to aim at: the pair is d1 and any cell
                        r = 0
            elif ha == 2:
                npairs = hitting_pairs(ae0, ae1, na, pa, pb)
                r = 1 if npairs > 0 else 0
                for q in range(npairs):
                    apply_unchecked(w, pa[q])
                    apply_unchecked(w, pb[q])
                    rr = 0
                    if w[WINNER] == ONGOING:
                        rkey = ckey ^ ZOBRIST[dval, pa[q]] ^ ZOBRIST[dval, pb[q]]
                        at = pos + off + 2
                        rr = c6_attack_pairs(w, atk, depth - 1, at, ctx, table, pv, rkey, sc, room, np.int64(0))
                    take_back(w, pb[q])
                    take_back(w, pa[q])
                    if rr != 1:
                        r = rr
                        break
                    pv[pos + off] = pa[q]
                    pv[pos + off + 1] = pb[q]
            if c2 >= 0:
                take_back(w, c2)
            take_back(w, c1)
            if r == 1:
                pv[pos] = c1
                if c2 >= 0:
                    pv[pos + 1] = c2
                return 1
            if r < 0:
                return -1
    store_failed(table, key, depth)
    return 0


@njit(cache=True, nogil=True)
def c6_solve_pairs(s, budget, max_depth, table, pv, sc):
    """The reference search by iterative deepening; same contract as `c6_solve`."""
    check_room(s, max_depth, sc)
    ctx = sc.ints[CTX]
    ctx[:CTX_SLOTS] = 0
    ctx[BUDGET] = budget
    if s[WINNER] != ONGOING:
        return 0, 0, 0
    w = sc.states[WORK]
    w[:] = s
    room = np.zeros((max_depth + 2, ROOM_ROWS, 4 * s[HEIGHT] * s[WIDTH]), dtype=np.int64)
    atk = np.int64(w[TO_MOVE])  # int64 throughout (numba issue #6713)
    key = board_key(w) ^ SALT_C6
    for depth in range(1, max_depth + 1):
        r = c6_attack_pairs(w, atk, np.int64(depth), np.int64(0), ctx, table, pv, key, sc, room, np.int64(1))
        if r == 1:
            return 1, ctx[PV_LEN], ctx[NODES]
        if r < 0:
            break
        if ctx[ROOT_SEEN] != 0 and ctx[NODES] == 0:
            # The root was searched and tried nothing: each further round would do the
            # same and store its failure one depth deeper, which comes to this one store.
            store_failed(table, key, max_depth)
            break
    return 0, 0, ctx[NODES]
