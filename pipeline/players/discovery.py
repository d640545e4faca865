"""Model discovery, in one place: which checkpoints a server offers and which model plays a
given game (`choose_model`: the exact game first, else the size-free net of the nearest
board, else pure MCTS; a Hex net trained with the swap rule also plays without it). The
brain, the HTP engine, the terminal game and the web app all ask here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError, checkpoint_plays
from pipeline.nets.resnet import same_rules, weights_fit
from pipeline.players.models import checkpoint_game

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
    size_free: bool = False  # plays every board size of its game and rules


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


def check_sources(sources: list[Path] | tuple[Path, ...]) -> None:
    """Sources a user named (`zero serve --models`): each must be a readable checkpoint or
    a folder holding one, else a CheckpointError (one line) naming the first that is not,
    so a mistyped path is an error rather than a server with nothing to offer."""
    for source in sources:
        if not source.exists():
            raise CheckpointError(f"{source}: no such file or folder")
        if source.is_file():
            checkpoint_reach(source)
            continue
        files = checkpoint_files([source])
        if not files:
            raise CheckpointError(f"{source}: no checkpoint (*.pt) in this folder")
        problems = []
        for path in files:
            try:
                checkpoint_reach(path)
                break
            except CheckpointError as exc:
                problems.append(str(exc))
        else:
            raise CheckpointError(f"{source}: none of its {len(files)} .pt files is readable ({problems[0]})")


def scan_models(sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES) -> dict[str, ModelEntry]:
    """The readable checkpoints among `sources`, by id (the file's stem, or folder-stem
    where two share a stem). Unreadable files are left out."""
    found: dict[str, ModelEntry] = {}
    for path in checkpoint_files(sources):
        try:
            game, size_free = checkpoint_reach(path)  # read once per file version, no net built
        except CheckpointError:
            continue
        key = path.stem if path.stem not in found else f"{path.parent.name}-{path.stem}"
        label, rank = describe(path)
        found[key] = ModelEntry(key, label, game, path, rank, size_free)
    return dict(sorted(found.items(), key=lambda item: item[1].rank))  # stable within a rank


@lru_cache(maxsize=256)
def _reach(path: str, mtime_ns: int, size: int) -> tuple[GameSpec, bool]:
    try:
        return checkpoint_plays(Path(path))
    except CheckpointError:
        return checkpoint_game(Path(path)), False  # a DQN checkpoint: one board only


def checkpoint_reach(path: Path) -> tuple[GameSpec, bool]:
    """(the game a checkpoint was trained on, whether it plays other board sizes of that
    game and rules), read once per file version; a CheckpointError when unreadable."""
    try:
        stat = Path(path).stat()
    except OSError:
        raise CheckpointError(f"{path}: no such checkpoint") from None
    try:
        return _reach(str(path), stat.st_mtime_ns, stat.st_size)
    except KeyError:
        raise CheckpointError(f"{path}: not a zero-pipeline checkpoint") from None


def can_play(trained: GameSpec, size_free: bool, spec: GameSpec) -> bool:
    """Whether a net trained on `trained` plays `spec`: exactly its game, or (size-free) any
    board of its game and rules, a Hex net trained with the swap rule also without it
    (`weights_fit`, what loading allows)."""
    return trained == spec or (size_free and weights_fit(trained, spec))


# Rule sets whose nets may stand in for a rule set with none of its own, nearest first:
# renju's black wins only with exactly five, so exact five comes before freestyle. The net
# only guides the search; the search plays by the game's own rules (forbidden moves are
# not legal moves, so it never plays one).
STAND_INS: dict[str, tuple[str, ...]] = {"renju": ("exact", "freestyle")}


@dataclass(frozen=True)
class ModelChoice:
    """The checkpoint that plays a board (None: pure MCTS) and one line for the user that
    says which and why. `net_game` is the game to load the net for: the board's own, or
    for a stand-in (`STAND_INS`) the rules it was trained under."""

    path: Path | None
    note: str
    net_game: GameSpec | None = None


def choose_model(
    spec: GameSpec, explicit: Path | None = None, sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES
) -> ModelChoice:
    """The model for `spec`, so a GUI user gets the strongest player that exists for the
    board and rule it asked for, and is told which:

    - `explicit` (`--model`) is used if it can play `spec`; otherwise a CheckpointError
      that says what the file plays (the protocols answer it in their error form and keep
      running; the user chose that file, so nothing else is swapped in silently);
    - else the first checkpoint among `sources` trained on exactly `spec`;
    - else a size-free checkpoint of the same game and rules, the one trained on the
      nearest board size (ties: the same swap rule, then the larger board, then the
      order of `sources`); a Hex net trained with the swap rule plays without it, so
      hex:11 without swap gets the 11x11 swap champion rather than an 8x8 net;
    - else None: pure MCTS, and the note says no model plays this board."""
    if explicit is not None:
        trained, size_free = checkpoint_reach(explicit)
        if not can_play(trained, size_free, spec):
            stand_in = _as_stand_in(trained, size_free, spec)
            if stand_in is not None:
                return ModelChoice(explicit, note_for(explicit, trained, size_free, stand_in, spec), stand_in)
            if same_rules(trained, spec):
                raise CheckpointError(f"{explicit.name} cannot play {spec}: a fixed-size net, it plays only {trained}")
            raise CheckpointError(f"{explicit.name} cannot play {spec}: it plays {trained}, another game or rules")
        return ModelChoice(explicit, note_for(explicit, trained, size_free, spec), spec)
    for rules in (spec.rules, *STAND_INS.get(spec.rules, ())):
        target = spec.model_copy(update={"rules": rules})
        found = _nearest(target, sources)
        if found is not None:
            path, trained, size_free = found
            return ModelChoice(path, note_for(path, trained, size_free, target, spec), target)
    return ModelChoice(None, f"no model plays {spec}: pure MCTS")


def _as_stand_in(trained: GameSpec, size_free: bool, spec: GameSpec) -> GameSpec | None:
    """`spec` under the trained rules, if those may stand in for `spec`'s and the net plays it."""
    if trained.rules not in STAND_INS.get(spec.rules, ()):
        return None
    target = spec.model_copy(update={"rules": trained.rules})
    return target if can_play(trained, size_free, target) else None


def _nearest(spec: GameSpec, sources: list[Path] | tuple[Path, ...]) -> tuple[Path, GameSpec, bool] | None:
    """The first checkpoint trained on exactly `spec`, else the size-free one of the same
    game and rules trained on the nearest board (ties: the same swap rule, then the
    larger board, then source order)."""
    fits: list[tuple[tuple[int, bool, int, int], Path, GameSpec, bool]] = []
    for order, path in enumerate(checkpoint_files(sources)):
        try:
            trained, size_free = checkpoint_reach(path)
        except CheckpointError:
            continue
        if can_play(trained, size_free, spec):
            distance = abs(trained.height - spec.height) + abs(trained.width - spec.width)
            fits.append(((distance, trained.swap != spec.swap, -trained.cells, order), path, trained, size_free))
    if not fits:
        return None
    _, path, trained, size_free = min(fits, key=lambda fit: fit[0])
    return path, trained, size_free


def note_for(path: Path, trained: GameSpec, size_free: bool, target: GameSpec, spec: GameSpec | None = None) -> str:
    """What the user is told: the file, the game, and where the net was trained elsewhere
    (another board size, or another rule set standing in for `spec`'s)."""
    spec = spec or target
    notes = []
    if (trained.height, trained.width) != (target.height, target.width):
        notes.append(f"size-free, trained on {trained.height}x{trained.width}")
    if trained.swap != target.swap:
        notes.append("trained with the swap rule, playing without it")
    if target.rules != spec.rules:
        net = {"exact": "an exact-five", "freestyle": "a freestyle"}.get(target.rules, target.rules)
        notes.append(f"{net} net standing in: no {spec.rules} model; the search plays by the {spec.rules} rules")
    return f"{path.name} plays {spec}" + (f" ({'; '.join(notes)})" if notes else "")


def find_model(
    spec: GameSpec, explicit: Path | None = None, sources: list[Path] | tuple[Path, ...] = DEFAULT_SOURCES
) -> Path | None:
    """The checkpoint that plays `spec` (see `choose_model`), None meaning pure MCTS."""
    return choose_model(spec, explicit, sources).path
