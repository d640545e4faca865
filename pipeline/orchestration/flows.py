"""Prefect flows: the iteration flow that runs the same stage functions as `dvc repro`
and records each iteration. (Self-play's parallel tasks are `pipeline.runtime.parallel`, below
the stages that use them.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Quiet, local defaults for a command-line tool; a user's own Prefect settings win.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NONE

from pipeline.stages.interface import PromotionReport, StageContext, StageReport
from pipeline.stages.runner import STAGES, run_stage

if TYPE_CHECKING:
    from pipeline.config import Params
    from pipeline.runtime.workspace import Paths


@task(name="stage", cache_policy=NONE, task_run_name="{name}")
def stage_task(name: str, root: str, params_file: str | None, tracking_uri: str | None) -> StageReport:
    from pipeline.config import load_params
    from pipeline.runtime.workspace import Paths

    paths = Paths(Path(root))
    params = load_params(Path(params_file) if params_file else paths.params)
    return run_stage(name, StageContext.create(params, paths, tracking_uri))


@task(name="record", cache_policy=NONE)
def record_task(root: str, message: str, push: bool) -> dict[str, Any]:
    from pipeline.orchestration.recording import record_iteration
    from pipeline.runtime.workspace import Paths

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
    run_folder: str | None = None,
) -> list[PromotionReport]:
    """`iterations` full iterations with the stage functions `dvc repro` runs, each
    recorded with DVC and git. Rerunning after a crash finishes the interrupted work:
    completed shards are kept and an unrecorded generation is recorded first. With a
    `run_folder`, each finished generation is also snapshotted there (see
    `pipeline.orchestration.runs`), so another machine can resume it."""
    from pipeline.config import load_params
    from pipeline.runtime.workspace import Paths, load_state
    from pipeline.stages.init import run_init

    paths = Paths(Path(root).resolve())
    root = str(paths.root)
    params = load_params(Path(params_file) if params_file else paths.params)
    run_init(params, paths)
    logger = get_run_logger()
    decisions = []
    from pipeline.orchestration.recording import needs_record

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
            if isinstance(result, PromotionReport):
                decisions.append(result)
        if record:
            record_task(root, f"generation {generation}", push)
        if run_folder:
            from pipeline.orchestration.runs import RunFolder, save

            save(RunFolder(Path(run_folder)), paths, params.train.window, params.train.snapshot_moments)
    return decisions


def run_iterations(params: Params, paths: Paths, *flow_args: Any) -> list[dict[str, Any]]:
    """`zero iterate`: the champion and state first (a bad checkpoint fails before Prefect
    starts), then the Prefect API, then the iteration flow (`flow_args`: its arguments
    after the root, from `iterations` on), off the main thread so that Prefect's SIGTERM
    handler stays out of the way. Returns the promote decisions."""
    from pipeline.runtime.interrupt import run_in_thread
    from pipeline.runtime.prefect_server import ensure_server
    from pipeline.stages.init import run_init

    run_init(params, paths)
    ensure_server()
    return run_in_thread(iteration_flow, str(paths.root), *flow_args)
