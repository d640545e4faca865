"""bench_reference (400 simulations, 2 workers, fresh net) with tactics_defer off and on, alternating."""
import pipeline  # noqa: F401  numba cache first
import sys
from pipeline.bench.selfplay import bench_reference
from pipeline.config import load_params

params = load_params("params.yaml")
variant = sys.argv[1] if len(sys.argv) > 1 else "onnxruntime:f32"
modes = [m == "on" for m in (sys.argv[3].split(",") if len(sys.argv) > 3 else ["off", "on"])]
for rnd in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
    for defer in modes:
        search = params.selfplay.search.model_copy(update={"tactics_defer": defer})
        p = params.model_copy(update={"selfplay": params.selfplay.model_copy(update={"search": search})})
        r = {x.figure: x.value for x in bench_reference(p, variant, "cpu", 2, None) if x.position.startswith("400 sims")}
        print(f"round {rnd} defer {defer}: {r['selfplay_games_per_hour']:.0f} games/h, ceiling (threads together) "
              f"{r['forward_bound_games_per_hour']:.0f}, one core x2 {r['one_core_forward_x_workers_games_per_hour']:.0f}, "
              f"ratio {r['selfplay_over_forward_bound']:.3f}, evals/game {r['evaluations_per_game']:.0f}", flush=True)
