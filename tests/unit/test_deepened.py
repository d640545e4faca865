"""A run that gives its net more residual blocks midway (a plateau's remedy): the learner
keeps its play (the new blocks start as identities), the new blocks train, and Adam's
moments follow each parameter by name."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import load_checkpoint, load_optimizer_state, save_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.nets.transfer import carried_optimizer_state, deepened
from tests.unit.test_inference import boards
from tests.unit.test_training import resumed_generation

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:5x5:k4")  # fixed_positions' boards
SMALL = NetSpec(blocks=1, channels=16, value_hidden=16, size_free=True, head_channels=8)


def randomised(net: PolicyValueNet) -> PolicyValueNet:
    """Batch norms with statistics and scales away from their defaults, as a trained net's are."""
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    return net


def test_a_deepened_net_plays_as_before_and_keeps_every_weight():
    torch.manual_seed(0)
    net = randomised(PolicyValueNet(SPEC, SMALL)).eval()
    deeper = deepened(net, 3).eval()
    assert deeper.net.blocks == 3 and len(deeper.tower) == 3
    for name, value in net.state_dict().items():
        assert torch.equal(deeper.state_dict()[name], value), name
    obs = boards(SPEC, 6)
    for want, got in zip(NetEvaluator(net)(obs), NetEvaluator(deeper)(obs), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
    assert deepened(net, 1) is net  # as deep already: nothing to do


def test_the_new_blocks_learn():
    torch.manual_seed(1)
    deeper = deepened(randomised(PolicyValueNet(SPEC, SMALL)), 2).train()
    x = torch.randn(8, SPEC.planes, 5, 5)
    _, value = deeper(x)
    value.sum().backward()
    assert deeper.tower[1].bn2.weight.grad.abs().sum() > 0  # the zero scale is not stuck


def test_adams_moments_follow_their_parameters_by_name():
    torch.manual_seed(2)
    net = PolicyValueNet(SPEC, SMALL)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    logits, value = net(torch.randn(4, SPEC.planes, 5, 5))
    (logits.sum() + value.sum()).backward()
    opt.step()
    deeper = deepened(net, 3)
    state = carried_optimizer_state(opt.state_dict(), net, deeper)
    names = [name for name, _ in deeper.named_parameters()]
    kept = opt.state_dict()["state"]
    old = {name: kept[index] for index, (name, _) in enumerate(net.named_parameters())}
    for index, moments in state["state"].items():
        assert torch.equal(moments["exp_avg"], old[names[index]]["exp_avg"])
    fresh = [i for i, name in enumerate(names) if name.startswith(("tower.1.", "tower.2."))]
    assert fresh and not set(fresh) & set(state["state"])
    heads = names.index("heads.value_fc.2.bias")  # shifted by the new blocks' parameters
    assert heads in state["state"] and heads > len(list(net.parameters())) - 1
    again = torch.optim.Adam(deeper.parameters(), lr=1e-3)
    again.load_state_dict(state)  # fits the deeper net's optimiser


def test_a_run_giving_its_net_more_blocks_deepens_its_learner(tmp_path):
    torch.manual_seed(3)

    def generation(init, out, net_spec):
        return resumed_generation(tmp_path, init, out, net_spec)

    start = save_checkpoint(tmp_path / "gen0.pt", PolicyValueNet(SPEC, SMALL))
    generation(start, tmp_path / "gen1.pt", SMALL)
    second = generation(tmp_path / "gen1.pt", tmp_path / "gen2.pt", SMALL.model_copy(update={"blocks": 2}))
    assert second.optimizer_resumed
    net, _ = load_checkpoint(tmp_path / "gen2.pt", SPEC)
    assert net.net.blocks == 2
    assert net.tower[1].bn2.weight.abs().sum() > 0  # the new block trained
    after = load_optimizer_state(tmp_path / "gen2.pt")["state"]
    assert float(after[0]["step"]) == 6  # the stem's moments went on
    new_block = [i for i, (name, _) in enumerate(net.named_parameters()) if name.startswith("tower.1.")]
    assert all(float(after[i]["step"]) == 3 for i in new_block)  # the new block's began with it
