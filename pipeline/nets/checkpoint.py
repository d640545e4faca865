"""Checkpoints: the weights plus the game and net they were trained for, so loading one
for another game or board size is a clear error instead of a shape mismatch."""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.resnet import NetSpec, PolicyValueNet

FORMAT = "zero-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here."""


def save_checkpoint(path: Path, net: PolicyValueNet, meta: dict[str, Any] | None = None) -> Path:
    """Write atomically (temp file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "game": net.game.model_dump(),
        "net": net.net.model_dump(),
        "state_dict": net.state_dict(),
        "meta": meta or {},
    }
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pt", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_checkpoint(
    path: Path, game: GameSpec | None = None, data: bytes | None = None
) -> tuple[PolicyValueNet, dict[str, Any]]:
    """Load a checkpoint (from `data` when given, e.g. bytes shipped to a remote worker;
    `path` then only names it), checking it was made for `game` when one is given."""
    path = Path(path)
    if data is None:
        if not path.is_file():
            raise CheckpointError(f"{path}: no such checkpoint")
        data = path.read_bytes()
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged file
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a zero-pipeline checkpoint")
    spec = GameSpec.model_validate(payload["game"])
    if game is not None and spec != game:
        raise CheckpointError(f"{path}: checkpoint is for {spec}, not {game}")
    net = PolicyValueNet(spec, NetSpec.model_validate(payload["net"]))
    net.load_state_dict(payload["state_dict"])
    return net.eval(), dict(payload.get("meta", {}))


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
