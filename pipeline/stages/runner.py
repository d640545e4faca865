"""The table of stages: the one place that names them and gives their order in an
iteration (`dvc.yaml`'s `zero stage NAME` and the Prefect flow both run them from here),
and the one way to run them, turning the errors a user can cause into one clear message."""

from __future__ import annotations

import importlib

from pipeline.nets.checkpoint import CheckpointError
from pipeline.selfplay.replay import ReplayError
from pipeline.stages.interface import StageContext, StageError, StageReport

# Each stage's module (`pipeline.stages.<name>`, its `run`), in the order of one iteration.
# Imported when run: a stage process pays only for its own (train's Lightning alone is 3 s).
STAGES: tuple[str, ...] = ("selfplay", "train", "evaluate", "promote", "report")


def run_stage(name: str, context: StageContext) -> StageReport:
    if name not in STAGES:
        raise StageError(f"unknown stage {name!r}: one of {', '.join(STAGES)}")
    stage = importlib.import_module(f"pipeline.stages.{name}").run
    try:
        return stage(context)
    except (FileNotFoundError, ReplayError, CheckpointError) as exc:
        raise StageError(str(exc)) from None
