"""Victory by continuous fours (Gomoku) and by double threats (Connect6).

Entry point `vcf(s, budget, max_depth, table, pv)`, compiled and callable from compiled
code, for the player to move in `s` (left unchanged); `vcf_into(..., scratch)` is the
same search in the caller's room (`pipeline.tactics.lines.scratch`), which the tree uses:
  returns (result, pv_len, nodes): result 1 when a win is proven, 0 when none was found
  (no win of this kind, or the budget or depth ran out); pv[:pv_len] is the proof line,
  the actions in play order (attacker, defender, ...; Connect6 one stone per action,
  so a turn is two entries), ending with the attacker's winning stone(s).

Gomoku: the attacker plays fours; the defender's only answer to a single winning cell is
to fill it (his stone cannot shorten the attacker's runs, even under exact rules). Two
winning cells win. When the defender's block makes a four of his own, the attacker's
next move must fill that cell (and is kept only if it is a four again); two such cells
end the line. The shared core `gomoku_attack` also plays threes when asked (VCT).

Connect6 (threat-space search after Wu & Huang): the attacker's turn must hit all the
defender's threat windows and leave at least two threats of its own; three or more
threats win; with exactly two, every pair of defender stones that hits all of them is
searched (an AND node). Single threats are not played: they leave the defender a free
stone, which this search does not model.

Renju: black plays only moves that are not forbidden (a four or three on a forbidden
cell is not tried, and a counter-four of white whose block is forbidden to black ends
the line). A white four whose winning cell is forbidden to black wins like a double
four: black cannot block it (the proof shows any legal black move, then the five). The
defender's answer sets follow the rule too (`threats.defences_against`).

Cost (the tree asks at every expansion): the searches allocate nothing (every array is
in the scratch); the root's candidates are found once, not once per round of iterative
deepening, and a root with none ends the search after one round, storing in the table
what the remaining rounds would have stored; a Gomoku node's four-making candidates come
from per-cell window counts handed down from its parent and updated for the two stones
between them (`node_cover`), not from a sweep of the board; a Connect6 node reads the
windows once (`connect6_windows`); the winning cells a stone makes are found with
`new_wins`, which the invariant below allows. Results, proofs, node counts and table
contents are those of the plain search (tests/unit/test_verdict_reference.py).

Invariant: at the attacker's turn it has no winning cell (it would have won), and the
defender's only winning cells are the `d_count` known ones; a defender's block cannot
give the attacker one, nor an attacker's stone the defender. So the winning cells after
a stone are the ones it made, which `new_wins` finds.

Soundness: every line ends in a position the rules score as the attacker's win, and at
every defender turn either the defence is unique or all defences are searched. The
transposition table holds only fully searched failures (see `table`).
"""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.games.gomoku import DIR_C, DIR_R
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import (
    BOARD,
    CONNECT6,
    HEIGHT,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    KIND,
    PLY,
    STONES,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
    WINNER,
)
from pipeline.tactics.lines.scratch import (
    A_E0,
    A_E1,
    A_KEYS,
    CAND,
    COVER,
    CTX,
    CTX_SLOTS,
    D_E0,
    D_E1,
    D_KEYS,
    DIST,
    DLINE,
    F_CELLS,
    F_W0,
    F_W1,
    LINE,
    MARK,
    MARK2,
    PAIR_A,
    PAIR_B,
    REPLIES,
    SCAN,
    SCAN_COVER,
    SCAN_WINS,
    SEEN,
    WINS,
    WORK,
    check_room,
    scratch_for,
)
from pipeline.tactics.lines.table import SALT_C6, SALT_VCF, ZOBRIST, board_key, probe_failed, store_failed
from pipeline.tactics.lines.threats import (
    connect6_windows,
    defences_against_into,
    double_fours_near_into,
    first_legal,
    first_window,
    gomoku_scan,
    hitting_number,
    hitting_pairs,
    illegal_for,
    mark_window_cells,
    new_wins,
    restricted,
    window_empties,
    windows_through,
)

ONGOING = -1
NODES = 0  # ctx slots: nodes used, node budget, proof length
BUDGET = 1
PV_LEN = 2
ROOT_FOURS = 3  # the root's four (and, VCT, three) candidates once found; -1 before
ROOT_THREES = 4
ROOT_SEEN = 5  # Connect6: the root got past the table in this search


@njit(cache=True, nogil=True)
def take_back(w, cell):
    """Undo apply_unchecked on the search's scratch copy (history fields are left stale;
    nothing here reads them)."""
    w[BOARD + cell] = 0
    w[PLY] -= 1
    w[STONES] -= 1
    w[WINNER] = ONGOING
    if w[KIND] == CONNECT6:
        w[TO_MOVE] = mover_at_ply(w[PLY])
    else:
        w[TO_MOVE] = w[PLY] % 2


@njit(cache=True, nogil=True)
def _sort_by_distance(cand, n, w, centre, dist):
    """Order candidates by Chebyshev distance to `centre` (the last attacking stone):
    forcing lines usually continue where the last threat was made. `dist` is room for n."""
    width = w[WIDTH]
    if centre < 0:
        return
    cr = centre // width
    cc = centre % width
    for i in range(n):
        dist[i] = max(abs(cand[i] // width - cr), abs(cand[i] % width - cc))
    for i in range(1, n):
        j = i
        while j > 0 and dist[j - 1] > dist[j]:
            dist[j - 1], dist[j] = dist[j], dist[j - 1]
            cand[j - 1], cand[j] = cand[j], cand[j - 1]
            j -= 1


# ---- Gomoku ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def cover_update(w, cover, c, b, aval, dval):
    """Bring `cover` (per cell, the windows of k cells holding k - 2 attacker stones and
    no defender stone) from the board before to the board after the attacker's stone c
    and the defender's stone b (both on `w` now): only the windows through them change."""
    h = w[HEIGHT]
    width = w[WIDTH]
    k = w[WIN_LENGTH]
    for which in range(2):
        x = c if which == 0 else b
        xr = x // width
        xc = x % width
        for d in range(4):
            dr = DIR_R[d]
            dc = DIR_C[d]
            for o in range(k):
                r0 = xr - o * dr
                c0 = xc - o * dc
                r1 = r0 + (k - 1) * dr
                c1 = c0 + (k - 1) * dc
                if r0 < 0 or r0 >= h or c0 < 0 or c0 >= width or r1 < 0 or r1 >= h or c1 < 0 or c1 >= width:
                    continue
                atk_n = 0
                def_n = 0
                has_c = False
                has_b = False
                for i in range(k):
                    e = (r0 + i * dr) * width + c0 + i * dc
                    v = w[BOARD + e]
                    if v == aval:
                        atk_n += 1
                    elif v == dval:
                        def_n += 1
                    has_c = has_c or e == c
                    has_b = has_b or e == b
                if which == 1 and has_c:
                    continue  # counted with c
                now = atk_n == k - 2 and def_n == 0
                before = atk_n - (1 if has_c else 0) == k - 2 and def_n - (1 if has_b else 0) == 0
                if now != before:
                    delta = 1 if now else -1
                    for i in range(k):
                        cover[(r0 + i * dr) * width + c0 + i * dc] += delta


@njit(cache=True, nogil=True)
def node_cover(w, sc, depth, atk, c, b, root):
    """Fill this node's COVER row: the root's from the scan of its board, an inner node's
    from its parent's (row depth + 1) and the two stones since (`c` the attacker's, `b`
    the defender's), which stand on `w`."""
    cells = w[HEIGHT] * w[WIDTH]
    row = sc.level[depth, COVER]
    if root != 0:
        row[:cells] = sc.ints[SCAN_COVER + atk, :cells]
        return
    row[:cells] = sc.level[depth + 1, COVER, :cells]
    cover_update(w, row, c, b, atk + 1, 2 - atk)


@njit(cache=True, nogil=True)
def gomoku_attack(w, atk, depth, threes, pos, ctx, table, pv, key, d_count, d_cell, last, prev_b, sc, root):
    """Attacker node: `atk` to move with no winning cell; the defender has `d_count`
    winning cells (d_cell the first). Returns 1 win (pv[pos:ctx[PV_LEN]] the line),
    0 no win within `depth` attacker moves, -1 budget spent. `last` and `prev_b` are the
    attacker's and the defender's stones that led here. `sc` is the scratch; the root
    (`root` 1) takes its candidates from the scan of its board once and keeps them in
    `level[0]` for the later rounds."""
    if d_count >= 2 or depth <= 0 or pos + 3 > pv.shape[0]:
        return 0
    if probe_failed(table, key, depth):
        return 0
    cells = w[HEIGHT] * w[WIDTH]
    k = w[WIN_LENGTH]
    aval = atk + 1
    dval = 2 - atk
    scratch = sc.level[depth, LINE]
    dscratch = sc.ints[DLINE]
    cover = sc.level[depth, COVER]
    covered = False  # this node's COVER row, made when first needed
    black_atk = restricted(w, atk)  # renju: the attacker's moves must not be forbidden
    black_def = restricted(w, 1 - atk)  # renju: nor the defender's
    if root != 0 and ctx[ROOT_FOURS] >= 0:
        # A later round: the same candidates, and the first pass found no double four.
        cand = sc.level[0, CAND]
        n4 = ctx[ROOT_FOURS]
        n3 = ctx[ROOT_THREES]
    else:
        cand = sc.level[0, CAND] if root != 0 else sc.level[depth, CAND]
        n4 = 0
        n3 = 0
        if d_count == 1:
            if black_atk and illegal_for(w, atk, d_cell):
                return 0  # the defender's four cannot be blocked
            cand[0] = d_cell
            n4 = 1
        else:
            node_cover(w, sc, depth, atk, last, prev_b, root)
            covered = True
            for c in range(cells):
                if cover[c] > 0 and w[BOARD + c] == 0:
                    cand[n4] = c
                    n4 += 1
            _sort_by_distance(cand, n4, w, last, sc.ints[DIST])
            if threes != 0 and k >= 4:
                mark3 = sc.flags[MARK2]
                mark3[:cells] = False
                mark_window_cells(w, aval, max(k - 3, 1), k - 3, k, mark3)
                for c in range(cells):
                    if mark3[c] and cover[c] == 0:
                        cand[n4 + n3] = c
                        n3 += 1
                sub = cand[n4 : n4 + n3]
                _sort_by_distance(sub, n3, w, last, sc.ints[DIST])
        # First pass: a double four wins on the spot, so look for one before going deep.
        for i in range(n4):
            c = cand[i]
            if black_atk and illegal_for(w, atk, c):
                continue
            w[BOARD + c] = aval
            nw = new_wins(w, c, aval, scratch, 0)
            w[BOARD + c] = 0
            if nw >= 2:
                apply_unchecked(w, c)
                apply_unchecked(w, scratch[0])
                take_back(w, scratch[0])
                take_back(w, c)
                pv[pos] = c
                pv[pos + 1] = scratch[0]
                pv[pos + 2] = scratch[1]
                ctx[PV_LEN] = pos + 3
                return 1
            if nw == 1 and black_def:
                # Renju: a white four whose winning cell black may not fill wins as well.
                apply_unchecked(w, c)
                won = False
                if w[WINNER] == ONGOING and illegal_for(w, 1 - atk, scratch[0]):
                    x = first_legal(w, 1 - atk)
                    if x >= 0:
                        won = True
                        pv[pos] = c
                        pv[pos + 1] = x
                        pv[pos + 2] = scratch[0]
                        ctx[PV_LEN] = pos + 3
                take_back(w, c)
                if won:
                    return 1
        if root != 0:
            ctx[ROOT_FOURS] = n4
            ctx[ROOT_THREES] = n3
    aborted = False
    for i in range(n4 + n3):
        if ctx[NODES] >= ctx[BUDGET]:
            return -1
        ctx[NODES] += 1
        c = cand[i]
        if black_atk and illegal_for(w, atk, c):
            continue
        apply_unchecked(w, c)
        if w[WINNER] != ONGOING:  # a draw by a full board (a win was ruled out above)
            take_back(w, c)
            continue
        nw = new_wins(w, c, aval, scratch, 0)
        ckey = key ^ ZOBRIST[aval, c]
        if nw == 1:
            b = scratch[0]
            if black_def and illegal_for(w, 1 - atk, b):
                take_back(w, c)  # black could not move at all (shown above otherwise)
                continue
            if not covered:  # the children build their rows on this node's
                w[BOARD + c] = 0
                node_cover(w, sc, depth, atk, last, prev_b, root)
                w[BOARD + c] = aval
                covered = True
            apply_unchecked(w, b)
            if w[WINNER] == ONGOING:
                nd = new_wins(w, b, dval, dscratch, 0)
                r = gomoku_attack(
                    w,
                    atk,
                    depth - 1,
                    threes,
                    pos + 2,
                    ctx,
                    table,
                    pv,
                    ckey ^ ZOBRIST[dval, b],
                    nd,
                    dscratch[0],
                    c,
                    b,
                    sc,
                    np.int64(0),
                )
            else:
                r = 0
            take_back(w, b)
            take_back(w, c)
            if r == 1:
                pv[pos] = c
                pv[pos + 1] = b
                return 1
            if r < 0:
                aborted = True
            continue
        if nw >= 2 or threes == 0 or depth < 2:
            take_back(w, c)
            continue
        # A three: the defender's replies are every cell that stops all the double
        # fours it threatens, plus each counter-four; each must lose for the defender.
        f_cells = sc.level[depth, F_CELLS]
        f_w0 = sc.level[depth, F_W0]
        f_w1 = sc.level[depth, F_W1]
        nf = double_fours_near_into(w, c, aval, f_cells, f_w0, f_w1, scratch)
        if nf == 0:
            take_back(w, c)
            continue
        replies = sc.level[depth, REPLIES]
        nrep = defences_against_into(
            w, nf, f_cells, f_w0, f_w1, 1 - atk, replies, sc.flags[SEEN], sc.flags[MARK2], scratch
        )
        if nrep == 0:
            # Nothing stops every threat: any reply loses; show it with a block of one
            # (renju: with any move black may play, when that block is forbidden to it).
            replies[0] = f_cells[0] if not illegal_for(w, 1 - atk, f_cells[0]) else first_legal(w, 1 - atk)
            nrep = 1
            if replies[0] < 0:
                take_back(w, c)
                continue
        if not covered:
            w[BOARD + c] = 0
            node_cover(w, sc, depth, atk, last, prev_b, root)
            w[BOARD + c] = aval
            covered = True
        all_win = True
        for j in range(nrep):
            m = replies[j]
            apply_unchecked(w, m)
            if w[WINNER] == ONGOING:
                nd = new_wins(w, m, dval, dscratch, 0)
                r = gomoku_attack(
                    w,
                    atk,
                    depth - 1,
                    threes,
                    pos + 2,
                    ctx,
                    table,
                    pv,
                    ckey ^ ZOBRIST[dval, m],
                    nd,
                    dscratch[0],
                    c,
                    m,
                    sc,
                    np.int64(0),
                )
            else:
                r = 0
            take_back(w, m)
            if r != 1:
                all_win = False
                if r < 0:
                    aborted = True
                break
            pv[pos + 1] = m  # the proof line follows the last reply searched
        take_back(w, c)
        if all_win:
            pv[pos] = c
            return 1
        if aborted:
            return -1
    if aborted:
        return -1
    store_failed(table, key, depth)
    return 0


@njit(cache=True, nogil=True)
def gomoku_solve_scanned(s, budget, max_depth, threes, salt, table, pv, sc):
    """Iterative deepening over `gomoku_attack`: shortest proofs first, and the table
    carries each round's failures into the next. The scratch's `SCAN`, `WINS` and
    `SCAN_COVER` rows must hold `gomoku_scan` of this board (for either player to move)."""
    check_room(s, max_depth, sc)
    cells = s[HEIGHT] * s[WIDTH]
    ctx = sc.ints[CTX]
    ctx[:CTX_SLOTS] = 0
    ctx[BUDGET] = budget
    ctx[ROOT_FOURS] = -1
    ctx[ROOT_THREES] = -1
    if s[WINNER] != ONGOING:
        return 0, 0, 0
    w = sc.states[WORK]
    w[:] = s
    # Every argument of the recursive search is int64 at the root too: numba's cache
    # mis-links a recursive function called with other types (numba issue #6713).
    atk = np.int64(w[TO_MOVE])
    if sc.ints[SCAN, 2 * atk + SCAN_WINS] > 0:
        for c in range(cells):
            if sc.flags[WINS + atk, c]:
                pv[0] = c
                return 1, 1, 0
    d_count = np.int64(sc.ints[SCAN, 2 * (1 - atk) + SCAN_WINS])
    if d_count >= 2:
        return 0, 0, 0  # every round would stop at the root's first test
    d_cell = np.int64(-1)
    for c in range(cells):
        if sc.flags[WINS + 1 - atk, c]:
            d_cell = c
            break
    last = np.int64(-1)  # the attacker's most recent stone: its next threats are near
    for i in range(HIST_LEN):
        if w[HIST_PLAYER + i] == atk and w[HIST + i] >= 0:
            last = np.int64(w[HIST + i])
            break
    key = board_key(w) ^ salt
    for depth in range(1, max_depth + 1):
        r = gomoku_attack(
            w,
            atk,
            np.int64(depth),
            np.int64(threes),
            np.int64(0),
            ctx,
            table,
            pv,
            key,
            d_count,
            d_cell,
            last,
            np.int64(-1),
            sc,
            np.int64(1),
        )
        if r == 1:
            return 1, ctx[PV_LEN], ctx[NODES]
        if r < 0:
            break
        if ctx[ROOT_FOURS] == 0 and ctx[ROOT_THREES] == 0:
            # Nothing to try at the root: each further round would find nothing again
            # and store its failure one depth deeper, which comes to this one store.
            store_failed(table, key, max_depth)
            break
    return 0, 0, ctx[NODES]


@njit(cache=True, nogil=True)
def gomoku_solve(s, budget, max_depth, threes, salt, table, pv, sc):
    gomoku_scan(s, sc.ints[SCAN], sc.flags[WINS : WINS + 2], sc.ints[SCAN_COVER : SCAN_COVER + 2])
    return gomoku_solve_scanned(s, budget, max_depth, threes, salt, table, pv, sc)


# ---- Connect6 -------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def window_cells(w, start, d):
    """The (at most two) empty cells of a Connect6 window, -1 where none (as
    `window_empties` records them)."""
    width = w[WIDTH]
    r0 = start // width
    c0 = start % width
    e0 = -1
    e1 = -1
    for j in range(6):
        e = (r0 + DIR_R[d] * j) * width + c0 + DIR_C[d] * j
        if w[BOARD + e] == 0:
            if e0 < 0:
                e0 = e
            else:
                e1 = e
    return e0, e1


@njit(cache=True, nogil=True)
def _c6_win_now(w, atk, pos, pv, ctx):
    """Complete a window the attacker can fill with the stones left this turn (the
    first that `all_windows` lists)."""
    left = stones_left_in_turn(w[PLY])
    start, d = first_window(w, atk, 6 - left)
    if start < 0 or pos + 2 > pv.shape[0]:
        return 0
    e0, e1 = window_cells(w, start, d)
    pv[pos] = e0
    ctx[PV_LEN] = pos + 1
    if e1 >= 0:
        pv[pos + 1] = e1
        ctx[PV_LEN] = pos + 2
    return 1


@njit(cache=True, nogil=True)
def c6_attack(w, atk, depth, pos, ctx, table, pv, key, sc, root):
    """Attacker turn in Connect6 (`atk` to move, one or two stones left this turn).
    Row `depth` of the scratch's window and pair arrays is this node's."""
    if depth <= 0 or pos + 8 > pv.shape[0]:
        return _c6_win_now(w, atk, pos, pv, ctx)
    cells = w[HEIGHT] * w[WIDTH]
    left = stones_left_in_turn(w[PLY])
    # One pass over the windows: a window to fill now, the defender's threats (our stones
    # this turn must hit every one of them), our own windows of four (only possible
    # mid-turn), and the cells of the windows that reach four with this turn's stones.
    dkeys = sc.level[depth, D_KEYS]
    de0 = sc.level[depth, D_E0]
    de1 = sc.level[depth, D_E1]
    akeys = sc.level[depth, A_KEYS]
    ae0 = sc.level[depth, A_E0]
    ae1 = sc.level[depth, A_E1]
    mark = sc.flags[MARK2]
    mark[:cells] = False
    start, d, nd, na0 = connect6_windows(w, atk, left, dkeys, de0, de1, akeys, ae0, ae1, mark)
    if start >= 0:
        e0, e1 = window_cells(w, start, d)
        pv[pos] = e0
        ctx[PV_LEN] = pos + 1
        if e1 >= 0:
            pv[pos + 1] = e1
            ctx[PV_LEN] = pos + 2
        return 1
    if probe_failed(table, key, depth):
        return 0
    if root != 0:
        ctx[ROOT_SEEN] = 1
    dmark = sc.flags[MARK]
    dmark[:cells] = False
    hd = hitting_number(de0, de1, nd, dmark)
    if hd > left:
        store_failed(table, key, depth)
        return 0
    cand = sc.level[depth, CAND]
    nc = 0
    for c in range(cells):
        if mark[c] or dmark[c]:
            cand[nc] = c
            nc += 1
    pa = sc.level[depth, PAIR_A]
    pb = sc.level[depth, PAIR_B]
    tmark = sc.flags[SEEN]  # hitting_number's marks, not read here
    dval = 2 - atk
    aborted = False
    for i in range(nc):
        # Two stones left: the pairs (i, j > i); one left: a single pass with no c2.
        for j in range(i + 1 if left == 2 else nc, nc if left == 2 else nc + 1):
            c1 = cand[i]
            c2 = cand[j] if left == 2 else -1
            if nd > 0:
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
            na = na0
            for q in range(na0):  # re-read their empty cells: our stones may be in them
                window_key = akeys[q]
                start = window_key // 4
                d = window_key % 4
                window_empties(w, start, d, ae0, ae1, q)
            na = windows_through(w, c1, atk, 4, akeys, ae0, ae1, na)
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
                d1 = ae0[0]
                d2 = -1
                for q in range(1, na):
                    if ae0[q] != d1 and ae1[q] != d1:
                        d2 = ae0[q]
                        break
                apply_unchecked(w, d1)
                if d2 >= 0 and w[WINNER] == ONGOING:
                    apply_unchecked(w, d2)
                if w[WINNER] == ONGOING and pos + off + 4 <= pv.shape[0]:
                    r = _c6_win_now(w, atk, pos + off + 2, pv, ctx)
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
                    if w[WINNER] == ONGOING:
                        rr = c6_attack(
                            w,
                            atk,
                            depth - 1,
                            pos + off + 2,
                            ctx,
                            table,
                            pv,
                            ckey ^ ZOBRIST[dval, pa[q]] ^ ZOBRIST[dval, pb[q]],
                            sc,
                            np.int64(0),
                        )
                    else:
                        rr = 0
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
                aborted = True
                return -1
    if aborted:
        return -1
    store_failed(table, key, depth)
    return 0


@njit(cache=True, nogil=True)
def c6_solve(s, budget, max_depth, table, pv, sc):
    check_room(s, max_depth, sc)
    ctx = sc.ints[CTX]
    ctx[:CTX_SLOTS] = 0
    ctx[BUDGET] = budget
    if s[WINNER] != ONGOING:
        return 0, 0, 0
    w = sc.states[WORK]
    w[:] = s
    atk = np.int64(w[TO_MOVE])  # int64 throughout: see gomoku_solve_scanned
    key = board_key(w) ^ SALT_C6
    for depth in range(1, max_depth + 1):
        r = c6_attack(w, atk, np.int64(depth), np.int64(0), ctx, table, pv, key, sc, np.int64(1))
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


@njit(cache=True, nogil=True)
def vcf_into(s, budget, max_depth, table, pv, sc):
    """`vcf` in the caller's scratch (`pipeline.tactics.lines.scratch`), made for this game
    and at least `max_depth`."""
    if s[KIND] == CONNECT6:
        return c6_solve(s, budget, max_depth, table, pv, sc)
    return gomoku_solve(s, budget, max_depth, np.int64(0), SALT_VCF, table, pv, sc)


@njit(cache=True, nogil=True)
def vcf(s, budget, max_depth, table, pv):
    """Prove a forcing win for the player to move: Gomoku VCF, Connect6 double-threat
    search. Returns (result, pv_len, nodes); see the module notes."""
    return vcf_into(s, budget, max_depth, table, pv, scratch_for(s, max_depth))
