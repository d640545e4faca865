"""The learning loop's bookkeeping on tiny params, in-process: who plays self-play, the
hash check between evaluate and promote, and a promote that can be killed at any step."""

import json
import shutil

import pytest
import torch
import yaml
from mlflow.tracking import MlflowClient

from pipeline.config import load_params
from pipeline.match.games_table import read_games
from pipeline.nets.checkpoint import file_hash, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.runtime.tracking import registered_name
from pipeline.runtime.workspace import Paths
from pipeline.selfplay.replay import read_shard
from pipeline.stages import promote as promote_stage
from pipeline.stages.init import run_init
from pipeline.stages.interface import StageContext
from pipeline.stages.runner import StageError, run_stage
from tests.conftest import BIN, TINY_PARAMS, make_workspace, sh

pytestmark = pytest.mark.integration


def context(paths: Paths, quiet: bool = False) -> StageContext:
    params = load_params(paths.params)
    return StageContext.create(params, paths, log=(lambda m: None) if quiet else print)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """A workspace whose learner has moved on from the champion, after self-play, train
    and evaluate of generation 1; the gate is then marked passed so that promote has
    every step to do."""
    ws = make_workspace(tmp_path_factory.mktemp("loop") / "ws")
    paths = Paths(ws)
    params = load_params(paths.params)
    run_init(params, paths)
    torch.manual_seed(99)
    net = PolicyValueNet(params.game, NetSpec.model_validate(TINY_PARAMS["net"]))
    save_checkpoint(paths.learner, net, {"generation": 0, "note": "a learner that moved on"})
    for name in ("selfplay", "train", "evaluate"):
        run_stage(name, context(paths, quiet=True))
    evaluation = json.loads(paths.report("details/evaluation.json").read_text())
    for match in ("vs_pure", "vs_champion"):
        evaluation[match]["sprt"].update(accepted=True, decision="H1")
    paths.report("details/evaluation.json").write_text(json.dumps(evaluation))
    return ws


def copy(ws, to):
    shutil.copytree(ws, to)
    return Paths(to)


def snapshot(paths: Paths) -> dict:
    client = MlflowClient(tracking_uri=f"sqlite:///{paths.root / 'mlflow.db'}")
    params = load_params(paths.params)
    versions = client.search_model_versions(f"name='{registered_name(params.game)}'")
    return {
        "state": json.loads(paths.state.read_text()),
        "learner": file_hash(paths.learner),
        "champion": file_hash(paths.champion),
        "promotion": json.loads(paths.report("details/promotion.json").read_text()),
        "versions": sorted((int(v.version), v.tags.get("generation")) for v in versions),
    }


def test_self_play_uses_the_learner_by_default_and_the_champion_when_asked(evaluated, tmp_path):
    paths = Paths(evaluated)
    shard = read_shard(paths.replay / "gen-0001" / "shard-0000.npz")
    # The judged candidate became... nothing yet: the learner is still the one self-play used.
    assert shard.header["player"] == "learner"
    assert shard.header["model_hash"] == file_hash(paths.learner) != file_hash(paths.champion)
    train = json.loads(paths.report("details/train.json").read_text())
    assert train["init_hash"] == file_hash(paths.learner)

    other = copy(evaluated, tmp_path / "ws")
    params = yaml.safe_load(other.params.read_text())
    params["selfplay"]["player"] = "champion"
    other.params.write_text(yaml.safe_dump(params))
    shutil.rmtree(other.replay / "gen-0001")
    run_stage("selfplay", context(other, quiet=True))
    shard = read_shard(other.replay / "gen-0001" / "shard-0000.npz")
    assert shard.header["player"] == "champion"
    assert shard.header["model_hash"] == file_hash(other.champion)


def test_evaluate_records_every_game_and_the_judged_hash(evaluated):
    paths = Paths(evaluated)
    evaluation = json.loads(paths.report("details/evaluation.json").read_text())
    assert evaluation["candidate_hash"] == file_hash(paths.candidate)
    rows = read_games(paths.games_table)
    assert len(rows) == evaluation["vs_pure"]["games"] + evaluation["vs_champion"]["games"]
    assert {r["player"] for r in rows} == {"gen-0001"}
    assert {r["opponent"] for r in rows} == {"pure:20", "gen-0000"}
    for match in ("vs_pure", "vs_champion"):
        t = evaluation[match]["sprt"]
        assert t["games"] == evaluation[match]["games"] and t["lower_bound"] < 0 < t["upper_bound"]


def test_promote_refuses_a_candidate_that_was_not_evaluated(evaluated, tmp_path):
    paths = copy(evaluated, tmp_path / "ws")
    before = paths.state.read_text()
    shutil.copyfile(paths.champion, paths.candidate)  # e.g. train rerun after evaluate
    with pytest.raises(StageError, match="not the model that was evaluated.*rerun evaluate"):
        run_stage("promote", context(paths))
    assert paths.state.read_text() == before
    out = sh([str(BIN / "zero"), "stage", "promote"], paths.root, check=False)
    assert out.returncode == 2 and "rerun evaluate" in out.stderr and "Traceback" not in out.stderr


@pytest.fixture(scope="module")
def reference(evaluated, tmp_path_factory):
    paths = copy(evaluated, tmp_path_factory.mktemp("reference") / "ws")
    run_stage("promote", context(paths))
    return snapshot(paths)


@pytest.mark.parametrize("fault", ["learner", "champion", "register", "state", "report"])
def test_promote_killed_at_any_step_and_rerun_ends_in_the_same_state(evaluated, reference, tmp_path, fault):
    paths = copy(evaluated, tmp_path / "ws")
    ctx = context(paths)

    def crash(name):
        if name == fault:
            raise KeyboardInterrupt(f"killed before {name}")

    with pytest.raises(KeyboardInterrupt):
        promote_stage.run(ctx, between_steps=crash)
    run_stage("promote", ctx)
    assert snapshot(paths) == reference
    run_stage("promote", ctx)  # and once more: nothing changes
    assert snapshot(paths) == reference


def test_the_reference_promotion(reference, evaluated):
    paths = Paths(evaluated)
    candidate = file_hash(paths.candidate)
    assert reference["learner"] == reference["champion"] == candidate
    assert reference["versions"] == [(1, "1")]
    state = reference["state"]
    assert state["generation"] == 1 and state["champion_generation"] == 1 and state["ladder"] == 40
    assert reference["promotion"]["ladder_before"] == 20 and reference["promotion"]["ladder_after"] == 40
    assert reference["promotion"]["strongest_level_beaten"] == 20
    assert state["history"][0]["rating"] is not None
