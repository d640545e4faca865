"""The alpha-beta search of the classical player: negamax with a transposition table,
iterative over a frame stack, with the quiescence of threats past the depth limit.

Tactics are searched, not guessed: a node where the mover wins this turn is won, one where
the opponent wins next turn has only the cells that stop it (and is lost where none can),
so a deeper search never loses what a shallower one sees. Forced blocks are searched past
the depth limit, so the horizon never hides a four or a Connect6 window of four.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, GOMOKU
from pipeline.search.alphabeta.moves import (
    candidates,
    connect6_win_cell,
    drop_forbidden,
    empty_cells,
    forced_moves,
    gomoku_wins,
    has_win,
    pick_next,
    score_moves,
    window_fours,
)
from pipeline.search.alphabeta.patterns import (
    C_CELLS,
    C_KIND,
    F_ALPHA,
    F_ALPHA0,
    F_BEST,
    F_BEST_MOVE,
    F_BETA,
    F_BREADTH,
    F_CHILD,
    F_DEPTH,
    F_FLIP,
    F_I,
    F_ME,
    F_MOVE,
    F_N,
    INF,
    MATE,
    MAX_PLY,
    S_ABORT,
    S_LIMIT,
    S_NODES,
    S_STONES,
    WIN,
    evaluate,
    mover,
    put,
    stones_left,
    take,
)

BREADTH = 12  # moves searched below the root, the best by the ordering score
QUIET_BREADTH = 8  # blocks, or fours, searched beyond the depth limit
QUIET_FOURS = 4  # fours in a row the quiescence plays past the depth limit (Gomoku)
TT_BITS = 18
EXACT_BOUND, LOWER_BOUND, UPPER_BOUND = 0, 1, 2


class Table(NamedTuple):
    """Transposition table: one entry per slot, always replaced."""

    key: np.ndarray  # uint64
    value: np.ndarray  # int64
    depth: np.ndarray  # int32
    flag: np.ndarray  # int8
    move: np.ndarray  # int32


def make_table() -> Table:
    size = 1 << TT_BITS
    return Table(
        np.zeros(size, dtype=np.uint64),
        np.zeros(size, dtype=np.int64),
        np.full(size, -1, dtype=np.int32),
        np.zeros(size, dtype=np.int8),
        np.full(size, -1, dtype=np.int32),
    )


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
        n = drop_forbidden(geo, pos, me, row, window_fours(geo, pos, me, row))
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
