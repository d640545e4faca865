"""HTP, the GTP dialect of Hex engines (MoHex, HexGui), as the controller speaks it. Each
command is answered `= result` or `? error` and an empty line. A board is `boardsize N`
and `clear_board`; the time per move is offered as `time_settings 0 T 1` (an engine that
does not know it may refuse); with `swap` set, the swap rule's setting
(`HTP_SWAP_SETTING`, what MoHex reads) and then the config's `setup` lines (engine options
such as `param_mohex max_games 1000`) follow, once per process. Moves are `play b|w CELL`
and `genmove b|w`; a cell is a column letter and a row number from 1 at the top (a1 is the
top-left); the swap is
`swap-pieces`, with HTP's meaning (board unchanged, colours exchanged, white to move:
`pipeline.games.htp_frame` maps every move between that frame and ours). An answer
`resign` loses the game; `? ...` to a move we pass on, garbage, an illegal move or
silence is a fault. A refused `swap-pieces`, swap setting or setup line is an
`EngineSetupError`: the match is not what it was meant to be, so it stops (not a forfeit,
which would score the engine's misconfiguration as our win)."""

from __future__ import annotations

import re

from pipeline.games.base import GameState, IllegalMoveError
from pipeline.games.htp_frame import from_htp, htp_colour_to_move, to_htp
from pipeline.players.engines.config import HTP_SWAP_SETTING
from pipeline.players.engines.process import EngineFault, shown
from pipeline.players.engines.session import Session

ANSWER = re.compile(r"^([=?])(\d*)\s*(.*)$")
CELL = re.compile(r"^([a-z]\d{1,2}|swap|swap-pieces)$")
COLOURS = ("b", "w")
SWAP_SETTING = "the swap setting"
SETUP_LINE = "an answer to a setup command"


class Resigned(EngineFault):
    """The engine resigned: a lost game, not a fault."""


class HtpSession(Session):
    goodbye = "quit"

    def command(self, line: str, what: str, seconds: float | None = None) -> None:
        self.process.send(line)
        self.expect(what, self.config.startup_seconds if seconds is None else seconds, line)

    def new_board(self) -> None:
        first = self.known is None
        if first:  # once per process: an engine may rebuild itself for a new size
            self.command(f"boardsize {self.spec.width}", "an answer to boardsize")
        self.command("clear_board", "an answer to clear_board")
        if first:
            turn = max(1, round(self.config.turn_seconds))
            self.command(f"time_settings 0 {turn} 1", "optional")
            if self.config.swap is not None:
                self.command(HTP_SWAP_SETTING.format(value=int(self.config.swap)), SWAP_SETTING)
            for line in self.config.setup:
                self.command(line, SETUP_LINE)
        self.known = []

    def ask(self, state: GameState) -> None:
        history = state.history
        known = self.known or []
        if history[: len(known)] != known:  # another game on this process
            self.command("clear_board", "an answer to clear_board")
            known = []
        replay = self.spec.new_game()
        for i, action in enumerate(history):
            if i >= len(known):
                colour, name = to_htp(self.spec, replay.history, replay.current_player, action)
                self.command(f"play {COLOURS[colour]} {name}", "an answer to play")
            replay.apply(action)
        self.known = list(history)
        self.command(f"genmove {COLOURS[htp_colour_to_move(state)]}", "move", self.move_seconds)

    def read_answer(self, what: str, deadline: float) -> tuple[bool, str]:
        """(accepted, text) of the next answer; blank lines between answers are skipped."""
        while True:
            line = self.process.read_line(deadline, what)
            if line.strip():
                break
        match = ANSWER.match(line.strip())
        if match is None:
            raise EngineFault(f"malformed answer {shown(line)} (expected = or ?)")
        text = [match[3]]
        while True:  # the answer goes on until an empty line
            more = self.process.read_line(deadline, what)
            if not more.strip():
                break
            text.append(more)
        return match[1] == "=", "\n".join(text).strip()

    def refused_setup(self, what: str, command: str, text: str) -> None:
        """An `EngineSetupError` when what was refused is the match's setup, not a move."""
        said = f"{shown(command)} answered {shown('? ' + text)}"
        on = shown(HTP_SWAP_SETTING.format(value=1))
        if command.split()[-1:] == ["swap-pieces"]:
            raise self.setup_error(
                f"the engine refused the swap ({said}): it plays without the swap rule as set up; "
                f"tell it the rule is on with htp[swap=1]:COMMAND (sends {on}, as MoHex needs) "
                "or, for an engine set another way, with its own line in setup=LINE"
            )
        if what == SWAP_SETTING:
            raise self.setup_error(
                f"the engine refused the swap setting ({said}); an engine that sets the swap rule "
                "another way takes its own line in setup=LINE instead of swap="
            )
        if what == SETUP_LINE:
            raise self.setup_error(f"the engine refused a setup line ({said})")

    def answer(self, state: GameState) -> int:
        while self.pending:
            expect = self.pending.pop(0)
            accepted, text = self.read_answer(expect.what, self.deadline(expect))
            self.answered()
            if expect.what == "optional":
                continue
            if not accepted:
                self.refused_setup(expect.what, expect.command, text)
                raise EngineFault(f"refused {shown(expect.command)}: {shown(text)}")
            if expect.what != "move":
                continue
            word = text.lower()
            if word == "resign":
                raise Resigned("resigned")
            if not CELL.match(word):
                raise EngineFault(f"malformed answer {shown(text)} (expected a cell like a1)")
            try:
                _, action = from_htp(self.spec, state.history, htp_colour_to_move(state), word)
            except IllegalMoveError as exc:
                raise EngineFault(f"illegal move {exc}") from None
            action = self.check_move(state, action, f"{text}: not a legal move here")
            self.known = [*state.history, action]
            return action
        raise EngineFault("no move was asked")
