"""`zero tournament` end to end: two worker processes, Ctrl-C to the whole process group in
the middle, then the same command again. The stop keeps every finished game, says so in
one line and exits 130 within 10 s with no process left; the rerun plays exactly the games
still missing (no game twice) and writes the crosstable, the ratings and the plot."""

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from pipeline.match.tournament import game_key
from tests.conftest import BIN, env

pytestmark = pytest.mark.integration

ZERO = str(BIN / "zero")
PLAYERS = ["pure:200", "pure:400", "pure:800"]
GAMES = 12  # a pairing: 36 in all


def command(out: Path) -> list[str]:
    return [
        ZERO,
        "tournament",
        *PLAYERS,
        "--game",
        "gomoku:5:k4",
        "--games",
        str(GAMES),
        "--openings",
        "random",
        "--workers",
        "2",
        "--out",
        str(out),
    ]


def kept(out: Path) -> list[tuple[str, str, int]]:
    path = out / "games.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
    return [game_key(r["player"], r["opponent"], r["index"]) for r in rows]


def group_left(pid: int) -> list[str]:
    out = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pid)], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line.strip() and " Z" not in line]


def test_a_tournament_stopped_by_ctrl_c_resumes_with_the_rest(tmp_path):
    out = tmp_path / "t"
    log = tmp_path / "first.txt"
    e = env()
    e["ZERO_PROGRESS_SECONDS"] = "1"
    with log.open("w") as f:
        proc = subprocess.Popen(command(out), env=e, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 240
    while len(kept(out)) < 3:
        assert proc.poll() is None, f"ended before the signal:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.1)
    start = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError(f"still running 30 s after SIGINT:\n{log.read_text()[-3000:]}") from None
    text = log.read_text()
    assert time.monotonic() - start < 10, text[-3000:]
    assert proc.returncode == 130, text[-3000:]
    assert text.count("interrupted (SIGINT)") == 1 and "Traceback" not in text, text[-3000:]
    assert "games of this run kept in" in text and "run the same command again to continue" in text
    deadline = time.monotonic() + 5
    while group_left(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert group_left(proc.pid) == []
    first = kept(out)
    assert 3 <= len(first) < 3 * GAMES and len(set(first)) == len(first)

    again = subprocess.run(command(out), env=e, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert f"{len(first)} games already in" in again.stderr
    assert f"{3 * GAMES - len(first)} games played in" in again.stdout
    games = kept(out)
    assert len(games) == 3 * GAMES and max(Counter(games).values()) == 1  # every game once
    assert games[: len(first)] == first
    report = json.loads((out / "ratings.json").read_text())
    assert report["games"] == 3 * GAMES and {p["name"] for p in report["players"]} == set(PLAYERS)
    assert (out / "ratings.png").stat().st_size > 0 and "| # | player |" in (out / "crosstable.md").read_text()
