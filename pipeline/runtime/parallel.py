"""Parallel self-play: one Prefect task per self-play task on a chosen task runner
(threads, processes, or Dask). A task writes its games as they end (or hands them back,
from a worker that does not share the folder); the flow finishes each task as soon as it
returns. It sits below the stages: the self-play stage hands over its own `play` and
`write` functions, so nothing here imports a stage (and the flows above the stages import
nothing from here)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Quiet, local defaults for a command-line tool; a user's own Prefect settings win.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NONE
from prefect.futures import as_completed
from prefect.task_runners import ProcessPoolTaskRunner, TaskRunner, ThreadPoolTaskRunner

from pipeline.runtime.interrupt import Interrupted

# (job, model bytes) -> result: plain data in and out, so a task runs the same in a
# thread, a process or on a remote Dask worker.
PlayShard = Callable[[dict[str, Any], bytes], dict[str, Any]]
# (job, result) -> the task's shard header, or None when it was stopped before its end.
WriteShard = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any] | None]


def make_task_runner(kind: str, workers: int, address: str | None) -> TaskRunner:
    if kind == "threads":
        return ThreadPoolTaskRunner(max_workers=workers)
    if kind == "processes":
        return ProcessPoolTaskRunner(max_workers=workers)
    if kind == "dask":
        from prefect_dask import DaskTaskRunner

        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True})
    raise ValueError(f"unknown task runner {kind!r}: threads, processes or dask")


@task(name="selfplay-shard", cache_policy=NONE, retries=0)
def selfplay_shard(play: PlayShard, job: dict[str, Any], model: bytes):
    """The task's result (a stopped one says so and keeps the games that ended), or None
    when a Ctrl-C stopped it outside its games: a stop is not a task failure (no traceback)."""
    try:
        return play(job, model)
    except Interrupted:
        return None


@flow(name="selfplay", log_prints=False, validate_parameters=False)
def selfplay_flow(
    jobs: list[dict[str, Any]],
    runner: str,
    workers: int,
    address: str | None,
    play: PlayShard,
    write: WriteShard,
) -> list[dict[str, Any]]:
    """Play every job as a task, and finish each (`write`) as soon as it returns: a stopped
    one too, so that the games it ended are kept. The headers of the tasks that completed
    come back (after a Ctrl-C, those that completed before it)."""
    logger = get_run_logger()
    model = Path(jobs[0]["model_path"]).read_bytes()
    headers = []
    with make_task_runner(runner, workers, address) as task_runner:
        futures = {task_runner.submit(selfplay_shard, {"play": play, "job": job, "model": model}): job for job in jobs}
        for future in as_completed(list(futures)):
            job = futures[future]
            result = future.result()
            if result is None:
                continue
            header = write(job, result)
            if header is not None:
                headers.append(header)
            logger.info("task %s: %s games, %s positions", job["task"], result["games"], result["positions"])
    return headers


def run_selfplay_flow(*flow_args: Any) -> list[dict[str, Any]]:
    """`selfplay_flow` (the same arguments) as a Ctrl-C should find it: Prefect's temporary
    server out of the terminal's reach, and the flow off the main thread so that our
    signal handlers (not Prefect's SIGTERM handler) decide how it stops."""
    from pipeline.runtime import interrupt
    from pipeline.runtime.prefect_server import ensure_server

    ensure_server()
    return interrupt.run_in_thread(selfplay_flow, *flow_args)
