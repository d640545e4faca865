"""The edge plane (NetSpec.edge_plane): each cell's distance to the nearest edge as one more
input, made inside the net, and a run that turns it on midway keeping its learner's play
(the stem's new weights at zero) and its Adam moments."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import load_checkpoint, load_optimizer_state, save_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import EDGE_REACH, NetSpec, PolicyValueNet, edge_distance, for_board
from pipeline.nets.transfer import net_from, with_edge_plane
from tests.unit.test_inference import boards
from tests.unit.test_training import resumed_generation

pytestmark = pytest.mark.unit

FREE = NetSpec(blocks=1, channels=16, value_hidden=16, size_free=True, head_channels=8)
EDGED = FREE.model_copy(update={"edge_plane": True})
C6 = GameSpec(game="connect6", size=19)
SPEC = GameSpec.parse("gomoku:5x5:k4")  # fixed_positions' boards


def test_the_plane_is_each_cells_distance_to_the_nearest_edge_clipped():
    plane = edge_distance(19, 19)[0, 0] * EDGE_REACH
    assert plane.shape == (19, 19)
    assert plane[0, 7] == 0 and plane[18, 3] == 0 and plane[3, 18] == 0
    assert plane[6, 12] == 6 and plane[9, 9] == EDGE_REACH and plane[2, 9] == 2
    wide = edge_distance(5, 30)[0, 0] * EDGE_REACH
    assert wide[2].tolist()[:4] == [0, 1, 2, 2] and wide.max() == 2  # the rows' edges are nearer
    assert edge_distance(25, 25).max() == 1.0  # clipped: a bigger board shows no new values
    for k in range(4):  # the board's symmetries leave it as it is
        assert torch.equal(torch.rot90(plane, k), plane) and torch.equal(plane.T, plane)


def test_a_lone_stone_is_seen_where_it_stands_only_with_the_plane():
    """Without the plane the trunk (stem and one block: 5x5 cells) cannot tell apart two
    stones that both see no edge; with it, it can."""
    torch.manual_seed(0)

    def one_stone(cell: int) -> np.ndarray:
        state = C6.new_game()
        state.apply(cell)
        return state.observation()[None].astype(np.float32)

    centre, off = C6.cells // 2, 6 * 19 + 6  # (9, 9) and (6, 6): four cells from any edge's sight
    for spec, differs in ((FREE, False), (EDGED, True)):
        net = PolicyValueNet(C6, spec).eval()
        with torch.no_grad():
            for p in net.stem[0].parameters():  # the plane's weights are random, as a trained net's are
                p.add_(torch.randn_like(p))
        _, v_centre = NetEvaluator(net)(one_stone(centre))
        _, v_off = NetEvaluator(net)(one_stone(off))
        assert (abs(float(v_centre[0]) - float(v_off[0])) > 1e-6) == differs


def test_a_net_given_the_plane_plays_as_before_until_trained(tmp_path):
    torch.manual_seed(1)
    net = PolicyValueNet(C6, FREE).eval()
    wider = with_edge_plane(net).eval()
    assert wider.net.edge_plane and wider.stem[0].weight.shape[1] == net.stem[0].weight.shape[1] + 1
    obs = boards(C6, 6)
    for want, got in zip(NetEvaluator(net)(obs), NetEvaluator(wider)(obs), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
    path = save_checkpoint(tmp_path / "edged.pt", wider)
    back, _ = load_checkpoint(path, GameSpec(game="connect6", size=13))  # size-free: any board
    assert back.net.edge_plane and torch.equal(back.edge, edge_distance(13, 13))
    assert for_board(back, C6).edge.shape == (1, 1, 19, 19)
    source = save_checkpoint(tmp_path / "plain.pt", net)
    transferred, transfer = net_from(source, C6, EDGED)
    assert transfer.fresh == 0
    for want, got in zip(NetEvaluator(net)(obs), NetEvaluator(transferred.eval())(obs), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_a_net_with_the_plane_exports_to_every_backend(tmp_path, backend):
    from pipeline.nets.inference import InferenceConfig

    torch.manual_seed(2)
    net = PolicyValueNet(C6, EDGED).eval()
    obs = boards(C6, 3, seed=2)
    want_p, want_v = NetEvaluator(net)(obs)
    config = InferenceConfig(device="cpu", backend=backend, precision="f32", cache_dir=str(tmp_path))
    priors, values = NetEvaluator(net, threads=1, config=config)(obs[:1])  # another batch size than exported
    np.testing.assert_allclose(priors, want_p[:1], atol=1e-4)
    np.testing.assert_allclose(values, want_v[:1], atol=1e-4)


def test_a_run_turning_the_plane_on_widens_its_learner_and_keeps_adams_moments(tmp_path):
    torch.manual_seed(3)
    small = NetSpec(blocks=1, channels=16, value_hidden=16)

    def generation(init, out, net_spec):
        return resumed_generation(tmp_path, init, out, net_spec)

    start = save_checkpoint(tmp_path / "gen0.pt", PolicyValueNet(SPEC, small))
    generation(start, tmp_path / "gen1.pt", small)
    before = load_optimizer_state(tmp_path / "gen1.pt")["state"][0]["exp_avg"]
    second = generation(tmp_path / "gen1.pt", tmp_path / "gen2.pt", small.model_copy(update={"edge_plane": True}))
    assert second.optimizer_resumed
    net, _ = load_checkpoint(tmp_path / "gen2.pt", SPEC)
    assert net.net.edge_plane
    assert net.stem[0].weight[:, -1].abs().sum() > 0  # the plane's weights trained
    after = load_optimizer_state(tmp_path / "gen2.pt")["state"]
    assert float(after[0]["step"]) == 6 and after[0]["exp_avg"].shape[1] == before.shape[1] + 1
