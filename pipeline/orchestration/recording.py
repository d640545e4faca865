"""Recording an iteration: DVC hashes the stage outputs into dvc.lock, the learner, the
champion and the state are re-added, git commits the small files, and `dvc push` sends the data to the
default remote. Idempotent, so a run that died after its stages records on the rerun."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.runtime.workspace import Paths, load_state


class RecordError(RuntimeError):
    pass


def tool(name: str) -> str:
    here = Path(sys.executable).with_name(name)
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise RecordError(f"`{name}` is not installed")
    return found


def run(cmd: list[str], root: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if check and out.returncode != 0:
        said = (out.stderr.strip() or out.stdout.strip())[-800:]
        raise RecordError(f"`{' '.join([Path(cmd[0]).name, *cmd[1:]])}` failed: {said}")
    return out


GIT_IDENTITY = ["-c", "user.name=zero-pipeline", "-c", "user.email=zero-pipeline@localhost"]


def recorded_md5(dvc_file: Path) -> str | None:
    if not dvc_file.is_file():
        return None
    for line in dvc_file.read_text().splitlines():
        line = line.strip().removeprefix("- ")
        if line.startswith("md5:"):
            return line.split(":", 1)[1].strip()
    return None


def needs_record(paths: Paths) -> bool:
    """True when the state has moved on since it was last recorded."""
    current = hashlib.md5(paths.state.read_bytes()).hexdigest() if paths.state.is_file() else None
    return current is not None and current != recorded_md5(paths.state.with_name("state.json.dvc"))


def record_iteration(paths: Paths, message: str, push: bool = True) -> dict[str, object]:
    root = paths.root
    dvc, git = tool("dvc"), tool("git")
    if not (root / ".dvc").is_dir():
        raise RecordError(f"{root} is not a DVC repository (run `dvc init`)")
    if load_state(paths).generation >= 1:
        # Stage outputs exist only once an iteration has completed.
        # Only the main pipeline: dqn/dvc.yaml has outputs of its own that may not exist.
        run([dvc, "commit", "--force", "dvc.yaml"], root)
    tracked = [paths.learner, paths.champion, paths.state]
    run([dvc, "add", "--quiet", *[str(p.relative_to(root)) for p in tracked]], root)
    small = [
        "dvc.lock",
        "models/learner.pt.dvc",
        "models/champion.pt.dvc",
        "models/state.json.dvc",
        "reports",
        "params.yaml",
    ]
    small += [p for p in (".gitignore", "models/.gitignore", "data/.gitignore") if (root / p).exists()]
    run([git, "add", "--", *[p for p in small if (root / p).exists()]], root)
    staged = run([git, "diff", "--cached", "--quiet"], root, check=False).returncode != 0
    has_identity = run([git, "config", "user.email"], root, check=False).returncode == 0
    committed = False
    if staged:
        run([git, *([] if has_identity else GIT_IDENTITY), "commit", "--quiet", "-m", message], root)
        committed = True
    pushed = False
    if push:
        run([dvc, "push", "--quiet"], root)
        pushed = True
    return {"committed": committed, "pushed": pushed, "message": message}
