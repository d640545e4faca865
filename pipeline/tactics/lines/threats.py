"""Threat analysis for the k-in-a-row games (Gomoku freestyle/exact, Connect6) over the
flat state array.

Everything here is compiled and callable from other compiled code. Public kernels take
the state `s` (left unchanged: they work on a copy when they need to try stones) and a
preallocated boolean `out` of length cells, and return an int.

Definitions (player P, opponent O, k the win length):
  * winning cell of P: an empty cell where a stone of P completes a line by the rules
    (`makes_line`, so under exact rules a cell that would make an overline is not one).
  * four-making move of P: a move after which P has at least one winning cell.
  * double-four cell of P: a move after which P has two or more winning cells; the
    opponent can block only one of them, so it wins unless the opponent wins first.
  * three-making move of P (Gomoku): a move after which P has no winning cell but at
    least one double-four cell. This is the "open three" (and split three, and the 4-4
    set-up) defined by what it threatens rather than by a list of shapes, so exact-five
    overlines and board edges are handled by the same line check the rules use.
  * Connect6 threat window of P: six consecutive cells with at least 4 stones of P and
    none of O: P completes it with its two stones next turn. The number of threats is
    the fewest stones of O that hit every such window (1, 2, or 3 meaning "3 or more").

Why the local scans are sound: a stone changes the runs only along its own four lines,
so a stone at `c` can create a winning cell only on the lines through `c` within k
cells. The searches keep the invariant that the attacker has no winning cell at its own
turn, which makes these local scans exact there.

Renju (`rules: renju`): black's winning cells are its exact fives, which are never
forbidden; every other move black makes here (a four, a three, a double-four cell, a
block, a counter-four) must not be forbidden (`pipeline.games.renju`), so a forbidden
cell is neither a threat nor a defence for black. A white four whose only winning cell is
forbidden to black cannot be blocked (`threat_defences` says LOST). Against black's
threats, a white stone can also defend by making black's threat cell forbidden:
`defences_against` adds those stones, found among the cells the forbidden check reads.
"""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mover_at_ply, next_window, stones_left_in_turn
from pipeline.games.gomoku import DIR_C, DIR_R, exact_for, makes_line, run_length
from pipeline.games.kernels import winning_moves
from pipeline.games.layout import (
    BOARD,
    CONNECT6,
    HEIGHT,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    KIND,
    PLY,
    RENJU_RULE,
    RULES,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
)
from pipeline.games.renju import NOT_FORBIDDEN, board_of, forbidden_at, forbidden_kind

C6 = 6  # Connect6 window length
# The eight rays from a cell: ray 2d runs along DIR_R/DIR_C[d] backwards, ray 2d + 1 forwards.
RAY_R = np.array([sign * DIR_R[d] for d in range(4) for sign in (-1, 1)], dtype=np.int64)
RAY_C = np.array([sign * DIR_C[d] for d in range(4) for sign in (-1, 1)], dtype=np.int64)
LOST = -1  # threat_defences: the opponent's threats cannot all be stopped this turn


# ---- renju ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def restricted(s, player):
    """Does `player` have forbidden moves here (black under renju)?"""
    return s[RULES] == RENJU_RULE and player == 0


@njit(cache=True, nogil=True)
def illegal_for(s, player, cell):
    """Is the empty `cell` a forbidden move for `player` (black under renju)?"""
    return restricted(s, player) and forbidden_at(s, cell) != NOT_FORBIDDEN


@njit(cache=True, nogil=True)
def first_legal(s, player):
    """The first empty cell `player` may play, or -1: the reply shown in a proof where
    every reply loses (a renju block forbidden to black leaves black any move)."""
    for cell in range(s[HEIGHT] * s[WIDTH]):
        if s[BOARD + cell] == 0 and not illegal_for(s, player, cell):
            return cell
    return -1


@njit(cache=True, nogil=True)
def forbid_makers(w, nf, f_cells, f_w0, f_w1, seen, out_cells, n):
    """Renju, black attacking: the white stones that stop every one of black's threats f
    (double-four cells) where at least one is stopped by making f forbidden rather than by
    filling f or one of its winning cells. Only a cell the forbidden check of f_cells[0]
    reads can change its outcome (the check is a function of those cells), so the
    candidates are those. Appends to out_cells from n, skipping `seen`; returns the count."""
    h = w[HEIGHT]
    width = w[WIDTH]
    cells = h * width
    board = board_of(w)
    touched = np.zeros(cells, dtype=np.bool_)
    forbidden_kind(board, np.int64(h), np.int64(width), np.int64(f_cells[0]), touched)
    for m in range(cells):
        if not touched[m] or seen[m] or board[m] != 0:
            continue
        board[m] = 2
        stops_all = True
        for i in range(nf):
            f = f_cells[i]
            if m == f or (f_w1[i] >= 0 and (m == f_w0[i] or m == f_w1[i])):
                continue
            if forbidden_kind(board, np.int64(h), np.int64(width), np.int64(f), np.zeros(0, dtype=np.bool_)) == 0:
                stops_all = False
                break
        board[m] = 0
        if stops_all:
            seen[m] = True
            out_cells[n] = m
            n += 1
    return n


# ---- generic line helpers ------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def window_on_board(h, w, r0, c0, dr, dc, length):
    """Does the window of `length` cells from (r0, c0) along (dr, dc) lie on an h x w board?"""
    r1 = r0 + (length - 1) * dr
    c1 = c0 + (length - 1) * dc
    return 0 <= r0 < h and 0 <= c0 < w and 0 <= r1 < h and 0 <= c1 < w


@njit(cache=True, nogil=True, inline="always")
def ray(s, row, col, r):
    """Ray r (RAY_R/RAY_C[r]) from the cell at (row, col): (the index step from one of its
    cells to the next, how many of its first k cells, k the win length, lie on the
    board). Its cells are the cell + i * step for i in 1 .. that many, nearest first."""
    w = s[WIDTH]
    dr = RAY_R[r]
    dc = RAY_C[r]
    n = s[WIN_LENGTH]
    if dr > 0:
        n = min(n, s[HEIGHT] - 1 - row)
    elif dr < 0:
        n = min(n, row)
    if dc > 0:
        n = min(n, w - 1 - col)
    elif dc < 0:
        n = min(n, col)
    return dr * w + dc, n


@njit(cache=True, nogil=True)
def line_wins(s, cell, value, out_cells, n):
    """Append to `out_cells` (from index n) the empty cells on the four lines through
    `cell`, within k cells of it, where a stone of `value` wins; return the new count."""
    row, col = divmod(cell, s[WIDTH])
    for r in range(8):
        step, steps = ray(s, row, col, r)
        for i in range(1, steps + 1):
            e = cell + i * step
            if s[BOARD + e] == 0 and makes_line(s, e, value):
                out_cells[n] = e
                n += 1
    return n


@njit(cache=True, nogil=True)
def new_wins(s, cell, value, out_cells, n):
    """`line_wins` for a player who had no winning cell before its stone at `cell`: then
    every winning cell it has now is new, and a new one lies on a line through `cell`
    and wins along that same line (the other lines through it did not change), with
    nothing but its stones between it and `cell`. So each of the eight rays from `cell`
    holds at most one, its first empty cell, and one run along the ray decides it. The
    same cells in the same order as `line_wins`, at a fraction of the cost; the solvers
    keep the invariant (see the module notes)."""
    k = s[WIN_LENGTH]
    exact = exact_for(s, value)
    row, col = divmod(cell, s[WIDTH])
    for r in range(8):
        step, steps = ray(s, row, col, r)
        for i in range(1, steps + 1):
            e = cell + i * step
            v = s[BOARD + e]
            if v == value:
                continue
            if v == 0:
                run = run_length(s, e, value, DIR_R[r >> 1], DIR_C[r >> 1])
                if run == k or (run > k and not exact):
                    out_cells[n] = e
                    n += 1
            break
    return n


@njit(cache=True, nogil=True)
def mark_window_cells(s, value, min_own, max_own, length, mark):
    """Mark the empty cells of every `length`-cell window holding between `min_own` and
    `max_own` stones of `value` and no other stone; return how many windows matched."""
    h = s[HEIGHT]
    w = s[WIDTH]
    found = 0
    for d in range(4):
        dr = DIR_R[d]
        dc = DIR_C[d]
        for r0 in range(h):
            r_end = r0 + dr * (length - 1)
            if r_end >= h:
                continue
            for c0 in range(w):
                c_end = c0 + dc * (length - 1)
                if c_end < 0 or c_end >= w:
                    continue
                own = 0
                blocked = False
                for i in range(length):
                    v = s[BOARD + (r0 + dr * i) * w + c0 + dc * i]
                    if v == value:
                        own += 1
                    elif v != 0:
                        blocked = True
                        break
                if blocked or own < min_own or own > max_own:
                    continue
                found += 1
                for i in range(length):
                    e = (r0 + dr * i) * w + c0 + dc * i
                    if s[BOARD + e] == 0:
                        mark[e] = True
    return found


@njit(cache=True, nogil=True)
def count_wins_after(s, cell, value, scratch):
    """Winning cells of `value` created by a stone at `cell` (tried and taken back)."""
    s[BOARD + cell] = value
    n = line_wins(s, cell, value, scratch, 0)
    s[BOARD + cell] = 0
    return n


# ---- Gomoku ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def four_moves(s, player, out):
    """Mark the four-making moves of `player` (moves after which it has a winning cell
    it did not have before); return how many. Candidates come from k-windows with k-2 of
    its stones and no other; each is confirmed with the rules' own line check."""
    cells = s[HEIGHT] * s[WIDTH]
    k = s[WIN_LENGTH]
    work = np.empty_like(s)
    cand = np.zeros(cells, dtype=np.bool_)
    scratch = np.empty(8 * k + 8, dtype=np.int64)
    return four_moves_into(s, player, out, work, cand, scratch)


@njit(cache=True, nogil=True)
def double_four_cells(s, player, out):
    """Mark the cells where a stone of `player` makes two or more winning cells; return
    how many. Meant for a player with no winning cell (who would simply win)."""
    cells = s[HEIGHT] * s[WIDTH]
    k = s[WIN_LENGTH]
    value = player + 1
    w = s.copy()
    cand = np.zeros(cells, dtype=np.bool_)
    mark_window_cells(w, value, k - 2, k - 2, k, cand)
    scratch = np.empty(8 * k + 8, dtype=np.int64)
    n = 0
    for e in range(cells):
        ok = cand[e] and count_wins_after(w, e, value, scratch) >= 2 and not illegal_for(w, player, e)
        out[e] = ok
        if ok:
            n += 1
    return n


@njit(cache=True, nogil=True)
def double_fours_near(w, cell, value, f_cells, f_w0, f_w1):
    """The double-four cells of `value` on the lines through `cell` (the stone just
    played), with each one's winning cells: f_w0/f_w1 hold the two when there are
    exactly two, f_w1 = -2 when there are three or more (no single block stops it).
    Only the lines through `cell` can hold new ones; under renju a cell forbidden to
    black is none. Returns how many."""
    scratch = np.empty(8 * w[WIN_LENGTH] + 8, dtype=np.int64)
    return double_fours_near_into(w, cell, value, f_cells, f_w0, f_w1, scratch)


@njit(cache=True, nogil=True)
def three_moves(s, player, out):
    """Mark the three-making moves of `player`: after the move it has no winning cell
    but has a double-four cell it did not have before. Return how many. Meant for a
    player with no winning cell and no double-four cell (it would simply win: 0 when it
    has a winning cell)."""
    cells = s[HEIGHT] * s[WIDTH]
    k = s[WIN_LENGTH]
    value = player + 1
    w = s.copy()
    out[:cells] = False
    have = np.zeros(cells, dtype=np.bool_)
    if winning_moves(w, player, have) > 0:
        return 0
    cand = np.zeros(cells, dtype=np.bool_)
    mark_window_cells(w, value, max(k - 3, 1), k - 2, k, cand)
    scratch = np.empty(8 * k + 8, dtype=np.int64)
    f_cells = np.empty(8 * k + 8, dtype=np.int64)
    f_w0 = np.empty(8 * k + 8, dtype=np.int64)
    f_w1 = np.empty(8 * k + 8, dtype=np.int64)
    n = 0
    for e in range(cells):
        if not cand[e] or illegal_for(w, player, e):
            continue
        w[BOARD + e] = value
        if line_wins(w, e, value, scratch, 0) == 0 and double_fours_near(w, e, value, f_cells, f_w0, f_w1) > 0:
            out[e] = True
            n += 1
        w[BOARD + e] = 0
    return n


@njit(cache=True, nogil=True)
def defences_against(w, nf, f_cells, f_w0, f_w1, defender, out_cells):
    """The defender's complete answer set to double-four threats (the attacker has no
    winning cell, the defender none either): every move that leaves no double-four cell
    standing, i.e. lies in {f} + (its two winning cells) for every threat f, plus every
    four-making move of the defender (a counter-four the attacker must answer). Any other
    move loses at once to a double four. Under renju black's answers must not be
    forbidden, and white's include the stones that make black's threats forbidden
    (`forbid_makers`). Returns how many cells were written."""
    cells = w[HEIGHT] * w[WIDTH]
    seen = np.zeros(cells, dtype=np.bool_)
    cand = np.zeros(cells, dtype=np.bool_)
    scratch = np.empty(8 * w[WIN_LENGTH] + 8, dtype=np.int64)
    return defences_against_into(w, nf, f_cells, f_w0, f_w1, defender, out_cells, seen, cand, scratch)


@njit(cache=True, nogil=True)
def three_defences(s, attacker, out):
    """Mark the defender's complete reply set to `attacker`'s double-four threats (see
    `defences_against`); return how many, or 0 when the attacker threatens none. Meant
    for positions where neither side has a winning cell."""
    cells = s[HEIGHT] * s[WIDTH]
    k = s[WIN_LENGTH]
    value = attacker + 1
    w = s.copy()
    out[:cells] = False
    cap = cells + 1
    f_cells = np.empty(cap, dtype=np.int64)
    f_w0 = np.empty(cap, dtype=np.int64)
    f_w1 = np.empty(cap, dtype=np.int64)
    scratch = np.empty(8 * k + 8, dtype=np.int64)
    cand = np.zeros(cells, dtype=np.bool_)
    mark_window_cells(w, value, k - 2, k - 2, k, cand)
    nf = 0
    for f in range(cells):
        if not cand[f]:
            continue
        nw = count_wins_after(w, f, value, scratch)
        if nw >= 2 and not illegal_for(w, attacker, f):
            f_cells[nf] = f
            f_w0[nf] = scratch[0]
            f_w1[nf] = scratch[1] if nw == 2 else -2
            nf += 1
    if nf == 0:
        return 0
    found = np.empty(cap, dtype=np.int64)
    n = defences_against(w, nf, f_cells, f_w0, f_w1, 1 - attacker, found)
    for i in range(n):
        out[found[i]] = True
    return n


@njit(cache=True, nogil=True)
def gomoku_scan(s, counts, wins, cover):
    """One pass over the k-cell windows for both players, for the solvers' roots: per
    player p, `wins[p]` marks its winning cells (counts[2p] how many: the cells that
    `winning_moves` marks) and `cover[p]` counts, per cell, its windows with k - 2 of its
    stones and none of the other's (counts[2p + 1] how many such windows; the empty cells
    with a count are what `mark_window_cells(s, p + 1, k - 2, k - 2, k, ...)` marks, the
    four-making candidates; the solver keeps the counts as stones come). A winning cell lies
    in a window holding k - 1 of the player's stones and none of the other's (its run of
    k, or k of its run of more), so only those windows' empty cells are checked by the
    rules' line test."""
    h = s[HEIGHT]
    w = s[WIDTH]
    k = s[WIN_LENGTH]
    cells = h * w
    for p in range(2):
        counts[2 * p] = 0
        counts[2 * p + 1] = 0
        for c in range(cells):
            wins[p, c] = False
            cover[p, c] = 0
    for d in range(4):
        dr = DIR_R[d]
        dc = DIR_C[d]
        for r0 in range(h - dr * (k - 1)):  # the windows' first cells: every window on the board
            for c0 in range(max(0, -dc * (k - 1)), w - max(0, dc * (k - 1))):
                black = 0
                white = 0
                for i in range(k):
                    v = s[BOARD + (r0 + dr * i) * w + c0 + dc * i]
                    if v == 1:
                        black += 1
                    elif v == 2:
                        white += 1
                if black > 0 and white > 0:
                    continue
                for p in range(2):
                    if (white if p == 0 else black) != 0:
                        continue
                    own = black if p == 0 else white
                    if own == k - 1:
                        for i in range(k):
                            e = (r0 + dr * i) * w + c0 + dc * i
                            if s[BOARD + e] == 0:
                                wins[p, e] = True
                    elif own == k - 2:
                        counts[2 * p + 1] += 1
                        for i in range(k):
                            cover[p, (r0 + dr * i) * w + c0 + dc * i] += 1
    for p in range(2):
        n = 0
        for c in range(cells):
            if wins[p, c]:
                if makes_line(s, c, p + 1):
                    n += 1
                else:
                    wins[p, c] = False
        counts[2 * p] = n


@njit(cache=True, nogil=True)
def four_moves_into(s, player, out, work, cand, scratch):
    """`four_moves` in the caller's room: `work` a state array, `cand` bool [cells],
    `scratch` int64 [8k + 8]."""
    cells = s[HEIGHT] * s[WIDTH]
    k = s[WIN_LENGTH]
    value = player + 1
    work[:] = s
    cand[:cells] = False
    mark_window_cells(work, value, k - 2, k - 2, k, cand)
    n = 0
    for e in range(cells):
        ok = cand[e] and count_wins_after(work, e, value, scratch) > 0 and not illegal_for(work, player, e)
        out[e] = ok
        if ok:
            n += 1
    return n


@njit(cache=True, nogil=True)
def double_fours_near_into(w, cell, value, f_cells, f_w0, f_w1, scratch):
    """`double_fours_near` with the caller's `scratch` (int64 [8k + 8])."""
    nf = 0
    row, col = divmod(cell, w[WIDTH])
    for r in range(8):
        step, steps = ray(w, row, col, r)
        for i in range(1, steps + 1):
            f = cell + i * step
            if w[BOARD + f] != 0:
                continue
            nw = count_wins_after(w, f, value, scratch)
            if nw >= 2 and not illegal_for(w, value - 1, f):
                f_cells[nf] = f
                f_w0[nf] = scratch[0]
                f_w1[nf] = scratch[1] if nw == 2 else -2
                nf += 1
    return nf


@njit(cache=True, nogil=True)
def defences_against_into(w, nf, f_cells, f_w0, f_w1, defender, out_cells, seen, cand, scratch):
    """`defences_against` in the caller's room: `seen` and `cand` bool [cells],
    `scratch` int64 [8k + 8]."""
    cells = w[HEIGHT] * w[WIDTH]
    k = w[WIN_LENGTH]
    dval = defender + 1
    n = 0
    seen[:cells] = False
    for j in range(3):
        m = f_cells[0] if j == 0 else (f_w0[0] if j == 1 else f_w1[0])
        if j > 0 and f_w1[0] < 0:
            break
        ok = True
        for i in range(1, nf):
            if m != f_cells[i] and not (f_w1[i] >= 0 and (m == f_w0[i] or m == f_w1[i])):
                ok = False
                break
        if ok and not seen[m] and not illegal_for(w, defender, m):
            seen[m] = True
            out_cells[n] = m
            n += 1
    cand[:cells] = False
    mark_window_cells(w, dval, k - 2, k - 2, k, cand)
    for e in range(cells):
        if cand[e] and not seen[e] and count_wins_after(w, e, dval, scratch) > 0 and not illegal_for(w, defender, e):
            seen[e] = True
            out_cells[n] = e
            n += 1
    if restricted(w, 1 - defender):
        n = forbid_makers(w, nf, f_cells, f_w0, f_w1, seen, out_cells, n)
    return n


# ---- Connect6 windows and hitting sets -----------------------------------------------


@njit(cache=True, nogil=True)
def window_empties(s, start, d, e0, e1, i):
    """Record the (at most two) empty cells of window (start, d) in e0[i]/e1[i]."""
    w = s[WIDTH]
    r0 = start // w
    c0 = start % w
    e0[i] = -1
    e1[i] = -1
    for j in range(C6):
        e = (r0 + DIR_R[d] * j) * w + c0 + DIR_C[d] * j
        if s[BOARD + e] == 0:
            if e0[i] < 0:
                e0[i] = e
            else:
                e1[i] = e


@njit(cache=True, nogil=True)
def all_windows(s, player, min_own, keys, e0, e1):
    """Every six-window with at least `min_own` (>= 4) stones of `player` and none of
    the other: its key (start * 4 + direction) and its empty cells, in the order of a
    sweep (`connect6.next_window`). Returns how many."""
    n = 0
    d, r0, c0 = next_window(s, player, min_own, 0, 0, 0)
    while d < 4:
        start = r0 * s[WIDTH] + c0
        keys[n] = start * 4 + d
        window_empties(s, start, d, e0, e1, n)
        n += 1
        d, r0, c0 = next_window(s, player, min_own, d, r0, c0 + 1)
    return n


@njit(cache=True, nogil=True)
def _hits(a, b, e0, e1, i):
    return a == e0[i] or a == e1[i] or (b >= 0 and (b == e0[i] or b == e1[i]))


@njit(cache=True, nogil=True, inline="always")
def add_pair(pa, pb, m, a, b):
    """Append the unordered pair {a, b} to pa/pb[:m] (smaller cell first) unless it is
    listed; return the new count."""
    lo = min(a, b)
    hi = max(a, b)
    for q in range(m):
        if pa[q] == lo and pb[q] == hi:
            return m
    pa[m] = lo
    pb[m] = hi
    return m + 1


@njit(cache=True, nogil=True)
def hitting_number(e0, e1, n, mark):
    """Fewest stones that hit every window (each window has one or two empty cells):
    0, 1, 2, or 3 meaning three or more. For 1 and 2, mark every cell that belongs to
    a smallest hitting set. Every hitting set has a member in window 0, and, past that
    member, one in the first window it misses, so at most 2 x 2 pairs are tried."""
    if n == 0:
        return 0
    best = 3
    for j in range(2):
        a = e0[0] if j == 0 else e1[0]
        if a < 0:
            continue
        ok = True
        for i in range(1, n):
            if not _hits(a, -1, e0, e1, i):
                ok = False
                break
        if ok:
            mark[a] = True
            best = 1
    if best == 1:
        return 1
    for j in range(2):
        a = e0[0] if j == 0 else e1[0]
        if a < 0:
            continue
        miss = -1
        for i in range(1, n):
            if not _hits(a, -1, e0, e1, i):
                miss = i
                break
        for t in range(2):
            b = e0[miss] if t == 0 else e1[miss]
            if b < 0:
                continue
            ok = True
            for i in range(n):
                if not _hits(a, b, e0, e1, i):
                    ok = False
                    break
            if ok:
                mark[a] = True
                mark[b] = True
                best = 2
    return best


@njit(cache=True, nogil=True)
def hitting_pairs(e0, e1, n, pa, pb):
    """Every unordered pair of distinct cells that hits all windows, when no single
    cell does (see `hitting_number`); return how many were written to pa/pb."""
    m = 0
    for j in range(2):
        a = e0[0] if j == 0 else e1[0]
        if a < 0:
            continue
        miss = -1
        for i in range(1, n):
            if not _hits(a, -1, e0, e1, i):
                miss = i
                break
        if miss < 0:
            continue
        for t in range(2):
            b = e0[miss] if t == 0 else e1[miss]
            if b < 0:
                continue
            ok = True
            for i in range(n):
                if not _hits(a, b, e0, e1, i):
                    ok = False
                    break
            if ok:
                m = add_pair(pa, pb, m, a, b)
    return m


@njit(cache=True, nogil=True)
def shown_reply(e0, e1, n):
    """Against three threats or more (windows e0/e1[:n]), the defender's pair a proof
    shows: a cell of the first window and one of the first window that cell misses (-1
    when it hits them all); the attacker then completes a window the pair misses."""
    d1 = e0[0]
    for i in range(1, n):
        if e0[i] != d1 and e1[i] != d1:
            return d1, e0[i]
    return d1, -1


@njit(cache=True, nogil=True)
def null_move(s, out):
    """`out` = `s` with the rest of the mover's turn passed: the opponent to move."""
    out[:] = s
    if s[KIND] == CONNECT6:
        out[PLY] = s[PLY] + stones_left_in_turn(s[PLY])
        out[TO_MOVE] = mover_at_ply(out[PLY])
    else:
        out[PLY] = s[PLY] + 1
        out[TO_MOVE] = 1 - s[TO_MOVE]


@njit(cache=True, nogil=True)
def last_stones(s, player):
    """The latest two stones of `player` in the history of `s` (-1 where there are none):
    where a search's next threats are likeliest."""
    last0 = np.int64(-1)
    last1 = np.int64(-1)
    for i in range(HIST_LEN):
        if s[HIST_PLAYER + i] == player and s[HIST + i] >= 0:
            if last0 < 0:
                last0 = np.int64(s[HIST + i])
            elif last1 < 0:
                last1 = np.int64(s[HIST + i])
    return last0, last1


# ---- per-position summary for the player to move --------------------------------------


@njit(cache=True, nogil=True)
def threat_defences(s, out):
    """For the player to move: how many of its stones it needs this turn to stop the
    opponent winning on the opponent's next turn (0: no threat), or LOST (-1) when that
    takes more stones than it has left this turn (it must then win at once or lose).

    `out` marks the cells to defend with: Gomoku, the opponent's winning cells (exactly
    one when the answer is 1: the forced block; under renju a block forbidden to black
    makes it LOST); Connect6, every cell of a smallest set
    of cells hitting all the opponent's threat windows (with LOST, the cells of those
    windows). The turn's stones must include such a hitting set."""
    cap = 4 * s[HEIGHT] * s[WIDTH] if s[KIND] == CONNECT6 else 1
    keys = np.empty(cap, dtype=np.int64)
    e0 = np.empty(cap, dtype=np.int64)
    e1 = np.empty(cap, dtype=np.int64)
    return threat_defences_into(s, out, keys, e0, e1)


@njit(cache=True, nogil=True)
def threat_defences_into(s, out, keys, e0, e1):
    """`threat_defences` in the caller's room (Connect6: keys, e0, e1 of 4 x cells)."""
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    them = 1 - me
    out[:cells] = False
    if s[KIND] == CONNECT6:
        left = stones_left_in_turn(s[PLY])
        n = all_windows(s, them, 4, keys, e0, e1)
        hn = hitting_number(e0, e1, n, out)
        if hn <= left:
            return hn
        for i in range(n):
            out[e0[i]] = True
            if e1[i] >= 0:
                out[e1[i]] = True
        return LOST
    n = winning_moves(s, them, out)
    if n == 0:
        return 0
    if n == 1 and restricted(s, me):
        for cell in range(cells):
            if out[cell] and forbidden_at(s, cell) != NOT_FORBIDDEN:
                return LOST  # renju: the only block is forbidden to black
    return 1 if n == 1 else LOST


@njit(cache=True, nogil=True)
def connect6_threats(s, player, out):
    """The number of threats `player` holds in Connect6 (fewest opponent stones hitting
    all its windows of >= 4 stones and no opponent stone: 0, 1, 2, or 3 for 3+); `out`
    marks the cells of the smallest hitting sets when that number is 1 or 2."""
    cells = s[HEIGHT] * s[WIDTH]
    out[:cells] = False
    cap = 4 * cells
    keys = np.empty(cap, dtype=np.int64)
    e0 = np.empty(cap, dtype=np.int64)
    e1 = np.empty(cap, dtype=np.int64)
    n = all_windows(s, player, 4, keys, e0, e1)
    return hitting_number(e0, e1, n, out)
