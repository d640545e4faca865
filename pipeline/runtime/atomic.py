"""Atomic file writes: a temp file in the target's directory, fsynced, then renamed over
the target, so a reader (or a crash) never sees half a file. A hard exit on a second
Ctrl-C waits for the write in progress (`interrupt.writing`).

`tempfile.mkstemp` creates its file with mode 0600 whatever the umask; the file gets the
mode a plain `open` would have given it (0666 less the umask) before it is renamed, so a
checkpoint or a report is as readable as any other file the user writes."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pipeline.runtime import interrupt


def current_umask() -> int:
    """The process's umask. Read from /proc where there is one: `os.umask` can only be read
    by setting it, which for a moment would change it under the other threads."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode `open(path, "w")` gives a new file: 0666 less the umask."""
    return 0o666 & ~current_umask()


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
            os.chmod(tmp, new_file_mode())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def copy_atomic(source: Path, target: Path) -> None:
    """Copy `source` over `target` so that a reader (or a crash) sees the old file or the
    new one, never half of it."""
    with atomic_file(target) as f:
        f.write(Path(source).read_bytes())
