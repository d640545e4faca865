"""Perfect play at the root where the Hex solver reaches: after the search, DFPN with
H-search (pipeline.tactics.hex_dfpn) within a node budget (`SearchConfig.
hex_root_solver_nodes`). A proven win is played: the search's own move when the solver
proves that it wins too, else the solver's. A proven loss, or no proof within the budget,
leaves the search's move (against a fallible opponent the search's move is the best try).
"""

from __future__ import annotations

import numpy as np

from pipeline.games.hex import apply_hex, swap_legal
from pipeline.games.layout import BOARD, TO_MOVE, WIDTH, WINNER
from pipeline.tactics import hex_dfpn as hd
from pipeline.tactics.hex_solve import check_dfpn_size
from pipeline.tactics.hex_solver import LOSS, WIN


class HexRootSolver:
    """The solver's table (kept between moves: it holds proven values and proof-number
    estimates of real positions only) and its settings."""

    def __init__(self, size: int, budget: int, log2_table: int = 18):
        check_dfpn_size(size)
        self.budget = np.int64(budget)
        self.flags = np.int64(hd.DFPN_ALL)
        self.limits = hd.default_limits()
        self.order = hd.centre_order(size)
        self.tt = hd.new_tt(log2_table)

    def _value(self, state: np.ndarray) -> int:
        v, _, _ = hd.dfpn(state, self.budget, self.flags, self.limits, self.order, self.tt)
        return int(v)

    def _wins(self, state: np.ndarray, action: int) -> bool:
        """Does `action` keep a win for the player to move (proven within the budget)?"""
        me = state[TO_MOVE]
        child = state.copy()
        apply_hex(child, action)
        if child[WINNER] >= 0:
            return bool(child[WINNER] == me)
        v = self._value(child)
        return v == (WIN if child[TO_MOVE] == me else LOSS)

    def winning_move(self, state: np.ndarray, preferred: int) -> int | None:
        """A proven winning move at `state` (the search's `preferred` when it is one), or
        None when the position is lost or not proven within the budget."""
        if state[WINNER] >= 0:
            return None
        v, move, _ = hd.dfpn(state, self.budget, self.flags, self.limits, self.order, self.tt)
        if v != WIN:
            return None
        cells = int(state[WIDTH]) ** 2

        def legal(a: int) -> bool:
            return (0 <= a < cells and state[BOARD + a] == 0) or (a == cells and bool(swap_legal(state)))

        if legal(preferred) and self._wins(state, preferred):
            return preferred
        if move >= 0:
            return int(move)
        # A standing connection: no key stored. Any move keeping it will do.
        for a in [*(int(c) for c in self.order), cells]:
            if a != preferred and legal(a) and self._wins(state, a):
                return a
        return None
