"""A move chooser for the protocols and the web app: a network through PUCT search, or
pure MCTS, thinking within a simulation budget and (optionally) a time budget."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.search.mcts import BatchedMCTS, SearchConfig


@dataclass
class Thought:
    action: int
    visits: np.ndarray  # root visit counts by action
    value: float  # root value for the player to move
    simulations: int
    seconds: float


class Engine:
    """`model` is a checkpoint path, or None for pure MCTS with `playouts` per move."""

    def __init__(self, spec: GameSpec, model: Path | None = None, simulations: int = 400, playouts: int = 5000):
        self.spec = spec
        self.simulations = simulations
        self.playouts = playouts
        self.model = model
        self.evaluator = None
        self.qnet = None
        if model is not None:
            from pipeline.nets.evaluator import NetEvaluator
            from pipeline.nets.resnet import PolicyValueNet
            from pipeline.players import load_model

            loaded = load_model(model, spec)
            if isinstance(loaded, PolicyValueNet):
                self.evaluator = NetEvaluator(loaded)
            else:
                self.qnet = loaded
        kind = "dqn" if self.qnet is not None else "net"
        self.name = f"{kind}:{Path(model).stem}" if model else f"pure:{playouts}"

    def policy_value(self, state: GameState) -> tuple[np.ndarray, float] | None:
        """The raw network policy (by action, legal moves only) and value; None for pure MCTS."""
        if self.evaluator is None:
            return None
        priors, values = self.evaluator(state.observation()[None])
        legal = state.legal_mask()
        policy = np.zeros(self.spec.num_actions, dtype=np.float32)
        for a in np.flatnonzero(legal):
            policy[a] = priors[0][state.presented_action(int(a))]
        total = policy.sum()
        return (policy / total if total > 0 else legal / legal.sum()), float(values[0])

    def think(self, state: GameState, seconds: float | None = None, budget: int | None = None) -> Thought:
        """Search from `state`: `budget` simulations (playouts for pure MCTS), stopping
        early when `seconds` run out (at least one chunk is always searched)."""
        if state.is_terminal:
            raise ValueError("the game is over")
        start = time.perf_counter()
        if self.qnet is not None:
            from pipeline.dqn.agent import greedy, q_values

            q = q_values(self.qnet, [state])[0]
            action = greedy(q, state.legal_mask())
            return Thought(action, np.zeros(self.spec.num_actions), float(q[action]), 0, time.perf_counter() - start)
        if self.evaluator is None:
            return self._think_pure(state, seconds, budget or self.playouts, start)
        budget = budget or self.simulations
        chunk = max(16, min(budget, 64))
        search = BatchedMCTS(self.spec, 1, SearchConfig(simulations=chunk), seed=state.ply)
        search.reset(0, state.array)
        done = 0
        visits = np.zeros(self.spec.num_actions)
        while done < budget:
            search.config = search.config.model_copy(update={"simulations": min(chunk, budget - done)})
            visits = search.search(self.evaluator)[0]
            done += search.config.simulations
            if seconds is not None and time.perf_counter() - start > seconds:
                break
        action = int(np.argmax(visits))
        return Thought(action, visits, search.tree.root_value(0), done, time.perf_counter() - start)

    def _think_pure(self, state: GameState, seconds: float | None, budget: int, start: float) -> Thought:
        from pipeline.search.pure import PureMCTS

        chunk = max(200, min(budget, 2000))
        player = PureMCTS(chunk, seed=state.ply, reuse=True)
        done = 0
        visits = np.zeros(self.spec.num_actions)
        while done < budget:
            player.playouts = min(chunk, budget - done)
            visits = player.search(state)
            done += player.last_playouts
            if player.solved or (seconds is not None and time.perf_counter() - start > seconds):
                break
        return Thought(player.best_action(), visits, player.root_value(), done, time.perf_counter() - start)
