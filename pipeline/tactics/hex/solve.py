"""Python API of the compiled Hex solvers: solve a position, list a proof's principal
line, and tabulate the first moves of a board. solve_hex and hex_opening_table use the
negamax of hex_solver (bridges and ziggurats); prove_hex and dfpn_opening_table the DFPN of
hex_dfpn with H-search, far stronger."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.connect import winning_connection
from pipeline.tactics.hex.hsearch import FULL, MAX_SIDE, WORDS, cells_of_bits, hsearch

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
    return _line(
        state,
        lambda s: _solve(s, budget, flags, table),
        lambda s: _winning_move(s, budget, flags, table),
        _losing_reply,
    )


def _line(
    state: GameState,
    solve: Callable[[GameState], tuple[int, int, int]],
    winning_move: Callable[[GameState], int | None],
    defence: Callable[[GameState], int],
) -> list[int] | None:
    """A principal line by one solver: `solve` a position to (value, move or -1, nodes),
    `winning_move` when it names none, the loser's `defence`."""
    cur = state.copy()
    line: list[int] = []
    while not cur.is_terminal:
        v, move, _ = solve(cur)
        if v == hs.UNKNOWN:
            return None
        if v == hs.WIN:
            if move < 0:
                found = winning_move(cur)
                if found is None:
                    return None
                move = found
        else:
            move = defence(cur)
        line.append(move)
        cur.apply(move)
    return line


def _solution(
    state: GameState,
    solved: tuple[int, int, int],
    line: list[int] | None,
    winning_move: Callable[[GameState], int | None],
    start: float,
) -> HexSolution | None:
    """The HexSolution of a solve of `state` (value, move or -1, nodes) begun at `start`
    (a perf_counter reading), with its principal line; None when it was not proven."""
    v, move, nodes = solved
    if v == hs.UNKNOWN:
        return None
    me = state.current_player
    line = line or []
    if v == hs.WIN and move < 0:
        move = line[0] if line else winning_move(state)
    return HexSolution(
        winner=me if v == hs.WIN else 1 - me,
        move=move if v == hs.WIN else None,
        line=line,
        nodes=nodes,
        seconds=time.perf_counter() - start,
    )


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
    solved = _solve(state, budget, flags, table)
    line = principal_line(state, budget, flags, table) if solved[0] != hs.UNKNOWN else None
    return _solution(state, solved, line, lambda s: _winning_move(s, budget, flags, table), start)


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


# ---- depth-first proof-number search with H-search (hex_dfpn) --------------------------
DfpnTable = tuple[np.ndarray, ...]


def check_dfpn_size(width: int) -> None:
    """H-search's bitsets are three 64-bit words: boards up to 13x13."""
    if width > MAX_SIDE:
        raise ValueError(f"the DFPN solver handles Hex up to {MAX_SIDE}x{MAX_SIDE}, not {width}x{width}")


def new_dfpn_table(log2_size: int = 20) -> DfpnTable:
    """A DFPN transposition table of 2**log2_size entries (about 60 bytes each)."""
    return hd.new_tt(log2_size)


def _tables(tt: DfpnTable | None, limits: np.ndarray | None, log2_size: int = 20) -> tuple[DfpnTable, np.ndarray]:
    """The caller's DFPN table and H-search limits, or fresh ones."""
    return (new_dfpn_table(log2_size) if tt is None else tt), (hd.default_limits() if limits is None else limits)


def _outcome(
    state: GameState,
    action: int,
    budget: int,
    flags: int,
    tt: DfpnTable,
    limits: np.ndarray,
    deadline: float | None = None,
) -> int:
    """What the legal `action` is proven, within `budget` nodes (and by `deadline`), to give
    the player to move: hs.WIN, hs.LOSS or hs.UNKNOWN."""
    me = state.current_player
    child = state.copy().apply(action)
    if child.is_terminal:
        return hs.WIN if child.winner == me else hs.UNKNOWN if child.winner is None else hs.LOSS
    v, _, _ = _dfpn(child, budget, flags, tt, limits, deadline)
    return v if child.current_player == me else -v  # after a swap the same side moves again


def action_outcome(
    state: GameState,
    action: int,
    budget: int,
    tt: DfpnTable | None = None,
    limits: np.ndarray | None = None,
    deadline: float | None = None,
) -> int:
    """What `action` is proven, within `budget` nodes (and by `deadline`), to give the
    player to move: hs.WIN, hs.LOSS, or hs.UNKNOWN (also for an illegal action)."""
    tt, limits = _tables(tt, limits)
    if not (0 <= action < state.spec.num_actions and state.legal_mask()[action]):
        return hs.UNKNOWN
    return _outcome(state, action, budget, hd.DFPN_ALL, tt, limits, deadline)


def keeps_win(state: GameState, action: int, budget: int, *options: Any) -> bool:
    """Is `action` proven to keep a win for the player to move? (`action_outcome`'s
    arguments: tt, limits, deadline.)"""
    return action_outcome(state, action, budget, *options) == hs.WIN


def loses(state: GameState, action: int, budget: int, *options: Any) -> bool:
    """Is `action` proven to lose for the player to move (the opponent wins after it)?
    (`action_outcome`'s arguments: tt, limits, deadline.)"""
    return action_outcome(state, action, budget, *options) == hs.LOSS


# A solve with a deadline runs in steps of at most this many nodes, the clock read between
# them: a step of the 8x8 solver takes about 0.05-0.3 s of one core. Each step starts again
# from the root over the table, which holds every number the last one left: the steps
# search what one call of their total budget would, and an unfinished one keeps its work
# for the next solve of the position. Near the deadline a step is cut to the nodes the last
# one's pace fits into the time left, never under MIN_STEP.
DEADLINE_STEP = 500
MIN_STEP = 20
_pace: list[float] = []  # seconds a node in the process's last timed step (an estimate for the next)


def _dfpn(
    state: GameState, budget: int, flags: int, tt: DfpnTable, limits: np.ndarray, deadline: float | None = None
) -> tuple[int, int, int]:
    """(value, winning move or -1, nodes) within `budget` nodes, and with `deadline` (a
    `time.perf_counter()` reading) in steps until it passes (after a first step)."""
    check_dfpn_size(state.spec.width)
    order = hd.centre_order(state.spec.width)
    if deadline is None:
        v, move, nodes = hd.dfpn(state.array, np.int64(budget), np.int64(flags), limits, order, tt)
        return int(v), int(move), int(nodes)
    used = 0
    while True:
        step = min(DEADLINE_STEP, budget - used)
        if _pace:
            step = min(step, max(MIN_STEP, int((deadline - time.perf_counter()) / _pace[0])))
        started = time.perf_counter()
        v, move, nodes = hd.dfpn(state.array, np.int64(step), np.int64(flags), limits, order, tt)
        now = time.perf_counter()
        used += int(nodes)
        if nodes >= MIN_STEP:
            _pace[:] = [(now - started) / int(nodes)]
        if v != hs.UNKNOWN or nodes < step or used >= budget or now >= deadline:
            return int(v), int(move), used


def _dfpn_winning_move(
    state: GameState, budget: int, flags: int, tt: DfpnTable, limits: np.ndarray, deadline: float | None = None
) -> int | None:
    """A move that keeps a proven win whose proof stored none (a standing connection):
    cells that connect at once, then the connection's carrier, then the rest by the
    centre order, each checked by a solve of the child."""
    spec = state.spec
    me = state.current_player
    legal = state.legal_mask()
    status, _, c0, c1, c2 = hsearch(
        state.array,
        np.int64(me),
        limits[0],
        limits[1],
        limits[2],
        bool(limits[3]),
        False,
        np.empty((1, WORDS), dtype=np.uint64),
        np.empty(1, np.int64),
    )
    carrier = cells_of_bits((c0, c1, c2), spec.cells) if status == FULL else []
    order = [c for c in carrier if legal[c]]
    seen = set(order)
    order += [int(c) for c in hd.centre_order(spec.width) if legal[c] and int(c) not in seen]
    order += [a for a in range(spec.cells, spec.num_actions) if legal[a]]
    for a in order:
        if state.copy().apply(a).winner == me:
            return a
    for i, a in enumerate(order):
        # Past the deadline only the carrier's cells are tried (a step each): one of them
        # almost always keeps the connection.
        if i >= len(seen) and deadline is not None and time.perf_counter() >= deadline:
            break
        if _outcome(state, a, budget, flags, tt, limits, deadline) == hs.WIN:
            return a
    return None


def winning_move(state: GameState, budget: int, **options: Any) -> int | None:
    """A proven winning move for the player to move, or None when the position is lost
    or not solved within `budget` nodes (each solve's budget). The `options` are
    `solved_winning_move`'s: `preferred` (a search's choice) is returned when it keeps the
    win too."""
    return solved_winning_move(state, budget, **options)[1]


def solved_winning_move(
    state: GameState,
    budget: int,
    flags: int = hd.DFPN_ALL,
    tt: DfpnTable | None = None,
    limits: np.ndarray | None = None,
    preferred: int | None = None,
    deadline: float | None = None,
) -> tuple[int, int | None]:
    """`winning_move` with the position's value as the solve left it (hs.WIN, hs.LOSS, or
    hs.UNKNOWN within the budget) beside the move. With `deadline` (a `time.perf_counter()`
    reading) each solve also stops once it passes."""
    tt, limits = _tables(tt, limits)
    if state.is_terminal:
        return hs.UNKNOWN, None
    v, move, _ = _dfpn(state, budget, flags, tt, limits, deadline)
    if v != hs.WIN:
        return v, None
    if (
        preferred is not None
        and 0 <= preferred < state.spec.num_actions
        and state.legal_mask()[preferred]
        and _outcome(state, preferred, budget, flags, tt, limits, deadline) == hs.WIN
    ):
        return v, preferred
    return v, (move if move >= 0 else _dfpn_winning_move(state, budget, flags, tt, limits, deadline))


def _dfpn_defence(state: GameState, flags: int, limits: np.ndarray) -> int:
    """A move of the losing side: its first candidate (must-play region, centre first)."""
    status, _, *words, _swap = hd.evaluate(state.array, np.int64(flags), limits)
    legal = state.legal_mask()
    if status == hs.UNKNOWN:
        candidates = set(cells_of_bits(words, state.spec.cells))
        for c in hd.centre_order(state.spec.width):
            if legal[c] and int(c) in candidates:
                return int(c)
    return int(np.flatnonzero(legal)[0])


def dfpn_principal_line(
    state: GameState,
    budget: int,
    flags: int = hd.DFPN_ALL,
    tt: DfpnTable | None = None,
    limits: np.ndarray | None = None,
) -> list[int] | None:
    """Moves from `state` to the end of the game: the winner's proven by DFPN, the
    loser's its first candidates. None if some step was not proven within `budget`."""
    tt, limits = _tables(tt, limits)
    return _line(
        state,
        lambda s: _dfpn(s, budget, flags, tt, limits),
        lambda s: _dfpn_winning_move(s, budget, flags, tt, limits),
        lambda s: _dfpn_defence(s, flags, limits),
    )


def prove_hex(
    state: GameState,
    budget: int = 1_000_000,
    flags: int = hd.DFPN_ALL,
    tt: DfpnTable | None = None,
    limits: np.ndarray | None = None,
) -> HexSolution | None:
    """Solve a Hex position by DFPN with H-search within `budget` evaluated nodes, or
    None when that is not enough (solve_hex's result, from the stronger solver)."""
    if state.spec.game != "hex":
        raise ValueError(f"prove_hex needs a hex position, got {state.spec}")
    tt, limits = _tables(tt, limits)
    start = time.perf_counter()
    if state.is_terminal:
        return HexSolution(winner=int(state.winner), move=None, line=[], nodes=0, seconds=0.0)
    solved = _dfpn(state, budget, flags, tt, limits)
    line = dfpn_principal_line(state, budget, flags, tt, limits) if solved[0] != hs.UNKNOWN else None
    return _solution(state, solved, line, lambda s: _dfpn_winning_move(s, budget, flags, tt, limits), start)


@dataclass(frozen=True)
class OpeningTable:
    """values[r, c]: +1 where the first stone at (r, c) wins for the first player (no
    swap), -1 where it loses, 0 where the budget did not settle it; nodes and seconds of
    each solve (0 for cells filled in by symmetry)."""

    values: np.ndarray
    nodes: np.ndarray
    seconds: np.ndarray


def dfpn_opening_table(
    size: int,
    budget: int = 1_000_000,
    flags: int = hd.DFPN_ALL,
    tt: DfpnTable | None = None,
    symmetric: bool = False,
    limits: np.ndarray | None = None,
    report=None,
) -> OpeningTable:
    """Every first move of Hex size x size solved by DFPN. With `symmetric`, only one of
    each pair of cells related by the 180-degree rotation (which maps the board, both
    players' edges and so the game onto itself) is solved. `report(cell, value, nodes,
    seconds)` is called after each solve."""
    spec = GameSpec.parse(f"hex:{size}")
    tt, limits = _tables(tt, limits, 21)
    values = np.zeros((size, size), dtype=np.int8)
    nodes = np.zeros((size, size), dtype=np.int64)
    seconds = np.zeros((size, size))
    cells = size * size
    for cell in range(cells):
        twin = cells - 1 - cell
        if symmetric and twin < cell:
            values.flat[cell] = values.flat[twin]
            continue
        start = time.perf_counter()
        v, _, used = _dfpn(spec.new_game().apply(cell), budget, flags, tt, limits)
        values.flat[cell] = -v  # the value is the second player's, who moves next
        nodes.flat[cell] = used
        seconds.flat[cell] = time.perf_counter() - start
        if report is not None:
            report(cell, int(values.flat[cell]), used, float(seconds.flat[cell]))
    return OpeningTable(values, nodes, seconds)
