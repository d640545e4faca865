"""A compiled Hex solver: depth-first negamax over proven values with a transposition
table, pruned by connection knowledge.

At each position the player to move, M, against O:

* M has a cell that joins its edges, or a winning virtual connection: a win.
* O has a winning virtual connection (it wins even with M to move): a loss.
* O has two or more cells that join its edges: a loss; one: M must play it.
* Otherwise O's *semi-connections* (a key cell k after which O has a winning VC with
  carrier C) each force M into {k} and C: a move outside leaves O to play k and win. The
  intersection of all of them is M's must-play region; when it is empty, a loss.
* Inferior cells (dead, captured) leave the must-play region: each is at best a pass.
* A candidate after which M has a winning VC is a win at once, without a child search.

Every rule is sound (the VCs are), so a proven value is the game value. Values are for
the player to move: WIN, LOSS, or UNKNOWN when the node budget ran out. Only proven
values enter the table, so it can be shared between searches (and board sizes: the size
is part of the key).

Flags pick the knowledge: USE_VC (connections, must-play) and USE_INFERIOR (dead and
captured cells); with neither it is a plain exhaustive search.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import apply_hex, swap_ahead, swap_legal, winning_cells
from pipeline.games.layout import BOARD, STONES, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.hex.connect import must_play_region, winning_connection
from pipeline.tactics.hex.patterns import inferior_mask

WIN = 1
LOSS = -1
UNKNOWN = 0

USE_VC = 1
USE_INFERIOR = 2
USE_ALL = USE_VC | USE_INFERIOR

MAX_CELLS = 19 * 19
# Zobrist keys: one per (cell, colour), then the side to move, a pending swap, the size.
_Z = np.random.default_rng(0x5EED_4E58).integers(1, 2**63 - 1, size=2 * MAX_CELLS + 2 + 20, dtype=np.int64)
ZOBRIST = _Z.astype(np.uint64)
Z_SIDE = 2 * MAX_CELLS
Z_SWAP = 2 * MAX_CELLS + 1
Z_SIZE = 2 * MAX_CELLS + 2

# counters[] slots
NODES = 0
BUDGET = 1


def new_table(log2_size: int = 20) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A transposition table: keys (uint64), values (int8), best moves (int32)."""
    size = 1 << log2_size
    return np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int8), np.full(size, -1, dtype=np.int32)


@njit(cache=True, nogil=True)
def position_key(s):
    n = s[WIDTH]
    h = ZOBRIST[Z_SIZE + n]
    for cell in range(n * n):
        v = s[BOARD + cell]
        if v != 0:
            h ^= ZOBRIST[2 * cell + v - 1]
    if s[TO_MOVE] == 1:
        h ^= ZOBRIST[Z_SIDE]
    if swap_legal(s):
        h ^= ZOBRIST[Z_SWAP]
    return h


@njit(cache=True, nogil=True)
def tt_probe(keys, vals, key):
    i = np.int64(key & np.uint64(keys.shape[0] - 1))
    if keys[i] == key:
        return i, np.int64(vals[i])
    return i, np.int64(UNKNOWN)


@njit(cache=True, nogil=True)
def analyse(s, flags, out):
    """Candidate moves of the player to move, in `out` (bool, length cells + 1: the last
    slot is swap; cleared here). Return (status, move): status WIN or LOSS when the
    position is decided by knowledge alone (move: a winning cell, or -1 when the win is
    a virtual connection), else UNKNOWN with the candidates marked (move: their count)."""
    n = s[WIDTH]
    cells = n * n
    for a in range(out.shape[0]):
        out[a] = False
    me = s[TO_MOVE]
    opp = 1 - me
    if s[WINNER] >= 0:
        return (WIN if s[WINNER] == me else LOSS), -1
    marks = np.zeros(cells, dtype=np.bool_)
    if winning_cells(s, me, marks) > 0:
        for cell in range(cells):
            if marks[cell]:
                out[cell] = True
                return WIN, cell
    if swap_ahead(s):
        # The pie rule changes (or, on the empty board, may yet change) whose stone is on the
        # board: no knowledge, every move.
        for cell in range(cells):
            out[cell] = s[BOARD + cell] == 0
        out[cells] = swap_legal(s)
        return UNKNOWN, cells - s[STONES] + (1 if out[cells] else 0)
    carrier = np.zeros(cells, dtype=np.bool_)
    use_vc = (flags & USE_VC) != 0
    if use_vc:
        if winning_connection(s, me, carrier) == 1:
            return WIN, -1
        if winning_connection(s, opp, carrier) == 1:
            return LOSS, -1
    marks[:] = False
    threats = winning_cells(s, opp, marks)
    if threats >= 2:
        return LOSS, -1
    must = np.empty(cells, dtype=np.bool_)
    if threats == 1:
        must[:] = marks
    else:
        for cell in range(cells):
            must[cell] = s[BOARD + cell] == 0
        if use_vc:
            # Intersect the carriers of O's semi-connections: O plays k, then has a VC.
            found, alive = must_play_region(s, opp, must, carrier)
            if found > 0 and alive == 0:
                return LOSS, -1
    count = 0
    if (flags & USE_INFERIOR) != 0:
        inferior = np.zeros(cells, dtype=np.bool_)
        inferior_mask(s, inferior)
        for cell in range(cells):
            if must[cell] and not inferior[cell]:
                out[cell] = True
                count += 1
    if count == 0:
        # No pruning asked, or every forced cell is inferior: keep them all (sound).
        for cell in range(cells):
            out[cell] = must[cell]
            if must[cell]:
                count += 1
    return UNKNOWN, count


@njit(cache=True, nogil=True)
def _insert(scores, moves, k, score, a):
    """Insertion sort's step: put move `a` with `score` into the first `k` entries, kept
    in ascending order of score (after the equal ones: ties keep their order)."""
    j = k
    while j > 0 and scores[j - 1] > score:
        scores[j] = scores[j - 1]
        moves[j] = moves[j - 1]
        j -= 1
    scores[j] = score
    moves[j] = a


@njit(cache=True, nogil=True)
def order_moves(s, mask, moves):
    """Write the marked actions into `moves`, central cells first; return the count."""
    n = s[WIDTH]
    cells = n * n
    k = 0
    scores = np.empty(mask.shape[0], dtype=np.float64)
    for a in range(mask.shape[0]):
        if mask[a]:
            if a == cells:
                score = -1.0  # swap first: with the pie rule it is often the answer
            else:
                r = a // n
                c = a % n
                # Hex distance to the centre of the rhombus (axial coordinates).
                dr = r - (n - 1) / 2.0
                dc = c - (n - 1) / 2.0
                score = max(abs(dr), abs(dc), abs(dr + dc))
            _insert(scores, moves, k, score, a)
            k += 1
    return k


@njit(cache=True, nogil=True)
def negamax(s, flags, counters, keys, vals, best):
    """Proven value of `s` for the player to move (WIN, LOSS, or UNKNOWN once
    counters[NODES] reaches counters[BUDGET]). Proven values and winning moves go
    into the table (keys, vals, best)."""
    key = position_key(s)
    slot, hit = tt_probe(keys, vals, key)
    if hit != UNKNOWN:
        return hit
    if counters[NODES] >= counters[BUDGET]:
        return UNKNOWN
    counters[NODES] += 1
    n = s[WIDTH]
    cells = n * n
    mask = np.empty(cells + 1, dtype=np.bool_)
    status, move = analyse(s, flags, mask)
    if status != UNKNOWN:
        keys[slot] = key
        vals[slot] = status
        best[slot] = move if status == WIN else -1
        return status
    moves = np.empty(cells + 1, dtype=np.int64)
    count = order_moves(s, mask, moves)
    child = np.empty_like(s)
    if (flags & USE_VC) != 0 and count > 1:
        # Look one move ahead with the knowledge alone: a child the opponent loses at once
        # is our win; one it wins at once is a refuted move; the rest go narrowest first
        # (fewest candidates left to the opponent), a strong hint of a forcing move.
        child_mask = np.empty(cells + 1, dtype=np.bool_)
        scores = np.empty(count, dtype=np.int64)
        kept = 0
        for i in range(count):
            a = moves[i]
            child[:] = s[:]
            apply_hex(child, a)
            c_status, c_count = analyse(child, flags, child_mask)
            if child[TO_MOVE] == s[TO_MOVE]:
                c_status = -c_status  # after a swap the same side moves again
            if c_status == LOSS:
                return _store(keys, vals, best, key, WIN, a)
            if c_status == WIN:
                continue  # the opponent wins at once: never our choice
            # Insertion by the opponent's candidate count; the centre order breaks ties.
            _insert(scores, moves, kept, c_count, a)
            kept += 1
        count = kept
    unknown = False
    for i in range(count):
        a = moves[i]
        child[:] = s[:]
        apply_hex(child, a)
        if child[TO_MOVE] == s[TO_MOVE]:
            v = negamax(child, flags, counters, keys, vals, best)  # after a swap the same side moves
        else:
            v = -negamax(child, flags, counters, keys, vals, best)
        if v == WIN:
            return _store(keys, vals, best, key, WIN, a)
        if v == UNKNOWN:
            unknown = True
    if unknown:
        return UNKNOWN
    return _store(keys, vals, best, key, LOSS, -1)


@njit(cache=True, nogil=True)
def _store(keys, vals, best, key, value, move):
    """Store a proven `value` (and the winning `move`, -1 for none) in the table; return the
    value. The slot is probed again: a descendant may have taken the one found on entry."""
    slot, _ = tt_probe(keys, vals, key)
    keys[slot] = key
    vals[slot] = value
    best[slot] = move
    return value


@njit(cache=True, nogil=True)
def solve(s, budget, flags, keys, vals, best):
    """Solve `s` (not modified) within `budget` new nodes. Return (value for the player
    to move, a winning move or -1 (none, or the win is a standing VC), nodes used)."""
    counters = np.zeros(2, dtype=np.int64)
    counters[BUDGET] = budget
    work = s.copy()
    v = negamax(work, flags, counters, keys, vals, best)
    move = -1
    if v == WIN:
        slot, hit = tt_probe(keys, vals, position_key(s))
        if hit == WIN:
            move = best[slot]
    return v, move, counters[NODES]
