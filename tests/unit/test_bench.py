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
