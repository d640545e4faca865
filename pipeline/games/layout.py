"""Layout of the flat int32 state array shared by every game.

A state is one contiguous array so that compiled search can copy it, replay moves into
it and hand it between kernels without Python objects. The header holds the rules and
the position summary, then the board, then (Hex only) the union-find forest used for
incremental connection checks.
"""

KIND = 0
HEIGHT = 1
WIDTH = 2
WIN_LENGTH = 3
EXACT = 4  # the rule set (Gomoku): FREESTYLE_RULE, EXACT_RULE or RENJU_RULE
RULES = EXACT
SWAP = 5
PLY = 6
TO_MOVE = 7
WINNER = 8
STONES = 9
HIST = 10  # cells of the last HIST_LEN actions, most recent first; -1 where none
HIST_PLAYER = 14  # who played each of them
HIST_LEN = 4
HEADER = 18
BOARD = HEADER

GOMOKU = 0
CONNECT6 = 1
HEX = 2

ONGOING = -1
DRAW = 2

# Gomoku's rule sets, as the RULES field holds them (0 and 1 were "exact: no/yes").
FREESTYLE_RULE = 0  # five or more wins
EXACT_RULE = 1  # exactly five wins
RENJU_RULE = 2  # black: exactly five, and forbidden moves (pipeline.games.renju); white: five or more

# Error codes returned by the checked apply kernel (0 means the move was made).
OK = 0
ERR_GAME_OVER = 1
ERR_OFF_BOARD = 2
ERR_OCCUPIED = 3
ERR_SWAP = 4
ERR_OVERLINE = 5  # renju: forbidden to black (ERR_OVERLINE + renju kind - 1)
ERR_DOUBLE_FOUR = 6
ERR_DOUBLE_THREE = 7

# Hex virtual edge nodes, offsets past the last cell in the union-find forest.
HEX_TOP = 0
HEX_BOTTOM = 1
HEX_LEFT = 2
HEX_RIGHT = 3


def state_length(kind: int, height: int, width: int) -> int:
    cells = height * width
    return HEADER + cells + (cells + 4 if kind == HEX else 0)


def action_count(kind: int, height: int, width: int, swap: bool) -> int:
    return height * width + (1 if kind == HEX and swap else 0)


def plane_count(kind: int) -> int:
    return 5 if kind == CONNECT6 else 4
