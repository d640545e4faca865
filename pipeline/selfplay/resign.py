"""Resignation in self-play (AlphaGo Zero): a game ends when the player to move sees its
searched root value fall below a threshold, except in a share of calibration games,
which are played out to count how often resigning would have been wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ResignWatch:
    """One game's resignation status: whether it is a calibration game (never resigns),
    each player's lowest root value so far, and whether each would have resigned."""

    calibrating: bool
    min_value: list[float] = field(default_factory=lambda: [1.0, 1.0])
    would_resign: list[bool] = field(default_factory=lambda: [False, False])


@dataclass
class ResignTally:
    """The false-positive bookkeeping over finished games. `winner_min_values` holds each
    calibration game's winner's lowest root value (every decided game's when resignation
    is off), the data `resign_threshold_for` calibrates from."""

    calibration_games: int = 0
    would_resign: int = 0
    false_resignations: int = 0
    winner_min_values: list[float] = field(default_factory=list)

    def add(self, other: ResignTally) -> None:
        self.calibration_games += other.calibration_games
        self.would_resign += other.would_resign
        self.false_resignations += other.false_resignations
        self.winner_min_values.extend(other.winner_min_values)


class ResignPolicy:
    """Resign below `threshold` (None: never); a share `calibration` of the games never
    resigns and counts the would-be resignations that the result proves false."""

    def __init__(self, threshold: float | None, calibration: float):
        self.threshold = threshold
        self.calibration = calibration
        self.tally = ResignTally()

    def watch(self, rng: np.random.Generator) -> ResignWatch:
        """A new game's status; a draw from `rng` picks calibration games only when
        resignation is on, so games without it use no random numbers here."""
        return ResignWatch(calibrating=self.threshold is None or rng.random() < self.calibration)

    def resigns(self, watch: ResignWatch, mover: int, value: float) -> bool:
        """Whether `mover`, whose searched root value is `value`, resigns now (the
        calibration games only note that it would have)."""
        watch.min_value[mover] = min(watch.min_value[mover], value)
        below = self.threshold is not None and value < self.threshold
        if not below:
            return False
        if not watch.calibrating:
            return True
        watch.would_resign[mover] = True
        return False

    def game_over(self, watch: ResignWatch, winner: int | None) -> ResignTally:
        """Count a finished game: a would-be resignation is false unless its player lost.
        Returns the game's own share of the tally (a replay shard of a few games carries it)."""
        mine = ResignTally()
        if watch.calibrating:
            if winner is not None:
                mine.winner_min_values.append(float(watch.min_value[winner]))
            if self.threshold is not None:
                mine.calibration_games = 1
                for player in (0, 1):
                    if watch.would_resign[player]:
                        mine.would_resign += 1
                        mine.false_resignations += winner != 1 - player
        self.tally.add(mine)
        return mine


def resign_threshold_for(winner_min_values: list[float], false_rate: float = 0.05) -> float | None:
    """The threshold AlphaGo Zero's calibration aims for: at most `false_rate` of the
    games' eventual winners ever saw their root value fall below it. None without data."""
    if not winner_min_values:
        return None
    return float(np.quantile(np.asarray(winner_min_values, dtype=np.float64), false_rate))
