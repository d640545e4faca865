"""Prefect flows: parallel self-play tasks on a chosen task runner, and the iteration
flow that runs the same stage functions as `dvc repro` and records each iteration."""

from __future__ import annotations

import os
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

from pipeline.stages import STAGES


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
def selfplay_shard(job: dict[str, Any], model: bytes):
    from pipeline.stages.selfplay import play_shard

    return play_shard(job, model)


@flow(name="selfplay", log_prints=False, validate_parameters=False)
def selfplay_flow(
    jobs: list[dict[str, Any]], base_header: dict[str, Any], runner: str, workers: int, address: str | None
) -> list[dict[str, Any]]:
    """Play every job as a task; write each shard as soon as its task finishes, so a kill
    loses only the games still in flight."""
    from pipeline.stages.selfplay import write_result

    logger = get_run_logger()
    model = Path(jobs[0]["model_path"]).read_bytes()
    headers = []
    with make_task_runner(runner, workers, address) as task_runner:
        futures = {task_runner.submit(selfplay_shard, {"job": job, "model": model}): job for job in jobs}
        for future in as_completed(list(futures)):
            job = futures[future]
            arrays, summary = future.result()
            headers.append(write_result(job, base_header, arrays, summary))
            logger.info("shard %s: %s games, %s positions", job["task"], summary["games"], summary["positions"])
    return headers


@task(name="stage", cache_policy=NONE, task_run_name="{name}")
def stage_task(name: str, root: str, params_file: str | None, tracking_uri: str | None) -> dict[str, Any]:
    from pipeline.config import load_params
    from pipeline.stages.runner import run_stage
    from pipeline.workspace import Paths

    paths = Paths(Path(root))
    params = load_params(Path(params_file) if params_file else paths.params)
    return run_stage(name, params, paths, tracking_uri)


@task(name="record", cache_policy=NONE)
def record_task(root: str, message: str, push: bool) -> dict[str, Any]:
    from pipeline.recording import record_iteration
    from pipeline.workspace import Paths

    return record_iteration(Paths(Path(root)), message, push)


@flow(name="zero-iteration", log_prints=False)
def iteration_flow(
    root: str,
    iterations: int = 1,
    record: bool = True,
    push: bool = True,
    params_file: str | None = None,
    tracking_uri: str | None = None,
    minutes: float | None = None,
) -> list[dict[str, Any]]:
    """`iterations` full iterations with the stage functions `dvc repro` runs, each
    recorded with DVC and git. Rerunning after a crash finishes the interrupted work:
    completed shards are kept and an unrecorded generation is recorded first."""
    from pipeline.config import load_params
    from pipeline.stages.init import run_init
    from pipeline.workspace import Paths, load_state

    paths = Paths(Path(root).resolve())
    root = str(paths.root)
    run_init(load_params(Path(params_file) if params_file else paths.params), paths)
    logger = get_run_logger()
    decisions = []
    from pipeline.recording import needs_record

    if record and needs_record(paths):
        record_task(root, f"generation {load_state(paths).generation}", push)
    import time

    start = time.monotonic()
    for i in range(iterations):
        if minutes is not None and time.monotonic() - start >= 60 * minutes:
            logger.warning("time budget of %s minutes reached after %d iteration(s)", minutes, i)
            break
        generation = load_state(paths).generation + 1
        logger.warning("iteration %d/%d: generation %d", i + 1, iterations, generation)
        for name in STAGES:
            result = stage_task(name, root, params_file, tracking_uri)
            if name == "promote":
                decisions.append(result)
        if record:
            record_task(root, f"generation {generation}", push)
    return decisions
