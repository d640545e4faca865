"""Renju written plainly from the RIF definitions, in slow pure Python: the specification the
compiled kernels (`pipeline.games.renju`, the Gomoku kernels under `rules: renju`) are
tested against, in `tests/unit/test_renju.py` and `scripts/renju_reference.py`. Never used
in play.

It shares no code with the kernels and works another way: whole lines of the board rather
than windows around a cell, fours as sets of stones, a straight four found from its
definition. A board is a list of rows, 0 empty, 1 black, 2 white; a cell is (row, col).

The definitions (RIF), with black's five meaning exactly five:
  * five: an unbroken row of exactly five black stones (white: five or more); overline:
    an unbroken row of six or more black stones.
  * four: a row of four stones to which one more stone attains five. The fours a move
    makes are the distinct four-stone sets, holding the move, that one more stone
    completes to a five.
  * straight four: an unbroken row of four stones to which one more stone attains five in
    two different ways (both ends).
  * three: a row of three stones to which one more stone, without at the same time making
    a five, attains a straight four; that stone must be a legal move (not forbidden, the
    recursive definition). Counted once per direction.
  * a move is forbidden to black when it makes no five and makes an overline, or two or
    more fours (double four), or threes in two or more directions (double three).
The game: black moves first; a five (by the rules above) wins; the game is drawn when the
board is full or black is to move and every empty cell is forbidden."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

Board = list[list[int]]
Cell = tuple[int, int]

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
BLACK, WHITE = 1, 2
# How often a three's straight four needed a forbidden move (the recursive definition at
# work), counted for `compare`'s report.
REFUSED_THREES = [0]


def line(board: Board, cell: Cell, direction: tuple[int, int]) -> tuple[list[Cell], int]:
    """Every cell of the board's line through `cell` along `direction`, in order, and the
    index of `cell` in it."""
    h, w = len(board), len(board[0])
    dr, dc = direction
    r, c = cell
    while 0 <= r - dr < h and 0 <= c - dc < w:
        r, c = r - dr, c - dc
    cells = []
    while 0 <= r < h and 0 <= c < w:
        cells.append((r, c))
        r, c = r + dr, c + dc
    return cells, cells.index(cell)


def unbroken_row(board: Board, cells: list[Cell], i: int, colour: int) -> list[Cell]:
    """The unbroken row of `colour` through cells[i] (empty if cells[i] is not `colour`)."""
    if board[cells[i][0]][cells[i][1]] != colour:
        return []
    lo, hi = i, i
    while lo > 0 and board[cells[lo - 1][0]][cells[lo - 1][1]] == colour:
        lo -= 1
    while hi < len(cells) - 1 and board[cells[hi + 1][0]][cells[hi + 1][1]] == colour:
        hi += 1
    return cells[lo : hi + 1]


def is_five(length: int, colour: int) -> bool:
    return length == 5 if colour == BLACK else length >= 5


def placed(board: Board, cell: Cell, colour: int):
    """A context manager putting a stone on `cell` for the duration of a check."""
    return _Placed(board, cell, colour)


class _Placed:
    def __init__(self, board: Board, cell: Cell, colour: int):
        self.board, self.cell, self.colour = board, cell, colour

    def __enter__(self) -> None:
        r, c = self.cell
        assert self.board[r][c] == 0, f"{self.cell} is not empty"
        self.board[r][c] = self.colour

    def __exit__(self, *exc) -> None:
        r, c = self.cell
        self.board[r][c] = 0


def makes_five(board: Board, cell: Cell, colour: int) -> bool:
    """Does a stone of `colour` on the empty `cell` make a five (black: exactly five)?"""
    with placed(board, cell, colour):
        for direction in DIRECTIONS:
            cells, i = line(board, cell, direction)
            if is_five(len(unbroken_row(board, cells, i, colour)), colour):
                return True
    return False


def makes_overline(board: Board, cell: Cell) -> bool:
    with placed(board, cell, BLACK):
        for direction in DIRECTIONS:
            cells, i = line(board, cell, direction)
            if len(unbroken_row(board, cells, i, BLACK)) >= 6:
                return True
    return False


def fours_made(board: Board, cell: Cell) -> set[frozenset[Cell]]:
    """The distinct fours a black stone on `cell` makes: for every empty cell q of its
    lines whose stone then completes an exact five holding `cell`, the five less q."""
    found: set[frozenset[Cell]] = set()
    with placed(board, cell, BLACK):
        for direction in DIRECTIONS:
            cells, _ = line(board, cell, direction)
            for j, q in enumerate(cells):
                if board[q[0]][q[1]] != 0:
                    continue
                with placed(board, q, BLACK):
                    row = unbroken_row(board, cells, j, BLACK)
                if len(row) == 5 and cell in row:
                    found.add(frozenset(row) - {q})
    return found


def is_straight_four(board: Board, cells: list[Cell], i: int) -> bool:
    """Is the unbroken black row through cells[i] a straight four: four stones, and a
    five (exactly) made by a stone on either end?"""
    row = unbroken_row(board, cells, i, BLACK)
    if len(row) != 4:
        return False
    lo, hi = cells.index(row[0]), cells.index(row[-1])
    for end in (lo - 1, hi + 1):
        if not 0 <= end < len(cells) or board[cells[end][0]][cells[end][1]] != 0:
            return False
        with placed(board, cells[end], BLACK):
            if len(unbroken_row(board, cells, i, BLACK)) != 5:
                return False
    return True


def three_directions(board: Board, cell: Cell) -> int:
    """In how many directions a black stone on `cell` makes a three: some empty q of that
    line, a legal move that makes no five, turns it into a straight four holding both."""
    count = 0
    with placed(board, cell, BLACK):
        for direction in DIRECTIONS:
            cells, i = line(board, cell, direction)
            for q in cells:
                if board[q[0]][q[1]] != 0:
                    continue
                with placed(board, q, BLACK):
                    straight = is_straight_four(board, cells, i) and q in unbroken_row(board, cells, i, BLACK)
                if not straight or makes_five(board, q, BLACK):
                    continue
                if forbidden(board, q) is None:
                    count += 1
                    break
                REFUSED_THREES[0] += 1  # a straight four only through a forbidden move
    return count


def forbidden(board: Board, cell: Cell) -> str | None:
    """Why a black stone on the empty `cell` is forbidden ("overline", "double four",
    "double three"), or None when it is allowed (always when it makes a five)."""
    if makes_five(board, cell, BLACK):
        return None
    if makes_overline(board, cell):
        return "overline"
    if len(fours_made(board, cell)) >= 2:
        return "double four"
    if three_directions(board, cell) >= 2:
        return "double three"
    return None


def could_matter(board: Board, cell: Cell, colour: int = BLACK) -> bool:
    """Whether any stone of `colour` lies within 5 cells of `cell` along one of its lines:
    every shape above needs one, so the other cells are plainly allowed, and make no five
    (this only saves time)."""
    h, w = len(board), len(board[0])
    for dr, dc in DIRECTIONS:
        for sign in (-1, 1):
            for step in range(1, 6):
                r, c = cell[0] + sign * step * dr, cell[1] + sign * step * dc
                if 0 <= r < h and 0 <= c < w and board[r][c] == colour:
                    return True
    return False


def forbidden_map(board: Board) -> dict[Cell, str]:
    """Every empty cell forbidden to black, with the reason."""
    out = {}
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v == 0 and could_matter(board, (r, c)):
                why = forbidden(board, (r, c))
                if why is not None:
                    out[(r, c)] = why
    return out


class Game:
    """A renju game by the definitions above: `legal()`, `play(cell)`, `winner`, `over`."""

    def __init__(self, height: int = 15, width: int = 15):
        self.board: Board = [[0] * width for _ in range(height)]
        self.to_move = BLACK
        self.winner: int | None = None  # BLACK or WHITE
        self.over = False
        self._legal: list[Cell] | None = None  # this position's legal moves, once asked
        self._forbidden: dict[Cell, str] | None = None

    def empty_cells(self) -> list[Cell]:
        return [(r, c) for r, row in enumerate(self.board) for c, v in enumerate(row) if v == 0]

    def forbidden(self) -> dict[Cell, str]:
        """Black's forbidden cells in this position, with the reasons."""
        if self._forbidden is None:
            self._forbidden = {} if self.over else forbidden_map(self.board)
        return self._forbidden

    def legal(self) -> list[Cell]:
        if self._legal is None:
            if self.over:
                self._legal = []
            elif self.to_move == WHITE:
                self._legal = self.empty_cells()
            else:
                banned = self.forbidden()
                self._legal = [cell for cell in self.empty_cells() if cell not in banned]
        return self._legal

    def play(self, cell: Cell) -> None:
        assert cell in self.legal(), f"{cell} is not a legal move"
        colour = self.to_move
        won = makes_five(self.board, cell, colour)
        self.board[cell[0]][cell[1]] = colour
        self.to_move = WHITE if colour == BLACK else BLACK
        self._legal = self._forbidden = None
        if won:
            self.winner, self.over = colour, True
        elif not self.empty_cells() or (self.to_move == BLACK and not self.legal()):
            self.over = True
            self._legal, self._forbidden = [], {}


# ---- the comparison with the compiled rules ------------------------------------------------


@dataclass
class Comparison:
    """What `compare` saw: games and plies played, positions where the compiled rules and
    this reference disagreed (legal moves, black's forbidden cells and their reasons, or
    the result), and black's forbidden cells met, by reason."""

    games: int = 0
    plies: int = 0
    disagreements: int = 0
    forbidden_seen: Counter = field(default_factory=Counter)
    refused_threes: int = 0  # threes that did not count: their straight four was forbidden
    examples: list[str] = field(default_factory=list)
    results: Counter = field(default_factory=Counter)


def compare(
    games: int, seed: int = 0, size: int = 15, near: float = 0.85, progress: Callable[[Comparison], None] | None = None
) -> Comparison:
    """Play `games` random renju games with the compiled rules (`GameState`) and this
    reference side by side, comparing at every ply the legal moves, black's forbidden cells
    with their reasons (on black's turns) and, after every move, the result. Moves are
    uniform among the legal ones, or with probability `near` among those next to a stone,
    which builds the crowded shapes where forbidden moves arise. `progress` is called
    after each game."""
    import numpy as np

    from pipeline.games.base import GameSpec
    from pipeline.games.renju import FORBIDDEN_NAMES

    spec = GameSpec(game="gomoku", size=size, rules="renju")
    rng = np.random.default_rng(seed)
    out = Comparison()
    REFUSED_THREES[0] = 0

    def disagree(text: str) -> None:
        out.disagreements += 1
        if len(out.examples) < 20:
            out.examples.append(text)

    for g in range(games):
        state, game = spec.new_game(), Game(size, size)
        while not state.is_terminal:
            legal = state.legal_actions()
            if sorted(r * size + c for r, c in game.legal()) != legal.tolist():
                disagree(f"game {g} ply {state.ply}: legal moves differ ({state})")
            if state.current_player == 0:
                kinds = state.forbidden_kinds()
                fast = {int(a): FORBIDDEN_NAMES[int(kinds[a])] for a in np.flatnonzero(kinds)}
                slow = {r * size + c: why for (r, c), why in game.forbidden().items()}
                out.forbidden_seen.update(slow.values())
                if fast != slow:
                    disagree(f"game {g} ply {state.ply}: forbidden {fast} != reference {slow} ({state})")
            stones = np.flatnonzero(state.board().ravel())
            pool = legal
            if len(stones) and rng.random() < near:
                r, c = np.divmod(legal, size)
                sr, sc = np.divmod(stones, size)
                close = np.maximum(abs(r[:, None] - sr[None, :]), abs(c[:, None] - sc[None, :])) <= 1
                pool = legal[close.any(axis=1)] if close.any() else legal
            action = int(rng.choice(pool))
            state.apply(action)
            game.play(divmod(action, size))
            out.plies += 1
            if (
                state.is_terminal != game.over
                or (state.winner is not None) != (game.winner is not None)
                or (game.winner is not None and state.winner != game.winner - 1)
            ):
                disagree(f"game {g} ply {state.ply}: result {state.winner} != reference {game.winner} ({state})")
                break
        out.games += 1
        out.results["draw" if state.winner is None else ("black", "white")[state.winner]] += 1
        out.refused_threes = REFUSED_THREES[0]
        if progress is not None:
            progress(out)
    return out
