"""Knobs of the DQN baseline (the `dqn` section of params.yaml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.dqn.qnet import QNetSpec


class DQNConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    net: QNetSpec = QNetSpec()
    steps: int = Field(3000, ge=1, description="gradient steps")
    minutes: float | None = Field(None, gt=0, description="stop after this long (equal wall-clock comparisons)")
    batch_size: int = Field(64, ge=1)
    lr: float = Field(2.5e-4, gt=0)
    gamma: float = Field(0.99, gt=0, le=1)
    memory: int = Field(50_000, ge=100)
    warmup: int = Field(1000, ge=1, description="transitions before learning starts")
    moves_per_step: int = Field(1, ge=1, description="self-play rounds (one move in every game) per gradient step")
    parallel_games: int = Field(16, ge=1)
    target_sync: int = Field(500, ge=1, description="gradient steps between copies to Q-target")
    epsilon_start: float = Field(1.0, ge=0, le=1)
    epsilon_end: float = Field(0.05, ge=0, le=1)
    epsilon_decay: int = Field(2000, ge=1, description="gradient steps of linear decay")
    double: bool = Field(True, description="Double DQN: Q-eval picks, Q-target values")
    shaping: float = Field(0.1, ge=0, description="pattern reward scale (Gomoku, Connect6); Hex: terminal only")
    seed: int = 0
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="auto: a CUDA GPU when torch sees one")
