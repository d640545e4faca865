"""Compiled entry points over the flat state array, dispatching on the game kind.

Search drives every game through these functions only, so one compiled search serves
Gomoku, Connect6 and Hex."""

import numpy as np
from numba import njit

from pipeline.games import connect6, gomoku, hex, renju
from pipeline.games.layout import (
    BOARD,
    CONNECT6,
    ERR_GAME_OVER,
    ERR_OCCUPIED,
    ERR_OFF_BOARD,
    ERR_OVERLINE,
    ERR_SWAP,
    HEIGHT,
    HEX,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    KIND,
    OK,
    PLY,
    SWAP,
    TO_MOVE,
    WIDTH,
    WINNER,
)


@njit(cache=True, nogil=True)
def num_actions(s):
    cells = s[HEIGHT] * s[WIDTH]
    if s[KIND] == HEX and s[SWAP] != 0:
        return cells + 1
    return cells


@njit(cache=True, nogil=True)
def check_action(s, action):
    """Why `action` is illegal here, as an error code (OK when it is legal)."""
    if s[WINNER] >= 0:
        return ERR_GAME_OVER
    cells = s[HEIGHT] * s[WIDTH]
    if s[KIND] == HEX and action == cells and s[SWAP] != 0:
        return OK if hex.swap_legal(s) else ERR_SWAP
    if action < 0 or action >= cells:
        return ERR_OFF_BOARD
    if s[BOARD + action] != 0:
        return ERR_OCCUPIED
    if renju.black_to_move_under_renju(s):
        kind = renju.forbidden_at(s, action)
        if kind != renju.NOT_FORBIDDEN:
            return ERR_OVERLINE + kind - renju.OVERLINE
    return OK


@njit(cache=True, nogil=True)
def apply_unchecked(s, action):
    kind = s[KIND]
    if kind == HEX:
        hex.apply_hex(s, action)
    elif kind == CONNECT6:
        connect6.apply_connect6(s, action)
    else:
        gomoku.apply_gomoku(s, action)


@njit(cache=True, nogil=True)
def apply_action(s, action):
    """Apply a move if it is legal; return an error code and leave `s` unchanged if not."""
    code = check_action(s, action)
    if code == OK:
        apply_unchecked(s, action)
    return code


@njit(cache=True, nogil=True)
def renju_black_mask(s, out):
    """Black's legal moves under renju: the empty cells that are not forbidden."""
    cells = s[HEIGHT] * s[WIDTH]
    board = renju.board_of(s)
    kinds = np.empty(cells, dtype=np.int64)
    renju.scan_forbidden(board, s[HEIGHT], s[WIDTH], kinds)
    n = 0
    for a in range(cells):
        ok = board[a] == 0 and kinds[a] == renju.NOT_FORBIDDEN
        out[a] = ok
        if ok:
            n += 1
    return n


@njit(cache=True, nogil=True)
def legal_mask(s, out):
    """Fill the boolean `out` (length num_actions) and return the number of legal moves."""
    cells = s[HEIGHT] * s[WIDTH]
    n = 0
    over = s[WINNER] >= 0
    if not over and renju.black_to_move_under_renju(s):
        return renju_black_mask(s, out)
    for a in range(cells):
        ok = not over and s[BOARD + a] == 0
        out[a] = ok
        if ok:
            n += 1
    if s[KIND] == HEX and s[SWAP] != 0:
        ok = hex.swap_legal(s)
        out[cells] = ok
        if ok:
            n += 1
    return n


@njit(cache=True, nogil=True)
def transposed(s):
    """Hex is shown so that the player to move connects top and bottom."""
    return s[KIND] == HEX and s[TO_MOVE] == 1


@njit(cache=True, nogil=True)
def presented_action(s, action):
    """Index of `action` in the policy of the presented (observation) frame."""
    w = s[WIDTH]
    if transposed(s) and action < s[HEIGHT] * w:
        return (action % w) * w + action // w
    return action


@njit(cache=True, nogil=True)
def observe(s, out):
    """Write the observation planes of the player to move into `out` [C, H, W].

    Planes: own stones, opponent stones, the opponent's last turn, then Connect6's own
    stones already placed this turn, then a colour plane (Gomoku, Connect6: the first
    player is to move) or, for Hex, whether swap is legal now."""
    h = s[HEIGHT]
    w = s[WIDTH]
    kind = s[KIND]
    flip = transposed(s)
    me = s[TO_MOVE]
    out[:] = 0.0
    for cell in range(h * w):
        v = s[BOARD + cell]
        if v == 0:
            continue
        r = cell // w
        c = cell % w
        if flip:
            r, c = c, r
        out[0 if v == me + 1 else 1, r, c] = 1.0
    i = 0
    while i < HIST_LEN and s[HIST + i] >= 0 and s[HIST_PLAYER + i] == me:
        if kind == CONNECT6:
            cell = s[HIST + i]
            out[3, cell // w, cell % w] = 1.0
        i += 1
    while i < HIST_LEN and s[HIST + i] >= 0 and s[HIST_PLAYER + i] != me:
        cell = s[HIST + i]
        r = cell // w
        c = cell % w
        if flip:
            r, c = c, r
        out[2, r, c] = 1.0
        i += 1
        if kind != CONNECT6:
            break
    last = out.shape[0] - 1
    if kind == HEX:
        if hex.swap_legal(s):
            out[last] = 1.0
    elif me == 0:
        out[last] = 1.0


@njit(cache=True, nogil=True)
def winning_moves(s, player, out):
    """Mark in `out` (length cells) the empty cells where `player` wins at once."""
    if s[KIND] == HEX:
        return hex.winning_cells(s, player, out)
    return gomoku.winning_cells(s, player, out)


@njit(cache=True, nogil=True)
def keep_marked(out, marks, cells):
    """out[:cells] &= marks[:cells]; return how many stay True."""
    for a in range(cells):
        out[a] = out[a] and marks[a]
    return np.count_nonzero(out[:cells])


@njit(cache=True, nogil=True)
def candidate_mask(s, out):
    """Threat guidance: restrict `out` (a legal mask) to an immediate win if there is
    one, else to the cells that stop the opponent's win on its next turn (Connect6: over
    its two-stone turn); when none of those is legal (renju: forbidden to black), every
    legal move stays. Return how many candidates remain."""
    n_legal = legal_mask(s, out)
    if n_legal == 0:
        return 0
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    them = 1 - me
    kind = s[KIND]
    marks = np.zeros(cells, dtype=np.bool_)
    if kind == CONNECT6:
        left = connect6.stones_left_in_turn(s[PLY])
        found = connect6.mark_windows(s, me, 6 - left, marks)
        if found == 0:
            found = connect6.mark_windows(s, them, 4, marks)
    elif kind == HEX:
        found = hex.winning_cells(s, me, marks)
        if found == 0:
            found = hex.winning_cells(s, them, marks)
    else:
        found = winning_moves(s, me, marks)
        if found == 0:
            found = winning_moves(s, them, marks)
    if found == 0:
        return n_legal
    n = keep_marked(out, marks, cells)
    if kind == HEX and s[SWAP] != 0:
        out[cells] = False
    if n == 0:  # renju: every cell that stops the opponent is forbidden to black
        return legal_mask(s, out)
    return n
