"""A training run that resumes on any machine: a run folder in the repository holds the
run's params and, after every iteration, a snapshot of everything the next iteration needs
(the learner with its optimiser state, the champion, the pipeline state with its ladder and
history, the games table that anchors the rating, and the replay window). A fresh clone
resumes from the folder alone: `zero iterate --resume FOLDER` restores the snapshot into
the folder's scratch workspace (`work/`, ignored by git) and goes on; commit the folder
between stretches.

Layout of a run folder:

    params.yaml          the run's params (the only file a new run needs)
    snapshot/            the last finished generation: models/learner.pt (with its optimiser
                         state), models/champion.pt (its weights only; left out when it is
                         the same file as the learner), models/state.json, reports/games.csv,
                         data/replay/gen-NNNN/ (the window): the resume point, in git, whole
                         (snapshots written before 2026-12-06 may hold models/champion.ref
                         instead, naming a file under champions/ that `dvc pull` fetches)
    champions/           every promoted champion (gen-NNNN.pt), kept as it is promoted; a
                         DVC output (champions.dvc in git, the files in the DVC cache and
                         remote), never committed to git
    init.pt              the run's generation 0 where params start from one (DVC as well)
    report.md, *.png     the report of the last generation
    run.json             generation, hours of training and the stretches so far (the one
                         running as `open_stretch`, stamped by each snapshot)
    work/                the workspace the iterations run in (scratch, not committed)

A snapshot is written whole into `snapshot.tmp/` and then renamed over `snapshot/`, so a
crash while saving leaves the previous snapshot (or `snapshot.old/`) to resume from. It is
kept to what resuming needs: the resume point of a long run is committed once a session, and
every committed snapshot stays in git's history."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.runtime import earlier_champions
from pipeline.runtime.workspace import Paths, load_state, read_json, write_json
from pipeline.selfplay.replay import generation_dir, generation_dirs

# What a snapshot keeps of a workspace, relative to its root (the replay window besides).
SNAPSHOT_FILES = ("models/learner.pt", "models/champion.pt", "models/state.json", "reports/games.csv")
LEARNER, CHAMPION = "models/learner.pt", "models/champion.pt"
CHAMPION_REF = "models/champion.ref"  # in a snapshot without champion.pt: its file under champions/
REPORT_FILES = ("report.md", "strength.png", "training.png")


class RunError(Exception):
    """A run folder that cannot be started or resumed (said in one line)."""


@dataclass(frozen=True)
class RunFolder:
    path: Path

    @property
    def params(self) -> Path:
        return self.path / "params.yaml"

    @property
    def snapshot(self) -> Path:
        return self.path / "snapshot"

    @property
    def workspace(self) -> Paths:
        return Paths((self.path / "work").resolve())

    @property
    def manifest(self) -> Path:
        return self.path / "run.json"

    @property
    def champions(self) -> Path:
        return self.path / "champions"

    def champion_file(self, generation: int) -> Path:
        """Where `champions/` keeps the champion promoted at `generation`."""
        return self.champions / earlier_champions.file_name(generation)

    def check(self) -> None:
        if not self.path.is_dir():
            raise RunError(f"{self.path}: no such run folder (make one with a params.yaml in it)")
        if not self.params.is_file():
            raise RunError(f"{self.path}: a run folder needs its params.yaml")

    def info(self) -> dict[str, Any]:
        return read_json(self.manifest) if self.manifest.is_file() else {"generation": 0, "stretches": []}

    def saved_snapshot(self) -> Path | None:
        """The snapshot to resume from; `snapshot.old/` when a save was cut between its renames."""
        for candidate in (self.snapshot, self.path / "snapshot.old"):
            if (candidate / "models" / "state.json").is_file():
                return candidate
        return None


def snapshot_generation(snapshot: Path) -> int:
    return int(read_json(snapshot / "models" / "state.json")["generation"])


def workspace_generation(paths: Paths) -> int | None:
    return load_state(paths).generation if paths.state.is_file() else None


def restore(run: RunFolder) -> tuple[Paths, str]:
    """The workspace to iterate in, with the run's params and its latest state: the
    snapshot is copied in unless the workspace is already as far (the same machine)."""
    run.check()
    paths = run.workspace
    paths.root.mkdir(parents=True, exist_ok=True)
    ignore = run.path / ".gitignore"
    if not ignore.is_file():
        ignore.write_text("# the scratch workspace of `zero iterate --resume`; the snapshot is what is kept\nwork/\n")
    shutil.copyfile(run.params, paths.params)
    snapshot = run.saved_snapshot()
    here = workspace_generation(paths)
    if snapshot is None:
        stands = int(run.info().get("generation", 0))
        if stands > (here or 0):
            # A paused run's resume point leaves the tree for the size budget; resuming
            # without it would start the run again from generation 0 over its own history.
            raise RunError(
                f"{run.path}: the run stands at generation {stands} but its snapshot/ is not here "
                f"(a paused run's resume point is kept in git's history): "
                f"`git checkout {removed_snapshot_source(run)} -- {run.snapshot}`, then resume"
            )
        return paths, "a new run" if here is None else f"the workspace's generation {here} (no snapshot yet)"
    saved = snapshot_generation(snapshot)
    if here is not None and here >= saved:
        return paths, f"the workspace's generation {here} (snapshot: {saved})"
    for name in SNAPSHOT_FILES:
        source = snapshot / name
        if name == CHAMPION and not source.is_file():
            source = kept_champion_source(run, snapshot)
        if source.is_file():
            (paths.root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, paths.root / name)
    shutil.rmtree(paths.replay, ignore_errors=True)
    saved_replay = snapshot / "data" / "replay"
    if saved_replay.is_dir():
        shutil.copytree(saved_replay, paths.replay)
    return paths, f"generation {saved} from {snapshot}"


def removed_snapshot_source(run: RunFolder) -> str:
    """The commit that last held the run's snapshot (the parent of the one that removed it),
    or a placeholder that says how to find it where git cannot tell."""
    from pipeline.orchestration.recording import RecordError
    from pipeline.orchestration.recording import run as run_command

    last_deletion = ["git", "log", "-1", "--format=%h", "--diff-filter=D", "--", str(run.snapshot.resolve())]
    try:
        removed = run_command(last_deletion, run.path).stdout.strip()
    except (RecordError, OSError):
        removed = ""
    return f"{removed}~1" if removed else "REV (the commit before `git log -- snapshot` shows it removed)"


def seed_earlier(run: RunFolder, paths: Paths, back: int) -> int:
    """A workspace with no earlier champions (`evaluate.vs_earlier`: a fresh machine, or the
    option just turned on) gets them from the run's `champions/` (and `init.pt`, generation
    0): the newest `back + 1` up to the current champion. Returns how many were copied."""
    found = earlier_champions.kept(run.champions)
    init = run.path / "init.pt"
    if init.is_file() and not any(g == 0 for g, _ in found):
        found.insert(0, (0, init))
    return earlier_champions.seed(paths, found, load_state(paths).champion_generation, back)


def kept_champion_source(run: RunFolder, snapshot: Path) -> Path:
    """Where a snapshot without champion.pt has its champion: the run's `champions/` file its
    CHAMPION_REF names (a DVC output: RunError with the command that fetches it when it is not
    here), else the learner (saved once: the champion was the learner's very file)."""
    ref = snapshot / CHAMPION_REF
    if not ref.is_file():
        return snapshot / LEARNER
    source = run.path / ref.read_text().strip()
    if not source.is_file():
        raise RunError(
            f"{source}: the snapshot's champion is a DVC output not fetched here: "
            f"`dvc pull {run.path / 'champions.dvc'}`, then resume"
        )
    return source


def save(run: RunFolder, paths: Paths, window: int, moments: str = "f32") -> int:
    """Snapshot the workspace's last finished generation into the run folder; returns it.
    The champion is left out when it is the learner's file (`restore` copies the learner
    back), else kept as a player's copy: the resume point in git holds the learner with its
    moments (in `moments` precision: `train.snapshot_moments`) and the champion's weights,
    everything the next generation needs."""
    state = load_state(paths)
    keep_champion(run, paths, state.champion_generation)
    staging = run.path / "snapshot.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    for name in SNAPSHOT_FILES:
        source = paths.root / name
        if name == CHAMPION and same_file_contents(source, paths.root / LEARNER):
            continue  # `restore` copies the learner back: half the bytes of every committed snapshot
        if name == CHAMPION and source.is_file():
            save_champion(source, staging / name)
            continue
        if name == LEARNER and source.is_file() and moments != "f32":
            save_learner(source, staging / name, moments)
            continue
        if source.is_file():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / name)
    kept = [(g, d) for g, d in generation_dirs(paths.replay) if g <= state.generation][-window:] if window > 0 else []
    for generation, directory in kept:
        shutil.copytree(directory, generation_dir(staging / "data" / "replay", generation))
    old = run.path / "snapshot.old"
    shutil.rmtree(old, ignore_errors=True)
    if run.snapshot.is_dir():
        run.snapshot.rename(old)
    staging.rename(run.snapshot)
    shutil.rmtree(old, ignore_errors=True)
    for name in REPORT_FILES:
        if paths.report(name).is_file():
            shutil.copyfile(paths.report(name), run.path / name)
    info = run.info()
    info["generation"] = state.generation
    info["training_hours"] = round(training_seconds(state.history) / 3600, 3)
    if "open_stretch" in info:  # when it last got this far, should it be killed before it closes
        info["open_stretch"]["saved"] = time.time()
    write_json(run.manifest, info)
    return state.generation


def save_champion(source: Path, dest: Path) -> None:
    """The champion in the snapshot as a player's copy (weights, no optimiser state: a third
    of the learner's bytes). It is what the next gate plays, so the resume point in git must
    hold it: a DVC remote does not always travel with the clone (a local one stays on the
    machine that pushed)."""
    from pipeline.nets.checkpoint import write_player_copy

    written_or_copied(write_player_copy, source, dest)


def save_learner(source: Path, dest: Path, moments: str) -> None:
    """The learner in the snapshot with its optimiser's moments in `moments` precision."""
    from pipeline.nets.checkpoint import write_learner_copy

    written_or_copied(lambda a, b: write_learner_copy(a, b, moments), source, dest)


def written_or_copied(write: Callable[[Path, Path], object], source: Path, dest: Path) -> None:
    """`write(source, dest)`, or a plain copy when `source` is not a checkpoint."""
    from pipeline.nets.checkpoint import CheckpointError

    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        write(source, dest)
    except CheckpointError:
        shutil.copyfile(source, dest)


def same_file_contents(a: Path, b: Path) -> bool:
    if not (a.is_file() and b.is_file()) or a.stat().st_size != b.stat().st_size:
        return False
    return a.read_bytes() == b.read_bytes()


def training_seconds(history: list[dict[str, Any]]) -> float:
    """Seconds of the stages over every generation so far (self-play, train, evaluate)."""
    return float(sum(sum((h.get("seconds") or {}).values()) for h in history))


def keep_champion(run: RunFolder, paths: Paths, generation: int) -> None:
    """The workspace's champion under `champions/` as `gen-NNNN.pt`, once: every promoted
    champion stays there for matches against the run's earlier ones and the curve by hours
    (a stretch of several promotions no longer keeps only its last)."""
    target = run.champion_file(generation)
    if generation > 0 and paths.champion.is_file() and not target.is_file():
        run.champions.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.champion, target)


def track_champions(run: RunFolder) -> str:
    """`champions/` (and `init.pt`) as DVC outputs of the run: `dvc add` writes their `.dvc`
    files for git (and the `.gitignore` that keeps the bytes out of it), `dvc push` sends the
    bytes to the configured remote. Returns one line for the user; a repository without DVC,
    or a remote that cannot be reached, is said and nothing else fails (the snapshot alone
    resumes the run)."""
    from pipeline.orchestration.recording import RecordError, tool
    from pipeline.orchestration.recording import run as run_command

    outputs = [p for p in (run.champions, run.path / "init.pt") if p.exists()]
    if not outputs:
        return "no champions to track yet"
    try:
        dvc = tool("dvc")
        top = run_command(["git", "rev-parse", "--show-toplevel"], run.path).stdout.strip()
        if not top or not (Path(top) / ".dvc").is_dir():
            return f"{run.path} is not in a DVC repository: its champions stay in the folder, untracked"
        names = [str(p.resolve().relative_to(Path(top).resolve())) for p in outputs]
        run_command([dvc, "add", "--quiet", *names], Path(top))
    except (RecordError, OSError, ValueError) as exc:
        return f"champions not tracked by DVC: {exc}"
    pushed = run_command([dvc, "push", "--quiet", *[n + ".dvc" for n in names]], Path(top), check=False)
    where = "pushed to the DVC remote" if pushed.returncode == 0 else "in the DVC cache (`dvc push` failed)"
    return f"champions tracked by DVC ({', '.join(n + '.dvc' for n in names)}), {where}"


def stretch_entry(first: int, last: int, started: float, ended: float, hours: float) -> dict[str, Any]:
    """One stretch as run.json lists it."""
    return {
        "from_generation": first,
        "to_generation": last,
        "minutes": round((ended - started) / 60, 1),
        "training_hours_at_end": hours,
        "ended": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ended)),
    }


def open_stretch(run: RunFolder, first: int, started: float) -> dict[str, Any] | None:
    """At the start of a `zero iterate --resume`: the stretch marked open in run.json, so that
    each snapshot (`save`) stamps when it got as far as run.json's generation. A stretch left
    open by a process that was killed before `close_stretch` (a second Ctrl-C, `kill -9`, a
    session's end) is closed first at its last snapshot, marked `cut`; it is returned (None
    when there was none)."""
    info = run.info()
    left = info.pop("open_stretch", None)
    cut = None
    if left is not None and "saved" in left and info["generation"] > left["from_generation"]:
        cut = stretch_entry(
            left["from_generation"], info["generation"], left["started"], left["saved"], info["training_hours"]
        )
        cut["cut"] = True
        info.setdefault("stretches", []).append(cut)
    info["open_stretch"] = {"from_generation": first, "started": started}
    write_json(run.manifest, info)
    return cut


def close_stretch(run: RunFolder, paths: Paths, started: float, first: int) -> dict[str, Any]:
    """At the end of a `zero iterate --resume`: the stretch written into run.json (its
    generations, minutes and end in hours). Its champions are under `champions/` already,
    each kept by the snapshot of its generation (`save`)."""
    state = load_state(paths)
    info = run.info()
    info.pop("open_stretch", None)
    hours = round(training_seconds(state.history) / 3600, 3)
    stretch = stretch_entry(first, state.generation, started, time.time(), hours)
    if state.generation > first:
        info.setdefault("stretches", []).append(stretch)
        info["generation"] = state.generation
    write_json(run.manifest, info)
    return stretch
