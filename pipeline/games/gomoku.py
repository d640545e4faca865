"""Gomoku rules: k in a row on an HxW board, freestyle (k or more), exact (exactly k) or
renju (black exactly five and no forbidden moves, white five or more: `renju`).

Connect6 reuses the line kernels here with k=6, freestyle.
"""

import numpy as np
from numba import njit

from pipeline.games.layout import (
    BOARD,
    DRAW,
    EXACT_RULE,
    HEIGHT,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    PLY,
    RENJU_RULE,
    RULES,
    STONES,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
    WINNER,
)
from pipeline.games.renju import black_has_move

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
def exact_for(s, value):
    """Does a stone of `value` (1 black, 2 white) win only with exactly k? Under exact
    rules both colours, under renju black only."""
    rule = s[RULES]
    return rule == EXACT_RULE or (rule == RENJU_RULE and value == 1)


@njit(cache=True, nogil=True)
def makes_line(s, cell, value):
    """Would a stone of `value` at `cell` complete a winning line (incremental check)."""
    k = s[WIN_LENGTH]
    exact = exact_for(s, value)
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
    elif p == 1 and s[RULES] == RENJU_RULE and not black_has_move(s):
        s[WINNER] = DRAW  # renju: every empty cell is forbidden to black, who cannot move


@njit(cache=True, nogil=True)
def apply_gomoku(s, cell):
    place_stone(s, cell)
    s[TO_MOVE] = s[PLY] % 2


@njit(cache=True, nogil=True)
def winning_cells(s, player, out):
    """Mark in `out` the empty cells where `player` would win at once; return how many.

    The search's solver asks this at every expansion, so it is two sweeps over the board
    rather than a line check from every empty cell (3-5x faster on 15x15 to 20x20): the
    first records, per direction, the run of `player`'s stones ending at each cell, the
    second (in reverse) the run starting there, and meets each empty cell with both
    runs beside it. Fewer than k - 1 stones cannot win: no sweep at all."""
    h = s[HEIGHT]
    w = s[WIDTH]
    cells = h * w
    k = s[WIN_LENGTH]
    own = player + 1
    exact = exact_for(s, own)
    stones = 0
    for cell in range(cells):
        if s[BOARD + cell] == own:
            stones += 1
    if stones < k - 1:
        return 0
    before = np.empty((4, cells), dtype=np.int32)  # own run ending at the cell, along d
    after = np.empty((4, cells), dtype=np.int32)  # own run starting at the cell, along d
    for r in range(h):
        for c in range(w):
            cell = r * w + c
            mine = s[BOARD + cell] == own
            for d in range(4):
                run = 0
                if mine:
                    pr = r - DIR_R[d]
                    pc = c - DIR_C[d]
                    run = 1 + (before[d, pr * w + pc] if pr >= 0 and 0 <= pc < w else 0)
                before[d, cell] = run
    n = 0
    for r in range(h - 1, -1, -1):
        for c in range(w - 1, -1, -1):
            cell = r * w + c
            v = s[BOARD + cell]
            if v == own:
                for d in range(4):
                    nr = r + DIR_R[d]
                    nc = c + DIR_C[d]
                    after[d, cell] = 1 + (after[d, nr * w + nc] if nr < h and 0 <= nc < w else 0)
                continue
            for d in range(4):
                after[d, cell] = 0
            if v != 0:
                continue
            for d in range(4):
                run = 1
                pr = r - DIR_R[d]
                pc = c - DIR_C[d]
                if pr >= 0 and 0 <= pc < w:
                    run += before[d, pr * w + pc]
                nr = r + DIR_R[d]
                nc = c + DIR_C[d]
                if nr < h and 0 <= nc < w:
                    run += after[d, nr * w + nc]
                if run == k or (run > k and not exact):
                    out[cell] = True
                    n += 1
                    break
    return n
