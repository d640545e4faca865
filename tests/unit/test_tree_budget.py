"""The repository's size budget (pipeline.tools.tree_budget), checked on this checkout in
every `make test`, and shown to catch what it is for on a repository made here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pipeline.tools.tree_budget import MIB, main, weigh

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_this_checkout_is_within_its_budget(capsys):
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an unpacked archive has no tracked tree to weigh)")
    weight = weigh(REPO)
    assert weight.breaches == [], "\n".join(weight.breaches)
    assert main(["--root", str(REPO), "--top", "3"]) == 0
    assert "tracked tree:" in capsys.readouterr().out


def test_a_big_checkpoint_outside_its_homes_and_an_overweight_tree_are_caught(tmp_path, capsys):
    git(tmp_path, "init", "-q")
    big = b"\0" * (2 * MIB)
    for name in (
        "models/pretrained/net.pt",
        "reports/runs/r/snapshot/models/learner.pt",
        "reports/runs/r/champions/gen-0001.pt",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(big)
    (tmp_path / "small.txt").write_text("x")
    git(tmp_path, "add", ".")
    weight = weigh(tmp_path, budget_mib=7, file_mib=1)
    assert weight.total == 3 * 2 * MIB + 1
    assert weight.files[-1] == ("small.txt", 1)
    assert len(weight.breaches) == 1 and weight.breaches[0].startswith("reports/runs/r/champions/gen-0001.pt")
    over = weigh(tmp_path, budget_mib=5, file_mib=1)
    assert any("over its 5 MiB budget" in b for b in over.breaches)
    assert main(["--root", str(tmp_path), "--budget-mib", "5", "--file-mib", "1"]) == 1
    assert "over budget:" in capsys.readouterr().out


def test_outside_a_checkout_it_says_so(tmp_path, capsys):
    assert main(["--root", str(tmp_path)]) == 2
    assert "not a git checkout" in capsys.readouterr().err
