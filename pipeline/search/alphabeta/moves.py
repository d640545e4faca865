"""Threats and move generation of the classical search, over its window counts.

Every node first asks the two questions a classical engine always asks: can the mover win
with the stones of this turn, and can the opponent win next turn (then the only moves are
the cells that stop it). Then come its moves: the blocks, or in the quiescence the fours,
or every empty cell near a stone, ordered by what a stone there makes and spoils.

These kernels read the incremental window counts of `patterns.Position` (`cnt`, `hot`),
not the flat state: `pipeline.tactics.lines.threats` answers the same questions
(`four_moves`, `connect6_threats`) by scanning the whole board and confirming each cell
with the rules' line check, in fresh arrays, which a search that asks them at every node
cannot afford, and its mask comes out in cell order where these lists keep window order
(the order decides ties in the move ordering, so the moves played would change). What
the rules decide is the rules' own kernels: a line (`pipeline.games.gomoku.makes_line`)
and renju's forbidden cells (`pipeline.games.renju.forbidden_on`), on the position's
state array.
"""

from __future__ import annotations

from numba import njit

from pipeline.games.gomoku import makes_line
from pipeline.games.layout import CONNECT6
from pipeline.games.renju import NOT_FORBIDDEN, forbidden_on, no_touch
from pipeline.search.alphabeta.patterns import (
    C_CELLS,
    C_EXACT,
    C_H,
    C_K,
    C_KIND,
    C_NWIN,
    C_RENJU,
    C_W,
    INF,
    S_STONES,
    SCALE,
    dead,
)

# ---- threats ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def add_unique(buf, n, cell):
    for i in range(n):
        if buf[i] == cell:
            return n
    buf[n] = cell
    return n + 1


@njit(cache=True, nogil=True)
def gomoku_wins(geo, pos, who, buf):
    """The cells where `who` makes k in a row at once, into `buf`; how many. Only windows
    with k - 1 of its stones and none of the other side's can hold one, and `hot` says
    whether any exists, so the scan runs only when there is something to find."""
    k = geo.cfg[C_K]
    if pos.hot[who, k - 1] == 0:
        return 0
    n = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, who] != k - 1 or pos.cnt[w, 1 - who] != 0:
            continue
        for i in range(k):
            x = geo.wcells[w, i]
            if pos.board[x] == 0:
                if (geo.cfg[C_EXACT] == 0 and (geo.cfg[C_RENJU] == 0 or who != 0)) or makes_line(pos.state, x, who + 1):
                    n = add_unique(buf, n, x)
                break
    return n


@njit(cache=True, nogil=True)
def connect6_win_cell(geo, pos, who, left):
    """An empty cell of a window `who` fills with the `left` stones of its turn (the
    window with the most of its stones), or -1."""
    best = -1
    most = 6 - left - 1
    if pos.hot[who, 5] == 0 and (left < 2 or pos.hot[who, 4] == 0):
        return -1
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, 1 - who] == 0 and pos.cnt[w, who] > most:
            most = pos.cnt[w, who]
            for i in range(6):
                x = geo.wcells[w, i]
                if pos.board[x] == 0:
                    best = x
                    break
    return best


@njit(cache=True, nogil=True)
def connect6_blocks(geo, pos, me, left, buf):
    """The cells that stop the opponent's win on its next turn: the empty cells of its
    windows with four or five stones and none of `me`'s. Returns (cells, lost): lost when
    `me` has one stone left and no one cell lies in every such window."""
    them = 1 - me
    if pos.hot[them, 4] == 0 and pos.hot[them, 5] == 0:
        return 0, False
    n = 0
    windows = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, me] != 0 or pos.cnt[w, them] < 4:
            continue
        windows += 1
        for i in range(6):
            x = geo.wcells[w, i]
            if pos.board[x] == 0:
                if pos.hits[x] == 0:
                    buf[n] = x
                    n += 1
                pos.hits[x] += 1
    best = 0
    for i in range(n):
        best = max(best, pos.hits[buf[i]])
        pos.hits[buf[i]] = 0
    return n, left == 1 and best < windows


@njit(cache=True, nogil=True)
def has_win(geo, pos, me, left, buf):
    """Plies to the mover's win within this turn (1 or 2), or 0."""
    if geo.cfg[C_KIND] == CONNECT6:
        if pos.hot[me, 5] > 0:
            return 1
        return 2 if left == 2 and pos.hot[me, 4] > 0 else 0
    return 1 if gomoku_wins(geo, pos, me, buf) > 0 else 0


@njit(cache=True, nogil=True)
def forbidden(geo, pos, cell):
    """Renju: is the empty `cell` forbidden to black? The rules' kernel, on the search's
    board (0/1/2 like the state's; it tries stones there and takes them back), behind its
    cheap pre-check, so most cells cost a count of the black stones near them."""
    return forbidden_on(pos.board, geo.cfg[C_H], geo.cfg[C_W], cell, no_touch()) != NOT_FORBIDDEN


@njit(cache=True, nogil=True)
def drop_forbidden(geo, pos, me, buf, n):
    """Keep, in order, the first `n` cells of `buf` that `me` may play; how many."""
    if geo.cfg[C_RENJU] == 0 or me != 0:
        return n  # only black under renju has forbidden moves
    m = 0
    for i in range(n):
        x = buf[i]
        if not forbidden(geo, pos, x):
            buf[m] = x
            m += 1
    return m


@njit(cache=True, nogil=True)
def forced_moves(geo, pos, me, left, buf):
    """(blocks, lost): the cells that stop the opponent winning next turn, written to
    `buf`, and whether the position is lost whatever the mover does (Gomoku: two or more
    winning cells, or under renju black's one block forbidden; Connect6: no cell in every
    threat window with one stone left)."""
    if geo.cfg[C_KIND] == CONNECT6:
        return connect6_blocks(geo, pos, me, left, buf)
    n = gomoku_wins(geo, pos, 1 - me, buf)
    if n == 1 and geo.cfg[C_RENJU] != 0 and me == 0 and forbidden(geo, pos, buf[0]):
        return 0, True  # renju: a forbidden cell is no defence for black
    return n, n >= 2


# ---- move generation and ordering ----------------------------------------------------------


@njit(cache=True, nogil=True)
def window_fours(geo, pos, me, buf):
    """Gomoku: the cells where `me` makes a four (a window one stone short of a line,
    free of the opponent), into `buf`; how many."""
    k = geo.cfg[C_K]
    if k < 3 or pos.hot[me, k - 2] == 0:
        return 0
    n = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, me] != k - 2 or pos.cnt[w, 1 - me] != 0 or dead(geo, pos, w, me):
            continue
        for i in range(k):
            x = geo.wcells[w, i]
            if pos.board[x] == 0 and pos.hits[x] == 0:
                pos.hits[x] = 1
                buf[n] = x
                n += 1
    for i in range(n):
        pos.hits[buf[i]] = 0
    return n


@njit(cache=True, nogil=True)
def candidates(geo, pos, buf):
    """Empty cells within distance 2 of a stone (the centre of an empty board)."""
    cells = geo.cfg[C_CELLS]
    if pos.st[S_STONES] == 0:
        buf[0] = (geo.cfg[C_H] // 2) * geo.cfg[C_W] + geo.cfg[C_W] // 2
        return 1
    n = 0
    for x in range(cells):
        if pos.board[x] == 0 and pos.near[x] > 0:
            buf[n] = x
            n += 1
    return n


@njit(cache=True, nogil=True)
def empty_cells(geo, pos, buf):
    n = 0
    for x in range(geo.cfg[C_CELLS]):
        if pos.board[x] == 0:
            buf[n] = x
            n += 1
    return n


@njit(cache=True, nogil=True)
def order_score(geo, pos, cell, me):
    """What a stone of `me` on `cell` makes (its windows' growth) plus what it blocks (the
    opponent's windows it spoils), with the seeded jitter below SCALE to break ties."""
    them = 1 - me
    wt = geo.weights
    score = 0
    for i in range(geo.ncont[cell]):
        w = geo.cwins[cell, i]
        a = pos.cnt[w, me]
        b = pos.cnt[w, them]
        if b == 0 and not dead(geo, pos, w, me):
            score += wt[min(a + 1, geo.cfg[C_K])] - wt[a]
        if a == 0 and b > 0 and not dead(geo, pos, w, them):
            score += wt[b]
    return score * SCALE + pos.jitter[cell]


@njit(cache=True, nogil=True)
def score_moves(geo, pos, ply, n, me, first):
    """Ordering scores of row `ply`'s `n` moves; `first` (the table's move) goes first."""
    for i in range(n):
        x = pos.moves[ply, i]
        pos.scores[ply, i] = INF if x == first else order_score(geo, pos, x, me)


@njit(cache=True, nogil=True)
def pick_next(pos, ply, i, n):
    """Selection sort one step at a time: a cutoff early leaves the rest unsorted."""
    best = i
    for j in range(i + 1, n):
        if pos.scores[ply, j] > pos.scores[ply, best]:
            best = j
    if best != i:
        m = pos.moves[ply, i]
        s = pos.scores[ply, i]
        pos.moves[ply, i] = pos.moves[ply, best]
        pos.scores[ply, i] = pos.scores[ply, best]
        pos.moves[ply, best] = m
        pos.scores[ply, best] = s
    return pos.moves[ply, i]
