"""Prefect's temporary API server, started so that a Ctrl-C cannot kill it under a
running flow.

With no PREFECT_API_URL, Prefect starts a server process on first use, in the terminal's
process group: a Ctrl-C killed it at once, and the flow that was winding down then
flooded the log with connection errors and hung. Started here with SIGINT blocked in the
starting thread, the server inherits the block: the flow stops its games and reports its
state through a live API. SIGTERM to the process group (`kill -- -PGID`, a container
stop) is blocked the same way. The server is killed when this process exits (it keeps
nothing that a kill could damage: its SQLite store is transactional), or by
`interrupt.exit_now` after a signal."""

from __future__ import annotations

import atexit
import signal
import threading

from pipeline import interrupt

_lock = threading.Lock()


def ensure_server() -> str | None:
    """The temporary server's API URL once it is running; None when an API is configured."""
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_EPHEMERAL_ENABLED

    if PREFECT_API_URL.value() or not PREFECT_SERVER_EPHEMERAL_ENABLED.value():
        return None
    from prefect.server.api.server import SubprocessASGIServer

    with _lock:
        server = SubprocessASGIServer()  # the one instance Prefect's clients use
        if not server.running:
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            try:
                server.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
            # Registered after Prefect's own stop, so it runs first: no graceful
            # shutdown waiting on idle keep-alive connections at every exit.
            atexit.register(_kill, server)
        if server.server_process is not None:
            interrupt.protect_child(server.server_process.pid)
        return server.api_url


def _kill(server) -> None:
    process = server.server_process
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()
