"""Connect6 line tables: the board's six-windows, numbered once per board size, and the
search's per-window stone counts, kept as stones come and go.

`c6_tables` numbers the windows (the cells of each window, the windows through each
cell); `c6_setup` counts each window's stones per player for a position, and `c6_put`
keeps the counts and the list of the attacker's live windows (two or more of its
stones, none of the defender's) as the search puts and takes back stones. The searches
read everything else from them: a turn's threats from the windows through its two
stones (`c6_threats`), the defender's threats from the windows through its last stones
(`c6_defender_threats`), never from a sweep of the board. Every array is in the
scratch (`pipeline.tactics.lines.scratch`: `wcells`, `cwins` and the rows C6_*).
"""

from numba import njit

from pipeline.games.gomoku import DIR_C, DIR_R
from pipeline.games.layout import BOARD, HEIGHT, WIDTH
from pipeline.tactics.lines.scratch import (
    C6_CAND_INDEX,
    C6_DEFENDER_EMPTY0,
    C6_DEFENDER_EMPTY1,
    C6_HEADER,
    C6_LIVE,
    C6_LIVE_INDEX,
    C6_N_EMPTY,
    C6_N_LIVE,
    C6_N_WINDOWS,
    C6_ROOT_FOURS,
    C6_STONES,
    C6_TABLE_HEIGHT,
    C6_TABLE_WIDTH,
    C6_THREAT_EMPTY0,
    C6_THREAT_EMPTY1,
    C6_THREES_MADE,
    C6_WINDOW_STAMP,
    C6_WINDOW_STAMP_NOW,
    C6_WINDOWS_THROUGH,
)

WINDOW = 6  # the cells of a window (a row of `wcells`)


@njit(cache=True, nogil=True)
def c6_tables(sc, height, width):
    """Number the six-windows of an height x width board (rows, columns, diagonals,
    anti-diagonals): `sc.wcells[i]` the cells of window i, `sc.cwins[c, :n]` the n windows
    through cell c (n in row C6_WINDOWS_THROUGH). Made once per scratch and board size."""
    dims = sc.c6[C6_HEADER]
    if dims[C6_TABLE_HEIGHT] == height and dims[C6_TABLE_WIDTH] == width:
        return
    cwn = sc.c6[C6_WINDOWS_THROUGH]
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
                for i in range(WINDOW):
                    cell = (r0 + i * dr) * width + c0 + i * dc
                    sc.wcells[n, i] = cell
                    sc.cwins[cell, cwn[cell]] = n
                    cwn[cell] += 1
                n += 1
    dims[C6_TABLE_HEIGHT] = height
    dims[C6_TABLE_WIDTH] = width
    dims[C6_N_WINDOWS] = n


@njit(cache=True, nogil=True)
def c6_setup(w, atk, sc):
    """The search's window counts and live list for the board of `w`, `atk` attacking."""
    c6 = sc.c6
    dims = c6[C6_HEADER]
    nw = dims[C6_N_WINDOWS]
    cells = w[HEIGHT] * w[WIDTH]
    c6[C6_STONES, :nw] = 0
    c6[C6_STONES + 1, :nw] = 0
    c6[C6_CAND_INDEX, :cells] = -1
    empty = 0
    for c in range(cells):
        v = w[BOARD + c]
        if v == 0:
            empty += 1
            continue
        row = c6[C6_STONES + v - 1]
        for k in range(c6[C6_WINDOWS_THROUGH, c]):
            row[sc.cwins[c, k]] += 1
    own = c6[C6_STONES + atk]
    other = c6[C6_STONES + 1 - atk]
    live = c6[C6_LIVE]
    at = c6[C6_LIVE_INDEX]
    n = 0
    for wi in range(nw):
        if own[wi] >= 2 and other[wi] == 0:
            live[n] = wi
            at[wi] = n
            n += 1
        else:
            at[wi] = -1
    dims[C6_N_LIVE] = n
    dims[C6_N_EMPTY] = empty


@njit(cache=True, nogil=True)
def c6_put(w, sc, atk, cell, v, delta):
    """Put (delta 1) or take back (delta -1) a stone of value v on `cell`, keeping the
    window counts and the attacker's live list."""
    w[BOARD + cell] = v if delta > 0 else 0
    c6 = sc.c6
    row = c6[C6_STONES + v - 1]
    own = c6[C6_STONES + atk]
    other = c6[C6_STONES + 1 - atk]
    live = c6[C6_LIVE]
    at = c6[C6_LIVE_INDEX]
    dims = c6[C6_HEADER]
    for k in range(c6[C6_WINDOWS_THROUGH, cell]):
        wi = sc.cwins[cell, k]
        row[wi] += delta
        now = own[wi] >= 2 and other[wi] == 0
        i = at[wi]
        if now and i < 0:
            n = dims[C6_N_LIVE]
            live[n] = wi
            at[wi] = n
            dims[C6_N_LIVE] = n + 1
        elif not now and i >= 0:
            n = dims[C6_N_LIVE] - 1
            last = live[n]
            live[i] = last
            at[last] = i
            at[wi] = -1
            dims[C6_N_LIVE] = n
    dims[C6_N_EMPTY] -= delta


@njit(cache=True, nogil=True)
def c6_empties(w, sc, wi, c1, c2):
    """The empty cells of window wi other than c1 and c2 (-1 where none)."""
    e0 = -1
    e1 = -1
    for i in range(WINDOW):
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
    and none of the defender's, plus the root's windows of four or five (C6_ROOT_FOURS[:nr]).
    Their empty cells after the stones go to rows C6_THREAT_EMPTY0/C6_THREAT_EMPTY1. Returns (threat windows,
    windows of three made: the turn's threats for the next turn)."""
    c6 = sc.c6
    own = c6[C6_STONES + atk]
    other = c6[C6_STONES + 1 - atk]
    stamps = c6[C6_WINDOW_STAMP]
    e0 = c6[C6_THREAT_EMPTY0]
    e1 = c6[C6_THREAT_EMPTY1]
    stamp = c6[C6_HEADER, C6_WINDOW_STAMP_NOW] + 1
    c6[C6_HEADER, C6_WINDOW_STAMP_NOW] = stamp
    n = 0
    pot = 0
    for which in range(3):
        x = c1 if which == 0 else c2
        if which < 2 and x < 0:
            continue
        count = c6[C6_WINDOWS_THROUGH, x] if which < 2 else nr
        for k in range(count):
            wi = sc.cwins[x, k] if which < 2 else c6[C6_ROOT_FOURS, k]
            if stamps[wi] == stamp:
                continue
            stamps[wi] = stamp
            if other[wi] != 0 or own[wi] < 2:
                continue  # (one stone and both of the turn's make three: not counted)
            add = 0
            a0 = -1
            a1 = -1
            for i in range(WINDOW):
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
                c6[C6_THREES_MADE, pot] = wi
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
    into rows C6_DEFENDER_EMPTY0/C6_DEFENDER_EMPTY1: through its stones d1 and d2 when given (the only ones that
    can be new at an inner node), else over the whole board. Returns how many."""
    c6 = sc.c6
    own = c6[C6_STONES + 1 - atk]
    other = c6[C6_STONES + atk]
    e0 = c6[C6_DEFENDER_EMPTY0]
    e1 = c6[C6_DEFENDER_EMPTY1]
    n = 0
    if d1 < 0:
        for wi in range(c6[C6_HEADER, C6_N_WINDOWS]):
            if own[wi] >= 4 and other[wi] == 0:
                e0[n], e1[n] = c6_empties(w, sc, wi, -1, -1)
                n += 1
        return n
    stamps = c6[C6_WINDOW_STAMP]
    stamp = c6[C6_HEADER, C6_WINDOW_STAMP_NOW] + 1
    c6[C6_HEADER, C6_WINDOW_STAMP_NOW] = stamp
    for which in range(2):
        x = d1 if which == 0 else d2
        if x < 0:
            continue
        for k in range(c6[C6_WINDOWS_THROUGH, x]):
            wi = sc.cwins[x, k]
            if stamps[wi] == stamp:
                continue
            stamps[wi] = stamp
            if own[wi] >= 4 and other[wi] == 0:
                e0[n], e1[n] = c6_empties(w, sc, wi, -1, -1)
                n += 1
    return n
