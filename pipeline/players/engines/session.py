"""What both protocol clients share: one engine process holding one board, commands sent
ahead (pipelined) and their answers read in order, each within its own time: an answer's
clock starts when its command was sent or when the previous answer came, whichever is
later, since an engine answers its commands one after the other."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pipeline.games.base import GameSpec, GameState
from pipeline.players.engines.config import EngineConfig
from pipeline.players.engines.process import EngineFault, EngineProcess, EngineSetupError


@dataclass
class Expect:
    what: str  # what the answer is for, as a reason names it ("a move", "OK to START")
    seconds: float  # its time
    sent: float  # time.monotonic() when its command went out
    command: str = ""  # the command (HTP: a refused `play` or setup line is quoted)


class Session:
    """A protocol over one process: `new_board()` at the start of each match round,
    `ask(state)` to bring the engine to `state` and ask for its move, then `answer(state)`
    for the move (an action of `state`), checked against the rules."""

    goodbye = ""  # the line that asks the engine to quit

    def __init__(self, config: EngineConfig, spec: GameSpec):
        self.config = config
        self.spec = spec
        self.process = EngineProcess(config.argv, config.label, config.log_dir, self.goodbye)
        self.pending: list[Expect] = []
        self.known: list[int] | None = None  # the moves on the engine's board; None: no board yet
        self.last = time.monotonic()  # when the last answer came

    def expect(self, what: str, seconds: float, command: str = "") -> None:
        self.pending.append(Expect(what, seconds, time.monotonic(), command))

    def deadline(self, e: Expect) -> float:
        return max(e.sent, self.last) + e.seconds

    def answered(self) -> None:
        self.last = time.monotonic()

    @property
    def move_seconds(self) -> float:
        return self.config.turn_seconds + self.config.grace_seconds

    def check_move(self, state: GameState, action: int, said: str) -> int:
        if not (0 <= action < state.spec.num_actions) or not state.legal_mask()[action]:
            raise EngineFault(f"illegal move {said}")
        return action

    def close(self) -> None:
        """Goodbye (END, quit), a bounded wait for the exit, then the process is stopped."""
        self.process.close()

    def setup_error(self, what: str) -> EngineSetupError:
        """A setup error of the match, naming the engine and its log."""
        return EngineSetupError(f"{self.config.label}: {what} (engine log: {self.process.log_path})")

    # The protocols fill these in.
    def new_board(self) -> None:
        raise NotImplementedError

    def ask(self, state: GameState) -> None:
        raise NotImplementedError

    def answer(self, state: GameState) -> int:
        raise NotImplementedError
