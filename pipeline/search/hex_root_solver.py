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

A position proven stays proven: before the search (`known_move`) the solver answers from
what it holds, a book position from the book, a position its table already proves (the
replies to its own proven move are proven with it), and one that follows its own proven
win by a solve within the won budget; the search then only expands the root. The table
and the remembered boards are kept from move to move, so after a proof each next move is
answered at once.

In a search with a time limit (`BatchedMCTS.search(seconds=...)`, what the web app, `zero
htp` and `zero play` run) the solver gets a share of that time, never an unbounded budget:
the tree search stops at `1 - SOLVER_SHARE` of it (or at its simulations), the refutations
run first, until `REFUTE_SHARE` of what is left, and the root solve until the end, with
whatever the refutations did not use (each solve also within its node budget, in steps that
read the clock: `solve.DEADLINE_STEP`). When time runs out, the search's move is played.
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
# A timed search's share of its time for the root solver (pipeline.search.mcts): the tree
# search stops at the rest, and what the tree search leaves (it may stop at its simulations
# first) goes to the solver too. Of the solver's time the first REFUTE_SHARE at most is the
# refutations', the rest the root solve's (a won position is kept only by its proof).
SOLVER_SHARE = 0.5
REFUTE_SHARE = 1 / 4
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
        self.answered = 0  # moves answered before the search (`known_move`)
        self.spent = False  # `known_move` spent the whole budget on this position

    def known_move(self, state: np.ndarray, deadline: float | None = None) -> int | None:
        """A winning move at `state` known before any search: the book's; the one of a proof
        the table holds (a probe, no new node); or, in a position that follows the player's
        own proven win, one proven within the won budget (by `deadline`, a
        `time.perf_counter()` reading, when given). None otherwise; `spent` then says
        whether that solve had its whole budget (no deadline), so that the root's own solve
        after the search would only repeat it."""
        self.lost = False
        self.spent = False
        move = None
        if self.book is not None:
            move = self.book.winning_move(state)
        if move is None and not (self.spec.swap and state[STONES] == 0):
            position = GameState(self.spec, state.copy())
            won = self.follows_own_win(state)
            budget = self.won_budget if won else 0
            value, move = solved_winning_move(
                position, budget, hd.DFPN_ALL, self.tt, self.limits, None, deadline if won else None
            )
            self.lost = value == hs.LOSS
            self.spent = won and deadline is None
        if move is not None:
            self.answered += 1
            self._remember(state, move)
        return move

    def winning_move(self, state: np.ndarray, preferred: int, deadline: float | None = None) -> int | None:
        """A proven winning move at `state` (the search's `preferred` when it is one), or
        None when the position is lost or not proven within the budget (or by `deadline`)."""
        self.lost = False
        move = self._winning_move(state, preferred, deadline)
        if move is not None:
            self._remember(state, move)
        return move

    def _remember(self, state: np.ndarray, move: int) -> None:
        """The board after the player's own proven winning `move` (not the swap, which
        remakes the board): a position after any reply is won."""
        if move < self.spec.cells:
            if len(self.won_boards) >= WON_BOARDS_KEPT:
                self.won_boards.clear()
            self.won_boards.add(self._board_with(state, move, state[TO_MOVE] + 1))

    def refuted(self, state: np.ndarray, move: int, deadline: float | None = None) -> bool:
        """Is the opponent proven to win after `move` (a cell) within the refutation budget?
        Only where the solver itself runs (where it waits, so does this), and not after it
        proved the position lost (every move loses: the search's is the best try)."""
        if self.refute_budget == 0 or self.lost or not 0 <= move < self.spec.cells:
            return False
        if self.spec.cells - state[STONES] > self.empty_cells and not self.follows_own_win(state):
            return False
        if self.spec.swap and state[STONES] == 0:  # any first move is "lost" to a swap that wins
            return False
        return loses(GameState(self.spec, state.copy()), move, self.refute_budget, self.tt, self.limits, deadline)

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

    def _winning_move(self, state: np.ndarray, preferred: int, deadline: float | None) -> int | None:
        won = self.follows_own_win(state)
        budget = self.won_budget if won else self.budget
        if self.book is not None:
            move = self.book.winning_move(state)
            if move is not None:
                # The search's move when the solver proves it wins too (as below), so that the
                # book changes nothing where the solver alone already played a win.
                position = GameState(self.spec, state.copy())
                if preferred != move and keeps_win(position, preferred, budget, self.tt, self.limits, deadline):
                    return preferred
                return move
        if self.spec.cells - state[STONES] > self.empty_cells and not won:
            return None
        if self.spec.swap and state[STONES] == 0:  # the pie rule: the first player has no win to prove
            return None
        position = GameState(self.spec, state.copy())
        value, move = solved_winning_move(position, budget, hd.DFPN_ALL, self.tt, self.limits, preferred, deadline)
        self.lost = value == hs.LOSS
        return move
