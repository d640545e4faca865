"""Working room for the threat solvers, allocated once and handed to every call.

The tree asks the solvers about every leaf it expands (`pipeline.search.forced`), tens of
thousands of times a second, and most calls find nothing: allocating their arrays per
call (and per node of the search) cost as much as the search itself. A `Scratch` holds
every array the solvers and the verdict need, sized for one game's board and a depth
limit; `BatchedMCTS` keeps one.

A few arrays hold it all, so that the recursive searches pass little: numba copies and
reference-counts every array argument of a recursive call (a tuple of thirty arrays
made a call cost as much as a node of the search). The Connect6 threat-space search
(`vcf.c6_solve`) has four of its own: the board's six-windows (`wcells`, `cwins`: the
line tables, made once per board size), its per-window stone counts and node-local rows
(`c6`), and each depth's list of double-threat turns (`turns`). The searches are depth-first, and a
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

# Rows of `c6` (int64, Connect6 only; one entry per six-window or per cell).
C6_DIMS = 0  # the board the tables were made for and the search's counters (C6_* below)
C6_COUNT = 1  # stones per window: rows C6_COUNT (black) and C6_COUNT + 1 (white)
C6_LIVE = 3  # the attacker's live windows (two or more of its stones, none of the other's)
C6_LIVE_AT = 4  # per window: its index in C6_LIVE, -1 when not live
C6_WSTAMP = 5  # per window: the stamp of the last evaluation that read it
C6_CSTAMP = 6  # per cell: the stamp of the last candidate that listed it
C6_CWN = 7  # per cell: how many windows run through it (row length of `cwins`)
C6_N3 = 8  # per candidate cell: windows of three (of the attacker) through it
C6_HN1 = 9  # per candidate cell: the threats (hitting number) its stone alone makes
C6_IN_CAND = 10  # per cell: its index in C6_CAND, -1 when not a candidate
C6_CAND = 11  # the node's candidate cells
C6_E0 = 12  # the threat windows of the turn being judged: their empty cells
C6_E1 = 13
C6_D0 = 14  # the defender's threat windows at the node: their empty cells
C6_D1 = 15
C6_R0 = 16  # the root's own windows of four or five (mid-turn root): their empty cells
C6_R1 = 17
C6_PA = 18  # a candidate's partners
C6_QA = 19  # the defender's replies to the turn being judged
C6_QB = 20
C6_HA = 21  # the pairs hitting all the defender's threat windows
C6_HB = 22
C6_POT = 23  # the windows of three the turn being judged makes (indices of `lwin`)
C6_NCLW = 24  # per candidate: its live windows (row length of `clw`)
C6_LSTAMP = 25  # per live window: the stamp of the last judgement that read it
C6_HIT = 26  # per candidate: 1 when its stone alone blocks every threat of the defender
C6_HIST = 27  # per cell: the depths of the wins its stones made in this search (ordering)
C6_LA = 28  # the candidates whose stone alone makes a threat (indices), and two or more
C6_LA2 = 29
C6_ZONE = 30  # per cell: stamped when in the last turn's zone
C6_FREE = 31  # a candidate's partners that add no threat to its own
C6_ROWS = 32
# Slots of row C6_DIMS.
C6_H = 0
C6_W = 1
C6_NW = 2  # windows on the board
C6_NLIVE = 3  # length of the live list
C6_WSTAMP_AT = 4  # stamp counters
C6_CSTAMP_AT = 5
C6_EMPTY = 6  # empty cells on the search's board
C6_NCAND = 7
C6_ND = 8  # the defender's threat windows at the node, and their hitting number
C6_HD = 9
C6_NR = 10  # the root's own windows of four or five
C6_LSTAMP_AT = 11
TURN_CAP = 4096  # double-threat turns kept per node (more: the node is not stored as failed)


class Scratch(NamedTuple):
    level: np.ndarray  # int64 [levels, LEVEL_ROWS, width]
    flags: np.ndarray  # bool [FLAG_ROWS, cells]
    ints: np.ndarray  # int64 [INT_ROWS, width]
    states: np.ndarray  # int32 [STATE_ROWS, state length]
    wcells: np.ndarray  # int64 [windows, 6]: the cells of each six-window (Connect6)
    cwins: np.ndarray  # int64 [cells, 24]: the windows through each cell (Connect6)
    c6: np.ndarray  # int64 [C6_ROWS, max(windows, cells)] (Connect6)
    lwin: np.ndarray  # int64 [windows, 6]: a node's live windows: window, stones, empty cells
    clw: np.ndarray  # int64 [cells, 24]: a node's candidates' live windows (indices of `lwin`)
    turns: np.ndarray  # int64 [levels, TURN_CAP]: each depth's turns, best first (Connect6)


@njit(cache=True, nogil=True)
def c6_windows_on(height, width):
    """How many six-windows an height x width board has (rows, columns, both diagonals)."""
    if height < 6 and width < 6:
        return 0
    n = height * max(width - 5, 0) + max(height - 5, 0) * width
    return n + 2 * max(height - 5, 0) * max(width - 5, 0)


@njit(cache=True, nogil=True)
def new_scratch(kind, height, width, k, state_length, max_depth):
    """Room for positions of one game (kind, board, k) and searches of up to `max_depth`
    attacker moves (Connect6: turns). Compiled, so that a solver called without a
    scratch can make its own."""
    cells = height * width
    wide = max(cells, 8 * k + 8, 16)
    nw = 1
    c6_cells = 1
    levels = 1
    if kind == CONNECT6:
        wide = max(wide, 4 * cells)  # every window of the board
        nw = max(c6_windows_on(height, width), 1)
        c6_cells = cells
        levels = max_depth + 1
    c6 = np.zeros((C6_ROWS, max(nw, c6_cells, 16)), dtype=np.int64)
    c6[C6_DIMS, C6_H] = -1  # no line tables yet
    return Scratch(
        np.zeros((max_depth + 1, LEVEL_ROWS, wide), dtype=np.int64),
        np.zeros((FLAG_ROWS, cells), dtype=np.bool_),
        np.zeros((INT_ROWS, max(wide, PV_CAPACITY)), dtype=np.int64),
        np.zeros((STATE_ROWS, state_length), dtype=np.int32),
        np.zeros((nw, 6), dtype=np.int64),
        np.zeros((c6_cells, 24), dtype=np.int64),
        c6,
        np.zeros((nw, 6), dtype=np.int64),
        np.zeros((c6_cells, 24), dtype=np.int64),
        np.zeros((levels, TURN_CAP if kind == CONNECT6 else 1), dtype=np.int64),
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
    if s[KIND] == CONNECT6 and (
        sc.wcells.shape[0] < c6_windows_on(s[HEIGHT], s[WIDTH])
        or sc.cwins.shape[0] < cells
        or sc.turns.shape[0] < max_depth + 1
        or sc.turns.shape[1] < TURN_CAP
    ):
        raise ValueError("solver scratch made for another game or a shallower search")
