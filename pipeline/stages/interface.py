"""The one stage interface: a stage is a function of a `StageContext` that returns its
report, a pydantic model. Each report is written twice: in full to
reports/details/NAME.json (what the next stages read back, into the same model), and as a
few headline figures to the metrics files that `dvc metrics show` prints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, model_serializer

from pipeline.config import Params
from pipeline.runtime.workspace import Paths, read_json, write_json


class StageError(RuntimeError):
    """A stage cannot run as asked; the message says why (and what to rerun)."""


@dataclass(frozen=True)
class StageContext:
    """Everything a stage is given: the validated params, where the workspace keeps
    things, the MLflow store, where progress lines go, and whether training shows a bar."""

    params: Params
    paths: Paths
    tracking_uri: str
    log: Callable[[str], None] = print
    progress: bool = True

    @classmethod
    def create(
        cls,
        params: Params,
        paths: Paths,
        tracking_uri: str | None = None,
        log: Callable[[str], None] = print,
        progress: bool = True,
    ) -> StageContext:
        """A context whose tracking URI defaults to the workspace's own store."""
        from pipeline.runtime.tracking import tracking_uri as default_uri

        return cls(params, paths, tracking_uri or default_uri(paths.root), log, progress)


class StageReport(BaseModel):
    """What a stage hands on. `name` is the details file; `metrics` the headline files."""

    name: ClassVar[str]

    def metrics(self) -> dict[str, dict[str, Any]]:
        """Headline figures per metrics file (relative to reports/); none by default."""
        return {}


def details_path(paths: Paths, name: str) -> Path:
    return paths.reports / "details" / f"{name}.json"


def write_report(paths: Paths, report: StageReport) -> None:
    write_json(details_path(paths, report.name), report.model_dump(mode="json"))
    for file, figures in report.metrics().items():
        write_json(paths.report(file), figures)


R = TypeVar("R", bound=StageReport)


def read_report(paths: Paths, model: type[R]) -> R:
    """A stage's report read back from its details file (FileNotFoundError if missing)."""
    return model.model_validate(read_json(details_path(paths, model.name)))


class SelfplayReport(StageReport):
    name: ClassVar[str] = "selfplay"

    generation: int
    games: int
    positions: int
    mean_game_length: float
    first_player_win_rate: float
    second_player_win_rate: float
    draw_rate: float
    positions_per_s: float  # over every shard of the generation, an interrupted run's included
    seconds: float
    shards: int
    resumed_shards: int
    simulations: int
    fast_simulations: int | None
    runner: str
    player: str
    model_hash: str
    resign_threshold: float | None
    resigned_games: int
    calibration_games: int
    false_resignation_rate: float | None
    suggested_resign_threshold: float | None

    def metrics(self) -> dict[str, dict[str, Any]]:
        return {"selfplay.json": {"games": self.games, "positions/s": self.positions_per_s}}


class TrainReport(StageReport):
    """The training run; `final_<metric>` fields beyond loss and entropy are kept as extras."""

    model_config = ConfigDict(extra="allow")
    name: ClassVar[str] = "train"

    generation: int
    run_id: str
    experiment_id: str
    steps: int
    positions: int
    seconds: float
    samples_per_s: float
    skipped_shards: list[str]
    optimizer_resumed: bool
    init_hash: str
    candidate_hash: str
    final_loss: float | None = None
    final_policy_entropy: float | None = None

    def metrics(self) -> dict[str, dict[str, Any]]:
        return {
            "train.json": {
                "loss": None if self.final_loss is None else round(self.final_loss, 4),
                "entropy": None if self.final_policy_entropy is None else round(self.final_policy_entropy, 4),
                "samples/s": self.samples_per_s,
            }
        }


class SPRTReport(BaseModel):
    """A sequential test's figures (`pipeline.match.sprt.SPRT.summary`)."""

    p0: float
    p1: float
    alpha: float
    beta: float
    max_games: int
    games: int
    score: float
    llr: float
    lower_bound: float
    upper_bound: float
    decision: str | None
    accepted: bool
    truncated: bool


def question(test: SPRTReport) -> str:
    """What a gate's test asks, from its own hypotheses: a null below an even score asks
    only "not weaker" (the champion test's default), an even one or above "clearly
    stronger" (any test a run's params set that way, e.g. the champion test at 0.5/0.65)."""
    return "clearly stronger" if test.p0 >= 0.5 else "not weaker"


class MatchFigures(BaseModel):
    """The candidate against one opponent (`pipeline.match.arena.MatchResult.summary`)."""

    player: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    wins_as_first: int
    wins_as_second: int
    score: float
    win_rate: float
    interval_95: list[float]
    elo: float
    mean_length: float
    proven: int = 0  # games whose first solver-proven win was the player's
    proven_against: int = 0  # ... the opponent's


class MatchReport(MatchFigures):
    """A match of the gate: played until its sequential test decided."""

    sprt: SPRTReport

    def headline(self) -> dict[str, Any]:
        return {"score": self.score, "decision": self.sprt.decision or "-"}


class EngineMatch(MatchFigures):
    """A match against an external engine (rated, not part of the gate); `dropped` says
    why it ended early when the engine faulted too often."""

    forfeits: int
    dropped: str | None = None

    @model_serializer(mode="wrap")
    def _without_none(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}


class SkippedEngine(BaseModel):
    """An engine that could not start here: nothing was played."""

    skipped: str


class ClassicalLadder(BaseModel):
    """The candidate climbing the classical player's depths (rated, not part of the gate):
    the matches played, by opponent (`classical:N`), in the order climbed, and the deepest
    depth it scored 0.5 or more against (None: not even the first)."""

    matches: dict[str, MatchFigures]
    deepest_beaten: int | None

    def headline(self) -> dict[str, Any]:
        # "beaten" shares promotion.json's column (there the pure-MCTS level): `dvc metrics
        # show` stays within 120 columns; 0 is "no depth beaten".
        return {"beaten": self.deepest_beaten or 0}


class EvaluationReport(StageReport):
    name: ClassVar[str] = "evaluation"

    generation: int
    ladder: int
    simulations: int
    candidate_hash: str
    champion_hash: str
    champion_generation: int
    vs_pure: MatchReport
    vs_champion: MatchReport | None = None
    vs_earlier: MatchReport | None = None  # the champion of a few promotions ago (`evaluate.vs_earlier`)
    earlier_generation: int | None = None
    engines: dict[str, EngineMatch | SkippedEngine] | None = None  # rated, not part of the gate
    classical: ClassicalLadder | None = None  # rated, not part of the gate
    seconds: float | None = None

    @model_serializer(mode="wrap")
    def _without_none(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}

    def gate(self) -> list[tuple[str, str, str, MatchReport]]:
        """(key, opponent, question, result) of each match that decides promotion."""
        out = [("vs_pure", f"pure:{self.ladder}", question(self.vs_pure.sprt), self.vs_pure)]
        if self.vs_champion is not None:
            opponent = f"champion (generation {self.champion_generation})"
            out.append(("vs_champion", opponent, question(self.vs_champion.sprt), self.vs_champion))
        if self.vs_earlier is not None:
            opponent = f"earlier champion (generation {self.earlier_generation})"
            out.append(("vs_earlier", opponent, question(self.vs_earlier.sprt), self.vs_earlier))
        return out

    def metrics(self) -> dict[str, dict[str, Any]]:
        champion = self.vs_champion.headline() if self.vs_champion else {"decision": "skipped"}
        classical = self.classical.headline() if self.classical else {"decision": "skipped"}
        return {"vs_pure.json": self.vs_pure.headline(), "vs_champion.json": champion, "classical.json": classical}


class PromotionReport(StageReport):
    name: ClassVar[str] = "promotion"

    generation: int
    promoted: bool
    reasons: list[str]
    ladder_before: int
    ladder_after: int
    candidate_hash: str
    learner_hash: str
    champion_generation: int
    champion_hash: str
    model_version: str | None
    rating: float | None
    strongest_level_beaten: int | None
    vs_pure_sprt: SPRTReport
    vs_champion_sprt: SPRTReport | None

    def metrics(self) -> dict[str, dict[str, Any]]:
        # `beaten` is the strongest pure-MCTS level a promoted generation has beaten (0:
        # none yet), `rating` this generation's Bradley-Terry estimate
        # (`pipeline.stages.promote.rating_fit`); the MLflow `strength` run logs both under
        # these names, with `level_played` and `next_level` (`ladder_before`/`_after` here),
        # which `dvc metrics show` leaves out to stay within 120 columns ("decision" shares
        # the evaluation rows' column, their SPRT's H1/H0).
        figures: dict[str, Any] = {
            "decision": "promoted" if self.promoted else "refused",
            "beaten": self.strongest_level_beaten or 0,
        }
        if self.rating is not None:
            figures["rating"] = self.rating
        return {"promotion.json": figures}


class SummaryReport(StageReport):
    """The report stage: where the Markdown report went."""

    name: ClassVar[str] = "report"

    generation: int
    report: str
