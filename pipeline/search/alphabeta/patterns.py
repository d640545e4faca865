"""The position of the classical search and its pattern evaluation.

The position is kept as counts per length-k window (every line segment of k cells in the
four directions): how many stones each side has in it. A window that holds stones of one
side only is a chance for that side, worth `weights[stones]` (about 8x per stone); the
evaluation is the mover's chances minus the opponent's. Placing or removing a stone
touches only the windows through its cell (and, under exact rules, the two windows that
end next to it), so a node costs O(4k), not O(board).

One ply is one stone. In Connect6 a side places two stones a turn, so the sign of the
value flips only where the mover changes.

Renju: black is scored as under exact rules (a window next to a black stone is dead for
black: it would make an overline), white as under freestyle.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.games.layout import BOARD, CONNECT6, GOMOKU

MAX_PLY = 96  # deepest ply from the root, extensions included (rows of the move buffers)
WIN = 1 << 40  # a won position, minus the plies to reach it (faster wins are better)
MATE = WIN - 10_000  # values beyond +-MATE are forced results, not evaluations
INF = 1 << 50
SCALE = 16  # evaluation units per pattern unit: the tie-breaking jitter lives below it
MAX_EXPONENT = 7  # weights stop growing here: long k on big boards must not overflow
TEMPO = 8  # the side to place the next stones: its chances count (16 + TEMPO) / 16

# cfg fields (C_RENJU: black exact and restricted, white freestyle; C_EXACT is then 0)
C_H, C_W, C_K, C_EXACT, C_KIND, C_NWIN, C_CELLS, C_RENJU = 0, 1, 2, 3, 4, 5, 6, 7
# st fields (the mutable scalars of a position and a search)
S_STONES, S_SUM0, S_SUM1, S_NODES, S_LIMIT, S_ABORT = 0, 1, 2, 3, 4, 5
# frame fields: one node of the search stack per ply
F_DEPTH, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_BEST_MOVE, F_N, F_BREADTH, F_I, F_CHILD, F_MOVE, F_ME, F_FLIP = range(13)
FRAME = 13

DIRS = ((0, 1), (1, 0), (1, 1), (1, -1))


class Geometry(NamedTuple):
    """What depends on the board and rules only: the windows and which cells they touch."""

    cfg: np.ndarray  # int64 [8]: height, width, k, exact, kind, windows, cells, renju
    wcells: np.ndarray  # int32 [windows, k]: the window's cells
    wflank: np.ndarray  # int32 [windows, 2]: the cells just before and after it (-1: off the board)
    cwins: np.ndarray  # int32 [cells, 4k + 8]: windows through the cell, then windows it flanks
    ncont: np.ndarray  # int32 [cells]: how many windows hold the cell
    nall: np.ndarray  # int32 [cells]: ... and flank it
    ring: np.ndarray  # int32 [cells, 25]: the cells within distance 2 (candidate neighbourhood)
    nring: np.ndarray  # int32 [cells]
    weights: np.ndarray  # int64 [k + 1]: worth of a window by its stones
    zobrist: np.ndarray  # uint64 [cells, 2]


class Position(NamedTuple):
    """A position under search, updated in place as stones are put and taken."""

    board: np.ndarray  # int32 [cells]: 0 empty, 1 black, 2 white (a view of `state`'s board)
    cnt: np.ndarray  # int32 [windows, 2]: stones of each side in the window
    hot: np.ndarray  # int32 [2, k + 1]: windows free of the other side, by own stones
    near: np.ndarray  # int32 [cells]: stones within distance 2
    st: np.ndarray  # int64 [6]: stones, the two pattern sums, nodes, node limit, aborted
    key: np.ndarray  # uint64 [1]: zobrist hash of the board (it also fixes ply and mover)
    moves: np.ndarray  # int32 [MAX_PLY, cells]: each ply's move list
    scores: np.ndarray  # int64 [MAX_PLY, cells]: their ordering scores
    hits: np.ndarray  # int32 [cells]: scratch, threat windows through each cell
    jitter: np.ndarray  # int64 [cells]: seeded tie-breaks in [0, SCALE)
    frames: np.ndarray  # int64 [MAX_PLY, FRAME]: the search stack
    state: np.ndarray  # int32: a state array around `board`, for the rules' kernels (only its
    # board and its rules' fields are kept up to date: ply, mover and history are the root's)


# ---- building ---------------------------------------------------------------------------


def make_geometry(height: int, width: int, k: int, exact: bool, kind: int, renju: bool = False) -> Geometry:
    """The windows of a `height` x `width` board for k in a row, and their cell indices."""
    wcells: list[list[int]] = []
    wflank: list[tuple[int, int]] = []

    def cell(r: int, c: int) -> int:
        return r * width + c if 0 <= r < height and 0 <= c < width else -1

    for dr, dc in DIRS:
        for r in range(height):
            for c in range(width):
                end = (r + dr * (k - 1), c + dc * (k - 1))
                if cell(*end) < 0:
                    continue
                wcells.append([cell(r + dr * i, c + dc * i) for i in range(k)])
                wflank.append((cell(r - dr, c - dc), cell(r + dr * k, c + dc * k)))
    cells = height * width
    width_list = 4 * k + 8
    cwins = np.full((cells, width_list), -1, dtype=np.int32)
    ncont = np.zeros(cells, dtype=np.int32)
    for w, members in enumerate(wcells):
        for x in members:
            cwins[x, ncont[x]] = w
            ncont[x] += 1
    nall = ncont.copy()
    for w, flank in enumerate(wflank):
        for x in flank:
            if x >= 0:
                cwins[x, nall[x]] = w
                nall[x] += 1
    ring = np.full((cells, 25), -1, dtype=np.int32)
    nring = np.zeros(cells, dtype=np.int32)
    for x in range(cells):
        r, c = divmod(x, width)
        for rr in range(r - 2, r + 3):
            for cc in range(c - 2, c + 3):
                y = cell(rr, cc)
                if y >= 0:
                    ring[x, nring[x]] = y
                    nring[x] += 1
    weights = np.zeros(k + 1, dtype=np.int64)
    for n in range(1, k + 1):
        weights[n] = 8 ** min(n - 1, MAX_EXPONENT)
    zobrist = np.random.default_rng(0x5EED).integers(0, 2**64 - 1, size=(cells, 2), dtype=np.uint64, endpoint=True)
    cfg = np.array([height, width, k, int(exact), kind, len(wcells), cells, int(renju)], dtype=np.int64)
    return Geometry(
        cfg,
        np.array(wcells, dtype=np.int32).reshape(len(wcells), k),
        np.array(wflank, dtype=np.int32).reshape(len(wflank), 2),
        cwins,
        ncont,
        nall,
        ring,
        nring,
        weights,
        zobrist,
    )


def make_position(geo: Geometry, state: np.ndarray, jitter: np.ndarray) -> Position:
    """The search's view of the state array `state` (left unchanged): a copy whose board
    is emptied and filled again stone by stone, to count the windows."""
    cells = int(geo.cfg[C_CELLS])
    s = state.copy()
    board = s[BOARD : BOARD + cells]
    stones = board.copy()
    board[:] = 0
    k = int(geo.cfg[C_K])
    nwin = int(geo.cfg[C_NWIN])
    hot = np.zeros((2, k + 1), dtype=np.int32)
    hot[:, 0] = nwin
    pos = Position(
        board,
        np.zeros((nwin, 2), dtype=np.int32),
        hot,
        np.zeros(cells, dtype=np.int32),
        np.array([0, 0, 0, 0, INF, 0], dtype=np.int64),
        np.zeros(1, dtype=np.uint64),
        np.zeros((MAX_PLY, cells), dtype=np.int32),
        np.zeros((MAX_PLY, cells), dtype=np.int64),
        np.zeros(cells, dtype=np.int32),
        jitter.astype(np.int64),
        np.zeros((MAX_PLY, FRAME), dtype=np.int64),
        s,
    )
    for x in np.flatnonzero(stones):
        put(geo, pos, int(x), int(stones[x]) - 1)
    return pos


# ---- the position: put, take, evaluate ------------------------------------------------------


@njit(cache=True, nogil=True)
def dead(geo, pos, w, who):
    """Under exact rules (renju: for black) a window next to the side's own stone cannot
    make exactly k for it: filling it makes an overline."""
    # Written out, not a helper: a helper call here made the whole search 25x slower.
    if geo.cfg[C_EXACT] == 0 and (geo.cfg[C_RENJU] == 0 or who != 0):
        return False
    own = who + 1
    for i in range(2):
        f = geo.wflank[w, i]
        if f >= 0 and pos.board[f] == own:
            return True
    return False


@njit(cache=True, nogil=True)
def contribution(geo, pos, w, who):
    if pos.cnt[w, 1 - who] > 0 or dead(geo, pos, w, who):
        return 0
    return geo.weights[pos.cnt[w, who]]


@njit(cache=True, nogil=True)
def accumulate(geo, pos, cell, sign):
    """Add (sign 1) or remove (sign -1) the pattern worth of the windows a stone on `cell`
    changes, for both sides."""
    n = geo.nall[cell] if geo.cfg[C_EXACT] != 0 or geo.cfg[C_RENJU] != 0 else geo.ncont[cell]
    for i in range(n):
        w = geo.cwins[cell, i]
        pos.st[S_SUM0] += sign * contribution(geo, pos, w, 0)
        pos.st[S_SUM1] += sign * contribution(geo, pos, w, 1)


@njit(cache=True, nogil=True)
def count(geo, pos, cell, who, delta):
    """Move `who`'s stone count of the windows through `cell` by `delta`, keeping `hot`."""
    other = 1 - who
    for i in range(geo.ncont[cell]):
        w = geo.cwins[cell, i]
        a = pos.cnt[w, who]
        b = pos.cnt[w, other]
        if b == 0:
            pos.hot[who, a] -= 1
        if a == 0:
            pos.hot[other, b] -= 1
        a += delta
        pos.cnt[w, who] = a
        if b == 0:
            pos.hot[who, a] += 1
        if a == 0:
            pos.hot[other, b] += 1


@njit(cache=True, nogil=True)
def put(geo, pos, cell, who):
    accumulate(geo, pos, cell, -1)
    count(geo, pos, cell, who, 1)
    pos.board[cell] = who + 1
    accumulate(geo, pos, cell, 1)
    for i in range(geo.nring[cell]):
        pos.near[geo.ring[cell, i]] += 1
    pos.key[0] ^= geo.zobrist[cell, who]
    pos.st[S_STONES] += 1


@njit(cache=True, nogil=True)
def take(geo, pos, cell, who):
    accumulate(geo, pos, cell, -1)
    pos.board[cell] = 0
    count(geo, pos, cell, who, -1)
    accumulate(geo, pos, cell, 1)
    for i in range(geo.nring[cell]):
        pos.near[geo.ring[cell, i]] -= 1
    pos.key[0] ^= geo.zobrist[cell, who]
    pos.st[S_STONES] -= 1


@njit(cache=True, nogil=True)
def mover(geo, stones):
    if geo.cfg[C_KIND] == CONNECT6:
        return mover_at_ply(stones)
    return stones % 2


@njit(cache=True, nogil=True)
def stones_left(geo, stones):
    if geo.cfg[C_KIND] == CONNECT6:
        return stones_left_in_turn(stones)
    return 1


@njit(cache=True, nogil=True)
def evaluate(geo, pos, me, left):
    """Pattern worth for the mover, scaled by SCALE. The side that places the next two
    stones (Gomoku's mover, Connect6's mover at the start of its turn) gets a quarter more:
    it moves first on its chances."""
    mine = pos.st[S_SUM0 + me]
    theirs = pos.st[S_SUM1 - me]
    if geo.cfg[C_KIND] == GOMOKU or left == 2:
        mine += (mine * TEMPO) >> 4
    return (mine - theirs) * SCALE
