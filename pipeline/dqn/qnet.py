"""The Q-network: a small convolutional tower over the same observation planes as the
policy-value net, with one Q-value per action (the player to move's view). Illegal
actions are masked to -inf before any max or argmax."""

from __future__ import annotations

import torch
from pydantic import BaseModel, ConfigDict, Field
from torch import nn

from pipeline.games.base import GameSpec
from pipeline.nets.resnet import Conv3x3, ResidualBlock

NEG_INF = -1e9


class QNetSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    blocks: int = Field(2, ge=0, le=20)
    channels: int = Field(64, ge=8, le=512)


class QNetwork(nn.Module):
    def __init__(self, game: GameSpec, spec: QNetSpec | None = None):
        super().__init__()
        spec = spec or QNetSpec()
        self.game = game
        self.spec = spec
        ch = spec.channels
        self.stem = nn.Sequential(Conv3x3(game.planes, ch, False), nn.BatchNorm2d(ch), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(ch, False) for _ in range(spec.blocks)])
        self.head = nn.Sequential(
            nn.Conv2d(ch, 2, 1), nn.ReLU(), nn.Flatten(), nn.Linear(2 * game.cells, game.num_actions)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # tanh keeps Q in the range of game results (-1..1), as the value head does.
        return torch.tanh(self.head(self.tower(self.stem(x))))


def masked(q: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    return torch.where(legal, q, torch.full_like(q, NEG_INF))
