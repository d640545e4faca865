"""Replay memory: a ring buffer of (state, action, reward, next state) transitions, with
what the TD target needs about the next state: its legal moves, whether the game ended,
and whether the same player moves again (Connect6's second stone)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Batch:
    obs: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    next_obs: np.ndarray
    next_legal: np.ndarray
    done: np.ndarray
    same_player: np.ndarray


class ReplayMemory:
    def __init__(self, capacity: int, obs_shape: tuple[int, ...], num_actions: int, seed: int = 0):
        self.capacity = capacity
        self.obs = np.zeros((capacity, *obs_shape), dtype=np.uint8)
        self.next_obs = np.zeros((capacity, *obs_shape), dtype=np.uint8)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.next_legal = np.zeros((capacity, num_actions), dtype=np.bool_)
        self.done = np.zeros(capacity, dtype=np.bool_)
        self.same_player = np.zeros(capacity, dtype=np.bool_)
        self.size = 0
        self.head = 0
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.size

    def push(self, obs, action, reward, next_obs, next_legal, done, same_player) -> None:
        i = self.head
        self.obs[i] = obs
        self.action[i] = action
        self.reward[i] = reward
        self.next_obs[i] = next_obs
        self.next_legal[i] = next_legal
        self.done[i] = done
        self.same_player[i] = same_player
        self.head = (self.head + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, n: int) -> Batch:
        idx = self.rng.integers(0, self.size, size=n)
        return Batch(
            self.obs[idx],
            self.action[idx],
            self.reward[idx],
            self.next_obs[idx],
            self.next_legal[idx],
            self.done[idx],
            self.same_player[idx],
        )
