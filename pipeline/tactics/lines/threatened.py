"""Positions where the player to move is threatened (the opponent has a four, or a VCF if
the mover passed that some move refutes), drawn from random games: the test bed for
"the search never plays into a VCF" (tests and `scripts/bench_tactics.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.tactics.lines.solve import solve_vcf, threat_defences
from pipeline.tactics.lines.threats import null_move


def _passed(state: GameState) -> GameState:
    """The same board with the opponent to move (the mover passes the rest of its turn)."""
    other = state.copy()
    null_move(state.array, other.array)
    return other


def refutable_threat(state: GameState, budget: int) -> bool:
    """The opponent has a four, or a VCF if the mover passes, and some move stops it."""
    need, cells = threat_defences(state)
    if need == 0 and solve_vcf(_passed(state), budget=budget) is None:
        return False
    if need not in (0, 1):
        return False
    moves = cells if need == 1 else state.legal_actions()  # `cells` are the blocks' indices
    for action in moves:
        after = state.copy().apply(int(action))
        if not after.is_terminal and solve_vcf(after, budget=budget) is None:
            return True
    return False


def threatened_positions(
    spec: GameSpec, count: int, seed: int, budget: int = 2000, four: bool = False
) -> Iterator[GameState]:
    """`count` positions of random games played near the centre where the mover faces a
    refutable threat: the first such position of each game, which is mostly a VCF (an
    open three comes before a four). With `four`, the first where the threat is a four."""
    rng = np.random.default_rng(seed)
    found = 0
    while found < count:
        state = spec.new_game()
        r0, c0 = spec.height // 2, spec.width // 2
        for _ in range(spec.cells):
            legal = state.legal_actions()
            r, c = np.divmod(legal, spec.width)
            near = legal[(abs(r - r0) <= 3) & (abs(c - c0) <= 3)]
            state.apply(int(rng.choice(near if len(near) else legal)))
            if state.is_terminal:
                break
            if state.ply >= 6 and (not four or threat_defences(state)[0] == 1) and refutable_threat(state, budget):
                yield state.copy()
                found += 1
                break
