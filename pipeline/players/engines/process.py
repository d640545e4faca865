"""One engine process: lines to its stdin, lines from its stdout with a deadline. A
thread reads stdout into a queue, so a silent engine never blocks the match; whatever
goes wrong (no answer in time, the process gone) is an `EngineFault` naming the cause.

Its stderr goes whole to a log file, `LOG_DIR/LABEL-YYYYmmdd-HHMMSS-pidPID.log` (`log_path`),
opened by a `[zero]` line with the command and closed by one saying how it ended. Closed,
it is told goodbye (END, quit) and given `GOODBYE_SECONDS` to exit on its own (a brain may
save what it learnt), then stopped (SIGTERM, then SIGKILL, to its process group)."""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
import weakref
from datetime import datetime
from pathlib import Path

MAX_LINE = 10_000  # a longer line is garbage, not an answer
GOODBYE_SECONDS = 2.0  # an engine's time to exit after END/quit before it is stopped
STOP_SECONDS = 1.0  # after SIGTERM, before SIGKILL
MARK = "[zero] "  # our own lines in an engine's log (the rest is the engine's stderr)
_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()
_COUNT = itertools.count()


class EngineFault(Exception):
    """The engine broke the protocol or its limits; `reason` is what the games table says."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class EngineSetupError(Exception):
    """The engine cannot play this match as it was set up: it refused the swap, the swap
    setting or a setup line, or its log cannot be written. Not a forfeit: the match stops
    with this message (which says what to change) and nothing more is scored."""


def shown(text: str, limit: int = 60) -> str:
    """A line as quoted in a reason: short and printable."""
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def log_stem(label: str) -> str:
    """A file name's worth of an engine's label: its protocol and words, the folders of
    paths and the bracketed options dropped (`htp-mohex-seed-1`)."""
    text_form = re.match(r"^(\w+)(?:\[[^\]]*\])?:(.*)$", label, re.DOTALL)
    words = [text_form[1], *text_form[2].split()] if text_form else label.split()
    words = [w.rstrip("/").rsplit("/", 1)[-1] for w in words]
    return re.sub(r"[^A-Za-z0-9._]+", "-", "-".join(words)).strip("-._")[:60] or "engine"


class EngineProcess:
    def __init__(self, argv: list[str], label: str = "", log_dir: str | Path = "engine-logs", goodbye: str = ""):
        self.argv = argv
        self.goodbye = goodbye  # the line that asks it to quit (END, quit)
        self.farewell: float | None = None  # when the goodbye was said
        self.closed = False
        folder = Path(log_dir)
        stem = f"{log_stem(label or shlex.join(argv))}-{datetime.now():%Y%m%d-%H%M%S}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.log_path = folder / f"{stem}-starting-{os.getpid()}-{next(_COUNT)}.log"
            self.log = self.log_path.open("ab")
            self._note(f"{label or 'engine'}: {shlex.join(argv)}")
        except OSError as exc:
            raise EngineSetupError(
                f"{label or argv[0]}: cannot write its log in {str(folder)!r}: {exc.strerror or exc}"
            ) from None
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                text=True,
                bufsize=1,
                errors="replace",
                start_new_session=True,  # a Ctrl-C meant for us does not kill it mid-answer
            )
        except OSError as exc:
            self.log.close()
            self.log_path.unlink(missing_ok=True)
            raise EngineFault(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        named = folder / f"{stem}-pid{self.proc.pid}.log"
        if not named.exists():
            with contextlib.suppress(OSError):
                self.log_path = self.log_path.rename(named)  # the engine writes on: the file is the same
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name=f"engine-{self.proc.pid}").start()
        _LIVE.add(self)

    def _note(self, text: str) -> None:
        """One line of ours in the log."""
        with contextlib.suppress(OSError, ValueError):
            self.log.write(f"{MARK}{text}\n".encode(errors="replace"))
            self.log.flush()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        with contextlib.suppress(ValueError, OSError):
            for line in stdout:
                self.lines.put(line[:MAX_LINE].rstrip("\r\n"))
        self.lines.put(None)  # end of output: the process is gone (or closed stdout)

    def exited(self) -> str:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "the engine closed its output"
        words = self.last_words()
        return f"the engine exited (code {code})" + (f": {shown(words, 200)}" if words else "")

    def last_words(self) -> str:
        """The last line it wrote to stderr (a traceback's last line says what went wrong;
        the whole of it is in `log_path`)."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(max(0, log.seek(0, 2) - 4000))
                lines = log.read().decode(errors="replace").splitlines()
        except OSError:
            return ""
        said = [line for line in lines if line.strip() and not line.startswith(MARK)]
        return said[-1] if said else ""

    def send(self, *lines: str) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            for line in lines:
                stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFault(self.exited()) from None

    def read_line(self, deadline: float, waiting_for: str) -> str:
        """The next line, by `deadline` (time.monotonic())."""
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineFault(f"no {waiting_for} in time") from None
        if line is None:
            self.lines.put(None)  # every later read sees the end too
            raise EngineFault(self.exited())
        return line

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def say_goodbye(self) -> None:
        """Send the goodbye line (once) and close its input; `close` waits for the exit."""
        if self.farewell is not None or self.closed:
            return
        self.farewell = time.monotonic()
        if self.goodbye and self.alive:
            with contextlib.suppress(EngineFault):
                self.send(self.goodbye)
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # end of input: the other way to say it

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)  # its own session: its children go too

    def close(self, seconds: float = GOODBYE_SECONDS) -> None:
        """Say goodbye (END, quit), wait up to `seconds` after it for the exit, then stop it:
        SIGTERM, and SIGKILL `STOP_SECONDS` later."""
        if self.closed:
            return
        self.say_goodbye()
        assert self.farewell is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=max(0.0, self.farewell + seconds - time.monotonic()))
        ended = f"exited (code {self.proc.returncode})"
        if self.alive:
            ended = f"stopped: no exit within {seconds:g}s of {self.goodbye or 'the end of its input'!r}"
            self._signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=STOP_SECONDS)
        if self.alive:
            self._signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        self._note(ended)
        for pipe in (self.proc.stdin, self.proc.stdout, self.log):
            with contextlib.suppress(OSError, ValueError):
                if pipe is not None:
                    pipe.close()
        self.closed = True
        _LIVE.discard(self)


def close_all(processes: list[EngineProcess], seconds: float = GOODBYE_SECONDS) -> None:
    """Close several processes at once: every goodbye is said first, so they all exit (or
    run out of time) together."""
    for process in processes:
        process.say_goodbye()
    for process in processes:
        process.close(seconds)


@atexit.register
def _close_all() -> None:
    """No engine outlives the program that started it; each is told goodbye first (a
    front end that never closed its player still lets the engine save)."""
    close_all(list(_LIVE))
