"""A Prefect server for `zero schedule` when none is configured: schedules need a real
API, and Prefect's temporary in-process server cannot run them."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from pipeline.orchestration.recording import tool


@contextmanager
def local_prefect_server(port: int = 4200, timeout: float = 120) -> Iterator[str]:
    """Start `prefect server start` on loopback, point this process at it, stop it after."""
    url = f"http://127.0.0.1:{port}/api"
    proc = subprocess.Popen(
        [tool("prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
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
