"""Perfect play at the root where the Hex solver reaches: after the search, DFPN with
H-search (pipeline.tactics.hex.dfpn) within a node budget (`SearchConfig.
hex_root_solver_nodes`). A proven win is played: the search's own move when the solver
proves that it wins too, else the solver's. A proven loss, or no proof within the budget,
leaves the search's move (against a fallible opponent the search's move is the best try).
With `empty_cells` set, the solver waits until no more cells than that are empty.

Before it solves, it looks the position up in the book of solved positions shipped for the
board (`pipeline.tactics.hex.book`: the two-stone openings of 7x7, some of which need more
than a move's budget): a position there is played from the book, unless the solver proves
the search's own move wins too.
"""

from __future__ import annotations

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.games.layout import STONES
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.book import book_for
from pipeline.tactics.hex.solve import check_dfpn_size, keeps_win, new_dfpn_table, winning_move


class HexRootSolver:
    """The solver's table (kept between moves: it holds proven values and proof-number
    estimates of real positions only) and its settings."""

    def __init__(self, spec: GameSpec, budget: int, empty_cells: int | None = None, log2_table: int = 18):
        check_dfpn_size(spec.width)
        self.spec = spec
        self.budget = budget
        self.empty_cells = spec.cells if empty_cells is None else empty_cells
        self.limits = hd.default_limits()
        self.tt = new_dfpn_table(log2_table)
        self.book = book_for(spec)

    def winning_move(self, state: np.ndarray, preferred: int) -> int | None:
        """A proven winning move at `state` (the search's `preferred` when it is one), or
        None when the position is lost or not proven within the budget."""
        if self.book is not None:
            move = self.book.winning_move(state)
            if move is not None:
                # The search's move when the solver proves it wins too (as below), so that the
                # book changes nothing where the solver alone already played a win.
                position = GameState(self.spec, state.copy())
                if preferred != move and keeps_win(position, preferred, self.budget, self.tt, self.limits):
                    return preferred
                return move
        if self.spec.cells - state[STONES] > self.empty_cells:
            return None
        if self.spec.swap and state[STONES] == 0:  # the pie rule: the first player has no win to prove
            return None
        position = GameState(self.spec, state.copy())
        return winning_move(position, self.budget, hd.DFPN_ALL, self.tt, self.limits, preferred)
