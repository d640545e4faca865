"""The ladder of external engines in the evaluate stage: after the gate's matches, the
candidate plays each engine of `evaluate.engines` (paired openings, both colours). The
games go to the games table under the engine's name, so the rating places the engines on
the pure-MCTS scale; they take no part in the promotion decision.

An engine that faults loses those games by forfeit (the reason in the table); one dropped
after too many faults keeps the games it finished; one that cannot start here (its program
is missing) is skipped with the reason: none of these stops the stage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.arena import GameRecord, PlayerDropped, paired_openings, play_lockstep, result_of
from pipeline.players.base import Player
from pipeline.players.engines import EngineConfig, EnginePlayer


def play_engine(
    spec: GameSpec, candidate: Player, engine: EngineConfig, seed: int, opening_plies: int, log: Callable[[str], None]
) -> tuple[list[GameRecord], dict[str, Any]]:
    """(records, summary) of the candidate against one engine."""
    try:
        player = EnginePlayer(engine)
    except ValueError as exc:
        log(f"engine {engine.label} skipped: {exc}")
        return [], {"skipped": str(exc)}
    openings = paired_openings(spec, (engine.games + 1) // 2, opening_plies, np.random.default_rng(seed))
    dropped = None
    try:
        records = play_lockstep(spec, candidate, player, openings, seed)
    except PlayerDropped as exc:
        records, dropped = exc.records, str(exc)
        log(f"candidate vs {engine.label}: {exc}; {len(records)} finished games kept")
    finally:
        player.close()
    summary: dict[str, Any] = result_of(candidate.name, engine.label, records).summary()
    summary["forfeits"] = sum(bool(r.reason) for r in records)
    if dropped:
        summary["dropped"] = dropped
    log(
        f"candidate vs {engine.label}: {summary['games']} games, score {summary['score']:.2f}"
        + (f", {summary['forfeits']} won by forfeit" if summary["forfeits"] else "")
    )
    return records, summary
