"""Working room for the threat solvers, allocated once and handed to every call.

The tree asks the solvers about every leaf it expands (`pipeline.search.forced`), tens of
thousands of times a second, and most calls find nothing: allocating their arrays per
call (and per node of the search) cost as much as the search itself. A `Scratch` holds
every array the solvers and the verdict need, sized for one game's board and a depth
limit; `BatchedMCTS` keeps one.

A few arrays hold it all, so that the recursive searches pass little: numba copies and
reference-counts every array argument of a recursive call (a tuple of thirty arrays
made a call cost as much as a node of the search). The Connect6 threat-space search
(`c6_search.c6_solve`) has four of its own: the board's six-windows (`wcells`, `cwins`: the
line tables, made once per board size), its per-window stone counts and node-local rows
(`c6`), and each depth's list of double-threat turns (`turns`). The searches are depth-first, and a
node at `depth` attacker moves from the limit uses the rows `level[depth]`, so a node's
arrays outlive the searches below it; `level[0, CANDIDATES]` holds the root's candidates,
which stay the same over the rounds of iterative deepening.

Nothing is read before it is written within a call, so one scratch serves any sequence
of positions of its game (tests/unit/test_verdict_reference.py replays thousands)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, HEIGHT, KIND, WIDTH, WIN_LENGTH

PV_CAPACITY = 512

# Each constant below names a row (or a slot of a row) of one of the scratch's arrays; the
# comment says what the row holds and which search writes it. A row is working room: each
# search writes it before it reads it, and rows shared by two uses say so.

# Row CTX of `ints`: the search's counters, in its first CTX_SLOTS slots.
CTX = 0
CTX_SLOTS = 8
NODES = 0  # nodes searched so far
BUDGET = 1  # the node budget
PV_LEN = 2  # the length of the proof line written to `pv`
ROOT_FOURS = 3  # Gomoku: how many four (and, VCT, three) candidates the root has; -1 before
ROOT_THREES = 4
CUT = 5  # nodes whose failure came from the depth limit (cut there, or a table entry of a
# shallower search): a failure with none below it holds at every depth (stored EXACT)
ROOT_TURNS = 6  # Connect6: the double-threat turns the root found (-1 before)
OVERFLOW = 7  # Connect6: a node had more turns than its row holds (no failure is stored)

# Rows of `level` (int64, one set per search depth).
CANDIDATES = 0  # the attacker's candidate cells (the root's stay over the deepening rounds)
NEW_WINS = 1  # Gomoku: the winning cells made by the attacker's stone
DOUBLE_FOURS = 2  # VCT: the double-four cells a three threatens, and their winning cells
DOUBLE_FOUR_WIN0 = 3
DOUBLE_FOUR_WIN1 = 4  # -2: three or more winning cells (no single block stops it)
REPLIES = 5  # Gomoku: the defender's replies to a four (its block) or a three
WINDOW_KEYS = 6  # a list of six-windows (start * 4 + direction) and their empty cells: the
WINDOW_EMPTY0 = 7  # verdict's room for the opponent's threat windows (row 0 only)
WINDOW_EMPTY1 = 8
REPLY_PAIR_A = 9  # Connect6: the defender's pairs of stones that hit every threat of the turn
REPLY_PAIR_B = 10
FOUR_WINDOWS = 11  # Gomoku: per cell, the attacker's windows of k cells holding k - 2 of its
# stones and none of the defender's (a stone in one makes a four)
LEVEL_ROWS = 12

# Rows of `flags` (bool, one per cell).
THREAT_CELLS = 0  # Connect6: the empty cells of the threats of the turn being judged
LOCAL_CELLS = 1  # a set of cells one call clears and uses (VCT: the cells of windows of k - 3
# stones; a defence's candidates; the verdict's winning windows; Connect6 turn scores)
SEEN = 2  # cells already listed (a defence set; Connect6: hitting-number marks, not read)
MARKS = 3  # the verdict's defending cells (and its zone of the opponent's proof tree)
CANDIDATE = 4  # the verdict's moves to solve again
WINS = 5  # Gomoku scan: each player's winning cells (rows WINS, WINS + 1)
SURVIVE = 9  # the verdict's: the moves after which the opponent's proof still wins
HOT = 10  # the verdict's: the cells where a stone may have a winning cell through it
FLAG_ROWS = 11

# Rows of `ints` (int64, shared by all depths); row CTX is above.
SORT_KEYS = 1  # sort keys (of the candidates by distance, of the defender's replies)
DEFENDER_WINS = 2  # Gomoku: the winning cells made by the defender's stone (Connect6: the
# opponent's proof line, kept while its tree is read back)
PROBE_LINE = 3  # the verdict's
PROOF = 4  # the verdict's: proofs found when solving again
SCAN = 5  # Gomoku scan: counts, SCAN_WINS and SCAN_FOURS per player (2 * player + which)
WIN_DIRS = 6  # the verdict's: per cell, the lines along which a stone there would win
SCAN_FOUR_WINDOWS = 7  # Gomoku scan: each player's FOUR_WINDOWS (rows 7 and 8)
INT_ROWS = 9
SCAN_WINS = 0  # the player's winning cells
SCAN_FOURS = 1  # the player's windows of k cells with k - 2 of its stones and no other

# Rows of `states` (int32 state arrays).
WORK = 0  # the search's copy of the position
PASSED = 1  # the verdict's: the position with the mover passing
PROBE = 2  # the verdict's: a move tried on the position
STATE_ROWS = 3

# Rows of `c6` (int64, Connect6 only; one entry per six-window, per cell or per candidate;
# a window is a row of `wcells`, a candidate an index into C6_CANDIDATES).
C6_HEADER = 0  # the board the tables were made for and the search's counters (slots below)
C6_STONES = 1  # per window: stones of black (row C6_STONES) and white (C6_STONES + 1)
C6_LIVE = 3  # the attacker's live windows (two or more of its stones, none of the other's)
C6_LIVE_INDEX = 4  # per window: its index in C6_LIVE, -1 when not live
C6_WINDOW_STAMP = 5  # per window: the stamp of the last evaluation that read it
C6_CELL_STAMP = 6  # per cell: the stamp of the last candidate that listed it
C6_WINDOWS_THROUGH = 7  # per cell: how many windows run through it (row length of `cwins`)
C6_CAND_THREES = 8  # per candidate: the attacker's windows of three through it
C6_CAND_THREATS = 9  # per candidate: the threats (hitting number) its stone alone makes
C6_CAND_INDEX = 10  # per cell: its index in C6_CANDIDATES, -1 when not a candidate
C6_CANDIDATES = 11  # the node's candidate cells
C6_THREAT_EMPTY0 = 12  # the threat windows of the turn being judged: their empty cells
C6_THREAT_EMPTY1 = 13  # (the second, -1 when a window has one)
C6_DEFENDER_EMPTY0 = 14  # the defender's threat windows at the node: their empty cells
C6_DEFENDER_EMPTY1 = 15
C6_ROOT_FOURS = 16  # the root's own windows of four or five (a mid-turn root)
C6_PARTNERS = 17  # the candidates a candidate is paired with
C6_REPLY_A = 18  # the defender's replies to the turn being judged
C6_REPLY_B = 19
C6_THREES_MADE = 20  # the windows of three the turn being judged makes (rows of `lwin`)
C6_LIVE_THROUGH = 21  # per candidate: how many live windows run through it (row length of `clw`)
C6_LIVE_STAMP = 22  # per live window: the stamp of the last judgement that read it
C6_BLOCKS_ALL = 23  # per candidate: 1 when its stone alone hits every threat of the defender
C6_WIN_DEPTHS = 24  # per cell: the depths of the wins its stones made in this search (ordering)
C6_THREATENING = 25  # the candidates whose stone alone makes a threat
C6_DOUBLY_THREATENING = 26  # ... and those whose stone alone makes two or more
C6_ZONE = 27  # per cell: stamped when in the last turn's zone
C6_FREE_PARTNERS = 28  # a candidate's partners that add no threat to its own
C6_ROWS = 29
# Slots of row C6_HEADER.
C6_TABLE_HEIGHT = 0  # the board the line tables were made for (-1: none yet)
C6_TABLE_WIDTH = 1
C6_N_WINDOWS = 2  # windows on the board
C6_N_LIVE = 3  # length of C6_LIVE
C6_WINDOW_STAMP_NOW = 4  # the latest stamps given
C6_CELL_STAMP_NOW = 5
C6_N_EMPTY = 6  # empty cells on the search's board
C6_LIVE_STAMP_NOW = 7
TURN_CAP = 4096  # double-threat turns kept per node (more: the node is not stored as failed)

# The Connect6 VCT (`c6_vct`): its threat turns at most, and each level's rows.
VCT_LEVELS = 2
VCT_TURNS = 256  # threat turns listed at a node (the last entry: the level's winning turn)
VCT_STATE_ROWS = 5  # after the turn, the block, the pass, the whole reply; the root's copy
VCT_ZONE_ROWS = 5  # the turn's zone, a child's, the free-stone candidates, marks; the dropped zone
VCT_INT_ROWS = 9
VCT_COUNTERS = 8


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
    vstates: np.ndarray  # int32 [VCT_LEVELS + 1, VCT_STATE_ROWS, state length] (Connect6 VCT)
    vzones: np.ndarray  # bool [VCT_LEVELS + 1, VCT_ZONE_ROWS, cells]
    vturns: np.ndarray  # int64 [VCT_LEVELS + 1, VCT_TURNS, 3]
    vints: np.ndarray  # int64 [VCT_LEVELS + 1, VCT_INT_ROWS, max(cells, PV_CAPACITY)]
    vcounters: np.ndarray  # int64 [VCT_COUNTERS]


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
    vl = 1  # the VCT's rows: Connect6 only
    v_state = 1
    v_cells = 1
    if kind == CONNECT6:
        vl = VCT_LEVELS + 1
        v_state = state_length
        v_cells = cells
        wide = max(wide, 4 * cells)  # every window of the board
        nw = max(c6_windows_on(height, width), 1)
        c6_cells = cells
        levels = max_depth + 1
    c6 = np.zeros((C6_ROWS, max(nw, c6_cells, 16)), dtype=np.int64)
    c6[C6_HEADER, C6_TABLE_HEIGHT] = -1  # no line tables yet
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
        np.zeros((vl, VCT_STATE_ROWS, v_state), dtype=np.int32),
        np.zeros((vl, VCT_ZONE_ROWS, v_cells), dtype=np.bool_),
        np.zeros((vl, VCT_TURNS if kind == CONNECT6 else 1, 3), dtype=np.int64),
        np.zeros((vl, VCT_INT_ROWS, max(v_cells, PV_CAPACITY) if kind == CONNECT6 else 1), dtype=np.int64),
        np.zeros(VCT_COUNTERS, dtype=np.int64),
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
