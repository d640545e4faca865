"""`zero htp`: Hex over the GTP/HTP command set used by HexGui and MoHex. Black is the
first player and connects top and bottom; cells are named letter = column, number = row
from the top (a1 is the top-left); the swap is `swap-pieces` (or `swap`), with HTP's
meaning: the board is unchanged, the players exchange colours, and white moves next
(`pipeline.games.htp_frame` maps it onto our rules).

A `play` of the colour not to move is accepted, as MoHex and the other HTP engines accept
it, since GTP front ends set up positions with stones in any colour order: the stone is
placed for that colour and the other colour is to move (`GameState.place`); `undo` takes
it back like any move.

Every `boardsize` picks its model again (`pipeline.players.discovery.choose_model`: a model
trained on that board, else a size-free one of the same rules, else pure MCTS) and says
which on stderr, which HexGui shows in its shell window. A size the `--model` given
cannot play fails `? unacceptable size: <why>` and the board stays as it was; a size it
can play under the other swap rule fails saying which rule the model was trained with and
how to start the engine for it (`--swap` or not). When the starting `--size` is one it
cannot play, the engine still starts, says why on stderr, and `genmove` fails with that
reason until a `boardsize` it can play.

A move takes the time it is given: `time_settings` and `time_left` set a clock for each
colour (`pipeline.serve.clock`), and without one each `genmove` takes the engine's time a
move (`zero htp --seconds`). Past 8x8 the net searches for the whole of that time, however
many simulations it reaches, with the connection knowledge that pays at equal time
(`players.factory.TIMED_HEX_TACTICS`: at 1 s a move it beat the full set 13-7), as an
engine run at equal time against MoHex should; `--simulations N` bounds it instead (the
full knowledge, at most N a move within the time). On 7x7 and 8x8 the search stops at its
simulations (PROTOCOL_SIMULATIONS) or its share of the time, and the solver gets
the rest (`pipeline.search.hex_root_solver`): those boards are solved, and a move there
answers in about a second."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from pipeline.games.base import GameSpec, GameState, IllegalMoveError, describe_errors
from pipeline.games.htp_frame import from_htp, htp_board, htp_colour_to_move, to_htp
from pipeline.nets.checkpoint import CheckpointError
from pipeline.players.base import Player
from pipeline.players.discovery import DEFAULT_SOURCES, can_play, checkpoint_reach, choose_model
from pipeline.players.factory import PLAY_SECONDS, PROTOCOL_SIMULATIONS, SOLVED_HEX_SIDE, protocol_player
from pipeline.serve.clock import Clock

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
    "time_left",
    "time_settings",
    "undo",
    "version",
)
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
WARM_UP_SECONDS = 0.05  # the throwaway search when a board's bot is made


class HtpError(ValueError):
    pass


class SwapRuleError(ValueError):
    """The board size is one the model plays, the swap rule is not."""


def swap_rule_mismatch(model: Path, spec: GameSpec) -> str | None:
    """Why `model` cannot play `spec` when the swap rule alone is wrong, else None (a net
    trained with the swap rule also plays without it: only the other way is wrong)."""
    try:
        trained, size_free = checkpoint_reach(model)
    except CheckpointError:
        return None  # choose_model says what is wrong with the file
    if trained.game != spec.game or trained.swap == spec.swap or can_play(trained, size_free, spec):
        return None
    if not can_play(trained, size_free, spec.model_copy(update={"swap": trained.swap})):
        return None
    if trained.swap:
        return f"{model.name} was trained with the swap rule: start `zero htp` with --swap to play it"
    return f"{model.name} was trained without the swap rule: start `zero htp` without --swap to play it"


# A bot for a board and one line for the user saying which it is (empty: nothing to say);
# a ValueError when there is none for that board.
BoardPlayers = Callable[[GameSpec], tuple[Player, str]]


class HtpEngine:
    """The protocol around one bot: `player_for_board` gives the bot for a board; `say` shows
    a line to the user (stderr); `seconds` is a move's time without a clock (None: the bot's
    own budget alone)."""

    def __init__(
        self,
        player_for_board: BoardPlayers,
        size: int = 11,
        swap: bool = False,
        say: Callable[[str], None] | None = None,
        seconds: float | None = None,
    ):
        self.player_for_board = player_for_board
        self.swap = swap
        self.seconds = seconds
        self.time_settings: tuple[float, float, int] | None = None  # from `time_settings`
        self.clocks: dict[int, Clock] = {}  # by HTP colour, while there is a time limit
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.player: Player | None = None
        self.unplayable: str | None = None  # why the board has no bot
        self.moves: list[tuple[int, int]] = []  # (our player, action) of each stone, for undo
        try:
            self.set_size(size)
        except ValueError as exc:  # the engine runs: the GUI's `boardsize` may fix it
            self.spec = GameSpec(game="hex", size=size, swap=swap)
            self.state = self.spec.new_game()
            self.moves = []
            self.unplayable = str(exc)
            self.say(f"no bot for {self.spec}: {exc}")

    def set_size(self, size: int) -> None:
        """A new board with its bot, or a ValueError and nothing changed."""
        try:
            spec = GameSpec(game="hex", size=size, swap=self.swap)
        except ValidationError as exc:
            raise ValueError(describe_errors(exc)) from None
        player, note = self.player_for_board(spec)
        self.spec, self.player, self.unplayable = spec, player, None
        self.state: GameState = spec.new_game()
        self.moves = []
        if note:
            self.say(note)

    def bot(self) -> Player:
        if self.player is None:
            raise HtpError(self.unplayable or "no bot")
        return self.player

    def apply(self, action: int) -> None:
        """Play `action` for the player to move; the bot's tree follows the game."""
        mover = self.state.current_player
        self.state.apply(action)
        self.moves.append((mover, action))
        if not self.state.is_terminal and self.player is not None:
            self.player.observe(0, self.state, action)

    def place(self, player: int, action: int) -> None:
        """A stone of `player`, who is not to move (a position set up out of turn): the
        other player moves next, and the bot starts a new tree (a move list no longer
        names one position once stones come out of turn)."""
        self.state.place(action, player)
        self.moves.append((player, action))
        self.new_tree()

    def new_tree(self) -> None:
        if self.player is not None:
            self.player.start(self.spec, 1, 0)

    def replay(self, moves: list[tuple[int, int]]) -> None:
        """The board after `moves`, each stone for its own player, in or out of turn."""
        state = self.spec.new_game()
        for player, action in moves:
            state.place(action, player)
        self.state, self.moves = state, list(moves)

    def colour(self, text: str) -> int:
        try:
            return COLOURS[text.lower()]
        except KeyError:
            raise HtpError(f"unknown colour {text!r}") from None

    def move_name(self, history: list[int], player: int, action: int) -> str:
        return to_htp(self.spec, history, player, action)[1]

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
            self.boardsize(args)
            return ""
        if command == "time_settings":
            self.set_time(args)
            return ""
        if command == "time_left":
            self.time_left(args)
            return ""
        if command == "clear_board":
            self.reset_clocks()
            self.replay([])
            self.new_tree()
            return ""
        if command == "play":
            if len(args) < 2:
                raise HtpError("play needs a colour and a move")
            colour = self.colour(args[0])
            if self.state.is_terminal:
                raise HtpError("the game is over")
            player, action = from_htp(self.spec, self.state.history, colour, args[1])
            if player == self.state.current_player:
                self.apply(action)
            else:  # out of turn: the stone for that colour, the other to move
                self.place(player, action)
            return ""
        if command == "genmove":
            if not args:
                raise HtpError("genmove needs a colour")
            colour = self.colour(args[0])
            self.check_turn(colour)
            if self.state.is_terminal:
                return "resign"
            started = time.perf_counter()
            thought = self.bot().think(self.state, seconds=self.move_seconds(colour))
            if colour in self.clocks:
                self.clocks[colour].spent(time.perf_counter() - started)
            history, player = list(self.state.history), self.state.current_player
            self.apply(thought.action)
            return self.move_name(history, player, thought.action)
        if command == "undo":
            if not self.moves:
                raise HtpError("nothing to undo")
            out_of_turn = self.out_of_turn()
            self.replay(self.moves[:-1])
            if out_of_turn:
                self.new_tree()
            return ""
        if command == "showboard":
            return "\n" + self.render()
        raise HtpError(f"unknown command {command!r}")

    def set_time(self, args: list[str]) -> None:
        """`time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES` (seconds, seconds, stones)."""
        try:
            main, period, stones = float(args[0]), float(args[1]), int(args[2])
            Clock.settings(main, period, stones)
        except (IndexError, ValueError):
            raise HtpError("time_settings needs main time, byo-yomi time and byo-yomi stones") from None
        self.time_settings = (main, period, stones)
        self.reset_clocks()

    def reset_clocks(self) -> None:
        """Both colours' clocks at the settings (a new game), or none without a limit."""
        self.clocks = {}
        if self.time_settings is not None:
            for colour in (0, 1):
                clock = Clock.settings(*self.time_settings)
                if clock is not None:
                    self.clocks[colour] = clock

    def time_left(self, args: list[str]) -> None:
        """`time_left COLOUR SECONDS STONES`: the controller's reading of a colour's clock."""
        if len(args) < 3:
            raise HtpError("time_left needs a colour, seconds and stones")
        colour = self.colour(args[0])
        try:
            seconds, stones = float(args[1]), int(args[2])
        except ValueError:
            raise HtpError("time_left needs a colour, seconds and stones") from None
        clock = self.clocks.get(colour)
        if clock is None:  # a controller that never sent time_settings: a clock from its readings
            clock = self.clocks[colour] = Clock(main=seconds if stones == 0 else 0.0)
        try:
            clock.report(seconds, stones)
        except ValueError as exc:
            raise HtpError(str(exc)) from None

    def move_seconds(self, colour: int) -> float | None:
        """The time `colour`'s next move may take: its clock's share, else the engine's own."""
        clock = self.clocks.get(colour)
        if clock is None:
            return self.seconds
        return clock.move_seconds(int((self.state.board() == 0).sum()))

    def boardsize(self, args: list[str]) -> None:
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
            self.reset_clocks()
        except SwapRuleError as exc:  # the size is right, the rule is not
            raise HtpError(str(exc)) from None
        except ValueError as exc:
            raise HtpError(f"unacceptable size: {exc}") from None

    def out_of_turn(self) -> bool:
        """Whether any stone of the game was placed out of turn."""
        return any(player != i % 2 for i, (player, _) in enumerate(self.moves))

    def check_turn(self, colour: int) -> None:
        """HTP's colours: after `swap-pieces` the players have exchanged them."""
        to_move = htp_colour_to_move(self.state)
        if colour != to_move:
            raise HtpError(f"it is {'black' if to_move == 0 else 'white'}'s turn")

    def render(self) -> str:
        n = self.spec.height
        board = htp_board(self.state)
        cols = " ".join(chr(ord("a") + c) for c in range(n))
        lines = ["  " + cols]
        for r in range(n):
            cells = " ".join(".XO"[board[r][c]] for c in range(n))
            lines.append(f"{' ' * r}{r + 1:>2} {cells}")
        return "\n".join(lines)


def run_htp(
    model: Path | None = None,
    size: int = 11,
    swap: bool = False,
    simulations: int | None = None,
    playouts: int = 20_000,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
    sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES,
    seconds: float | None = PLAY_SECONDS,
) -> None:
    """`zero htp`: for each board, the given model, else the pretrained model or the
    champion that fits (see `choose_model`), else pure MCTS; notes go to `stderr`. A move
    takes at most `seconds` (None: its simulations alone) unless `time_settings` says
    otherwise. `simulations` None: past 8x8 the net thinks for the whole of that time (by
    time, as the brain), on 7x7 and 8x8 at most PROTOCOL_SIMULATIONS; a number: at
    most that many on every board."""

    def player_for_board(spec: GameSpec) -> tuple[Player, str]:
        mismatch = model and swap_rule_mismatch(model, spec)
        if mismatch:
            raise SwapRuleError(mismatch)
        choice = choose_model(spec, model, sources)
        timed = simulations is None and spec.width > SOLVED_HEX_SIDE
        player = protocol_player(
            spec, choice.path, simulations=simulations or PROTOCOL_SIMULATIONS, playouts=playouts, timed=timed
        )
        # A throwaway first search, off the clock (as the brain's): loading the compiled
        # search and solver and the net's first forward made the first move of a process
        # take seconds past its time.
        player.think(spec.new_game(), budget=1, seconds=WARM_UP_SECONDS)
        player.start(spec, 1, 0)
        return player, (choice.note if choice.path else f"{choice.note}, {playouts} playouts a move")

    def say(line: str) -> None:
        stderr.write(line + "\n")
        stderr.flush()

    htp = HtpEngine(player_for_board, size, swap, say, seconds)
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
