"""Model discovery, in one place: which checkpoints a server offers and which model plays a
given game. The brain, the HTP engine, the terminal game and the web app all ask here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError
from pipeline.players import checkpoint_game, load_model

# Where models are looked for by default: the shipped pretrained champions, then the
# pipeline's own champion.
DEFAULT_SOURCES = (Path("models/pretrained"), Path("models/champion.pt"))


@dataclass(frozen=True)
class ModelEntry:
    id: str
    label: str
    spec: GameSpec
    path: Path


def checkpoint_files(sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES) -> list[Path]:
    """The `.pt` files named by `sources` (files, or folders read in name order)."""
    files: list[Path] = []
    for source in sources:
        if source.is_file():
            files.append(source)
        elif source.is_dir():
            files.extend(sorted(source.glob("*.pt")))
    return files


def scan_models(sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES) -> dict[str, ModelEntry]:
    """The readable checkpoints among `sources`, by id (the file's stem, or folder-stem
    where two share a stem). Unreadable files are left out."""
    found: dict[str, ModelEntry] = {}
    for path in checkpoint_files(sources):
        try:
            game = checkpoint_game(path)
        except (CheckpointError, KeyError):
            continue
        key = path.stem if path.stem not in found else f"{path.parent.name}-{path.stem}"
        found[key] = ModelEntry(key, f"{path.stem} ({game})", game, path)
    return found


def find_model(
    spec: GameSpec, explicit: Path | None = None, sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES
) -> Path | None:
    """The checkpoint that plays `spec`: the one given (an error if it cannot), else the
    first of `sources` that loads for this game (a size-free net fits any board of its
    game), else None, meaning pure MCTS."""
    if explicit is not None:
        load_model(explicit, spec)
        return explicit
    for path in checkpoint_files(sources):
        try:
            load_model(path, spec)
        except (CheckpointError, KeyError):
            continue
        return path
    return None
