"""Prefect's temporary API server, started so that a Ctrl-C cannot kill it under a
running flow.

With no PREFECT_API_URL, Prefect starts a server process on first use, in the terminal's
process group: a Ctrl-C killed it at once, and the flow that was winding down then
flooded the log with connection errors and hung. Started here with SIGINT blocked in the
starting thread, the server inherits the block: the flow stops its games and reports its
state through a live API. SIGTERM to the process group (`kill -- -PGID`, a container
stop) is blocked the same way. The server is killed when this process exits (it keeps
nothing that a kill could damage: its SQLite store is transactional), or by
`interrupt.exit_now` after a signal.

Two runs starting at once on one machine (two workspaces, or a run beside `make test`)
share Prefect's home and its SQLite store: their servers migrated the same fresh database
at the same time, and one failed ("duplicate column", then "Timed out while attempting to
connect"). A file lock in Prefect's home lets one server start at a time.

The first start on a fresh machine creates and migrates the database with every module
cold on disk: it took over Prefect's default 20 s there and the first `make run` failed
("Timed out while attempting to connect"), where the second started in 13 s. Unless the
user sets PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS, the wait is 180 s."""

from __future__ import annotations

import atexit
import fcntl
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.runtime import interrupt

_lock = threading.Lock()


def ensure_server() -> str | None:
    """The temporary server's API URL once it is running; None when an API is configured."""
    from prefect.settings import PREFECT_API_URL, PREFECT_HOME, PREFECT_SERVER_EPHEMERAL_ENABLED

    if PREFECT_API_URL.value() or not PREFECT_SERVER_EPHEMERAL_ENABLED.value():
        return None
    from prefect.server.api.server import SubprocessASGIServer

    with _lock:
        server = SubprocessASGIServer()  # the one instance Prefect's clients use
        if not server.running:
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            try:
                with _one_start_at_a_time(Path(PREFECT_HOME.value())):
                    server.start(timeout=startup_timeout())
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
            # Registered after Prefect's own stop, so it runs first: no graceful
            # shutdown waiting on idle keep-alive connections at every exit.
            atexit.register(_kill, server)
        if server.server_process is not None:
            interrupt.protect_child(server.server_process.pid)
        return server.api_url


FIRST_START_TIMEOUT_S = 180


def startup_timeout() -> int:
    """Seconds to wait for the server: the user's setting if any, else FIRST_START_TIMEOUT_S."""
    try:
        return int(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"])
    except (KeyError, ValueError):  # unset, or not a number (Prefect itself rejects that)
        return FIRST_START_TIMEOUT_S


@contextmanager
def _one_start_at_a_time(home: Path) -> Iterator[None]:
    """An exclusive lock on a file in Prefect's home while a server starts (and migrates
    its database); the kernel releases it when the holder exits, however it exits."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "zero-server-start.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _kill(server) -> None:
    process = server.server_process
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()
