"""Self-play of the shipped 15x15 net through the GPU and on the CPU cores, 16 workers."""
import json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
T0 = time.time()
OUT = os.environ.get("OUT", "/tmp")
LOG = open(os.path.join(OUT, "gpu15.jsonl"), "a")
def emit(**kw):
    kw["t"] = round(time.time() - T0, 1); line = json.dumps(kw); print(line, flush=True); LOG.write(line + "\n"); LOG.flush()
import pipeline  # noqa: F401
import torch
from pipeline.config import load_params
from pipeline.bench.selfplay import forward_rate, inference_config, play_moves
from pipeline.nets.checkpoint import load_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.selfplay.play import SelfPlayConfig
params = load_params(Path("presets/gomoku-15x15.yaml"))
spec = params.game
net = load_checkpoint("models/pretrained/gomoku-15x15.pt", spec)[0]
games = int(os.environ.get("GAMES", "16")); moves = int(os.environ.get("MOVES", "12")); workers = int(os.environ.get("WORKERS", "16"))
cfg = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
cfg = cfg.model_copy(update={"parallel_games": games})
batch = games * cfg.search.leaves_per_step
evs = {}
for variant, device in (("torch:bf16", "cuda"), ("torch:f32", "cuda"), ("onnxruntime:f32", "cpu")):
    try:
        evs[(variant, device)] = e = NetEvaluator(net, 1, inference_config(variant, device, None), batch)
        emit(phase="forward", variant=variant, device=device, batch=batch, positions_per_s=round(forward_rate(e, spec, batch, 5), 1))
    except Exception as error:  # noqa: BLE001
        emit(phase="forward", variant=variant, device=device, error=repr(error)[:200])
t = time.time(); play_moves(spec, evs[("onnxruntime:f32", "cpu")], cfg.model_copy(update={"parallel_games": 2}), 2, 1, 2)
emit(phase="compile", seconds=round(time.time() - t, 1))
for key in (("torch:bf16", "cuda"), ("onnxruntime:f32", "cpu"), ("torch:f32", "cuda")):
    if key not in evs or time.time() - T0 > float(sys.argv[1]):
        emit(phase="selfplay", skipped=str(key)); continue
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        runs = list(pool.map(lambda w: play_moves(spec, evs[key], cfg, games, 7 + w, moves), range(workers)))
    s = time.perf_counter() - start
    emit(phase="selfplay", variant=key[0], device=key[1], workers=workers, games=games, moves=moves, seconds=round(s, 1),
         moves_per_s=round(sum(r.plies for r in runs) / s, 1), evaluations_per_s=round(sum(r.evaluations for r in runs) / s))
emit(phase="done")
