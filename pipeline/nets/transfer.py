"""A curriculum's first step: a new net for this board whose weights come from a
checkpoint trained on another board (or rules) of the same game.

Every tensor whose name and shape match is copied: the whole net when both are size-free
with the same architecture, else the stem and the residual tower (convolutions do not
depend on the board size) and whatever head layers still fit. The tower must match
(blocks, channels, hexagonal kernels), since it is what carries the knowledge.

A net given the edge plane (NetSpec.edge_plane) from one without it keeps every weight: the
stem's weights for the new plane start at zero, so it plays exactly as before until
trained (`with_edge_plane`). A net given more residual blocks (NetSpec.blocks) than it has
keeps every weight too: the new blocks go at the end of the tower with the scale and shift of
their last batch norm at zero, so each adds nothing to its input and the net plays exactly as
before until trained (`deepened`). `carried_optimizer_state` fits the learner's Adam moments
to either."""

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
    theirs = {k: widened(v, mine[k]) if k in mine else v for k, v in theirs.items()}
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


def widened(theirs: torch.Tensor, mine: torch.Tensor) -> torch.Tensor:
    """`theirs` padded with zeros to `mine`'s shape where only its input channels (dim 1 of
    a convolution's weight) are fewer, as the stem's are without the edge plane; else as it is."""
    if theirs.dim() != 4 or theirs.shape[0] != mine.shape[0] or theirs.shape[2:] != mine.shape[2:]:
        return theirs
    extra = mine.shape[1] - theirs.shape[1]
    if extra <= 0:
        return theirs
    return torch.cat([theirs, theirs.new_zeros(theirs.shape[0], extra, *theirs.shape[2:])], dim=1)


def with_edge_plane(net: PolicyValueNet) -> PolicyValueNet:
    """`net` with the edge plane as one more input, the stem's weights for it zero: the
    same priors and values until trained."""
    if net.net.edge_plane:
        return net
    wider = PolicyValueNet(net.game, net.net.model_copy(update={"edge_plane": True}))
    mine = wider.state_dict()
    wider.load_state_dict({k: widened(v, mine[k]) for k, v in net.state_dict().items()})
    return wider.train(net.training)


def deepened(net: PolicyValueNet, blocks: int) -> PolicyValueNet:
    """`net` with `blocks` residual blocks, the ones it lacks appended to its tower as
    identities: the last batch norm of each new block scales and shifts by zero, so the
    block returns relu(x + 0) = x (its input is already past a relu). The same priors and
    values until trained; the zero scale still gets gradients, so the block learns."""
    have = net.net.blocks
    if blocks <= have:
        return net
    deeper = PolicyValueNet(net.game, net.net.model_copy(update={"blocks": blocks}))
    mine = deeper.state_dict()
    mine.update(net.state_dict())  # the stem, the first blocks and the heads keep their names
    for index in range(have, blocks):
        mine[f"tower.{index}.bn2.weight"] = torch.zeros_like(mine[f"tower.{index}.bn2.weight"])
        mine[f"tower.{index}.bn2.bias"] = torch.zeros_like(mine[f"tower.{index}.bn2.bias"])
    deeper.load_state_dict(mine)
    return deeper.train(net.training)


def carried_optimizer_state(state: dict, old: PolicyValueNet, new: PolicyValueNet) -> dict:
    """An optimiser state of `old`'s parameters for `new`'s, matched by parameter name (the
    state is kept by position, which new blocks shift): each moment of a parameter that grew
    is padded with zeros as the parameter was; a parameter `old` lacked starts without one.
    One parameter group, as the learner's optimiser has."""
    old_params = list(old.named_parameters())
    new_index = {name: (index, param) for index, (name, param) in enumerate(new.named_parameters())}
    out: dict = {"state": {}, "param_groups": [dict(group) for group in state["param_groups"]]}
    for index, moments in state["state"].items():
        name, old_param = old_params[index]
        if name not in new_index:
            continue
        target, param = new_index[name]
        out["state"][target] = {
            key: widened(value, param) if torch.is_tensor(value) and value.shape == old_param.shape else value
            for key, value in moments.items()
        }
    out["param_groups"][0]["params"] = list(range(len(new_index)))
    return out
