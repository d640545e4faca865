"""The classical searcher as the player uses it: iterative deepening over a game's
positions, seeded, with the root's move list and the values it reports."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.search.alphabeta.patterns import (
    INF,
    MATE,
    S_LIMIT,
    S_NODES,
    SCALE,
    WIN,
    Geometry,
    make_geometry,
    make_position,
)
from pipeline.search.alphabeta.search import Table, make_table, root_moves, search_root

PLAYS = "classical players play the k-in-a-row games: gomoku, connect6"
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
        iteration would likely outrun `seconds` (one past it is stopped inside; the first
        iteration always completes)."""
        if state.is_terminal:
            raise ValueError("the game is over")
        spec = state.spec
        geo = self.geometry(spec)
        jitter = self.rng.integers(0, SCALE, size=spec.cells)
        pos = make_position(geo, state.array, jitter)
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
            elapsed = time.perf_counter() - start
            if seconds is not None and d > 1 and elapsed + 4 * last > seconds:
                break  # an iteration costs several times the one before: this one would not finish
            limit = INF if nodes is None else nodes
            if seconds is not None and d > 1 and elapsed > 0:
                # One that runs longer than foreseen stops at the nodes the time left allows at
                # the rate so far (its move discarded): 0.5 s moves took 0.9 s without it.
                done = int(pos.st[S_NODES])
                limit = min(limit, done + int(done / elapsed * (seconds - elapsed)))
            pos.st[S_LIMIT] = limit
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
