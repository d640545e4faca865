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
    rank: int = 2  # the order a menu offers them in: 0 best first (see `describe`)


def champion_generation(path: Path) -> int | None:
    """The generation of a pipeline's champion, from the state file beside it."""
    import json

    try:
        return int(json.loads((path.parent / "state.json").read_text())["champion_generation"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def describe(path: Path) -> tuple[str, int]:
    """A short label for a menu, and its rank: shipped pretrained models first, then a
    trained champion, other checkpoints, and last the untrained generation-0 champion."""
    if path.parent.name == "pretrained":
        return f"{path.stem} (pretrained)", 0
    if path.stem == "champion":
        generation = champion_generation(path)
        if generation == 0:
            return "champion gen 0 (untrained)", 3
        return ("champion" if generation is None else f"champion gen {generation}"), 1
    return path.stem, 2


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
        label, rank = describe(path)
        found[key] = ModelEntry(key, label, game, path, rank)
    return dict(sorted(found.items(), key=lambda item: item[1].rank))  # stable within a rank


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
