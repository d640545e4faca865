"""The DQN baseline through its own DVC pipeline, then judged and played like any model."""

import json

import pytest
from fastapi.testclient import TestClient

from tests.conftest import BIN, TINY_PARAMS, make_workspace, sh

pytestmark = pytest.mark.integration


def test_dqn_trains_through_dvc_and_plays_everywhere(tmp_path):
    params = {
        **TINY_PARAMS,
        "dqn": {
            "steps": 40,
            "warmup": 64,
            "batch_size": 16,
            "parallel_games": 4,
            "target_sync": 10,
            "epsilon_decay": 20,
            "net": {"blocks": 1, "channels": 16},
        },
    }
    ws = make_workspace(tmp_path / "ws", params=params)
    sh([str(BIN / "dvc"), "repro", "dqn/dvc.yaml"], ws)
    report = json.loads((ws / "reports/dqn.json").read_text())
    assert report["steps"] == 40 and report["target_syncs"] == 4 and report["games"] > 0
    assert "dqn" in (ws / "dqn/dvc.lock").read_text()

    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{ws / 'mlflow.db'}")
    for key in ("loss", "epsilon"):
        assert len(client.get_metric_history(report["run_id"], key)) == 40

    out = sh(
        [str(BIN / "zero"), "evaluate", "--model", "models/dqn.pt", "--vs", "pure:20", "--games", "4", "--json"], ws
    )
    result = json.loads(out.stdout)
    assert result["games"] == 4 and result["wins_as_first"] + result["wins_as_second"] == result["wins"]

    from pipeline.serve.app import create_app

    web = TestClient(create_app([ws / "models"]))
    models = [m["id"] for m in web.get("/api/options").json()["models"]]
    assert "dqn" in models
    g = web.post("/api/games", json={"game": "gomoku", "size": 5, "k": 4, "opponent": "dqn", "human": "second"}).json()
    g = web.post(f"/api/games/{g['id']}/ai").json()
    assert len(g["history"]) == 1
