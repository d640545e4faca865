"""Runs a stage by name, turning the errors a user can cause into one clear message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.config import Params
from pipeline.nets.checkpoint import CheckpointError
from pipeline.runtime.workspace import Paths
from pipeline.selfplay.replay import ReplayError
from pipeline.stages.promote import PromoteError


class StageError(RuntimeError):
    pass


def run_stage(
    name: str, params: Params, paths: Paths, tracking_uri: str | None = None, log: Callable[[str], None] = print
) -> dict[str, Any]:
    from pipeline.runtime.tracking import tracking_uri as default_uri

    uri = tracking_uri or default_uri(paths.root)
    try:
        if name == "selfplay":
            from pipeline.stages.selfplay import run_selfplay

            return run_selfplay(params, paths, log=log)
        if name == "train":
            from pipeline.stages.train import run_train

            return run_train(params, paths, uri, progress=True)
        if name == "evaluate":
            from pipeline.stages.evaluate import run_evaluate

            return run_evaluate(params, paths, log=log)
        if name == "promote":
            from pipeline.stages.promote import run_promote

            return run_promote(params, paths, uri)
        if name == "report":
            from pipeline.stages.report import run_report

            return run_report(params, paths, uri)
    except (FileNotFoundError, ReplayError, CheckpointError, PromoteError) as exc:
        raise StageError(str(exc)) from None
    raise StageError(f"unknown stage {name!r}")
