"""A curriculum's first step: a new net for this board whose weights come from a
checkpoint trained on another board (or rules) of the same game.

Every tensor whose name and shape match is copied: the whole net when both are size-free
with the same architecture, else the stem and the residual tower (convolutions do not
depend on the board size) and whatever head layers still fit. The tower must match
(blocks, channels, hexagonal kernels), since it is what carries the knowledge."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import FORMAT, CheckpointError, read_payload
from pipeline.nets.resnet import NetSpec, PolicyValueNet

TRUNK = ("stem.", "tower.")


@dataclass
class Transfer:
    source: str
    source_game: str
    copied: int  # tensors copied
    fresh: int  # tensors left at their initial values (heads that do not fit)

    def describe(self) -> str:
        whole = "every weight" if self.fresh == 0 else f"{self.copied} tensors (the trunk), {self.fresh} fresh"
        return f"initialised from {self.source} ({self.source_game}): {whole}"


def net_from(source: Path, game: GameSpec, net_spec: NetSpec) -> tuple[PolicyValueNet, Transfer]:
    """A net for `game` with `net_spec`, its weights taken from the checkpoint `source`."""
    payload = read_payload(source, FORMAT)
    trained = GameSpec.model_validate(payload["game"])
    if trained.game != game.game:
        raise CheckpointError(f"{source}: init_from must be a {game.game} checkpoint, this one is for {trained}")
    theirs: dict[str, torch.Tensor] = payload["state_dict"]
    net = PolicyValueNet(game, net_spec)
    mine = net.state_dict()
    trunk = [k for k in mine if k.startswith(TRUNK)]
    misfit = [k for k in trunk if k not in theirs or theirs[k].shape != mine[k].shape]
    if misfit:
        theirs_spec = NetSpec.model_validate(payload["net"])
        raise CheckpointError(
            f"{source}: its tower (blocks {theirs_spec.blocks}, channels {theirs_spec.channels}, hex_kernels "
            f"{theirs_spec.hex_kernels}) does not fit net (blocks {net_spec.blocks}, channels {net_spec.channels}, "
            f"hex_kernels {net_spec.hex_kernels}); set those in params.net to the checkpoint's"
        )
    copied = {k: v for k, v in theirs.items() if k in mine and v.shape == mine[k].shape}
    mine.update(copied)
    net.load_state_dict(mine)
    fresh = sum(1 for k in mine if k not in copied)
    return net, Transfer(str(source), str(trained), len(copied), fresh)
