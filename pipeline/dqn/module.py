"""DQN training with Lightning: Q-eval learns from replay batches against a Q-target
that is copied from it every `target_sync` steps; RMSProp; epsilon decays linearly.
Every step logs loss, epsilon, mean Q, games played and memory size to MLflow."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

from pipeline.dqn.agent import SelfPlayExperience
from pipeline.dqn.config import DQNConfig
from pipeline.dqn.memory import ReplayMemory
from pipeline.dqn.qnet import QNetwork
from pipeline.dqn.td import td_target
from pipeline.games.base import GameSpec


class ExperienceStream(IterableDataset):
    """Plays, then yields a replay batch; forever (the trainer stops it)."""

    def __init__(self, module: DQNModule):
        self.module = module

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        m = self.module
        cfg = m.cfg
        while len(m.memory) < cfg.warmup:
            m.experience.step(cfg.epsilon_start)
        while True:
            for _ in range(cfg.moves_per_step):
                m.experience.step(m.epsilon)
            b = m.memory.sample(cfg.batch_size)
            yield (
                torch.from_numpy(b.obs.astype(np.float32)),
                torch.from_numpy(b.action),
                torch.from_numpy(b.reward),
                torch.from_numpy(b.next_obs.astype(np.float32)),
                torch.from_numpy(b.next_legal),
                torch.from_numpy(b.done),
                torch.from_numpy(b.same_player),
            )


class DQNModule(L.LightningModule):
    def __init__(self, spec: GameSpec, cfg: DQNConfig, net: QNetwork | None = None):
        super().__init__()
        self.spec = spec
        self.cfg = cfg
        self.q_net = net or QNetwork(spec, cfg.net)
        self.target_net = copy.deepcopy(self.q_net).eval()
        for p in self.target_net.parameters():
            p.requires_grad_(False)
        self.memory = ReplayMemory(cfg.memory, spec.obs_shape, spec.num_actions, seed=cfg.seed)
        self.experience = SelfPlayExperience(spec, self.q_net, self.memory, cfg.parallel_games, cfg.shaping, cfg.seed)
        self.syncs = 0

    @property
    def epsilon(self) -> float:
        c = self.cfg
        frac = min(1.0, self.global_step / c.epsilon_decay)
        return c.epsilon_start + frac * (c.epsilon_end - c.epsilon_start)

    def sync_target(self) -> None:
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.syncs += 1

    def loss(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        obs, action, reward, next_obs, next_legal, done, same = batch
        q = self.q_net(obs).gather(1, action.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            next_target = self.target_net(next_obs)
            next_online = self.q_net(next_obs) if self.cfg.double else None
            target = td_target(reward, done, same, next_legal, next_target, self.cfg.gamma, next_online)
        return F.smooth_l1_loss(q, target), q

    def training_step(self, batch, batch_idx: int) -> torch.Tensor:
        loss, q = self.loss(batch)
        self.log_dict(
            {
                "loss": loss.detach(),
                "epsilon": self.epsilon,
                "mean_q": q.detach().mean(),
                "games": float(self.experience.games),
                "memory": float(len(self.memory)),
            },
            on_step=True,
            on_epoch=False,
            prog_bar=False,
        )
        return loss

    def on_train_batch_end(self, outputs, batch, batch_idx: int) -> None:
        if self.global_step % self.cfg.target_sync == 0:
            self.sync_target()

    def configure_optimizers(self):  # type: ignore[override]
        return torch.optim.RMSprop(self.q_net.parameters(), lr=self.cfg.lr, alpha=0.95, eps=0.01)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(ExperienceStream(self), batch_size=None)
