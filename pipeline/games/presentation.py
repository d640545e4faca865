"""What a front end shows of a position, for every game: the board's geometry and labels,
the note under "Black to move", the cells of the last turn, the line or chain that won,
and how a record writes a move. Front ends (the web app, the terminal, SGF records, the
benchmarks) ask these instead of branching on the game's name.

`GameSpec` and `GameState` offer each of these as a method or property; this module holds
the per-game knowledge, keyed by the game's kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pipeline.games.layout import CONNECT6, HEX

if TYPE_CHECKING:
    from pipeline.games.base import GameSpec, GameState

Geometry = Literal["grid", "hex"]
COLUMNS = "abcdefghijklmnopqrstuvwxyz"
# The board side a front end offers first for each game (a model may then change it).
DEFAULT_SIDE: dict[str, int] = {"gomoku": 9, "connect6": 10, "hex": 7}
# The six neighbours of a Hex cell (r, c) on the rhombus, as (dr, dc).
HEX_NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
LINE_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
# SGF's GM numbers: 4 for the k-in-a-row games (Gomoku's), 11 for Hex.
SGF_GAME: dict[str, int] = {"gomoku": 4, "connect6": 4, "hex": 11}


def geometry(spec: GameSpec) -> Geometry:
    """ "hex": a rhombus of hexagons, each row shifted half a cell; "grid": a square grid."""
    return "hex" if spec.kind == HEX else "grid"


def row_label(spec: GameSpec, r: int) -> int:
    """The number a move name gives row `r` (0 = top): Gomoku and Connect6 count from the
    bottom as renju diagrams do; Hex counts from the top as HexGui does (a1 is top-left)."""
    return r + 1 if spec.kind == HEX else spec.height - r


def row_of_label(spec: GameSpec, label: int) -> int:
    """The inverse of `row_label` (not checked against the board)."""
    return label - 1 if spec.kind == HEX else spec.height - label


def side_goal(spec: GameSpec, player: int) -> str:
    """What `player` must do to win, where the game says more than "make a line"."""
    if spec.kind == HEX:
        return "connects top and bottom" if player == 0 else "connects left and right"
    return ""


def turn_note(state: GameState) -> str:
    """The note a front end shows after "Black to move": Hex's edges to connect, Connect6's
    stones left in this turn; empty for Gomoku."""
    if state.spec.kind == CONNECT6:
        n = state.stones_left_in_turn
        return f"{n} stone{'s' if n > 1 else ''} left in this turn"
    return side_goal(state.spec, state.current_player)


def last_turn_cells(state: GameState) -> list[int]:
    """The cells the last turn placed: Connect6's (up to) two stones of the side that moved
    last, else the last stone; none before the first move."""
    hist = state.hist_cells()
    if state.spec.kind == CONNECT6:
        return [c for c, p in hist if c >= 0 and p != state.current_player][:2]
    return [hist[0][0]] if state.history else []


def winning_line(state: GameState) -> list[int]:
    """The cells that won, sorted: the line through the last stone (Gomoku, Connect6) or,
    for Hex, the winner's stones connected to its first edge (top for black, left for
    white). Empty while nobody has won."""
    if state.winner is None:
        return []
    if state.spec.kind == HEX:
        return _hex_chain(state)
    return _line_through_last(state)


def _hex_chain(state: GameState) -> list[int]:
    h, w = state.spec.height, state.spec.width
    board = state.board()
    value = state.winner + 1
    stones = {(r, c) for r in range(h) for c in range(w) if board[r, c] == value}
    start = {s for s in stones if (s[0] == 0 if state.winner == 0 else s[1] == 0)}
    seen, todo = set(start), list(start)
    while todo:
        r, c = todo.pop()
        for dr, dc in HEX_NEIGHBOURS:
            nb = (r + dr, c + dc)
            if nb in stones and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return sorted(r * w + c for r, c in seen)


def _line_through_last(state: GameState) -> list[int]:
    spec = state.spec
    h, w = spec.height, spec.width
    board = state.board()
    value = state.winner + 1
    r0, c0 = divmod(state.history[-1], w)
    for dr, dc in LINE_DIRECTIONS:
        line = [(r0, c0)]
        for sign in (1, -1):
            r, c = r0 + sign * dr, c0 + sign * dc
            while 0 <= r < h and 0 <= c < w and board[r, c] == value:
                line.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        n = len(line)
        # Connect6 is k=6 freestyle: six or more. Renju: white's overline wins, black's not.
        longer_wins = spec.rules == "freestyle" or (spec.rules == "renju" and state.winner == 1)
        if n == spec.k or (n > spec.k and longer_wins):
            return sorted(r * w + c for r, c in line)
    return []


def sgf_point(spec: GameSpec, action: int) -> str:
    """A move as an SGF node writes it: Hex as HexGui does (`c3`, `swap-pieces`), the
    others as SGF's column-row letter pair (`ca`: column c, top row a)."""
    if spec.kind == HEX:
        return "swap-pieces" if action == spec.cells else spec.action_name(action)
    r, c = divmod(action, spec.width)
    return COLUMNS[c] + COLUMNS[r]


def sgf_action(spec: GameSpec, point: str) -> int:
    """The action an SGF node's point names (the inverse of `sgf_point`); raises
    `IllegalMoveError` for a point that names no cell."""
    from pipeline.games.base import IllegalMoveError

    if spec.kind == HEX:
        return spec.parse_action("swap" if point in ("swap-pieces", "swap") else point)
    letters = COLUMNS[: max(spec.height, spec.width)]
    if len(point) != 2 or point[0] not in letters or point[1] not in letters:
        raise IllegalMoveError(f"bad SGF point {point!r}")
    r, c = COLUMNS.index(point[1]), COLUMNS.index(point[0])
    if not (r < spec.height and c < spec.width):
        raise IllegalMoveError(f"SGF point {point!r} is off the {spec.height}x{spec.width} board")
    return r * spec.width + c


def rules_label(spec: GameSpec) -> str:
    """The rules in a few characters, for tables: `k5-freestyle`, `swap`/`no-swap`, `six`."""
    if spec.kind == HEX:
        return "swap" if spec.swap else "no-swap"
    if spec.kind == CONNECT6:
        return "six"
    return f"k{spec.k}-{spec.rules}"


def sgf_header(spec: GameSpec) -> str:
    """The SGF root properties that name the game: GM (`SGF_GAME`), SZ, and RU where the
    rules vary (Gomoku's freestyle, exact or renju)."""
    size = f"{spec.width}" if spec.width == spec.height else f"{spec.width}:{spec.height}"
    rules = "" if spec.kind in (HEX, CONNECT6) else f"RU[{spec.rules}]"
    return f"GM[{SGF_GAME[spec.game]}]SZ[{size}]{rules}"


def sgf_move(spec: GameSpec, history: list[int], player: int, action: int) -> tuple[int, str]:
    """Our `player`'s `action` after `history` as an SGF node writes it: (colour, point).
    Hex is written as HexGui writes it, in HTP's frame after a swap (`htp_frame`)."""
    if spec.kind == HEX:
        from pipeline.games.htp_frame import to_htp

        return to_htp(spec, history, player, action)
    return player, sgf_point(spec, action)


def sgf_read(spec: GameSpec, history: list[int], colour: int, point: str) -> tuple[int, int]:
    """An SGF node's (colour, point) after `history` as our (player, action)."""
    if spec.kind == HEX:
        from pipeline.games.htp_frame import from_htp

        return from_htp(spec, history, colour, point)
    return colour, sgf_action(spec, point)
