"""Playing a tournament's games: a chunk of one pairing's games in lockstep (in this
process or in a worker), and the chunks in parallel on spawned worker processes.

A chunk plays whole openings through `pipeline.match.arena.play_lockstep`; a game of an
opening that is not the chunk's (its other colour already kept) is forfeited at its first
move by `Selected` and dropped, so no game is played twice. Each finished game is reported
at once as a row of the games file; from a worker it goes through a queue to the parent,
the only writer. A stop (a signal, the parent's stop event) ends each chunk at its next
move."""

from __future__ import annotations

import multiprocessing
import queue as queues
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Any

from pipeline.games.base import GameSpec, GameState
from pipeline.match.arena import GameRecord, PlayerDropped, play_lockstep, warm_up
from pipeline.match.game_records import game_dict
from pipeline.players.base import Forfeit, Player, Thought
from pipeline.players.factory import make_player, play_search
from pipeline.runtime import interrupt

SKIPPED = "not this run's game"  # the forfeit that ends a game a chunk does not play
STOP_WAIT = 3.0  # seconds a stop waits for the workers' chunks to end (the hard stop comes at 8)

Row = dict[str, Any]


class Selected:
    """A player that plays only some games of a lockstep match: any other game it forfeits
    at its first move (the arena then finishes it, and nobody keeps it)."""

    def __init__(self, inner: Player, skip: set[int]):
        self.inner = inner
        self.name = inner.name
        self.skip = skip

    def __getattr__(self, attr: str) -> Any:  # `proven`, `reasons`, ... of the player inside
        return getattr(self.inner, attr)

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.inner.start(spec, games, seed)

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        if not self.skip.intersection(games):
            return self.inner.choose(games, states)
        reasons = {g: SKIPPED for g in games if g in self.skip}
        rest = [(g, s) for g, s in zip(games, states, strict=True) if g not in self.skip]
        moves: dict[int, int] = {}
        drop = None
        if rest:
            try:
                chosen = self.inner.choose([g for g, _ in rest], [s for _, s in rest])
                moves = {g: a for (g, _), a in zip(rest, chosen, strict=True)}
            except Forfeit as forfeit:
                moves, drop = dict(forfeit.moves), forfeit.drop
                reasons.update(forfeit.reasons)
        raise Forfeit(reasons, moves, drop)

    def observe(self, game: int, state: GameState, action: int) -> None:
        self.inner.observe(game, state, action)

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        """A move by time (`play_lockstep` with `seconds`): a game not played here is
        forfeited, as by `choose`."""
        if game in self.skip:
            raise Forfeit({game: SKIPPED})
        return self.inner.think(state, budget, seconds, game)


def play_chunk(job: dict[str, Any], report: Callable[[Row], None], should_stop: Callable[[], bool]) -> dict[str, Any]:
    """Play a chunk's games, `report` each finished one as a row of the games file.
    Returns {"played": n, "stopped": bool, "dropped": why an engine left, or ""}."""
    spec = GameSpec.model_validate(job["game"])
    seconds = job.get("seconds")
    search = play_search(spec, job["simulations"], seconds)
    (a, a_text), (b, b_text) = job["player"], job["opponent"]
    pairs: list[int] = job["pairs"]
    wanted = set(job["indices"])
    local = {g: 2 * pairs[g // 2] + g % 2 for g in range(2 * len(pairs))}  # lockstep game -> index
    skip = {g for g, index in local.items() if index not in wanted}
    inner = [make_player(text, spec, search, name=name, seconds=seconds) for name, text in ((a, a_text), (b, b_text))]
    for p, name in zip(inner, (a, b), strict=True):
        p.name = name  # random and engines take no name from make_player
    player, opponent = (Selected(p, skip) for p in inner)
    played = 0

    def finished(record: GameRecord) -> None:
        nonlocal played
        if record.index in skip:
            return
        index = local[record.index]
        record = replace(record, index=index, pair=index // 2)
        report({"player": a, "opponent": b, "index": index, **game_dict(spec, record, a, b)})
        played += 1

    outcome = {"played": 0, "stopped": False, "dropped": ""}
    try:
        if seconds is not None:
            warm_up(spec, *inner)
        play_lockstep(
            spec,
            player,
            opponent,
            job["openings"],
            job["seed"],
            on_game_end=finished,
            seconds=seconds,
            should_stop=should_stop,  # asked between moves: the games stop there
        )
    except interrupt.Interrupted:
        outcome["stopped"] = True
    except PlayerDropped as exc:
        outcome["dropped"] = f"{a} vs {b}: {exc}"
    finally:
        for p in inner:
            close = getattr(p, "close", None)
            if close is not None:
                with suppress(Exception):
                    close()
    outcome["played"] = played
    return outcome


_queue: Any = None  # a worker process's channel to the parent
_stop: Any = None  # the parent's stop event
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _worker_init(channel: Any, stop: Any) -> None:
    global _queue, _stop
    _queue, _stop = channel, stop
    interrupt.install_in_worker()  # from now on a signal stops this worker's games at their next move
    import torch

    torch.set_num_threads(1)  # one core a worker: the workers share the machine


def _worker_should_stop() -> bool:
    return interrupt.requested() or _stop.is_set()


def _worker_chunk(job: dict[str, Any], task: int) -> dict[str, Any]:
    if _worker_should_stop():  # a task not begun when the stop came
        return {"played": 0, "stopped": True, "dropped": "", "task": task}
    outcome = play_chunk(job, lambda row: _queue.put((task, row)), _worker_should_stop)
    return {**outcome, "task": task}


@contextmanager
def signals_ignored() -> Iterator[None]:
    """The stop signals ignored while worker processes start: they inherit that through
    exec and so cannot die of a Ctrl-C (with a traceback) while still importing, before
    their own handler is in place; the parent's stop event reaches them instead. A signal
    to this process in these few milliseconds is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


def play_in_pool(
    jobs: list[dict[str, Any]], workers: int, keep: Callable[[Row], None], should_stop: Callable[[], bool]
) -> list[str]:
    """The chunks on `workers` spawned processes, each finished game given to `keep` as
    it comes back through a queue; returns why engines left their pairings. On a stop
    the workers' chunks end at their next move (the tasks not begun return at once);
    workers still busy after STOP_WAIT seconds (one still importing torch on a loaded
    machine) are terminated. A task that failed raises here, after the others stopped."""
    workers = min(workers, len(jobs))
    context = multiprocessing.get_context("spawn")
    with signals_ignored():
        channel, stop = context.Queue(), context.Event()
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_init, initargs=(channel, stop))
        pending: dict[Future, int] = {pool.submit(_worker_chunk, job, i): i for i, job in enumerate(jobs)}
    received: dict[int, int] = {}
    results: list[dict[str, Any]] = []
    failure: Exception | None = None
    deadline: float | None = None  # when a stop gives up on the workers

    def drain(wait: float) -> None:
        with suppress(queues.Empty):
            task, row = channel.get(timeout=wait)
            while True:
                received[task] = received.get(task, 0) + 1
                keep(row)
                task, row = channel.get_nowait()

    try:
        while pending:
            drain(0.2)
            if deadline is None and (should_stop() or failure is not None):
                stop.set()  # every task ends at its next move, or at once if not begun
                deadline = time.monotonic() + STOP_WAIT
            for future in [f for f in pending if f.done()]:
                pending.pop(future)
                try:
                    results.append(future.result())
                except Exception as exc:  # a worker that failed, or one terminated in the stop
                    failure = failure or exc
            if deadline is not None and time.monotonic() > deadline:
                break
        # The rows a task reported may still be on their way when its result is in.
        for _ in range(20):
            if all(received.get(r["task"], 0) >= r["played"] for r in results):
                break
            drain(0.1)
        drain(0.0)
    finally:
        if pending:
            for process in list(getattr(pool, "_processes", {}).values()):
                with suppress(Exception):
                    process.terminate()
        pool.shutdown(wait=not pending)
    if failure is not None and not should_stop():
        raise failure
    return [r["dropped"] for r in results if r["dropped"]]
