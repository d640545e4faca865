"""Replay shards: the training data that self-play writes and training reads.

A generation's folder holds one shard per self-play task, `shard-TTTT.npz`, once the task
is done. While it plays, a task writes its finished games as part shards,
`shard-TTTT-GGGGG.npz` (GGGGG: the first game id in it; the header's `game_ids` lists
them all), and at its end merges them into `shard-TTTT.npz` and deletes them. A reader
takes every shard of the folder except the parts of a task whose whole shard is there
(a merge cut short between writing it and deleting them).

A shard is one compressed `.npz` file holding
  obs      uint8   [n, C, H, W]  observation planes (presented frame, 0/1)
  pi       float32 [n, A]        search visit distribution (presented frame)
  z        int8    [n]           final result for the player to move: +1, 0, -1
  game_id  int32   [n]           game index within the task
  ply      int16   [n]           move number within the game
  plies_left int16 [n]           moves from this position to the game's end (1: the mover
                                 ends it); optional, older shards lack it (read as 0: unknown)
  q        float32 [n]           the search's root value for the player to move (its mean
                                 over the simulations, or its proof where the search proved
                                 the root: Tree.searched_value); optional, older shards lack it
                                 (read as NaN: unknown)
  header   str (0-d)             JSON: format, game spec, generation, model hash,
                                 simulations, seed, games, positions
Shards are written atomically (temp file in the same directory, fsync, rename), so a
reader never sees a partial one."""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.runtime.atomic import atomic_file

FORMAT = "zero-replay/1"
REQUIRED_ARRAYS = ("obs", "pi", "z", "game_id", "ply")
KEYS = (*REQUIRED_ARRAYS, "header")
PLIES_LEFT = "plies_left"  # optional: shards written before it read as unknown
SEARCHED_VALUE = "q"  # optional: shards written before it read as unknown (NaN)
ARRAYS = (*REQUIRED_ARRAYS, PLIES_LEFT, SEARCHED_VALUE)  # a Positions' arrays, as a shard's writer takes them
GEN_DIR = re.compile(r"^gen-(\d{4,})$")
TASK_SHARD = re.compile(r"^shard-(\d{4,})\.npz$")
PART_SHARD = re.compile(r"^shard-(\d{4,})-(\d+)\.npz$")


class ReplayError(ValueError):
    """A shard that cannot be used: corrupt, truncated, or for another game."""


@dataclass
class Positions:
    """Training positions in memory, as written to and read from shards."""

    obs: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    game_id: np.ndarray
    ply: np.ndarray
    header: dict[str, Any] = field(default_factory=dict)
    plies_left: np.ndarray | None = None  # None: unknown (0 for each position)
    q: np.ndarray | None = None  # the searched root value for the mover; None: unknown (NaN each)

    def __post_init__(self) -> None:
        if self.plies_left is None:
            self.plies_left = np.zeros(len(self.z), dtype=np.int16)
        if self.q is None:
            self.q = np.full(len(self.z), np.nan, dtype=np.float32)

    def __len__(self) -> int:
        return int(self.z.shape[0])

    @staticmethod
    def empty(obs_shape: tuple[int, ...], num_actions: int) -> Positions:
        return Positions(
            obs=np.zeros((0, *obs_shape), dtype=np.uint8),
            pi=np.zeros((0, num_actions), dtype=np.float32),
            z=np.zeros(0, dtype=np.int8),
            game_id=np.zeros(0, dtype=np.int32),
            ply=np.zeros(0, dtype=np.int16),
        )

    @staticmethod
    def concat(parts: list[Positions]) -> Positions:
        if not parts:
            raise ReplayError("no positions to concatenate")
        arrays = {k: np.concatenate([getattr(p, k) for p in parts]) for k in ARRAYS}
        return Positions(**arrays, header=dict(parts[0].header))

    def take(self, order: np.ndarray) -> Positions:
        """These positions in `order` (an index array), the header kept."""
        return Positions(**{k: getattr(self, k)[order] for k in ARRAYS}, header=dict(self.header))


def spec_header(spec: GameSpec) -> dict[str, Any]:
    """The game fields every shard header carries."""
    return spec.model_dump()


def write_shard(path: Path, positions: Positions, header: dict[str, Any]) -> Path:
    """Write atomically: a crash leaves either the whole shard or none of it."""
    full = {"format": FORMAT, **header, "positions": len(positions)}
    with atomic_file(path) as f:
        np.savez_compressed(
            f,
            obs=positions.obs.astype(np.uint8, copy=False),
            pi=positions.pi.astype(np.float32, copy=False),
            z=positions.z.astype(np.int8, copy=False),
            game_id=positions.game_id.astype(np.int32, copy=False),
            ply=positions.ply.astype(np.int16, copy=False),
            plies_left=positions.plies_left.astype(np.int16, copy=False),
            q=positions.q.astype(np.float32, copy=False),
            header=np.array(json.dumps(full, sort_keys=True)),
        )
    return Path(path)


def read_shard(path: Path, spec: GameSpec | None = None) -> Positions:
    """Read and check a shard; any problem is a `ReplayError` naming the file."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in KEYS if k not in data.files]
            if missing:
                raise ReplayError(f"{path}: not a replay shard (missing {', '.join(missing)})")
            arrays = {k: data[k] for k in KEYS}
            plies_left = data[PLIES_LEFT] if PLIES_LEFT in data.files else None
            searched = data[SEARCHED_VALUE] if SEARCHED_VALUE in data.files else None
    except ReplayError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError) as exc:
        raise ReplayError(f"{path}: corrupt or truncated shard ({type(exc).__name__}: {exc})") from None
    try:
        header = json.loads(str(arrays["header"]))
    except json.JSONDecodeError:
        raise ReplayError(f"{path}: unreadable shard header") from None
    if header.get("format") != FORMAT:
        raise ReplayError(f"{path}: unknown shard format {header.get('format')!r}, expected {FORMAT!r}")
    positions = Positions(
        arrays["obs"], arrays["pi"], arrays["z"], arrays["game_id"], arrays["ply"], header, plies_left, searched
    )
    n = len(positions)
    assert positions.plies_left is not None and positions.q is not None
    if {a.shape[0] for a in (positions.obs, positions.pi, positions.game_id, positions.plies_left, positions.q)} != {n}:
        raise ReplayError(f"{path}: arrays of different lengths")
    if spec is not None:
        theirs = {k: header.get(k) for k in spec_header(spec)}
        if theirs != spec_header(spec):
            found = ", ".join(f"{k}={v}" for k, v in theirs.items())
            raise ReplayError(f"{path}: shard is for {found}, not {spec}")
        if positions.obs.shape[1:] != spec.obs_shape or positions.pi.shape[1:] != (spec.num_actions,):
            raise ReplayError(f"{path}: array shapes do not match {spec}")
    return positions


def read_header(path: Path) -> dict[str, Any]:
    """A shard's header alone (its arrays are not read): a `ReplayError` naming the file
    if it has none or an unreadable one."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            if "header" not in data.files:
                raise ReplayError(f"{path}: not a replay shard (missing header)")
            header = json.loads(str(data["header"]))
    except ReplayError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError) as exc:
        raise ReplayError(f"{path}: corrupt or truncated shard ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ReplayError(f"{path}: not a {FORMAT} shard")
    return header


def generation_dirs(root: Path) -> list[tuple[int, Path]]:
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for child in root.iterdir():
        m = GEN_DIR.match(child.name)
        if m and child.is_dir():
            found.append((int(m.group(1)), child))
    return sorted(found)


def generation_dir(root: Path, generation: int) -> Path:
    return Path(root) / f"gen-{generation:04d}"


def task_shard_path(directory: Path, task: int) -> Path:
    """Where a task's whole shard goes."""
    return Path(directory) / f"shard-{task:04d}.npz"


def part_shard_path(directory: Path, task: int, first_game: int) -> Path:
    """Where a part of a task goes: some of its finished games, the first of them `first_game`."""
    return Path(directory) / f"shard-{task:04d}-{first_game:05d}.npz"


def part_shard_paths(directory: Path, task: int) -> list[Path]:
    """The parts of one task on disk."""
    found = []
    for path in Path(directory).glob(f"shard-{task:04d}-*.npz"):
        m = PART_SHARD.match(path.name)
        if m and int(m.group(1)) == task:
            found.append(path)
    return sorted(found)


def shard_paths(directory: Path) -> list[Path]:
    """The shards to read: all of them but the parts of a task whose whole shard is there."""
    paths = sorted(p for p in Path(directory).glob("shard-*.npz"))
    whole = {int(m.group(1)) for p in paths if (m := TASK_SHARD.match(p.name))}
    return [p for p in paths if not ((m := PART_SHARD.match(p.name)) and int(m.group(1)) in whole)]


def load_window(root: Path, spec: GameSpec, window: int, skip_corrupt: bool = False) -> tuple[Positions, list[str]]:
    """Positions of the last `window` generations under `root`. A corrupt or foreign
    shard is an error unless `skip_corrupt`, in which case it is left out and named in
    the returned list of warnings."""
    gens = generation_dirs(root)[-window:] if window > 0 else []
    parts: list[Positions] = []
    skipped: list[str] = []
    for _, directory in gens:
        for path in shard_paths(directory):
            try:
                parts.append(read_shard(path, spec))
            except ReplayError as exc:
                if not skip_corrupt:
                    raise
                skipped.append(str(exc))
    if not parts:
        raise ReplayError(f"no replay shards for {spec} under {root} (looked at {len(gens)} generation(s))")
    return Positions.concat(parts), skipped


def augment(spec: GameSpec, obs: np.ndarray, pi: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One position under a symmetry drawn at random, board and policy mapped together."""
    perm = spec.symmetries[int(rng.integers(len(spec.symmetries)))]
    return spec.transform_planes(obs, perm), spec.transform_policy(pi, perm)
