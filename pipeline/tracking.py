"""MLflow: where runs go, how they are named, and reading metric histories back."""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.games.base import GameSpec


def tracking_uri(root: Path | None = None) -> str:
    """MLFLOW_TRACKING_URI if set, else SQLite in the project: sqlite:///<abs>/mlflow.db."""
    env = os.environ.get("MLFLOW_TRACKING_URI")
    if env:
        return env
    base = Path(root or Path.cwd()).resolve()
    return f"sqlite:///{base / 'mlflow.db'}"


def experiment_name(spec: GameSpec) -> str:
    """One experiment per game and board."""
    return f"zero/{spec}"


def metric_history(uri: str, run_id: str, key: str) -> list[tuple[int, float]]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    return sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))
