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


@njit(cache=True, nogil=True)
def mark_windows(s, player, min_own, out):
    """Mark the empty cells of every six-cell window holding at least `min_own` stones of
    `player` and none of the other side: filling such a window makes six in a row.
    Returns the number of windows found."""
    h = s[HEIGHT]
    w = s[WIDTH]
    own = player + 1
    found = 0
    for d in range(4):
        dr = DIR_R[d]
        dc = DIR_C[d]
        for r0 in range(h):
            r_end = r0 + dr * (CONNECT - 1)
            if r_end < 0 or r_end >= h:
                continue
            for c0 in range(w):
                c_end = c0 + dc * (CONNECT - 1)
                if c_end < 0 or c_end >= w:
                    continue
                n_own = 0
                blocked = False
                for i in range(CONNECT):
                    v = s[BOARD + (r0 + dr * i) * w + (c0 + dc * i)]
                    if v == own:
                        n_own += 1
                    elif v != 0:
                        blocked = True
                        break
                if blocked or n_own < min_own:
                    continue
                found += 1
                for i in range(CONNECT):
                    cell = (r0 + dr * i) * w + (c0 + dc * i)
                    if s[BOARD + cell] == 0:
                        out[cell] = True
    return found
