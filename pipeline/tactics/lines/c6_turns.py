"""Connect6: the attacker's turns at a node of the threat-space search, from the line
tables (`c6_tables`), never from all pairs of cells.

A node lists its live windows (two or more of the attacker's stones, none of the
defender's) and their empty cells, the candidates. A pair of candidates is judged only
when it can make the threats asked for: its cells share a live window (two stones in one
window), or the threats each makes alone (a window of three it completes to four) add up
to them; the pair's threats are read from the live windows through its two cells. On the
last turn the depth allows (three threats asked for) a pair must also touch a live window
through the attacker's previous turn: a triple threat that did not would have stood one
turn earlier, when the search would have played it. The double threats are tried best
first (`_score`): windows of three made that no defender reply can touch, fewer defender
replies, near the previous turn, cells of wins found elsewhere in this search; the search
moves the turn that won last at a depth to the front (`c6_search`).

A listed turn is one int64, score << SCORE_SHIFT | `turn_code(c1, c2)`, so that sorting
the list sorts the turns by score.
"""

from numba import njit

from pipeline.games.layout import BOARD, WIDTH
from pipeline.tactics.lines.c6_tables import WINDOW, c6_hits_all, c6_threats
from pipeline.tactics.lines.scratch import (
    C6_BLOCKS_ALL,
    C6_CAND_INDEX,
    C6_CAND_THREATS,
    C6_CAND_THREES,
    C6_CANDIDATES,
    C6_CELL_STAMP,
    C6_CELL_STAMP_NOW,
    C6_DEFENDER_EMPTY0,
    C6_DEFENDER_EMPTY1,
    C6_DOUBLY_THREATENING,
    C6_FREE_PARTNERS,
    C6_HEADER,
    C6_LIVE,
    C6_LIVE_INDEX,
    C6_LIVE_STAMP,
    C6_LIVE_STAMP_NOW,
    C6_LIVE_THROUGH,
    C6_N_LIVE,
    C6_PARTNERS,
    C6_REPLY_A,
    C6_REPLY_B,
    C6_STONES,
    C6_THREAT_EMPTY0,
    C6_THREAT_EMPTY1,
    C6_THREATENING,
    C6_THREES_MADE,
    C6_WIN_DEPTHS,
    C6_WINDOWS_THROUGH,
    C6_ZONE,
    CTX,
    LOCAL_CELLS,
    OVERFLOW,
    SEEN,
    THREAT_CELLS,
    TURN_CAP,
    WORK,
)
from pipeline.tactics.lines.threats import hitting_number, hitting_pairs

SCORE_SHIFT = 20  # a listed turn: score << 20 | c1 << 10 | (c2 + 1)
TURN_MASK = (1 << SCORE_SHIFT) - 1
# Ordering weights (`_score`), measured on tests/tactics/connect6_vcf.txt.
W_SAFE = 16  # a window of three made that no defender reply can touch
W_POT = 4  # one the replies may touch
W_REPLY = 8  # each defender reply (pair) to search
W_NEAR = 4  # each step nearer the attacker's last turn (from 8)
W_HIST = 16  # each depth of a win this search found with a stone on the turn's cells


@njit(cache=True, nogil=True, inline="always")
def turn_code(c1, c2):
    """A turn as listed (without its score): c1 << 10 | (c2 + 1), c2 -1 for one stone."""
    return (c1 << 10) | (c2 + 1)


@njit(cache=True, nogil=True, inline="always")
def _list_turn(sc, turns, nt, score, c1, c2):
    """Append the turn c1, c2 with its score to turns[:nt] while the row has room (else
    the node is marked OVERFLOW: not fully searched); returns the new count."""
    if nt < TURN_CAP - 1:
        turns[nt] = (score << SCORE_SHIFT) | turn_code(c1, c2)
        return nt + 1
    sc.ints[CTX, OVERFLOW] = 1
    return nt


@njit(cache=True, nogil=True, inline="always")
def _distance(w, c, a, b):
    """Chebyshev distance from c to the nearer of a and b (8 when neither is given)."""
    width = w[WIDTH]
    best = 8
    for x in (a, b):
        if x >= 0:
            best = min(best, max(abs(c // width - x // width), abs(c % width - x % width)))
    return best


@njit(cache=True, nogil=True)
def _sort_desc(a, n):
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


@njit(cache=True, nogil=True, inline="always")
def _mark_cells(mark, e0, e1, n, value):
    """Set `mark` to `value` on the empty cells of the windows e0/e1[:n]."""
    for i in range(n):
        mark[e0[i]] = value
        if e1[i] >= 0:
            mark[e1[i]] = value


@njit(cache=True, nogil=True, inline="always")
def _untouched(sc, k, mark, c1, c2):
    """Does live window k keep all its empty cells but c1 and c2 off `mark`?"""
    for j in range(2, 6):
        e = sc.lwin[k, j]
        if e >= 0 and e != c1 and e != c2 and mark[e]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _score(safe, pot, npairs, dist, hist):
    """The ordering score of a double threat making `pot` windows of three, `safe` of them
    out of the defender's reach, with `npairs` replies, at distance `dist` from the last
    turn, on cells of wins found at depths adding up to `hist`."""
    score = 64 + W_SAFE * min(safe, 30) + W_POT * min(pot - safe, 30) - W_REPLY * npairs + W_NEAR * (8 - dist)
    return max(score + min(W_HIST * hist, 4000), 1)


@njit(cache=True, nogil=True)
def _turn_score(w, sc, c1, c2, n, pot, last0, last1):
    """The ordering score of a double-threat turn c1, c2 whose n threat windows' empty
    cells are in rows C6_THREAT_EMPTY0/1 and which makes `pot` windows of three (their
    empty cells in the `sc.lwin` rows listed in C6_THREES_MADE): windows of three that no
    defender reply can touch (none of their empty cells is a threat's) first, then fewer
    replies, then near the attacker's last turn."""
    c6 = sc.c6
    e0 = c6[C6_THREAT_EMPTY0]
    e1 = c6[C6_THREAT_EMPTY1]
    npairs = hitting_pairs(e0, e1, n, c6[C6_REPLY_A], c6[C6_REPLY_B])
    dist = _distance(w, c1, last0, last1)
    if c2 >= 0:
        dist = min(dist, _distance(w, c2, last0, last1))
    mark = sc.flags[THREAT_CELLS]
    _mark_cells(mark, e0, e1, n, True)
    safe = 0
    for i in range(pot):
        if _untouched(sc, c6[C6_THREES_MADE, i], mark, c1, c2):
            safe += 1
    _mark_cells(mark, e0, e1, n, False)
    hist = c6[C6_WIN_DEPTHS, c1] + (c6[C6_WIN_DEPTHS, c2] if c2 >= 0 else 0)
    return _score(safe, pot, npairs, dist, hist)


@njit(cache=True, nogil=True)
def _free_turns(w, sc, i, c1, nfree, turns, nt, last0, last1):
    """List the turns of candidate i (cell c1, whose stone alone makes exactly two threats)
    with each of the candidates C6_FREE_PARTNERS[:nfree], which add no threat (no live
    window with c1, none of three): the threats are c1's, so the turns are double threats
    and their scores are `_turn_score`'s, computed from c1's part once. Returns the new
    count of turns."""
    c6 = sc.c6
    n1, pot1 = _pair_threats(sc, i, -1, c1, -1)
    e0 = c6[C6_THREAT_EMPTY0]
    e1 = c6[C6_THREAT_EMPTY1]
    npairs = hitting_pairs(e0, e1, n1, c6[C6_REPLY_A], c6[C6_REPLY_B])
    mark = sc.flags[LOCAL_CELLS]
    _mark_cells(mark, e0, e1, n1, True)
    safe1 = 0
    for q in range(pot1):
        if _untouched(sc, c6[C6_THREES_MADE, q], mark, c1, -1):
            safe1 += 1
    dist1 = _distance(w, c1, last0, last1)
    for q in range(nfree):
        j = c6[C6_FREE_PARTNERS, q]
        x = c6[C6_CANDIDATES, j]
        pot = pot1 + c6[C6_LIVE_THROUGH, j]  # its windows (all of two) become windows of three
        safe = safe1
        for u in range(c6[C6_LIVE_THROUGH, j]):
            if _untouched(sc, sc.clw[j, u], mark, x, -1):
                safe += 1
        dist = min(dist1, _distance(w, x, last0, last1))
        score = _score(safe, pot, npairs, dist, c6[C6_WIN_DEPTHS, c1] + c6[C6_WIN_DEPTHS, x])
        nt = _list_turn(sc, turns, nt, score, c1, x)
    _mark_cells(mark, e0, e1, n1, False)
    return nt


@njit(cache=True, nogil=True, inline="always")
def _add_threat(sc, k, c1, c2, n):
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
    sc.c6[C6_THREAT_EMPTY0, n] = a0
    sc.c6[C6_THREAT_EMPTY1, n] = a1


@njit(cache=True, nogil=True, inline="always")
def _judge_window(sc, k, total, c1, c2, n, pot):
    """Live window k holding `total` attacker stones after the turn c1, c2: a threat (four
    or more: its empty cells become threat n) or a window of three made (listed at `pot`
    in C6_THREES_MADE). Returns the new (n, pot)."""
    if total >= 4:
        _add_threat(sc, k, c1, c2, n)
        return n + 1, pot
    if total == 3:
        sc.c6[C6_THREES_MADE, pot] = k
        return n, pot + 1
    return n, pot


@njit(cache=True, nogil=True)
def _pair_threats(sc, i, j, c1, c2):
    """The threat windows of the turn on candidates i and j (cells c1, c2; j -1 for c1
    alone), read from their live windows (`sc.clw`): a window holding both gains two
    stones, one holding one gains one. Threats go to rows C6_THREAT_EMPTY0/1, the windows
    of three made to C6_THREES_MADE. Returns (threats, windows of three)."""
    c6 = sc.c6
    lwin = sc.lwin
    clw = sc.clw
    ncl = c6[C6_LIVE_THROUGH]
    ls = c6[C6_LIVE_STAMP]
    st = c6[C6_HEADER, C6_LIVE_STAMP_NOW] + 2
    c6[C6_HEADER, C6_LIVE_STAMP_NOW] = st
    if j >= 0:
        for q in range(ncl[j]):
            ls[clw[j, q]] = st
    n = 0
    pot = 0
    for q in range(ncl[i]):
        k = clw[i, q]
        add = 2 if ls[k] == st else 1
        ls[k] = st + 1
        n, pot = _judge_window(sc, k, lwin[k, 1] + add, c1, c2, n, pot)
    if j >= 0:
        for q in range(ncl[j]):
            k = clw[j, q]
            if ls[k] == st:  # not shared with c1 (counted there)
                n, pot = _judge_window(sc, k, lwin[k, 1] + 1, c1, c2, n, pot)
    return n, pot


@njit(cache=True, nogil=True, inline="always")
def _add_candidate(c6, e, nc):
    """Make the cell e candidate nc (no live window, no window of three yet)."""
    c6[C6_CAND_INDEX, e] = nc
    c6[C6_CANDIDATES, nc] = e
    c6[C6_CAND_THREES, nc] = 0
    c6[C6_LIVE_THROUGH, nc] = 0


@njit(cache=True, nogil=True, inline="always")
def _list_candidates(w, sc, atk, nr, nd):
    """The node's candidates: the empty cells of the live windows (each with its live
    windows in `sc.clw`, each live window with its stones and empty cells in `sc.lwin`)
    and of the defender's nd threats; for each, the threats its stone alone makes
    (C6_CAND_THREATS: with the root's nr windows of four when it has some) and whether it
    blocks all of the defender's (C6_BLOCKS_ALL). Returns how many."""
    c6 = sc.c6
    own = c6[C6_STONES + atk]
    in_cand = c6[C6_CAND_INDEX]
    n3 = c6[C6_CAND_THREES]
    ncl = c6[C6_LIVE_THROUGH]
    live = c6[C6_LIVE]
    nc = 0
    for k in range(c6[C6_HEADER, C6_N_LIVE]):
        wi = live[k]
        sc.lwin[k, 0] = wi
        sc.lwin[k, 1] = own[wi]
        ne = 2
        for j in range(WINDOW):
            e = sc.wcells[wi, j]
            if w[BOARD + e] != 0:
                continue
            sc.lwin[k, ne] = e
            ne += 1
            x = in_cand[e]
            if x < 0:
                x = nc
                _add_candidate(c6, e, nc)
                nc += 1
            sc.clw[x, ncl[x]] = k
            ncl[x] += 1
            if own[wi] >= 3:
                n3[x] += 1
        for j in range(ne, 6):
            sc.lwin[k, j] = -1
    de0 = c6[C6_DEFENDER_EMPTY0]
    de1 = c6[C6_DEFENDER_EMPTY1]
    for i in range(nd):
        for e in (de0[i], de1[i]):
            if e >= 0 and in_cand[e] < 0:
                _add_candidate(c6, e, nc)
                nc += 1
    cand = c6[C6_CANDIDATES]
    hn1 = c6[C6_CAND_THREATS]
    hits = c6[C6_BLOCKS_ALL]
    e0 = c6[C6_THREAT_EMPTY0]
    e1 = c6[C6_THREAT_EMPTY1]
    for i in range(nc):
        hits[i] = 1 if nd > 0 and c6_hits_all(cand[i], -1, de0, de1, nd) else 0
        hn1[i] = 0
        if nr > 0:
            n, _ = c6_threats(w, sc, atk, cand[i], -1, nr)
            if n > 0:
                hn1[i] = hitting_number(e0, e1, n, sc.flags[SEEN])
        elif n3[i] > 0:
            n, _ = _pair_threats(sc, i, -1, cand[i], -1)
            hn1[i] = hitting_number(e0, e1, n, sc.flags[SEEN])
    return nc


@njit(cache=True, nogil=True, inline="always")
def _one_stone_turns(w, sc, atk, nc, nr, hd, nd, need, turns, last0, last1):
    """The turns of a mid-turn root with one stone left: (n listed, a winning cell or -1)."""
    c6 = sc.c6
    cand = c6[C6_CANDIDATES]
    hn1 = c6[C6_CAND_THREATS]
    nt = 0
    for i in range(nc):
        c = cand[i]
        if hd == 1 and not c6_hits_all(c, -1, c6[C6_DEFENDER_EMPTY0], c6[C6_DEFENDER_EMPTY1], nd):
            continue
        if hn1[i] >= 3:
            return nt, c
        if hn1[i] == 2 and need == 2:
            n, _ = c6_threats(w, sc, atk, c, -1, nr)
            nt = _list_turn(sc, turns, nt, _turn_score(w, sc, c, -1, n, 0, last0, last1), c, -1)
    return nt, -1


@njit(cache=True, nogil=True, inline="always")
def _partners_free(sc, i, nc, need, stamp, na, na2):
    """The partners of candidate i when the defender has no threat: the cells sharing a
    live window with it (their stones add up in it), and those whose threats alone add up
    with its own to `need`, each pair once. Into C6_PARTNERS, except (need 2, i making
    two threats alone) the partners that add no threat, into C6_FREE_PARTNERS. `na`,
    `na2`: the lengths of C6_THREATENING and C6_DOUBLY_THREATENING. Returns (partners,
    free partners)."""
    c6 = sc.c6
    hn1 = c6[C6_CAND_THREATS]
    cst = c6[C6_CELL_STAMP]
    c1 = c6[C6_CANDIDATES, i]
    npart = 0
    for q in range(c6[C6_LIVE_THROUGH, i]):
        k = sc.clw[i, q]
        for t in range(2, 6):
            x = sc.lwin[k, t]
            if x < 0 or x == c1 or cst[x] == stamp:
                continue
            cst[x] = stamp
            j = c6[C6_CAND_INDEX, x]
            if j < i and (need == 2 or hn1[j] >= 1):
                continue  # judged from x
            c6[C6_PARTNERS, npart] = j
            npart += 1
    nfree = 0
    if hn1[i] >= need or (need == 3 and hn1[i] >= 3):
        for j in range(i + 1, nc):
            x = c6[C6_CANDIDATES, j]
            if cst[x] == stamp:
                continue
            cst[x] = stamp
            if need == 2 and hn1[i] == 2 and hn1[j] == 0:
                c6[C6_FREE_PARTNERS, nfree] = j  # adds no threat: scored apart
                nfree += 1
            else:
                c6[C6_PARTNERS, npart] = j
                npart += 1
    else:
        one_more = hn1[i] + 1 >= need  # a partner threatening alone is enough, else two
        lst = c6[C6_THREATENING] if one_more else c6[C6_DOUBLY_THREATENING]
        for q in range(na if one_more else na2):
            j = lst[q]
            x = c6[C6_CANDIDATES, j]
            if j > i and cst[x] != stamp:
                cst[x] = stamp
                c6[C6_PARTNERS, npart] = j
                npart += 1
    return npart, nfree


@njit(cache=True, nogil=True, inline="always")
def _partners_blocking(sc, i, nc, nd, need, stamp):
    """The partners of candidate i when the defender threatens: the pair must hit all his
    threat windows (a candidate that does alone pairs with any other, counted once), and
    its threats alone must add up to `need` (or up to need - 2 for cells sharing a live
    window with i). Into C6_PARTNERS; returns how many."""
    c6 = sc.c6
    cst = c6[C6_CELL_STAMP]
    for q in range(c6[C6_LIVE_THROUGH, i]):
        k = sc.clw[i, q]
        for t in range(2, 6):
            if sc.lwin[k, t] >= 0:
                cst[sc.lwin[k, t]] = stamp
    hn1 = c6[C6_CAND_THREATS]
    hits = c6[C6_BLOCKS_ALL]
    de0 = c6[C6_DEFENDER_EMPTY0]
    de1 = c6[C6_DEFENDER_EMPTY1]
    c1 = c6[C6_CANDIDATES, i]
    npart = 0
    for j in range(nc):
        if j == i:
            continue
        x = c6[C6_CANDIDATES, j]
        if hits[i] != 0:
            if j < i and hits[j] != 0:
                continue  # a pair of two blocks: judged from the first
        elif j < i or hits[j] != 0 or not c6_hits_all(c1, x, de0, de1, nd):
            continue  # neither blocks all: together they must
        both = hn1[i] + hn1[j]
        if both < need and (cst[x] != stamp or both < need - 2):
            continue
        c6[C6_PARTNERS, npart] = j
        npart += 1
    return npart


@njit(cache=True, nogil=True, inline="always")
def _zone_stamp(sc, stamp, last0, last1):
    """Stamp the last turn's zone (the cells of the live windows through its stones) in
    C6_ZONE with `stamp`: a new triple threat has a threat window through the last turn's
    stones (else it stood before that turn, and was played then), so one of its stones is
    in a live window through them."""
    c6 = sc.c6
    for x in (last0, last1):
        if x < 0:
            continue
        for k in range(c6[C6_WINDOWS_THROUGH, x]):
            wi = sc.cwins[x, k]
            if c6[C6_LIVE_INDEX, wi] >= 0:
                for j in range(WINDOW):
                    c6[C6_ZONE, sc.wcells[wi, j]] = stamp


@njit(cache=True, nogil=True, inline="always")
def _two_stone_turns(w, sc, nc, hd, nd, need, zone, turns, last0, last1):
    """The turns of two stones: (n listed, c1, c2), c1 >= 0 a pair leaving three threats
    or more (then the list is cut short)."""
    c6 = sc.c6
    hn1 = c6[C6_CAND_THREATS]
    stamp = c6[C6_HEADER, C6_CELL_STAMP_NOW]
    na = 0
    na2 = 0
    for i in range(nc):
        if hn1[i] >= 1:
            c6[C6_THREATENING, na] = i
            na += 1
        if hn1[i] >= 2:
            c6[C6_DOUBLY_THREATENING, na2] = i
            na2 += 1
    zst = 0
    if zone != 0 and need == 3 and hd == 0:
        zst = stamp + 1
        stamp += 1
        _zone_stamp(sc, zst, last0, last1)
    nt = 0
    for i in range(nc):
        c1 = c6[C6_CANDIDATES, i]
        stamp += 1
        nfree = 0
        if hd == 0:
            if need == 3 and hn1[i] == 0:
                continue  # a triple threat has a stone threatening alone: judged from it
            npart, nfree = _partners_free(sc, i, nc, need, stamp, na, na2)
        else:
            npart = _partners_blocking(sc, i, nc, nd, need, stamp)
        if nfree > 0:
            nt = _free_turns(w, sc, i, c1, nfree, turns, nt, last0, last1)
        for q in range(npart):
            j = c6[C6_PARTNERS, q]
            x = c6[C6_CANDIDATES, j]
            if zst != 0 and c6[C6_ZONE, c1] != zst and c6[C6_ZONE, x] != zst:
                continue
            n, pot = _pair_threats(sc, i, j, c1, x)
            if n < need:
                continue
            hn = hitting_number(c6[C6_THREAT_EMPTY0], c6[C6_THREAT_EMPTY1], n, sc.flags[SEEN])
            if hn >= 3:
                c6[C6_HEADER, C6_CELL_STAMP_NOW] = stamp
                return nt, c1, x
            if hn == 2 and need == 2:
                nt = _list_turn(sc, turns, nt, _turn_score(w, sc, c1, x, n, pot, last0, last1), c1, x)
    c6[C6_HEADER, C6_CELL_STAMP_NOW] = stamp
    return nt, -1, -1


@njit(cache=True, nogil=True)
def c6_generate(sc, atk, node, nr, hd, nd, need):
    """The attacker's turns at a node (`c6_search.C6Node`): every pair of candidate cells
    (one cell with one stone left) that hits all the defender's threat windows (rows
    C6_DEFENDER_EMPTY0/1, nd of them, hitting number hd) and leaves two threats or more.
    Candidates are the empty cells of the attacker's live windows and of the defender's
    threat windows; a pair is judged only if it can make the threats asked for (`need`: 3
    on the last turn the depth allows, else 2): its cells share a live window, or their
    threats alone add up to it (the threats of a pair that shares none are those of its
    stones alone); with `node.zone`, a triple threat must touch the last turn's zone.
    Returns (n, c1, c2): c1 >= 0 is a turn leaving three threats or more (the defender
    cannot stop them all: a win), else the n double-threat turns in
    `sc.turns[node.depth]`, best first."""
    w = sc.states[WORK]
    turns = sc.turns[node.depth]
    nc = _list_candidates(w, sc, atk, nr, nd)
    win2 = -1
    if node.left == 1:
        nt, win1 = _one_stone_turns(w, sc, atk, nc, nr, hd, nd, need, turns, node.last0, node.last1)
    else:
        nt, win1, win2 = _two_stone_turns(w, sc, nc, hd, nd, need, node.zone, turns, node.last0, node.last1)
    for i in range(nc):
        sc.c6[C6_CAND_INDEX, sc.c6[C6_CANDIDATES, i]] = -1
    if win1 >= 0:
        return 0, win1, win2
    _sort_desc(turns, nt)
    return nt, -1, -1
