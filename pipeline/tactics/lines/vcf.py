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

Connect6 (threat-space search after Wu & Huang, `c6_solve`): threats are counted per
window of six: a window holding four or more of the attacker's stones and none of the
defender's is a threat, and the threats a position holds are the fewest defender stones
that hit every such window (two: a double threat; three or more: the defender cannot stop
them). The attacker's turn must hit all the defender's threat windows and leave at least
two threats of its own; three or more win; with exactly two, every pair of defender stones
that hits all of them (the minimal hitting sets of the windows' empty cells, at most four
pairs) is searched (an AND node). Single threats are not played: they leave the defender a
free stone, which this search does not model. A defender stone that makes a threat of its
own is answered soundly: the attacker's next turn must hit it, and a defender who holds
more threats than the attacker has stones wins first (the line fails).

The attacker's turns come from line tables, never from all pairs of cells: the board's
windows are numbered once per board size, each window's stones are counted as stones come
and go, and a node lists its live windows (two or three of the attacker's stones, none of
the defender's) and their empty cells, the candidates. A pair of candidates is judged only
when it can make the threats asked for: its cells share a live window (two stones in one
window), or the threats each makes alone (a window of three it completes to four) add up
to them; the pair's threats are read from the live windows through its two cells. On the
last turn the depth allows (three threats asked for) a pair must also touch a live window
through the attacker's previous turn: a triple threat that did not would have stood one
turn earlier, when the search would have played it (`c6_generate`). The double threats are
tried best first: windows of three made that no defender reply can touch, fewer defender
replies, near the previous turn, cells of wins found elsewhere in this search; the turn
that won last at a depth first (after another defender reply it often wins again).

The defender's replies are searched the likeliest refutation first (the pair that takes
the most from the attacker's live windows), so a failing turn usually fails at its first
reply. The transposition table holds fully searched failures (as `table`) and proven wins
with their turn (under the key ^ SALT_WON): a win found again is not searched again, except
on the proof line, where its turn is tried first to write the line; a turn one of whose
replies leads to a known failure is refuted before it is played. A node is an attacker
turn played (the turns the table refutes are not); iterative deepening over the turns
allowed, a depth of d proving wins of up to d + 1 turns (the last the six).
`c6_solve_pairs` is the search this replaced (every pair of candidate cells a node), kept
as the reference the tests and the benchmark compare with.

The opponent's side (`opponent_vcf_into`): for a position where the player to move
defends, the VCF the other side would have if it could move now, and the cells of its
whole proof tree, where every refutation of it that is not a counter-threat must land.

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
between them (`node_cover`), not from a sweep of the board; the winning cells a stone
makes are found with `new_wins`, which the invariant below allows. Gomoku's results,
proofs, node counts and table contents are those of the plain search
(tests/unit/test_verdict_reference.py). A Connect6 node reads no board sweep either: its
candidates come from the live list the window counts keep (`c6_put`), a turn's threats
from the windows through its two cells.

Invariant: at the attacker's turn it has no winning cell (it would have won), and the
defender's only winning cells are the `d_count` known ones; a defender's block cannot
give the attacker one, nor an attacker's stone the defender. So the winning cells after
a stone are the ones it made, which `new_wins` finds.

Soundness: every line ends in a position the rules score as the attacker's win, and at
every defender turn either the defence is unique or all defences are searched. The
transposition table holds fully searched failures (see `table`) and, for Connect6, wins
proven here; a key collision could at worst take one position for another.
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
    C6_CAND,
    C6_COUNT,
    C6_CSTAMP,
    C6_CSTAMP_AT,
    C6_CWN,
    C6_D0,
    C6_D1,
    C6_DIMS,
    C6_E0,
    C6_E1,
    C6_EMPTY,
    C6_FREE,
    C6_H,
    C6_HIST,
    C6_HIT,
    C6_HN1,
    C6_IN_CAND,
    C6_LA,
    C6_LA2,
    C6_LIVE,
    C6_LIVE_AT,
    C6_LSTAMP,
    C6_LSTAMP_AT,
    C6_N3,
    C6_NCLW,
    C6_NLIVE,
    C6_NW,
    C6_PA,
    C6_POT,
    C6_QA,
    C6_QB,
    C6_R0,
    C6_W,
    C6_WSTAMP,
    C6_WSTAMP_AT,
    C6_ZONE,
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
    PASSED,
    REPLIES,
    SCAN,
    SCAN_COVER,
    SCAN_WINS,
    SEEN,
    TURN_CAP,
    WINS,
    WORK,
    check_room,
    scratch_for,
)
from pipeline.tactics.lines.table import (
    EXACT,
    SALT_C6,
    SALT_VCF,
    ZOBRIST,
    board_key,
    failed_depth,
    probe_failed,
    store_failed,
)
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
    null_move,
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
# Nodes whose failure came from the depth limit (cut there, or a table entry of a shallower
# search), in both deepening searches; the pair search, which keeps ROOT_SEEN here, never counts them.
CUT = 5


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
def known_failure(table, key, depth, ctx):
    """`probe_failed` for the deepening searches: a failure the table holds from a shallower
    limit than every depth (not EXACT) counts as a cut in ctx[CUT]."""
    known = failed_depth(table, key)
    if known < depth:
        return False
    if known < EXACT:
        ctx[CUT] += 1
    return True


@njit(cache=True, nogil=True)
def gomoku_attack(w, atk, depth, threes, pos, ctx, table, pv, key, d_count, d_cell, last, prev_b, sc, root):
    """Attacker node: `atk` to move with no winning cell; the defender has `d_count`
    winning cells (d_cell the first). Returns 1 win (pv[pos:ctx[PV_LEN]] the line),
    0 no win within `depth` attacker moves, -1 budget spent. `last` and `prev_b` are the
    attacker's and the defender's stones that led here. `sc` is the scratch; the root
    (`root` 1) takes its candidates from the scan of its board once and keeps them in
    `level[0]` for the later rounds.

    A failure is stored as EXACT when no node under it was cut by the depth limit
    (`ctx[CUT]` unchanged): the line of fours ran out, so no deeper round can do better,
    and iterative deepening stops (`gomoku_solve_scanned`) instead of searching the same
    tree again once per depth."""
    if d_count >= 2:
        return 0  # the defender wins first, at any depth
    if depth <= 0 or pos + 3 > pv.shape[0]:
        ctx[CUT] += 1
        return 0
    if known_failure(table, key, depth, ctx):
        return 0
    cut_before = ctx[CUT]
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
            if nw == 0 and threes != 0:
                ctx[CUT] += 1  # a three the depth left no room for
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
    store_failed(table, key, EXACT if ctx[CUT] == cut_before else depth)
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
        cut_before = ctx[CUT]
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
        if ctx[CUT] == cut_before:
            break  # the failure held at every depth (stored EXACT): a deeper round finds the same
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


# ---- Connect6: the search over every pair (the reference) ----------------------------


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
def c6_attack_pairs(w, atk, depth, pos, ctx, table, pv, key, sc, root):
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
                        rr = c6_attack_pairs(
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
def c6_solve_pairs(s, budget, max_depth, table, pv, sc):
    """The Connect6 search before line tables (the reference: every pair of candidate
    cells tried as the attacker's turn, counted as a node); same contract as `c6_solve`."""
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
        r = c6_attack_pairs(w, atk, np.int64(depth), np.int64(0), ctx, table, pv, key, sc, np.int64(1))
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


# ---- Connect6 threat-space search over line tables ------------------------------------
#
# The board's six-windows are numbered once per board size (`c6_tables`: the cells of each
# window, the windows through each cell), and the search keeps each window's stones per
# player as stones come and go (`c6_put`), with the list of the attacker's live windows
# (two or more of its stones, none of the defender's). An attacker node reads its
# candidates from the live windows, so a turn is judged by the windows through its two
# stones (`_c6_pair_threats`, `c6_threats`), never by a sweep of the board.

C6_SALTS = np.array(  # the attacker (row) and the stones it has left at the root (column)
    [[0x0B5A3C9D2E7F4061, 0x1C6B4DAE3F807152], [0x2D7C5EBF40918263, 0x3E8D6FC051A29374]], dtype=np.int64
)
SALT_WON = np.int64(0x4F9E70D162B3A485)  # table entries of proven wins
ROOT_TURNS = 6  # ctx: the double-threat turns the root found (-1 before)
OVERFLOW = 7  # ctx: a node had more turns than its row holds (no failure is stored)
SCORE_SHIFT = 20  # a listed turn: score << 20 | c1 << 10 | (c2 + 1)
TURN_MASK = (1 << SCORE_SHIFT) - 1
# Ordering weights (`_c6_score`), measured on tests/tactics/connect6_vcf.txt.
W_SAFE = 16  # a window of three made that no defender reply can touch
W_POT = 4  # one the replies may touch
W_REPLY = 8  # each defender reply (pair) to search
W_NEAR = 4  # each step nearer the attacker's last turn (from 8)
W_HIST = 16  # each depth of a win this search found with a stone on the turn's cells


@njit(cache=True, nogil=True)
def c6_tables(sc, height, width):
    """Number the six-windows of an height x width board (rows, columns, diagonals,
    anti-diagonals): `sc.wcells[i]` the cells of window i, `sc.cwins[c, :n]` the n windows
    through cell c (n in row C6_CWN). Made once per scratch and board size."""
    dims = sc.c6[C6_DIMS]
    if dims[C6_H] == height and dims[C6_W] == width:
        return
    cwn = sc.c6[C6_CWN]
    cwn[: height * width] = 0
    n = 0
    for d in range(4):
        dr = DIR_R[d]
        dc = DIR_C[d]
        for r0 in range(height):
            if r0 + 5 * dr >= height:
                continue
            for c0 in range(width):
                if c0 + 5 * dc < 0 or c0 + 5 * dc >= width:
                    continue
                for i in range(6):
                    cell = (r0 + i * dr) * width + c0 + i * dc
                    sc.wcells[n, i] = cell
                    sc.cwins[cell, cwn[cell]] = n
                    cwn[cell] += 1
                n += 1
    dims[C6_H] = height
    dims[C6_W] = width
    dims[C6_NW] = n


@njit(cache=True, nogil=True)
def c6_setup(w, atk, sc):
    """The search's window counts and live list for the board of `w`, `atk` attacking."""
    c6 = sc.c6
    dims = c6[C6_DIMS]
    nw = dims[C6_NW]
    cells = w[HEIGHT] * w[WIDTH]
    c6[C6_COUNT, :nw] = 0
    c6[C6_COUNT + 1, :nw] = 0
    c6[C6_IN_CAND, :cells] = -1
    empty = 0
    for c in range(cells):
        v = w[BOARD + c]
        if v == 0:
            empty += 1
            continue
        row = c6[C6_COUNT + v - 1]
        for k in range(c6[C6_CWN, c]):
            row[sc.cwins[c, k]] += 1
    own = c6[C6_COUNT + atk]
    other = c6[C6_COUNT + 1 - atk]
    live = c6[C6_LIVE]
    at = c6[C6_LIVE_AT]
    n = 0
    for wi in range(nw):
        if own[wi] >= 2 and other[wi] == 0:
            live[n] = wi
            at[wi] = n
            n += 1
        else:
            at[wi] = -1
    dims[C6_NLIVE] = n
    dims[C6_EMPTY] = empty


@njit(cache=True, nogil=True)
def c6_put(w, sc, atk, cell, v, delta):
    """Put (delta 1) or take back (delta -1) a stone of value v on `cell`, keeping the
    window counts and the attacker's live list."""
    w[BOARD + cell] = v if delta > 0 else 0
    c6 = sc.c6
    row = c6[C6_COUNT + v - 1]
    own = c6[C6_COUNT + atk]
    other = c6[C6_COUNT + 1 - atk]
    live = c6[C6_LIVE]
    at = c6[C6_LIVE_AT]
    dims = c6[C6_DIMS]
    for k in range(c6[C6_CWN, cell]):
        wi = sc.cwins[cell, k]
        row[wi] += delta
        now = own[wi] >= 2 and other[wi] == 0
        i = at[wi]
        if now and i < 0:
            n = dims[C6_NLIVE]
            live[n] = wi
            at[wi] = n
            dims[C6_NLIVE] = n + 1
        elif not now and i >= 0:
            n = dims[C6_NLIVE] - 1
            last = live[n]
            live[i] = last
            at[last] = i
            at[wi] = -1
            dims[C6_NLIVE] = n
    dims[C6_EMPTY] -= delta


@njit(cache=True, nogil=True)
def c6_empties(w, sc, wi, c1, c2):
    """The empty cells of window wi other than c1 and c2 (-1 where none)."""
    e0 = -1
    e1 = -1
    for i in range(6):
        e = sc.wcells[wi, i]
        if e != c1 and e != c2 and w[BOARD + e] == 0:
            if e0 < 0:
                e0 = e
            else:
                e1 = e
    return e0, e1


@njit(cache=True, nogil=True)
def c6_threats(w, sc, atk, c1, c2, nr):
    """The attacker's threat windows after its stones on the empty cells c1 and c2 (c2 -1
    for one stone): the windows through them that would hold four or more of its stones
    and none of the defender's, plus the root's windows of four or five (C6_R0[:nr]).
    Their empty cells after the stones go to rows C6_E0/C6_E1. Returns (threat windows,
    windows of three made: the turn's threats for the next turn)."""
    c6 = sc.c6
    own = c6[C6_COUNT + atk]
    other = c6[C6_COUNT + 1 - atk]
    stamps = c6[C6_WSTAMP]
    e0 = c6[C6_E0]
    e1 = c6[C6_E1]
    stamp = c6[C6_DIMS, C6_WSTAMP_AT] + 1
    c6[C6_DIMS, C6_WSTAMP_AT] = stamp
    n = 0
    pot = 0
    for which in range(3):
        x = c1 if which == 0 else c2
        if which < 2 and x < 0:
            continue
        count = c6[C6_CWN, x] if which < 2 else nr
        for k in range(count):
            wi = sc.cwins[x, k] if which < 2 else c6[C6_R0, k]
            if stamps[wi] == stamp:
                continue
            stamps[wi] = stamp
            if other[wi] != 0 or own[wi] < 2:
                continue  # (one stone and both of the turn's make three: not counted)
            add = 0
            a0 = -1
            a1 = -1
            for i in range(6):
                e = sc.wcells[wi, i]
                if e in (c1, c2):
                    add += 1
                elif w[BOARD + e] == 0:
                    if a0 < 0:
                        a0 = e
                    else:
                        a1 = e
            if own[wi] + add >= 4:
                e0[n] = a0
                e1[n] = a1
                n += 1
            elif own[wi] + add == 3 and add > 0:
                c6[C6_POT, pot] = wi
                pot += 1
    return n, pot


@njit(cache=True, nogil=True)
def c6_hits_all(x, y, e0, e1, n):
    """Do the cells x and y (y -1 for none) hit every window (e0/e1 its empty cells)?"""
    for i in range(n):  # noqa: SIM110 (numba: no all() over a generator)
        if not (x == e0[i] or x == e1[i] or (y >= 0 and (y == e0[i] or y == e1[i]))):
            return False
    return True


@njit(cache=True, nogil=True)
def c6_defender_threats(w, sc, atk, d1, d2):
    """The defender's threat windows (four or more of its stones, none of the attacker's)
    into rows C6_D0/C6_D1: through its stones d1 and d2 when given (the only ones that
    can be new at an inner node), else over the whole board. Returns how many."""
    c6 = sc.c6
    own = c6[C6_COUNT + 1 - atk]
    other = c6[C6_COUNT + atk]
    e0 = c6[C6_D0]
    e1 = c6[C6_D1]
    n = 0
    if d1 < 0:
        for wi in range(c6[C6_DIMS, C6_NW]):
            if own[wi] >= 4 and other[wi] == 0:
                e0[n], e1[n] = c6_empties(w, sc, wi, -1, -1)
                n += 1
        return n
    stamps = c6[C6_WSTAMP]
    stamp = c6[C6_DIMS, C6_WSTAMP_AT] + 1
    c6[C6_DIMS, C6_WSTAMP_AT] = stamp
    for which in range(2):
        x = d1 if which == 0 else d2
        if x < 0:
            continue
        for k in range(c6[C6_CWN, x]):
            wi = sc.cwins[x, k]
            if stamps[wi] == stamp:
                continue
            stamps[wi] = stamp
            if own[wi] >= 4 and other[wi] == 0:
                e0[n], e1[n] = c6_empties(w, sc, wi, -1, -1)
                n += 1
    return n


@njit(cache=True, nogil=True)
def _c6_distance(w, c, a, b):
    """Chebyshev distance from c to the nearer of a and b (8 when neither is given)."""
    width = w[WIDTH]
    best = 8
    for x in (a, b):
        if x >= 0:
            best = min(best, max(abs(c // width - x // width), abs(c % width - x % width)))
    return best


@njit(cache=True, nogil=True)
def _c6_sort_desc(a, n):
    """Shell sort of a[:n], largest first (in place: nothing allocated)."""
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap > 0:
        for i in range(gap, n):
            x = a[i]
            j = i
            while j >= gap and a[j - gap] < x:
                a[j] = a[j - gap]
                j -= gap
            a[j] = x
        gap //= 3


@njit(cache=True, nogil=True)
def _c6_score(w, sc, c1, c2, n, pot, last0, last1):
    """The ordering score of a double-threat turn c1, c2 whose n threat windows' empty
    cells are in rows C6_E0/C6_E1 and which makes `pot` windows of three (their empty
    cells in `sc.lwin` rows listed in C6_POT): windows of three that no defender reply
    can touch (none of their empty cells is a threat's) first, then fewer replies, then
    near the attacker's last turn."""
    c6 = sc.c6
    e0 = c6[C6_E0]
    e1 = c6[C6_E1]
    npairs = hitting_pairs(e0, e1, n, c6[C6_QA], c6[C6_QB])
    dist = _c6_distance(w, c1, last0, last1)
    if c2 >= 0:
        dist = min(dist, _c6_distance(w, c2, last0, last1))
    mark = sc.flags[MARK]
    for i in range(n):
        mark[e0[i]] = True
        if e1[i] >= 0:
            mark[e1[i]] = True
    safe = 0
    for i in range(pot):
        k = c6[C6_POT, i]
        ok = True
        for j in range(2, 6):
            e = sc.lwin[k, j]
            if e >= 0 and e != c1 and e != c2 and mark[e]:
                ok = False
                break
        if ok:
            safe += 1
    for i in range(n):
        mark[e0[i]] = False
        if e1[i] >= 0:
            mark[e1[i]] = False
    hist = c6[C6_HIST, c1] + (c6[C6_HIST, c2] if c2 >= 0 else 0)
    score = 64 + W_SAFE * min(safe, 30) + W_POT * min(pot - safe, 30) - W_REPLY * npairs + W_NEAR * (8 - dist)
    return max(score + min(W_HIST * hist, 4000), 1)


@njit(cache=True, nogil=True)
def _c6_free_turns(w, sc, i, c1, free, nfree, turns, nt, last0, last1):
    """List the turns of candidate i (cell c1, whose stone alone makes exactly two threats)
    with each of the candidates free[:nfree], which add no threat (no live window with c1,
    none of three): the threats are c1's, so the turns are double threats and their scores
    are `_c6_score`'s, computed from c1's part once. Returns the new count of turns."""
    c6 = sc.c6
    n1, pot1 = _c6_pair_threats(sc, i, -1, c1, -1)
    e0 = c6[C6_E0]
    e1 = c6[C6_E1]
    npairs = hitting_pairs(e0, e1, n1, c6[C6_QA], c6[C6_QB])
    mark = sc.flags[MARK2]
    for q in range(n1):
        mark[e0[q]] = True
        if e1[q] >= 0:
            mark[e1[q]] = True
    safe1 = 0
    for q in range(pot1):
        k = c6[C6_POT, q]
        ok = True
        for t in range(2, 6):
            e = sc.lwin[k, t]
            if e >= 0 and e != c1 and mark[e]:
                ok = False
                break
        if ok:
            safe1 += 1
    dist1 = _c6_distance(w, c1, last0, last1)
    base = 64 - W_REPLY * npairs
    for q in range(nfree):
        j = free[q]
        x = c6[C6_CAND, j]
        pot = pot1 + c6[C6_NCLW, j]  # its windows (all of two) become windows of three
        safe = safe1
        for u in range(c6[C6_NCLW, j]):
            k = sc.clw[j, u]
            ok = True
            for t in range(2, 6):
                e = sc.lwin[k, t]
                if e >= 0 and e != x and mark[e]:
                    ok = False
                    break
            if ok:
                safe += 1
        dist = min(dist1, _c6_distance(w, x, last0, last1))
        score = base + W_SAFE * min(safe, 30) + W_POT * min(pot - safe, 30) + W_NEAR * (8 - dist)
        score = max(score + min(W_HIST * (c6[C6_HIST, c1] + c6[C6_HIST, x]), 4000), 1)
        if nt < TURN_CAP - 1:
            turns[nt] = (score << SCORE_SHIFT) | (c1 << 10) | (x + 1)
            nt += 1
        else:
            sc.ints[CTX, OVERFLOW] = 1
    for q in range(n1):
        mark[e0[q]] = False
        if e1[q] >= 0:
            mark[e1[q]] = False
    return nt


@njit(cache=True, nogil=True)
def _c6_add_threat(sc, k, c1, c2, n):
    """Append the empty cells of live window k other than c1 and c2 as threat n."""
    a0 = -1
    a1 = -1
    for j in range(2, 6):
        e = sc.lwin[k, j]
        if e >= 0 and e != c1 and e != c2:
            if a0 < 0:
                a0 = e
            else:
                a1 = e
    sc.c6[C6_E0, n] = a0
    sc.c6[C6_E1, n] = a1


@njit(cache=True, nogil=True)
def _c6_pair_threats(sc, i, j, c1, c2):
    """The threat windows of the turn on candidates i and j (cells c1, c2; j -1 for c1
    alone), read from their live windows (`sc.clw`): a window holding both gains two
    stones, one holding one gains one. Threats go to rows C6_E0/C6_E1, the windows of
    three made to C6_POT. Returns (threats, windows of three)."""
    c6 = sc.c6
    lwin = sc.lwin
    clw = sc.clw
    ncl = c6[C6_NCLW]
    ls = c6[C6_LSTAMP]
    st = c6[C6_DIMS, C6_LSTAMP_AT] + 2
    c6[C6_DIMS, C6_LSTAMP_AT] = st
    if j >= 0:
        for q in range(ncl[j]):
            ls[clw[j, q]] = st
    n = 0
    pot = 0
    for q in range(ncl[i]):
        k = clw[i, q]
        add = 2 if ls[k] == st else 1
        ls[k] = st + 1
        total = lwin[k, 1] + add
        if total >= 4:
            _c6_add_threat(sc, k, c1, c2, n)
            n += 1
        elif total == 3:
            c6[C6_POT, pot] = k
            pot += 1
    if j >= 0:
        for q in range(ncl[j]):
            k = clw[j, q]
            if ls[k] != st:
                continue  # shared with c1: counted
            total = lwin[k, 1] + 1
            if total >= 4:
                _c6_add_threat(sc, k, c1, c2, n)
                n += 1
            elif total == 3:
                c6[C6_POT, pot] = k
                pot += 1
    return n, pot


@njit(cache=True, nogil=True)
def c6_generate(w, sc, atk, depth, left, nr, hd, nd, last0, last1, need, zone):
    """The attacker's turns at a node: every pair of candidate cells (one cell with one
    stone left) that hits all the defender's threat windows (rows C6_D0/C6_D1, nd of
    them, hitting number hd) and leaves two threats or more. Candidates are the empty
    cells of the attacker's live windows and of the defender's threat windows; a pair
    is judged only if it can make the threats asked for (`need`: 3 on the last turn the
    depth allows, else 2): its cells share a live window, or their threats alone add up
    to it (the threats of a pair that shares none are those of its stones alone).
    Returns (n, c1, c2): c1 >= 0 is a turn leaving three threats or more (the defender
    cannot stop them all: a win), else the n double-threat turns in `sc.turns[depth]`,
    best first."""
    c6 = sc.c6
    dims = c6[C6_DIMS]
    own = c6[C6_COUNT + atk]
    in_cand = c6[C6_IN_CAND]
    cand = c6[C6_CAND]
    n3 = c6[C6_N3]
    hn1 = c6[C6_HN1]
    ncl = c6[C6_NCLW]
    cst = c6[C6_CSTAMP]
    zone_row = c6[C6_ZONE]
    live = c6[C6_LIVE]
    de0 = c6[C6_D0]
    de1 = c6[C6_D1]
    e0 = c6[C6_E0]
    e1 = c6[C6_E1]
    seen = sc.flags[SEEN]
    turns = sc.turns[depth]
    # Candidates: the empty cells of the live windows (each with its live windows, and
    # each live window with its stones and empty cells in `sc.lwin`), and of the
    # defender's threats.
    nc = 0
    for k in range(dims[C6_NLIVE]):
        wi = live[k]
        sc.lwin[k, 0] = wi
        sc.lwin[k, 1] = own[wi]
        ne = 2
        for j in range(6):
            e = sc.wcells[wi, j]
            if w[BOARD + e] != 0:
                continue
            sc.lwin[k, ne] = e
            ne += 1
            x = in_cand[e]
            if x < 0:
                x = nc
                in_cand[e] = nc
                cand[nc] = e
                n3[nc] = 0
                ncl[nc] = 0
                nc += 1
            sc.clw[x, ncl[x]] = k
            ncl[x] += 1
            if own[wi] >= 3:
                n3[x] += 1
        for j in range(ne, 6):
            sc.lwin[k, j] = -1
    for i in range(nd):
        for e in (de0[i], de1[i]):
            if e >= 0 and in_cand[e] < 0:
                in_cand[e] = nc
                cand[nc] = e
                n3[nc] = 0
                ncl[nc] = 0
                nc += 1
    # The threats of each candidate's stone alone, and whether it blocks the defender's.
    hits = c6[C6_HIT]
    for i in range(nc):
        hits[i] = 1 if nd > 0 and c6_hits_all(cand[i], -1, de0, de1, nd) else 0
        hn1[i] = 0
        if nr > 0:
            n, _ = c6_threats(w, sc, atk, cand[i], -1, nr)
            if n > 0:
                hn1[i] = hitting_number(e0, e1, n, seen)
        elif n3[i] > 0:
            n, _ = _c6_pair_threats(sc, i, -1, cand[i], -1)
            hn1[i] = hitting_number(e0, e1, n, seen)
    nt = 0
    win1 = -1
    win2 = -1
    if left == 1:
        for i in range(nc):
            c = cand[i]
            if hd == 1 and not c6_hits_all(c, -1, de0, de1, nd):
                continue
            if hn1[i] >= 3:
                win1 = c
                break
            if hn1[i] == 2 and need == 2:
                n, pot = c6_threats(w, sc, atk, c, -1, nr)
                score = _c6_score(w, sc, c, -1, n, 0, last0, last1)
                if nt < TURN_CAP - 1:
                    turns[nt] = (score << SCORE_SHIFT) | (c << 10)
                    nt += 1
                else:
                    sc.ints[CTX, OVERFLOW] = 1
    else:
        stamp = dims[C6_CSTAMP_AT]
        pa = c6[C6_PA]
        la = c6[C6_LA]
        la2 = c6[C6_LA2]
        na = 0
        na2 = 0
        for i in range(nc):
            if hn1[i] >= 1:
                la[na] = i
                na += 1
            if hn1[i] >= 2:
                la2[na2] = i
                na2 += 1
        zst = 0
        if zone != 0 and need == 3 and hd == 0:
            # The last turn's zone: a new triple threat has a threat window through the
            # last turn's stones (else it stood before that turn, and was played then),
            # so one of its stones is in a live window through them.
            zst = stamp + 1
            stamp += 1
            for x in (last0, last1):
                if x < 0:
                    continue
                for k in range(c6[C6_CWN, x]):
                    wi = sc.cwins[x, k]
                    if c6[C6_LIVE_AT, wi] >= 0:
                        for j in range(6):
                            zone_row[sc.wcells[wi, j]] = zst
        free = c6[C6_FREE]
        nfree = 0
        for i in range(nc):
            if win1 >= 0:
                break
            c1 = cand[i]
            stamp += 1
            npart = 0
            if hd == 0:
                if need == 3 and hn1[i] == 0:
                    continue  # a triple threat has a stone threatening alone: judged from it
                # Cells sharing a live window with c1 (their stones add up in it).
                for q in range(ncl[i]):
                    k = sc.clw[i, q]
                    for t in range(2, 6):
                        x = sc.lwin[k, t]
                        if x < 0 or x == c1 or cst[x] == stamp:
                            continue
                        cst[x] = stamp
                        j = in_cand[x]
                        if j < i and (need == 2 or hn1[j] >= 1):
                            continue  # judged from x
                        pa[npart] = j
                        npart += 1
                # Cells whose threats alone add up with c1's to what is asked.
                if hn1[i] >= need or (need == 3 and hn1[i] >= 3):
                    for j in range(i + 1, nc):
                        if cst[cand[j]] != stamp:
                            cst[cand[j]] = stamp
                            if need == 2 and hn1[i] == 2 and hn1[j] == 0:
                                free[nfree] = j  # adds no threat: scored apart, below
                                nfree += 1
                            else:
                                pa[npart] = j
                                npart += 1
                else:
                    lst = la if hn1[i] + 1 >= need else la2
                    m = na if hn1[i] + 1 >= need else na2
                    for q in range(m):
                        j = lst[q]
                        if j > i and cst[cand[j]] != stamp:
                            cst[cand[j]] = stamp
                            pa[npart] = j
                            npart += 1
            else:
                hit1 = hits[i] != 0
                for q in range(ncl[i]):
                    k = sc.clw[i, q]
                    for t in range(2, 6):
                        if sc.lwin[k, t] >= 0:
                            cst[sc.lwin[k, t]] = stamp
                for j in range(nc):
                    if j == i:
                        continue
                    x = cand[j]
                    if hit1:
                        if j < i and hits[j] != 0:
                            continue  # a pair of two blocks: judged from the first
                    elif j < i or hits[j] != 0 or not c6_hits_all(c1, x, de0, de1, nd):
                        continue  # neither blocks all: together they must
                    both = hn1[i] + hn1[j]
                    if both < need and (cst[x] != stamp or both < need - 2):
                        continue
                    pa[npart] = j
                    npart += 1
            if nfree > 0 and win1 < 0:
                nt = _c6_free_turns(w, sc, i, c1, free, nfree, turns, nt, last0, last1)
                nfree = 0
            for q in range(npart):
                j = pa[q]
                x = cand[j]
                if zst != 0 and zone_row[c1] != zst and zone_row[x] != zst:
                    continue
                n, pot = _c6_pair_threats(sc, i, j, c1, x)
                if n < need:
                    continue
                hn = hitting_number(e0, e1, n, seen)
                if hn >= 3:
                    win1 = c1
                    win2 = x
                    break
                if hn == 2 and need == 2:
                    if nt < TURN_CAP - 1:
                        score = _c6_score(w, sc, c1, x, n, pot, last0, last1)
                        turns[nt] = (score << SCORE_SHIFT) | (c1 << 10) | (x + 1)
                        nt += 1
                    else:
                        sc.ints[CTX, OVERFLOW] = 1
        dims[C6_CSTAMP_AT] = stamp
    for i in range(nc):
        in_cand[cand[i]] = -1
    if win1 >= 0:
        return 0, win1, win2
    _c6_sort_desc(turns, nt)
    return nt, -1, -1


@njit(cache=True, nogil=True)
def _c6_show_win(w, sc, atk, c1, c2, nr, pos, pv, ctx):
    """The proof line of a turn leaving three threats or more: the turn, a defender pair
    (a cell of the first threat and one of a threat it misses) and the completion of a
    threat that pair misses. Returns 1, or 0 when the line does not fit in `pv`."""
    n, _ = c6_threats(w, sc, atk, c1, c2, nr)
    e0 = sc.c6[C6_E0]
    e1 = sc.c6[C6_E1]
    off = 2 if c2 >= 0 else 1
    if pos + off + 4 > pv.shape[0]:
        return 0
    d1 = e0[0]
    d2 = -1
    for i in range(1, n):
        if e0[i] != d1 and e1[i] != d1:
            d2 = e0[i]
            break
    for i in range(n):
        if e0[i] != d1 and e0[i] != d2 and e1[i] != d1 and e1[i] != d2:
            pv[pos] = c1
            if c2 >= 0:
                pv[pos + 1] = c2
            pv[pos + off] = d1
            pv[pos + off + 1] = d2
            pv[pos + off + 2] = e0[i]
            ctx[PV_LEN] = pos + off + 3
            if e1[i] >= 0:
                pv[pos + off + 3] = e1[i]
                ctx[PV_LEN] = pos + off + 4
            return 1
    return 0


@njit(cache=True, nogil=True)
def _c6_store_won(table, key, depth, c1, c2):
    k = key ^ SALT_WON
    slot = k & (table.shape[0] - 1)
    table[slot, 0] = k
    table[slot, 1] = depth | ((c1 + 1) << 8) | ((c2 + 1) << 18)


@njit(cache=True, nogil=True)
def _c6_turn(c1, c2):
    """A turn as listed (without its score): c1 << 10 | (c2 + 1), c2 -1 for one stone."""
    return (c1 << 10) | (c2 + 1)


@njit(cache=True, nogil=True)
def _c6_probe_won(table, key, depth):
    """A win proven here within `depth` turns: (True, its turn), else (False, -1, -1)."""
    k = key ^ SALT_WON
    slot = k & (table.shape[0] - 1)
    if table[slot, 0] != k:
        return False, -1, -1
    v = table[slot, 1]
    if (v & 255) > depth:
        return False, -1, -1
    return True, ((v >> 8) & 1023) - 1, ((v >> 18) & 1023) - 1


@njit(cache=True, nogil=True)
def _c6_order_replies(sc, atk, npairs, pa, pb):
    """The defender's replies (pa/pb[:npairs], on the board after the attacker's turn),
    the likeliest refutation first: by what the pair takes from the attacker's live windows
    (a window of three counting three, of two one) and adds to the defender's own (its
    stones there). A failing turn then fails at its first reply more often, before wins
    are proven for the others (-16% nodes on tests/tactics/connect6_vcf.txt)."""
    c6 = sc.c6
    own = c6[C6_COUNT + atk]
    other = c6[C6_COUNT + 1 - atk]
    keys = sc.ints[DIST]
    for q in range(npairs):
        a = pa[q]
        b = pb[q]
        score = 0
        for x in (a, b):
            for k in range(c6[C6_CWN, x]):
                wi = sc.cwins[x, k]
                if other[wi] == 0 and own[wi] >= 2:
                    score += 3 if own[wi] >= 3 else 1
                if own[wi] == 0 and other[wi] >= 2:
                    score += other[wi]
        keys[q] = score
    for q in range(1, npairs):
        u = q
        while u > 0 and keys[u - 1] < keys[u]:
            keys[u - 1], keys[u] = keys[u], keys[u - 1]
            pa[u - 1], pa[u] = pa[u], pa[u - 1]
            pb[u - 1], pb[u] = pb[u], pb[u - 1]
            u -= 1


@njit(cache=True, nogil=True)
def c6_node(w, atk, depth, pos, ctx, table, pv, key, sc, root, left, d1, d2, need_pv, last0, last1, zone):
    """Attacker node of the Connect6 search: `atk` to move with `left` stones this turn
    (2 except at a mid-turn root), `depth` more threat turns allowed. d1, d2: the
    defender's stones that led here (-1 at the root: the board is read whole); last0,
    last1 the attacker's last turn, and `zone` 1 when a triple threat here must use a
    window through it (see `c6_generate`). With `need_pv` the proof line is written from
    pv[pos] (a win the table knows is searched again, its turn first). Returns 1 win, 0
    none, -1 budget spent. Table: failures as `table.store_failed` (fully searched to
    `depth`), wins under the key ^ SALT_WON with their turn."""
    c6 = sc.c6
    dims = c6[C6_DIMS]
    nr = 0
    if root != 0:
        # A window to fill with the stones left (only the root can have one), and the
        # attacker's windows of four standing mid-turn.
        own = c6[C6_COUNT + atk]
        other = c6[C6_COUNT + 1 - atk]
        for wi in range(dims[C6_NW]):
            if other[wi] != 0 or own[wi] < 4:
                continue
            if own[wi] >= 6 - left:
                e0, e1 = c6_empties(w, sc, wi, -1, -1)
                if pos + 2 > pv.shape[0]:
                    return 0
                pv[pos] = e0
                ctx[PV_LEN] = pos + 1
                if e1 >= 0:
                    pv[pos + 1] = e1
                    ctx[PV_LEN] = pos + 2
                return 1
            if nr < 64:
                c6[C6_R0, nr] = wi
                nr += 1
    if depth <= 0 or pos + 10 > pv.shape[0]:
        ctx[CUT] += 1
        return 0
    if known_failure(table, key, depth, ctx):
        return 0
    cut_before = ctx[CUT]
    won, h1, h2 = _c6_probe_won(table, key, depth)
    if won and need_pv == 0:
        return 1
    nd = c6_defender_threats(w, sc, atk, d1, d2)
    hd = hitting_number(c6[C6_D0], c6[C6_D1], nd, sc.flags[SEEN]) if nd > 0 else 0
    if hd > left:
        store_failed(table, key, EXACT)  # the defender wins first, at any depth
        return 0
    need = 3 if depth <= 1 else 2
    ctx[OVERFLOW] = 0
    n, w1, w2 = c6_generate(w, sc, atk, depth, left, nr, hd, nd, last0, last1, need, zone)
    complete = ctx[OVERFLOW] == 0
    if root != 0:
        ctx[ROOT_TURNS] = n if w1 < 0 else 1
    if w1 >= 0:
        if ctx[NODES] >= ctx[BUDGET]:
            return -1
        ctx[NODES] += 1
        if _c6_show_win(w, sc, atk, w1, w2, nr, pos, pv, ctx) == 1:
            _c6_store_won(table, key, 1, w1, w2)
            return 1
        ctx[CUT] += 1  # no failure is stored here: not one to call exact either
        return 0
    if need == 3 or not complete:
        ctx[CUT] += 1  # the last turn the depth allows looks for a win alone; a full row drops turns
    if need == 3 or n == 0:
        if complete:
            store_failed(table, key, EXACT if ctx[CUT] == cut_before else depth)
        return 0
    turns = sc.turns[depth]
    for t in range(n):
        # First the table's winning turn (its proof line is wanted), else the turn that
        # won last at this depth (after another defender reply, often again).
        v = turns[t] & TURN_MASK
        if (won and v == _c6_turn(h1, h2)) or (not won and v == turns[TURN_CAP - 1]):
            v = turns[t]
            for u in range(t, 0, -1):
                turns[u] = turns[u - 1]
            turns[0] = v
            break
    pa = sc.level[depth, PAIR_A]
    pb = sc.level[depth, PAIR_B]
    aval = atk + 1
    dval = 2 - atk
    off = 2 if left == 2 else 1
    zone_next = np.int64(1 if hd == 0 and left == 2 else 0)
    for t in range(n):
        v = turns[t] & TURN_MASK
        c1 = v >> 10
        c2 = (v & 1023) - 1
        nthr, _ = c6_threats(w, sc, atk, c1, c2, nr)
        npairs = hitting_pairs(c6[C6_E0], c6[C6_E1], nthr, pa, pb)
        if npairs == 0 or dims[C6_EMPTY] - off < 2:
            continue
        ckey = key ^ ZOBRIST[aval, c1]
        if c2 >= 0:
            ckey ^= ZOBRIST[aval, c2]
        if root != 0:
            ckey ^= C6_SALTS[atk, left - 1] ^ C6_SALTS[atk, 1]  # below: two stones a turn
        # A reply the table knows as no win for the attacker refutes the turn before it is
        # played (not counted as a node: nothing is searched).
        known = False
        for q in range(npairs):
            if known_failure(table, ckey ^ ZOBRIST[dval, pa[q]] ^ ZOBRIST[dval, pb[q]], depth - 1, ctx):
                known = True
                break
        if known:
            continue
        if ctx[NODES] >= ctx[BUDGET]:
            return -1
        ctx[NODES] += 1
        c6_put(w, sc, atk, c1, aval, 1)
        if c2 >= 0:
            c6_put(w, sc, atk, c2, aval, 1)
        if npairs > 1:
            _c6_order_replies(sc, atk, npairs, pa, pb)
        r = 1
        for q in range(npairs):
            a = pa[q]
            b = pb[q]
            c6_put(w, sc, atk, a, dval, 1)
            c6_put(w, sc, atk, b, dval, 1)
            r = c6_node(
                w,
                atk,
                depth - 1,
                pos + off + 2,
                ctx,
                table,
                pv,
                ckey ^ ZOBRIST[dval, a] ^ ZOBRIST[dval, b],
                sc,
                np.int64(0),
                np.int64(2),
                a,
                b,
                need_pv if q == npairs - 1 else np.int64(0),
                c1,
                c2,
                zone_next,
            )
            c6_put(w, sc, atk, b, dval, -1)
            c6_put(w, sc, atk, a, dval, -1)
            if r != 1:
                break
            pv[pos + off] = a  # the proof line follows the last reply
            pv[pos + off + 1] = b
        if c2 >= 0:
            c6_put(w, sc, atk, c2, aval, -1)
        c6_put(w, sc, atk, c1, aval, -1)
        if r == 1:
            pv[pos] = c1
            if c2 >= 0:
                pv[pos + 1] = c2
            _c6_store_won(table, key, depth, c1, c2)
            turns[TURN_CAP - 1] = v
            c6[C6_HIST, c1] += depth
            if c2 >= 0:
                c6[C6_HIST, c2] += depth
            return 1
        if r < 0:
            return -1
    if complete:
        store_failed(table, key, EXACT if ctx[CUT] == cut_before else depth)
    return 0


@njit(cache=True, nogil=True)
def c6_start(s, budget, max_depth, sc):
    """Set up a Connect6 search of `s` (the player to move attacking) in the scratch:
    returns (work state, attacker, stones left this turn, root key, last0, last1)."""
    check_room(s, max_depth, sc)
    ctx = sc.ints[CTX]
    ctx[:CTX_SLOTS] = 0
    ctx[BUDGET] = budget
    w = sc.states[WORK]
    w[:] = s
    atk = np.int64(w[TO_MOVE])  # int64 throughout: see gomoku_solve_scanned
    left = np.int64(stones_left_in_turn(w[PLY]))
    c6_tables(sc, w[HEIGHT], w[WIDTH])
    c6_setup(w, atk, sc)
    sc.c6[C6_HIST, : w[HEIGHT] * w[WIDTH]] = 0
    sc.turns[: max_depth + 1, TURN_CAP - 1] = -1  # no winning turn yet at any depth
    last0 = np.int64(-1)  # the attacker's latest stones: its next threats are near
    last1 = np.int64(-1)
    for i in range(HIST_LEN):
        if w[HIST_PLAYER + i] == atk and w[HIST + i] >= 0:
            if last0 < 0:
                last0 = np.int64(w[HIST + i])
            elif last1 < 0:
                last1 = np.int64(w[HIST + i])
    key = board_key(w) ^ SALT_C6 ^ C6_SALTS[atk, left - 1]
    return w, atk, left, key, last0, last1


@njit(cache=True, nogil=True)
def c6_solve(s, budget, max_depth, table, pv, sc):
    """Connect6 threat-space search for the player to move (see the module notes), by
    iterative deepening over `c6_node`: (result, pv_len, nodes) as `vcf`, a node being an
    attacker turn played."""
    if s[WINNER] != ONGOING:
        sc.ints[CTX, :CTX_SLOTS] = 0
        return 0, 0, 0
    w, atk, left, key, last0, last1 = c6_start(s, budget, max_depth, sc)
    ctx = sc.ints[CTX]
    for depth in range(1, max_depth + 1):
        ctx[ROOT_TURNS] = -1
        cut_before = ctx[CUT]
        r = c6_node(
            w,
            atk,
            np.int64(depth),
            np.int64(0),
            ctx,
            table,
            pv,
            key,
            sc,
            np.int64(1),
            left,
            np.int64(-1),
            np.int64(-1),
            np.int64(1),
            last0,
            last1,
            np.int64(0),
        )
        if r == 1:
            return 1, ctx[PV_LEN], ctx[NODES]
        if r < 0:
            break
        if ctx[CUT] == cut_before:
            break  # the failure held at every depth (stored EXACT): a deeper round finds the same
        if depth >= 2 and ctx[ROOT_TURNS] == 0:
            # The root has no double threat: each further round would find none again and
            # store its failure one depth deeper, which comes to this one store.
            store_failed(table, key, max_depth)
            break
    return 0, 0, ctx[NODES]


@njit(cache=True, nogil=True)
def _c6_mark_proof(w, atk, depth, ctx, table, pv, key, sc, left, d1, d2, last0, last1, zone, cells):
    """Mark in `cells` the proof tree of the win the table holds for this attacker node
    (searching it again where the table lost it): each attacker turn's stones and the
    empty cells of its threat windows, under every defender reply. Returns 1, or 0 when
    a win could not be found again (budget or table)."""
    c6 = sc.c6
    if left == 2 and d1 < 0:
        # The root: a window to fill now is the whole proof.
        own = c6[C6_COUNT + atk]
        other = c6[C6_COUNT + 1 - atk]
        for wi in range(c6[C6_DIMS, C6_NW]):
            if other[wi] == 0 and own[wi] >= 4:
                for j in range(6):
                    cells[sc.wcells[wi, j]] = True
                return 1
    won, c1, c2 = _c6_probe_won(table, key, depth)
    if not won:
        zero = np.int64(0)
        r = c6_node(w, atk, depth, zero, ctx, table, pv, key, sc, zero, left, d1, d2, zero, last0, last1, zone)
        if r != 1:
            return 0
        won, c1, c2 = _c6_probe_won(table, key, depth)
        if not won:
            return 0
    cells[c1] = True
    if c2 >= 0:
        cells[c2] = True
    n, _ = c6_threats(w, sc, atk, c1, c2, np.int64(0))
    e0 = c6[C6_E0]
    e1 = c6[C6_E1]
    for i in range(n):
        cells[e0[i]] = True
        if e1[i] >= 0:
            cells[e1[i]] = True
    hn = hitting_number(e0, e1, n, sc.flags[SEEN])
    if hn >= 3:
        return 1
    pa = sc.level[depth, PAIR_A]
    pb = sc.level[depth, PAIR_B]
    npairs = hitting_pairs(e0, e1, n, pa, pb)
    aval = atk + 1
    dval = 2 - atk
    c6_put(w, sc, atk, c1, aval, 1)
    ckey = key ^ ZOBRIST[aval, c1]
    if c2 >= 0:
        c6_put(w, sc, atk, c2, aval, 1)
        ckey ^= ZOBRIST[aval, c2]
    ok = 1
    for q in range(npairs):
        a = pa[q]
        b = pb[q]
        c6_put(w, sc, atk, a, dval, 1)
        c6_put(w, sc, atk, b, dval, 1)
        ok = _c6_mark_proof(
            w,
            atk,
            depth - 1,
            ctx,
            table,
            pv,
            ckey ^ ZOBRIST[dval, a] ^ ZOBRIST[dval, b],
            sc,
            np.int64(2),
            a,
            b,
            c1,
            c2,
            np.int64(1),
            cells,
        )
        c6_put(w, sc, atk, b, dval, -1)
        c6_put(w, sc, atk, a, dval, -1)
        if ok != 1:
            break
    if c2 >= 0:
        c6_put(w, sc, atk, c2, aval, -1)
    c6_put(w, sc, atk, c1, aval, -1)
    return ok


@njit(cache=True, nogil=True)
def opponent_vcf_into(s, budget, max_depth, table, pv, cells, sc):
    """The opponent's Connect6 VCF, for a position where the player to move defends:
    would the side *not* to move win by continuous double threats if it could move now
    (the mover passing the rest of its turn)? Returns (found, pv_len, nodes).

    found 1: pv[:pv_len] is the opponent's proof line from the passed position (as
    `vcf`), and `cells` (bool [cells], cleared first) marks its whole proof tree, every
    defender reply considered: the stones of each of the opponent's turns and the empty
    cells of the threat windows each leaves (where the replies, and the final six, go).
    A turn of the mover with no stone on a marked cell leaves every turn of that tree
    playable and every threat of it standing, so it refutes the proof only by a threat of
    the mover's own (a window of four or more of its stones and none of the opponent's
    that the tree's turns then must, and do not, block): the refutations are among the
    turns with a stone on a marked cell and the turns that make such a threat. found 0:
    no VCF within `budget` nodes and `max_depth` turns (nothing marked). Allocates
    nothing (the scratch's rows, the passed position in its PASSED state); `table` is
    a transposition table for positions with the opponent to move (kept apart from the
    mover's, as the tree keeps its null-move table). Called from compiled code."""
    cells_n = s[HEIGHT] * s[WIDTH]
    cells[:cells_n] = False
    if s[WINNER] != ONGOING or s[KIND] != CONNECT6:
        sc.ints[CTX, :CTX_SLOTS] = 0
        return 0, 0, 0
    passed = sc.states[PASSED]
    null_move(s, passed)
    found, pv_len, nodes = c6_solve(passed, budget, max_depth, table, pv, sc)
    if found != 1:
        return 0, 0, nodes
    # The proof tree, read back from the table (the winning turn of every attacker node
    # the search proved), each node searched again only where the table lost it.
    line = sc.ints[DLINE]  # the line, kept while searches again write in pv
    line[:pv_len] = pv[:pv_len]
    w, atk, left, key, last0, last1 = c6_start(passed, budget, max_depth, sc)
    ctx = sc.ints[CTX]
    ctx[BUDGET] = max(budget, 1) * 4
    ok = _c6_mark_proof(
        w, atk, max_depth, ctx, table, pv, key, sc, left, np.int64(-1), np.int64(-1), last0, last1, np.int64(0), cells
    )
    pv[:pv_len] = line[:pv_len]
    if ok != 1:
        # The tree could not be read back: every empty cell stays a candidate.
        for c in range(cells_n):
            cells[c] = s[BOARD + c] == 0
    return 1, pv_len, nodes


@njit(cache=True, nogil=True)
def opponent_vcf(s, budget, max_depth, table, pv, cells):
    """`opponent_vcf_into` with a scratch of its own (made per call)."""
    return opponent_vcf_into(s, budget, max_depth, table, pv, cells, scratch_for(s, max_depth))


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
