"""Working room for the threat solvers, allocated once and handed to every call.

The tree asks the solvers about every leaf it expands (`pipeline.search.forced`), tens of
thousands of times a second, and most calls find nothing: allocating their arrays per
call (and per node of the search) cost as much as the search itself. A `Scratch` holds
every array the solvers and the verdict need, sized for one game's board and a depth
limit; `BatchedMCTS` keeps one.

Four arrays hold it all, so that the recursive searches pass little: numba copies and
reference-counts every array argument of a recursive call (a tuple of thirty arrays
made a call cost as much as a node of the search). The searches are depth-first, and a
node at `depth` attacker moves from the limit uses the rows `level[depth]`, so a node's
arrays outlive the searches below it; `level[0, CAND]` holds the root's candidates,
which stay the same over the rounds of iterative deepening.

Nothing is read before it is written within a call, so one scratch serves any sequence
of positions of its game (tests/unit/test_verdict_reference.py replays thousands)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, HEIGHT, KIND, WIDTH, WIN_LENGTH

PV_CAPACITY = 512
CTX_SLOTS = 8  # the search's counters: the first slots of row CTX of `ints`

# Rows of `level` (int64, one set per search depth).
CAND = 0  # attacker candidates (Connect6: single stones of the turn)
LINE = 1  # winning cells made by the attacker's stone
F_CELLS = 2  # VCT: the double-four cells a three threatens, and their winning cells
F_W0 = 3
F_W1 = 4
REPLIES = 5  # VCT: the defender's replies to a three
D_KEYS = 6  # Connect6: the defender's threat windows, and their empty cells
D_E0 = 7
D_E1 = 8
A_KEYS = 9  # Connect6: the attacker's windows, and their empty cells
A_E0 = 10
A_E1 = 11
PAIR_A = 12  # Connect6: the defender's pairs of stones that hit every threat
PAIR_B = 13
COVER = 14  # Gomoku: per cell, the attacker's windows of k - 2 stones and none of the defender's
LEVEL_ROWS = 15

# Rows of `flags` (bool, one per cell).
MARK = 0
MARK2 = 1
SEEN = 2
MARKS = 3  # the verdict's defending cells
CANDIDATE = 4  # the verdict's moves to solve again
WINS = 5  # Gomoku scan: each player's winning cells (rows WINS, WINS + 1)
SURVIVE = 9  # the verdict's: the moves after which the opponent's proof still wins
HOT = 10  # the verdict's: the cells where a stone may have a winning cell through it
FLAG_ROWS = 11

# Rows of `ints` (int64, shared by all depths).
CTX = 0  # the search's counters (vcf.NODES, ...)
DIST = 1  # sort keys of the candidates
DLINE = 2  # winning cells made by the defender's stone
PROBE_LINE = 3  # the verdict's
PROOF = 4  # the verdict's: proofs found when solving again
SCAN = 5  # Gomoku scan: counts, SCAN_WINS and SCAN_FOURS per player (2 * player + which)
WIN_DIRS = 6  # the verdict's: per cell, the lines along which a stone there would win
SCAN_COVER = 7  # Gomoku scan: each player's COVER (rows SCAN_COVER, SCAN_COVER + 1)
INT_ROWS = 9
SCAN_WINS = 0  # the player's winning cells
SCAN_FOURS = 1  # the player's windows of k cells with k - 2 of its stones and no other

# Rows of `states` (int32 state arrays).
WORK = 0  # the search's copy of the position
PASSED = 1  # the verdict's: the position with the mover passing
PROBE = 2  # the verdict's: a move tried on the position
STATE_ROWS = 3


class Scratch(NamedTuple):
    level: np.ndarray  # int64 [levels, LEVEL_ROWS, width]
    flags: np.ndarray  # bool [FLAG_ROWS, cells]
    ints: np.ndarray  # int64 [INT_ROWS, width]
    states: np.ndarray  # int32 [STATE_ROWS, state length]


@njit(cache=True, nogil=True)
def new_scratch(kind, height, width, k, state_length, max_depth):
    """Room for positions of one game (kind, board, k) and searches of up to `max_depth`
    attacker moves (Connect6: turns). Compiled, so that a solver called without a
    scratch can make its own."""
    cells = height * width
    wide = max(cells, 8 * k + 8, 16)
    if kind == CONNECT6:
        wide = max(wide, 4 * cells)  # every window of the board
    return Scratch(
        np.zeros((max_depth + 1, LEVEL_ROWS, wide), dtype=np.int64),
        np.zeros((FLAG_ROWS, cells), dtype=np.bool_),
        np.zeros((INT_ROWS, max(wide, PV_CAPACITY)), dtype=np.int64),
        np.zeros((STATE_ROWS, state_length), dtype=np.int32),
    )


@njit(cache=True, nogil=True)
def scratch_for(state, max_depth):
    """Room for positions like `state` (a flat state array)."""
    return new_scratch(
        np.int64(state[KIND]),
        np.int64(state[HEIGHT]),
        np.int64(state[WIDTH]),
        np.int64(state[WIN_LENGTH]),
        np.int64(state.shape[0]),
        np.int64(max_depth),
    )


@njit(cache=True, nogil=True)
def check_room(s, max_depth, sc):
    """Refuse a scratch made for a smaller board, another game or a shallower search
    (compiled code does not check bounds)."""
    cells = s[HEIGHT] * s[WIDTH]
    wide = 4 * cells if s[KIND] == CONNECT6 else max(cells, 8 * s[WIN_LENGTH] + 8)
    if sc.level.shape[0] < max_depth + 1 or sc.level.shape[2] < wide or sc.flags.shape[1] < cells:
        raise ValueError("solver scratch too small for this position or depth")
    if sc.states.shape[1] != s.shape[0]:
        raise ValueError("solver scratch made for another game")
