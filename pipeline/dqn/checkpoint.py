"""DQN checkpoints: the Q-network's weights with the game and net they were made for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.dqn.qnet import QNetSpec, QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import payload_game, save_payload

FORMAT = "zero-dqn/1"


def save_dqn(path: Path, net: QNetwork, meta: dict[str, Any] | None = None) -> Path:
    return save_payload(path, FORMAT, net.game, "qnet", net.spec.model_dump(), net.state_dict(), meta)


def qnet_from_payload(payload: dict[str, Any], path: Path, game: GameSpec | None) -> QNetwork:
    net = QNetwork(payload_game(payload, path, game), QNetSpec.model_validate(payload["qnet"]))
    net.load_state_dict(payload["state_dict"])
    return net.eval()
