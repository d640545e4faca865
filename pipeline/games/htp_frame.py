"""Hex moves as HTP speaks them (MoHex, HexGui: the benzene family that defined HTP).

Both descriptions of the swap rule are the same game, but they name moves differently from
the swap on:
- ours (and OpenSpiel's): the first stone, at (r, c), is replaced by the second player's
  stone on the mirrored cell (c, r), and black moves next; every player keeps its colour;
- HTP's `swap-pieces`: the board is unchanged, the players exchange colours, and white
  moves next.

Mirroring the board and exchanging the colours maps one onto the other, so from the swap on
a move of our player P at (r, c) is HTP's move of the other colour at (c, r). Before the
swap (and in games without it) the two frames are the same."""

from __future__ import annotations

from pipeline.games.base import GameSpec, GameState

SWAP_PIECES = "swap-pieces"


def swapped(spec: GameSpec, history: list[int]) -> bool:
    """Whether the swap was played in these moves (it can only be the second)."""
    return spec.swap and len(history) >= 2 and history[1] == spec.cells


def _mirror(spec: GameSpec, action: int) -> int:
    r, c = divmod(action, spec.width)
    return c * spec.width + r


def to_htp(spec: GameSpec, history: list[int], player: int, action: int) -> tuple[int, str]:
    """Our `player`'s `action`, played after `history`, as HTP's (colour, move name)."""
    if spec.swap and action == spec.cells:
        return player, SWAP_PIECES
    if swapped(spec, history):
        return 1 - player, spec.action_name(_mirror(spec, action))
    return player, spec.action_name(action)


def from_htp(spec: GameSpec, history: list[int], colour: int, name: str) -> tuple[int, int]:
    """HTP's `colour` playing `name` after `history`, as our (player, action). Raises
    IllegalMoveError for a name that is no move."""
    if name.strip().lower() in (SWAP_PIECES, "swap"):
        return colour, spec.parse_action("swap")
    action = spec.parse_action(name)
    if swapped(spec, history):
        return 1 - colour, _mirror(spec, action)
    return colour, action


def htp_colour_to_move(state: GameState) -> int:
    """The colour HTP says is to move (white right after a swap, where ours says black)."""
    player = state.current_player
    return 1 - player if swapped(state.spec, state.history) else player


def htp_board(state: GameState) -> list[list[int]]:
    """The board as HTP sees it: [row][column] with 0 empty, 1 black, 2 white."""
    board = state.board()
    n = state.spec.width
    if not swapped(state.spec, state.history):
        return board.tolist()
    flip = (0, 2, 1)
    return [[flip[int(board[c, r])] for c in range(n)] for r in range(n)]
