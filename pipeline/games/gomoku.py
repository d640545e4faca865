"""Gomoku rules: k in a row on an HxW board, freestyle (k or more) or exact (exactly k).

Connect6 reuses the line kernels here with k=6, freestyle.
"""

import numpy as np
from numba import njit

from pipeline.games.layout import (
    BOARD,
    DRAW,
    EXACT,
    HEIGHT,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    PLY,
    STONES,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
    WINNER,
)

DIR_R = np.array([0, 1, 1, 1], dtype=np.int64)
DIR_C = np.array([1, 0, 1, -1], dtype=np.int64)


@njit(cache=True, nogil=True)
def run_length(s, cell, value, dr, dc):
    """Stones of `value` in the line through `cell` along (dr, dc), counting `cell`
    itself as one of them whether or not it is already placed."""
    h = s[HEIGHT]
    w = s[WIDTH]
    r0 = cell // w
    c0 = cell % w
    n = 1
    r = r0 + dr
    c = c0 + dc
    while 0 <= r < h and 0 <= c < w and s[BOARD + r * w + c] == value:
        n += 1
        r += dr
        c += dc
    r = r0 - dr
    c = c0 - dc
    while 0 <= r < h and 0 <= c < w and s[BOARD + r * w + c] == value:
        n += 1
        r -= dr
        c -= dc
    return n


@njit(cache=True, nogil=True)
def makes_line(s, cell, value):
    """Would a stone of `value` at `cell` complete a winning line (incremental check)."""
    k = s[WIN_LENGTH]
    exact = s[EXACT] != 0
    for d in range(4):
        n = run_length(s, cell, value, DIR_R[d], DIR_C[d])
        if n == k or (n > k and not exact):
            return True
    return False


@njit(cache=True, nogil=True)
def push_history(s, cell, player):
    for i in range(HIST_LEN - 1, 0, -1):
        s[HIST + i] = s[HIST + i - 1]
        s[HIST_PLAYER + i] = s[HIST_PLAYER + i - 1]
    s[HIST] = cell
    s[HIST_PLAYER] = player


@njit(cache=True, nogil=True)
def place_stone(s, cell):
    """Place the mover's stone and settle the winner; the caller sets who moves next."""
    p = s[TO_MOVE]
    s[BOARD + cell] = p + 1
    push_history(s, cell, p)
    s[PLY] += 1
    s[STONES] += 1
    if makes_line(s, cell, p + 1):
        s[WINNER] = p
    elif s[STONES] == s[HEIGHT] * s[WIDTH]:
        s[WINNER] = DRAW


@njit(cache=True, nogil=True)
def apply_gomoku(s, cell):
    place_stone(s, cell)
    s[TO_MOVE] = s[PLY] % 2


@njit(cache=True, nogil=True)
def winning_cells(s, player, out):
    """Mark in `out` the empty cells where `player` would win at once; return how many."""
    cells = s[HEIGHT] * s[WIDTH]
    n = 0
    for cell in range(cells):
        if s[BOARD + cell] == 0 and makes_line(s, cell, player + 1):
            out[cell] = True
            n += 1
    return n
