"""Classical alpha-beta for the k-in-a-row games (Gomoku freestyle, exact or renju, Connect6):
negamax with iterative deepening, a transposition table and move ordering over a pattern
evaluation. Nothing is learned; it is the fixed yardstick that plays the game.

The position is kept as counts per length-k window (every line segment of k cells in the
four directions): how many stones each side has in it. A window that holds stones of one
side only is a chance for that side, worth `weights[stones]` (about 8x per stone); the
evaluation is the mover's chances minus the opponent's. Placing or removing a stone
touches only the windows through its cell (and, under exact rules, the two windows that
end next to it), so a node costs O(4k), not O(board).

One ply is one stone. In Connect6 a side places two stones a turn, so the sign of the
value flips only where the mover changes.

Tactics are searched, not guessed, but every node first asks the two questions a
classical engine always asks, so that a deeper search never loses what a shallower one
sees: can the mover win with the stones of this turn (then it has won), and can the
opponent win next turn (then the only moves are the cells that stop it, and a position
where no stone can stop it is lost). Forced blocks are searched past the depth limit (a
quiescence of threats), so the horizon never hides a four or a Connect6 window of four.

Renju: black is scored and wins as under exact rules (a window next to a black stone is
dead for black: it would make an overline), white as under freestyle. Black never plays a
forbidden cell, at the root or in the tree: its move lists (candidates, blocks, fours) are
filtered with the rules' own kernel (`pipeline.games.renju.forbidden_on`, run on the
search's board, which has the same encoding), and a white winning cell black may not
block is a lost position for black, as the tactics say. A black four's completing cell
makes exactly five or an overline: the five is never forbidden, the overline is the dead
window, so the evaluation's black fours are real. What it does not do: a black three
whose every way to a four is forbidden still counts as a three in the evaluation (the
search sees it at the next black node, where the forbidden cells are not generated).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.games.layout import BOARD, CONNECT6, GOMOKU
from pipeline.games.renju import NOT_FORBIDDEN, forbidden_on, no_touch

MAX_PLY = 96  # deepest ply from the root, extensions included (rows of the move buffers)
WIN = 1 << 40  # a won position, minus the plies to reach it (faster wins are better)
MATE = WIN - 10_000  # values beyond +-MATE are forced results, not evaluations
INF = 1 << 50
SCALE = 16  # evaluation units per pattern unit: the tie-breaking jitter lives below it
BREADTH = 12  # moves searched below the root, the best by the ordering score
QUIET_BREADTH = 8  # blocks, or fours, searched beyond the depth limit
QUIET_FOURS = 4  # fours in a row the quiescence plays past the depth limit (Gomoku)
TT_BITS = 18
EXACT_BOUND, LOWER_BOUND, UPPER_BOUND = 0, 1, 2
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
PLAYS = "classical players play the k-in-a-row games: gomoku, connect6"


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

    board: np.ndarray  # int32 [cells]: 0 empty, 1 black, 2 white
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


class Table(NamedTuple):
    """Transposition table: one entry per slot, always replaced."""

    key: np.ndarray  # uint64
    value: np.ndarray  # int64
    depth: np.ndarray  # int32
    flag: np.ndarray  # int8
    move: np.ndarray  # int32


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


def make_position(geo: Geometry, board: np.ndarray, jitter: np.ndarray) -> Position:
    """The search's view of `board` (int values 0/1/2 per cell)."""
    cells = int(geo.cfg[C_CELLS])
    k = int(geo.cfg[C_K])
    nwin = int(geo.cfg[C_NWIN])
    hot = np.zeros((2, k + 1), dtype=np.int32)
    hot[:, 0] = nwin
    pos = Position(
        np.zeros(cells, dtype=np.int32),
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
    )
    for x in np.flatnonzero(board):
        put(geo, pos, int(x), int(board[x]) - 1)
    return pos


def make_table() -> Table:
    size = 1 << TT_BITS
    return Table(
        np.zeros(size, dtype=np.uint64),
        np.zeros(size, dtype=np.int64),
        np.full(size, -1, dtype=np.int32),
        np.zeros(size, dtype=np.int8),
        np.full(size, -1, dtype=np.int32),
    )


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


# ---- threats ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def run_length(geo, pos, cell, own, dr, dc):
    """Stones `own` in the line through `cell`, counting `cell` itself."""
    h = geo.cfg[C_H]
    w = geo.cfg[C_W]
    r0 = cell // w
    c0 = cell % w
    n = 1
    for sign in (1, -1):
        r = r0 + sign * dr
        c = c0 + sign * dc
        while 0 <= r < h and 0 <= c < w and pos.board[r * w + c] == own:
            n += 1
            r += sign * dr
            c += sign * dc
    return n


@njit(cache=True, nogil=True)
def makes_line(geo, pos, cell, who):
    """Would `who`'s stone on `cell` win: k in a row (exactly k under exact rules, and for
    black under renju)."""
    k = geo.cfg[C_K]
    exact = geo.cfg[C_EXACT] != 0 or (geo.cfg[C_RENJU] != 0 and who == 0)
    for d in range(4):
        n = run_length(geo, pos, cell, who + 1, DIRS[d][0], DIRS[d][1])
        if n == k or (n > k and not exact):
            return True
    return False


@njit(cache=True, nogil=True)
def add_unique(buf, n, cell):
    for i in range(n):
        if buf[i] == cell:
            return n
    buf[n] = cell
    return n + 1


@njit(cache=True, nogil=True)
def gomoku_wins(geo, pos, who, buf):
    """The cells where `who` makes k in a row at once, into `buf`; how many. Only windows
    with k - 1 of its stones and none of the other side's can hold one, and `hot` says
    whether any exists, so the scan runs only when there is something to find."""
    k = geo.cfg[C_K]
    if pos.hot[who, k - 1] == 0:
        return 0
    n = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, who] != k - 1 or pos.cnt[w, 1 - who] != 0:
            continue
        for i in range(k):
            x = geo.wcells[w, i]
            if pos.board[x] == 0:
                if (geo.cfg[C_EXACT] == 0 and (geo.cfg[C_RENJU] == 0 or who != 0)) or makes_line(geo, pos, x, who):
                    n = add_unique(buf, n, x)
                break
    return n


@njit(cache=True, nogil=True)
def connect6_win_cell(geo, pos, who, left):
    """An empty cell of a window `who` fills with the `left` stones of its turn (the
    window with the most of its stones), or -1."""
    best = -1
    most = 6 - left - 1
    if pos.hot[who, 5] == 0 and (left < 2 or pos.hot[who, 4] == 0):
        return -1
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, 1 - who] == 0 and pos.cnt[w, who] > most:
            most = pos.cnt[w, who]
            for i in range(6):
                x = geo.wcells[w, i]
                if pos.board[x] == 0:
                    best = x
                    break
    return best


@njit(cache=True, nogil=True)
def connect6_threats(geo, pos, me, left, buf):
    """The cells that stop the opponent's win on its next turn: the empty cells of its
    windows with four or five stones and none of `me`'s. Returns (cells, lost): lost when
    `me` has one stone left and no one cell lies in every such window."""
    them = 1 - me
    if pos.hot[them, 4] == 0 and pos.hot[them, 5] == 0:
        return 0, False
    n = 0
    windows = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, me] != 0 or pos.cnt[w, them] < 4:
            continue
        windows += 1
        for i in range(6):
            x = geo.wcells[w, i]
            if pos.board[x] == 0:
                if pos.hits[x] == 0:
                    buf[n] = x
                    n += 1
                pos.hits[x] += 1
    best = 0
    for i in range(n):
        best = max(best, pos.hits[buf[i]])
        pos.hits[buf[i]] = 0
    return n, left == 1 and best < windows


@njit(cache=True, nogil=True)
def has_win(geo, pos, me, left, buf):
    """Plies to the mover's win within this turn (1 or 2), or 0."""
    if geo.cfg[C_KIND] == CONNECT6:
        if pos.hot[me, 5] > 0:
            return 1
        return 2 if left == 2 and pos.hot[me, 4] > 0 else 0
    return 1 if gomoku_wins(geo, pos, me, buf) > 0 else 0


@njit(cache=True, nogil=True)
def forbidden(geo, pos, cell):
    """Renju: is the empty `cell` forbidden to black? The rules' kernel, on the search's
    board (0/1/2 like the state's; it tries stones there and takes them back), behind its
    cheap pre-check, so most cells cost a count of the black stones near them."""
    return forbidden_on(pos.board, geo.cfg[C_H], geo.cfg[C_W], cell, no_touch()) != NOT_FORBIDDEN


@njit(cache=True, nogil=True)
def drop_forbidden(geo, pos, me, buf, n):
    """Keep, in order, the first `n` cells of `buf` that `me` may play; how many."""
    if geo.cfg[C_RENJU] == 0 or me != 0:
        return n  # only black under renju has forbidden moves
    m = 0
    for i in range(n):
        x = buf[i]
        if not forbidden(geo, pos, x):
            buf[m] = x
            m += 1
    return m


@njit(cache=True, nogil=True)
def forced_moves(geo, pos, me, left, buf):
    """(blocks, lost): the cells that stop the opponent winning next turn, written to
    `buf`, and whether the position is lost whatever the mover does (Gomoku: two or more
    winning cells, or under renju black's one block forbidden; Connect6: no cell in every
    threat window with one stone left)."""
    if geo.cfg[C_KIND] == CONNECT6:
        return connect6_threats(geo, pos, me, left, buf)
    n = gomoku_wins(geo, pos, 1 - me, buf)
    if n == 1 and geo.cfg[C_RENJU] != 0 and me == 0 and forbidden(geo, pos, buf[0]):
        return 0, True  # renju: a forbidden cell is no defence for black
    return n, n >= 2


# ---- move generation and ordering ----------------------------------------------------------


@njit(cache=True, nogil=True)
def four_moves(geo, pos, me, buf):
    """Gomoku: the cells where `me` makes a four (a window one stone short of a line,
    free of the opponent), into `buf`; how many."""
    k = geo.cfg[C_K]
    if k < 3 or pos.hot[me, k - 2] == 0:
        return 0
    n = 0
    for w in range(geo.cfg[C_NWIN]):
        if pos.cnt[w, me] != k - 2 or pos.cnt[w, 1 - me] != 0 or dead(geo, pos, w, me):
            continue
        for i in range(k):
            x = geo.wcells[w, i]
            if pos.board[x] == 0 and pos.hits[x] == 0:
                pos.hits[x] = 1
                buf[n] = x
                n += 1
    for i in range(n):
        pos.hits[buf[i]] = 0
    return n


@njit(cache=True, nogil=True)
def candidates(geo, pos, buf):
    """Empty cells within distance 2 of a stone (the centre of an empty board)."""
    cells = geo.cfg[C_CELLS]
    if pos.st[S_STONES] == 0:
        buf[0] = (geo.cfg[C_H] // 2) * geo.cfg[C_W] + geo.cfg[C_W] // 2
        return 1
    n = 0
    for x in range(cells):
        if pos.board[x] == 0 and pos.near[x] > 0:
            buf[n] = x
            n += 1
    return n


@njit(cache=True, nogil=True)
def empty_cells(geo, pos, buf):
    n = 0
    for x in range(geo.cfg[C_CELLS]):
        if pos.board[x] == 0:
            buf[n] = x
            n += 1
    return n


@njit(cache=True, nogil=True)
def order_score(geo, pos, cell, me):
    """What a stone of `me` on `cell` makes (its windows' growth) plus what it blocks (the
    opponent's windows it spoils), with the seeded jitter below SCALE to break ties."""
    them = 1 - me
    wt = geo.weights
    score = 0
    for i in range(geo.ncont[cell]):
        w = geo.cwins[cell, i]
        a = pos.cnt[w, me]
        b = pos.cnt[w, them]
        if b == 0 and not dead(geo, pos, w, me):
            score += wt[min(a + 1, geo.cfg[C_K])] - wt[a]
        if a == 0 and b > 0 and not dead(geo, pos, w, them):
            score += wt[b]
    return score * SCALE + pos.jitter[cell]


@njit(cache=True, nogil=True)
def score_moves(geo, pos, ply, n, me, first):
    """Ordering scores of row `ply`'s `n` moves; `first` (the table's move) goes first."""
    for i in range(n):
        x = pos.moves[ply, i]
        pos.scores[ply, i] = INF if x == first else order_score(geo, pos, x, me)


@njit(cache=True, nogil=True)
def pick_next(pos, ply, i, n):
    """Selection sort one step at a time: a cutoff early leaves the rest unsorted."""
    best = i
    for j in range(i + 1, n):
        if pos.scores[ply, j] > pos.scores[ply, best]:
            best = j
    if best != i:
        m = pos.moves[ply, i]
        s = pos.scores[ply, i]
        pos.moves[ply, i] = pos.moves[ply, best]
        pos.scores[ply, i] = pos.scores[ply, best]
        pos.moves[ply, best] = m
        pos.scores[ply, best] = s
    return pos.moves[ply, i]


# ---- search ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def to_table(v, ply):
    """Forced results are stored relative to the node, not the root."""
    if v > MATE:
        return v + ply
    if v < -MATE:
        return v - ply
    return v


@njit(cache=True, nogil=True)
def from_table(v, ply):
    if v > MATE:
        return v - ply
    if v < -MATE:
        return v + ply
    return v


@njit(cache=True, nogil=True)
def enter(geo, pos, tt, ply):
    """Open the node at `ply` (its depth and window in its frame): (value, done). Done
    when the node is decided here (a win, a lost threat, the depth limit, the table);
    else its moves are in row `ply` and its frame is ready for children."""
    fr = pos.frames[ply]
    st = pos.st
    st[S_NODES] += 1
    if st[S_NODES] > st[S_LIMIT]:
        st[S_ABORT] = 1
    if st[S_ABORT] != 0:
        return np.int64(0), True
    depth = fr[F_DEPTH]
    alpha = fr[F_ALPHA]
    beta = fr[F_BETA]
    stones = st[S_STONES]
    if stones == geo.cfg[C_CELLS]:
        return np.int64(0), True  # a full board is a draw
    me = mover(geo, stones)
    left = stones_left(geo, stones)
    row = pos.moves[ply]
    plies = has_win(geo, pos, me, left, row)
    if plies > 0:
        return np.int64(WIN - ply - plies + 1), True
    n, lost = forced_moves(geo, pos, me, left, row)
    if lost:
        return np.int64(-(WIN - ply - 1)), True
    if ply >= MAX_PLY - 2:
        return evaluate(geo, pos, me, left), True
    if depth == 0 and n == 0 and geo.cfg[C_KIND] == CONNECT6 and left == 1 and stones >= 2:
        # Connect6 leaves lie between turns: half a turn played misjudges both sides.
        # (Once only, at the horizon: in the quiescence it would compound.)
        depth = 1
        fr[F_DEPTH] = 1
    floor = -INF
    if n == 0 and depth <= 0:
        # Quiescence: the mover may stand on the evaluation or go on with fours, whose
        # blocks are forced (and free of depth): a win by continuous fours beyond the
        # horizon is found, a lone four that leads nowhere costs nothing.
        floor = evaluate(geo, pos, me, left)
        if floor >= beta or depth <= -QUIET_FOURS or geo.cfg[C_KIND] != GOMOKU:
            return floor, True
        n = drop_forbidden(geo, pos, me, row, four_moves(geo, pos, me, row))
        if n == 0:
            return floor, True
        if floor > alpha:
            alpha = floor
    key = pos.key[0]
    slot = np.int64(key & np.uint64((1 << TT_BITS) - 1))
    first = -1
    if tt.key[slot] == key:
        first = tt.move[slot]
        if tt.depth[slot] >= max(depth, 0):
            v = from_table(tt.value[slot], ply)
            f = tt.flag[slot]
            if f == EXACT_BOUND or (f == LOWER_BOUND and v >= beta) or (f == UPPER_BOUND and v <= alpha):
                return v, True
    if floor > -INF:
        breadth = min(n, QUIET_BREADTH)
        child_depth = depth - 1
    elif n > 0:
        breadth = n if depth > 0 else min(n, QUIET_BREADTH)
        # A single block costs no depth: a sequence of fours is searched to its end.
        child_depth = depth if (n == 1 and geo.cfg[C_KIND] == GOMOKU) else depth - 1
    else:
        # Renju: black's forbidden cells are not moves. Should every candidate be
        # forbidden, the node counts as a draw below (a cell farther away is rarely legal
        # and never good).
        n = drop_forbidden(geo, pos, me, row, candidates(geo, pos, row))
        breadth = min(n, BREADTH)
        child_depth = depth - 1
    if n == 0:
        return np.int64(0), True
    score_moves(geo, pos, ply, n, me, first)
    fr[F_N] = n
    fr[F_BREADTH] = breadth
    fr[F_I] = 0
    fr[F_CHILD] = child_depth
    fr[F_ALPHA0] = fr[F_ALPHA]
    fr[F_ALPHA] = alpha
    fr[F_BEST] = floor
    fr[F_BEST_MOVE] = -1
    fr[F_ME] = me
    return np.int64(0), False


@njit(cache=True, nogil=True)
def descend(geo, pos, ply):
    """Play the node's next move and set up the child's frame (its window negated where
    the mover changes)."""
    fr = pos.frames[ply]
    x = pick_next(pos, ply, fr[F_I], fr[F_N])
    fr[F_I] += 1
    fr[F_MOVE] = x
    me = fr[F_ME]
    put(geo, pos, x, me)
    child = pos.frames[ply + 1]
    child[F_DEPTH] = fr[F_CHILD]
    if mover(geo, pos.st[S_STONES]) == me:
        fr[F_FLIP] = 0
        child[F_ALPHA] = fr[F_ALPHA]
        child[F_BETA] = fr[F_BETA]
    else:
        fr[F_FLIP] = 1
        child[F_ALPHA] = -fr[F_BETA]
        child[F_BETA] = -fr[F_ALPHA]


@njit(cache=True, nogil=True)
def finish(geo, pos, tt, ply):
    """Close the node: store its result in the table and return its value."""
    fr = pos.frames[ply]
    best = fr[F_BEST]
    key = pos.key[0]
    slot = np.int64(key & np.uint64((1 << TT_BITS) - 1))
    if best <= fr[F_ALPHA0]:
        flag = UPPER_BOUND
    elif best >= fr[F_BETA]:
        flag = LOWER_BOUND
    else:
        flag = EXACT_BOUND
    tt.key[slot] = key
    tt.value[slot] = to_table(best, ply)
    tt.depth[slot] = max(fr[F_DEPTH], 0)
    tt.flag[slot] = flag
    tt.move[slot] = fr[F_BEST_MOVE]
    return best


@njit(cache=True, nogil=True)
def negamax(geo, pos, tt, depth, ply0, alpha, beta):
    """Value of the position for its mover, searched `depth` plies (blocks beyond that).

    Iterative over the frames in `pos.frames`, not recursive: numba segfaults loading a
    cached recursive function (numba issue 6061)."""
    fr = pos.frames[ply0]
    fr[F_DEPTH] = depth
    fr[F_ALPHA] = alpha
    fr[F_BETA] = beta
    ply = ply0
    while True:
        v, done = enter(geo, pos, tt, ply)
        if not done:
            descend(geo, pos, ply)
            ply += 1
            continue
        # Hand `v` up until a node has another child to search.
        while ply > ply0:
            p = ply - 1
            fr = pos.frames[p]
            take(geo, pos, fr[F_MOVE], fr[F_ME])
            ply = p
            if pos.st[S_ABORT] != 0:
                continue  # unwind every stone, then give up
            if fr[F_FLIP] != 0:
                v = -v
            if v > fr[F_BEST]:
                fr[F_BEST] = v
                fr[F_BEST_MOVE] = fr[F_MOVE]
                if v > fr[F_ALPHA]:
                    fr[F_ALPHA] = v
            if fr[F_ALPHA] < fr[F_BETA] and fr[F_I] == fr[F_BREADTH] and fr[F_BEST] < -MATE:
                # Every move searched loses: the pruned ones get their chance before the
                # node is called lost (else a deeper search claims wins that are not).
                fr[F_BREADTH] = fr[F_N]
            if fr[F_ALPHA] < fr[F_BETA] and fr[F_I] < fr[F_BREADTH]:
                descend(geo, pos, p)
                ply = p + 1
                break
            v = finish(geo, pos, tt, p)
        if ply == ply0:
            return np.int64(0) if pos.st[S_ABORT] != 0 else v


@njit(cache=True, nogil=True)
def root_moves(geo, pos, out):
    """The root's moves into `out`, ordered: (count, won). A won root has one move, the
    win; a root facing a threat has its blocks (every one, even in a lost position: the
    game goes on); else every candidate."""
    stones = pos.st[S_STONES]
    me = mover(geo, stones)
    left = stones_left(geo, stones)
    row = pos.moves[0]
    if geo.cfg[C_KIND] == CONNECT6:
        x = connect6_win_cell(geo, pos, me, left)
        if x >= 0:
            out[0] = x
            return 1, True
    elif gomoku_wins(geo, pos, me, row) > 0:
        out[0] = row[0]
        return 1, True
    n, _ = forced_moves(geo, pos, me, left, row)
    n = drop_forbidden(geo, pos, me, row, n)
    if n == 0:
        n = drop_forbidden(geo, pos, me, row, candidates(geo, pos, row))
    if n == 0:
        n = drop_forbidden(geo, pos, me, row, empty_cells(geo, pos, row))  # renju: legal cells far away
    score_moves(geo, pos, 0, n, me, -1)
    for i in range(n):
        out[i] = pick_next(pos, 0, i, n)
    return n, False


@njit(cache=True, nogil=True)
def search_root(geo, pos, tt, depth, moves, values, n):
    """One iteration at `depth` over the root's `n` moves in their order; each move's value
    (for the root's mover, jitter included) goes to `values`. Returns the best index, or -1
    if the node limit stopped it."""
    stones = pos.st[S_STONES]
    me = mover(geo, stones)
    alpha = -INF
    beta = INF
    best = -1
    for i in range(n):
        x = moves[i]
        j = pos.jitter[x]
        put(geo, pos, x, me)
        # The jitter is added to the move's value, so the child's window moves down by it.
        if mover(geo, stones + 1) == me:
            v = negamax(geo, pos, tt, depth - 1, 1, alpha - j, beta - j)
        else:
            v = -negamax(geo, pos, tt, depth - 1, 1, -(beta - j), -(alpha - j))
        take(geo, pos, x, me)
        if pos.st[S_ABORT] != 0:
            return -1
        if -MATE <= v <= MATE:
            v += j  # a forced result keeps its distance: the nearest win, the farthest loss
        values[i] = v
        if best < 0 or v > alpha:
            best = i
            alpha = max(alpha, v)
    return best


# ---- driver -------------------------------------------------------------------------------

VALUE_SCALE = 256 * SCALE  # evaluation units that squash to tanh(1): about an open three's worth


def squash(value: int) -> float:
    """A search value as a value in [-1, 1] for the mover: forced results are +-1."""
    if value > MATE:
        return 1.0
    if value < -MATE:
        return -1.0
    return float(np.tanh(value / VALUE_SCALE))


@dataclass
class SearchResult:
    action: int
    value: int  # for the mover, in evaluation units (beyond +-MATE: a forced result)
    depth: int  # the deepest iteration completed (0: the move was forced or no iteration finished)
    nodes: int
    values: dict[int, int]  # the last completed iteration's value of each root move (fail-low ones are bounds)


class AlphaBeta:
    """Iterative-deepening alpha-beta over a game's positions, seeded: the same seed and
    the same positions asked in the same order give the same moves."""

    def __init__(self, seed: int = 0, table: Table | None = None):
        self.rng = np.random.default_rng(seed)
        self.table = make_table() if table is None else table  # cleared at every search
        self._geometry: dict[tuple[int, int, int, bool, int, bool], Geometry] = {}

    def geometry(self, spec: GameSpec) -> Geometry:
        if spec.game not in ("gomoku", "connect6"):
            raise ValueError(PLAYS)
        key = (spec.height, spec.width, spec.k, spec.rules == "exact", spec.kind, spec.rules == "renju")
        if key not in self._geometry:
            self._geometry[key] = make_geometry(*key)
        return self._geometry[key]

    def search(
        self, state: GameState, depth: int, nodes: int | None = None, seconds: float | None = None
    ) -> SearchResult:
        """The move for `state`'s mover: iterations to `depth` plies, stopped early by a
        node limit (the last completed iteration's move is kept) or when the next
        iteration would likely outrun `seconds`."""
        if state.is_terminal:
            raise ValueError("the game is over")
        spec = state.spec
        geo = self.geometry(spec)
        jitter = self.rng.integers(0, SCALE, size=spec.cells)
        board = state.array[BOARD : BOARD + spec.cells]
        pos = make_position(geo, board, jitter)
        self.table.key.fill(0)
        self.table.depth.fill(-1)
        moves = np.zeros(spec.cells, dtype=np.int32)
        n, won = root_moves(geo, pos, moves)
        moves = moves[:n]
        if won:
            return SearchResult(int(moves[0]), WIN, 0, 0, {int(moves[0]): WIN})
        result = SearchResult(int(moves[0]), 0, 0, 0, {})
        start = time.perf_counter()
        last = 0.0
        for d in range(1, depth + 1):
            if seconds is not None and d > 1 and (time.perf_counter() - start) + 4 * last > seconds:
                break  # an iteration costs several times the one before: this one would not finish
            pos.st[S_LIMIT] = INF if nodes is None else nodes
            began = time.perf_counter()
            values = np.zeros(n, dtype=np.int64)
            best = search_root(geo, pos, self.table, d, moves, values, n)
            last = time.perf_counter() - began
            if best < 0:
                break
            result = SearchResult(
                int(moves[best]), int(values[best]), d, 0, dict(zip(moves.tolist(), values.tolist(), strict=True))
            )
            if abs(result.value) > MATE:
                break  # solved: deeper iterations cannot change it
            # The best move first, then the others by their values (stable): the next
            # iteration cuts off sooner.
            order = np.argsort(-values, kind="stable")
            order = np.concatenate(([best], order[order != best]))
            moves = moves[order]
        result.nodes = int(pos.st[S_NODES])
        return result
