"""A trained DQN Q-network as a player: the legal move with the highest Q, no search."""

from __future__ import annotations

import time

import numpy as np

from pipeline.dqn.agent import greedy, q_values
from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import GameSpec, GameState
from pipeline.players.base import Thought, check_position


class DQNPlayer:
    """A trained Q-network: the legal move with the highest Q, no search."""

    def __init__(self, net: QNetwork, name: str = "dqn"):
        self.net = net.eval()
        self.name = name

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        if spec != self.net.game:
            raise ValueError(f"this DQN plays {self.net.game}, not {spec}")

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        q = q_values(self.net, states)
        return [greedy(q[i], s.legal_mask()) for i, s in enumerate(states)]

    def observe(self, game: int, state: GameState, action: int) -> None:
        pass

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        check_position(state)
        start = time.perf_counter()
        q = q_values(self.net, [state])[0]
        action = greedy(q, state.legal_mask())
        zeros = np.zeros(state.spec.num_actions, dtype=np.float32)
        return Thought(action, zeros, float(q[action]), 0, time.perf_counter() - start)
