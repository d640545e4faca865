"""The network as a search evaluator: a batch of observations in, priors and values out,
run by the backend the `inference` settings pick (pipeline/nets/inference.py)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

from pipeline.nets.inference import (
    Backend,
    Device,
    InferenceConfig,
    Precision,
    cache_root,
    resolve_device,
    resolve_precision,
)
from pipeline.nets.resnet import PolicyValueNet

DEFAULT_BATCH = 256  # what `auto` measures when the caller does not say its batch


class NetEvaluator:
    """Runs the net on whatever batch the search hands over.

    Without `config`, eager torch on the CPU in f32, as the net was trained. `threads` is
    this evaluator's intra-op thread count (None: torch's default for torch, the core count
    for the others); it never changes the process's setting for anyone else. `batch` is the
    batch the caller will use, which is what `backend: auto` measures."""

    def __init__(
        self,
        net: PolicyValueNet,
        threads: int | None = None,
        config: InferenceConfig | None = None,
        batch: int | None = None,
    ):
        from pipeline.nets.backends import TorchBackend, make_backend

        self.net = net.eval()
        if config is None:
            self.backend: Backend = "torch"
            self.device: Device = "cpu"
            self.precision: Precision = "f32"
            self._run = TorchBackend(self.net, "cpu", "f32", threads)
            return
        self.device = resolve_device(config.device)
        cache = cache_root(config)
        count = threads or os.cpu_count() or 1
        if config.backend == "auto":
            from pipeline.nets.autoselect import choose_backend

            self.backend = choose_backend(self.net, self.device, config, batch or DEFAULT_BATCH, count, cache)
        else:
            self.backend = config.backend
        self.precision = resolve_precision(config.precision, self.backend, self.device)
        if self.backend == "torch":
            self._run = TorchBackend(self.net, self.device, self.precision, threads)
        else:
            self._run = make_backend(self.backend, self.net, self.device, self.precision, count, cache)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._run(obs)

    def describe(self) -> str:
        return f"{self.backend}/{self.device}/{self.precision}"


_SHARED: OrderedDict[tuple, NetEvaluator] = OrderedDict()
_SHARED_LOCK = threading.Lock()
_SHARED_KEEP = 4


def shared_evaluator(
    net: PolicyValueNet, config: InferenceConfig, threads: int | None, batch: int | None = None
) -> NetEvaluator:
    """One evaluator per (weights, settings) in a process: the self-play tasks that a
    process runs on threads share the exported model, its compiled form and, on a GPU, the
    one copy of the weights in device memory."""
    from pipeline.nets.export import weights_hash

    key = (weights_hash(net), config, threads, batch)
    with _SHARED_LOCK:
        if key in _SHARED:
            _SHARED.move_to_end(key)
            return _SHARED[key]
        evaluator = NetEvaluator(net, threads, config, batch)
        _SHARED[key] = evaluator
        while len(_SHARED) > _SHARED_KEEP:
            _SHARED.popitem(last=False)
        return evaluator
