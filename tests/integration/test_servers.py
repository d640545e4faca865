"""Scale and schedule with the real engines, each started here on loopback and stopped
afterwards: a Prefect server with a process work pool and worker, a Dask scheduler with
two workers, and an MLflow tracking server read through its REST API."""

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

import pytest
import yaml

from pipeline.selfplay.replay import read_shard
from tests.conftest import BIN, REPO, TINY_PARAMS, env, make_workspace, sh

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not come up in {timeout}s")


class Service:
    """A background process in its own session, killed with its children at the end."""

    def __init__(self, cmd, cwd, extra_env=None, log=None):
        self.log = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env={**env(), **(extra_env or {})},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def test_prefect_deployment_runs_on_a_worker(tmp_path):
    ws = make_workspace(tmp_path / "ws", remote=tmp_path / "remote")
    shutil.copy(REPO / "prefect.yaml", ws / "prefect.yaml")
    shutil.copytree(REPO / "deployments", ws / "deployments", ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    prefect_env = {
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_API_URL": api,
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_WORKER_PREFETCH_SECONDS": "1",
    }
    prefect = str(BIN / "prefect")
    server = Service(
        [prefect, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        ws,
        prefect_env,
        tmp_path / "server.log",
    )
    worker = None
    try:
        wait_http(f"{api}/health")

        def run(*args):
            out = subprocess.run(
                [prefect, *args], cwd=ws, env={**env(), **prefect_env}, capture_output=True, text=True, timeout=300
            )
            assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
            return out.stdout

        run("work-pool", "create", "zero-pool", "--type", "process")
        run("--no-prompt", "deploy", "--all")
        # The server's scheduler fills the cron schedule with future runs on its own.
        query = json.dumps({"flow_runs": {"state": {"type": {"any_": ["SCHEDULED"]}}}, "limit": 5}).encode()
        deadline = time.time() + 60
        scheduled: list = []
        while time.time() < deadline and not scheduled:
            req = urllib.request.Request(
                f"{api}/flow_runs/filter", data=query, headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=10) as r:
                scheduled = [f for f in json.loads(r.read()) if f.get("auto_scheduled")]
            time.sleep(1)
        assert scheduled, "the server's scheduler created no runs for the cron schedule"
        worker = Service([prefect, "worker", "start", "--pool", "zero-pool"], ws, prefect_env, tmp_path / "worker.log")
        run("deployment", "run", "zero-iteration/scheduled-iteration", "--watch", "--watch-timeout", "400")
        shards = list((ws / "data/replay/gen-0001").glob("shard-*.npz"))
        assert sum(read_shard(s).header["games"] for s in shards) == TINY_PARAMS["selfplay"]["games"]
        assert json.loads((ws / "models/state.json").read_text())["generation"] == 1
        log = sh(["git", "log", "--format=%s"], ws).stdout
        assert "generation 1" in log
        described = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"][0]
        assert described["schedules"][0]["cron"] and described["work_pool"]["name"] == "zero-pool"
    finally:
        if worker:
            worker.stop()
        server.stop()


def test_selfplay_on_a_dask_cluster(tmp_path):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = str(BIN / "dask")
    scheduler = Service(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        tmp_path,
        log=tmp_path / "scheduler.log",
    )
    workers = []
    try:
        time.sleep(1)
        for i in range(2):
            workers.append(
                Service(
                    [dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--name", f"w{i}"],
                    tmp_path,
                    log=tmp_path / f"worker{i}.log",
                )
            )
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        params = {
            **TINY_PARAMS,
            "selfplay": {**TINY_PARAMS["selfplay"], "runner": "dask", "dask_address": address, "tasks": 4, "games": 8},
        }
        ws = make_workspace(tmp_path / "ws", params=params)
        sh([str(BIN / "zero"), "init"], ws)
        sh([str(BIN / "zero"), "stage", "selfplay"], ws)
        shards = sorted((ws / "data/replay/gen-0001").glob("shard-*.npz"))
        assert len(shards) == 4
        assert sum(read_shard(s).header["games"] for s in shards) == 8
        report = json.loads((ws / "reports/details/selfplay.json").read_text())
        assert report["runner"] == "dask" and report["games"] == 8
        logs = "".join((tmp_path / f"worker{i}.log").read_text() for i in range(2))
        assert "Starting established connection" in logs or "Registered to" in logs
    finally:
        for w in workers:
            w.stop()
        scheduler.stop()


def test_mlflow_server_serves_the_training_curves(tmp_path):
    import numpy as np

    from pipeline.config import TrainConfig
    from pipeline.games.base import GameSpec
    from pipeline.nets.resnet import NetSpec
    from pipeline.selfplay.replay import Positions
    from pipeline.training.data import ReplayDataModule
    from pipeline.training.loop import train_network

    spec = GameSpec.parse("gomoku:5x5:k4")
    rng = np.random.default_rng(0)
    n = 64
    positions = Positions(
        rng.integers(0, 2, (n, *spec.obs_shape)).astype(np.uint8),
        np.full((n, spec.num_actions), 1 / spec.num_actions, dtype=np.float32),
        rng.choice([-1, 1], n).astype(np.int8),
        np.arange(n, dtype=np.int32),
        np.zeros(n, dtype=np.int16),
    )
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = train_network(
        spec,
        NetSpec(blocks=1, channels=8),
        TrainConfig(steps=12, batch_size=16),
        ReplayDataModule(spec, positions=positions, batch_size=16),
        tmp_path / "c.pt",
        uri,
        progress=False,
    )
    port = free_port()
    server = Service(
        [
            str(BIN / "mlflow"),
            "server",
            "--backend-store-uri",
            uri,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
        ],
        tmp_path,
        log=tmp_path / "mlflow.log",
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/health", timeout=120)
        for key in ("loss", "policy_entropy"):
            url = f"{base}/api/2.0/mlflow/metrics/get-history?run_id={result.run_id}&metric_key={key}"
            with urllib.request.urlopen(url, timeout=10) as r:
                metrics = json.loads(r.read())["metrics"]
            assert sorted(m["step"] for m in metrics) == list(range(12))
    finally:
        server.stop()


def test_runs_started_at_once_share_prefects_fresh_database(tmp_path):
    """Three processes start Prefect's temporary server together on a fresh Prefect home,
    as two workspaces' `zero iterate` do on a new machine: each gets a working API, and
    no server fails its database migration (before the start lock, every such start
    logged 'Application startup failed', and some timed out)."""
    script = tmp_path / "start.py"
    script.write_text(
        "import sys, time\n"
        "while time.time() < float(sys.argv[1]):\n"
        "    time.sleep(0.001)\n"
        "from pipeline.runtime.prefect_server import ensure_server\n"
        "print('api', ensure_server(), flush=True)\n"
    )
    run_env = env() | {"PREFECT_HOME": str(tmp_path / "prefect-home"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    run_env.pop("PREFECT_API_URL", None)
    run_env["PYTHONPATH"] = str(REPO)
    start_at = str(time.time() + 3)
    procs = [
        subprocess.Popen(
            [str(BIN / "python"), str(script), start_at],
            cwd=tmp_path,
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=180)[0] for p in procs]
    for proc, out in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, out[-3000:]
        assert "api http://127.0.0.1:" in out, out[-3000:]
        assert "Application startup failed" not in out, out[-3000:]
