"""Before the first iteration: a generation-0 net (untrained and seeded, or initialised
from `train.init_from`, a checkpoint of the same game on another board) that is both the
champion and the learner, and the pipeline state. Idempotent: existing files are kept,
and a workspace from before the learner existed gets its learner from the champion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from pipeline.config import Params
from pipeline.nets.checkpoint import load_checkpoint, save_checkpoint
from pipeline.nets.resnet import PolicyValueNet
from pipeline.nets.transfer import net_from
from pipeline.runtime.atomic import copy_atomic
from pipeline.runtime.workspace import Paths, State, save_state

# The checkout that holds this package and the shipped models/pretrained/.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def init_source(text: str, workspace: Path) -> Path:
    """Where `train.init_from` is: as given, else under the workspace, else under this
    checkout, so a preset's `models/pretrained/...` also works in a workspace of its own.
    A path found nowhere is returned as given, for the loader to report."""
    path = Path(text)
    if path.is_absolute() or path.is_file():
        return path
    for base in (workspace, PROJECT_ROOT):
        if (base / path).is_file():
            return base / path
    return path


def run_init(params: Params, paths: Paths) -> dict[str, Any]:
    created = []
    transfer = None
    if paths.champion.is_file():
        load_checkpoint(paths.champion, params.game)  # a champion for another game is an error
    else:
        torch.manual_seed(params.seed)
        if params.train.init_from:
            net, transfer = net_from(init_source(params.train.init_from, paths.root), params.game, params.net)
            meta = {"generation": 0, "init_from": transfer.source, "init_from_game": transfer.source_game}
        else:
            net, meta = PolicyValueNet(params.game, params.net), {"generation": 0}
        save_checkpoint(paths.champion, net, meta)
        created.append(str(paths.champion))
    if paths.learner.is_file():
        load_checkpoint(paths.learner, params.game)
    else:
        copy_atomic(paths.champion, paths.learner)
        created.append(str(paths.learner))
    if not paths.state.is_file():
        save_state(paths, State(ladder=params.evaluate.ladder[0]))
        created.append(str(paths.state))
    return {"created": created, "init_from": transfer.describe() if transfer else None}
