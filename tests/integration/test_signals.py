"""Ctrl-C and SIGTERM as a terminal and a process manager send them: to the whole process
group, in the middle of self-play (under `dvc repro` and alone), training and evaluation.
Each must end within 10 s with the signal's status, one line saying what was kept, no
traceback, no process of the group left, no partial file; the rerun finishes the work to
the exact counts."""

import copy
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from pipeline.selfplay.replay import ReplayError, read_header, read_shard, shard_paths
from tests.conftest import BIN, REPO, TINY_PARAMS, env, make_workspace, sh

pytestmark = pytest.mark.integration

ZERO = str(BIN / "zero")
DVC = str(BIN / "dvc")

# Six tasks of six games, two at a time: games land as they end, tasks while others play.
SELFPLAY = copy.deepcopy(TINY_PARAMS)
SELFPLAY["game"] = {"game": "gomoku", "height": 7, "width": 7, "k": 4}
SELFPLAY["selfplay"].update({"games": 36, "tasks": 6, "workers": 2, "parallel_games": 3, "search": {"simulations": 48}})


class Run:
    """A command in its own session (its own process group), output to files."""

    def __init__(self, cmd: list[str], cwd: Path, tmp: Path, temporary_prefect: bool = False):
        """`temporary_prefect`: the command starts Prefect's temporary server itself (as a
        user's does), not the tests' shared one, so a stop must take that server down too."""
        self.out, self.err = tmp / "stdout.txt", tmp / "stderr.txt"
        e = env()
        e["ZERO_PROGRESS_SECONDS"] = "1"
        if temporary_prefect:
            e.pop("PREFECT_API_URL", None)
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(cmd, cwd=cwd, env=e, stdout=out, stderr=err, start_new_session=True)

    @property
    def text(self) -> str:
        return self.out.read_text() + self.err.read_text()

    def wait_for(self, ready, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            assert self.proc.poll() is None, f"ended before the signal ({self.proc.returncode}):\n{self.text[-3000:]}"
            assert time.monotonic() < deadline, f"not ready after {timeout}s:\n{self.text[-3000:]}"
            time.sleep(0.1)

    def signal_group(self, sig: int) -> float:
        """Send `sig` to the process group, as a terminal's Ctrl-C does; seconds to exit."""
        start = time.monotonic()
        os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise AssertionError(f"still running 30 s after {signal.Signals(sig).name}:\n{self.text[-3000:]}") from None
        return time.monotonic() - start

    def group_left(self) -> list[str]:
        """Processes still in the group (ours only: the group is this run's session)."""
        out = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(self.proc.pid)], capture_output=True, text=True)
        return [line for line in out.stdout.splitlines() if line.strip() and " Z" not in line]


def assert_clean_stop(run: Run, sig: int, seconds: float, status: int | None = None) -> None:
    assert seconds < 10, f"{seconds:.1f}s to stop:\n{run.text[-3000:]}"
    assert run.proc.returncode == (status if status is not None else 128 + sig), run.text[-3000:]
    assert f"interrupted ({signal.Signals(sig).name})" in run.text
    assert run.text.count("interrupted (") == 1
    deadline = time.monotonic() + 5
    while run.group_left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert run.group_left() == []
    # read once the group is gone: multiprocessing's resource tracker writes after its parent
    # exits (a KeyError traceback when it was killed and relaunched, a warning on leaked semaphores)
    assert "Traceback" not in run.text
    assert "leaked semaphore" not in run.text


def no_partial_files(folder: Path) -> None:
    assert not list(folder.rglob(".tmp-*"))


def shards(ws: Path) -> list[Path]:
    folder = ws / "data/replay/gen-0001"
    return shard_paths(folder) if folder.is_dir() else []


def games_kept(ws: Path) -> int:
    """The games in the generation's shards (a task's parts, or its merged shard)."""
    try:
        return sum(read_header(s)["games"] for s in shards(ws))
    except ReplayError:  # a part merged away as it was read
        return 0


@pytest.mark.parametrize(("tool", "sig"), [("dvc", signal.SIGINT), ("zero", signal.SIGTERM)])
def test_selfplay_stops_keeps_finished_games_and_resumes_to_the_exact_count(tmp_path, tool, sig):
    ws = make_workspace(tmp_path / "ws", params=SELFPLAY)
    sh([ZERO, "init"], ws)
    cmd = [DVC, "repro", "selfplay"] if tool == "dvc" else [ZERO, "stage", "selfplay"]
    run = Run(cmd, ws, tmp_path, temporary_prefect=True)
    run.wait_for(lambda: games_kept(ws) >= 7)  # more than a task's games
    seconds = run.signal_group(sig)
    # DVC reports its stage's failure with its own status; the stage's line is above it.
    assert_clean_stop(run, sig, seconds, status=255 if tool == "dvc" else None)
    if tool == "dvc":
        assert "`dvc repro` continues from there" in run.text
    kept = games_kept(ws)
    assert 7 <= kept < 36, run.text[-2000:]
    assert f"self-play: {kept} of 36 games kept" in run.text and f"({kept} ended in this run)" in run.text
    no_partial_files(ws / "data")
    complete = [s for s in shards(ws) if "game_ids" not in read_header(s)]  # tasks already merged

    out = sh(cmd, ws)
    assert f"{kept} of 36 games already played, {36 - kept} to play" in out.stdout + out.stderr
    report = json.loads((ws / "reports/details/selfplay.json").read_text())
    assert (report["games"], report["shards"], report["resumed_shards"]) == (36, 6, len(complete))
    assert [s.name for s in shards(ws)] == [f"shard-{t:04d}.npz" for t in range(6)]
    positions = sum(read_shard(s).header["positions"] for s in shards(ws))
    assert report["positions"] == positions
    # The figures cover every shard, those played before the interrupt included.
    assert report["seconds"] > 0 and report["positions_per_s"] == pytest.approx(positions / report["seconds"], 0.01)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A workspace with generation 1's replay and a candidate."""
    ws = make_workspace(tmp_path_factory.mktemp("signals") / "ws")
    sh([ZERO, "init"], ws)
    sh([ZERO, "stage", "selfplay"], ws)
    sh([ZERO, "stage", "train"], ws)
    return ws


def test_training_stops_after_a_step_and_writes_no_candidate(trained, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(trained, ws)
    (ws / "models/candidate.pt").unlink()
    (ws / "reports/details/train.json").unlink()
    run = Run([ZERO, "train", "--steps", "100000"], ws, tmp_path)
    run.wait_for(lambda: "training gen-0001: " in run.text)
    seconds = run.signal_group(signal.SIGINT)
    assert_clean_stop(run, signal.SIGINT, seconds)
    assert "training stopped at step" in run.text and "candidate.pt not written" in run.text
    assert not (ws / "models/candidate.pt").exists() and not (ws / "reports/details/train.json").exists()
    no_partial_files(ws / "models")
    import mlflow

    client = mlflow.MlflowClient(f"sqlite:///{ws / 'mlflow.db'}")
    runs = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert "KILLED" in {r.info.status for r in runs} and "RUNNING" not in {r.info.status for r in runs}

    sh([ZERO, "stage", "train"], ws)
    assert json.loads((ws / "reports/details/train.json").read_text())["steps"] == TINY_PARAMS["train"]["steps"]


def test_evaluation_stops_and_writes_nothing(trained, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(trained, ws)
    params = copy.deepcopy(TINY_PARAMS)
    # A long test: a narrow SPRT decides late (about 200 games here).
    params["evaluate"].update({"pairs_per_round": 1, "vs_pure": {"p0": 0.5, "p1": 0.52, "max_games": 400}})
    (ws / "params.yaml").write_text(yaml.safe_dump(params))
    run = Run([ZERO, "stage", "evaluate"], ws, tmp_path)
    run.wait_for(lambda: "candidate vs pure:20: 4 games" in run.text)  # the second round's line
    seconds = run.signal_group(signal.SIGINT)
    assert_clean_stop(run, signal.SIGINT, seconds)
    assert "evaluate stopped; nothing of it was written" in run.text
    assert not (ws / "reports/details/evaluation.json").exists() and not (ws / "reports/games.csv").exists()
    no_partial_files(ws / "reports")

    (ws / "params.yaml").write_text(yaml.safe_dump(TINY_PARAMS))
    sh([ZERO, "stage", "evaluate"], ws)
    result = json.loads((ws / "reports/details/evaluation.json").read_text())
    assert result["vs_pure"]["games"] == len(
        [r for r in (ws / "reports/games.csv").read_text().splitlines()[1:] if ",vs_pure," in r]
    )


def test_hex_sweep_stopped_alone_stops_its_workers_and_resumes(tmp_path):
    """`kill PID` of a perfect-play sweep (the parent alone, not its group) used to leave its
    pool's workers playing on, orphaned (RESULTS.md, twenty-ninth session)."""
    progress = tmp_path / "sweep.jsonl"
    cmd = [str(BIN / "python"), "-m", "pipeline.tools.hex_perfect_play"]
    cmd += ["--model", str(REPO / "models/pretrained/hex-8x8.pt")]
    cmd += ["--board", "4", "--all-openings", "1", "--chunk", "1", "--simulations", "32", "--vs", "random"]
    cmd += ["--check-nodes", "2000", "--workers", "2", "--progress", str(progress)]
    run = Run(cmd, REPO, tmp_path)
    run.wait_for(lambda: progress.is_file() and progress.read_text().count("\n") >= 1, timeout=600)
    assert len(run.group_left()) >= 3  # the sweep and its two workers
    start = time.monotonic()
    run.proc.send_signal(signal.SIGTERM)
    run.proc.wait(timeout=30)
    assert_clean_stop(run, signal.SIGTERM, time.monotonic() - start)
    kept = len(progress.read_text().splitlines())
    # 4x4: 8 openings (one of each half-turn pair), each with both colours, a chunk each
    assert 1 <= kept < 16, run.text[-2000:]
    assert f"sweep stopped, {kept} of 16 chunks kept in {progress}; run the same command again to continue" in run.text

    out = sh(cmd, REPO)
    assert out.stdout.count("openings, ") == 16 - kept  # a line per chunk played: only the missing ones
    assert len(progress.read_text().splitlines()) == 16
