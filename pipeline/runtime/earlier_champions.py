"""The run's recent champions in the workspace (models/earlier/gen-NNNN.pt), for the gate's
match against the champion of a few promotions ago (`evaluate.vs_earlier`).

Promote keeps each champion as it replaces it, and the new one, and drops all but the
newest `back + 1`: the oldest left is the champion `back` promotions before the current one
(or the oldest there is, early in a run). A resumed run on another machine has none of
them; its run folder's `champions/` has them all, and `seed` copies the ones needed back.
Nothing here is tracked by DVC or git: a workspace without them plays no such match until
promotions have made them again."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.runtime.atomic import copy_atomic
from pipeline.runtime.workspace import Paths

NAME = re.compile(r"gen-(\d+)\.pt")


def file_name(generation: int) -> str:
    return f"gen-{generation:04d}.pt"


def kept(directory: Path) -> list[tuple[int, Path]]:
    """(generation, file) of every champion in `directory`, oldest first."""
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if (m := NAME.fullmatch(p.name))]
    return sorted(found)


def keep(paths: Paths, generation: int, source: Path, back: int) -> None:
    """`source` as the champion of `generation` (once; an existing file is left as it is,
    so a promote killed and rerun keeps what it kept), then all but the newest `back + 1`
    dropped."""
    target = paths.earlier / file_name(generation)
    if not target.is_file():
        paths.earlier.mkdir(parents=True, exist_ok=True)
        copy_atomic(source, target)
    prune(paths.earlier, back)


def prune(directory: Path, back: int) -> None:
    for _, path in kept(directory)[: -(back + 1)]:
        path.unlink()


def opponent(paths: Paths, champion_generation: int) -> tuple[int, Path] | None:
    """The oldest kept champion before the current one (generation, file); None when none
    is kept."""
    earlier = [(g, p) for g, p in kept(paths.earlier) if g < champion_generation]
    return earlier[0] if earlier else None


def seed(paths: Paths, champions: list[tuple[int, Path]], champion_generation: int, back: int) -> int:
    """Fill an empty models/earlier/ from a run's champions (generation, file), those up to
    the current champion's generation; returns how many were copied (0 when some are kept
    already: the workspace is this machine's own)."""
    if kept(paths.earlier):
        return 0
    wanted = [(g, p) for g, p in sorted(champions) if g <= champion_generation][-(back + 1) :]
    if not wanted:
        return 0
    paths.earlier.mkdir(parents=True, exist_ok=True)
    for generation, source in wanted:
        copy_atomic(source, paths.earlier / file_name(generation))
    return len(wanted)
