"""A run folder keeps every promoted champion (pipeline.orchestration.runs.keep_champion):
each one once, under its generation's name, as it is promoted; and its run.json keeps every
stretch, also one whose process was killed before it could close it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.orchestration.runs import (
    RunError,
    RunFolder,
    close_stretch,
    keep_champion,
    open_stretch,
    restore,
    save,
    track_champions,
)
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


def new_run(tmp_path) -> tuple[RunFolder, Paths]:
    """A run folder with its params and an empty workspace beside it."""
    run, paths = RunFolder(tmp_path / "run"), Paths(tmp_path / "work")
    paths.models.mkdir(parents=True)
    run.path.mkdir()
    (run.path / "params.yaml").write_text("seed: 0\n")
    return run, paths


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


def test_a_snapshot_keeps_the_champion_once_when_it_is_the_learner(tmp_path):
    run, paths = new_run(tmp_path)
    paths.learner.write_bytes(b"weights and moments")
    paths.champion.write_bytes(b"weights and moments")
    finish_generation(run, paths, 2)
    assert (run.snapshot / "models" / "learner.pt").is_file()
    assert not (run.snapshot / "models" / "champion.pt").exists()  # half the bytes of the resume point

    # A fresh machine: the workspace is rebuilt from the folder, the champion from the learner.
    shutil.rmtree(paths.root)
    workspace, _ = restore(run)
    assert workspace.champion.read_bytes() == b"weights and moments"
    assert workspace.learner.read_bytes() == b"weights and moments"

    # A champion that differs from the learner is kept as its own file.
    workspace.champion.write_bytes(b"older weights")
    finish_generation(run, workspace, 3)
    assert (run.snapshot / "models" / "champion.pt").read_bytes() == b"older weights"
    shutil.rmtree(workspace.root)
    again, _ = restore(run)
    assert again.champion.read_bytes() == b"older weights"


def test_a_promoted_champion_travels_in_the_snapshot_without_its_moments(tmp_path, learner_checkpoint):
    """The champion the next gate plays is in the resume point in git, as a player's copy
    (no optimiser state): a fresh clone on a machine without the DVC remote resumes."""
    import torch

    from pipeline.nets.checkpoint import load_checkpoint

    run, paths = new_run(tmp_path)
    learner_checkpoint(paths.learner, 4)
    learner_checkpoint(paths.champion, 3)
    save_state(paths, State(generation=4, champion_generation=3))
    save(run, paths, window=0)
    assert (run.champions / "gen-0003.pt").read_bytes() == paths.champion.read_bytes()
    kept = run.snapshot / "models" / "champion.pt"
    assert kept.stat().st_size < paths.champion.stat().st_size  # the moments left out
    assert "optimizer" not in torch.load(kept, weights_only=True)

    # A fresh clone, nothing fetched by DVC: the snapshot alone restores the champion's weights.
    champion_weights = paths.champion.read_bytes()
    shutil.rmtree(paths.root)
    shutil.rmtree(run.champions)
    workspace, _ = restore(run)
    restored, meta = load_checkpoint(workspace.champion, None)
    (tmp_path / "was.pt").write_bytes(champion_weights)
    original, _ = load_checkpoint(tmp_path / "was.pt", None)
    assert meta == {"generation": 3}
    for name, value in original.state_dict().items():
        assert torch.equal(restored.state_dict()[name], value)
    assert workspace.learner.read_bytes() == (run.snapshot / "models" / "learner.pt").read_bytes()


def test_a_snapshot_can_keep_the_learners_moments_in_bf16_and_resume_from_them(tmp_path, learner_checkpoint):
    """`train.snapshot_moments: bf16`: the learner in git keeps its weights exactly and its
    Adam moments rounded to bfloat16 (a third fewer bytes); the resumed optimiser has them
    back in float32, close to what they were. The default keeps the learner's bytes."""
    import torch

    from pipeline.nets.checkpoint import load_checkpoint, load_optimizer_state

    run, paths = new_run(tmp_path)
    _, net = learner_checkpoint(paths.learner, 4)
    paths.champion.write_bytes(b"an older champion")
    save_state(paths, State(generation=4, champion_generation=3))
    save(run, paths, window=0)
    assert (run.snapshot / "models" / "learner.pt").read_bytes() == paths.learner.read_bytes()

    save(run, paths, window=0, moments="bf16")
    kept = run.snapshot / "models" / "learner.pt"
    assert kept.stat().st_size < paths.learner.stat().st_size
    before = load_optimizer_state(paths.learner)
    after = load_optimizer_state(kept)
    assert before is not None and after is not None and after["param_groups"] == before["param_groups"]
    for index, moments in before["state"].items():
        assert torch.equal(after["state"][index]["step"], moments["step"])  # the step count is exact
        for key in ("exp_avg", "exp_avg_sq"):
            assert after["state"][index][key].dtype == torch.bfloat16
            assert torch.allclose(after["state"][index][key].float(), moments[key], rtol=1 / 128, atol=0)

    shutil.rmtree(paths.root)
    workspace, _ = restore(run)
    restored, meta = load_checkpoint(workspace.learner, None)
    assert meta == {"generation": 4}
    for name, value in net.state_dict().items():
        assert torch.equal(restored.state_dict()[name], value), name
    optimizer = torch.optim.Adam(restored.parameters())
    optimizer.load_state_dict(load_optimizer_state(workspace.learner))
    assert {m["exp_avg_sq"].dtype for m in optimizer.state_dict()["state"].values()} == {torch.float32}


def test_an_older_snapshot_that_names_its_champion_says_how_to_fetch_it(tmp_path):
    """Snapshots written before the champion travelled in them hold models/champion.ref: the
    file it names is used when it is here, else one line says what to run."""
    run, paths = new_run(tmp_path)
    paths.learner.write_bytes(b"the learner")
    paths.champion.write_bytes(b"champion 3")
    save_state(paths, State(generation=4, champion_generation=3))
    save(run, paths, window=0)
    (run.snapshot / "models" / "champion.pt").unlink()
    (run.snapshot / "models" / "champion.ref").write_text("champions/gen-0003.pt\n")

    shutil.rmtree(paths.root)
    workspace, _ = restore(run)
    assert workspace.champion.read_bytes() == b"champion 3"
    assert workspace.learner.read_bytes() == b"the learner"

    shutil.rmtree(workspace.root)
    shutil.rmtree(run.champions)
    with pytest.raises(RunError, match=r"champions.dvc`, then resume"):
        restore(run)


def test_a_runs_champions_are_dvc_outputs_not_git_files(tmp_path):
    dvc = Path(sys.executable).with_name("dvc")
    if not dvc.exists():
        pytest.skip("dvc is not installed beside this interpreter")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([str(dvc), "init", "-q"], cwd=repo, check=True)
    run = RunFolder(repo / "reports" / "runs" / "tiny")
    run.champions.mkdir(parents=True)
    (run.champions / "gen-0001.pt").write_bytes(b"a champion")
    said = track_champions(run)
    assert "champions tracked by DVC" in said
    assert (run.path / "champions.dvc").is_file()
    assert "/champions" in (run.path / ".gitignore").read_text()  # the bytes stay out of git
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "reports/runs/tiny/champions/gen-0001.pt"], cwd=repo
    ).returncode
    assert ignored == 0

    outside = RunFolder(tmp_path / "elsewhere")
    outside.champions.mkdir(parents=True)
    (outside.champions / "gen-0001.pt").write_bytes(b"x")
    assert "not" in track_champions(outside)  # said, not raised


def test_a_paused_run_without_its_snapshot_says_where_it_is_instead_of_starting_again(tmp_path):
    """A paused run's resume point leaves the tree for the size budget (RESULTS.md names the
    commit): resuming without it must not start the run again from generation 0 over its
    run.json; one line says which commit holds it."""
    repo = tmp_path / "repo"
    run, paths = new_run(repo)
    paths.learner.write_bytes(b"the learner")
    paths.champion.write_bytes(b"the learner")
    finish_generation(run, paths, 5)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "stretch"], check=True)
    subprocess.run([*git, "rm", "-r", "-q", str(run.snapshot)], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "pause"], check=True)
    shutil.rmtree(paths.root)  # a fresh clone: no workspace either

    with pytest.raises(RunError, match=r"stands at generation 5 but its snapshot/ is not here") as raised:
        restore(run)
    revision = str(raised.value).split("`git checkout ")[1].split(" ")[0]
    subprocess.run([*git, "checkout", "-q", revision, "--", str(run.snapshot)], check=True)
    workspace, source = restore(run)
    assert source.startswith("generation 5 from") and workspace.learner.read_bytes() == b"the learner"
