"""The policy-value network: a residual tower with a policy head over every action and a
tanh value head. Hex can use hexagonal kernels: 3x3 kernels masked to the centre and its
six hex neighbours (the transpose used to present Hex keeps that neighbourhood)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from pydantic import BaseModel, ConfigDict, Field
from torch import nn

from pipeline.games.base import GameSpec


class NetSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    blocks: int = Field(3, ge=0, le=40)
    channels: int = Field(64, ge=8, le=512)
    value_hidden: int = Field(64, ge=8, le=1024)
    hex_kernels: bool = Field(False, description="Hex only: kernels masked to the hexagonal neighbourhood")


HEX_MASK = torch.tensor([[0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])


class Conv3x3(nn.Conv2d):
    """3x3 convolution, optionally restricted to the hexagonal neighbourhood
    (offsets (-1,0), (-1,1), (0,-1), (0,1), (1,-1), (1,0) and the centre)."""

    def __init__(self, cin: int, cout: int, hexagonal: bool):
        super().__init__(cin, cout, 3, padding=1, bias=False)
        self.register_buffer("mask", HEX_MASK.clone() if hexagonal else torch.ones(3, 3), persistent=False)
        self.hexagonal = hexagonal

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = self.weight * self.mask if self.hexagonal else self.weight
        return F.conv2d(x, weight, None, self.stride, self.padding)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int, hexagonal: bool):
        super().__init__()
        self.conv1 = Conv3x3(channels, channels, hexagonal)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = Conv3x3(channels, channels, hexagonal)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    """Input [B, C, H, W] planes; output policy logits [B, A] and values [B] in (-1, 1)."""

    def __init__(self, game: GameSpec, net: NetSpec | None = None):
        super().__init__()
        net = net or NetSpec()
        if net.hex_kernels and game.game != "hex":
            raise ValueError("hex_kernels is a Hex option")
        self.game = game
        self.net = net
        ch = net.channels
        cells = game.cells
        self.stem = nn.Sequential(Conv3x3(game.planes, ch, net.hex_kernels), nn.BatchNorm2d(ch), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(ch, net.hex_kernels) for _ in range(net.blocks)])
        self.policy_conv = nn.Sequential(nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU())
        self.policy_fc = nn.Linear(2 * cells, game.num_actions)
        self.value_conv = nn.Sequential(nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(cells, net.value_hidden), nn.ReLU(), nn.Linear(net.value_hidden, 1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.tower(self.stem(x))
        logits = self.policy_fc(self.policy_conv(h).flatten(1))
        value = torch.tanh(self.value_fc(self.value_conv(h).flatten(1))).squeeze(1)
        return logits, value
