"""Reading a checkpoint whatever it holds: a policy-value net or a DQN Q-network."""

from __future__ import annotations

from pathlib import Path

from pipeline.dqn.checkpoint import FORMAT as DQN_FORMAT
from pipeline.dqn.checkpoint import qnet_from_payload
from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import FORMAT as NET_FORMAT
from pipeline.nets.checkpoint import CheckpointError, net_from_payload, read_payload
from pipeline.nets.resnet import PolicyValueNet


def load_model(path: Path, spec: GameSpec | None = None) -> PolicyValueNet | QNetwork:
    """A policy-value net or a DQN Q-network, whichever the checkpoint holds (for `spec`
    when given: another game is a clear error); the file is read and unpickled once."""
    path = Path(path)
    payload = read_payload(path, None)
    if payload["format"] == DQN_FORMAT:
        return qnet_from_payload(payload, path, spec)
    if payload["format"] == NET_FORMAT:
        return net_from_payload(payload, path, spec)
    raise CheckpointError(f"{path}: unknown checkpoint format {payload['format']!r}")


def checkpoint_game(path: Path) -> GameSpec:
    """The game a checkpoint (policy-value net or DQN) was trained for."""
    return load_model(path).game
