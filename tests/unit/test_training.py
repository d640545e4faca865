import numpy as np
import pytest
import torch

from pipeline.config import TrainConfig
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.runtime.tracking import metric_history
from pipeline.selfplay.replay import Positions
from pipeline.training.data import ReplayDataModule
from pipeline.training.loop import train_network
from pipeline.training.module import PolicyValueModule

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:5x5:k4")
SMALL = NetSpec(blocks=1, channels=16, value_hidden=16)


def fixed_positions(n: int, seed: int = 0, one_hot: bool = True) -> Positions:
    """Random boards; the policy target is one fixed empty cell per position and the
    value target is +1 when the first plane has more stones than the second."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((n, *SPEC.obs_shape), dtype=np.uint8)
    pi = np.zeros((n, SPEC.num_actions), dtype=np.float32)
    z = np.zeros(n, dtype=np.int8)
    for i in range(n):
        cells = rng.permutation(SPEC.cells)
        own, opp = (4, 1) if i % 2 == 0 else (1, 4)
        obs[i, 0].flat[cells[:own]] = 1
        obs[i, 1].flat[cells[own : own + opp]] = 1
        target = cells[own + opp] if one_hot else cells[own + opp : own + opp + 3]
        pi[i, target] = 1.0 / np.size(target)
        z[i] = 1 if own > opp else -1
    return Positions(obs, pi, z, np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int16))


def resumed_generation(tmp_path, init, out, net_spec):
    """One short generation of training from `init` with its optimiser's state, as a run's
    learner trains (the tests of a net grown midway: the edge plane, more blocks)."""
    cfg = TrainConfig(steps=3, batch_size=32, lr=1e-3, augment=False)
    data = ReplayDataModule(SPEC, positions=fixed_positions(32), batch_size=32, augment=False, seed=0)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    return train_network(SPEC, net_spec, cfg, data, out, uri, init=init, progress=False, resume_optimizer=True)


def run(tmp_path, positions, steps, lr=3e-3, l2=1e-4, init=None, augment=False):
    cfg = TrainConfig(steps=steps, batch_size=32, lr=lr, l2=l2, augment=augment)
    data = ReplayDataModule(SPEC, positions=positions, batch_size=32, augment=augment, seed=0)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    result = train_network(SPEC, SMALL, cfg, data, tmp_path / "out.pt", uri, init=init, progress=False)
    return uri, result


def test_overfits_a_tiny_dataset_and_learns_the_value_sign(tmp_path):
    positions = fixed_positions(32)
    uri, result = run(tmp_path, positions, steps=40, lr=1e-2)  # the loss falls below 0.01 of its start
    loss = [v for _, v in metric_history(uri, result.run_id, "loss")]
    assert np.mean(loss[-10:]) < 0.4 * np.mean(loss[:5])
    net = PolicyValueNet(SPEC, SMALL)
    net.load_state_dict(torch.load(result.checkpoint, weights_only=True)["state_dict"])
    net.eval()
    with torch.no_grad():
        _, value = net(torch.from_numpy(positions.obs.astype(np.float32)))
    assert (np.sign(value.numpy()) == positions.z).mean() == 1.0


def test_entropy_falls_on_one_hot_targets_with_one_point_per_step(tmp_path):
    steps = 30  # at lr 0.01 the entropy falls by about 2.3 nats in 30 steps
    uri, result = run(tmp_path, fixed_positions(64, seed=1), steps=steps, lr=1e-2)
    loss = metric_history(uri, result.run_id, "loss")
    entropy = metric_history(uri, result.run_id, "policy_entropy")
    assert [s for s, _ in loss] == list(range(steps))
    assert [s for s, _ in entropy] == list(range(steps))
    values = [v for _, v in entropy]
    assert np.mean(values[-5:]) < np.mean(values[:5]) - 0.5
    for key in ("value_loss", "policy_loss", "l2", "lr"):
        assert len(metric_history(uri, result.run_id, key)) == steps


def test_logged_l2_is_c_times_the_squared_parameters(tmp_path):
    torch.manual_seed(7)
    net = PolicyValueNet(SPEC, SMALL)
    init = save_checkpoint(tmp_path / "init.pt", net)
    expected = 0.01 * sum(float((p.detach().double() ** 2).sum()) for p in net.parameters())
    uri, result = run(tmp_path, fixed_positions(32), steps=1, l2=0.01, init=init)
    [(step, logged)] = metric_history(uri, result.run_id, "l2")
    assert step == 0
    assert logged == pytest.approx(expected, rel=1e-4)


def test_l2_is_part_of_the_optimised_loss():
    module = PolicyValueModule(PolicyValueNet(SPEC, SMALL), TrainConfig(l2=0.5))
    p = fixed_positions(8)
    out = module.losses(
        torch.from_numpy(p.obs.astype(np.float32)), torch.from_numpy(p.pi), torch.from_numpy(p.z.astype(np.float32))
    )
    assert float(out["loss"]) == pytest.approx(float(out["value_loss"] + out["policy_loss"] + out["l2"]), rel=1e-6)
    opt = module.configure_optimizers()
    assert all(g.get("weight_decay", 0) == 0 for g in opt.param_groups)


def test_the_learner_continues_its_optimiser_across_generations(tmp_path):
    """Training resumed from a checkpoint with optimiser state continues Adam (its step
    count and moments), with this run's learning rate."""
    from pipeline.nets.checkpoint import load_optimizer_state

    torch.manual_seed(3)
    start = save_checkpoint(tmp_path / "gen0.pt", PolicyValueNet(SPEC, SMALL))
    assert load_optimizer_state(start) is None
    uri = f"sqlite:///{tmp_path}/mlflow.db"

    def generation(init, out, lr):
        cfg = TrainConfig(steps=5, batch_size=32, lr=lr, augment=False)
        data = ReplayDataModule(SPEC, positions=fixed_positions(32), batch_size=32, augment=False, seed=0)
        return train_network(SPEC, SMALL, cfg, data, out, uri, init=init, progress=False, resume_optimizer=True)

    first = generation(start, tmp_path / "gen1.pt", 3e-3)
    assert not first.optimizer_resumed
    state1 = load_optimizer_state(tmp_path / "gen1.pt")
    assert all(float(s["step"]) == 5 for s in state1["state"].values())
    second = generation(tmp_path / "gen1.pt", tmp_path / "gen2.pt", 1e-3)
    assert second.optimizer_resumed
    state2 = load_optimizer_state(tmp_path / "gen2.pt")
    assert all(float(s["step"]) == 10 for s in state2["state"].values())
    assert state2["param_groups"][0]["lr"] == 1e-3
    assert [v for _, v in metric_history(uri, second.run_id, "lr")] == pytest.approx([1e-3] * 5)


def test_a_store_keeps_its_artifacts_beside_its_database(tmp_path, monkeypatch):
    """Not in ./mlruns under the working directory (MLflow's default), wherever that is."""
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    (tmp_path / "store").mkdir()
    uri = f"sqlite:///{tmp_path}/store/mlflow.db"
    data = ReplayDataModule(SPEC, positions=fixed_positions(32), batch_size=32, augment=False, seed=0)
    cfg = TrainConfig(steps=2, batch_size=32)
    result = train_network(SPEC, SMALL, cfg, data, tmp_path / "out.pt", uri, progress=False)
    run = MlflowClient(tracking_uri=uri).get_run(result.run_id)
    assert run.info.artifact_uri.startswith((tmp_path / "store" / "mlruns").as_uri())
    assert (tmp_path / "store" / "mlruns").is_dir() and not (tmp_path / "mlruns").exists()
