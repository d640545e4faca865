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
