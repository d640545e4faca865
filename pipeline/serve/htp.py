"""`zero htp`: Hex over the GTP/HTP command set used by HexGui and MoHex. Black is the
first player and connects top and bottom; cells are named letter = column, number = row
from the top (a1 is the top-left); the swap is `swap-pieces` (or `swap`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from pipeline.discovery import find_model
from pipeline.games.base import GameSpec, GameState, IllegalMoveError
from pipeline.players import Player, player_for

COMMANDS = (
    "boardsize",
    "clear_board",
    "genmove",
    "known_command",
    "list_commands",
    "name",
    "play",
    "quit",
    "showboard",
    "undo",
    "version",
)
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


class HtpError(ValueError):
    pass


class HtpEngine:
    """The protocol around one bot: `make_player` gives the bot for a board."""

    def __init__(self, make_player: Callable[[GameSpec], Player], size: int = 11, swap: bool = False):
        self.make_player = make_player
        self.swap = swap
        self.set_size(size)

    def set_size(self, size: int) -> None:
        self.spec = GameSpec(game="hex", size=size, swap=self.swap)
        self.state: GameState = self.spec.new_game()
        self.player = self.make_player(self.spec)

    def apply(self, action: int) -> None:
        """Play `action`; the bot's tree follows the game."""
        self.state.apply(action)
        if not self.state.is_terminal:
            self.player.observe(0, self.state, action)

    def colour(self, text: str) -> int:
        try:
            return COLOURS[text.lower()]
        except KeyError:
            raise HtpError(f"unknown colour {text!r}") from None

    def move_name(self, action: int) -> str:
        name = self.spec.action_name(action)
        return "swap-pieces" if name == "swap" else name

    def execute(self, command: str, args: list[str]) -> str:
        if command == "name":
            return "zero-pipeline"
        if command == "version":
            return "0.1"
        if command == "list_commands":
            return "\n".join(COMMANDS)
        if command == "known_command":
            return "true" if args and args[0] in COMMANDS else "false"
        if command == "boardsize":
            if not args:
                raise HtpError("boardsize needs a size")
            try:
                sizes = [int(a) for a in args[:2]]
            except ValueError:
                raise HtpError(f"bad board size {' '.join(args)!r}") from None
            if len(sizes) == 2 and sizes[0] != sizes[1]:
                raise HtpError("only square boards")
            try:
                self.set_size(sizes[0])
            except ValueError as exc:
                raise HtpError(f"unacceptable size: {exc}") from None
            return ""
        if command == "clear_board":
            self.state = self.spec.new_game()
            return ""
        if command == "play":
            if len(args) < 2:
                raise HtpError("play needs a colour and a move")
            self.check_turn(self.colour(args[0]))
            if self.state.is_terminal:
                raise HtpError("the game is over")
            self.apply(self.spec.parse_action(args[1]))
            return ""
        if command == "genmove":
            if not args:
                raise HtpError("genmove needs a colour")
            self.check_turn(self.colour(args[0]))
            if self.state.is_terminal:
                return "resign"
            thought = self.player.think(self.state)
            self.apply(thought.action)
            return self.move_name(thought.action)
        if command == "undo":
            if not self.state.history:
                raise HtpError("nothing to undo")
            moves = self.state.history[:-1]
            self.state = self.spec.new_game()
            for a in moves:
                self.state.apply(a)
            return ""
        if command == "showboard":
            return "\n" + self.render()
        raise HtpError(f"unknown command {command!r}")

    def check_turn(self, colour: int) -> None:
        if colour != self.state.current_player:
            who = "black" if self.state.current_player == 0 else "white"
            raise HtpError(f"it is {who}'s turn")

    def render(self) -> str:
        n = self.spec.height
        board = self.state.board()
        cols = " ".join(chr(ord("a") + c) for c in range(n))
        lines = ["  " + cols]
        for r in range(n):
            cells = " ".join(".XO"[board[r, c]] for c in range(n))
            lines.append(f"{' ' * r}{r + 1:>2} {cells}")
        return "\n".join(lines)


def run_htp(
    model: Path | None = None,
    size: int = 11,
    swap: bool = False,
    simulations: int = 800,
    playouts: int = 20_000,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> None:
    """`zero htp`: for each board, the given model, else the pretrained model or the
    champion that fits, else pure MCTS."""

    def make_player(spec: GameSpec) -> Player:
        return player_for(spec, find_model(spec, model), simulations=simulations, playouts=playouts)

    htp = HtpEngine(make_player, size, swap)
    for raw in iter(stdin.readline, ""):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                continue
        command, args = words[0].lower(), words[1:]
        if command == "quit":
            stdout.write(f"={ident}\n\n")
            stdout.flush()
            return
        try:
            result = htp.execute(command, args)
            stdout.write(f"={ident} {result}".rstrip() + "\n\n")
        except (HtpError, IllegalMoveError, ValueError) as exc:
            stdout.write(f"?{ident} {exc}\n\n")
        stdout.flush()
