"""The classical player: alpha-beta over a pattern evaluation to a fixed depth
(`pipeline.search.alphabeta`), nothing learned. It is the yardstick that plays Gomoku
(freestyle, exact or renju: black never plays a forbidden move) and Connect6 at a strength
set by one number, `classical:DEPTH`."""

from __future__ import annotations

import time

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.players.base import Thought, check_position
from pipeline.search.alphabeta import PLAYS, AlphaBeta, squash

MAX_DEPTH = 12  # the issues ask for depth 9 on 15x15; the move buffers hold 96 plies with extensions
GAMES = ("gomoku", "connect6")  # the games it plays (any board and rules of theirs)


def check_game(spec: GameSpec) -> None:
    if spec.game not in GAMES:
        raise ValueError(f"{PLAYS}; not {spec.game}")


class ClassicalPlayer:
    """Alpha-beta to `depth` plies (one stone a ply). Each game of a match has its own
    seeded searcher, so a match replays move for move from its seed, while different
    seeds break ties between equal moves differently."""

    def __init__(self, depth: int, seed: int = 0):
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"classical depth must be 1..{MAX_DEPTH}, got {depth}")
        self.depth = depth
        self.name = f"classical:{depth}"
        self.seed = seed
        self.searchers: list[AlphaBeta] = []
        self.spec: GameSpec | None = None

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        check_game(spec)
        self.spec = spec
        # One transposition table is shared: games are searched one after the other.
        shared = AlphaBeta(seed)
        self.searchers = [AlphaBeta(seed * 1_000_003 + g, table=shared.table) for g in range(games)]

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        return [self.searchers[g].search(s, self.depth).action for g, s in zip(games, states, strict=True)]

    def observe(self, game: int, state: GameState, action: int) -> None:
        pass  # every move is searched afresh: nothing to follow

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        """`budget` is a node limit (the simulations of other players); `seconds` stops the
        deepening before an iteration that would not finish in time."""
        check_position(state)
        if self.spec != state.spec or game >= len(self.searchers):
            self.start(state.spec, max(game + 1, 1), self.seed)
        start = time.perf_counter()
        result = self.searchers[game].search(state, self.depth, nodes=budget, seconds=seconds)
        visits = np.zeros(state.spec.num_actions, dtype=np.float32)
        visits[result.action] = 1.0
        return Thought(result.action, visits, squash(result.value), result.nodes, time.perf_counter() - start)
