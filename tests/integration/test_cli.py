"""The `zero` command as a user runs it: a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ZERO = [str(Path(sys.executable).with_name("zero"))]
FIGURES = {"pure_playouts_per_s", "search_sims_per_s", "forward_positions_per_s", "search_over_forward"}


def test_bench_json_records():
    out = subprocess.run(
        [
            *ZERO,
            "bench",
            "--quick",
            "--json",
            "--board",
            "gomoku:5x5:k4",
            "--board",
            "hex:4",
            "--big-board",
            "connect6:7",
            "--big-net",
            "1x8",
            "--games",
            "4",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    records = json.loads(out.stdout)
    keys = {"game", "size", "rules", "position", "figure", "value", "unit", "net"}
    assert all(set(r) == keys for r in records)
    for game in ("gomoku", "hex", "connect6"):
        mine = [r for r in records if r["game"] == game and r["figure"] in FIGURES]
        assert {r["figure"] for r in mine} == FIGURES
        assert {r["position"] for r in mine} == {"empty", "midgame"}
        assert all(r["value"] > 0 for r in mine)
    # the small boards run the default net, the big boards the size-free --big-net
    nets = {r["game"]: r["net"] for r in records if r["figure"] == "search_sims_per_s"}
    assert nets == {"gomoku": "3x64", "hex": "3x64", "connect6": "1x8 size-free"}
    train = {
        r["figure"]
        for r in records
        if r["game"] == "hex" and r["figure"].startswith(("train", "forward_positions_per_s_"))
    }
    assert train == {
        "train_samples_per_s",
        "train_samples_per_s_hex_kernels",
        "forward_positions_per_s_hex_kernels",
        "forward_positions_per_s_square_kernels",
    }
    startup = [r for r in records if r["figure"] == "second_process_first_playout_s"]
    assert len(startup) == 1 and startup[0]["value"] > 0


def test_bench_table_is_the_default():
    out = subprocess.run(
        [*ZERO, "bench", "--quick", "--board", "gomoku:4x4:k3", "--games", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert "pure_playouts_per_s" in out.stdout and "search_over_forward" in out.stdout


def test_bad_big_net_is_one_clear_error():
    out = subprocess.run([*ZERO, "bench", "--big-net", "6"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "--big-net: expected BLOCKSxCHANNELS such as 3x64, got '6'" in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_bad_board_is_one_clear_error():
    out = subprocess.run([*ZERO, "bench", "--board", "gomoku:25"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "gomoku board must be 3..20" in out.stderr
    assert "Traceback" not in out.stderr + out.stdout
