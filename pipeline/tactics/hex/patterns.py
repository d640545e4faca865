"""Hex inferior cells: dead cells and captured pairs, from a cell's ring of six neighbours.

Theory (Hayward, Björnsson, Henderson, "Hex, Inferior Cells"):

* A cell is *dead* when its colour can never change the winner of any completion of the
  board. In Hex it is enough that the cell lies on no minimal winning set of ONE player:
  every full board has exactly one winner, so a cell useless to one player is useless
  to both. Playing a dead cell is a pass, and a pass is never better than any move
  (an extra own stone never hurts), so dead cells can leave the candidate moves.
* A pair {x, y} of empty neighbours is *P-captured* when P playing either one makes the
  other dead. If the opponent plays into the pair, P answers in the other cell and the
  intrusion is dead: the pair is P's for free. A move into any captured pair (either
  colour's) is again at best a pass, so it is never better than any other move.

Uselessness is tested soundly and locally: walk the ring of six positions around the cell
(board cells, the player's own edges, the opponent's edges; the off-board corner between
two different edges is no node at all). For a minimal winning path through x to need x,
two of x's ring positions must be joined only through x. We show every pair of ring
positions that the player could use is joined without x through cells that are surely
the player's: own stones, own edges and their groups. Empty cells other than the pair's
ends are assumed absent (the worst case), so a claim of uselessness is always true.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import find, link_stone
from pipeline.games.layout import BOARD, HEX_BOTTOM, HEX_LEFT, HEX_RIGHT, HEX_TOP, TO_MOVE, WIDTH, WINNER

# The six neighbours in circular order, so ring positions i and i+1 are adjacent cells.
RING_R = np.array([-1, -1, 0, 1, 1, 0], dtype=np.int64)
RING_C = np.array([0, 1, 1, 0, -1, -1], dtype=np.int64)

OPP = 0  # the opponent's stone or edge, or no node at all: unusable
EMPTY = 1
OWN = 2
EXTRA = -2  # group id of a hypothetical extra own stone (and every group it touches)


@njit(cache=True, nogil=True)
def _position(s, n, r, c, player):
    """Label and group id of board position (r, c), which may lie past an edge."""
    cells = n * n
    off_r = r < 0 or r >= n
    off_c = c < 0 or c >= n
    if off_r and off_c:
        return OPP, -1  # the corner between two different edges is no node
    if off_r:
        if player != 0:
            return OPP, -1
        return OWN, find(s, cells + (HEX_TOP if r < 0 else HEX_BOTTOM))
    if off_c:
        if player != 1:
            return OPP, -1
        return OWN, find(s, cells + (HEX_LEFT if c < 0 else HEX_RIGHT))
    cell = r * n + c
    v = s[BOARD + cell]
    if v == 0:
        return EMPTY, cell
    if v == player + 1:
        return OWN, find(s, cell)
    return OPP, -1


@njit(cache=True, nogil=True)
def _extra_roots(s, n, extra, player, roots):
    """Group ids that a hypothetical `player` stone on `extra` would join; return count."""
    r = extra // n
    c = extra % n
    k = 0
    for i in range(6):
        lab, gid = _position(s, n, r + RING_R[i], c + RING_C[i], player)
        if lab == OWN:
            roots[k] = gid
            k += 1
    return k


@njit(cache=True, nogil=True)
def useless_for(s, cell, player, extra, extra_player, scratch):
    """True when empty `cell` lies on no minimal winning set of `player`, given the board
    plus (when extra >= 0) a hypothetical stone of `extra_player` on `extra`. `scratch`:
    int64 work space of length 24 (hot loops pass one in rather than allocate)."""
    n = s[WIDTH]
    r = cell // n
    c = cell % n
    lab = scratch[0:6]
    gid = scratch[6:12]
    roots = scratch[12:18]
    comp = scratch[18:24]
    n_roots = 0
    if extra >= 0 and extra_player == player:
        n_roots = _extra_roots(s, n, extra, player, roots)
    for i in range(6):
        rr = r + RING_R[i]
        cc = c + RING_C[i]
        if extra >= 0 and 0 <= rr < n and 0 <= cc < n and rr * n + cc == extra:
            if extra_player == player:
                lab[i] = OWN
                gid[i] = EXTRA
            else:
                lab[i] = OPP
                gid[i] = -1
            continue
        lab[i], gid[i] = _position(s, n, rr, cc, player)
        if lab[i] == OWN:
            for k in range(n_roots):
                if roots[k] == gid[i]:
                    gid[i] = EXTRA
    # Components of own positions: ring-adjacent own positions touch, equal groups are one.
    for i in range(6):
        comp[i] = i
    for _ in range(2):  # two sweeps settle a ring of six
        for i in range(6):
            if lab[i] != OWN:
                continue
            for j in range(6):
                if j != i and lab[j] == OWN and (gid[j] == gid[i] or j == (i + 1) % 6 or i == (j + 1) % 6):
                    m = min(comp[i], comp[j])
                    comp[i] = m
                    comp[j] = m
    # Each usable position reaches these components without x (its own, or its own neighbours').
    for u in range(6):
        if lab[u] == OPP:
            continue
        for v in range(u + 1, 6):
            if lab[v] == OPP:
                continue
            if v == u + 1 or (u == 0 and v == 5):
                continue  # ring neighbours are adjacent cells
            joined = False
            for a in range(3):
                iu = u if a == 0 else (u + 5) % 6 if a == 1 else (u + 1) % 6
                if lab[iu] != OWN or (a > 0 and lab[u] == OWN):
                    continue
                for b in range(3):
                    iv = v if b == 0 else (v + 5) % 6 if b == 1 else (v + 1) % 6
                    if lab[iv] != OWN or (b > 0 and lab[v] == OWN):
                        continue
                    if comp[iu] == comp[iv]:
                        joined = True
            if not joined:
                return False
    return True


@njit(cache=True, nogil=True)
def _filled_around(s, cell, extra):
    """Ring positions of `cell` that are not empty (stones, edges, corner gaps; `extra`
    counts as a stone). A dead cell needs several: this is a cheap filter only."""
    n = s[WIDTH]
    r = cell // n
    c = cell % n
    k = 0
    for i in range(6):
        rr = r + RING_R[i]
        cc = c + RING_C[i]
        if not (0 <= rr < n and 0 <= cc < n) or rr * n + cc == extra or s[BOARD + rr * n + cc] != 0:
            k += 1
    return k


@njit(cache=True, nogil=True)
def is_dead_with(s, cell, extra, extra_player, scratch):
    """Dead: useless to one player, hence (Hex has one winner per full board) to both.
    With a ring of fewer than three filled positions some pair of usable positions two
    apart is always joined only through the cell, so those are skipped at once."""
    if _filled_around(s, cell, extra) < 3:
        return False
    return useless_for(s, cell, 0, extra, extra_player, scratch) or useless_for(
        s, cell, 1, extra, extra_player, scratch
    )


@njit(cache=True, nogil=True)
def is_dead(s, cell, extra, extra_player):
    """`is_dead_with` with its own work space (extra = -1: no hypothetical stone)."""
    return is_dead_with(s, cell, extra, extra_player, np.empty(24, dtype=np.int64))


@njit(cache=True, nogil=True)
def dead_mask(s, out):
    """Mark the dead empty cells in `out` (bool, length cells); return how many."""
    n = s[WIDTH]
    found = 0
    scratch = np.empty(24, dtype=np.int64)
    for cell in range(n * n):
        if s[BOARD + cell] == 0 and is_dead_with(s, cell, -1, -1, scratch):
            out[cell] = True
            found += 1
    return found


@njit(cache=True, nogil=True)
def captured_pairs(s, player, out):
    """Mark the cells of `player`-captured pairs of adjacent empty cells; return how many
    pairs. A pair is captured when either stone of `player` makes the other cell dead."""
    n = s[WIDTH]
    pairs = 0
    scratch = np.empty(24, dtype=np.int64)
    for x in range(n * n):
        if s[BOARD + x] != 0:
            continue
        r = x // n
        c = x % n
        for d in range(3):  # each unordered pair once: right, down-left, down
            rr = r + (0 if d == 0 else 1)
            cc = c + (1 if d == 0 else -1 if d == 1 else 0)
            if not (0 <= rr < n and 0 <= cc < n):
                continue
            y = rr * n + cc
            if s[BOARD + y] != 0:
                continue
            if is_dead_with(s, x, y, player, scratch) and is_dead_with(s, y, x, player, scratch):
                out[x] = True
                out[y] = True
                pairs += 1
    return pairs


@njit(cache=True, nogil=True)
def inferior_mask(s, out):
    """Mark in `out` (bool, length cells, cleared here) the empty cells the player to move
    can drop from its candidates without changing the game value: dead cells and cells of
    either colour's captured pairs. Each is at best a pass, never better than any other
    move, so at least one empty cell is always left unmarked. Return how many are marked."""
    n = s[WIDTH]
    cells = n * n
    for cell in range(cells):
        out[cell] = False
    dead_mask(s, out)
    captured_pairs(s, 0, out)
    captured_pairs(s, 1, out)
    marked = 0
    keep = -1
    for cell in range(cells):
        if s[BOARD + cell] == 0:
            if out[cell]:
                marked += 1
            else:
                keep = cell
    if keep < 0 and marked > 0:
        # Everything is a pass: any one of them must stay a move.
        for cell in range(cells):
            if out[cell]:
                out[cell] = False
                marked -= 1
                break
    return marked


@njit(cache=True, nogil=True)
def fill_inferior(s, out_state):
    """Copy `s` into `out_state` with every dead cell and every captured pair filled (the
    captor's colour; dead cells the colour of the player not to move), repeated until
    nothing changes. The winner of `out_state` (once decided) is the winner of `s`; the
    union-find forest and WINNER are kept up to date, PLY and TO_MOVE are not touched.
    Return how many cells were filled."""
    n = s[WIDTH]
    cells = n * n
    out_state[:] = s[:]
    marks = np.zeros(cells, dtype=np.bool_)
    filled = 0
    filler = 1 - s[TO_MOVE]  # a dead cell's colour does not matter
    changed = True
    while changed and out_state[WINNER] < 0:
        changed = False
        for colour in range(2):
            marks[:] = False
            if captured_pairs(out_state, colour, marks) > 0:
                for cell in range(cells):
                    if marks[cell] and out_state[BOARD + cell] == 0:
                        out_state[BOARD + cell] = colour + 1
                        if link_stone(out_state, cell, colour):
                            out_state[WINNER] = colour
                        filled += 1
                        changed = True
                        break  # pairs may overlap: re-derive them after each fill
        marks[:] = False
        if dead_mask(out_state, marks) > 0:
            for cell in range(cells):
                if marks[cell]:
                    out_state[BOARD + cell] = filler + 1
                    if link_stone(out_state, cell, filler):
                        out_state[WINNER] = filler
                    filled += 1
                    changed = True
                    break
    return filled
