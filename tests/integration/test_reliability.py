"""What a user meets when things go wrong: corrupt data, bad params, reruns."""

import json
import shutil

import numpy as np
import pytest
import yaml

from pipeline.selfplay.replay import read_shard
from tests.conftest import BIN, TINY_PARAMS, make_workspace, sh

pytestmark = pytest.mark.integration

ZERO = str(BIN / "zero")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A workspace after one self-play stage."""
    ws = make_workspace(tmp_path_factory.mktemp("reliability") / "ws")
    sh([ZERO, "init"], ws)
    sh([ZERO, "stage", "selfplay"], ws)
    return ws


def test_corrupt_shard_is_one_clear_error_or_a_documented_skip(played, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(played, ws)
    shard = ws / "data/replay/gen-0001/shard-0001.npz"
    shard.write_bytes(shard.read_bytes()[:300])
    out = sh([ZERO, "stage", "train"], ws, check=False)
    assert out.returncode == 2
    assert "shard-0001.npz: corrupt or truncated shard" in out.stderr
    assert "Traceback" not in out.stderr
    # The documented escape hatch: train.skip_corrupt leaves it out and says so.
    params = yaml.safe_load((ws / "params.yaml").read_text())
    params["train"]["skip_corrupt"] = True
    (ws / "params.yaml").write_text(yaml.safe_dump(params))
    out = sh([ZERO, "stage", "train"], ws)
    report = json.loads((ws / "reports/details/train.json").read_text())
    assert len(report["skipped_shards"]) == 1 and "shard-0001.npz" in report["skipped_shards"][0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": {"game": "gomoku", "height": 25, "width": 25}}, "game: gomoku board must be 3..20"),
        ({"selfplay": {"runner": "cluster"}}, "selfplay.runner: Input should be 'threads', 'processes' or 'dask'"),
        ({"train": {"lr": -1}}, "train.lr: Input should be greater than 0"),
        ({"trian": {"steps": 3}}, "trian: Extra inputs are not permitted"),
    ],
)
def test_invalid_params_are_one_clear_error_and_nothing_is_written(tmp_path, change, message):
    params = {**TINY_PARAMS, **change}
    ws = make_workspace(tmp_path / "ws", params=params)
    before = sorted(p.name for p in ws.iterdir())
    # Every command reads params.yaml through one function: each error is checked through
    # `init`, and the first through a stage and `iterate` as well (a process each: 2-3 s).
    commands = [["init"], ["stage", "selfplay"], ["iterate"]] if "board" in message else [["init"]]
    for cmd in commands:
        out = sh([ZERO, *cmd], ws, check=False)
        assert out.returncode == 2, out.stderr
        assert message in out.stderr
        assert out.stderr.count("error:") == 1 and "Traceback" not in out.stderr
    assert sorted(p.name for p in ws.iterdir()) == before


def test_same_params_and_seed_reproduce_the_same_games(played, tmp_path):
    ws = make_workspace(tmp_path / "again")
    sh([ZERO, "init"], ws)
    sh([ZERO, "stage", "selfplay"], ws)
    for task in range(TINY_PARAMS["selfplay"]["tasks"]):
        name = f"data/replay/gen-0001/shard-{task:04d}.npz"
        a, b = read_shard(played / name), read_shard(ws / name)
        for key in ("obs", "pi", "z", "game_id", "ply"):
            assert np.array_equal(getattr(a, key), getattr(b, key)), key


def test_playout_cap_and_resignation_report_their_figures(tmp_path):
    params = json.loads(json.dumps(TINY_PARAMS))
    params["selfplay"].update(
        {
            "games": 12,
            "fast_simulations": 4,
            "full_search_prob": 0.5,
            "resign_threshold": -0.95,
            "resign_calibration": 0.5,
        }
    )
    ws = make_workspace(tmp_path / "ws", params)
    sh([ZERO, "init"], ws)
    sh([ZERO, "stage", "selfplay"], ws)
    report = json.loads((ws / "reports/details/selfplay.json").read_text())
    assert report["games"] == 12 and report["fast_simulations"] == 4
    # Half the moves are kept as training positions, so a game is longer than its positions.
    assert report["mean_game_length"] * report["games"] > report["positions"]
    assert report["resign_threshold"] == -0.95
    assert 0 <= report["resigned_games"] <= 12 and 0 <= report["calibration_games"] <= 12
    assert report["suggested_resign_threshold"] is None or -1 <= report["suggested_resign_threshold"] <= 1
    shards = sorted((ws / "data/replay/gen-0001").glob("shard-*.npz"))
    assert sum(read_shard(s).header["games"] for s in shards) == 12
