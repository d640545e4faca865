"""DQN checkpoints: the Q-network's weights with the game and net they were made for."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import torch

from pipeline.atomic import atomic_file
from pipeline.dqn.qnet import QNetSpec, QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError, read_payload

FORMAT = "zero-dqn/1"


def save_dqn(path: Path, net: QNetwork, meta: dict[str, Any] | None = None) -> Path:
    payload = {
        "format": FORMAT,
        "game": net.game.model_dump(),
        "qnet": net.spec.model_dump(),
        "state_dict": net.state_dict(),
        "meta": meta or {},
    }
    with atomic_file(path) as f:
        torch.save(payload, f)
    return Path(path)


def checkpoint_format(path: Path) -> str | None:
    """The format tag of any zero-pipeline checkpoint, or None."""
    try:
        payload = torch.load(io.BytesIO(Path(path).read_bytes()), map_location="cpu", weights_only=True)
    except Exception:
        return None
    return payload.get("format") if isinstance(payload, dict) else None


def load_dqn(path: Path, game: GameSpec | None = None) -> tuple[QNetwork, dict[str, Any]]:
    payload = read_payload(path, FORMAT)
    spec = GameSpec.model_validate(payload["game"])
    if game is not None and spec != game:
        raise CheckpointError(f"{path}: checkpoint is for {spec}, not {game}")
    net = QNetwork(spec, QNetSpec.model_validate(payload["qnet"]))
    net.load_state_dict(payload["state_dict"])
    return net.eval(), dict(payload.get("meta", {}))
