import numpy as np
import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import NetSpec, PolicyValueNet

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("text", ["gomoku:9", "gomoku:5x7:k4", "connect6:10", "hex:7", "hex:7:swap"])
def test_heads_cover_every_action(text):
    spec = GameSpec.parse(text)
    net = PolicyValueNet(spec, NetSpec(blocks=1, channels=16)).eval()
    logits, value = net(torch.zeros(3, *spec.obs_shape))
    assert logits.shape == (3, spec.num_actions)
    assert value.shape == (3,)


def test_hex_kernels_ignore_the_two_non_neighbour_corners():
    torch.manual_seed(0)  # weights and input of its own, whatever ran before in this worker
    spec = GameSpec.parse("hex:5")
    net = PolicyValueNet(spec, NetSpec(blocks=1, channels=8, hex_kernels=True)).eval()
    x = torch.rand(2, *spec.obs_shape)
    before = net(x)[0]
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.Conv2d) and module.kernel_size == (3, 3):
                module.weight[:, :, 0, 0] += 5.0
                module.weight[:, :, 2, 2] -= 5.0
    assert torch.allclose(before, net(x)[0])
    with torch.no_grad():
        net.stem[0].weight[:, :, 0, 1] += 5.0  # a real neighbour does matter
    assert not torch.allclose(before, net(x)[0])


def test_hex_kernels_only_for_hex():
    with pytest.raises(ValueError, match="Hex"):
        PolicyValueNet(GameSpec.parse("gomoku:9"), NetSpec(hex_kernels=True))


def test_evaluator_gives_distributions_and_bounded_values():
    spec = GameSpec.parse("gomoku:7:k4")
    evaluator = NetEvaluator(PolicyValueNet(spec, NetSpec(blocks=1, channels=16)))
    obs = np.stack([spec.new_game().observation()] * 4)
    priors, values = evaluator(obs)
    assert priors.shape == (4, spec.num_actions)
    assert np.allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    assert (np.abs(values) < 1).all()
