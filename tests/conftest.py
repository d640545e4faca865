import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GIT_ID = ["-c", "user.name=test", "-c", "user.email=test@localhost"]

TINY_PARAMS = {
    "seed": 0,
    "game": {"game": "gomoku", "height": 5, "width": 5, "k": 4},
    "net": {"blocks": 1, "channels": 16, "value_hidden": 16},
    "selfplay": {"games": 8, "tasks": 2, "workers": 2, "parallel_games": 4, "search": {"simulations": 16}},
    "train": {"steps": 8, "batch_size": 32, "lr": 0.002},
    "evaluate": {
        "ladder": [20, 40, 80],
        "opening_plies": 1,
        "pairs_per_round": 2,
        "vs_pure": {"max_games": 4},
        "vs_champion": {"max_games": 2},
    },
    "promote": {"register_model": True},
    "inference": {"backend": "auto"},
}


@pytest.fixture(scope="session", autouse=True)
def isolated_prefect(tmp_path_factory):
    """Prefect in tests: a temporary PREFECT_HOME, analytics and UI off, logging WARNING."""
    home = tmp_path_factory.mktemp("prefect-home")
    settings = {
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        # A loaded 2-core machine can take longer than the default 20 s to start it.
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    }
    old = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    os.environ.pop("MLFLOW_TRACKING_URI", None)
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def shared_prefect_server(tmp_path_factory, isolated_prefect):
    """One Prefect server (loopback, no services, no UI) for a worker's integration tests,
    its API exported in PREFECT_API_URL: a `zero stage selfplay` or `zero iterate` would
    otherwise start Prefect's temporary server in each process (10-15 s of a 2-core
    machine, a third of a tiny stage). The server has its own home, so no temporary server
    a test still starts (a test that pops PREFECT_API_URL) shares its database."""
    from pipeline.orchestration.scheduling import local_prefect_server

    home = tmp_path_factory.mktemp("prefect-server-home")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server_env = env() | {"PREFECT_HOME": str(home)}
    server_env.pop("PREFECT_API_URL", None)
    with local_prefect_server(port, 180, ("--no-services", "--no-ui"), server_env) as api:
        os.environ["PREFECT_API_URL"] = api
        try:
            yield api
        finally:
            os.environ.pop("PREFECT_API_URL", None)


@pytest.fixture(autouse=True)
def prefect_api_for_integration_tests(request):
    """Integration tests talk to the worker's shared Prefect server (started at the first
    one); unit tests start none."""
    if request.node.get_closest_marker("integration"):
        request.getfixturevalue("shared_prefect_server")
    yield


@pytest.fixture(scope="session", autouse=True)
def no_mlruns_in_the_checkout():
    """MLflow's default artifact root is ./mlruns under the working directory (the
    checkout, under pytest): every store a test makes keeps its artifacts beside its own
    database instead (pipeline.runtime.tracking.artifact_root). Fails the session if a
    test leaves mlruns/ (or an mlflow.db) in the checkout."""

    def mlflow_files() -> set[Path]:
        runs = REPO / "mlruns"
        return {p for p in (REPO / "mlflow.db", runs, *(runs.rglob("*") if runs.is_dir() else ())) if p.exists()}

    before = mlflow_files()
    yield
    written = sorted(str(p.relative_to(REPO)) for p in mlflow_files() - before)
    assert not written, f"tests wrote MLflow files into the checkout: {written[:5]}"


@pytest.fixture(autouse=True)
def no_inherited_tracking_uri():
    """MLflow's set_tracking_uri (called by Lightning's logger) exports MLFLOW_TRACKING_URI
    into os.environ; one test's in-process training must not steer the next one's."""
    os.environ.pop("MLFLOW_TRACKING_URI", None)
    yield
    os.environ.pop("MLFLOW_TRACKING_URI", None)


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.pop("MLFLOW_TRACKING_URI", None)
    out["PATH"] = f"{BIN}{os.pathsep}{out.get('PATH', '')}"
    return out


def sh(cmd: list[str], cwd: Path, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


def make_workspace(path: Path, params: dict | None = None, remote: Path | None = None) -> Path:
    """A fresh git + DVC workspace with the project's dvc.yaml and the given params."""
    path.mkdir(parents=True, exist_ok=True)
    for name in ("dvc.yaml", ".dvcignore", ".gitignore"):
        shutil.copy(REPO / name, path / name)
    shutil.copytree(REPO / ".dvc", path / ".dvc", ignore=shutil.ignore_patterns("tmp", "cache"))
    (path / "dqn").mkdir(exist_ok=True)
    shutil.copy(REPO / "dqn" / "dvc.yaml", path / "dqn" / "dvc.yaml")
    (path / "params.yaml").write_text(yaml.safe_dump(params or TINY_PARAMS))
    sh(["git", "init", "-q"], path)
    if remote is not None:
        sh([str(BIN / "dvc"), "remote", "add", "-d", "-f", "local", str(remote)], path)
    sh(["git", "add", "-A"], path)
    sh(["git", *GIT_ID, "commit", "-qm", "workspace"], path)
    return path


# numba: `make install` fills the kernel cache (pipeline/bench/warmup.py), so the tests
# should compile nothing. The summary says what they compiled all the same (in this process
# and, under xdist, in each worker; a `zero` subprocess's own compilations are not counted).
def numba_compiled() -> dict[str, int]:
    """Kernel signatures this process compiled rather than loaded from the disk cache."""
    if "numba" not in sys.modules:
        return {}
    from numba.core.dispatcher import Dispatcher

    out = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("pipeline.games", "pipeline.tactics", "pipeline.search")):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, Dispatcher) and value.py_func.__module__ == name:
                misses = sum(value.stats.cache_misses.values())
                if misses:
                    out[f"{name}.{attr}"] = misses
    return out


def pytest_configure(config):
    config.numba_compiled = {}


def pytest_sessionfinish(session):
    compiled = numba_compiled()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller sums them up
        workeroutput["numba_compiled"] = compiled
    else:
        session.config.numba_compiled.update(compiled)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for name, count in getattr(node, "workeroutput", {}).get("numba_compiled", {}).items():
        node.config.numba_compiled[name] = node.config.numba_compiled.get(name, 0) + count


def pytest_terminal_summary(terminalreporter, config):
    compiled = config.numba_compiled
    if not compiled:
        terminalreporter.write_line("numba: no kernel compiled by the tests (all loaded from the warm cache)")
        return
    ranked = sorted(compiled.items(), key=lambda kv: -kv[1])
    names = ", ".join(f"{name.removeprefix('pipeline.')} ({count})" for name, count in ranked)
    terminalreporter.write_line(
        f"numba: {sum(compiled.values())} kernel signatures compiled by the tests, not loaded from the cache "
        f"(`make install` warms it up: python -m pipeline.bench.warmup): {names}"
    )


@pytest.fixture
def learner_checkpoint():
    """Writes a tiny real learner checkpoint (Gomoku 5x5, one block) with its Adam moments
    after one step, as a run's learner and champions are: `make(path, generation)` returns
    (the file, the net)."""
    import torch

    from pipeline.games.base import GameSpec
    from pipeline.nets.checkpoint import save_checkpoint
    from pipeline.nets.resnet import NetSpec, PolicyValueNet

    def make(path: Path, generation: int):
        torch.manual_seed(generation)
        spec = GameSpec.parse("gomoku:5x5:k4")
        net = PolicyValueNet(spec, NetSpec(blocks=1, channels=8, value_hidden=8))
        opt = torch.optim.Adam(net.parameters())
        logits, value = net(torch.randn(2, spec.planes, 5, 5))
        (logits.sum() + value.sum()).backward()
        opt.step()
        return save_checkpoint(path, net, {"generation": generation}, optimizer=opt.state_dict()), net

    return make
