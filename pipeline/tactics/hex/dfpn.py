"""Depth-first proof-number search (DFPN, Nagai) for Hex, with H-search and inferior cells.

Numbers are for the player to move (negamax form): phi is the proof number of "the mover
wins", delta its disproof number. A node's phi is the least delta of its children, its
delta the sum of their phi (were a move to leave the same player to move, that child's
numbers would count the other way round; in our rules the swap passes the move too). MID
searches the child of least delta with the thresholds of the 1+epsilon trick (Pawlewicz
and Lew) until the node's numbers reach its own thresholds; every node is evaluated once,
when first reached, and its candidate moves are kept in the transposition table as a
bitset, so a revisit costs a table probe.

Evaluation of a node for the mover M against O (each rule sound, so proofs are game
values):

* a cell that joins M's edges: a win; two or more for O: a loss; one: M must play it;
* with USE_INFERIOR, dead cells and captured pairs are filled in first (fill_inferior:
  the value is unchanged), and the analysis below runs on the filled board, so no move
  into a filled cell (each is at best a pass) is a candidate;
* with USE_HSEARCH: an SC or a VC of M between its edges: a win (key: the move); a VC of
  O: a loss; otherwise M's candidates are the must-play region, the intersection of the
  carriers of O's SCs between its edges (empty: a loss);
* with USE_VC, the bridge-and-ziggurat knowledge of hex_connect in the same roles.

A node's evaluation is a pure function of the position and the settings (flags and
H-search limits), so it is also kept in an evaluation cache shared by every table of the
process (`shared_evaluations`): a node evaluated by one search (the player's root solver)
costs another (the perfect-play checker, or the same search after the node's table entry
was replaced) a probe instead of two H-searches. The cache changes no number, move or
node count: only the time.

The swap (pie) move, where legal, is always a candidate and the knowledge is not used at
that node (O's connection does not decide it: M may take O's stone), nor on the empty board
of a swap game (M's first stone may be taken). The table is
bucketed (4 slots; a full bucket loses its entry with the least work), keyed by the
position key of hex_solver (size, stones, side, swap), so it can be shared between solves.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import apply_hex, swap_ahead, swap_legal, winning_cells
from pipeline.games.layout import BOARD, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.hex.connect import must_play_region, winning_connection
from pipeline.tactics.hex.hsearch import (
    BIT0,
    BIT1,
    BIT2,
    FULL,
    NONE,
    WORDS,
    Z,
    empty_bits,
    has_cell,
    hsearch,
    must_play,
)
from pipeline.tactics.hex.patterns import fill_inferior
from pipeline.tactics.hex.solver import LOSS, UNKNOWN, USE_INFERIOR, USE_VC, WIN, Z_SIDE, ZOBRIST, position_key

USE_HSEARCH = 4
DFPN_ALL = USE_HSEARCH | USE_INFERIOR

INF = np.int64(1) << np.int64(40)
BUCKET = 4

# counters[] slots (SALT: the evaluation cache's key for these flags and limits, as int64 bits)
NODES = 0
BUDGET = 1
ABORT = 2
SALT = 3

# limits[] slots: H-search's per-pair limits and options
L_MAX_VC = 0
L_MAX_SC = 1
L_MAX_OR = 2
L_EMPTY_PAIRS = 3


def default_limits(max_vc: int = 16, max_sc: int = 32, max_or: int = 4, empty_pairs: bool = True) -> np.ndarray:
    return np.array([max_vc, max_sc, max_or, int(empty_pairs)], dtype=np.int64)


# The evaluation cache: direct-mapped, 2**EVAL_LOG2 entries of 40 bytes (40 MiB), made with
# the first table of a process. It holds about a sweep worker's last million evaluations: a
# ply's checker solves (5 games, 50,000 nodes each) and the player's solves of the same
# positions that follow them.
EVAL_LOG2 = 20
# Mixed into a position's key for the cache: the empty board of a swap game (its first stone
# may change hands, so no knowledge applies) has the key of the same board without the rule.
Z_AHEAD = np.uint64(0x9E3779B97F4A7C15)
# A stored entry's check word: its key XOR a hash of its value, so an entry torn by two
# threads writing at once (the solvers release the GIL) reads as a miss, never as a value.
_C0 = np.uint64(0xBF58476D1CE4E5B9)
_C1 = np.uint64(0x94D049BB133111EB)
_C2 = np.uint64(0xD6E8FEB86659FD93)
_C3 = np.uint64(0xA0761D6478BD642F)

_shared: tuple[np.ndarray, ...] | None = None


def new_evaluations(log2_size: int = EVAL_LOG2) -> tuple[np.ndarray, ...]:
    """An evaluation cache: check words, candidate bitsets ([size, WORDS]) and packed
    results (0: empty; else 1 + status + 1, the swap flag and 1 + the move, in bits)."""
    size = 1 << log2_size
    return (
        np.zeros(size, dtype=np.uint64),
        np.zeros((size, WORDS), dtype=np.uint64),
        np.zeros(size, dtype=np.int64),
    )


def shared_evaluations() -> tuple[np.ndarray, ...]:
    """The process's evaluation cache (made on first use)."""
    global _shared
    if _shared is None:
        _shared = new_evaluations()
    return _shared


def new_tt(log2_size: int = 20, evaluations: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, ...]:
    """keys, phi, delta, moves (a bitset: [size, WORDS]), flags (1: expanded, 2: swap is
    a candidate), best move, work (nodes below); then the evaluation cache's three arrays
    (the process's shared one unless `evaluations` is given)."""
    size = 1 << log2_size
    return (
        np.zeros(size, dtype=np.uint64),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros((size, WORDS), dtype=np.uint64),
        np.zeros(size, dtype=np.int8),
        np.full(size, -1, dtype=np.int32),
        np.zeros(size, dtype=np.int64),
        *(shared_evaluations() if evaluations is None else evaluations),
    )


@njit(cache=True, nogil=True)
def tt_find(keys, key):
    base = np.int64(key & np.uint64(keys.shape[0] - 1)) & ~np.int64(BUCKET - 1)
    for i in range(base, base + BUCKET):
        if keys[i] == key:
            return i
    return -1


@njit(cache=True, nogil=True)
def tt_slot(keys, work, key):
    """The slot for `key`: its own, else an empty one, else the one with least work."""
    base = np.int64(key & np.uint64(keys.shape[0] - 1)) & ~np.int64(BUCKET - 1)
    pick = base
    for i in range(base, base + BUCKET):
        if keys[i] == key:
            return i
        if keys[i] == Z:
            return i
        if work[i] < work[pick]:
            pick = i
    return pick


@njit(cache=True, nogil=True)
def tt_store(tt, key, phi, delta, m0, m1, m2, mflag, best, work):
    keys, tphi, tdelta, tmoves, tflag, tbest, twork = tt[0], tt[1], tt[2], tt[3], tt[4], tt[5], tt[6]
    i = tt_slot(keys, twork, key)
    keys[i] = key
    tphi[i] = phi
    tdelta[i] = delta
    tmoves[i, 0] = m0
    tmoves[i, 1] = m1
    tmoves[i, 2] = m2
    tflag[i] = mflag
    tbest[i] = best
    twork[i] = work


@njit(cache=True, nogil=True)
def evaluate(s, flags, limits):
    """Return (status, move, w0, w1, w2, swap): WIN (move: a winning move, or -1 when the
    win is a standing connection) or LOSS, or UNKNOWN with the candidate cells (a bitset)
    and whether swap is a candidate."""
    n = s[WIDTH]
    cells = n * n
    me = s[TO_MOVE]
    opp = 1 - me
    if s[WINNER] >= 0:
        return (WIN if s[WINNER] == me else LOSS), -1, Z, Z, Z, False
    marks = np.zeros(cells, dtype=np.bool_)
    if winning_cells(s, me, marks) > 0:
        for cell in range(cells):
            if marks[cell]:
                return WIN, cell, Z, Z, Z, False
    if swap_ahead(s):
        # The first stone may yet change hands (on the empty board of a swap game too: a
        # semi-connection's key there is the opening the opponent swaps): no knowledge.
        w0, w1, w2 = empty_bits(s)
        return UNKNOWN, -1, w0, w1, w2, swap_legal(s)
    t = s
    if (flags & USE_INFERIOR) != 0:
        t = np.empty_like(s)
        fill_inferior(s, t)
        if t[WINNER] >= 0:
            return (WIN if t[WINNER] == me else LOSS), -1, Z, Z, Z, False
        marks[:] = False
        if winning_cells(t, me, marks) > 0:
            for cell in range(cells):
                if marks[cell]:
                    return WIN, cell, Z, Z, Z, False
    max_vc = limits[L_MAX_VC]
    max_sc = limits[L_MAX_SC]
    max_or = limits[L_MAX_OR]
    empty_pairs = limits[L_EMPTY_PAIRS] != 0
    if (flags & USE_HSEARCH) != 0:
        sc_bits = np.empty((1, WORDS), dtype=np.uint64)
        sc_key = np.empty(1, dtype=np.int64)
        status, count, _, _, _ = hsearch(t, me, max_vc, max_sc, max_or, empty_pairs, True, sc_bits, sc_key)
        if status == FULL:
            return WIN, -1, Z, Z, Z, False
        if count > 0:
            return WIN, sc_key[0], Z, Z, Z, False
    carrier = np.zeros(cells, dtype=np.bool_)
    if (flags & USE_VC) != 0:
        if winning_connection(t, me, carrier) == 1:
            return WIN, -1, Z, Z, Z, False
        if winning_connection(t, opp, carrier) == 1:
            return LOSS, -1, Z, Z, Z, False
    marks[:] = False
    threats = winning_cells(t, opp, marks)
    if threats >= 2:
        return LOSS, -1, Z, Z, Z, False
    w0 = Z
    w1 = Z
    w2 = Z
    for cell in range(cells):
        if t[BOARD + cell] == 0 and (threats == 0 or marks[cell]):
            w0 |= BIT0[cell]
            w1 |= BIT1[cell]
            w2 |= BIT2[cell]
    if (flags & USE_HSEARCH) != 0:
        status, r0, r1, r2 = must_play(t, opp, max_vc, max_sc, max_or, empty_pairs)
        if status == FULL:
            return LOSS, -1, Z, Z, Z, False
        if status != NONE:
            w0 &= r0
            w1 &= r1
            w2 &= r2
    if (flags & USE_VC) != 0 and threats == 0:
        region = np.zeros(cells, dtype=np.bool_)
        for cell in range(cells):
            region[cell] = has_cell(w0, w1, w2, cell)
        must_play_region(t, opp, region, carrier)
        w0 = Z
        w1 = Z
        w2 = Z
        for cell in range(cells):
            if region[cell]:
                w0 |= BIT0[cell]
                w1 |= BIT1[cell]
                w2 |= BIT2[cell]
    if w0 == Z and w1 == Z and w2 == Z:
        return LOSS, -1, Z, Z, Z, False
    return UNKNOWN, -1, w0, w1, w2, False


@njit(cache=True, nogil=True)
def _check_word(ekey, info, w0, w1, w2):
    return ekey ^ (np.uint64(info) * _C0) ^ (w0 * _C1) ^ (w1 * _C2) ^ (w2 * _C3)


@njit(cache=True, nogil=True)
def evaluation_salt(flags, limits):
    """The cache key's part for these flags and H-search limits (searches with other
    settings evaluate a position otherwise)."""
    h = np.uint64(flags + 1) * _C0
    for i in range(limits.shape[0]):
        h = (h ^ np.uint64(limits[i] + 1)) * _C1
    return h ^ (h >> np.uint64(31))


@njit(cache=True, nogil=True)
def cached_evaluate(s, key, salt, flags, limits, tt):
    """evaluate(s, flags, limits) through the evaluation cache of table `tt` (`key`: the
    position's key, `salt`: evaluation_salt(flags, limits))."""
    checks, bits, infos = tt[7], tt[8], tt[9]
    ekey = key ^ salt
    if swap_ahead(s):
        ekey ^= Z_AHEAD
    i = np.int64(ekey & np.uint64(checks.shape[0] - 1))
    info = infos[i]
    if info != 0:
        w0 = bits[i, 0]
        w1 = bits[i, 1]
        w2 = bits[i, 2]
        if checks[i] == _check_word(ekey, info, w0, w1, w2):
            status = (info & 3) - 2
            mswap = (info & 4) != 0
            move = (info >> 3) - 1
            return status, move, w0, w1, w2, mswap
    status, move, w0, w1, w2, mswap = evaluate(s, flags, limits)
    info = np.int64(status + 2) | (np.int64(4) if mswap else np.int64(0)) | ((np.int64(move) + 1) << 3)
    infos[i] = info
    bits[i, 0] = w0
    bits[i, 1] = w1
    bits[i, 2] = w2
    checks[i] = _check_word(ekey, info, w0, w1, w2)
    return status, move, w0, w1, w2, mswap


@njit(cache=True, nogil=True)
def child_key(s, key, move):
    """The position key after `move` (incremental unless a swap is involved)."""
    cells = s[WIDTH] * s[WIDTH]
    if move == cells or swap_legal(s):
        child = s.copy()
        apply_hex(child, move)
        return position_key(child)
    return key ^ ZOBRIST[2 * move + s[TO_MOVE]] ^ ZOBRIST[Z_SIDE]


@njit(cache=True, nogil=True)
def _numbers(tt, key):
    """(phi, delta) of a stored node, (1, 1) for a new one."""
    i = tt_find(tt[0], key)
    if i < 0:
        return np.int64(1), np.int64(1)
    return tt[1][i], tt[2][i]


@njit(cache=True, nogil=True)
def mid(s, key, thphi, thdelta, flags, limits, order, tt, counters):
    """Search `s` (key `key`) until its (phi, delta) reach (thphi, thdelta), it is
    proven, or the budget runs out (counters[ABORT] set). Return (phi, delta)."""
    keys, tphi, tdelta, tmoves, tflag, twork = tt[0], tt[1], tt[2], tt[3], tt[4], tt[6]
    i = tt_find(keys, key)
    expanded = False
    m0 = Z
    m1 = Z
    m2 = Z
    mswap = False
    old_work = np.int64(0)
    if i >= 0:
        phi = tphi[i]
        delta = tdelta[i]
        if phi == 0 or delta == 0 or phi >= thphi or delta >= thdelta:
            return phi, delta
        expanded = (tflag[i] & 1) != 0
        m0 = tmoves[i, 0]
        m1 = tmoves[i, 1]
        m2 = tmoves[i, 2]
        mswap = (tflag[i] & 2) != 0
        old_work = twork[i]
    start = counters[NODES]
    if not expanded:
        if counters[NODES] >= counters[BUDGET]:
            counters[ABORT] = 1
            return np.int64(1), np.int64(1)
        counters[NODES] += 1
        salt = np.uint64(counters[SALT])
        status, move, m0, m1, m2, mswap = cached_evaluate(s, key, salt, flags, limits, tt)
        if status == WIN:
            tt_store(tt, key, 0, INF, Z, Z, Z, 0, move, 1)
            return np.int64(0), INF
        if status == LOSS:
            tt_store(tt, key, INF, 0, Z, Z, Z, 0, -1, 1)
            return INF, np.int64(0)
    cells = s[WIDTH] * s[WIDTH]
    moves = np.empty(cells + 1, dtype=np.int64)
    k = 0
    for j in range(cells):
        cell = order[j]
        if has_cell(m0, m1, m2, cell):
            moves[k] = cell
            k += 1
    if mswap:
        moves[k] = cells
        k += 1
    ckeys = np.empty(k, dtype=np.uint64)
    a = np.empty(k, dtype=np.int64)  # the mover's proof contribution (minimised)
    b = np.empty(k, dtype=np.int64)  # its disproof contribution (summed)
    same = np.zeros(k, dtype=np.bool_)  # the child has the same mover
    child = np.empty_like(s)
    for j in range(k):
        ckeys[j] = child_key(s, key, moves[j])
        if moves[j] == cells:  # does the same player move after the swap? (not in our rules)
            child[:] = s[:]
            apply_hex(child, moves[j])
            same[j] = child[TO_MOVE] == s[TO_MOVE]
        cp, cd = _numbers(tt, ckeys[j])
        a[j] = cp if same[j] else cd
        b[j] = cd if same[j] else cp
    mflag = np.int8(1 | (2 if mswap else 0))
    while True:
        best = 0
        second = INF
        total = np.int64(0)
        for j in range(k):
            total = min(total + b[j], INF - 1)
            if a[j] < a[best]:
                second = a[best]
                best = j
            elif j != best and a[j] < second:
                second = a[j]
        phi = a[best]
        delta = total
        if phi == 0:
            delta = INF
        elif delta == 0:
            phi = INF
        if phi >= thphi or delta >= thdelta or phi == 0 or delta == 0 or counters[ABORT] != 0:
            break
        b_th = thdelta - delta + b[best]
        a_th = min(thphi, max(second + 1, second + second // 4))
        child[:] = s[:]
        apply_hex(child, moves[best])
        if same[best]:
            cp, cd = mid(child, ckeys[best], a_th, b_th, flags, limits, order, tt, counters)
            a[best] = cp
            b[best] = cd
        else:
            cp, cd = mid(child, ckeys[best], b_th, a_th, flags, limits, order, tt, counters)
            a[best] = cd
            b[best] = cp
    win_move = moves[best] if phi == 0 else -1
    tt_store(tt, key, phi, delta, m0, m1, m2, mflag, win_move, old_work + counters[NODES] - start + 1)
    return phi, delta


@njit(cache=True, nogil=True)
def dfpn(s, budget, flags, limits, order, tt):
    """Solve `s` (not modified) within `budget` evaluated nodes. Return (value for the
    player to move, a winning move or -1 (none, or the win is a standing connection),
    nodes used)."""
    counters = np.zeros(4, dtype=np.int64)
    counters[BUDGET] = budget
    counters[SALT] = np.int64(evaluation_salt(flags, limits))
    key = position_key(s)
    work = s.copy()
    phi, delta = mid(work, key, INF, INF, flags, limits, order, tt, counters)
    if phi == 0:
        i = tt_find(tt[0], key)
        return WIN, (tt[5][i] if i >= 0 else -1), counters[NODES]
    if delta == 0:
        return LOSS, -1, counters[NODES]
    return UNKNOWN, -1, counters[NODES]


def centre_order(n: int) -> np.ndarray:
    """Cells by hex distance to the centre of the rhombus (the move order of ties)."""

    def dist(cell: int) -> tuple[float, int]:
        r, c = divmod(cell, n)
        dr, dc = r - (n - 1) / 2, c - (n - 1) / 2
        return (max(abs(dr), abs(dc), abs(dr + dc)), cell)

    return np.array(sorted(range(n * n), key=dist), dtype=np.int64)
