"""Checkpoints: the weights plus the game and net they were trained for, so loading one
for another game or board size is a clear error instead of a shape mismatch. A size-free
net loads for any board size of its game and rules."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.resnet import NetSpec, PolicyValueNet, same_rules, weights_fit
from pipeline.runtime.atomic import atomic_file, copy_atomic

FORMAT = "zero-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here."""


def save_checkpoint(
    path: Path, net: PolicyValueNet, meta: dict[str, Any] | None = None, optimizer: dict[str, Any] | None = None
) -> Path:
    """Write atomically (temp file + rename). `optimizer` is the optimiser's state_dict,
    kept so that the learner's training continues where it stopped."""
    extra = {"optimizer": optimizer} if optimizer is not None else None
    return save_payload(path, FORMAT, net.game, "net", net.net.model_dump(), net.state_dict(), meta, extra)


def save_payload(
    path: Path,
    fmt: str,
    game: GameSpec,
    spec_key: str,
    spec: dict[str, Any],
    state_dict,
    meta: dict | None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Every checkpoint kind: its format tag, game, net spec, weights and meta, atomically."""
    payload = {"format": fmt, "game": game.model_dump(), spec_key: spec, "state_dict": state_dict, "meta": meta or {}}
    payload.update(extra or {})
    with atomic_file(path) as f:
        torch.save(payload, f)
    return Path(path)


TRAINER_KEYS = ("optimizer",)  # what only training reads; a player reads the rest


def write_player_copy(source: Path, dest: Path) -> tuple[int, int]:
    """`source` written to `dest` without what only training reads (the optimiser's state:
    twice the weights' bytes); (bytes before, after). A CheckpointError when `source` is not
    a checkpoint of a player."""
    payload = read_payload(source, None)
    if "state_dict" not in payload or "game" not in payload:
        raise CheckpointError(f"{source}: not a checkpoint of a player (no game or weights)")
    return written_copy(source, dest, {key: value for key, value in payload.items() if key not in TRAINER_KEYS})


def written_copy(source: Path, dest: Path, payload: dict[str, Any]) -> tuple[int, int]:
    """`payload` (read from `source` and changed) saved atomically to `dest`; (bytes of
    `source`, of `dest`)."""
    with atomic_file(dest) as f:
        torch.save(payload, f)
    return Path(source).stat().st_size, Path(dest).stat().st_size


MOMENT_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


def moments_in(optimizer: dict[str, Any], dtype: torch.dtype) -> dict[str, Any]:
    """An optimiser state_dict with its floating moments in `dtype` and `step` as it was
    (torch's `load_state_dict` casts each moment back to its parameter's dtype, never the
    step)."""

    def cast(key: str, value: Any) -> Any:
        if key != "step" and torch.is_tensor(value) and value.is_floating_point():
            return value.to(dtype)
        return value

    state = {
        index: {key: cast(key, value) for key, value in moments.items()}
        for index, moments in optimizer["state"].items()
    }
    return {**optimizer, "state": state}


def write_learner_copy(source: Path, dest: Path, moments: str) -> tuple[int, int]:
    """`source` written to `dest` with its optimiser's moments in `moments` precision
    (`MOMENT_DTYPES`; "f32" as they are, a byte copy); (bytes before, after). A
    CheckpointError when `source` is not a checkpoint."""
    if moments not in MOMENT_DTYPES:
        raise CheckpointError(f"moments: {moments!r} is not one of {', '.join(MOMENT_DTYPES)}")
    payload = read_payload(source, None)
    if payload.get("optimizer") is None or moments == "f32":
        copy_atomic(source, dest)
        return Path(source).stat().st_size, Path(dest).stat().st_size
    return written_copy(
        source, dest, {**payload, "optimizer": moments_in(payload["optimizer"], MOMENT_DTYPES[moments])}
    )


def read_payload(path: Path, expected: str | None, data: bytes | None = None) -> dict[str, Any]:
    """The saved dictionary of a checkpoint of format `expected` (any format when None),
    or a CheckpointError."""
    path = Path(path)
    if data is None:
        if not path.is_file():
            raise CheckpointError(f"{path}: no such checkpoint")
        data = path.read_bytes()
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged file
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or "format" not in payload:
        raise CheckpointError(f"{path}: not a zero-pipeline checkpoint")
    if expected is not None and payload["format"] != expected:
        kind = "zero-pipeline" if expected == FORMAT else expected
        raise CheckpointError(f"{path}: not a {kind} checkpoint")
    return payload


def payload_game(payload: dict[str, Any], path: Path, game: GameSpec | None) -> GameSpec:
    """The checkpoint's game, which must be `game` when one is given."""
    spec = GameSpec.model_validate(payload["game"])
    if game is not None and spec != game:
        hint = " (a fixed-size net plays only the board it was trained on)" if same_rules(spec, game) else ""
        raise CheckpointError(f"{path}: checkpoint is for {spec}, not {game}{hint}")
    return spec


def net_from_payload(payload: dict[str, Any], path: Path, game: GameSpec | None) -> PolicyValueNet:
    """The net of a checkpoint, built for `game` (any board size of the checkpoint's game
    and rules when the net is size-free, and a Hex swap net's boards without the swap too:
    `weights_fit`; exactly its game otherwise)."""
    spec = NetSpec.model_validate(payload["net"])
    trained = GameSpec.model_validate(payload["game"])
    if game is not None and spec.size_free and weights_fit(trained, game):
        board = game
    else:
        board = payload_game(payload, path, game)
    net = PolicyValueNet(board, spec)
    net.load_state_dict(payload["state_dict"])
    return net.eval()


def checkpoint_plays(path: Path) -> tuple[GameSpec, bool]:
    """(the game a checkpoint was trained on, whether it plays other sizes of it)."""
    payload = read_payload(path, FORMAT)
    return GameSpec.model_validate(payload["game"]), NetSpec.model_validate(payload["net"]).size_free


def load_checkpoint(
    path: Path, game: GameSpec | None = None, data: bytes | None = None
) -> tuple[PolicyValueNet, dict[str, Any]]:
    """Load a checkpoint (from `data` when given, e.g. bytes shipped to a remote worker;
    `path` then only names it), checking it was made for `game` when one is given."""
    payload = read_payload(path, FORMAT, data)
    return net_from_payload(payload, Path(path), game), dict(payload.get("meta", {}))


def load_optimizer_state(path: Path) -> dict[str, Any] | None:
    """The optimiser state saved with a checkpoint, or None (a champion from before the
    learner existed, or a generation-0 net)."""
    return read_payload(path, FORMAT).get("optimizer")


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
