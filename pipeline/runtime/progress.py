"""Progress of the long stages, on stderr: a Rich bar on a terminal, and plain lines every
`interval` seconds otherwise (under `dvc repro` piped to a file, in CI logs; the
ZERO_PROGRESS_SECONDS variable sets it), so a run is never silent for minutes.
Thread-safe: self-play tasks on threads report into one bar."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO


def duration(seconds: float) -> str:
    """3s, 4m05s, 1h02m: short enough for a progress line."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def default_interval() -> float:
    """Seconds between plain progress lines: ZERO_PROGRESS_SECONDS, else 10."""
    try:
        return float(os.environ.get("ZERO_PROGRESS_SECONDS", "10"))
    except ValueError:
        return 10.0


class Progress:
    """`done` of `total` units with a description that a callback builds from the figures
    so far. `close()` ends the bar (or prints a last line).

    Rates and the ETA are measured from the first update that completes units on (the
    first games or steps): what came before it is start-up (imports, loading a model,
    compiling kernels), not the pace of the work."""

    def __init__(
        self,
        label: str,
        total: int,
        describe: Callable[[Progress], str],
        interval: float | None = None,
        stream: TextIO | None = None,
        rich: bool | None = None,
    ) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.figures: dict[str, float] = {}
        self.describe = describe
        self.interval = interval if interval is not None else default_interval()
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self._lock = threading.Lock()
        self._last_line = self.start
        # (time, done, figures) at the first update that completed units: rates start there.
        self._first: tuple[float, int, dict[str, float]] | None = None
        self._bar = None
        use_rich = self.stream.isatty() if rich is None else rich
        if use_rich:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=False,
            )
            self._task = self._bar.add_task(label, total=total, detail="")
            self._bar.start()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def _since_first(self) -> tuple[float, int, dict[str, float]] | None:
        """(seconds, units, figures at the start) since the first completed units, once
        more units have been completed after them; None before."""
        if self._first is None or self.done <= self._first[1]:
            return None
        at, done, figures = self._first
        return time.monotonic() - at, self.done - done, figures

    def rate(self, key: str) -> float:
        """A figure per second since the first completed units (until more are completed,
        since the start)."""
        since = self._since_first()
        if since is None:
            return self.figures.get(key, 0.0) / self.elapsed if self.elapsed > 0 else 0.0
        seconds, _, before = since
        return (self.figures.get(key, 0.0) - before.get(key, 0.0)) / seconds if seconds > 0 else 0.0

    def eta(self) -> str:
        """The time left at the pace since the first completed units ("?" until then)."""
        if self.done >= self.total:
            return "0s"
        since = self._since_first()
        if since is None:
            return "?"
        seconds, units, _ = since
        return duration(seconds / units * (self.total - self.done))

    def update(self, advance: int = 0, completed: int | None = None, **figures: float) -> None:
        """Add `advance` units (or set `completed`) and add to the named figures."""
        with self._lock:
            self.done = completed if completed is not None else self.done + advance
            for k, v in figures.items():
                self.figures[k] = self.figures.get(k, 0.0) + v
            if self._first is None and self.done > 0:
                self._first = (time.monotonic(), self.done, dict(self.figures))
            detail = self.describe(self)
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done, detail=detail)
                return
            now = time.monotonic()
            if now - self._last_line >= self.interval or self.done >= self.total:
                self._last_line = now
                self._line(detail)

    def set(self, **figures: float) -> None:
        """Replace figures (a loss, not a count) without advancing."""
        with self._lock:
            self.figures.update(figures)

    def _line(self, detail: str) -> None:
        self.stream.write(f"{self.label}: {self.done}/{self.total} {detail}\n")
        self.stream.flush()

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.stop()
                self._bar = None


_current: Progress | None = None


def current() -> Progress | None:
    """The progress that work in this process reports into (None: nobody is watching)."""
    return _current


def set_current(progress: Progress | None) -> None:
    global _current
    _current = progress
