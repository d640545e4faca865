"""The sequential probability ratio test that decides a gate (Wald; the form chess-engine
testing frameworks use for a score with draws).

H0: the expected score is p0, H1: it is p1 (p0 < p1). Each game adds its log-likelihood
ratio, a game's score x in {0, 1/2, 1} counted as x wins and 1 - x losses:
    llr += x * ln(p1 / p0) + (1 - x) * ln((1 - p1) / (1 - p0)).
H1 is accepted once llr >= ln((1 - beta) / alpha), H0 once llr <= ln(beta / (1 - alpha)),
so a player of strength p0 passes with probability about alpha and one of strength p1
fails with probability about beta. A test cut off at its game limit decides by the sign
of the llr (the side of the midpoint its score is on)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

Score = Annotated[float, Field(gt=0, lt=1)]
Risk = Annotated[float, Field(gt=0, lt=0.5)]
Games = Annotated[int, Field(ge=2)]


class SPRTConfig(BaseModel):
    """A test's settings; the defaults are the gate against pure MCTS (`VsPureTest`)."""

    model_config = ConfigDict(extra="forbid")

    p0: Score = Field(0.5, description="H0: expected score at most p0")
    p1: Score = Field(0.8, description="H1: expected score at least p1")
    alpha: Risk = Field(0.05, description="chance of accepting H1 when H0 holds")
    beta: Risk = Field(0.1, description="chance of accepting H0 when H1 holds")
    max_games: Games = Field(40, description="the test stops here at the latest")

    @model_validator(mode="after")
    def _ordered(self) -> SPRTConfig:
        if self.p0 >= self.p1:
            raise ValueError(f"p0 ({self.p0}) must be below p1 ({self.p1})")
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of the log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)


def game_llr(score: float, p0: float, p1: float) -> float:
    """The log-likelihood ratio one game with this score adds."""
    return score * math.log(p1 / p0) + (1 - score) * math.log((1 - p1) / (1 - p0))


@dataclass
class SPRT:
    """The running test: feed game scores with `add`, read `decision`."""

    config: SPRTConfig
    llr: float = 0.0
    games: int = 0
    points: float = 0.0

    def add(self, score: float) -> None:
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game scores 0, 1/2 or 1, not {score}")
        self.llr += game_llr(score, self.config.p0, self.config.p1)
        self.games += 1
        self.points += score

    @property
    def decision(self) -> str | None:
        """'H1' (accepted), 'H0' (rejected), or None while the test goes on."""
        lower, upper = self.config.bounds
        if self.llr >= upper:
            return "H1"
        if self.llr <= lower:
            return "H0"
        if self.games >= self.config.max_games:
            return "H1" if self.llr > 0 else "H0"
        return None

    @property
    def truncated(self) -> bool:
        lower, upper = self.config.bounds
        return self.games >= self.config.max_games and lower < self.llr < upper

    def summary(self) -> dict[str, object]:
        lower, upper = self.config.bounds
        return {
            "p0": self.config.p0,
            "p1": self.config.p1,
            "alpha": self.config.alpha,
            "beta": self.config.beta,
            "max_games": self.config.max_games,
            "games": self.games,
            "score": round(self.points / self.games, 4) if self.games else 0.0,
            "llr": round(self.llr, 4),
            "lower_bound": round(lower, 4),
            "upper_bound": round(upper, 4),
            "decision": self.decision,
            "accepted": self.decision == "H1",
            "truncated": self.truncated,
        }


class VsPureTest(SPRTConfig):
    """Against pure MCTS at the ladder level: is the candidate clearly stronger? (The
    defaults: p0 0.5, p1 0.8, alpha 0.05, beta 0.1, 40 games.)"""


class VsChampionTest(SPRTConfig):
    """Against the champion: is the candidate not weaker?"""

    p0: Score = 0.35
    p1: Score = 0.5
    alpha: Risk = 0.1
    beta: Risk = 0.1
    max_games: Games = 20


class VsEarlierTest(SPRTConfig):
    """Against the run's champion of `back` promotions ago: is the candidate clearly
    stronger? Once a run's candidates beat every pure-MCTS level they can afford, the
    "not weaker than the champion" test alone lets a plateau pass generation after
    generation (each a coin toss against its twin); this one asks for progress over
    several promotions. Fewer promotions than `back` so far: the oldest champion kept."""

    back: int = Field(4, ge=1, description="promotions back: the opponent is the champion this many promotions ago")
    p0: Score = 0.5
    p1: Score = 0.65
    alpha: Risk = 0.1
    beta: Risk = 0.1
    max_games: Games = 40
