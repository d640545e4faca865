"""params.yaml, validated. Every knob lives in one section per stage; a wrong value is
one clear error naming the key and what is allowed, before any work starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.games.base import GameSpec, describe_errors
from pipeline.nets.module import OptimConfig
from pipeline.nets.resnet import NetSpec
from pipeline.selfplay import SelfPlayConfig


class ParamsError(ValueError):
    """params.yaml (or an override) is wrong; the message names the key."""


class TrainConfig(OptimConfig):
    steps: int = Field(300, ge=1, description="optimiser steps per iteration")
    batch_size: int = Field(256, ge=1)
    window: int = Field(4, ge=1, description="generations of replay to train on")
    augment: bool = True
    seed: int = 0
    threads: int | None = Field(None, ge=1, description="torch threads (None: torch's default)")
    skip_corrupt: bool = Field(False, description="leave corrupt shards out (named in the log) instead of failing")


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    game: GameSpec = GameSpec()
    net: NetSpec = NetSpec()
    selfplay: SelfPlayConfig = SelfPlayConfig()
    train: TrainConfig = TrainConfig()


def describe(exc: ValidationError) -> str:
    return describe_errors(exc)


def load_params(path: Path | None = None, overrides: dict[str, Any] | None = None) -> Params:
    """Read params.yaml (missing file: defaults) and apply dotted overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ParamsError(f"{path}: no such params file")
        try:
            loaded = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as exc:
            raise ParamsError(f"{path}: not valid YAML ({exc})") from None
        if not isinstance(loaded, dict):
            raise ParamsError(f"{path}: expected a mapping of sections")
        data = loaded
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        node = data
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    try:
        return Params.model_validate(data)
    except ValidationError as exc:
        where = f"{path}: " if path else ""
        raise ParamsError(f"{where}{describe(exc)}") from None
