"""Connect6: can the player to move still meet the opponent's threat? A turn (two stones)
that leaves the opponent no VCF, searched for over the cells where a refutation can lie.

At the start of a turn the opponent may already threaten: had the mover passed, it would
have a VCF (`solve.solve_opponent_vcf`). A turn holds when, after both its stones, the
opponent has no VCF within the confirming budget. The turns tried:

- first, the mover's own forced win (a VCT of its own, `solve.solve_vct`): threats of its
  own that end in a win hold whatever the opponent threatens;
- then the first stone on every cell of the opponent's proof tree (where each refutation
  that is not a threat of the mover's own puts a stone), the second the same way in the
  position after the first.

A four of the mover's own off those cells is not counted as holding: the opponent blocks
it and threatens as before (a delay: the lost white games of the 2026-12-06 audit made one
and lost a turn later); with `counter` such turns are tried as well (cells of a window of six
with two to four of the mover's stones and none of the opponent's), and then a turn holds
when the opponent has no VCF right after it, as for the others.

Every turn is proposed at the cheap budget and kept only when the confirming one finds no
VCF either. A partial search, said plainly: a turn whose two stones both lie off those cells
is not tried, and "no holding turn found" means none among them at those budgets, not a
proof. It is what `zero openings` uses to drop openings one side has already lost
(`pipeline.match.opening_screen`): in the suite of 2026-11, black's first turn left white no
holding turn in 6 of 26 openings (RESULTS.md, Connect6 19x19).

Against a VCT (`vct_holding_turn`) the opponent's threat has no proof tree with the mover
passing to read the cells from, so every turn of two stones within `radius` of the stones on
the board is tried (about 1,000-11,000 turns in the middlegame; a turn that leaves the
opponent a VCT the cheap budget sees costs a few hundred nodes). A turn with a stone further
out is not tried: partial again, and said so where it is reported (`c6_loss_audit --solver
vct`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.games.base import GameState
from pipeline.games.connect6 import stones_left_in_turn
from pipeline.games.layout import CONNECT6
from pipeline.tactics.lines import threats
from pipeline.tactics.lines.solve import near_cells, prove, solve_opponent_vcf, solve_vct

PROPOSE_NODES = 2_000
CONFIRM_NODES = 20_000


@dataclass(frozen=True)
class Holding:
    """The verdict at the start of a turn: whether the opponent threatens (a VCF had the
    mover passed), a turn that leaves it none (None when it does not threaten, or when no
    such turn was found: see `lost`), and how many turns were tried."""

    threatened: bool
    turn: tuple[int, int] | None
    tried: int

    @property
    def lost(self) -> bool:
        """Threatened and no turn among those tried holds."""
        return self.threatened and self.turn is None


def counter_threat_cells(state: GameState) -> np.ndarray:
    """Empty cells of the windows of six where the mover has two to four stones and the
    opponent none: where a stone of this turn can help make a four."""
    mark = np.zeros(state.spec.cells, dtype=np.bool_)
    threats.mark_window_cells(state.array, state.current_player + 1, 2, 4, 6, mark)
    return np.flatnonzero(mark & state.legal_mask())


def _candidates(state: GameState, budget: int, counter: bool) -> tuple[bool, np.ndarray]:
    """(the opponent threatens, the cells to try: its proof tree's, then with `counter` the
    mover's counter-threat cells)."""
    proof, cells = solve_opponent_vcf(state, budget=budget)
    extra = counter_threat_cells(state) if counter else np.zeros(0, dtype=np.int64)
    ordered = list(dict.fromkeys([*map(int, cells), *map(int, extra)]))
    return proof is not None, np.array(ordered, dtype=np.int64)


def _leaves(state: GameState, turn: tuple[int, ...], budget: int, kind: str) -> bool:
    """Whether the opponent has a forced win (`kind`: vcf or vct) after the mover plays
    `turn` (a win on the board is no loss)."""
    after = state.copy()
    for a in turn:
        after.apply(a)
        if after.is_terminal:
            return False
    return prove(after, kind, budget) is not None


def leaves_vcf(state: GameState, turn: tuple[int, ...], budget: int) -> bool:
    """Whether the opponent has a VCF after the mover plays `turn`."""
    return _leaves(state, turn, budget, "vcf")


def leaves_vct(state: GameState, turn: tuple[int, ...], budget: int) -> bool:
    """Whether the opponent has a VCT after the mover plays `turn`."""
    return _leaves(state, turn, budget, "vct")


def vct_holding_turn(
    state: GameState, budget: int = PROPOSE_NODES, confirm: int = CONFIRM_NODES, radius: int = 2
) -> Holding:
    """Connect6 `state` at the start of a turn: a turn after which the opponent has no VCT.
    `threatened` is whether some turn tried before it left the opponent one (every turn within
    `radius` of the stones, in `near_cells`' order, proposed at `budget` and kept only when
    `confirm` finds no VCT either); the mover's own VCT, when it has one, comes first."""
    if state.spec.kind != CONNECT6:
        raise ValueError(f"vct_holding_turn is for Connect6, not {state.spec}")
    if state.is_terminal or stones_left_in_turn(state.ply) != 2:
        raise ValueError("vct_holding_turn needs the start of a two-stone turn in a game not over")
    own = solve_vct(state, budget=confirm)
    if own is not None:
        return Holding(False, (own.moves[0], own.moves[1] if len(own.moves) > 1 else -1), 0)
    cells = near_cells(state, radius)
    tried = 0
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            tried += 1
            turn = (int(a), int(b))
            if not leaves_vct(state, turn, budget) and not leaves_vct(state, turn, confirm):
                return Holding(tried > 1, turn, tried)
    return Holding(True, None, tried)


def holding_turn(
    state: GameState, budget: int = PROPOSE_NODES, confirm: int = CONFIRM_NODES, counter: bool = False
) -> Holding:
    """The `Holding` verdict of Connect6 `state`, which must be the start of a turn (two
    stones to place, the game not over)."""
    if state.spec.kind != CONNECT6:
        raise ValueError(f"holding_turn is for Connect6, not {state.spec}")
    if state.is_terminal or stones_left_in_turn(state.ply) != 2:
        raise ValueError("holding_turn needs the start of a two-stone turn in a game not over")
    threatened, firsts = _candidates(state, confirm, counter)
    if not threatened:
        return Holding(False, None, 0)
    own = solve_vct(state, budget=confirm)
    if own is not None:
        return Holding(True, (own.moves[0], own.moves[1] if len(own.moves) > 1 else -1), 0)
    tried = 0
    for a in firsts:
        mid = state.copy().apply(int(a))
        if mid.is_terminal:  # the mover's own six
            return Holding(True, (int(a), -1), tried)
        _, seconds = _candidates(mid, budget, counter)
        if not len(seconds):  # no threat left to meet and none to make: any stone will do
            seconds = np.flatnonzero(mid.legal_mask())[:1]
        for b in seconds:
            tried += 1
            if not leaves_vcf(mid, (int(b),), budget) and not leaves_vcf(mid, (int(b),), confirm):
                return Holding(True, (int(a), int(b)), tried)
    return Holding(True, None, tried)
