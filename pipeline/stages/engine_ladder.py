"""The ladders beyond the gate in the evaluate stage: after the gate's matches, the
candidate plays each engine of `evaluate.engines`, then climbs the classical player's
depths of `evaluate.classical_ladder` (paired openings, both colours). The games go to the
games table under the opponent's name (the engine's label, `classical:N`), so the rating
places them on the pure-MCTS scale; they take no part in the promotion decision, which
stays with pure MCTS.

An engine that faults loses those games by forfeit (the reason in the table); one dropped
after too many faults keeps the games it finished; one that cannot start here (its program
is missing) is skipped with the reason: none of these stops the stage.

The classical ladder is the yardstick that keeps measuring on big boards, where random
rollouts say little: the climb stops at the first depth the candidate scores below 0.5
against (depth d+1 beats depth d, so deeper ones would only cost time), and the deepest
depth it scored 0.5 or more against is the figure the report shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.arena import GameRecord, PlayerDropped, play_lockstep, result_of
from pipeline.match.openings import OpeningSource, Suite
from pipeline.players.base import Player
from pipeline.players.classical import ClassicalPlayer
from pipeline.players.engines import EngineConfig, EnginePlayer, EngineSetupError


def play_engine(
    spec: GameSpec,
    candidate: Player,
    engine: EngineConfig,
    seed: int,
    opening_plies: int | None,
    log: Callable[[str], None],
    suite: Suite | None = None,
) -> tuple[list[GameRecord], dict[str, Any]]:
    """(records, summary) of the candidate against one engine."""
    try:
        player = EnginePlayer(engine)
    except ValueError as exc:
        log(f"engine {engine.label} skipped: {exc}")
        return [], {"skipped": str(exc)}
    openings = OpeningSource(spec, suite, opening_plies, np.random.default_rng(seed)).take((engine.games + 1) // 2)
    dropped = None
    try:
        records = play_lockstep(spec, candidate, player, openings, seed)
    except PlayerDropped as exc:
        records, dropped = exc.records, str(exc)
        log(f"candidate vs {engine.label}: {exc}; {len(records)} finished games kept")
    except EngineSetupError as exc:
        log(f"engine {engine.label} skipped: {exc}")
        return [], {"skipped": str(exc)}
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


def classical_name(depth: int) -> str:
    """The classical player's name in the games table and the rating."""
    return f"classical:{depth}"


def play_classical(
    spec: GameSpec,
    candidate: Player,
    depths: list[int],
    games: int,
    seed: int,
    opening_plies: int | None,
    log: Callable[[str], None],
    opponent: Callable[[int], Player] = ClassicalPlayer,
    suite: Suite | None = None,
) -> tuple[dict[int, list[GameRecord]], dict[str, Any]]:
    """(records by depth, summary) of the candidate climbing `depths` (rising), `games`
    games each, until it scores below 0.5; the summary's `matches` are by opponent name
    and `deepest_beaten` is the last depth scored 0.5 or more against (None: not the
    first). `opponent(depth)` makes the player of a depth (a test passes stand-ins)."""
    played: dict[int, list[GameRecord]] = {}
    matches: dict[str, dict[str, Any]] = {}
    deepest = None
    for i, depth in enumerate(depths):
        name = classical_name(depth)
        player = opponent(depth)
        player.name = name
        source = OpeningSource(spec, suite, opening_plies, np.random.default_rng(seed + i))
        openings = source.take((games + 1) // 2)
        played[depth] = play_lockstep(spec, candidate, player, openings, seed + i)
        figures = result_of(candidate.name, name, played[depth]).summary()
        matches[name] = figures
        log(f"candidate vs {name}: {figures['games']} games, score {figures['score']:.2f}")
        if figures["score"] < 0.5:
            break
        deepest = depth
    return played, {"matches": matches, "deepest_beaten": deepest}
