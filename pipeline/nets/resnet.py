"""The policy-value network: a residual tower with a policy head over every action and a
tanh value head. Hex can use hexagonal kernels: 3x3 kernels masked to the centre and its
six hex neighbours (the transpose used to present Hex keeps that neighbourhood).

Two kinds of heads. `fixed` (the original): fully connected layers over the board, so the
net plays the one board size it was built for. `size_free` (as Polygames and KataGo): a 1x1
convolution gives one policy logit per cell, and the value head (and Hex's swap logit) pools
the board globally (mean and max), so no weight depends on the board size and one
checkpoint plays every size of its game and rules.

`edge_plane` adds one input plane, made inside the net from the board's shape: each cell's
distance to the nearest edge. A trunk of 3x3 convolutions sees a few cells around each
cell, so on a big board a lone stone's place shows only where the stone sees an edge and
the central cells look alike to the net (RESULTS.md, twentieth session: "What the net can
see of a first stone"); the plane says where every cell is."""

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
    size_free: bool = Field(False, description="convolutional policy and globally pooled value: plays any board size")
    head_channels: int = Field(32, ge=2, le=512, description="size_free only: channels of the policy and value heads")
    edge_plane: bool = Field(False, description="an input plane of each cell's distance to the nearest edge")


EDGE_REACH = 9  # distances clipped here, so a size-free net sees on a bigger board the values it trained on


def edge_distance(height: int, width: int) -> torch.Tensor:
    """[1, 1, H, W]: each cell's distance to the nearest edge (in cells, at most
    EDGE_REACH) over EDGE_REACH: 0 on the edge, 1 from EDGE_REACH cells in. The same under
    every symmetry of the board, so augmentation leaves it as it is."""
    rows = torch.arange(height)
    cols = torch.arange(width)
    to_row_edge = torch.minimum(rows, height - 1 - rows)[:, None]
    to_col_edge = torch.minimum(cols, width - 1 - cols)[None, :]
    distance = torch.minimum(to_row_edge, to_col_edge).clamp(max=EDGE_REACH)
    return (distance.float() / EDGE_REACH)[None, None]


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


def global_pool(h: torch.Tensor) -> torch.Tensor:
    """[B, C, H, W] -> [B, 2C]: the mean and the max of each channel over the board."""
    return torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)


class SizeFreeHeads(nn.Module):
    """Policy: a logit per cell from 1x1 convolutions (plus, for Hex with swap, a swap logit
    from the pooled policy features). Value: 1x1 convolution, global mean and max pooling,
    two linear layers."""

    def __init__(self, game: GameSpec, net: NetSpec):
        super().__init__()
        ch, hc = net.channels, net.head_channels
        self.extra_actions = game.num_actions - game.cells
        self.policy_conv = nn.Sequential(nn.Conv2d(ch, hc, 1, bias=False), nn.BatchNorm2d(hc), nn.ReLU())
        self.policy_cells = nn.Conv2d(hc, 1, 1)
        self.policy_extra = nn.Linear(2 * hc, 1) if game.game == "hex" else None  # only used with swap
        self.value_conv = nn.Sequential(nn.Conv2d(ch, hc, 1, bias=False), nn.BatchNorm2d(hc), nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(2 * hc, net.value_hidden), nn.ReLU(), nn.Linear(net.value_hidden, 1))

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        p = self.policy_conv(h)
        logits = self.policy_cells(p).flatten(1)
        if self.extra_actions:
            assert self.policy_extra is not None
            logits = torch.cat([logits, self.policy_extra(global_pool(p))], dim=1)
        value = torch.tanh(self.value_fc(global_pool(self.value_conv(h)))).squeeze(1)
        return logits, value


class PolicyValueNet(nn.Module):
    """Input [B, C, H, W] planes; output policy logits [B, A] and values [B] in (-1, 1).
    A size-free net is built for one board (`game`), but its weights fit every board size
    of the same game and rules (`for_board`)."""

    def __init__(self, game: GameSpec, net: NetSpec | None = None):
        super().__init__()
        net = net or NetSpec()
        if net.hex_kernels and game.game != "hex":
            raise ValueError("hex_kernels is a Hex option")
        self.game = game
        self.net = net
        ch = net.channels
        cells = game.cells
        inputs = game.planes + (1 if net.edge_plane else 0)
        self.stem = nn.Sequential(Conv3x3(inputs, ch, net.hex_kernels), nn.BatchNorm2d(ch), nn.ReLU())
        if net.edge_plane:
            self.register_buffer("edge", edge_distance(game.height, game.width), persistent=False)
        self.tower = nn.Sequential(*[ResidualBlock(ch, net.hex_kernels) for _ in range(net.blocks)])
        if net.size_free:
            self.heads = SizeFreeHeads(game, net)
            return
        self.policy_conv = nn.Sequential(nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU())
        self.policy_fc = nn.Linear(2 * cells, game.num_actions)
        self.value_conv = nn.Sequential(nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(cells, net.value_hidden), nn.ReLU(), nn.Linear(net.value_hidden, 1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.net.edge_plane:
            x = torch.cat([x, self.edge.to(x.dtype).expand(x.shape[0], 1, -1, -1)], dim=1)
        h = self.tower(self.stem(x))
        if self.net.size_free:
            return self.heads(h)
        logits = self.policy_fc(self.policy_conv(h).flatten(1))
        value = torch.tanh(self.value_fc(self.value_conv(h).flatten(1))).squeeze(1)
        return logits, value


def same_rules(a: GameSpec, b: GameSpec) -> bool:
    """The same game and rules, whatever the board size."""
    return a.model_copy(update={"height": b.height, "width": b.width}) == b


def weights_fit(trained: GameSpec, game: GameSpec) -> bool:
    """A size-free net trained on `trained` plays `game`: the same game and rules on any
    board, and a Hex net trained with the swap rule also plays without it. Only the first
    reply differs between the two (the swap offered or not); its swap logit is then not
    asked for, and its observation's swap plane is off, as in its own games after the first
    reply. Not the other way: a net trained without the swap never learned its swap logit."""
    if trained.swap and not game.swap:  # only Hex has the swap rule (GameSpec checks it)
        trained = trained.model_copy(update={"swap": False})
    return same_rules(trained, game)


def for_board(net: PolicyValueNet, game: GameSpec) -> PolicyValueNet:
    """`net` for `game`'s board: itself when built for it, else (size-free nets only) a
    copy built for that board, or for that board without the swap rule (`weights_fit`),
    with the same weights."""
    if net.game == game:
        return net
    if not net.net.size_free or not weights_fit(net.game, game):
        raise ValueError(f"this net plays {net.game}, not {game}")
    other = PolicyValueNet(game, net.net)
    other.load_state_dict(net.state_dict())
    return other.train(net.training)
