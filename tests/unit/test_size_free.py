"""Size-free nets (one checkpoint, every board size of its game and rules) and the
curriculum's first step (`train.init_from`: a net initialised from another board)."""

from pathlib import Path

import numpy as np
import pytest
import torch

from pipeline.config import load_params
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError, checkpoint_plays, load_checkpoint, save_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import NetSpec, PolicyValueNet, for_board
from pipeline.nets.transfer import net_from
from pipeline.runtime.workspace import Paths
from pipeline.stages.init import run_init

pytestmark = pytest.mark.unit

FREE = NetSpec(blocks=1, channels=16, value_hidden=16, size_free=True, head_channels=8)
G9 = GameSpec(game="gomoku", size=9)
G15 = GameSpec(game="gomoku", size=15)


def test_a_size_free_net_has_no_weight_that_depends_on_the_board():
    small, big = PolicyValueNet(G9, FREE), PolicyValueNet(G15, FREE)
    assert {k: v.shape for k, v in small.state_dict().items()} == {k: v.shape for k, v in big.state_dict().items()}
    fixed = NetSpec(blocks=1, channels=16)
    fixed_small, fixed_big = PolicyValueNet(G9, fixed), PolicyValueNet(G15, fixed)
    assert fixed_small.state_dict()["policy_fc.weight"].shape != fixed_big.state_dict()["policy_fc.weight"].shape


@pytest.mark.parametrize(
    ("small", "big"),
    [
        (G9, GameSpec(game="gomoku", height=20, width=20)),
        (GameSpec(game="hex", size=5, swap=True), GameSpec(game="hex", size=11, swap=True)),
        (GameSpec(game="connect6", size=10), GameSpec(game="connect6", size=19)),
    ],
)
def test_one_checkpoint_plays_every_size_of_its_game(tmp_path, small, big):
    torch.manual_seed(0)
    path = save_checkpoint(tmp_path / "free.pt", PolicyValueNet(small, FREE))
    assert checkpoint_plays(path) == (small, True)
    net, _ = load_checkpoint(path, big)
    assert net.game == big
    state = big.new_game()
    state.apply(big.cells // 2)
    priors, value = NetEvaluator(net)(state.observation()[None].astype(np.float32))
    assert priors.shape == (1, big.num_actions) and np.isfinite(value).all()
    assert priors.sum() == pytest.approx(1.0, abs=1e-5)


def test_the_same_weights_give_the_same_move_values_on_the_board_they_were_built_for():
    torch.manual_seed(1)
    net = PolicyValueNet(G9, FREE).eval()
    back = for_board(for_board(net, G15), G9)
    obs = torch.from_numpy(G9.new_game().observation()[None].astype(np.float32))
    with torch.no_grad():
        a, b = net(obs), back(obs)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_other_rules_or_a_fixed_size_net_are_refused_with_the_reason(tmp_path):
    free = save_checkpoint(tmp_path / "free.pt", PolicyValueNet(G9, FREE))
    with pytest.raises(CheckpointError, match="checkpoint is for gomoku:9x9:k5:freestyle, not gomoku:15x15:k5:exact"):
        load_checkpoint(free, GameSpec(game="gomoku", size=15, rules="exact"))
    with pytest.raises(CheckpointError, match="not hex:9x9"):
        load_checkpoint(free, GameSpec(game="hex", size=9))
    fixed = save_checkpoint(tmp_path / "fixed.pt", PolicyValueNet(G9, NetSpec(blocks=1, channels=16)))
    with pytest.raises(CheckpointError, match="a fixed-size net plays only the board it was trained on"):
        load_checkpoint(fixed, G15)
    with pytest.raises(ValueError, match="plays gomoku:9x9"):
        for_board(load_checkpoint(fixed)[0], G15)


def test_a_hex_swap_net_plays_the_boards_without_the_swap_and_not_the_other_way(tmp_path):
    torch.manual_seed(3)
    swap5, swap7, plain7 = (GameSpec(game="hex", size=n, swap=s) for n, s in ((5, True), (7, True), (7, False)))
    path = save_checkpoint(tmp_path / "swap.pt", PolicyValueNet(swap5, FREE))
    plain, _ = load_checkpoint(path, plain7)
    with_swap, _ = load_checkpoint(path, swap7)
    assert plain.game == plain7 and plain7.num_actions == plain7.cells == swap7.num_actions - 1
    # The empty board and every position after the first reply look the same under both
    # rules: the same cell logits and value, the swap logit left out.
    for moves in ([], [10, 24], [10, 24, 3]):
        obs = [torch.from_numpy(g.replay(moves).observation()[None].astype(np.float32)) for g in (plain7, swap7)]
        with torch.no_grad():
            (a, va), (b, vb) = plain(obs[0]), with_swap(obs[1])
        assert a.shape == (1, plain7.cells) and torch.allclose(a, b[:, : plain7.cells]) and torch.allclose(va, vb)
    assert for_board(with_swap, plain7).game == plain7
    no_swap = save_checkpoint(tmp_path / "plain.pt", PolicyValueNet(GameSpec(game="hex", size=5), FREE))
    with pytest.raises(CheckpointError, match="checkpoint is for hex:5x5, not hex:7x7:swap"):
        load_checkpoint(no_swap, swap7)
    with pytest.raises(ValueError, match="this net plays hex:7x7, not hex:7x7:swap"):
        for_board(plain, swap7)


def test_init_from_a_fixed_small_board_net_copies_its_trunk(tmp_path):
    torch.manual_seed(2)
    source = PolicyValueNet(G9, NetSpec(blocks=1, channels=16, value_hidden=16))
    path = save_checkpoint(tmp_path / "nine.pt", source)
    net, transfer = net_from(path, G15, FREE)
    mine, theirs = net.state_dict(), source.state_dict()
    trunk = [k for k in theirs if k.startswith(("stem.", "tower."))]
    assert trunk and all(torch.equal(mine[k], theirs[k]) for k in trunk)
    assert transfer.copied == len(trunk) and transfer.fresh > 0
    assert "(gomoku:9x9:k5:freestyle)" in transfer.describe()


def test_init_from_a_size_free_net_copies_every_weight(tmp_path):
    source = PolicyValueNet(G9, FREE)
    path = save_checkpoint(tmp_path / "nine.pt", source)
    net, transfer = net_from(path, GameSpec(game="gomoku", size=15, rules="exact"), FREE)
    assert transfer.fresh == 0 and "every weight" in transfer.describe()
    assert all(torch.equal(v, source.state_dict()[k]) for k, v in net.state_dict().items())


def test_init_from_needs_the_same_game_and_a_tower_that_fits(tmp_path):
    path = save_checkpoint(tmp_path / "nine.pt", PolicyValueNet(G9, FREE))
    with pytest.raises(CheckpointError, match="must be a connect6 checkpoint"):
        net_from(path, GameSpec(game="connect6", size=10), FREE)
    with pytest.raises(CheckpointError, match="set those in params.net"):
        net_from(path, G15, NetSpec(blocks=2, channels=16, size_free=True))


def test_init_stage_starts_generation_0_from_init_from(tmp_path):
    torch.manual_seed(3)
    source = PolicyValueNet(G9, FREE)
    path = save_checkpoint(tmp_path / "nine.pt", source)
    params = load_params(
        None,
        {
            "game.height": 11,
            "game.width": 11,
            "net.blocks": 1,
            "net.channels": 16,
            "net.value_hidden": 16,
            "net.size_free": True,
            "net.head_channels": 8,
            "train.init_from": str(path),
        },
    )
    paths = Paths(tmp_path / "ws")
    result = run_init(params, paths)
    assert "every weight" in result["init_from"]
    champion, meta = load_checkpoint(paths.champion, params.game)
    assert meta["init_from_game"] == "gomoku:9x9:k5:freestyle"
    assert torch.equal(champion.state_dict()["stem.0.weight"], source.state_dict()["stem.0.weight"])


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_a_size_free_net_on_another_board_exports_to_every_backend(tmp_path, backend):
    from pipeline.nets.inference import InferenceConfig

    torch.manual_seed(4)
    big = GameSpec(game="hex", size=7, swap=True)
    net = for_board(PolicyValueNet(GameSpec(game="hex", size=5, swap=True), FREE).eval(), big)
    state = big.new_game()
    state.apply(3)  # the swap is legal now: its logit comes from the pooled features
    obs = np.stack([big.new_game().observation(), state.observation()]).astype(np.float32)
    want_p, want_v = NetEvaluator(net)(obs)
    config = InferenceConfig(device="cpu", backend=backend, precision="f32", cache_dir=str(tmp_path))
    priors, values = NetEvaluator(net, threads=1, config=config)(obs)
    assert priors.shape == (2, big.num_actions)
    np.testing.assert_allclose(priors, want_p, atol=1e-4)
    np.testing.assert_allclose(values, want_v, atol=1e-4)


def test_a_relative_init_from_is_found_in_the_workspace_then_in_the_checkout(tmp_path, monkeypatch):
    from pipeline.stages.init import PROJECT_ROOT, init_source

    monkeypatch.chdir(tmp_path)
    shipped = "models/pretrained/gomoku-9x9.pt"
    assert init_source(shipped, tmp_path / "ws") == PROJECT_ROOT / shipped  # a preset in a workspace of its own
    own = tmp_path / "ws" / shipped
    own.parent.mkdir(parents=True)
    own.write_bytes(b"")
    assert init_source(shipped, tmp_path / "ws") == own  # the workspace's own file comes first
    assert init_source("nowhere.pt", tmp_path / "ws") == Path("nowhere.pt")  # left for the loader to report
