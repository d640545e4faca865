"""The table of stages: the one place that names them and gives their order in an
iteration (`dvc.yaml`'s `zero stage NAME` and the Prefect flow both run them from here),
and the one way to run them, turning the errors a user can cause into one clear message."""

from __future__ import annotations

from collections.abc import Callable

from pipeline.nets.checkpoint import CheckpointError
from pipeline.selfplay.replay import ReplayError
from pipeline.stages import evaluate, promote, report, selfplay, train
from pipeline.stages.interface import StageContext, StageError, StageReport

Stage = Callable[[StageContext], StageReport]

STAGES: dict[str, Stage] = {  # in the order of one iteration
    "selfplay": selfplay.run,
    "train": train.run,
    "evaluate": evaluate.run,
    "promote": promote.run,
    "report": report.run,
}


def run_stage(name: str, context: StageContext) -> StageReport:
    stage = STAGES.get(name)
    if stage is None:
        raise StageError(f"unknown stage {name!r}: one of {', '.join(STAGES)}")
    try:
        return stage(context)
    except (FileNotFoundError, ReplayError, CheckpointError) as exc:
        raise StageError(str(exc)) from None
