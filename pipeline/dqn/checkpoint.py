"""DQN checkpoints: the Q-network's weights with the game and net they were made for."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from pipeline.dqn.qnet import QNetSpec, QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError

FORMAT = "zero-dqn/1"


def save_dqn(path: Path, net: QNetwork, meta: dict[str, Any] | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "game": net.game.model_dump(),
        "qnet": net.spec.model_dump(),
        "state_dict": net.state_dict(),
        "meta": meta or {},
    }
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pt", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        torch.save(payload, f)
    os.replace(tmp, path)
    return path


def checkpoint_format(path: Path) -> str | None:
    try:
        payload = torch.load(io.BytesIO(Path(path).read_bytes()), map_location="cpu", weights_only=True)
    except Exception:
        return None
    return payload.get("format") if isinstance(payload, dict) else None


def load_dqn(path: Path, game: GameSpec | None = None) -> tuple[QNetwork, dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint")
    try:
        payload = torch.load(io.BytesIO(path.read_bytes()), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a DQN checkpoint")
    spec = GameSpec.model_validate(payload["game"])
    if game is not None and spec != game:
        raise CheckpointError(f"{path}: checkpoint is for {spec}, not {game}")
    net = QNetwork(spec, QNetSpec.model_validate(payload["qnet"]))
    net.load_state_dict(payload["state_dict"])
    return net.eval(), dict(payload.get("meta", {}))
