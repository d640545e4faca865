"""GPU path figures for issue 41: forward, self-play and training on cuda beside the CPU."""
import json, os, subprocess, sys, time
T0 = time.time()
OUT = os.environ.get("OUT", "/tmp")
LOG = open(os.path.join(OUT, "gpu.jsonl"), "a")

def emit(**kw):
    kw["t"] = round(time.time() - T0, 1)
    line = json.dumps(kw)
    print(line, flush=True)
    LOG.write(line + "\n"); LOG.flush()

emit(phase="env", smi=subprocess.run("nvidia-smi -L; lscpu | grep 'Model name'", shell=True, capture_output=True, text=True).stdout.strip(),
     cpus=os.cpu_count(), python=sys.version.split()[0])
import pipeline  # noqa: F401  (the keyed numba cache first)
import torch
emit(phase="torch", version=torch.__version__, cuda=torch.cuda.is_available())
from pipeline.config import load_params
from pipeline.bench.selfplay import forward_rate, play_workers, bench_training_device, inference_config
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import PolicyValueNet
from pipeline.selfplay.play import SelfPlayConfig, play_games

from pathlib import Path
params = load_params(Path("params.yaml"))
spec = params.game
config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
batch = config.parallel_games * config.search.leaves_per_step
torch.manual_seed(0)
net = PolicyValueNet(spec, params.net)
BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 480
DRY = os.environ.get("DRY")
if DRY:
    config = config.model_copy(update={"parallel_games": 4})

def ev(variant, device, threads=1):
    return NetEvaluator(net, threads, inference_config(variant, device, None), batch)

evs = {}
for variant, device in (("torch:f32", "cuda"), ("torch:bf16", "cuda"), ("onnxruntime:f32", "cpu"), ("torch:f32", "cpu")):
    try:
        e = ev(variant, device)
        evs[(variant, device)] = e
        emit(phase="forward", variant=variant, device=device, batch=batch, positions_per_s=round(forward_rate(e, spec, batch, 7), 1))
    except Exception as error:  # noqa: BLE001
        emit(phase="forward", variant=variant, device=device, error=repr(error)[:300])
# numba compile of the self-play kernels, once, untimed
t = time.time(); play_games(spec, evs[("onnxruntime:f32", "cpu")], 2, config.model_copy(update={"parallel_games": 2}), seed=1)
emit(phase="compile", seconds=round(time.time() - t, 1))
for name, key, workers in (("gpu", ("torch:bf16", "cuda"), 16), ("gpu", ("torch:bf16", "cuda"), 8), ("cpu", ("onnxruntime:f32", "cpu"), 2 if DRY else 16), ("gpu", ("torch:f32", "cuda"), 16)):
    if time.time() - T0 > BUDGET or key not in evs:
        emit(phase="selfplay", skipped=f"{name} {key} {workers}"); continue
    p = play_workers(spec, evs[key], config, workers, config.parallel_games, seed=7)
    emit(phase="selfplay", name=name, variant=key[0], device=key[1], workers=workers, games=p.games, seconds=round(p.seconds, 1),
         games_per_hour=round(3600 * p.games / p.seconds), positions_per_s=round(p.positions / p.seconds, 1),
         evaluations_per_s=round(p.evaluations / p.seconds), plies=p.plies)
for device, steps in (("cuda", 100), ("cpu", 2 if DRY else 10)):
    if time.time() - T0 > BUDGET + 60:
        emit(phase="train", skipped=device); continue
    if device == "cpu":
        torch.set_num_threads(os.cpu_count())
    try:
        for r in bench_training_device(params, device, steps):
            emit(phase="train", device=device, position=r.position, figure=r.figure, value=round(r.value, 1))
    except Exception as error:  # noqa: BLE001
        emit(phase="train", device=device, error=repr(error)[:300])
emit(phase="done")
