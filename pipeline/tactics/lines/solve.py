"""Python-level view of the compiled solvers: `solve_vcf`, `solve_vct` and the threat
helpers, taking a `GameState` and returning plain numpy arrays or a `Proof`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.games import kernels
from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply
from pipeline.games.layout import CONNECT6
from pipeline.tactics.lines import threats
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.vcf import opponent_vcf, vcf
from pipeline.tactics.lines.vct import vct

PV_CAPACITY = 512
DEFAULT_DEPTH = 40  # attacker moves (Connect6: turns); the budget is the real limit
COLOURS = ("black", "white")


@dataclass(frozen=True)
class Proof:
    """A proven forced win: `moves` alternate attacker and defender in play order (in
    Connect6 one entry per stone) and end with the attacker's winning stone(s)."""

    winner: int
    moves: list[int]
    nodes: int
    kind: str = "VCF"

    def attacker_moves(self, spec: GameSpec, ply: int) -> int:
        """How many moves (Connect6: turns) the attacker makes in the proof."""
        if spec.kind != CONNECT6:
            return (len(self.moves) + 1) // 2
        # A player's stones within one turn are consecutive: count the runs of ours.
        movers = [mover_at_ply(ply + i) for i in range(len(self.moves))]
        return sum(1 for i, m in enumerate(movers) if m == self.winner and (i == 0 or movers[i - 1] != m))

    def describe(self, spec: GameSpec, ply: int = 0) -> str:
        """Like "VCF in 7 for black: h8 h9 ...", `ply` being the position's ply."""
        names = " ".join(spec.action_name(a) for a in self.moves)
        return f"{self.kind} in {self.attacker_moves(spec, ply)} for {COLOURS[self.winner]}: {names}"


def _run(solver, state: GameState, budget: int, depth: int, table: np.ndarray | None, kind: str) -> Proof | None:
    table = new_table() if table is None else table
    pv = np.zeros(PV_CAPACITY, dtype=np.int64)
    result, length, nodes = solver(state.array, np.int64(budget), np.int64(depth), table, pv)
    if result != 1:
        return None
    return Proof(state.current_player, [int(a) for a in pv[:length]], int(nodes), kind)


def solve_vcf(
    state: GameState, budget: int = 20000, depth: int = DEFAULT_DEPTH, table: np.ndarray | None = None
) -> Proof | None:
    """A win by continuous fours (Connect6: double threats) for the player to move, or
    None when none is found within `budget` nodes."""
    if not state.spec.wins_by_line or state.is_terminal:
        return None
    return _run(vcf, state, budget, depth, table, "VCF")


def solve_vct(
    state: GameState, budget: int = 20000, depth: int = DEFAULT_DEPTH, table: np.ndarray | None = None
) -> Proof | None:
    """A win by continuous threats (fours and threes) for the player to move."""
    if not state.spec.wins_by_line or state.is_terminal:
        return None
    return _run(vct, state, budget, depth, table, "VCT")


def solve_opponent_vcf(
    state: GameState, budget: int = 20000, depth: int = DEFAULT_DEPTH, table: np.ndarray | None = None
) -> tuple[Proof | None, np.ndarray]:
    """Connect6, the player to move defending: the VCF the other side would have if the
    mover passed the rest of its turn (its proof line from that passed position), and the
    cells of its whole proof tree, where every refutation that is not a threat of the
    mover's own must put a stone (`c6_search.opponent_vcf_into`). (None, no cells) when there is
    none within `budget` nodes, or for another game."""
    cells = np.zeros(state.spec.cells, dtype=np.bool_)
    if state.spec.kind != CONNECT6 or state.is_terminal:
        return None, np.flatnonzero(cells)
    table = new_table() if table is None else table
    pv = np.zeros(PV_CAPACITY, dtype=np.int64)
    found, length, nodes = opponent_vcf(state.array, np.int64(budget), np.int64(depth), table, pv, cells)
    # Only where a stone can go: a proof that wins at once marks its six's whole window.
    cells &= state.legal_mask()
    if found != 1:
        return None, np.flatnonzero(cells)
    return Proof(1 - state.current_player, [int(a) for a in pv[:length]], int(nodes)), np.flatnonzero(cells)


def winning_moves(state: GameState) -> np.ndarray:
    """Cells where the player to move wins at once."""
    out = np.zeros(state.spec.cells, dtype=np.bool_)
    kernels.winning_moves(state.array, state.current_player, out)
    return np.flatnonzero(out)


def threat_defences(state: GameState) -> tuple[int, np.ndarray]:
    """(stones needed to stop the opponent's next-turn win, or -1 when it cannot be
    stopped; the cells to defend with). See `threats.threat_defences`."""
    out = np.zeros(state.spec.cells, dtype=np.bool_)
    need = threats.threat_defences(state.array, out)
    return int(need), np.flatnonzero(out)


def four_moves(state: GameState, player: int | None = None) -> np.ndarray:
    out = np.zeros(state.spec.cells, dtype=np.bool_)
    threats.four_moves(state.array, state.current_player if player is None else player, out)
    return np.flatnonzero(out)


def three_moves(state: GameState, player: int | None = None) -> np.ndarray:
    out = np.zeros(state.spec.cells, dtype=np.bool_)
    threats.three_moves(state.array, state.current_player if player is None else player, out)
    return np.flatnonzero(out)


def three_defences(state: GameState, attacker: int) -> np.ndarray:
    out = np.zeros(state.spec.cells, dtype=np.bool_)
    threats.three_defences(state.array, attacker, out)
    return np.flatnonzero(out)


def prove(state: GameState, kind: str = "vcf", budget: int = 20_000) -> Proof | None:
    """The mover's forced win by the solver `kind` names (`vcf` or `vct`), or None."""
    if state.is_terminal or not state.spec.wins_by_line:
        return None
    solver = solve_vct if kind == "vct" else solve_vcf
    return solver(state, budget=budget)


def near_cells(state: GameState, radius: int) -> np.ndarray:
    """The empty cells within `radius` (king moves) of a stone, those nearest the opponent's
    stones first (where a stone that stops its threats lies)."""
    board = state.board()
    stones = np.argwhere(board > 0)
    rows, cols = np.divmod(np.flatnonzero(state.legal_mask()), state.spec.width)
    if not len(stones):
        return np.zeros(0, dtype=np.int64)
    dist = np.maximum(abs(rows[:, None] - stones[None, :, 0]), abs(cols[:, None] - stones[None, :, 1]))
    near = dist.min(axis=1) <= radius
    theirs = stones[board[stones[:, 0], stones[:, 1]] == 2 - state.current_player]
    key = (
        np.maximum(abs(rows[:, None] - theirs[None, :, 0]), abs(cols[:, None] - theirs[None, :, 1])).min(axis=1)
        if len(theirs)
        else np.zeros(len(rows), dtype=np.int64)
    )
    order = np.argsort(key[near], kind="stable")
    return (rows[near] * state.spec.width + cols[near])[order].astype(np.int64)
