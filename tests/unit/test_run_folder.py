"""A run folder keeps every promoted champion (pipeline.orchestration.runs.keep_champion):
each one once, under its generation's name, as it is promoted."""

from __future__ import annotations

import pytest

from pipeline.orchestration.runs import RunFolder, keep_champion
from pipeline.runtime.workspace import Paths

pytestmark = pytest.mark.unit


def test_every_promoted_champion_is_kept_once(tmp_path):
    run, paths = RunFolder(tmp_path / "run"), Paths(tmp_path / "work")
    paths.models.mkdir(parents=True)
    keep_champion(run, paths, 3)
    assert not run.champions.exists()  # no champion in the workspace yet
    paths.champion.write_bytes(b"three")
    keep_champion(run, paths, 0)
    assert not run.champions.exists()  # the initial net is no promoted champion
    keep_champion(run, paths, 3)
    paths.champion.write_bytes(b"five")
    keep_champion(run, paths, 3)  # the same generation again (a later save): the first copy stays
    keep_champion(run, paths, 5)
    assert sorted(p.name for p in run.champions.iterdir()) == ["gen-0003.pt", "gen-0005.pt"]
    assert (run.champions / "gen-0003.pt").read_bytes() == b"three"
    assert (run.champions / "gen-0005.pt").read_bytes() == b"five"
