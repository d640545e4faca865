"""Perfect play at the root where the Hex solver reaches: after the search, DFPN with
H-search (pipeline.tactics.hex.dfpn) within a node budget (`SearchConfig.
hex_root_solver_nodes`). A proven win is played: the search's own move when the solver
proves that it wins too, else the solver's. A proven loss, or no proof within the budget,
leaves the search's move (against a fallible opponent the search's move is the best try),
unless the opponent is proven to win after that move within a smaller budget (a
refutation, `SearchConfig.hex_root_solver_refute_nodes`): then the search's next move is
checked, up to eight of them. A solve of the root within its budget can miss a win whose
proof is long while a losing move's refutation is short.
With `empty_cells` set, the solver waits until no more cells than that are empty.

Before it solves, it looks the position up in the book of solved positions shipped for the
board (`pipeline.tactics.hex.book`: the two-stone openings of 7x7, some of which need more
than a move's budget): a position there is played from the book, unless the solver proves
the search's own move wins too.

A position that follows one of the player's own proven wins (the solver's or the book's
move, then any reply) is won, so there the solver gets a larger budget (`won_budget`):
the cost falls only on positions it must not give back. The 7x7 sweep against the 11x11
champion found a reply after a book move whose win needs 200,000 nodes, past the move's
50,000 (RESULTS.md, twenty-eighth and twenty-ninth sessions).
"""

from __future__ import annotations

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.games.layout import BOARD, HIST, HIST_PLAYER, STONES, TO_MOVE
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.book import book_for
from pipeline.tactics.hex.solve import check_dfpn_size, keeps_win, loses, new_dfpn_table, solved_winning_move

# The budget in a position known won (after the player's own proven win), as a multiple of
# the move's budget when none is given: 400,000 nodes on 7x7 and 8x8 in play, at most about a
# minute of one core.
WON_BUDGET_FACTOR = 8
# The budget of a refutation (is the search's move lost?), as a fraction of the move's budget
# when none is given: most refutations a solve of the root misses are short (the [7, 19]
# drop's took 0.3 s), and a move proven no win may pay for several.
REFUTE_BUDGET_DIVISOR = 10
# Boards remembered after proven wins before the memory starts afresh (a solver serves one
# game of a batch, but self-play plays many games in turn in its slot).
WON_BOARDS_KEPT = 1 << 16
# Each game of a lockstep batch has its own solver (pipeline.search.mcts): its table holds
# 2**18 entries (about 15 MB), fewer in batches so large that their tables would pass
# 2**22 entries (about 250 MB) in all, never under 2**16.
TABLE_BITS = 18
MIN_TABLE_BITS = 16
BATCH_TABLE_BITS = 22


def table_bits(games: int) -> int:
    """log2 of the entries of each game's table in a batch of `games`."""
    share = BATCH_TABLE_BITS - max(0, games - 1).bit_length()
    return max(MIN_TABLE_BITS, min(TABLE_BITS, share))


class HexRootSolver:
    """One game's solver: its table (kept between moves: it holds proven values and
    proof-number estimates of real positions only), the boards left by the player's proven
    winning moves, and its settings."""

    def __init__(
        self,
        spec: GameSpec,
        budget: int,
        empty_cells: int | None = None,
        log2_table: int = TABLE_BITS,
        won_budget: int | None = None,
        refute_budget: int | None = None,
    ):
        check_dfpn_size(spec.width)
        self.spec = spec
        self.budget = budget
        self.won_budget = max(budget, budget * WON_BUDGET_FACTOR if won_budget is None else won_budget)
        self.refute_budget = budget // REFUTE_BUDGET_DIVISOR if refute_budget is None else refute_budget
        self.won_boards: set[bytes] = set()
        self.lost = False  # the last position solved was proven lost (so every move loses)
        self.empty_cells = spec.cells if empty_cells is None else empty_cells
        self.limits = hd.default_limits()
        self.tt = new_dfpn_table(log2_table)
        self.book = book_for(spec)

    def winning_move(self, state: np.ndarray, preferred: int) -> int | None:
        """A proven winning move at `state` (the search's `preferred` when it is one), or
        None when the position is lost or not proven within the budget."""
        self.lost = False
        move = self._winning_move(state, preferred)
        if move is not None and move < self.spec.cells:  # not the swap, which remakes the board
            if len(self.won_boards) >= WON_BOARDS_KEPT:
                self.won_boards.clear()
            self.won_boards.add(self._board_with(state, move, state[TO_MOVE] + 1))
        return move

    def refuted(self, state: np.ndarray, move: int) -> bool:
        """Is the opponent proven to win after `move` (a cell) within the refutation budget?
        Only where the solver itself runs (where it waits, so does this), and not after it
        proved the position lost (every move loses: the search's is the best try)."""
        if self.refute_budget == 0 or self.lost or not 0 <= move < self.spec.cells:
            return False
        if self.spec.cells - state[STONES] > self.empty_cells and not self.follows_own_win(state):
            return False
        if self.spec.swap and state[STONES] == 0:  # any first move is "lost" to a swap that wins
            return False
        return loses(GameState(self.spec, state.copy()), move, self.refute_budget, self.tt, self.limits)

    def follows_own_win(self, state: np.ndarray) -> bool:
        """Did the position before the opponent's last stone follow a proven winning move of
        the player to move (so that `state` is won for it)?"""
        last = int(state[HIST])
        if not 0 <= last < self.spec.cells or state[HIST_PLAYER] == state[TO_MOVE]:
            return False  # no move yet, or the swap last
        return self._board_with(state, last, 0) in self.won_boards

    def _board_with(self, state: np.ndarray, cell: int, value: int) -> bytes:
        """The board's cells with `cell` set to `value` (0 empty, 1 + player a stone), as a key."""
        board = state[BOARD : BOARD + self.spec.cells].copy()
        board[cell] = value
        return board.tobytes()

    def _winning_move(self, state: np.ndarray, preferred: int) -> int | None:
        won = self.follows_own_win(state)
        budget = self.won_budget if won else self.budget
        if self.book is not None:
            move = self.book.winning_move(state)
            if move is not None:
                # The search's move when the solver proves it wins too (as below), so that the
                # book changes nothing where the solver alone already played a win.
                position = GameState(self.spec, state.copy())
                if preferred != move and keeps_win(position, preferred, budget, self.tt, self.limits):
                    return preferred
                return move
        if self.spec.cells - state[STONES] > self.empty_cells and not won:
            return None
        if self.spec.swap and state[STONES] == 0:  # the pie rule: the first player has no win to prove
            return None
        position = GameState(self.spec, state.copy())
        value, move = solved_winning_move(position, budget, hd.DFPN_ALL, self.tt, self.limits, preferred)
        self.lost = value == hs.LOSS
        return move
