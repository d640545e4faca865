"""One engine process: lines to its stdin, lines from its stdout with a deadline. A
thread reads stdout into a queue, so a silent engine never blocks the match; whatever
goes wrong (no answer in time, the process gone) is an `EngineFault` naming the cause."""

from __future__ import annotations

import atexit
import contextlib
import queue
import subprocess
import tempfile
import threading
import time
import weakref

MAX_LINE = 10_000  # a longer line is garbage, not an answer
_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()


class EngineFault(Exception):
    """The engine broke the protocol or its limits; `reason` is what the games table says."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def shown(text: str, limit: int = 60) -> str:
    """A line as quoted in a reason: short and printable."""
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


class EngineProcess:
    def __init__(self, argv: list[str]):
        self.argv = argv
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the process; closed in close())
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                bufsize=1,
                errors="replace",
                start_new_session=True,  # a Ctrl-C meant for us does not kill it mid-answer
            )
        except OSError as exc:
            self.stderr.close()
            raise EngineFault(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name=f"engine-{self.proc.pid}").start()
        _LIVE.add(self)

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
        return f"the engine exited (code {code})" + (f": {shown(self.last_words(), 200)}" if self.last_words() else "")

    def last_words(self) -> str:
        """The last line it wrote to stderr (a traceback's last line says what went wrong)."""
        try:
            self.stderr.seek(max(0, self.stderr.seek(0, 2) - 2000))
            lines = self.stderr.read().decode(errors="replace").strip().splitlines()
        except (OSError, ValueError):
            return ""
        return lines[-1] if lines else ""

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

    def close(self, goodbye: str | None = None) -> None:
        """Say goodbye (END, quit), give it a moment, then kill it."""
        if self.alive and goodbye:
            with contextlib.suppress(EngineFault):
                self.send(goodbye)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)
        if self.alive:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        for pipe in (self.proc.stdin, self.proc.stdout, self.stderr):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        _LIVE.discard(self)


@atexit.register
def _close_all() -> None:
    """No engine outlives the program that started it."""
    for process in list(_LIVE):
        process.close()
