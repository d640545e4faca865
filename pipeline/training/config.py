"""The `train` section of params.yaml and its optimiser settings: plain pydantic, so that
reading params.yaml (every `zero` command does) does not import Lightning (4 s a process)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class OptimConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    optimizer: Literal["adam", "sgd"] = "adam"
    lr: float = Field(1e-3, gt=0)
    momentum: float = Field(0.9, ge=0, lt=1, description="SGD only")
    schedule: Literal["constant", "cosine", "step"] = "constant"
    step_every: int = Field(1000, ge=1, description="step schedule: steps between decays")
    step_gamma: float = Field(0.1, gt=0, le=1)
    l2: float = Field(1e-4, ge=0, description="c in the loss")


class TrainConfig(OptimConfig):
    """The `train` section of params.yaml: it lives with the training it configures, so
    training a net depends on nothing but nets (params.yaml gathers every section)."""

    steps: int = Field(300, ge=1, description="optimiser steps per iteration")
    batch_size: int = Field(256, ge=1)
    window: int = Field(4, ge=1, description="generations of replay to train on")
    augment: bool = True
    value_discount: float = Field(
        1.0,
        gt=0,
        le=1,
        description="the value target is the result times this per move still to play (1: the plain result); "
        "below 1 a quicker win is worth more, so among won positions the net learns which win sooner",
    )
    searched_value_weight: float = Field(
        0.0,
        ge=0,
        le=1,
        description="the value target mixes in the search's root value q with this weight: (1 - w) z + w q, "
        "where the shard kept q (0: the result alone); a result is one coin toss where the true values are "
        "nearly equal (a first stone), q the search's estimate of them",
    )
    seed: int = 0
    threads: int | None = Field(None, ge=1, description="torch threads (None: torch's default)")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="auto: a CUDA GPU when torch sees one")
    precision: Literal["auto", "32-true", "bf16-mixed", "16-mixed"] = Field(
        "auto", description="Lightning precision; auto: bf16-mixed (or 16-mixed) on a GPU, 32-true on the CPU"
    )
    skip_corrupt: bool = Field(False, description="leave corrupt shards out (named in the log) instead of failing")
    snapshot_moments: Literal["f32", "bf16"] = Field(
        "f32",
        description="a run folder's resume point keeps the learner's optimiser moments in this precision: f32 "
        "resumes bit for bit as an uninterrupted run; bf16 keeps a third less of the learner's bytes in git "
        "(the moments are two thirds of them) and resumes close to it (a moment rounded to 8 bits of mantissa, "
        "and Adam decays each old one by its beta every step)",
    )
    init_from: str | None = Field(
        None,
        description="curriculum: generation 0 takes its weights from this checkpoint of the same game "
        "(another board size or rules; the trunk at least, every weight when both nets are size-free)",
    )
