"""Acting with a Q-network: epsilon-greedy over legal moves while training, greedy for
`players.DQNPlayer` (the arena, the web app and the protocols). Also the self-play
experience source that fills the replay memory."""

from __future__ import annotations

import numpy as np
import torch

from pipeline.dqn.memory import ReplayMemory
from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import GameSpec, GameState
from pipeline.games.gomoku import run_length

DIRS = ((0, 1), (1, 0), (1, 1), (1, -1))


def q_values(net: QNetwork, states: list[GameState], obs: np.ndarray | None = None) -> np.ndarray:
    """Q by real action for each state (Hex's presented frame mapped back); `obs` are the
    states' observations when the caller already has them."""
    if obs is None:
        obs = np.stack([s.observation() for s in states])
    x = torch.from_numpy(obs).to(next(net.parameters()).device)  # the GPU when training runs there
    was_training = net.training
    net.eval()
    with torch.no_grad():
        q = net(x).float().cpu().numpy()
    net.train(was_training)
    return np.stack([q[i][s.presented_order()] for i, s in enumerate(states)])


def greedy(q: np.ndarray, legal: np.ndarray) -> int:
    return int(np.argmax(np.where(legal, q, -np.inf)))


def shaped_reward(state: GameState, action: int, scale: float) -> float:
    """The Gomoku study's pattern reward, small beside a win's +1: lines the stone makes
    for its player and lines of the opponent it cuts, measured before the move."""
    spec = state.spec
    if not spec.wins_by_line or scale <= 0 or action >= spec.cells:
        return 0.0
    me = state.current_player + 1
    k = spec.k
    own = max(run_length(state.array, action, me, dr, dc) for dr, dc in DIRS)
    cut = max(run_length(state.array, action, 3 - me, dr, dc) for dr, dc in DIRS)
    return scale * (min(own, k) - 1 + min(cut, k) - 1) / (2 * (k - 1))


class SelfPlayExperience:
    """Plays `parallel` games against itself with one network, epsilon-greedy, storing
    each move as a transition from the mover's point of view."""

    def __init__(self, spec: GameSpec, net: QNetwork, memory: ReplayMemory, parallel: int, shaping: float, seed: int):
        self.spec = spec
        self.net = net
        self.memory = memory
        self.shaping = shaping if spec.wins_by_line else 0.0
        self.rng = np.random.default_rng(seed)
        self.states = [spec.new_game() for _ in range(parallel)]
        # Each game's current observation, computed once: Q input now, stored as the
        # transition's state, and (made after the move) its next state.
        self.obs = [s.observation() for s in self.states]
        self.games = 0
        self.moves = 0

    def step(self, epsilon: float) -> None:
        """One move in every game."""
        q = q_values(self.net, self.states, np.stack(self.obs))
        for i, state in enumerate(self.states):
            legal = state.legal_mask()
            if self.rng.random() < epsilon:
                action = int(self.rng.choice(np.flatnonzero(legal)))
            else:
                action = greedy(q[i], legal)
            mover = state.current_player
            reward = shaped_reward(state, action, self.shaping)
            state.apply(action)
            done = state.is_terminal
            if done:
                reward = 1.0 if state.winner == mover else 0.0
            next_obs = state.observation()
            self.memory.push(
                self.obs[i].astype(np.uint8),
                self.spec.presented_action(action, mover),  # the mover's frame
                reward,
                next_obs.astype(np.uint8),
                presented_legal(state),
                done,
                (not done) and state.current_player == mover,
            )
            self.moves += 1
            self.obs[i] = next_obs
            if done:
                self.games += 1
                self.states[i] = self.spec.new_game()
                self.obs[i] = self.states[i].observation()


def presented_legal(state: GameState) -> np.ndarray:
    out = np.zeros(state.spec.num_actions, dtype=np.bool_)
    out[state.presented_order()[state.legal_mask()]] = True
    return out
