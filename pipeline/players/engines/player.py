"""An external engine as a player (the one bot interface of `pipeline/players/base.py`).

Each game in flight gets its own engine process (at most `processes`, then games share
them round-robin and the board is sent whole when it changes game); a new round of the
match reuses the processes with RESTART (Gomocup) or clear_board (HTP). The moves of all
games are asked at once and answered in parallel.

A fault (illegal move, garbage, silence beyond the time per move plus the grace, a dead
process) loses that game by forfeit: `choose` raises `Forfeit` with the reason and the
moves of the other games; the faulty process is killed and the next game gets a fresh
one. After `max_faults` faults the player asks to be dropped from the match.

A setup error (the engine refused the swap or a setup line, its log cannot be written) is
no fault: `EngineSetupError` leaves `choose` (and `start`, `think`) with what to change,
the processes are closed, and the player keeps refusing (`setup_error`) until closed; the
match stops and nothing more is scored.

Every process's stderr is kept whole in its own log file (`logs`, in the order the
processes started; `log_path` the latest), under the config's `log_dir`; a fault's reason
names the file. `close()` (or leaving a `with` block) tells every engine goodbye (END,
quit) and waits a moment for them to exit before stopping them."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.players.base import Forfeit, Thought
from pipeline.players.engines.config import EngineConfig
from pipeline.players.engines.gomocup import GomocupSession
from pipeline.players.engines.htp import HtpSession, Resigned
from pipeline.players.engines.process import EngineFault, EngineSetupError, close_all
from pipeline.players.engines.session import Session

SESSIONS: dict[str, type[Session]] = {"gomocup": GomocupSession, "htp": HtpSession}


class EnginePlayer:
    """An external engine as a player. Attributes for front ends:

    - `logs`: the log file of every process started, in order (each keeps that process's
      stderr whole, between `[zero]` lines naming the command and how it ended);
      `log_path` is the latest, None before any started;
    - `reasons`: every fault, in order (each naming its log file);
    - `setup_error`: why the match cannot go on as set up (also raised as
      `EngineSetupError`), or None."""

    def __init__(self, config: EngineConfig):
        config.check_runnable()
        self.config = config
        self.name = config.label
        self.spec: GameSpec | None = None
        self.slots: list[Session | None] = []
        self.faults = 0
        self.reasons: list[str] = []  # every fault, in order
        self.logs: list[Path] = []  # every process's stderr log, in the order they started
        self.setup_error: str | None = None
        self.lock = threading.Lock()  # `think` may come from several threads (the web app)

    # ---- processes -------------------------------------------------------------------
    def _open(self, i: int) -> Session:
        """Slot i's session, a fresh process with a new board if it has none."""
        session = self.slots[i]
        if session is None or not session.process.alive:
            if session is not None:
                session.close()
            assert self.spec is not None
            session = SESSIONS[self.config.protocol](self.config, self.spec)
            self.logs.append(session.process.log_path)
            self.slots[i] = session
            session.new_board()
        return session

    @property
    def log_path(self) -> Path | None:
        """The latest process's stderr log (None before any started); `logs` has them all."""
        return self.logs[-1] if self.logs else None

    def _fault(self, i: int, fault: EngineFault) -> str:
        session = self.slots[i]
        reason = fault.reason
        if session is not None:
            session.close()
            if not isinstance(fault, Resigned):
                reason += f" (engine log: {session.process.log_path})"
        self.slots[i] = None
        if not isinstance(fault, Resigned):
            self.faults += 1
            self.reasons.append(reason)
        return reason

    def _setup_failed(self, error: EngineSetupError) -> EngineSetupError:
        self.close()
        self.setup_error = str(error)
        return error

    def _drop(self) -> str | None:
        if self.faults < self.config.max_faults:
            return None
        self.close()
        return (
            f"{self.name} dropped after {self.faults} faults (max_faults {self.config.max_faults}); "
            f"the last: {self.reasons[-1]}"
        )

    def close(self) -> None:
        """End every engine process, each told goodbye (END, quit) and given
        `GOODBYE_SECONDS` to exit, all at once, before it is stopped. The player can start
        again later; a setup error is forgotten."""
        with contextlib.suppress(Exception):
            close_all([s.process for s in self.slots if s is not None])
        self.slots = []
        self.setup_error = None

    def __enter__(self) -> EnginePlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the bot interface -----------------------------------------------------------
    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        try:
            self._start(spec, games)
        except EngineSetupError as error:
            raise self._setup_failed(error) from None

    def _start(self, spec: GameSpec, games: int) -> None:
        self.config.check_game(spec)
        if spec != self.spec:
            self.close()
            self.spec = spec
        wanted = max(1, min(games, self.config.processes or games))
        self.slots += [None] * (wanted - len(self.slots))
        for i in range(wanted):  # every process starts (or restarts) at once, in parallel
            session = self.slots[i]
            try:
                if session is not None and session.process.alive:
                    session.new_board()
                else:
                    self._open(i)
            except EngineFault:  # counted as a fault when a game asks this slot for a move
                if self.slots[i] is not None:
                    self.slots[i].close()  # type: ignore[union-attr]
                self.slots[i] = None

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        if self.setup_error:
            raise EngineSetupError(self.setup_error)
        try:
            return self._choose(games, states)
        except EngineSetupError as error:
            raise self._setup_failed(error) from None

    def _choose(self, games: list[int], states: list[GameState]) -> list[int]:
        drop = self._drop()
        if drop:
            raise Forfeit(dict.fromkeys(games, drop), {}, drop)
        if not self.slots:
            assert states, "start() first"
            self._start(states[0].spec, max(games) + 1)
        moves: dict[int, int] = {}
        reasons: dict[int, str] = {}
        queues: dict[int, list[tuple[int, GameState]]] = defaultdict(list)
        for g, s in zip(games, states, strict=True):
            queues[g % len(self.slots)].append((g, s))
        while any(queues.values()):  # waves: one game per process at a time
            wave = [(i, *queues[i].pop(0)) for i in sorted(queues) if queues[i]]
            asked = []
            for i, g, s in wave:
                try:
                    self._open(i).ask(s)
                    asked.append((i, g, s))
                except EngineFault as fault:
                    reasons[g] = self._fault(i, fault)
            for i, g, s in asked:
                session = self.slots[i]
                assert session is not None
                try:
                    moves[g] = session.answer(s)
                except EngineFault as fault:
                    reasons[g] = self._fault(i, fault)
        if reasons:
            raise Forfeit(reasons, moves, self._drop())
        return [moves[g] for g in games]

    def observe(self, game: int, state: GameState, action: int) -> None:
        """Nothing to do: the engine learns the moves when it is next asked."""

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        """The engine's move at its own limits (`budget` and `seconds` are not passed on:
        the engine plays as configured)."""
        if state.is_terminal:
            raise ValueError("the game is over")
        with self.lock:
            if self.spec != state.spec or not self.slots:
                self.start(state.spec, game + 1, 0)
            begin = time.perf_counter()
            action = self.choose([game], [state])[0]
        zeros = np.zeros(state.spec.num_actions, dtype=np.float32)
        return Thought(action, zeros, 0.0, 0, time.perf_counter() - begin)
