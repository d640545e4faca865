"""An exclusive lock between processes on a file (POSIX flock; elsewhere none)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(path: Path, wait: bool = True) -> Iterator[None]:
    """Hold `path` (created if missing) for this process alone. With `wait=False`, raise
    BlockingIOError at once when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        try:
            import fcntl
        except ImportError:  # Windows
            yield
            return
        fcntl.flock(f, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
