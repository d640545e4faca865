"""`zero bench --selfplay`: every variant measured in one run, ratios to eager torch."""

import pytest

from pipeline.bench.selfplay import BASELINE, Played, bench_selfplay_variants, selfplay_records
from pipeline.config import load_params
from pipeline.games.base import GameSpec

pytestmark = pytest.mark.unit


def tiny_params(parallel_games: int, **extra):
    """Gomoku 5x5 k4 with a one-block net and an 8-simulation search: seconds a bench."""
    return load_params(
        None,
        {
            "game": {"game": "gomoku", "height": 5, "width": 5, "k": 4},
            "net": {"blocks": 1, "channels": 8, "value_hidden": 8},
            "selfplay.parallel_games": parallel_games,
            "selfplay.search": {"simulations": 8, "leaves_per_step": 2},
            **extra,
        },
    )


def test_ratios_are_positions_per_second_against_eager_torch():
    spec = GameSpec.parse("gomoku:5x5:k4")
    played = {
        BASELINE: [Played(10.0, 4, 100, 120)],
        "openvino:bf16": [Played(4.0, 4, 100, 120), Played(1.0, 1, 25, 30)],
    }
    records = {(r.position, r.figure): r.value for r in selfplay_records(spec, "2w", played, BASELINE)}
    assert records[("2w torch:f32", "selfplay_vs_torch_eager")] == 1.0
    assert records[("2w openvino:bf16", "selfplay_vs_torch_eager")] == 2.5  # 125/5 s against 100/10 s
    assert records[("2w openvino:bf16", "selfplay_games_per_hour")] == 3600.0
    assert records[("2w openvino:bf16", "selfplay_mean_plies")] == 30.0


def test_one_run_measures_every_variant_auto_and_the_worker_scaling(tmp_path):
    params = tiny_params(parallel_games=2)
    from pipeline.nets.resnet import PolicyValueNet

    net = PolicyValueNet(params.game, params.net)
    records, auto = bench_selfplay_variants(params, net, ["onnxruntime:f32"], "cpu", 2, 1, str(tmp_path))
    ratios = {r.position: r.value for r in records if r.figure == "selfplay_vs_torch_eager"}
    assert ratios["1w torch:f32"] == 1.0
    assert "1w onnxruntime:f32" in ratios and f"1w {auto}" in ratios
    scaling = {r.position for r in records if r.figure == "selfplay_worker_scaling"}
    assert scaling == {f"2w/1w {auto}"}
    # every variant played the same games: same seed, one worker
    games = {r.position: r.value for r in records if r.figure == "selfplay_games_per_hour"}
    assert f"2w {auto}" in games
    assert all(r.value > 0 for r in records)


def test_variants_take_turns_and_are_charged_their_own_time():
    import threading
    import time

    from pipeline.bench.selfplay import Baton

    baton = Baton(["a", "b"])
    log = []

    def run(name, steps, pause):
        baton.wait(name)
        for _ in range(steps):
            log.append(name)
            time.sleep(pause)
            baton.pass_on(name)
            baton.wait(name)
        baton.leave(name)

    threads = [threading.Thread(target=run, args=("a", 3, 0.01)), threading.Thread(target=run, args=("b", 5, 0.03))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log == ["a", "b", "a", "b", "a", "b", "b", "b"]
    assert baton.held["a"] >= 0.03 and baton.held["b"] >= 0.15
    # each is charged its own steps only (charged the other's too, b would be about 1.3x a)
    assert baton.held["b"] > 3 * baton.held["a"]


def test_the_bench_prints_search_over_forward_and_overlap_for_the_backend_selfplay_uses(tmp_path):
    from rich.console import Console

    from pipeline.bench.search import records_table
    from pipeline.bench.selfplay import bench_selfplay_backend
    from pipeline.nets.resnet import PolicyValueNet

    params = tiny_params(parallel_games=4, inference={"backend": "torch", "precision": "f32"})
    net = PolicyValueNet(params.game, params.net)
    records = bench_selfplay_backend(params, net, "cpu", 1, str(tmp_path), quick=True)
    value = {(r.position, r.figure): r.value for r in records}
    name = "torch:f32"
    for where in ("empty", "midgame"):
        sims, forward = value[(where, "search_sims_per_s")], value[(where, "forward_positions_per_s")]
        assert value[(where, "search_over_forward")] == pytest.approx(sims / forward, rel=1e-2)
    assert {r.net for r in records if r.figure == "search_over_forward"} == {f"selfplay {name}"}
    for side in ("off", "on"):
        label = f"1w {name} overlap {side}"
        rate, bound = value[(label, "selfplay_positions_per_s")], value[(label, "forward_bound_positions_per_s")]
        assert rate > 0 and bound > 0 and value[(label, "evaluations_per_position")] >= 1
        assert value[(label, "selfplay_over_forward_bound")] == pytest.approx(rate / bound, rel=1e-2, abs=1e-3)
    speedup = value[(f"1w {name} on/off", "overlap_speedup")]
    on, off = (value[(f"1w {name} overlap {s}", "selfplay_positions_per_s")] for s in ("on", "off"))
    assert speedup == pytest.approx(on / off, rel=1e-2)
    console = Console(width=200, record=True)
    console.print(records_table(records))
    text = console.export_text()
    for figure in ("overlap_speedup", "forward_bound_positions_per_s", "selfplay_over_forward_bound"):
        assert figure in text


def test_the_overlap_figures_play_a_task_share_with_the_slots_refilled():
    """More games than slots: a finished game's slot takes the next one, as in a self-play
    task, so the figure is not one lockstep batch and its tail."""
    from pipeline.bench.selfplay import bench_overlap
    from pipeline.nets.evaluator import NetEvaluator
    from pipeline.nets.inference import InferenceConfig
    from pipeline.nets.resnet import PolicyValueNet
    from pipeline.selfplay.play import SelfPlayConfig

    params = tiny_params(parallel_games=2)
    net = PolicyValueNet(params.game, params.net)
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    evaluator = NetEvaluator(net, 1, InferenceConfig(backend="torch", precision="f32"), 4)
    one_batch = bench_overlap(params.game, evaluator, config, "torch:f32", 1, repeats=1)
    refilled = bench_overlap(params.game, evaluator, config, "torch:f32", 1, repeats=1, games=5)
    played = {
        which: {r.position: r.value for r in records if r.figure == "selfplay_games_played"}
        for which, records in (("one", one_batch), ("refilled", refilled))
    }
    assert played["one"] == {"1w torch:f32 overlap off": 2, "1w torch:f32 overlap on": 2}
    assert played["refilled"] == {"1w torch:f32 overlap off": 5, "1w torch:f32 overlap on": 5}


def test_with_a_gpu_the_bench_runs_on_the_cpu_and_the_gpu_side_by_side(monkeypatch):
    """Where torch sees a GPU, `zero bench --selfplay` (device auto) runs everything on the
    CPU and then on the GPU, each row labelled with its device; the CPU's named backends
    stay on the CPU. Without a GPU, or with a device named, one run as before."""
    import pipeline.bench.selfplay as bench
    from pipeline.bench.search import record

    spec = GameSpec.parse("gomoku:8")
    calls = []

    def fake(params, net, variants, device, *args, **kwargs):
        calls.append((device, variants))
        return [record(spec, "400 sims 2w x", "selfplay_games_per_hour", 1.0 if device == "cpu" else 2.0, "games/h")]

    monkeypatch.setattr(bench, "run_selfplay_bench", fake)
    monkeypatch.setattr(bench, "resolve_device", lambda device: "cuda" if device in ("auto", "cuda") else "cpu")
    records = bench.run_selfplay_bench_on(None, variants=["onnxruntime:f32"], device="auto")
    assert calls == [("cpu", ["onnxruntime:f32"]), ("cuda", None)]
    assert {r.position: r.value for r in records} == {"cpu: 400 sims 2w x": 1.0, "cuda: 400 sims 2w x": 2.0}
    calls.clear()
    bench.run_selfplay_bench_on(None, device="cpu")
    assert calls == [("cpu", None)]
    monkeypatch.setattr(bench, "resolve_device", lambda device: "cpu")  # no GPU: auto is one run
    calls.clear()
    records = bench.run_selfplay_bench_on(None, device="auto")
    assert calls == [("auto", None)] and records[0].position == "400 sims 2w x"
