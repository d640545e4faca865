"""The net as an ONNX file, exported on first use and cached by the hash of its weights.

The exported graph ends in the softmax, so a backend hands the search its priors without
a second pass over the batch in numpy. The batch dimension is dynamic: one file serves
every self-play batch size."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import torch
from torch import nn

from pipeline.nets.resnet import PolicyValueNet
from pipeline.runtime.atomic import atomic_file

# Bump when the exported graph changes shape or meaning, so stale files are not reused.
EXPORT_VERSION = 1
OPSET = 17


class PriorsAndValues(nn.Module):
    """The net with its softmax: observations in, priors and values out."""

    def __init__(self, net: PolicyValueNet):
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(obs)
        return torch.softmax(logits, dim=1), value


def weights_hash(net: PolicyValueNet) -> str:
    """The hash of what the checkpoint holds for inference: game, net spec and weights.
    Two checkpoints with the same weights (say the learner promoted to champion) share
    one export."""
    h = hashlib.sha256()
    h.update(json.dumps({"game": net.game.model_dump(), "net": net.net.model_dump()}, sort_keys=True).encode())
    for name, tensor in net.state_dict().items():
        h.update(name.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def onnx_path(net: PolicyValueNet, cache: Path) -> Path:
    return Path(cache) / "onnx" / f"{weights_hash(net)}-v{EXPORT_VERSION}-opset{OPSET}.onnx"


def export_onnx(net: PolicyValueNet, cache: Path) -> Path:
    """The cached ONNX file of `net`, exported (atomically) if it is not there yet."""
    path = onnx_path(net, cache)
    if path.is_file():
        return path
    was_training = net.training
    net.eval()
    sample = torch.zeros(2, *net.game.obs_shape)
    with warnings.catch_warnings(), atomic_file(path) as f:
        # The TorchScript exporter: the dynamo one needs onnxscript and is slower for a
        # graph this plain; both give the same operators here.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            PriorsAndValues(net),
            (sample,),
            f,
            input_names=["obs"],
            output_names=["priors", "value"],
            dynamic_axes={"obs": {0: "batch"}, "priors": {0: "batch"}, "value": {0: "batch"}},
            opset_version=OPSET,
            dynamo=False,
        )
    net.train(was_training)
    return path
