"""`zero schedule`: the iteration flow served on a cron schedule, and a Prefect server for
it when none is configured: schedules need a real API, and Prefect's temporary
in-process server cannot run them."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from pipeline.orchestration.recording import tool


@contextmanager
def local_prefect_server(
    port: int = 4200, timeout: float = 120, options: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[str]:
    """Start `prefect server start` on loopback (with `options`, in `env`), point this
    process at it, stop it after."""
    url = f"http://127.0.0.1:{port}/api"
    proc = subprocess.Popen(
        [tool("prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"prefect server exited early (is port {port} taken? try --port)")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError(f"prefect server did not answer on {url} within {timeout:.0f}s") from None
                time.sleep(0.5)
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def check_cron(cron: str) -> None:
    """ValueError unless Prefect takes `cron` as a cron expression."""
    from prefect.schedules import Cron

    try:
        Cron(cron, timezone="UTC")
    except Exception as exc:
        raise ValueError(str(exc)) from None


def serve_schedule(
    root: Path,
    cron: str,
    iterations: int,
    record: bool,
    push: bool,
    name: str,
    port: int,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve the iteration flow for the workspace at `root` on `cron` (UTC) until this
    process is stopped: on PREFECT_API_URL's server if set, else on a `prefect server`
    started here on `port` and stopped when serving ends."""
    from prefect.schedules import Cron

    from pipeline.orchestration.flows import iteration_flow

    with local_prefect_server(port) if not os.environ.get("PREFECT_API_URL") else nullcontext() as url:
        if url:
            announce(f"no PREFECT_API_URL: started a Prefect server for the schedule at {url}")
        announce(f"serving {name!r} on cron {cron!r} for {root} (Ctrl-C stops)")
        iteration_flow.serve(
            name=name,
            schedules=[Cron(cron, timezone="UTC")],  # a schedule without a timezone never fires
            parameters={"root": str(root), "iterations": iterations, "record": record, "push": push},
        )
