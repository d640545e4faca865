"""Inference backends: the same priors and values as eager torch, exports cached by the
weights' hash, `auto` resolved and remembered, threads kept per evaluator."""

import json
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.nets import autoselect, inference
from pipeline.nets.checkpoint import load_checkpoint
from pipeline.nets.evaluator import NetEvaluator, shared_evaluator
from pipeline.nets.export import export_onnx, weights_hash
from pipeline.nets.inference import InferenceConfig, InferenceError, resolve_device, resolve_precision
from pipeline.nets.resnet import NetSpec, PolicyValueNet

pytestmark = pytest.mark.unit

PRETRAINED = Path(__file__).resolve().parents[2] / "models" / "pretrained"

# The stated tolerances (absolute, priors after softmax and values in [-1, 1]):
# f32 backends differ from eager torch only by the order of float additions;
# bf16 keeps 8 bits of mantissa, so a trained net's outputs move by up to about 1e-2
# (measured on the shipped champions: priors 0.011, values 0.036).
F32_TOL = 1e-4
BF16_PRIOR_TOL = 0.03
BF16_VALUE_TOL = 0.06


def boards(spec: GameSpec, n: int, seed: int = 0) -> np.ndarray:
    """Observations of random legal positions, the kind the search sends."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        state = spec.new_game()
        for _ in range(int(rng.integers(0, spec.cells // 3))):
            state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal:
                break
        out.append(state.observation())
    return np.stack(out).astype(np.float32)


def trained_net() -> PolicyValueNet:
    net, _ = load_checkpoint(PRETRAINED / "gomoku-8x8.pt")
    return net


def config(tmp_path: Path, **kw) -> InferenceConfig:
    return InferenceConfig(device="cpu", cache_dir=str(tmp_path), **kw)


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino"])
def test_f32_backends_give_eager_torch_priors_and_values(tmp_path, backend):
    net = trained_net()
    obs = boards(net.game, 40)
    want_p, want_v = NetEvaluator(net)(obs)
    evaluator = NetEvaluator(net, threads=1, config=config(tmp_path, backend=backend, precision="f32"))
    assert evaluator.describe() == f"{backend}/cpu/f32"
    priors, values = evaluator(obs)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert priors.shape == want_p.shape and values.shape == want_v.shape
    np.testing.assert_allclose(priors, want_p, atol=F32_TOL)
    np.testing.assert_allclose(values, want_v, atol=F32_TOL)
    # any batch size: the exported batch dimension is dynamic
    p1, v1 = evaluator(obs[:1])
    np.testing.assert_allclose(p1, want_p[:1], atol=F32_TOL)
    np.testing.assert_allclose(v1, want_v[:1], atol=F32_TOL)


@pytest.mark.parametrize("backend", ["torch", "openvino"])
def test_bf16_within_the_stated_tolerance(tmp_path, backend):
    if backend == "openvino" and not inference.cpu_has_bf16():
        pytest.skip("OpenVINO runs bf16 only where the CPU has it natively")
    net = trained_net()
    obs = boards(net.game, 40, seed=1)
    want_p, want_v = NetEvaluator(net)(obs)
    evaluator = NetEvaluator(net, threads=1, config=config(tmp_path, backend=backend, precision="bf16"))
    priors, values = evaluator(obs)
    assert np.abs(priors - want_p).max() < BF16_PRIOR_TOL
    assert np.abs(values - want_v).max() < BF16_VALUE_TOL
    # and it is not secretly f32
    assert np.abs(values - want_v).max() > 0


def test_export_is_cached_by_the_weights_hash(tmp_path, monkeypatch):
    spec = GameSpec.parse("gomoku:7:k4")
    net = PolicyValueNet(spec, NetSpec(blocks=1, channels=16))
    path = export_onnx(net, tmp_path)
    assert path.is_file() and weights_hash(net) in path.name
    twin = PolicyValueNet(spec, NetSpec(blocks=1, channels=16))
    twin.load_state_dict(net.state_dict())
    assert weights_hash(twin) == weights_hash(net)

    def no_export(*a, **k):
        raise AssertionError("exported again")

    monkeypatch.setattr(torch.onnx, "export", no_export)
    assert export_onnx(twin, tmp_path) == path
    with torch.no_grad():
        twin.policy_fc.bias += 1.0
    assert weights_hash(twin) != weights_hash(net)
    with pytest.raises(AssertionError, match="exported again"):
        export_onnx(twin, tmp_path)


def test_auto_picks_a_measured_backend_and_remembers_it(tmp_path, monkeypatch):
    net = PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=16))
    evaluator = NetEvaluator(net, threads=1, config=config(tmp_path), batch=16)
    assert evaluator.backend in inference.candidates("cpu")
    known = json.loads((tmp_path / "auto-backend.json").read_text())
    (entry,) = known.values()
    assert entry["backend"] == evaluator.backend
    assert set(entry["positions_per_s"]) == set(inference.candidates("cpu"))
    assert entry["positions_per_s"][evaluator.backend] == max(entry["positions_per_s"].values())

    def no_measure(*a, **k):
        raise AssertionError("measured again")

    monkeypatch.setattr(autoselect, "measure", no_measure)
    assert NetEvaluator(net, threads=1, config=config(tmp_path), batch=16).backend == evaluator.backend
    with pytest.raises(AssertionError, match="measured again"):  # another batch is another question
        NetEvaluator(net, threads=1, config=config(tmp_path), batch=32)


def test_devices_resolve_without_a_gpu(monkeypatch):
    monkeypatch.setattr(inference, "cuda_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(InferenceError, match="no CUDA GPU"):
        resolve_device("cuda")


def test_precisions_a_backend_cannot_run_are_errors(monkeypatch):
    assert resolve_precision("auto", "onnxruntime", "cpu") == "f32"
    with pytest.raises(InferenceError, match="f32 only"):
        resolve_precision("bf16", "onnxruntime", "cpu")
    with pytest.raises(InferenceError, match="GPU precision"):
        resolve_precision("f16", "torch", "cpu")
    with pytest.raises(InferenceError, match="on cuda use backend torch"):
        resolve_precision("auto", "openvino", "cuda")
    monkeypatch.setattr(inference, "cpu_has_bf16", lambda: False)
    assert resolve_precision("auto", "openvino", "cpu") == "f32"
    monkeypatch.setattr(inference, "cpu_has_bf16", lambda: True)
    assert resolve_precision("auto", "openvino", "cpu") == "bf16"


def test_threads_are_set_per_evaluator_not_for_the_process():
    net = PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=16))
    obs = boards(net.game, 4)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        evaluator = NetEvaluator(net, threads=1)
        seen = []
        original = evaluator._run.model.forward

        def spy(x):
            seen.append(torch.get_num_threads())
            return original(x)

        evaluator._run.model.forward = spy
        evaluator(obs)
        assert seen == [1]  # the evaluator's own count while it runs ...
        assert torch.get_num_threads() == 2  # ... and the process's afterwards
    finally:
        torch.set_num_threads(before)


def test_a_players_net_runs_on_one_thread_whatever_the_process_has():
    """The bots that play one game (brain, HTP, web, evaluate) search a few leaves at a
    time: torch's default of a thread per core made a single 15x15 forward 100x slower
    whenever the cores were busy, and the brain's timed move got one simulation. Here the
    eager torch evaluator (`inference` None); the default's thread count is the next test's."""
    from pipeline.players.search import NetPlayer, player_evaluator
    from pipeline.search.mcts import SearchConfig

    net = PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=16))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        player = NetPlayer(player_evaluator(net, None), SearchConfig(simulations=8), "net")
        seen = []
        original = player.evaluator._run.model.forward

        def spy(x):
            seen.append(torch.get_num_threads())
            return original(x)

        player.evaluator._run.model.forward = spy
        player.think(net.game.new_game())
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_player_runs_the_backend_measured_fastest_here_on_one_thread(tmp_path, monkeypatch):
    """A net that plays runs the forward pass `auto` measures fastest on this machine at the
    search's batch and one thread (eager torch was 1.5-17x slower there), and agrees with
    eager torch: to 1e-4 in f32, within bf16's rounding where the CPU has it."""
    from pipeline.nets import evaluator as evaluator_module
    from pipeline.players.search import PLAY_BATCH, play_inference, player_evaluator

    monkeypatch.setenv("ZERO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(evaluator_module, "_SHARED", OrderedDict())  # measured here, not reused
    net = PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=16)).eval()
    evaluator = player_evaluator(net)
    (key, entry), *_ = json.loads((tmp_path / "auto-backend.json").read_text()).items()
    assert f"batch={PLAY_BATCH}|threads=1|" in key
    rates = entry["positions_per_s"]
    assert evaluator.backend == entry["backend"] == max(rates, key=rates.__getitem__)
    assert set(rates) >= {"torch", "onnxruntime", "openvino"}
    obs = np.random.default_rng(3).integers(0, 2, (PLAY_BATCH, *net.game.obs_shape)).astype(np.float32)
    priors, values = evaluator(obs)
    eager_priors, eager_values = player_evaluator(net, None)(obs)
    tolerance = 0.05 if evaluator.precision == "bf16" else 1e-4
    assert np.abs(priors - eager_priors).max() < tolerance
    assert np.abs(values - eager_values).max() < tolerance
    assert play_inference("torch") is None
    assert player_evaluator(net, play_inference("onnxruntime")).describe() == "onnxruntime/cpu/f32"


def test_players_of_the_same_weights_share_one_fast_pass(tmp_path, monkeypatch):
    """The web app makes a player for every search: the second player of a net reuses the
    first one's compiled forward pass instead of choosing and compiling it again; other
    weights, other settings and eager torch get their own."""
    from pipeline.nets import evaluator as evaluator_module
    from pipeline.players.search import play_inference, player_evaluator

    monkeypatch.setenv("ZERO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(evaluator_module, "_SHARED", OrderedDict())
    spec = GameSpec.parse("gomoku:7:k4")
    net = PolicyValueNet(spec, NetSpec(blocks=1, channels=16)).eval()
    twin = PolicyValueNet(spec, NetSpec(blocks=1, channels=16)).eval()
    twin.load_state_dict(net.state_dict())
    other = PolicyValueNet(spec, NetSpec(blocks=1, channels=16)).eval()
    onnx = play_inference("onnxruntime")
    first = player_evaluator(net, onnx)
    assert player_evaluator(twin, onnx) is first
    assert player_evaluator(other, onnx) is not first
    assert player_evaluator(net, play_inference("openvino")) is not first
    assert player_evaluator(net, None) is not player_evaluator(net, None)


def test_the_default_evaluator_is_eager_torch_in_f32():
    net = PolicyValueNet(GameSpec.parse("gomoku:7:k4"), NetSpec(blocks=1, channels=16))
    evaluator = NetEvaluator(net)
    assert evaluator.describe() == "torch/cpu/f32"
    obs = boards(net.game, 3)
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
    priors, v = evaluator(obs)
    np.testing.assert_allclose(priors, torch.softmax(logits, 1).numpy(), atol=1e-6)
    np.testing.assert_allclose(v, values.numpy(), atol=1e-6)


@pytest.mark.parametrize("backend", ["torch", "onnxruntime", "openvino"])
def test_one_shared_evaluator_serves_the_threads_of_a_process(tmp_path, backend):
    net = trained_net()
    cfg = config(tmp_path, backend=backend, precision="f32")
    evaluator = shared_evaluator(net, cfg, threads=1)
    twin = PolicyValueNet(net.game, net.net)
    twin.load_state_dict(net.state_dict())
    assert shared_evaluator(twin, cfg, threads=1) is evaluator
    batches = [boards(net.game, 8, seed=s) for s in range(4)]
    alone = [evaluator(b) for b in batches]
    together: dict[int, tuple] = {}

    def work(i: int) -> None:
        for _ in range(5):
            together[i] = evaluator(batches[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        np.testing.assert_array_equal(together[i][0], alone[i][0])
        np.testing.assert_array_equal(together[i][1], alone[i][1])


def test_training_runs_on_the_cpu_without_a_gpu_and_mixed_precision_with_one(monkeypatch):
    from pipeline.training.loop import trainer_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert trainer_device("auto") == ("cpu", "32-true")
    assert trainer_device("cpu", "bf16-mixed") == ("cpu", "bf16-mixed")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        trainer_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert trainer_device("auto") == ("cuda", "bf16-mixed")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert trainer_device("cuda") == ("cuda", "16-mixed")
    assert trainer_device("cpu") == ("cpu", "32-true")
