"""`zero bench`'s board sets and net labels (the measurements themselves run in the
integration tests)."""

import pytest

from pipeline.bench.search import BIG_BOARDS, BIG_NET, BOARDS, midgame, net_label, parse_net, plan_bench
from pipeline.games.base import GameSpec
from pipeline.nets.resnet import NetSpec

pytestmark = pytest.mark.unit


def test_the_standard_boards_run_a_size_free_net_named_in_every_record():
    assert [GameSpec.parse(b).height for b in BIG_BOARDS] == [15, 19, 20]
    assert BIG_NET.size_free
    assert net_label(BIG_NET) == "3x64 size-free"
    assert net_label(NetSpec()) == "3x64"
    assert net_label(NetSpec(hex_kernels=True)) == "3x64 hex-kernels"


def test_big_net_is_blocks_x_channels():
    assert parse_net("8X96") == NetSpec(blocks=8, channels=96, size_free=True)
    for bad in ("6", "6x", "x64", "6x64x2", "sixx64", "6x4"):
        with pytest.raises(ValueError, match="BLOCKSxCHANNELS"):
            parse_net(bad)


def test_bench_plan_defaults_to_both_sets_and_names_the_option_at_fault():
    plan = plan_bench(None, None, "3x64")
    assert (plan.boards, plan.big_boards, plan.big_net) == (BOARDS, BIG_BOARDS, BIG_NET)
    only = plan_bench(None, ["connect6:19"], "6x64")
    assert only.boards == () and only.big_boards == ("connect6:19",) and only.big_net.blocks == 6
    with pytest.raises(ValueError, match=r"^--board 'gomoku:25': .*3\.\.20"):
        plan_bench(["gomoku:25"], None, "3x64")
    with pytest.raises(ValueError, match=r"^--big-board 'hex:99'"):
        plan_bench(None, ["hex:99"], "3x64")
    with pytest.raises(ValueError, match=r"^--big-net: expected BLOCKSxCHANNELS"):
        plan_bench(None, None, "6")


@pytest.mark.parametrize("board", BIG_BOARDS)
def test_midgame_has_no_threat_so_no_search_proves_its_root_at_once(board):
    state = midgame(GameSpec.parse(board))
    assert not state.is_terminal
    assert state.candidate_mask().sum() == state.legal_mask().sum()


def test_network_search_is_measured_with_tactics_off_beside_the_default_on_line_games_only():
    from pipeline.bench.search import bench_network

    figures = {
        r.figure: r.value for r in bench_network(GameSpec.parse("gomoku:7"), 2, 16, 1, 1) if r.position == "empty"
    }
    ratio = figures["search_sims_per_s"] / figures["search_sims_per_s_tactics_off"]
    assert figures["tactics_on_over_off"] == pytest.approx(ratio, rel=1e-2)
    hex_figures = {r.figure for r in bench_network(GameSpec.parse("hex:5"), 2, 16, 1, 1)}
    assert "search_sims_per_s" in hex_figures and "tactics_on_over_off" not in hex_figures


def test_the_solver_rate_counts_its_nodes_and_finds_the_wins_of_its_positions():
    import numpy as np

    from pipeline.bench.search import bench_solver, clustered
    from pipeline.tactics.lines.solve import solve_vcf

    spec = GameSpec.parse("gomoku:15")
    figures = {r.figure: r.value for r in bench_solver(spec, 6, budget=500)}
    assert figures["solver_nodes_per_s"] > 0 and figures["solver_ms_per_call"] > 0
    rng = np.random.default_rng(3)
    states = [clustered(spec, rng) for _ in range(6)]
    assert figures["solver_wins_found"] == sum(solve_vcf(s, 500) is not None for s in states)


def test_zero_bench_tactics_runs_the_solver_figures_a_sample_with_quick(monkeypatch):
    from typer.testing import CliRunner

    import pipeline.bench.tactics as bench_tactics
    from pipeline.cli import app

    calls = []
    monkeypatch.setattr(bench_tactics, "figures", lambda **kwargs: calls.append(kwargs))
    for argv in (["bench", "--tactics", "--quick"], ["bench", "--tactics"]):
        assert CliRunner().invoke(app, argv).exit_code == 0
    assert calls == [{"repeats": 1, "random_positions": 10, "every": 10}, {}]


def test_the_solver_figures_on_a_sample_of_the_suites(capsys):
    """`zero bench --tactics`'s figures, every 25th Connect6 position and two random middle
    games a set: every claimed Connect6 win replays, no position without a VCF is claimed."""
    import re

    from pipeline.bench.tactics import RANDOM_SETS, figures

    figures(repeats=1, random_positions=2, every=25)
    out = capsys.readouterr().out
    suite = re.search(r"Connect6 suite \S+: (\d+) novcf, (\d+) vcf, (\d+) vcf-new", out)
    assert suite and int(suite[1]) > 0 and int(suite[2]) > 0
    assert re.search(rf"  vcf +{suite[2]}: \d+ solved within 2,000 nodes .*; false wins 0;", out)
    assert re.search(rf"  novcf +{suite[1]}: wins claimed 0 \(false 0\)", out)
    assert re.search(r"opponent_vcf_into .*: \d+/\d+ found within 2,000 nodes", out)
    assert re.search(r"line suite \(tests/tactics/positions.txt\), VCF budget 20,000: \d+/\d+ solved within 20 ms", out)
    assert re.search(r"line suite, VCT depth 8: \d+/\d+ solved", out)
    assert "line suite, no-VCF positions claimed: 0" in out
    sets = re.findall(r"^(\S+) random (\d+)-stone positions \(\d\), (VCF|VCT): \d+ wins, [\d,]+ nodes/s", out, re.M)
    expected = [(spec, str(stones), name) for spec, stones in RANDOM_SETS for name in ("VCF", "VCT")]
    assert sets == [s for s in expected if not (s[0].startswith("connect6") and s[2] == "VCT")]


def test_the_play_inference_bench_compares_each_backend_with_eager_torch(tmp_path, monkeypatch, capsys):
    """`python -m pipeline.bench.play_inference`: the forward rates as ratios to eager torch
    (1.00x in its own column), what auto picks, and the simulations a timed player reaches
    with each; a wrong path is a usage error, not a traceback."""
    from pipeline.bench import play_inference
    from pipeline.nets.checkpoint import save_checkpoint
    from pipeline.nets.resnet import PolicyValueNet

    monkeypatch.setenv("ZERO_CACHE_DIR", str(tmp_path / "cache"))
    path = save_checkpoint(
        tmp_path / "tiny.pt", PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=8))
    )
    play_inference.main(["--model", str(path), "--seconds", "0.05", "--positions", "1", "--repeats", "2"])
    out = capsys.readouterr().out
    assert "auto picks" in out and "onnxruntime f32" in out and "openvino f32" in out
    assert out.count("(1.00x)") >= len(play_inference.BATCHES)  # torch against itself, each batch
    assert "by time, 0.05 s a move over 1 suite positions: torch f32" in out
    with pytest.raises(SystemExit):
        play_inference.main(["--model", str(tmp_path / "missing.pt")])
    assert "no such checkpoint" in capsys.readouterr().err
