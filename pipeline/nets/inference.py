"""The `inference` section of params.yaml and how its `auto` values resolve on this machine.

backend: which engine runs the net's forward pass (torch eager, ONNX Runtime, OpenVINO, or
`auto`: the fastest one measured here for this net, batch and thread count).
device: `auto` is CUDA when torch sees a GPU, else the CPU.
precision: `auto` is bf16 where the hardware computes it natively (a CUDA GPU with bf16,
a CPU with AVX512-BF16 or AMX) and the backend can use it, f32 everywhere else."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Backend = Literal["torch", "onnxruntime", "openvino"]
BACKENDS: tuple[Backend, ...] = ("torch", "onnxruntime", "openvino")
Device = Literal["cpu", "cuda"]
Precision = Literal["f32", "bf16", "f16"]


class InferenceError(ValueError):
    """An inference setting this machine or backend cannot honour; the message says why."""


class InferenceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["auto", "torch", "onnxruntime", "openvino"] = Field(
        "auto", description="forward-pass engine; auto: the fastest measured on this machine"
    )
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="auto: CUDA when a GPU is visible, else CPU")
    precision: Literal["auto", "f32", "bf16", "f16"] = Field(
        "auto", description="auto: bf16 where the hardware and backend do it natively, else f32"
    )
    cache_dir: str | None = Field(
        None, description="exported models and auto's measurements (default $ZERO_CACHE_DIR or ~/.cache/zero-pipeline)"
    )


def cache_root(config: InferenceConfig) -> Path:
    if config.cache_dir:
        return Path(config.cache_dir)
    env = os.environ.get("ZERO_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "zero-pipeline"


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def resolve_device(device: str) -> Device:
    if device == "auto":
        return "cuda" if cuda_available() else "cpu"
    if device == "cuda" and not cuda_available():
        raise InferenceError("device: cuda asked for, but torch sees no CUDA GPU (use auto or cpu)")
    return device  # type: ignore[return-value]


@functools.cache
def cpu_flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: no native bf16 assumed
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def cpu_has_bf16() -> bool:
    return bool({"avx512_bf16", "amx_bf16"} & cpu_flags())


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def resolve_precision(precision: str, backend: Backend, device: Device) -> Precision:
    """The precision `backend` runs at on `device`; an explicit one it cannot do is an error."""
    if device == "cuda":
        if backend != "torch":
            raise InferenceError(f"backend {backend} runs on the CPU here; on cuda use backend torch or auto")
        if precision == "auto":
            import torch

            return "bf16" if torch.cuda.is_bf16_supported() else "f16"
        return precision  # type: ignore[return-value]
    # CPU
    if precision == "f16":
        raise InferenceError("precision f16 is a GPU precision; on the CPU use auto, f32 or bf16")
    if backend == "onnxruntime":
        if precision == "bf16":
            raise InferenceError("onnxruntime's CPU provider runs f32 only; use precision auto or f32")
        return "f32"
    if precision == "auto":
        return "bf16" if cpu_has_bf16() else "f32"
    return precision  # type: ignore[return-value]


def candidates(device: Device) -> list[Backend]:
    """The backends `auto` measures on `device`: those installed that run there."""
    if device == "cuda":
        return ["torch"]
    found: list[Backend] = ["torch"]
    for name, module in (("onnxruntime", "onnxruntime"), ("openvino", "openvino")):
        try:
            __import__(module)
        except ImportError:
            continue
        found.append(name)  # type: ignore[arg-type]
    return found
