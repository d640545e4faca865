"""MLflow: where runs go, how they are named, and reading metric histories back."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # names only: the runtime layer sits below the games
    from pipeline.games.base import GameSpec


def tracking_uri(root: Path | None = None) -> str:
    """MLFLOW_TRACKING_URI if set, else SQLite in the project: sqlite:///<abs>/mlflow.db."""
    env = os.environ.get("MLFLOW_TRACKING_URI")
    if env:
        return env
    base = Path(root or Path.cwd()).resolve()
    return f"sqlite:///{base / 'mlflow.db'}"


def git_commit(root: Path) -> str | None:
    """The commit checked out in `root`, for the MLflow tag `mlflow.source.git.commit`."""
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def generation_tags(root: Path, generation: int) -> dict[str, str]:
    """Tags every run of a generation carries: the generation and the workspace's commit."""
    tags = {"generation": str(generation)}
    commit = git_commit(root)
    if commit:
        tags["mlflow.source.git.commit"] = commit
    return tags


def experiment_name(spec: GameSpec) -> str:
    """One experiment per game and board."""
    return f"zero/{spec}"


def artifact_root(uri: str) -> str | None:
    """Where a SQLite store's artifacts go: mlruns/ beside the database (as `zero dashboard`
    serves them). MLflow's own default is ./mlruns under whatever the working directory
    is, which scatters artifacts (and tests') into the checkout. None for other stores."""
    if not uri.startswith("sqlite:///"):
        return None
    return (Path(uri.removeprefix("sqlite:///")).resolve().parent / "mlruns").as_uri()


def ensure_experiment(uri: str, name: str) -> str:
    """The id of experiment `name`, created with its artifacts beside the store if new."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    return client.create_experiment(name, artifact_location=artifact_root(uri))


def metric_history(uri: str, run_id: str, key: str) -> list[tuple[int, float]]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    return sorted((m.step, m.value) for m in client.get_metric_history(run_id, key))


def registered_name(spec: GameSpec) -> str:
    return "zero-" + str(spec).replace(":", "-")


def register_champion(uri: str, spec: GameSpec, run_id: str, artifact: str, generation: int) -> str:
    """Register the run's checkpoint artifact as a new model version and point the
    `champion` alias at it. Returns the version number."""
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    name = registered_name(spec)
    try:
        client.create_registered_model(name, description=f"zero-pipeline champions for {spec}")
    except MlflowException as exc:
        if "already exists" not in str(exc).lower() and "RESOURCE_ALREADY_EXISTS" not in str(exc):
            raise
    # One version per promoted generation, however often a killed promote is rerun.
    existing = [
        mv for mv in client.search_model_versions(f"name='{name}'") if mv.tags.get("generation") == str(generation)
    ]
    if existing:
        mv = existing[0]
    else:
        run = client.get_run(run_id)
        source = f"{run.info.artifact_uri}/{artifact}"
        mv = client.create_model_version(name, source=source, run_id=run_id, tags={"generation": str(generation)})
    client.set_registered_model_alias(name, "champion", mv.version)
    return str(mv.version)


def log_strength(
    uri: str, spec: GameSpec, generation: int, metrics: dict[str, float], tags: dict[str, str] | None = None
) -> str:
    """Per-generation strength (win rates, ladder, games played) in one long-lived run
    named `strength`, step = generation, so the MLflow UI plots it over time."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    experiment_id = ensure_experiment(uri, experiment_name(spec))
    runs = client.search_runs([experiment_id], filter_string="tags.`mlflow.runName` = 'strength'", max_results=1)
    run_id = runs[0].info.run_id if runs else client.create_run(experiment_id, run_name="strength").info.run_id
    for key, value in metrics.items():
        client.log_metric(run_id, key, float(value), step=generation)
    for key, value in (tags or {"generation": str(generation)}).items():
        client.set_tag(run_id, key, value)
    client.set_terminated(run_id)  # finished until the next generation logs to it
    return run_id


@contextmanager
def tracking_env_kept() -> Iterator[None]:
    """Lightning's MLFlowLogger calls mlflow.set_tracking_uri, which exports
    MLFLOW_TRACKING_URI into os.environ; put it back so that one run's store does not
    become the default of everything this process (and its children) do next."""
    before = os.environ.get("MLFLOW_TRACKING_URI")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MLFLOW_TRACKING_URI", None)
        else:
            os.environ["MLFLOW_TRACKING_URI"] = before
