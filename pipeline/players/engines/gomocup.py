"""The Gomocup (Piskvork) brain protocol, as the manager speaks it. A board is `START N`
(`RECTSTART W,H` when not square) answered `OK`, then `INFO` lines (no answer); the
engine's move is asked by `BEGIN` (empty board), `TURN x,y` (the opponent's move, when
the engine's board is one move behind) or `BOARD` ... `DONE` (the whole position, stones
in the order played, 1 = the engine's, 2 = the opponent's). A move is `x,y`: x the column,
y the row, both from 0 at the top left. `MESSAGE` and `DEBUG` lines are skipped; `ERROR`,
`UNKNOWN`, anything else, an illegal move or silence is a fault."""

from __future__ import annotations

import re

from pipeline.games.base import GOMOCUP_RULES, GameState
from pipeline.players.engines.process import EngineFault, shown
from pipeline.players.engines.session import Session

MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
CHATTER = ("MESSAGE", "DEBUG", "SUGGEST")


class GomocupSession(Session):
    goodbye = "END"

    def new_board(self) -> None:
        spec = self.spec
        if self.known is not None:
            self.process.send("RESTART")
            self.expect("OK to RESTART", self.config.startup_seconds)
        else:
            w, h = spec.width, spec.height
            self.process.send(f"START {w}" if w == h else f"RECTSTART {w},{h}")
            self.expect("OK to START", self.config.startup_seconds)
        info = [
            f"INFO timeout_turn {round(self.config.turn_seconds * 1000)}",
            "INFO timeout_match 0",
            f"INFO rule {GOMOCUP_RULES[spec.rules]}",
        ]
        if self.config.nodes is not None:
            info.append(f"INFO max_node {self.config.nodes}")
        self.process.send(*info, *self.config.setup)
        self.known = []

    def point(self, action: int) -> str:
        y, x = divmod(action, self.spec.width)
        return f"{x},{y}"

    def ask(self, state: GameState) -> None:
        history = state.history
        known = self.known
        if known is not None and not history and not known:
            self.process.send("BEGIN")
        elif known is not None and len(history) == len(known) + 1 and history[:-1] == known:
            self.process.send(f"TURN {self.point(history[-1])}")
        else:  # another game on this process, or an opening: the whole position
            to_move = len(history) % 2
            stones = [f"{self.point(a)},{1 if i % 2 == to_move else 2}" for i, a in enumerate(history)]
            self.process.send("BOARD", *stones, "DONE")
        self.expect("move", self.move_seconds)

    def answer(self, state: GameState) -> int:
        while self.pending:
            expect = self.pending.pop(0)
            while True:
                line = self.process.read_line(self.deadline(expect), expect.what)
                word = line.split(maxsplit=1)[0].upper() if line.strip() else ""
                if word in CHATTER or not word:
                    continue
                break
            self.answered()
            if word in ("ERROR", "UNKNOWN"):
                raise EngineFault(f"answered {shown(line)} (waiting for {expect.what})")
            if expect.what != "move":
                if word != "OK":
                    raise EngineFault(f"answered {shown(line)} instead of {expect.what}")
                continue
            match = MOVE.match(line)
            if match is None:
                raise EngineFault(f"malformed answer {shown(line)} (expected a move x,y)")
            x, y = int(match[1]), int(match[2])
            if not (0 <= x < self.spec.width and 0 <= y < self.spec.height):
                raise EngineFault(f"illegal move {x},{y}: off the {self.spec.width}x{self.spec.height} board")
            action = self.check_move(state, y * self.spec.width + x, f"{x},{y}: the cell is taken")
            self.known = [*state.history, action]
            return action
        raise EngineFault("no move was asked")  # a bug of ours, reported rather than hidden
