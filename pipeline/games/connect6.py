"""Connect6: black opens with one stone, then each side places two stones per turn;
six or more in a row wins. Each stone is its own action, so the player to move is
known at every ply and search needs no special turn handling."""

from numba import njit

from pipeline.games.gomoku import DIR_C, DIR_R, place_stone
from pipeline.games.layout import BOARD, HEIGHT, PLY, TO_MOVE, WIDTH

CONNECT = 6


@njit(cache=True, nogil=True)
def mover_at_ply(ply):
    return ((ply + 1) // 2) % 2


@njit(cache=True, nogil=True)
def stones_left_in_turn(ply):
    """Stones the player to move still places this turn, counting the next one."""
    if ply == 0 or ply % 2 == 0:
        return 1
    return 2


@njit(cache=True, nogil=True)
def apply_connect6(s, cell):
    place_stone(s, cell)
    s[TO_MOVE] = mover_at_ply(s[PLY])


@njit(cache=True, nogil=True, inline="always")
def _stones_in(s, r0, c0, dr, dc, own):
    """The stones of value `own` in the six cells from (r0, c0) along (dr, dc), all on the
    board, or -1 when one of them holds a stone of the other side."""
    w = s[WIDTH]
    n = 0
    for i in range(CONNECT):
        v = s[BOARD + (r0 + dr * i) * w + c0 + dc * i]
        if v == own:
            n += 1
        elif v != 0:
            return -1
    return n


@njit(cache=True, nogil=True)
def window_stones(s, r0, c0, d, own):
    """The stones of value `own` in the six-window from (r0, c0) along direction d (DIR_R,
    DIR_C), or -1 when the window leaves the board or holds a stone of the other side."""
    h = s[HEIGHT]
    w = s[WIDTH]
    r_end = r0 + DIR_R[d] * (CONNECT - 1)
    c_end = c0 + DIR_C[d] * (CONNECT - 1)
    if r0 < 0 or r0 >= h or c0 < 0 or c0 >= w or r_end < 0 or r_end >= h or c_end < 0 or c_end >= w:
        return -1
    return _stones_in(s, r0, c0, DIR_R[d], DIR_C[d], own)


@njit(cache=True, nogil=True)
def next_window(s, player, min_own, d, r0, c0):
    """The first six-window at or after (d, r0, c0) in the order of a sweep (direction,
    then row, then column of its first cell) holding at least `min_own` stones of
    `player` and none of the other side: its (d, r0, c0), or d = 4 when there is none."""
    h = s[HEIGHT]
    w = s[WIDTH]
    own = player + 1
    while d < 4:
        dr = DIR_R[d]
        dc = DIR_C[d]
        if r0 + dr * (CONNECT - 1) < h:
            # The first cells whose windows stay on the board in this row.
            first = CONNECT - 1 if dc < 0 else 0
            last = w - CONNECT if dc > 0 else w - 1
            for c in range(max(c0, first), last + 1):
                if _stones_in(s, r0, c, dr, dc, own) >= min_own:
                    return d, r0, c
        c0 = 0
        r0 += 1
        if r0 >= h:
            r0 = 0
            d += 1
    return d, r0, c0


@njit(cache=True, nogil=True)
def mark_windows(s, player, min_own, out):
    """Mark the empty cells of every six-cell window holding at least `min_own` stones of
    `player` and none of the other side: filling such a window makes six in a row.
    Returns the number of windows found."""
    w = s[WIDTH]
    found = 0
    d, r0, c0 = next_window(s, player, min_own, 0, 0, 0)
    while d < 4:
        found += 1
        for i in range(CONNECT):
            cell = (r0 + DIR_R[d] * i) * w + c0 + DIR_C[d] * i
            if s[BOARD + cell] == 0:
                out[cell] = True
        d, r0, c0 = next_window(s, player, min_own, d, r0, c0 + 1)
    return found
