"""`zero brain`: the Gomocup / Piskvork brain protocol on stdin/stdout, so a model plays
in Piskvork and Gomocup-style tournaments. Coordinates are `x,y` with x the column and
y the row, both from 0 at the top-left. `INFO rule` picks the rule set: 0 freestyle, 1 exact
five, 4 renju (black's forbidden moves are never played: they are not legal moves). Any
other value (bit 2 a continuous game, 8 caro, ...) is answered with `ERROR` naming the rules
this brain plays, and so is every move until a rule it plays comes; so are swap openings
(`SWAP2BOARD`). `ABOUT` lists the rules too.

Every board (START, RECTSTART, RESTART, and an `INFO rule` that changes the rule) picks
its model again (`pipeline.players.discovery.choose_model`) and says which in a `MESSAGE` line
after `OK`: a model trained on that board, else a size-free one of the same rule, else
pure MCTS. A board the `--model` given cannot play answers `ERROR <why>`, and so does
every later move until a board or rule it can play comes: a GUI user sees why, and the brain
never plays with a model the user did not choose."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from pipeline.games.base import BOARD_SIDES, GOMOCUP_RULES, GameSpec, GameState, IllegalMoveError
from pipeline.players.base import Player
from pipeline.players.discovery import DEFAULT_SOURCES, choose_model
from pipeline.players.factory import PROTOCOL_SIMULATIONS, protocol_player

RULE_OF_BITS = {bits: rules for rules, bits in GOMOCUP_RULES.items()}
RULE_WORDS = {"freestyle": "freestyle", "exact": "exact five", "renju": "renju"}
PLAYS = ", ".join(f"{bits} {RULE_WORDS[rules]}" for rules, bits in GOMOCUP_RULES.items())
# What the other rule bits of the protocol ask for (none of them is played here).
OTHER_BITS = {2: "continuous game", 8: "caro"}
ABOUT = (
    'name="zero-pipeline", version="0.1", author="zero-pipeline", country="", www="", email="", '
    f'rules="INFO rule {PLAYS}"'
)


def unsupported_rule(number: int) -> str:
    """Why `INFO rule number` cannot be played, naming the rules that can."""
    asked = [name for bit, name in OTHER_BITS.items() if number & bit]
    what = f" ({', '.join(asked)})" if asked else ""
    return f"rule {number}{what} is not supported: this brain plays INFO rule {PLAYS}"


class ProtocolError(ValueError):
    """A malformed or impossible command: answered with ERROR, the engine keeps running."""


# A bot for a board and one line for the user saying which it is (empty: nothing to say);
# a ValueError when there is none for that board.
BoardPlayers = Callable[[GameSpec], tuple[Player, str]]


class Brain:
    """The protocol around one bot: `player_for_board` gives the bot for a board."""

    def __init__(self, player_for_board: BoardPlayers, out: TextIO = sys.stdout):
        self.player_for_board = player_for_board
        self.out = out
        self.size: tuple[int, int] | None = None
        self.rules = "freestyle"
        self.rule_error: str | None = None  # the last INFO rule asked for what is not played
        self.state: GameState | None = None
        self.player: Player | None = None
        self.unplayable: str | None = None  # why the board asked for has no bot
        self.timeout_turn = 5000  # ms
        self.timeout_match = 0  # ms, 0 = no limit
        self.time_left: int | None = None
        self.me = 0

    # ---- protocol -------------------------------------------------------------------
    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, line: str, lines) -> bool:
        """Handle one command; False means END."""
        parts = line.strip().split(maxsplit=1)
        if not parts:
            return True
        cmd, arg = parts[0].upper(), (parts[1] if len(parts) > 1 else "")
        try:
            if cmd == "END":
                return False
            if cmd == "START":
                self.start(self.number(arg, "board size"), None)
            elif cmd == "RECTSTART":
                w, h = self.pair(arg, "width,height")
                self.start(w, h)
            elif cmd == "RESTART":
                self.need_board()
                assert self.size is not None
                self.start(*self.size)
            elif cmd == "INFO":
                self.info(arg)
            elif cmd == "ABOUT":
                self.send(ABOUT)
            elif cmd == "BEGIN":
                self.need_board()
                self.reply_move()
            elif cmd == "TURN":
                self.need_board()
                self.play(*self.pair(arg, "x,y"))
                self.reply_move()
            elif cmd == "BOARD":
                self.need_board()
                self.board(lines)
                self.reply_move()
            elif cmd == "TAKEBACK":
                self.need_board()
                self.takeback(*self.pair(arg, "x,y"))
                self.send("OK")
            elif cmd == "SWAP2BOARD":
                raise ProtocolError(f"swap openings (SWAP2BOARD) are not supported: this brain plays INFO rule {PLAYS}")
            else:
                self.send(f"UNKNOWN command {cmd}")
        except (ProtocolError, IllegalMoveError, ValueError) as exc:
            self.send(f"ERROR {exc}")
        return True

    @staticmethod
    def number(text: str, what: str) -> int:
        try:
            return int(text.strip())
        except ValueError:
            raise ProtocolError(f"expected {what}, got {text!r}") from None

    @staticmethod
    def pair(text: str, what: str) -> tuple[int, int]:
        try:
            a, b = (int(v) for v in text.strip().split(","))
        except ValueError:
            raise ProtocolError(f"expected {what}, got {text!r}") from None
        return a, b

    def need_board(self) -> None:
        if self.rule_error is not None:
            raise ProtocolError(self.rule_error)
        if self.unplayable is not None:
            raise ProtocolError(self.unplayable)
        if self.state is None:
            raise ProtocolError("no board: send START first")

    def spec(self, rules: str | None = None) -> GameSpec:
        assert self.size is not None
        w, h = self.size
        return GameSpec(game="gomoku", width=w, height=h, k=5, rules=rules or self.rules)

    def start(self, width: int, height: int | None) -> None:
        height = width if height is None else height
        try:
            spec = GameSpec(game="gomoku", width=width, height=height, k=5, rules=self.rules)
        except ValueError:
            self.send(f"ERROR unsupported board {width}x{height} (5..{BOARD_SIDES['gomoku'][1]} on each side)")
            return
        self.size = (width, height)
        if self.rule_error is not None:  # the board waits for a rule this brain plays
            self.state, self.player, self.unplayable = None, None, self.rule_error
            raise ProtocolError(self.rule_error)
        try:
            note = self.seat(spec, spec.new_game())
        except ProtocolError as exc:
            # Piskvork sends `INFO rule` after START: a board that only another rule's
            # bot can play is accepted, and plays once that rule comes.
            others = [rules for rules in GOMOCUP_RULES if rules != self.rules and self.can_seat(self.spec(rules))]
            if not others:
                raise exc from None
            plays = " or ".join(f"{RULE_WORDS[rules]} (INFO rule {GOMOCUP_RULES[rules]})" for rules in others)
            note = f"{exc}; it plays {width}x{height} with {plays}"
        self.send("OK")
        if note:
            self.send(f"MESSAGE {note}")

    def can_seat(self, spec: GameSpec) -> bool:
        try:
            self.player_for_board(spec)
        except ValueError:
            return False
        return True

    def seat(self, spec: GameSpec, state: GameState) -> str:
        """Take the bot for `spec` and play on from `state`; its note for the user. Without
        a bot the board is unplayable: a ProtocolError now and at every move until START."""
        try:
            player, note = self.player_for_board(spec)
        except ValueError as exc:
            self.state, self.player, self.unplayable = None, None, str(exc)
            raise ProtocolError(str(exc)) from None
        # A throwaway first search here, not on the clock: loading the compiled search
        # (and the net's first forward) made the first move take a second at any limit.
        player.think(spec.new_game(), budget=1)
        player.start(spec, 1, 0)
        self.state, self.player, self.unplayable = state, player, None
        return note

    def info(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        key = key.lower()
        try:
            number = int(value) if value.strip().lstrip("-").isdigit() else None
        except ValueError:
            number = None
        if key == "timeout_turn" and number is not None:
            self.timeout_turn = number
        elif key == "timeout_match" and number is not None:
            self.timeout_match = number
        elif key == "time_left" and number is not None:
            self.time_left = number
        elif key == "rule" and number is not None:
            rules = RULE_OF_BITS.get(number)
            if rules is None:
                # Never a silent fallback: the moves are refused until a rule played here comes.
                self.rule_error = unsupported_rule(number)
                raise ProtocolError(self.rule_error)
            if rules != self.rules or self.rule_error is not None:
                self.change_rule(rules)
        # max_memory, game_type, evaluate, folder: accepted and ignored.

    def change_rule(self, rules: str) -> None:
        """The next boards follow the new rule; a board already started (usually still
        empty: Piskvork sends INFO after START) switches to it with a bot for it, its
        moves replayed under the new rule."""
        self.rule_error = None
        if self.size is None or (self.state is None and self.unplayable is None):
            self.rules = rules
            return
        spec = self.spec(rules)
        state = spec.new_game()
        for action in self.state.history if self.state is not None else []:
            if state.is_terminal:
                raise ProtocolError(f"the game so far is over under the {spec.rules} rule")
            state.apply(action)
        self.rules = rules
        note = self.seat(spec, state)
        if note:
            self.send(f"MESSAGE {note}")

    def cell(self, x: int, y: int) -> int:
        assert self.size is not None
        w, h = self.size
        if not (0 <= x < w and 0 <= y < h):
            raise ProtocolError(f"{x},{y} is off the {w}x{h} board")
        return y * w + x

    def play(self, x: int, y: int) -> None:
        assert self.state is not None and self.player is not None
        action = self.cell(x, y)
        self.state.apply(action)
        if not self.state.is_terminal:
            self.player.observe(0, self.state, action)  # the bot's tree follows the game

    def takeback(self, x: int, y: int) -> None:
        assert self.state is not None
        cell = self.cell(x, y)
        if not self.state.history or self.state.history[-1] != cell:
            raise ProtocolError(f"{x},{y} is not the last move")
        moves = self.state.history[:-1]
        self.state = self.spec().new_game()
        for a in moves:
            self.state.apply(a)

    def board(self, lines) -> None:
        """BOARD ... DONE: stones in the order played; field 1 is ours, 2 the opponent's."""
        mine, theirs = [], []
        for raw in lines:
            text = raw.strip()
            if text.upper() == "DONE":
                break
            try:
                x, y, field = (int(v) for v in text.split(","))
            except ValueError:
                raise ProtocolError(f"bad BOARD line {text!r}") from None
            (mine if field == 1 else theirs).append(self.cell(x, y))
        else:
            raise ProtocolError("BOARD without DONE")
        # We move next: with equal counts we are the first player.
        if len(mine) == len(theirs):
            first, second = mine, theirs
        elif len(theirs) == len(mine) + 1:
            first, second = theirs, mine
        else:
            raise ProtocolError(f"impossible position: {len(mine)} own and {len(theirs)} opponent stones")
        state = self.spec().new_game()
        for i in range(len(first) + len(second)):
            state.apply((first if i % 2 == 0 else second)[i // 2])
        self.state = state

    def budget_seconds(self) -> float:
        """Honour the per-turn limit and the match clock, with a safety margin."""
        limits = [self.timeout_turn / 1000.0] if self.timeout_turn > 0 else [30.0]
        if self.time_left is not None and self.timeout_match > 0:
            assert self.state is not None
            moves_left = max(10, (self.state.spec.cells - self.state.ply) // 2)
            limits.append(self.time_left / 1000.0 / moves_left)
        return max(0.05, 0.7 * min(limits) - 0.05)

    def reply_move(self) -> None:
        assert self.state is not None and self.player is not None and self.size is not None
        if self.state.is_terminal:
            raise ProtocolError("the game is over")
        thought = self.player.think(self.state, seconds=self.budget_seconds())
        self.state.apply(thought.action)
        if not self.state.is_terminal:
            self.player.observe(0, self.state, thought.action)
        y, x = divmod(thought.action, self.size[0])
        self.send(
            f"MESSAGE {self.player.name}: {thought.simulations} simulations in "
            f"{thought.seconds:.2f}s, value {thought.value:+.2f}" + (f"; {thought.proof}" if thought.proof else "")
        )
        self.send(f"{x},{y}")


def run_brain(
    model: Path | None = None,
    simulations: int | None = None,
    playouts: int = 20_000,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES,
) -> None:
    """`zero brain`: for each board, the given model, else the pretrained model or the
    champion that fits (see `choose_model`), else pure MCTS. A net searches for its share of
    the clock (`Brain.budget_seconds`), however many simulations that reaches (issue 78: at
    equal time, as engine users run it), or at most `simulations` when given; pure MCTS
    plays at most `playouts` within the same share."""

    def player_for_board(spec: GameSpec) -> tuple[Player, str]:
        choice = choose_model(spec, model, sources)
        player = protocol_player(
            spec, choice.path, simulations or PROTOCOL_SIMULATIONS, playouts, choice.net_game, timed=simulations is None
        )
        return player, (choice.note if choice.path else f"{choice.note}, {playouts} playouts a move")

    brain = Brain(player_for_board, stdout)
    lines = iter(stdin.readline, "")
    for line in lines:
        if not brain.handle(line, lines):
            break
