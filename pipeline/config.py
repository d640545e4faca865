"""params.yaml, validated. Every knob lives in one section per stage; a wrong value is
one clear error naming the key and what is allowed, before any work starts."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pipeline.dqn.config import DQNConfig
from pipeline.games.base import GameSpec, describe_errors
from pipeline.match.openings import OpeningError, resolve_suite
from pipeline.match.sprt import VsChampionTest, VsEarlierTest, VsPureTest
from pipeline.nets.inference import InferenceConfig
from pipeline.nets.resnet import NetSpec
from pipeline.players.classical import MAX_DEPTH, check_game
from pipeline.players.engines import EngineConfig
from pipeline.selfplay.play import SelfPlayConfig
from pipeline.training.config import TrainConfig


class ParamsError(ValueError):
    """params.yaml (or an override) is wrong; the message names the key."""


class SelfPlayStageConfig(SelfPlayConfig):
    games: int = Field(64, ge=1, description="self-play games per generation")
    tasks: int = Field(2, ge=1, description="shards per generation, run in parallel")
    runner: Literal["threads", "processes", "dask"] = "threads"
    workers: int = Field(2, ge=1, description="parallel tasks (threads/processes) or local Dask workers")
    dask_address: str | None = Field(None, description="scheduler of an existing Dask cluster (runner=dask)")
    torch_threads: int = Field(1, ge=1, description="intra-op threads of each task's evaluator (any backend)")
    threat_guidance_until: int = Field(0, ge=0, description="threat guidance in self-play up to this generation")
    player: Literal["learner", "champion"] = Field(
        "learner", description="who plays self-play: the learner (AlphaZero) or the gated champion (AlphaGo Zero)"
    )


def default_ladder() -> list[int]:
    return [500, 1000, 2000, 4000, 8000, 16000, 32000]


class EvaluateConfig(BaseModel):
    """The gate: a sequential test against pure MCTS at the ladder level ("clearly
    stronger") and, optionally, against the champion ("not weaker")."""

    model_config = ConfigDict(extra="forbid")

    simulations: int | None = Field(None, ge=1, description="network search per move (default: self-play's)")
    openings: str = Field(
        "auto",
        description="opening suite, each opening played with both colours: auto (the game's suite under openings/ "
        "when there is one, else random openings), random, or a suite file",
    )
    opening_plies: int | None = Field(
        None,
        ge=0,
        description="random opening moves when no suite is used, drawn per pair and played with both colours "
        "(default: one stone on Hex with swap, so the second player decides whether to swap; else two)",
    )
    pairs_per_round: int = Field(5, ge=1, description="pairs of games played in lockstep before the test is checked")
    ladder: list[int] = Field(default_factory=default_ladder, description="pure-MCTS playouts of the ladder levels")
    vs_pure: VsPureTest = VsPureTest()
    vs_champion: VsChampionTest | None = VsChampionTest()
    vs_earlier: VsEarlierTest | None = Field(
        None,
        description="part of the gate when set: clearly stronger than the champion `back` promotions ago (kept "
        "under models/earlier/); for long runs whose candidates beat every pure-MCTS level they can afford",
    )
    anchor_playouts: int = Field(1000, ge=1, description="the pure-MCTS level rated 0 Elo")
    anchor_elo_per_doubling: float = Field(
        100.0, gt=0, description="Elo between pure-MCTS levels a factor 2 apart (a convention that fixes the scale)"
    )
    engines: list[EngineConfig] = Field(
        default_factory=list, description="external engines played after the gate, for the rating only"
    )
    classical_ladder: list[int] | None = Field(
        None,
        description="classical depths (classical:N) the candidate climbs after the gate, for the rating and the "
        "deepest depth it beats (Gomoku, Connect6); null or []: none",
    )
    classical_games: int = Field(10, ge=2, description="games against each classical depth (paired openings)")

    @field_validator("engines")
    @classmethod
    def _named(cls, v: list[EngineConfig]) -> list[EngineConfig]:
        labels = [e.label for e in v]
        if len(set(labels)) != len(labels):
            raise ValueError("each engine needs its own name (the games table and the rating tell them apart by it)")
        return v

    @field_validator("ladder")
    @classmethod
    def _rising(cls, v: list[int]) -> list[int]:
        if not v or any(x < 1 for x in v) or any(b <= a for a, b in itertools.pairwise(v)):
            raise ValueError("ladder must be a non-empty list of rising playout counts, e.g. [500, 1000, 2000]")
        return v

    @field_validator("classical_ladder")
    @classmethod
    def _depths(cls, v: list[int] | None) -> list[int] | None:
        if not v:
            return None
        if any(not 1 <= d <= MAX_DEPTH for d in v) or any(b <= a for a, b in itertools.pairwise(v)):
            raise ValueError(f"classical_ladder must be rising depths in 1..{MAX_DEPTH}, e.g. [1, 2, 3, 4]")
        return v

    def next_level(self, current: int) -> int:
        """The level after `current` (the top level stays)."""
        higher = [x for x in self.ladder if x > current]
        return higher[0] if higher else current


class PromoteConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    register_model: bool = Field(True, description="register promoted models in the MLflow registry")


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    game: GameSpec = GameSpec()
    net: NetSpec = NetSpec()
    selfplay: SelfPlayStageConfig = SelfPlayStageConfig()
    train: TrainConfig = TrainConfig()
    evaluate: EvaluateConfig = EvaluateConfig()
    promote: PromoteConfig = PromoteConfig()
    dqn: DQNConfig = DQNConfig()
    inference: InferenceConfig = InferenceConfig()

    @model_validator(mode="after")
    def _opponents_play_the_game(self) -> Params:
        for i, engine in enumerate(self.evaluate.engines):
            try:
                engine.check_game(self.game)
            except ValueError as exc:
                raise ValueError(f"evaluate.engines.{i}: {exc}") from None
        if self.evaluate.classical_ladder:
            try:
                check_game(self.game)
            except ValueError as exc:
                raise ValueError(f"evaluate.classical_ladder: {exc}") from None
        try:
            resolve_suite(self.game, self.evaluate.openings)
        except OpeningError as exc:
            raise ValueError(f"evaluate.openings: {exc}") from None
        return self


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
