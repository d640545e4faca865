"""Python API of the compiled Hex solver: solve a position, list a proof's principal
line, and tabulate the first moves of a board."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.tactics import hex_solver as hs
from pipeline.tactics.hex_connect import winning_connection

Table = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class HexSolution:
    """A solved position. `winner` is the player (0 or 1) who wins with best play;
    `move` a winning move for the player to move (None when it loses or the game is
    over); `line` a principal line from the position to the end of the game whose
    winner's moves are all proven; `nodes` the nodes the proof took (not counting the
    line's); `seconds` the wall time of both."""

    winner: int
    move: int | None
    line: list[int] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0


def new_table(log2_size: int = 20) -> Table:
    return hs.new_table(log2_size)


def _solve(state: GameState, budget: int, flags: int, table: Table) -> tuple[int, int, int]:
    v, move, nodes = hs.solve(state.array, np.int64(budget), np.int64(flags), *table)
    return int(v), int(move), int(nodes)


def _winning_move(state: GameState, budget: int, flags: int, table: Table) -> int | None:
    """A move that keeps a proven win, when the proof was a standing connection (no move
    stored). Cells completing the connection first, then the connection's own carrier
    (playing there keeps the connection and shrinks it), then everything else."""
    spec = state.spec
    me = state.current_player
    cells = spec.cells
    carrier = np.zeros(cells, dtype=np.bool_)
    winning_connection(state.array, np.int64(me), carrier)
    legal = state.legal_mask()
    order = [int(a) for a in np.flatnonzero(carrier) if legal[a]]
    first = set(order)
    order += [int(a) for a in np.flatnonzero(legal) if a not in first]
    for a in order:
        if state.copy().apply(a).winner == me:
            return a
    for a in order:
        child = state.copy().apply(a)
        v, _, _ = _solve(child, budget, flags, table)
        if v == (hs.LOSS if child.current_player != me else hs.WIN):
            return a
    return None


def _losing_reply(state: GameState) -> int:
    """Any move of the losing side; the first of the solver's candidates looks best."""
    mask = np.zeros(state.spec.cells + 1, dtype=np.bool_)
    status, _ = hs.analyse(state.array, np.int64(hs.USE_ALL), mask)
    mask = mask[: state.spec.num_actions]
    legal = state.legal_mask()
    pick = np.flatnonzero(mask & legal) if status == hs.UNKNOWN else np.array([], dtype=np.int64)
    moves = np.zeros(state.spec.cells + 1, dtype=np.int64)
    if len(pick):
        count = hs.order_moves(state.array, mask, moves)
        return int(moves[:count][0])
    return int(np.flatnonzero(legal)[0])


def principal_line(
    state: GameState, budget: int, flags: int = hs.USE_ALL, table: Table | None = None
) -> list[int] | None:
    """Moves from `state` to the end of the game: the winner's are proven wins, the
    loser's are its first candidates. None if some step could not be proven within
    `budget` nodes."""
    table = new_table() if table is None else table
    cur = state.copy()
    line: list[int] = []
    while not cur.is_terminal:
        v, move, _ = _solve(cur, budget, flags, table)
        if v == hs.UNKNOWN:
            return None
        if v == hs.WIN:
            if move < 0:
                found = _winning_move(cur, budget, flags, table)
                if found is None:
                    return None
                move = found
        else:
            move = _losing_reply(cur)
        line.append(move)
        cur.apply(move)
    return line


def solve_hex(
    state: GameState, budget: int = 1_000_000, flags: int = hs.USE_ALL, table: Table | None = None
) -> HexSolution | None:
    """Solve a Hex position within `budget` nodes, or None when that is not enough.
    `table` (from new_table) may be shared between calls: it holds proven values only."""
    if state.spec.game != "hex":
        raise ValueError(f"solve_hex needs a hex position, got {state.spec}")
    table = new_table() if table is None else table
    start = time.perf_counter()
    if state.is_terminal:
        return HexSolution(winner=int(state.winner), move=None, line=[], nodes=0, seconds=0.0)
    v, move, nodes = _solve(state, budget, flags, table)
    if v == hs.UNKNOWN:
        return None
    me = state.current_player
    line = principal_line(state, budget, flags, table) or []
    if v == hs.WIN and move < 0:
        move = line[0] if line else _winning_move(state, budget, flags, table)
    return HexSolution(
        winner=me if v == hs.WIN else 1 - me,
        move=move if v == hs.WIN else None,
        line=line,
        nodes=nodes,
        seconds=time.perf_counter() - start,
    )


def hex_opening_table(
    size: int, budget: int = 1_000_000, flags: int = hs.USE_ALL, table: Table | None = None
) -> np.ndarray:
    """[size, size] int8: +1 where the first stone wins for the first player (no swap),
    -1 where it loses, 0 where `budget` nodes did not settle it."""
    spec = GameSpec.parse(f"hex:{size}")
    table = new_table(22) if table is None else table
    out = np.zeros((size, size), dtype=np.int8)
    for cell in range(size * size):
        opened = spec.new_game().apply(cell)
        v, _, _ = _solve(opened, budget, flags, table)
        out.flat[cell] = -v  # the value is the second player's, who moves next
    return out
