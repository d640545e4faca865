"""The engines that run the net's forward pass. Each is a callable from a float32 batch of
observations [B, C, H, W] to priors [B, A] and values [B] (numpy, float32), owns its
intra-op thread count (never the process's), and may be shared by the threads of a process.

- torch: eager PyTorch on the CPU or a CUDA GPU (pinned host buffers, bf16/f16 autocast);
- onnxruntime: ONNX Runtime's CPU provider on the exported graph (f32);
- openvino: OpenVINO's CPU plugin on the exported graph (f32, or bf16 where native)."""

from __future__ import annotations

import copy
import threading
from pathlib import Path

import numpy as np
import torch

from pipeline.nets.export import PriorsAndValues, export_onnx
from pipeline.nets.inference import Backend, Device, Precision
from pipeline.nets.resnet import PolicyValueNet

AUTOCAST = {"bf16": torch.bfloat16, "f16": torch.float16}


class TorchBackend:
    """Eager PyTorch. On the CPU, torch's thread count is process-wide state, so it is set
    for the duration of each call in the calling thread (OpenMP keeps it per thread) and
    put back afterwards: two evaluators with different counts do not disturb each other.
    `threads` None leaves torch's count alone."""

    name: Backend = "torch"

    def __init__(
        self, net: PolicyValueNet, device: Device = "cpu", precision: Precision = "f32", threads: int | None = 1
    ):
        self.device = torch.device(device)
        self.precision = precision
        self.threads = threads
        # On a GPU, a copy: moving the caller's own net would surprise it.
        model = copy.deepcopy(net) if self.device.type == "cuda" else net
        self.model = PriorsAndValues(model).eval().to(self.device)
        self._lock = threading.Lock()
        self._host_in: torch.Tensor | None = None

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.device.type == "cuda":
            return self._cuda(obs)
        before = torch.get_num_threads()
        switch = self.threads is not None and before != self.threads
        if switch:
            torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode(), self._autocast():
                priors, values = self.model(torch.from_numpy(obs))
            return priors.float().numpy(), values.float().numpy()
        finally:
            if switch:
                torch.set_num_threads(before)

    def _autocast(self):
        if self.precision == "f32":
            return torch.autocast(self.device.type, enabled=False)
        return torch.autocast(self.device.type, dtype=AUTOCAST[self.precision])

    def _cuda(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Copy through a pinned host buffer (an asynchronous DMA instead of a staged copy);
        one lock: the games of every thread in the process take turns on the one GPU."""
        n = obs.shape[0]
        with self._lock:
            if self._host_in is None or self._host_in.shape[0] < n:
                self._host_in = torch.empty((max(n, 64), *obs.shape[1:]), dtype=torch.float32).pin_memory()
            host = self._host_in[:n]
            host.numpy()[...] = obs
            with torch.inference_mode(), self._autocast():
                priors, values = self.model(host.to(self.device, non_blocking=True))
            return priors.float().cpu().numpy(), values.float().cpu().numpy()


class OnnxRuntimeBackend:
    """ONNX Runtime on the CPU: its own intra-op pool of `threads` (1: the calling thread),
    graph optimisations on (it folds batch norm into the convolutions)."""

    name: Backend = "onnxruntime"

    def __init__(self, net: PolicyValueNet, cache: Path, threads: int = 1):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # A spinning pool burns the core the other self-play worker needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = export_onnx(net, cache)
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.precision: Precision = "f32"

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self.session.run(None, {"obs": np.ascontiguousarray(obs, dtype=np.float32)})
        return priors, values


class OpenVinoBackend:
    """OpenVINO's CPU plugin, one compiled model per calling thread. A compiled model with
    one stream runs one request at a time: shared by two self-play workers it would
    serialise them. Each thread gets its own stream of `threads` threads instead (compiling
    this net takes about 0.1 s). No core pinning: two workers share the cores."""

    name: Backend = "openvino"

    def __init__(self, net: PolicyValueNet, cache: Path, precision: Precision = "f32", threads: int = 1):
        import openvino as ov

        self.core = ov.Core()
        self.model = self.core.read_model(str(export_onnx(net, cache)))
        self.config = {
            "INFERENCE_NUM_THREADS": threads,
            "NUM_STREAMS": 1,
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": precision,
            "ENABLE_CPU_PINNING": False,
        }
        self.precision = precision
        self._local = threading.local()
        self._compile_lock = threading.Lock()
        self._request()  # compile now: a setting the plugin refuses fails here, not mid-game

    def _request(self):
        request = getattr(self._local, "request", None)
        if request is None:
            with self._compile_lock:
                compiled = self.core.compile_model(self.model, "CPU", self.config)
            request = self._local.request = compiled.create_infer_request()
        return request

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        request = self._request()
        request.infer({0: np.ascontiguousarray(obs, dtype=np.float32)})
        # The output tensors are the request's own buffers, overwritten by its next call.
        return request.get_output_tensor(0).data.copy(), request.get_output_tensor(1).data.copy()


def make_backend(
    backend: Backend, net: PolicyValueNet, device: Device, precision: Precision, threads: int, cache: Path
) -> TorchBackend | OnnxRuntimeBackend | OpenVinoBackend:
    if backend == "torch":
        return TorchBackend(net, device, precision, threads)
    if backend == "onnxruntime":
        return OnnxRuntimeBackend(net, cache, threads)
    return OpenVinoBackend(net, cache, precision, threads)
