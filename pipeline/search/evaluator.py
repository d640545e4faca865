"""The evaluator protocol: how a network (or anything else) reaches the search.

An evaluator maps a batch of observation planes [B, C, H, W] (float32, presented frame)
to priors over the presented actions [B, A] and values [B] in [-1, 1] for the player to
move. Priors need not be normalised or masked: the search keeps legal moves only and
renormalises them."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Evaluator(Protocol):
    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class UniformEvaluator:
    """Uniform priors and a value of zero: search guided by nothing but terminal states."""

    def __init__(self, num_actions: int):
        self.num_actions = num_actions

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = obs.shape[0]
        return np.full((n, self.num_actions), 1.0 / self.num_actions, dtype=np.float32), np.zeros(n, dtype=np.float32)
