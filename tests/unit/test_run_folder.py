"""A run folder keeps every promoted champion (pipeline.orchestration.runs.keep_champion):
each one once, under its generation's name, as it is promoted; and its run.json keeps every
stretch, also one whose process was killed before it could close it."""

from __future__ import annotations

import pytest

from pipeline.orchestration.runs import RunFolder, close_stretch, keep_champion, open_stretch, save
from pipeline.runtime.workspace import Paths, State, read_json, save_state

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


def finish_generation(run, paths, generation):
    """A generation of 100 s of stages, snapshotted as `zero iterate --resume` does."""
    history = [{"seconds": {"selfplay": 80.0, "train": 20.0}}] * generation
    save_state(paths, State(generation=generation, history=history))
    save(run, paths, window=0)


def test_a_stretch_killed_before_it_closes_is_recorded_to_its_last_snapshot(tmp_path):
    run, paths = RunFolder(tmp_path / "run"), Paths(tmp_path / "work")
    paths.models.mkdir(parents=True)
    run.path.mkdir()
    finish_generation(run, paths, 2)

    # A stretch that closes: one entry, nothing left open.
    assert open_stretch(run, 2, started=1000.0) is None
    finish_generation(run, paths, 3)
    close_stretch(run, paths, started=1000.0, first=2)
    info = read_json(run.manifest)
    assert "open_stretch" not in info
    assert [(s["from_generation"], s["to_generation"]) for s in info["stretches"]] == [(2, 3)]

    # A stretch killed after two snapshots (no close_stretch): the next one records it.
    open_stretch(run, 3, started=2000.0)
    finish_generation(run, paths, 4)
    finish_generation(run, paths, 5)
    info = read_json(run.manifest)
    assert (info["open_stretch"]["from_generation"], info["generation"]) == (3, 5)
    cut = open_stretch(run, 5, started=9000.0)
    assert cut is not None and cut["to_generation"] == 5
    info = read_json(run.manifest)
    assert info["generation"] == 5 and info["training_hours"] == round(500 / 3600, 3)
    last = info["stretches"][-1]
    assert (last["from_generation"], last["to_generation"], last["cut"]) == (3, 5, True)
    assert last["training_hours_at_end"] == info["training_hours"]
    assert last["minutes"] > 0
    assert info["open_stretch"] == {"from_generation": 5, "started": 9000.0}

    # Killed before its first snapshot: nothing to record, and it is not recorded twice.
    assert open_stretch(run, 5, started=9500.0) is None
    assert len(read_json(run.manifest)["stretches"]) == 2
