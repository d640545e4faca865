"""`backend: auto`: time every backend that runs on this device on the net's own batch, keep
the fastest, and remember the choice (a JSON file in the cache) so that later processes on
the same machine, net shape, batch and threads skip the measurement and all agree."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pipeline.nets.inference import Backend, Device, InferenceConfig, candidates, cpu_name, resolve_precision
from pipeline.nets.resnet import PolicyValueNet
from pipeline.runtime.atomic import atomic_file
from pipeline.runtime.locks import locked

Forward = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def interleaved_medians(fns: dict[str, Forward], obs: np.ndarray, repeats: int) -> dict[str, float]:
    """Median seconds per call of each function, the calls alternating between functions
    so that a change in machine load falls on all of them alike."""
    for fn in fns.values():
        fn(obs)  # warm-up: first-call allocation, lazy compilation
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn(obs)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def decision_key(net: PolicyValueNet, device: Device, config: InferenceConfig, batch: int, threads: int) -> str:
    import torch

    versions = [f"torch={torch.__version__}"]
    for module in ("onnxruntime", "openvino"):
        with contextlib.suppress(ImportError):
            versions.append(f"{module}={__import__(module).__version__}")
    shape = f"{net.game.planes}x{net.game.height}x{net.game.width}->{net.game.num_actions}"
    spec = f"b{net.net.blocks}c{net.net.channels}v{net.net.value_hidden}{'h' if net.net.hex_kernels else ''}"
    where = device if device == "cuda" else cpu_name()
    return "|".join([where, shape, spec, f"batch={batch}", f"threads={threads}", config.precision, *versions])


def measure(
    net: PolicyValueNet,
    device: Device,
    config: InferenceConfig,
    batch: int,
    threads: int,
    cache: Path,
    repeats: int = 5,
) -> dict[str, float]:
    """Seconds per forward pass of each candidate backend on a batch of `batch` random boards."""
    from pipeline.nets.backends import make_backend

    rng = np.random.default_rng(0)
    obs = rng.integers(0, 2, (batch, *net.game.obs_shape)).astype(np.float32)
    fns: dict[str, Forward] = {}
    for name in candidates(device):
        precision = resolve_precision(config.precision, name, device)
        fns[name] = make_backend(name, net, device, precision, threads, cache)
    return interleaved_medians(fns, obs, repeats)


def choose_backend(
    net: PolicyValueNet, device: Device, config: InferenceConfig, batch: int, threads: int, cache: Path
) -> Backend:
    """The fastest backend for this setting, measured once per machine and remembered."""
    path = Path(cache) / "auto-backend.json"
    key = decision_key(net, device, config, batch, threads)
    # Self-play processes starting together must not each measure and pick differently:
    # the first measures under the lock, the others read its choice.
    with locked(path.with_suffix(".lock")):
        try:
            known = json.loads(path.read_text())
        except (OSError, ValueError):
            known = {}
        if key in known:
            return known[key]["backend"]
        seconds = measure(net, device, config, batch, threads, cache)
        best = min(seconds, key=seconds.__getitem__)
        known[key] = {"backend": best, "positions_per_s": {k: round(batch / s, 1) for k, s in seconds.items()}}
        with atomic_file(path, "w") as f:
            json.dump(known, f, indent=1, sort_keys=True)
    return best  # type: ignore[return-value]
