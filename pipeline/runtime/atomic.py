"""Atomic file writes: a temp file in the target's directory, fsynced, then renamed over
the target, so a reader (or a crash) never sees half a file. A hard exit on a second
Ctrl-C waits for the write in progress (`interrupt.writing`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pipeline.runtime import interrupt


@contextmanager
def atomic_file(path: Path, mode: str = "wb", suffix: str = "") -> Iterator[IO[Any]]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with interrupt.writing():
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix or path.suffix, dir=path.parent)
        try:
            with os.fdopen(fd, mode) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def copy_atomic(source: Path, target: Path) -> None:
    """Copy `source` over `target` so that a reader (or a crash) sees the old file or the
    new one, never half of it."""
    with atomic_file(target) as f:
        f.write(Path(source).read_bytes())
