"""Hex on an NxN rhombus. Player 0 connects top and bottom, player 1 left and right.
Connections are tracked incrementally with a union-find forest stored in the state,
with four virtual nodes for the edges, so a win is known from the stone just placed.
Optional swap (pie) rule: as the second action only, the first stone at (r, c) becomes
player 1's stone at (c, r) and player 0 moves again."""

import numpy as np
from numba import njit

from pipeline.games.gomoku import push_history
from pipeline.games.layout import (
    BOARD,
    HEIGHT,
    HEX_BOTTOM,
    HEX_LEFT,
    HEX_RIGHT,
    HEX_TOP,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    PLY,
    STONES,
    SWAP,
    TO_MOVE,
    WIDTH,
    WINNER,
)

NB_R = np.array([-1, -1, 0, 0, 1, 1], dtype=np.int64)
NB_C = np.array([0, 1, -1, 1, -1, 0], dtype=np.int64)


@njit(cache=True, nogil=True)
def forest(s):
    return BOARD + s[HEIGHT] * s[WIDTH]


@njit(cache=True, nogil=True)
def find(s, x):
    base = forest(s)
    while s[base + x] != x:
        s[base + x] = s[base + s[base + x]]  # path halving keeps trees shallow
        x = s[base + x]
    return x


@njit(cache=True, nogil=True)
def union(s, a, b):
    ra = find(s, a)
    rb = find(s, b)
    if ra != rb:
        s[forest(s) + ra] = rb


@njit(cache=True, nogil=True)
def reset_forest(s):
    base = forest(s)
    for i in range(s[HEIGHT] * s[WIDTH] + 4):
        s[base + i] = i


@njit(cache=True, nogil=True)
def edges_of(s, player):
    cells = s[HEIGHT] * s[WIDTH]
    if player == 0:
        return cells + HEX_TOP, cells + HEX_BOTTOM
    return cells + HEX_LEFT, cells + HEX_RIGHT


@njit(cache=True, nogil=True)
def link_stone(s, cell, player):
    """Join a newly placed stone to its same-coloured neighbours and its edges."""
    n = s[WIDTH]
    r = cell // n
    c = cell % n
    value = player + 1
    for d in range(6):
        rr = r + NB_R[d]
        cc = c + NB_C[d]
        if 0 <= rr < n and 0 <= cc < n and s[BOARD + rr * n + cc] == value:
            union(s, cell, rr * n + cc)
    first, second = edges_of(s, player)
    if player == 0:
        if r == 0:
            union(s, cell, first)
        if r == n - 1:
            union(s, cell, second)
    else:
        if c == 0:
            union(s, cell, first)
        if c == n - 1:
            union(s, cell, second)
    return find(s, first) == find(s, second)


@njit(cache=True, nogil=True)
def apply_hex(s, action):
    cells = s[HEIGHT] * s[WIDTH]
    p = s[TO_MOVE]
    if action == cells:
        apply_swap(s)
        return
    s[BOARD + action] = p + 1
    push_history(s, action, p)
    s[PLY] += 1
    s[STONES] += 1
    if link_stone(s, action, p):
        s[WINNER] = p
    s[TO_MOVE] = s[PLY] % 2


@njit(cache=True, nogil=True)
def apply_swap(s):
    n = s[WIDTH]
    first = s[HIST]
    r = first // n
    c = first % n
    s[BOARD + first] = 0
    reset_forest(s)
    mirrored = c * n + r
    s[BOARD + mirrored] = 2
    link_stone(s, mirrored, 1)
    # The swapped stone now belongs to player 1: rewrite history as if it had played it.
    for i in range(HIST_LEN):
        s[HIST + i] = -1
        s[HIST_PLAYER + i] = -1
    push_history(s, mirrored, 1)
    s[PLY] += 1
    s[TO_MOVE] = s[PLY] % 2


@njit(cache=True, nogil=True)
def swap_legal(s):
    return s[SWAP] != 0 and s[PLY] == 1 and s[WINNER] < 0 and s[STONES] == 1


@njit(cache=True, nogil=True)
def swap_ahead(s):
    """The swap is legal now or still to come (the empty board of a swap game): the first
    stone may yet change hands, so no connection of the mover's is a win for it yet and no
    connection of the opponent's forces it."""
    return s[SWAP] != 0 and s[WINNER] < 0 and (s[PLY] == 0 or swap_legal(s))


@njit(cache=True, nogil=True)
def winning_cells(s, player, out):
    """Mark the empty cells where `player` would connect its edges at once."""
    n = s[WIDTH]
    cells = n * n
    first, second = edges_of(s, player)
    root_a = find(s, first)
    root_b = find(s, second)
    value = player + 1
    found = 0
    for cell in range(cells):
        if s[BOARD + cell] != 0:
            continue
        r = cell // n
        c = cell % n
        touch_a = False
        touch_b = False
        if player == 0:
            touch_a = r == 0
            touch_b = r == n - 1
        else:
            touch_a = c == 0
            touch_b = c == n - 1
        for d in range(6):
            rr = r + NB_R[d]
            cc = c + NB_C[d]
            if 0 <= rr < n and 0 <= cc < n and s[BOARD + rr * n + cc] == value:
                root = find(s, rr * n + cc)
                if root == root_a:
                    touch_a = True
                if root == root_b:
                    touch_b = True
        if touch_a and touch_b:
            out[cell] = True
            found += 1
    return found
