"""Victory by continuous fours (VCF) and threats (VCT) in Gomoku: the attack search.

The attacker plays fours; the defender's only answer to a single winning cell is to fill
it (his stone cannot shorten the attacker's runs, even under exact rules). Two winning
cells win. When the defender's block makes a four of his own, the attacker's next move
must fill that cell (and is kept only if it is a four again); two such cells end the
line. With `threes` the attacker also plays three-making moves (VCT, see `threats`):
after one, every defender reply that neither stops all the double fours it threatens
nor makes a four of his own loses at once, so the search tries exactly those replies
(an AND node) and the proof line follows one of them. Counter-threes of the defender
need no reply set of their own: while the attacker keeps threatening a double four, a
defender move that is not a four or a stop lets the attacker win at once.

Renju: black plays only moves that are not forbidden (a four or three on a forbidden
cell is not tried, and a counter-four of white whose block is forbidden to black ends
the line). A white four whose winning cell is forbidden to black wins like a double
four: black cannot block it (the proof shows any legal black move, then the five). The
defender's answer sets follow the rule too (`threats.defences_against`).

Cost: the search allocates nothing (every array is in the scratch); the root's
candidates are found once, not once per round of iterative deepening, and a root with
none ends the search after one round, storing in the table what the remaining rounds
would have stored; a node's four-making candidates come from per-cell window counts
handed down from its parent and updated for the two stones between them (`node_cover`),
not from a sweep of the board; the winning cells a stone makes are found with
`new_wins`, which the invariant below allows. Results, proofs, node counts and table
contents are those of the plain search (tests/unit/test_verdict_reference.py).

Invariant: at the attacker's turn it has no winning cell (it would have won), and the
defender's only winning cells are the `d_count` known ones; a defender's block cannot
give the attacker one, nor an attacker's stone the defender. So the winning cells after
a stone are the ones it made, which `new_wins` finds.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.gomoku import DIR_C, DIR_R
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import BOARD, HEIGHT, ONGOING, PLY, STONES, TO_MOVE, WIDTH, WIN_LENGTH, WINNER
from pipeline.tactics.lines.scratch import (
    BUDGET,
    CANDIDATES,
    CTX,
    CTX_SLOTS,
    CUT,
    DEFENDER_WINS,
    DOUBLE_FOUR_WIN0,
    DOUBLE_FOUR_WIN1,
    DOUBLE_FOURS,
    FOUR_WINDOWS,
    LOCAL_CELLS,
    NEW_WINS,
    NODES,
    PV_LEN,
    REPLIES,
    ROOT_FOURS,
    ROOT_THREES,
    SCAN,
    SCAN_FOUR_WINDOWS,
    SCAN_WINS,
    SEEN,
    SORT_KEYS,
    WINS,
    WORK,
    check_room,
)
from pipeline.tactics.lines.table import EXACT, ZOBRIST, board_key, known_failure, store_failed
from pipeline.tactics.lines.threats import (
    defences_against_into,
    double_fours_near_into,
    first_legal,
    gomoku_scan,
    illegal_for,
    last_stones,
    mark_window_cells,
    new_wins,
    restricted,
    window_on_board,
)


class GomokuNode(NamedTuple):
    """An attacker node of `gomoku_attack`: the attacker to move with no winning cell.
    Every field is an int64 (numba's cache mis-links a recursive function called with
    other types, numba issue #6713)."""

    depth: int  # attacker moves still allowed
    pos: int  # where this node's moves go in the proof line
    key: int  # the position's table key
    d_count: int  # the defender's winning cells
    d_cell: int  # the first of them (-1 when none)
    last: int  # the attacker's stone that led here (-1: none known)
    prev_b: int  # the defender's stone that led here (-1 at the root)
    root: int  # 1 at the root: its candidates are kept over the deepening rounds


@njit(cache=True, nogil=True)
def take_back(w, cell):
    """Undo `kernels.apply_unchecked` of a Gomoku move on the search's copy of the position
    (history fields are left stale; the search does not read them)."""
    w[BOARD + cell] = 0
    w[PLY] -= 1
    w[STONES] -= 1
    w[WINNER] = ONGOING
    w[TO_MOVE] = w[PLY] % 2


@njit(cache=True, nogil=True)
def sort_by_distance(cand, n, w, centre, dist):
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
                if not window_on_board(h, width, r0, c0, dr, dc, k):
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
    """Fill this node's FOUR_WINDOWS row: the root's from the scan of its board, an inner
    node's from its parent's (row depth + 1) and the two stones since (`c` the attacker's,
    `b` the defender's), which stand on `w`."""
    cells = w[HEIGHT] * w[WIDTH]
    row = sc.level[depth, FOUR_WINDOWS]
    if root != 0:
        row[:cells] = sc.ints[SCAN_FOUR_WINDOWS + atk, :cells]
        return
    row[:cells] = sc.level[depth + 1, FOUR_WINDOWS, :cells]
    cover_update(w, row, c, b, atk + 1, 2 - atk)


@njit(cache=True, nogil=True)
def root_candidates(w, sc, atk, threes, node, cand):
    """The node's candidates into `cand`: the block of the defender's four, else the
    four-making cells nearest the last stone first, then (VCT) the three-making ones.
    Returns (fours, threes, whether the node's FOUR_WINDOWS row was made), or (-1, 0,
    False) when the defender's four cannot be blocked."""
    cells = w[HEIGHT] * w[WIDTH]
    k = w[WIN_LENGTH]
    if node.d_count == 1:
        if restricted(w, atk) and illegal_for(w, atk, node.d_cell):
            return -1, 0, False  # the defender's four cannot be blocked
        cand[0] = node.d_cell
        return 1, 0, False
    node_cover(w, sc, node.depth, atk, node.last, node.prev_b, node.root)
    cover = sc.level[node.depth, FOUR_WINDOWS]
    n4 = 0
    for c in range(cells):
        if cover[c] > 0 and w[BOARD + c] == 0:
            cand[n4] = c
            n4 += 1
    sort_by_distance(cand, n4, w, node.last, sc.ints[SORT_KEYS])
    n3 = 0
    if threes != 0 and k >= 4:
        mark3 = sc.flags[LOCAL_CELLS]
        mark3[:cells] = False
        mark_window_cells(w, atk + 1, max(k - 3, 1), k - 3, k, mark3)
        for c in range(cells):
            if mark3[c] and cover[c] == 0:
                cand[n4 + n3] = c
                n3 += 1
        sort_by_distance(cand[n4 : n4 + n3], n3, w, node.last, sc.ints[SORT_KEYS])
    return n4, n3, True


@njit(cache=True, nogil=True)
def win_at_once(w, atk, cand, n4, wins, pos, pv, ctx):
    """A double four among the four candidates cand[:n4] (or, renju, a white four whose
    winning cell black may not fill): write its line (the four, a block, the five) at
    pv[pos] and return 1, else 0."""
    aval = atk + 1
    black_atk = restricted(w, atk)
    black_def = restricted(w, 1 - atk)
    for i in range(n4):
        c = cand[i]
        if black_atk and illegal_for(w, atk, c):
            continue
        w[BOARD + c] = aval
        nw = new_wins(w, c, aval, wins, 0)
        w[BOARD + c] = 0
        if nw >= 2:
            apply_unchecked(w, c)
            apply_unchecked(w, wins[0])
            take_back(w, wins[0])
            take_back(w, c)
            pv[pos] = c
            pv[pos + 1] = wins[0]
            pv[pos + 2] = wins[1]
            ctx[PV_LEN] = pos + 3
            return 1
        if nw == 1 and black_def:
            # Renju: a white four whose winning cell black may not fill wins as well.
            apply_unchecked(w, c)
            won = False
            if w[WINNER] == ONGOING and illegal_for(w, 1 - atk, wins[0]):
                x = first_legal(w, 1 - atk)
                if x >= 0:
                    won = True
                    pv[pos] = c
                    pv[pos + 1] = x
                    pv[pos + 2] = wins[0]
                    ctx[PV_LEN] = pos + 3
            take_back(w, c)
            if won:
                return 1
    return 0


@njit(cache=True, nogil=True)
def three_replies(w, sc, atk, depth, c, wins, replies):
    """The defender's replies to the attacker's three at `c` (on `w`): every cell that
    stops all the double fours it threatens, plus each counter-four (each must lose for
    the defender); when nothing stops them all, one block to show (renju: any move black
    may play, when that block is forbidden to it). Returns how many, 0 when the stone
    threatens no double four or the defender cannot move."""
    f_cells = sc.level[depth, DOUBLE_FOURS]
    f_w0 = sc.level[depth, DOUBLE_FOUR_WIN0]
    f_w1 = sc.level[depth, DOUBLE_FOUR_WIN1]
    nf = double_fours_near_into(w, c, atk + 1, f_cells, f_w0, f_w1, wins)
    if nf == 0:
        return 0
    nrep = defences_against_into(
        w, nf, f_cells, f_w0, f_w1, 1 - atk, replies, sc.flags[SEEN], sc.flags[LOCAL_CELLS], wins
    )
    if nrep > 0:
        return nrep
    replies[0] = f_cells[0] if not illegal_for(w, 1 - atk, f_cells[0]) else first_legal(w, 1 - atk)
    return 1 if replies[0] >= 0 else 0


@njit(cache=True, nogil=True)
def gomoku_attack(sc, table, pv, atk, threes, node):
    """Attacker node (`GomokuNode`): `atk` to move on the scratch's WORK state with no
    winning cell. Returns 1 win (pv[node.pos:ctx[PV_LEN]] the line), 0 no win within
    `node.depth` attacker moves, -1 budget spent. The root (`node.root` 1) takes its
    candidates from the scan of its board once and keeps them in `level[0]` for the later
    rounds.

    A failure is stored as EXACT when no node under it was cut by the depth limit
    (`ctx[CUT]` unchanged): the line of fours ran out, so no deeper round can do better,
    and iterative deepening stops (`gomoku_solve_scanned`) instead of searching the same
    tree again once per depth."""
    w = sc.states[WORK]
    ctx = sc.ints[CTX]
    depth = node.depth
    pos = node.pos
    root = node.root
    if node.d_count >= 2:
        return 0  # the defender wins first, at any depth
    if depth <= 0 or pos + 3 > pv.shape[0]:
        ctx[CUT] += 1
        return 0
    if known_failure(table, node.key, depth, ctx):
        return 0
    cut_before = ctx[CUT]
    aval = atk + 1
    dval = 2 - atk
    wins = sc.level[depth, NEW_WINS]
    dwins = sc.ints[DEFENDER_WINS]
    replies = sc.level[depth, REPLIES]
    black_atk = restricted(w, atk)  # renju: the attacker's moves must not be forbidden
    black_def = restricted(w, 1 - atk)  # renju: nor the defender's
    covered = False  # this node's FOUR_WINDOWS row, made when first needed
    cand = sc.level[0, CANDIDATES] if root != 0 else sc.level[depth, CANDIDATES]
    if root != 0 and ctx[ROOT_FOURS] >= 0:
        # A later round: the same candidates, and the first pass found no double four.
        n4 = ctx[ROOT_FOURS]
        n3 = ctx[ROOT_THREES]
    else:
        n4, n3, covered = root_candidates(w, sc, atk, threes, node, cand)
        if n4 < 0:
            return 0
        # First pass: a double four wins on the spot, so look for one before going deep.
        if win_at_once(w, atk, cand, n4, wins, pos, pv, ctx) == 1:
            return 1
        if root != 0:
            ctx[ROOT_FOURS] = n4
            ctx[ROOT_THREES] = n3
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
        nw = new_wins(w, c, aval, wins, 0)
        if nw == 1:
            # A four: the defender's one reply is its block.
            if black_def and illegal_for(w, 1 - atk, wins[0]):
                take_back(w, c)  # black could not move at all (shown above otherwise)
                continue
            replies[0] = wins[0]
            nrep = 1
        elif nw >= 2 or threes == 0 or depth < 2:
            if nw == 0 and threes != 0:
                ctx[CUT] += 1  # a three the depth left no room for
            take_back(w, c)
            continue
        else:
            nrep = three_replies(w, sc, atk, depth, c, wins, replies)
            if nrep == 0:
                take_back(w, c)
                continue
        if not covered:  # the children build their rows on this node's
            w[BOARD + c] = 0
            node_cover(w, sc, depth, atk, node.last, node.prev_b, root)
            w[BOARD + c] = aval
            covered = True
        # Every reply must lose for the defender; the proof line follows the last one.
        ckey = node.key ^ ZOBRIST[aval, c]
        r = 1
        for j in range(nrep):
            m = replies[j]
            apply_unchecked(w, m)
            r = 0
            if w[WINNER] == ONGOING:
                nd = new_wins(w, m, dval, dwins, 0)
                child = GomokuNode(depth - 1, pos + 2, ckey ^ ZOBRIST[dval, m], nd, dwins[0], c, m, np.int64(0))
                r = gomoku_attack(sc, table, pv, atk, threes, child)
            take_back(w, m)
            if r != 1:
                break
            pv[pos + 1] = m
        take_back(w, c)
        if r == 1:
            pv[pos] = c
            return 1
        if r < 0:
            return -1
    store_failed(table, node.key, EXACT if ctx[CUT] == cut_before else depth)
    return 0


@njit(cache=True, nogil=True)
def gomoku_solve_scanned(s, budget, max_depth, threes, salt, table, pv, sc):
    """Iterative deepening over `gomoku_attack`: shortest proofs first, and the table
    carries each round's failures into the next. The scratch's `SCAN`, `WINS` and
    `SCAN_FOUR_WINDOWS` rows must hold `gomoku_scan` of this board (for either player to
    move). Returns (result, pv_len, nodes) as `vcf.vcf`."""
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
    # Every field of a node is int64 at the root too: numba's cache mis-links a recursive
    # function called with other types (numba issue #6713).
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
            d_cell = np.int64(c)
            break
    last, _ = last_stones(w, atk)  # the attacker's most recent stone: its next threats are near
    key = np.int64(board_key(w) ^ salt)
    r = 0
    for depth in range(1, max_depth + 1):
        cut_before = ctx[CUT]
        root = GomokuNode(np.int64(depth), np.int64(0), key, d_count, d_cell, last, np.int64(-1), np.int64(1))
        r = gomoku_attack(sc, table, pv, atk, np.int64(threes), root)
        if r != 0 or ctx[CUT] == cut_before:
            break  # a win, the budget spent, or a failure that held at every depth (stored EXACT)
        if ctx[ROOT_FOURS] == 0 and ctx[ROOT_THREES] == 0:
            # Nothing to try at the root: each further round would find nothing again
            # and store its failure one depth deeper, which comes to this one store.
            store_failed(table, key, max_depth)
            break
    if r == 1:
        return 1, ctx[PV_LEN], ctx[NODES]
    return 0, 0, ctx[NODES]


@njit(cache=True, nogil=True)
def gomoku_solve(s, budget, max_depth, threes, salt, table, pv, sc):
    """`gomoku_solve_scanned` after the scan of `s` (`threats.gomoku_scan`)."""
    gomoku_scan(s, sc.ints[SCAN], sc.flags[WINS : WINS + 2], sc.ints[SCAN_FOUR_WINDOWS : SCAN_FOUR_WINDOWS + 2])
    return gomoku_solve_scanned(s, budget, max_depth, threes, salt, table, pv, sc)
