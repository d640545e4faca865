"""Self-play: one model plays a batch of games against itself with the batched search,
returning training positions (observations and visit distributions in the presented
frame, results from the point of view of the player to move)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.games.base import GameSpec, GameState
from pipeline.runtime.interrupt import Interrupted
from pipeline.search.evaluator import Evaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.selfplay.replay import Positions


class SelfPlayConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parallel_games: int = Field(32, ge=1, description="games advanced in lockstep per worker")
    temperature_moves: int = Field(8, ge=0, description="plies sampled at temperature 1, then the most visited move")
    search: SearchConfig = SearchConfig()
    fast_simulations: int | None = Field(
        None,
        ge=1,
        description="playout-cap randomisation: moves not drawn for a full search get this many simulations, "
        "no root noise, and are not training targets (None: every move is a full search)",
    )
    full_search_prob: float = Field(0.25, gt=0, le=1, description="share of moves searched in full under a playout cap")
    resign_threshold: float | None = Field(
        None, ge=-1, le=0, description="resign when the searched root value falls below this (None: never)"
    )
    resign_calibration: float = Field(
        0.1, ge=0, le=1, description="share of games played out with resignation off, to count false resignations"
    )

    @model_validator(mode="after")
    def _fast_below_full(self) -> SelfPlayConfig:
        if self.fast_simulations is not None and self.fast_simulations >= self.search.simulations:
            raise ValueError(
                f"fast_simulations ({self.fast_simulations}) must be below search.simulations "
                f"({self.search.simulations})"
            )
        return self


@dataclass
class SelfPlayStats:
    games: int
    positions: int
    first_player_wins: int
    second_player_wins: int
    draws: int
    seconds: float
    simulations: int
    plies: int = 0
    resigned: int = 0
    calibration_games: int = 0
    would_resign: int = 0
    false_resignations: int = 0
    winner_min_values: list[float] = field(default_factory=list)


def resign_threshold_for(winner_min_values: list[float], false_rate: float = 0.05) -> float | None:
    """The threshold AlphaGo Zero's calibration aims for: at most `false_rate` of the
    games' eventual winners ever saw their root value fall below it. None without data."""
    if not winner_min_values:
        return None
    return float(np.quantile(np.asarray(winner_min_values, dtype=np.float64), false_rate))


def play_games(
    spec: GameSpec,
    evaluator: Evaluator,
    games: int,
    config: SelfPlayConfig,
    seed: int,
    on_game_end: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[Positions, SelfPlayStats]:
    """Play `games` complete games; reproducible for a given seed and evaluator.

    With a playout cap, only full searches become training positions. With a resignation
    threshold, a game ends when the player to move sees its root value below it, except
    in the calibration games, which are played out to count how often that would have
    been wrong.

    `on_game_end(game_id, positions kept)` follows each finished game. `should_stop` is
    asked between moves; when it says yes, the games in flight are dropped and
    `Interrupted` is raised, so a Ctrl-C stops self-play within one move."""
    start = time.perf_counter()
    slots = min(config.parallel_games, games)
    search = BatchedMCTS(spec, slots, config.search, seed=seed)
    rng = np.random.default_rng(seed)
    # Its own stream, so that games without a playout cap or resignation stay identical.
    extra_rng = np.random.default_rng([seed, 1])
    every_move_full = np.ones(slots, dtype=np.bool_)
    states: list[GameState | None] = [None] * slots
    records: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(slots)]
    ids = [-1] * slots
    calibrating = np.zeros(slots, dtype=np.bool_)
    min_value = np.ones((slots, 2), dtype=np.float64)
    would_resign = np.zeros((slots, 2), dtype=np.bool_)
    started = 0
    kept: list[Positions] = []
    results = {0: 0, 1: 0, None: 0}
    counts = {"finished": 0, "plies": 0, "resigned": 0, "calibration": 0, "would_resign": 0, "false": 0}
    winner_mins: list[float] = []

    def start_game(slot: int) -> None:
        nonlocal started
        state = spec.new_game()
        states[slot] = state
        records[slot] = []
        ids[slot] = started
        started += 1
        search.reset(slot, state.array)
        min_value[slot] = 1.0
        would_resign[slot] = False
        calibrating[slot] = config.resign_threshold is None or extra_rng.random() < config.resign_calibration

    def end_game(slot: int, winner: int | None, resigned: bool) -> None:
        results[winner] += 1
        counts["finished"] += 1
        counts["resigned"] += resigned
        if calibrating[slot]:
            if winner is not None:
                winner_mins.append(float(min_value[slot, winner]))
            if config.resign_threshold is not None:
                counts["calibration"] += 1
                for player in (0, 1):
                    if would_resign[slot, player]:
                        counts["would_resign"] += 1
                        counts["false"] += winner != 1 - player
        rec = records[slot]
        if rec:  # a game resigned before its first full search keeps nothing
            kept.append(
                Positions(
                    obs=np.stack([r[0] for r in rec]),
                    pi=np.stack([r[1] for r in rec]),
                    z=np.array([0 if winner is None else (1 if r[2] == winner else -1) for r in rec], dtype=np.int8),
                    game_id=np.full(len(rec), ids[slot], dtype=np.int32),
                    ply=np.array([r[3] for r in rec], dtype=np.int16),
                )
            )
        if on_game_end:
            on_game_end(ids[slot], len(rec))
        if started < games:
            start_game(slot)
        else:
            states[slot] = None

    for slot in range(slots):
        start_game(slot)
    while counts["finished"] < games:
        if should_stop is not None and should_stop():
            raise Interrupted(f"{counts['finished']} of {games} games finished, the rest dropped")
        active = np.array([s is not None for s in states])
        full, budget = every_move_full, None
        if config.fast_simulations is not None:
            full = extra_rng.random(slots) < config.full_search_prob
            budget = np.where(full, config.search.simulations, config.fast_simulations)
        visits = search.search(evaluator, active=active, noise=full, simulations=budget)
        for slot in np.flatnonzero(active):
            state = states[slot]
            assert state is not None
            mover = state.current_player
            value = search.tree.root_value(int(slot))
            min_value[slot, mover] = min(min_value[slot, mover], value)
            if config.resign_threshold is not None and value < config.resign_threshold:
                if not calibrating[slot]:
                    end_game(slot, 1 - mover, resigned=True)
                    continue
                would_resign[slot, mover] = True
            v = visits[slot]
            if full[slot]:
                total = v.sum()
                pi = v / total if total > 0 else state.legal_mask() / state.legal_mask().sum()
                pi_presented = np.zeros_like(pi)
                pi_presented[state.presented_order()] = pi
                records[slot].append(
                    (state.observation().astype(np.uint8), pi_presented.astype(np.float32), mover, state.ply)
                )
            temperature = 1.0 if state.ply < config.temperature_moves else 0.0
            action = pick_action(v, temperature, rng)
            state.apply(action)
            counts["plies"] += 1
            if not state.is_terminal:
                search.advance(slot, action, state.array)
                continue
            end_game(slot, state.winner, resigned=False)
    positions = Positions.concat(kept) if kept else Positions.empty(spec.obs_shape, spec.num_actions)
    stats = SelfPlayStats(
        games=counts["finished"],
        positions=len(positions),
        first_player_wins=results[0],
        second_player_wins=results[1],
        draws=results[None],
        seconds=time.perf_counter() - start,
        simulations=search.evaluations,
        plies=counts["plies"],
        resigned=counts["resigned"],
        calibration_games=counts["calibration"],
        would_resign=counts["would_resign"],
        false_resignations=counts["false"],
        winner_min_values=winner_mins,
    )
    return positions, stats
