"""The game API that everything above the rules uses: a validated `GameSpec` and a
`GameState` wrapping the flat state array driven by the compiled kernels."""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import cached_property
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from pipeline.games import connect6, kernels, presentation, renju
from pipeline.games.layout import (
    BOARD,
    CONNECT6,
    DRAW,
    ERR_DOUBLE_FOUR,
    ERR_DOUBLE_THREE,
    ERR_GAME_OVER,
    ERR_OCCUPIED,
    ERR_OFF_BOARD,
    ERR_OVERLINE,
    ERR_SWAP,
    EXACT_RULE,
    FREESTYLE_RULE,
    GOMOKU,
    HEIGHT,
    HEX,
    HIST,
    HIST_LEN,
    HIST_PLAYER,
    KIND,
    ONGOING,
    PLY,
    RENJU_RULE,
    RULES,
    SWAP,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
    WINNER,
    action_count,
    plane_count,
    state_length,
)

GameName = Literal["gomoku", "connect6", "hex"]
RuleName = Literal["freestyle", "exact", "renju"]
RULE_CODES: dict[str, int] = {"freestyle": FREESTYLE_RULE, "exact": EXACT_RULE, "renju": RENJU_RULE}
RENJU_SIDE = 15  # renju's board, where a spec names no size
# Each rule set's value of `INFO rule` in the Gomocup (Piskvork) protocol; its other bits
# (2 continuous game, 8 caro) name games nothing here plays.
GOMOCUP_RULES: dict[str, int] = {"freestyle": 0, "exact": 1, "renju": 4}
KIND_OF: dict[str, int] = {"gomoku": GOMOKU, "connect6": CONNECT6, "hex": HEX}
COLUMNS = string.ascii_lowercase
SWAP_NAMES = ("swap", "swap-pieces")
# The board sides each game accepts (Gomoku's 20: Gomocup's freestyle board). The web app,
# the brain and the HTP engine take their limits from here.
BOARD_SIDES: dict[str, tuple[int, int]] = {"gomoku": (3, 20), "connect6": (6, 19), "hex": (2, 19)}
# The options each game takes beyond its board side; `GameSpec.for_board` keeps only these.
GAME_OPTIONS: dict[str, tuple[str, ...]] = {"gomoku": ("k", "rules"), "connect6": (), "hex": ("swap",)}
# The record formats each game can be written in (PSQ is Piskvork's, for Gomoku).
RECORD_FORMATS: dict[str, tuple[str, ...]] = {"gomoku": ("sgf", "psq"), "connect6": ("sgf",), "hex": ("sgf",)}


def describe_errors(exc: ValidationError) -> str:
    """pydantic's errors as one line per problem, naming the key, without the URL noise."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


class IllegalMoveError(ValueError):
    """A move that the rules do not allow here; the state is left unchanged."""


class GameSpec(BaseModel):
    """Which game, on which board, under which rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: GameName = "gomoku"
    height: int = 9
    width: int = 9
    k: int = 5
    rules: RuleName = "freestyle"
    swap: bool = False

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        size = data.pop("size", None)
        if size is not None:
            data.setdefault("height", size)
            data.setdefault("width", size)
        if data.get("game") == "connect6":
            data.setdefault("k", 6)
        if data.get("game") == "hex":
            data.setdefault("k", 0)
        if data.get("rules") == "renju":
            data.setdefault("height", RENJU_SIDE)
            data.setdefault("width", RENJU_SIDE)
        return data

    @model_validator(mode="after")
    def _check_rules(self) -> GameSpec:
        h, w = self.height, self.width
        if self.game == "gomoku":
            low, high = BOARD_SIDES["gomoku"]
            if not (low <= h <= high and low <= w <= high):
                raise ValueError(f"gomoku board must be {low}..{high} on each side, got {h}x{w}")
            if not 3 <= self.k <= max(h, w):
                raise ValueError(f"gomoku k must be in 3..{max(h, w)} for a {h}x{w} board, got {self.k}")
            if self.rules == "renju" and self.k != 5:
                raise ValueError(f"renju is five in a row: k must be 5, got {self.k}")
        elif self.game == "connect6":
            low, high = BOARD_SIDES["connect6"]
            if not (low <= h <= high and low <= w <= high):
                raise ValueError(f"connect6 board must be {low}..{high} on each side, got {h}x{w}")
            if self.k != 6 or self.rules != "freestyle":
                raise ValueError("connect6 is six or more in a row: k=6, rules=freestyle")
        else:
            low, high = BOARD_SIDES["hex"]
            if h != w or not low <= h <= high:
                raise ValueError(f"hex board must be square, {low}..{high}, got {h}x{w}")
            if self.k not in (0, h):
                raise ValueError("hex has no k: leave it out")
            if self.rules != "freestyle":
                raise ValueError(f"hex has no {self.rules} rule")
        if self.swap and not self.has_swap_rule:
            raise ValueError("the swap rule exists only for hex")
        return self

    @classmethod
    def for_board(cls, game: str, size: int, k: int = 5, rules: str = "freestyle", swap: bool = False) -> GameSpec:
        """The spec a setup form asks for: `game` on a `size` board, with those of `k`,
        `rules` and `swap` that the game takes (`GAME_OPTIONS`); the others are ignored."""
        given = {"k": k, "rules": rules, "swap": swap}
        return cls(game=game, size=size, **{name: given[name] for name in GAME_OPTIONS[game]})

    @classmethod
    def parse(cls, text: str) -> GameSpec:
        """Read a compact spec like `gomoku:15`, `gomoku:9x9:k5:exact`, `gomoku:renju`
        (15x15), `connect6:10`, `hex:11:swap`."""
        parts = text.strip().lower().split(":")
        data: dict[str, object] = {"game": parts[0]}
        for part in parts[1:]:
            if "x" in part and part.replace("x", "").isdigit():
                hh, ww = part.split("x")
                data["height"], data["width"] = int(hh), int(ww)
            elif part.isdigit():
                data["size"] = int(part)
            elif part.startswith("k") and part[1:].isdigit():
                data["k"] = int(part[1:])
            elif part in RULE_CODES:
                data["rules"] = part
            elif part == "swap":
                data["swap"] = True
            else:
                raise ValueError(f"cannot read {part!r} in game spec {text!r}")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ValueError(f"game spec {text!r}: {describe_errors(exc)}") from None

    def __str__(self) -> str:
        size = f"{self.height}x{self.width}"
        if self.game == "gomoku":
            return f"gomoku:{size}:k{self.k}:{self.rules}"
        if self.game == "hex":
            return f"hex:{size}" + (":swap" if self.swap else "")
        return f"connect6:{size}"

    @property
    def kind(self) -> int:
        return KIND_OF[self.game]

    @property
    def cells(self) -> int:
        return self.height * self.width

    @property
    def num_actions(self) -> int:
        return action_count(self.kind, self.height, self.width, self.swap)

    @property
    def planes(self) -> int:
        return plane_count(self.kind)

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        return (self.planes, self.height, self.width)

    def initial_array(self) -> np.ndarray:
        s = np.zeros(state_length(self.kind, self.height, self.width), dtype=np.int32)
        s[KIND] = self.kind
        s[HEIGHT] = self.height
        s[WIDTH] = self.width
        s[WIN_LENGTH] = self.k
        s[RULES] = RULE_CODES[self.rules]
        s[SWAP] = 1 if self.swap else 0
        s[WINNER] = ONGOING
        s[HIST : HIST + HIST_LEN] = -1
        s[HIST_PLAYER : HIST_PLAYER + HIST_LEN] = -1
        if self.kind == HEX:
            base = BOARD + self.cells
            s[base:] = np.arange(self.cells + 4, dtype=np.int32)
        return s

    def new_game(self) -> GameState:
        return GameState(self)

    def replay(self, moves: Iterable[int | str]) -> GameState:
        """A new game with `moves` played (actions or cell names); an illegal one raises
        IllegalMoveError."""
        state = GameState(self)
        for move in moves:
            state.apply(move if isinstance(move, str) else int(move))
        return state

    # ---- what the game is like, for the layers above ---------------------------------
    @property
    def has_swap_rule(self) -> bool:
        """Whether this game has a swap rule to turn on (Hex's pie rule)."""
        return self.game == "hex"

    @property
    def wins_by_line(self) -> bool:
        """Whether a game is won by a line of stones (Gomoku, Connect6), not a connection."""
        return self.game != "hex"

    @property
    def centre_action(self) -> int:
        """The centre cell's action (on an even side, the cell below and right of the centre point)."""
        return (self.height // 2) * self.width + self.width // 2

    @property
    def record_formats(self) -> tuple[str, ...]:
        return RECORD_FORMATS[self.game]

    @property
    def geometry(self) -> presentation.Geometry:
        """How the board is drawn: "grid" or "hex" (a rhombus of hexagons)."""
        return presentation.geometry(self)

    @property
    def rules_label(self) -> str:
        """The rules in a few characters, for tables (`k5-freestyle`, `swap`, `six`)."""
        return presentation.rules_label(self)

    def row_label(self, r: int) -> int:
        """The number move names give row `r` (0 = the top row)."""
        return presentation.row_label(self, r)

    def column_label(self, c: int) -> str:
        return COLUMNS[c]

    def cell_names(self) -> list[str]:
        """Every cell's move name, in action order (`a9`, `b9`, ... on a 9x9 Gomoku board)."""
        return [self.action_name(a) for a in range(self.cells)]

    def side_goal(self, player: int) -> str:
        """What `player` must do to win, where a front end should say it ("connects top and
        bottom"); empty for the line games."""
        return presentation.side_goal(self, player)

    def presented_action(self, action: int, mover: int) -> int:
        """`action`'s index in `mover`'s presented frame (Hex: transposed for player 1)."""
        if self.kind == HEX and mover == 1 and action < self.cells:
            r, c = divmod(action, self.width)
            return c * self.width + r
        return action

    # ---- action names -------------------------------------------------------------
    def action_name(self, action: int) -> str:
        """`h8` style: letter = column. Gomoku/Connect6 count rows from the bottom as in
        renju diagrams; Hex counts from the top as HexGui does (a1 is the top-left)."""
        if self.game == "hex" and self.swap and action == self.cells:
            return "swap"
        if not 0 <= action < self.cells:
            raise IllegalMoveError(f"action {action} is off the {self.height}x{self.width} board")
        r, c = divmod(action, self.width)
        return f"{COLUMNS[c]}{self.row_label(r)}"

    def parse_action(self, name: str) -> int:
        text = name.strip().lower()
        if text in SWAP_NAMES:
            if self.game != "hex" or not self.swap:
                raise IllegalMoveError(f"{name!r}: swap is not part of these rules ({self})")
            return self.cells
        if len(text) < 2 or text[0] not in COLUMNS or not (text[1:].isascii() and text[1:].isdigit()):
            raise IllegalMoveError(f"{name!r} is not a move name (expected a column letter and a row number, like e5)")
        c = COLUMNS.index(text[0])
        row = int(text[1:])
        r = presentation.row_of_label(self, row)
        if not (0 <= c < self.width and 0 <= r < self.height and row >= 1):
            raise IllegalMoveError(f"{name!r} is off the {self.height}x{self.width} board")
        return r * self.width + c

    # ---- symmetries -----------------------------------------------------------------
    @cached_property
    def symmetries(self) -> list[np.ndarray]:
        """Permutations of the action indices that map the presented frame onto itself:
        `new_policy[perm] = policy`, and a stone on cell i moves to cell perm[i].

        Square boards have the 8 symmetries of the square, rectangular ones 4. Hex has
        the identity and the 180-degree rotation; its other symmetry, the transpose with
        colours swapped, is already folded into the presentation (the player to move
        always connects top and bottom), so it is the identity there."""
        h, w = self.height, self.width
        r, c = np.divmod(np.arange(h * w), w)
        maps: list[tuple[np.ndarray, np.ndarray]] = [(r, c), (h - 1 - r, w - 1 - c)]
        if self.game != "hex":
            maps += [(h - 1 - r, c), (r, w - 1 - c)]
            if h == w:
                maps += [(c, r), (w - 1 - c, h - 1 - r), (c, h - 1 - r), (w - 1 - c, r)]
        perms = []
        for rr, cc in maps:
            perm = np.arange(self.num_actions)
            perm[: h * w] = rr * w + cc
            perms.append(perm)
        return perms

    def transform_planes(self, planes: np.ndarray, perm: np.ndarray) -> np.ndarray:
        """Apply a symmetry to observation planes [C, H, W]."""
        flat = planes.reshape(planes.shape[0], -1)
        out = np.empty_like(flat)
        out[:, perm[: self.cells]] = flat
        return out.reshape(planes.shape)

    def transform_policy(self, policy: np.ndarray, perm: np.ndarray) -> np.ndarray:
        out = np.empty_like(policy)
        out[..., perm] = policy
        return out


_REASONS = {
    ERR_GAME_OVER: "the game is over",
    ERR_OFF_BOARD: "it is off the board",
    ERR_OCCUPIED: "the cell is occupied",
    ERR_SWAP: "swap is legal only as the second move, when the rule is on",
    ERR_OVERLINE: "forbidden to black: overline",
    ERR_DOUBLE_FOUR: "forbidden to black: double four",
    ERR_DOUBLE_THREE: "forbidden to black: double three",
}


class GameState:
    """A position. `apply` checks legality and raises `IllegalMoveError`, leaving the
    state unchanged; players are 0 (first: black) and 1."""

    __slots__ = ("array", "history", "spec")

    def __init__(self, spec: GameSpec, array: np.ndarray | None = None, history: list[int] | None = None):
        self.spec = spec
        self.array = spec.initial_array() if array is None else array
        self.history: list[int] = [] if history is None else history

    def copy(self) -> GameState:
        return GameState(self.spec, self.array.copy(), list(self.history))

    @property
    def ply(self) -> int:
        return int(self.array[PLY])

    @property
    def current_player(self) -> int:
        return int(self.array[TO_MOVE])

    @property
    def is_terminal(self) -> bool:
        return int(self.array[WINNER]) != ONGOING

    @property
    def winner(self) -> int | None:
        """0 or 1 when someone has won; None while the game goes on or after a draw."""
        w = int(self.array[WINNER])
        return w if w in (0, 1) else None

    @property
    def is_draw(self) -> bool:
        return int(self.array[WINNER]) == DRAW

    def board(self) -> np.ndarray:
        """[H, W] int8: 0 empty, 1 first player's stone, 2 second player's."""
        cells = self.spec.cells
        return self.array[BOARD : BOARD + cells].astype(np.int8).reshape(self.spec.height, self.spec.width)

    def legal_mask(self) -> np.ndarray:
        out = np.zeros(self.spec.num_actions, dtype=np.bool_)
        kernels.legal_mask(self.array, out)
        return out

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_mask())

    def to_action(self, move: int | str) -> int:
        if isinstance(move, str):
            return self.spec.parse_action(move)
        if isinstance(move, bool) or not isinstance(move, int | np.integer):
            raise IllegalMoveError(f"move {move!r} is neither an action index nor a move name")
        if not 0 <= int(move) < self.spec.num_actions:
            raise IllegalMoveError(f"move {move} is illegal: it is off the board")
        return int(move)

    def apply(self, move: int | str) -> GameState:
        action = self.to_action(move)
        code = kernels.apply_action(self.array, np.int64(action))
        if code != 0:
            name = self.spec.action_name(action) if 0 <= action < self.spec.num_actions else str(move)
            raise IllegalMoveError(f"move {name} is illegal: {_REASONS[int(code)]}")
        self.history.append(action)
        return self

    def place(self, move: int | str, player: int) -> GameState:
        """Set up a position the way GTP front ends do (`play w a1` with black to move): a
        stone of `player` on `move`, and the other player to move. The player to move is
        an ordinary `apply`; for the other, the ply goes on by two (a turn for each), so
        the side to move still follows from the ply as every kernel expects. Games whose
        turn is one stone only (Connect6's two-stone turns are refused), and a stone, not
        the swap: a swap game set up this way offers no swap afterwards. `history` keeps
        the cells in the order placed, so after a placement out of turn it no longer
        replays the position by itself: a caller that undoes keeps the colours too."""
        if player not in (0, 1):
            raise IllegalMoveError(f"player must be 0 or 1, not {player!r}")
        if player == self.current_player:
            return self.apply(move)
        if self.spec.kind == CONNECT6:
            raise IllegalMoveError("connect6 plays its turns in order: a stone out of turn is not supported")
        action = self.to_action(move)
        if action >= self.spec.cells:
            raise IllegalMoveError(f"move {self.spec.action_name(action)} is only for the player to move")
        saved = self.array.copy()
        self.array[PLY] += 1
        self.array[TO_MOVE] = player
        code = kernels.apply_action(self.array, np.int64(action))
        if code != 0:
            self.array[:] = saved
            raise IllegalMoveError(f"move {self.spec.action_name(action)} is illegal: {_REASONS[int(code)]}")
        self.history.append(action)
        return self

    def observation(self) -> np.ndarray:
        out = np.zeros(self.spec.obs_shape, dtype=np.float32)
        kernels.observe(self.array, out)
        return out

    def presented_action(self, action: int) -> int:
        return int(kernels.presented_action(self.array, np.int64(action)))

    def presented_order(self) -> np.ndarray:
        """perm[a] = the index of action a in the presented frame (Hex is transposed when
        player 1 is to move; every other case is the identity)."""
        spec = self.spec
        perm = np.arange(spec.num_actions)
        if spec.game == "hex" and self.current_player == 1:
            cells = np.arange(spec.cells)
            perm[: spec.cells] = (cells % spec.width) * spec.width + cells // spec.width
        return perm

    def forbidden_kinds(self) -> np.ndarray:
        """int8 [cells]: why black may not play each cell of this position (renju:
        `renju.OVERLINE`, `DOUBLE_FOUR`, `DOUBLE_THREE`; 0 where it may, and everywhere
        under the other rules). Black's, whoever is to move: white plays against them."""
        out = np.zeros(self.spec.cells, dtype=np.int8)
        if self.spec.rules == "renju" and not self.is_terminal:
            renju.forbidden_cells(self.array, out)
        return out

    def forbidden_cells(self) -> list[int]:
        """The empty cells forbidden to black in this position (renju), in action order."""
        return np.flatnonzero(self.forbidden_kinds()).tolist()

    def forbidden_reason(self, move: int | str) -> str | None:
        """Why black may not play `move` here ("double three"), or None if it may."""
        action = self.to_action(move)
        if self.spec.rules != "renju" or action >= self.spec.cells or self.board().ravel()[action] != 0:
            return None
        kind = int(renju.forbidden_at(self.array, np.int64(action)))
        return renju.FORBIDDEN_NAMES[kind] or None

    def candidate_mask(self) -> np.ndarray:
        """Legal moves narrowed by threat guidance (immediate win, else forced blocks)."""
        out = np.zeros(self.spec.num_actions, dtype=np.bool_)
        kernels.candidate_mask(self.array, out)
        return out

    def hist_cells(self) -> list[tuple[int, int]]:
        return [(int(self.array[HIST + i]), int(self.array[HIST_PLAYER + i])) for i in range(HIST_LEN)]

    # ---- what a front end shows ------------------------------------------------------
    @property
    def stones_left_in_turn(self) -> int:
        """Stones the player to move still places this turn, counting the next one
        (Connect6: 1 or 2; every other game: 1)."""
        return int(connect6.stones_left_in_turn(self.ply)) if self.spec.kind == CONNECT6 else 1

    @property
    def swap_available(self) -> bool:
        """Whether the player to move may swap now (Hex with the swap rule, second move)."""
        return self.spec.swap and bool(self.legal_mask()[self.spec.cells])

    def last_turn_cells(self) -> list[int]:
        """The cells the last turn placed (Connect6: up to two stones)."""
        return presentation.last_turn_cells(self)

    def winning_line(self) -> list[int]:
        """The line (Gomoku, Connect6) or chain (Hex) that won; empty while none has. Not
        to be confused with the kernels' `winning_cells`: the empty cells that would win."""
        return presentation.winning_line(self)

    def turn_note(self) -> str:
        """The note after "Black to move": Connect6's stones left, Hex's edges to connect."""
        return presentation.turn_note(self)

    def __repr__(self) -> str:
        return f"GameState({self.spec}, moves={[self.spec.action_name(a) for a in self.history]})"
