"""Self-play: one model plays a batch of games against itself with the batched search,
returning training positions (observations and visit distributions in the presented
frame, results from the point of view of the player to move)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from pipeline.games.base import GameSpec, GameState
from pipeline.replay import Positions
from pipeline.search.evaluator import Evaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action


class SelfPlayConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parallel_games: int = Field(32, ge=1, description="games advanced in lockstep per worker")
    temperature_moves: int = Field(8, ge=0, description="plies sampled at temperature 1, then the most visited move")
    search: SearchConfig = SearchConfig()


@dataclass
class SelfPlayStats:
    games: int
    positions: int
    first_player_wins: int
    second_player_wins: int
    draws: int
    seconds: float
    simulations: int

    @property
    def mean_length(self) -> float:
        return self.positions / self.games if self.games else 0.0


def play_games(
    spec: GameSpec,
    evaluator: Evaluator,
    games: int,
    config: SelfPlayConfig,
    seed: int,
    on_game_end: Callable[[int], None] | None = None,
) -> tuple[Positions, SelfPlayStats]:
    """Play `games` complete games; reproducible for a given seed and evaluator."""
    start = time.perf_counter()
    slots = min(config.parallel_games, games)
    search = BatchedMCTS(spec, slots, config.search, seed=seed)
    rng = np.random.default_rng(seed)
    states: list[GameState | None] = [None] * slots
    records: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(slots)]
    ids = [-1] * slots
    started = 0
    obs_out: list[np.ndarray] = []
    pi_out: list[np.ndarray] = []
    z_out: list[np.ndarray] = []
    id_out: list[np.ndarray] = []
    ply_out: list[np.ndarray] = []
    results = {0: 0, 1: 0, None: 0}
    finished = 0

    def start_game(slot: int) -> None:
        nonlocal started
        state = spec.new_game()
        states[slot] = state
        records[slot] = []
        ids[slot] = started
        started += 1
        search.reset(slot, state.array)

    for slot in range(slots):
        start_game(slot)
    while finished < games:
        active = np.array([s is not None for s in states])
        visits = search.search(evaluator, active=active, noise=True)
        for slot in np.flatnonzero(active):
            state = states[slot]
            assert state is not None
            v = visits[slot]
            total = v.sum()
            pi = v / total if total > 0 else state.legal_mask() / state.legal_mask().sum()
            pi_presented = np.zeros_like(pi)
            pi_presented[state.presented_order()] = pi
            records[slot].append(
                (state.observation().astype(np.uint8), pi_presented.astype(np.float32), state.current_player)
            )
            temperature = 1.0 if state.ply < config.temperature_moves else 0.0
            action = pick_action(v, temperature, rng)
            state.apply(action)
            if not state.is_terminal:
                search.advance(slot, action, state.array)
                continue
            winner = state.winner
            results[winner] += 1
            finished += 1
            rec = records[slot]
            obs_out.append(np.stack([r[0] for r in rec]))
            pi_out.append(np.stack([r[1] for r in rec]))
            z_out.append(np.array([0 if winner is None else (1 if r[2] == winner else -1) for r in rec], dtype=np.int8))
            id_out.append(np.full(len(rec), ids[slot], dtype=np.int32))
            ply_out.append(np.arange(len(rec), dtype=np.int16))
            if on_game_end:
                on_game_end(ids[slot])
            if started < games:
                start_game(slot)
            else:
                states[slot] = None
    positions = Positions(
        obs=np.concatenate(obs_out),
        pi=np.concatenate(pi_out),
        z=np.concatenate(z_out),
        game_id=np.concatenate(id_out),
        ply=np.concatenate(ply_out),
    )
    stats = SelfPlayStats(
        games=finished,
        positions=len(positions),
        first_player_wins=results[0],
        second_player_wins=results[1],
        draws=results[None],
        seconds=time.perf_counter() - start,
        simulations=search.evaluations,
    )
    return positions, stats
