"""The network as a search evaluator: a batch of observations in, priors and values out."""

from __future__ import annotations

import numpy as np
import torch

from pipeline.nets.resnet import PolicyValueNet


class NetEvaluator:
    """Runs the net in inference mode on the CPU on whatever batch the search hands over.
    `threads` sets torch's intra-op threads for this worker (None leaves torch's choice)."""

    def __init__(self, net: PolicyValueNet, threads: int | None = None):
        self.net = net.eval()
        if threads is not None:
            torch.set_num_threads(threads)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, value = self.net(torch.from_numpy(obs))
            priors = torch.softmax(logits, dim=1)
        return priors.numpy(), value.numpy()
