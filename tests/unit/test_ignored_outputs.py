"""What the tools write into a checkout as a user runs them stays out of `git status`:
`dvc plots show` (dvc_plots/), MLflow's store (mlflow.db, mlruns/), the engine logs, the
built docs."""

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="not a git checkout")
@pytest.mark.parametrize(
    "path", ["dvc_plots/index.html", "mlflow.db", "mlruns/1/meta.yaml", "engine-logs/x.log", "site/index.html"]
)
def test_what_a_run_writes_is_ignored(path):
    result = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=REPO)
    assert result.returncode == 0, f"{path} would show in git status: add it to .gitignore"
