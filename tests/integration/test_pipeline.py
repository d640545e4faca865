"""The product's main job, end to end: `dvc repro` iterations in a fresh git + DVC
workspace with tiny params, and `zero iterate` as a Prefect flow."""

import json
import os
import signal
import subprocess
import time

import pytest
from mlflow.tracking import MlflowClient

from pipeline.nets.checkpoint import file_hash
from pipeline.runtime.tracking import experiment_name
from pipeline.selfplay.replay import read_shard
from tests.conftest import BIN, GIT_ID, TINY_PARAMS, env, make_workspace, sh

pytestmark = pytest.mark.integration

DVC = str(BIN / "dvc")
ZERO = str(BIN / "zero")


def commit_iteration(ws, message):
    sh([DVC, "add", "-q", "models/learner.pt", "models/champion.pt", "models/state.json"], ws)
    sh(["git", "add", "-A"], ws)
    sh(["git", *GIT_ID, "commit", "-qm", message], ws)
    sh([DVC, "push", "-q"], ws)
    return sh(["git", "rev-parse", "HEAD"], ws).stdout.strip()


def test_two_dvc_repro_iterations(tmp_path):
    ws = make_workspace(tmp_path / "ws", remote=tmp_path / "remote")
    sh([ZERO, "init"], ws)
    sh([DVC, "add", "-q", "models/learner.pt", "models/champion.pt", "models/state.json"], ws)

    sh([DVC, "repro"], ws)
    lock1 = (ws / "dvc.lock").read_text()
    first = commit_iteration(ws, "generation 1")
    champion1 = file_hash(ws / "models/champion.pt")

    sh([DVC, "repro"], ws)
    lock2 = (ws / "dvc.lock").read_text()
    commit_iteration(ws, "generation 2")
    assert lock1 != lock2

    # Two generations of complete shards.
    gens = sorted(p.name for p in (ws / "data/replay").iterdir())
    assert gens == ["gen-0001", "gen-0002"]
    for gen in gens:
        shards = sorted((ws / "data/replay" / gen).glob("shard-*.npz"))
        assert len(shards) == TINY_PARAMS["selfplay"]["tasks"]
        assert sum(read_shard(s).header["games"] for s in shards) == TINY_PARAMS["selfplay"]["games"]

    # MLflow: one training run per generation with per-step loss and entropy.
    client = MlflowClient(tracking_uri=f"sqlite:///{ws / 'mlflow.db'}")
    from pipeline.games.base import GameSpec

    exp = client.get_experiment_by_name(experiment_name(GameSpec.model_validate(TINY_PARAMS["game"])))
    runs = client.search_runs([exp.experiment_id], filter_string="tags.`mlflow.runName` != 'strength'")
    assert len(runs) == 2
    [strength] = client.search_runs([exp.experiment_id], filter_string="tags.`mlflow.runName` = 'strength'")
    assert [m.step for m in client.get_metric_history(strength.info.run_id, "vs_pure_score")] == [1, 2]
    assert strength.info.status == "FINISHED"  # never left RUNNING between generations
    assert sorted(r.data.tags["generation"] for r in runs) == ["1", "2"]
    assert all(len(r.data.tags["mlflow.source.git.commit"]) == 40 for r in runs)
    for key in ("rating", "vs_pure_llr", "vs_pure_games"):
        assert [m.step for m in client.get_metric_history(strength.info.run_id, key)] == [1, 2]
    for run in runs:
        for key in ("loss", "policy_entropy"):
            history = client.get_metric_history(run.info.run_id, key)
            assert len(history) == TINY_PARAMS["train"]["steps"]

    # The stage reports agree with each other and with the state.
    evaluation = json.loads((ws / "reports/details/evaluation.json").read_text())
    promotion = json.loads((ws / "reports/details/promotion.json").read_text())
    train = json.loads((ws / "reports/details/train.json").read_text())
    state = json.loads((ws / "models/state.json").read_text())
    assert evaluation["generation"] == promotion["generation"] == train["generation"] == state["generation"] == 2
    gate = evaluation["vs_pure"]["sprt"]["accepted"] and evaluation["vs_champion"]["sprt"]["accepted"]
    assert promotion["promoted"] == gate
    assert promotion["champion_hash"] == file_hash(ws / "models/champion.pt")
    # The learner is always the candidate that was judged; the champion only after a pass.
    assert promotion["learner_hash"] == evaluation["candidate_hash"] == file_hash(ws / "models/learner.pt")
    assert train["init_hash"] != train["candidate_hash"]
    games = (ws / "reports/games.csv").read_text().splitlines()
    assert games[0].startswith("generation,match,game")
    assert {line.split(",")[0] for line in games[1:]} == {"1", "2"}
    assert [h["generation"] for h in state["history"]] == [1, 2]
    assert state["history"][1]["train_run_id"] == train["run_id"]
    report = (ws / "reports/report.md").read_text()
    assert "Generation 2" in report and "| 2 | 16 |" in report
    assert "Each position is drawn about" in report  # steps x batch over generation 2's positions
    assert (ws / "reports/training.png").stat().st_size > 1000
    assert (ws / "reports/strength.png").stat().st_size > 1000

    metrics = json.loads(sh([DVC, "metrics", "show", "--json"], ws).stdout)
    shown = json.dumps(metrics)
    for name in ("selfplay.json", "train.json", "vs_pure.json", "vs_champion.json", "classical.json", "promotion.json"):
        assert f"reports/{name}" in shown
    assert "details" not in shown  # the full reports are outputs, not metrics
    # The headline figures agree with the details they come from (one revision: the workspace).
    (shown_rev,) = metrics.values()
    headline = {path.removeprefix("reports/"): file["data"] for path, file in shown_rev["data"].items()}
    assert headline["promotion.json"]["decision"] == ("promoted" if promotion["promoted"] else "refused")
    assert headline["vs_pure.json"]["score"] == evaluation["vs_pure"]["score"]
    assert headline["train.json"]["loss"] == round(train["final_loss"], 4)
    plain = sh([DVC, "metrics", "show"], ws)
    assert "failed to load" not in (plain.stdout + plain.stderr).lower()  # the never-run DQN stage
    diff = sh([DVC, "metrics", "diff", "HEAD~1"], ws)
    for table in (plain.stdout, diff.stdout):  # what a user reads every day fits a terminal
        assert table.strip() and max(len(line) for line in table.splitlines()) <= 120, table
    plots = json.loads(sh([DVC, "plots", "show", "--json"], ws).stdout)["data"]
    assert {"loss", "rating", "score vs ladder level"} <= set(plots)

    # An older commit + `dvc checkout` restores that generation's data and champion.
    sh(["git", "checkout", "-q", first], ws)
    sh([DVC, "checkout", "-q", "--force"], ws)
    assert sorted(p.name for p in (ws / "data/replay").iterdir()) == ["gen-0001"]
    assert file_hash(ws / "models/champion.pt") == champion1
    assert json.loads((ws / "models/state.json").read_text())["generation"] == 1

    # `dvc pull` brings everything back from the remote.
    sh(["git", "checkout", "-q", "-"], ws)
    for path in ("data/replay", ".dvc/cache"):
        subprocess.run(["rm", "-rf", str(ws / path)], check=True)
    sh([DVC, "pull", "-q", "--force"], ws)
    assert sorted(p.name for p in (ws / "data/replay").iterdir()) == ["gen-0001", "gen-0002"]

    # An experiment with an override is one more iteration.
    sh([DVC, "exp", "run", "-S", "train.lr=0.01"], ws)
    assert json.loads((ws / "reports/details/train.json").read_text())["generation"] == 3


def test_iterate_records_each_iteration_and_resumes_after_kill(tmp_path):
    params = {**TINY_PARAMS, "selfplay": {**TINY_PARAMS["selfplay"], "tasks": 4, "workers": 1, "games": 8}}
    ws = make_workspace(tmp_path / "ws", params=params, remote=tmp_path / "remote")
    # Start an iteration and kill -9 it once the first shard of generation 1 exists.
    proc = subprocess.Popen(
        [ZERO, "iterate", "--iterations", "1"],
        cwd=ws,
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    gen1 = ws / "data/replay/gen-0001"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and not list(gen1.glob("shard-*.npz")):
        time.sleep(0.2)
    assert proc.poll() is None, "zero iterate ended before it was killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert list(gen1.glob("shard-*.npz")), "no shard appeared before the deadline"
    for shard in gen1.glob("shard-*.npz"):
        read_shard(shard)  # every visible shard is whole

    sh([ZERO, "iterate", "--iterations", "2"], ws)
    selfplay = json.loads((ws / "reports/details/selfplay.json").read_text())
    state = json.loads((ws / "models/state.json").read_text())
    assert state["generation"] == 2
    games = [
        sum(read_shard(s).header["games"] for s in (ws / f"data/replay/gen-000{g}").glob("shard-*.npz")) for g in (1, 2)
    ]
    assert games == [8, 8]
    assert selfplay["generation"] == 2
    log = sh(["git", "log", "--format=%s"], ws).stdout.split("\n")
    assert "generation 1" in log and "generation 2" in log
    assert any((tmp_path / "remote").rglob("*")), "dvc push sent nothing"
    assert sh([DVC, "status", "-q", "dvc.yaml"], ws, check=False).returncode == 0


def test_a_run_folder_resumes_on_a_fresh_clone_to_the_same_generation(tmp_path):
    """Stop a run after one generation, carry only what a commit of its folder holds to
    another place (a fresh clone), resume: the second generation's learner (weights and
    optimiser) is the one an uninterrupted run with the same seed makes."""
    import shutil

    import torch
    import yaml

    params = {**TINY_PARAMS, "inference": {"backend": "torch"}}
    for name in ("stopped", "straight"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "params.yaml").write_text(yaml.safe_dump(params))
    sh([ZERO, "iterate", "--resume", "stopped", "--iterations", "1"], tmp_path)
    # What git would carry: the folder without its ignored scratch workspace, and without
    # champions/ (a DVC output, whose remote a fresh machine may not reach).
    ignored = (tmp_path / "stopped" / ".gitignore").read_text().split()
    assert "work/" in ignored
    shutil.copytree(tmp_path / "stopped", tmp_path / "clone", ignore=shutil.ignore_patterns("work", "champions"))
    assert sorted(p.name for p in (tmp_path / "clone/snapshot/data/replay").iterdir()) == ["gen-0001"]
    out = sh([ZERO, "iterate", "--resume", "clone", "--iterations", "1"], tmp_path)
    assert "generation 1 from" in out.stderr
    sh([ZERO, "iterate", "--resume", "straight", "--iterations", "2"], tmp_path)

    resumed = torch.load(tmp_path / "clone/snapshot/models/learner.pt", weights_only=False)
    straight = torch.load(tmp_path / "straight/snapshot/models/learner.pt", weights_only=False)
    assert resumed["meta"]["generation"] == straight["meta"]["generation"] == 2
    for key, value in straight["state_dict"].items():
        assert torch.equal(resumed["state_dict"][key], value), key
    assert resumed["optimizer"]["state"].keys() == straight["optimizer"]["state"].keys()
    for (_, a), (_, b) in zip(
        sorted(resumed["optimizer"]["state"].items()), sorted(straight["optimizer"]["state"].items()), strict=True
    ):
        assert torch.equal(a["exp_avg"], b["exp_avg"])
    # One rating scale: the resumed run's games table holds both generations' games.
    games = (tmp_path / "clone/snapshot/reports/games.csv").read_text().splitlines()
    assert {line.split(",")[0] for line in games[1:]} == {"1", "2"}
    info = json.loads((tmp_path / "clone/run.json").read_text())
    assert info["generation"] == 2 and [s["to_generation"] for s in info["stretches"]] == [1, 2]
    # Every promoted champion of the two-generation stretch is kept, not only its last.
    history = json.loads((tmp_path / "straight/snapshot/models/state.json").read_text())["history"]
    promoted = [f"gen-{h['generation']:04d}.pt" for h in history if h["promoted"]]
    assert promoted and sorted(p.name for p in (tmp_path / "straight/champions").iterdir()) == promoted
    # --resume and --root are two answers to one question.
    bad = sh([ZERO, "iterate", "--resume", "clone", "--root", "straight"], tmp_path, check=False)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    missing = sh([ZERO, "iterate", "--resume", "nowhere"], tmp_path, check=False)
    assert missing.returncode != 0 and "no such run folder" in missing.stderr
