"""Working room for the threat solvers, allocated once and handed to every call.

The tree asks the solvers about every leaf it expands (`pipeline.search.forced`), tens of
thousands of times a second, and most calls find nothing: allocating their arrays per
call (and per node of the search) cost as much as the search itself. A `Scratch` holds
every array the solvers and the verdict need, sized for one game's board and a depth
limit; `BatchedMCTS` keeps one. The searches are depth-first, and a node at `depth`
attacker moves from the limit uses row `depth` of the per-level arrays, so a node's
arrays outlive the searches below it. Row 0 of `cand` holds the root's candidates,
which stay the same over the rounds of iterative deepening.

Nothing is read before it is written within a call, so one scratch serves any sequence
of positions of its game (tests/unit/test_verdict_reference.py replays thousands)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, HEIGHT, KIND, WIDTH, WIN_LENGTH

PV_CAPACITY = 512
CTX_SLOTS = 8
# Per player (rows) in `Scratch.scan`: its winning cells, its windows of k cells holding
# k - 2 of its stones and none of the other's (the root's four-making candidates).
SCAN_WINS = 0
SCAN_FOURS = 1


class Scratch(NamedTuple):
    ctx: np.ndarray  # int64 [CTX_SLOTS]: the search's counters (vcf.NODES, ...)
    work: np.ndarray  # int32 [state]: the search's copy of the position
    cand: np.ndarray  # int64 [levels, cells]: attacker candidates; row 0 the root's
    dist: np.ndarray  # int64 [cells]: sort keys of the candidates
    mark: np.ndarray  # bool [cells]
    mark2: np.ndarray  # bool [cells]
    line: np.ndarray  # int64 [levels, 8k + 8]: winning cells made by the attacker's stone
    dline: np.ndarray  # int64 [8k + 8]: the same for the defender's stone
    f_cells: np.ndarray  # int64 [levels, 8k + 8]: VCT, the double-four cells of a three
    f_w0: np.ndarray  # int64 [levels, 8k + 8]
    f_w1: np.ndarray  # int64 [levels, 8k + 8]
    replies: np.ndarray  # int64 [levels, cells]: VCT, the defender's replies to a three
    seen: np.ndarray  # bool [cells]
    scan: np.ndarray  # int64 [2, 2]: Gomoku, per player SCAN_WINS and SCAN_FOURS counts
    wins: np.ndarray  # bool [2, cells]: Gomoku, each player's winning cells
    fours: np.ndarray  # bool [2, cells]: Gomoku, the cells of each player's k-2 windows
    d_keys: np.ndarray  # int64 [levels, windows]: Connect6, the defender's threat windows
    d_e0: np.ndarray  # int64 [levels, windows]: their empty cells
    d_e1: np.ndarray  # int64 [levels, windows]
    a_keys: np.ndarray  # int64 [levels, windows]: Connect6, the attacker's windows
    a_e0: np.ndarray  # int64 [levels, windows]
    a_e1: np.ndarray  # int64 [levels, windows]
    pair_a: np.ndarray  # int64 [levels, 16]: Connect6, the defender's hitting pairs
    pair_b: np.ndarray  # int64 [levels, 16]
    # The verdict's own room (pipeline.search.forced), apart from the solvers'.
    marks: np.ndarray  # bool [cells]
    passed: np.ndarray  # int32 [state]: the position with the mover passing
    probe: np.ndarray  # int32 [state]: a move tried on the position
    probe_line: np.ndarray  # int64 [8k + 8]
    candidate: np.ndarray  # bool [cells]
    proof: np.ndarray  # int64 [PV_CAPACITY]
    replay: np.ndarray  # int64 [PV_CAPACITY]: a proof being replayed


@njit(cache=True, nogil=True)
def new_scratch(kind, height, width, k, state_length, max_depth):
    """Room for positions of one game (kind, board, k) and searches of up to `max_depth`
    attacker moves (Connect6: turns). Compiled, so that a solver called without a
    scratch can make its own."""
    cells = height * width
    levels = max_depth + 1
    line = 8 * k + 8
    windows = 4 * cells if kind == CONNECT6 else 1
    return Scratch(
        np.zeros(CTX_SLOTS, dtype=np.int64),
        np.zeros(state_length, dtype=np.int32),
        np.zeros((levels, cells), dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(cells, dtype=np.bool_),
        np.zeros((levels, line), dtype=np.int64),
        np.zeros(line, dtype=np.int64),
        np.zeros((levels, line), dtype=np.int64),
        np.zeros((levels, line), dtype=np.int64),
        np.zeros((levels, line), dtype=np.int64),
        np.zeros((levels, cells), dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros((2, 2), dtype=np.int64),
        np.zeros((2, cells), dtype=np.bool_),
        np.zeros((2, cells), dtype=np.bool_),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, windows), dtype=np.int64),
        np.zeros((levels, 16), dtype=np.int64),
        np.zeros((levels, 16), dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(state_length, dtype=np.int32),
        np.zeros(state_length, dtype=np.int32),
        np.zeros(line, dtype=np.int64),
        np.zeros(cells, dtype=np.bool_),
        np.zeros(PV_CAPACITY, dtype=np.int64),
        np.zeros(PV_CAPACITY, dtype=np.int64),
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
