"""Zobrist keys and the fixed-size transposition table shared by the threat searches.

The table stores *failures* ("no win for the player to move within this many attacker
moves, fully searched"), so a stale entry or a key collision can at worst hide a win;
searches cut short by their node budget store nothing, so one table may be kept across
calls and positions (e.g. by the tree search). The Connect6 search also stores the wins it
proves (`c6_search.c6_node`: under the key ^ `c6_search.SALT_WON`, with the turn that wins): a win at a
position is one in any search, so a stale entry cannot mislead it; only two positions
sharing a 64-bit key could (about 2**-64 a probe). A table serves one board size.
"""

import numpy as np
from numba import njit

from pipeline.games.layout import BOARD, HEIGHT, WIDTH
from pipeline.tactics.lines.scratch import CUT

MAX_CELLS = 400  # 20x20, the largest board any k-in-a-row game here accepts
ZOBRIST = np.random.default_rng(20240611).integers(1, 2**62, size=(3, MAX_CELLS), dtype=np.int64)
# Separate salts per kind of search, since a failure of one says nothing about another.
SALT_VCF = np.int64(0x1F3D5B7991A2C4E6)
SALT_VCT = np.int64(0x2B4D6F8193A5C7E9)
SALT_C6 = np.int64(0x3C5E7091B2D4F618)


# The depth stored for a failure that held at every depth: its search ran out of moves
# before any depth limit cut it (see gomoku_vcf.gomoku_attack).
EXACT = 1 << 30


def new_table(bits: int = 16) -> np.ndarray:
    """A table of 2**bits entries (key, depth); 16 bits is 1 MiB."""
    return np.zeros((1 << bits, 2), dtype=np.int64)


@njit(cache=True, nogil=True)
def board_key(s):
    cells = s[HEIGHT] * s[WIDTH]
    key = np.int64(0)
    for c in range(cells):
        v = s[BOARD + c]
        if v != 0:
            key ^= ZOBRIST[v, c]
    return key


@njit(cache=True, nogil=True)
def probe_failed(table, key, depth):
    """Was this position already searched to at least `depth` without a win?"""
    slot = key & (table.shape[0] - 1)
    return table[slot, 0] == key and table[slot, 1] >= depth


@njit(cache=True, nogil=True)
def failed_depth(table, key):
    """The depth to which this position was searched without a win (EXACT: at every
    depth), -1 when the table does not know it."""
    slot = key & (table.shape[0] - 1)
    return table[slot, 1] if table[slot, 0] == key else np.int64(-1)


@njit(cache=True, nogil=True)
def store_failed(table, key, depth):
    slot = key & (table.shape[0] - 1)
    if table[slot, 0] != key or table[slot, 1] < depth:
        table[slot, 0] = key
        table[slot, 1] = depth


@njit(cache=True, nogil=True)
def known_failure(table, key, depth, ctx):
    """`probe_failed` for the deepening searches: a failure the table holds from a shallower
    limit than every depth (not EXACT) counts as a cut in ctx[CUT]."""
    known = failed_depth(table, key)
    if known < depth:
        return False
    if known < EXACT:
        ctx[CUT] += 1
    return True
