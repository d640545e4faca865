#!/usr/bin/env bash
# A stretch of the long 11x11 Hex run (reports/runs/hex-11x11-long) on a lent GPU machine
# (issue 40, part 2): `zero iterate --resume` as on any other machine, with the GPU for the
# self-play forward pass and for training (inference.device and train.device auto), and the
# machine's 16 cores for the searches (16 self-play tasks of 6 games: the run's 96 a
# generation). The run's MLflow and Prefect are not installed there: they travel as wheels
# in .whl/ (Python 3.12, the versions of this project's venv), installed into /tmp/site.
#   device run, carry [.whl]:  bash reports/gpu/hex11_stretch.sh SECONDS [RESERVE]
# (RESERVE: seconds kept for the last generation after the last start, default 210; 110 warm)
# What comes back under $OUT: stretch.log, smi.csv, snapshot.tar (the run folder's new
# snapshot), rest.tar (run.json, report, plots, new champions).
set -u
BUDGET=${1:-450}
OUT=${OUT:-/tmp/hex11-stretch}
mkdir -p "$OUT"
RUN=reports/runs/hex-11x11-long
T0=$(date +%s)
{
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PREFECT_HOME=/tmp/prefect \
    PREFECT_SERVER_ANALYTICS_ENABLED=false PREFECT_UI_ENABLED=false PREFECT_LOGGING_LEVEL=WARNING \
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120
  echo "installed after $(( $(date +%s) - T0 )) s"
  nvidia-smi -L; lscpu | grep 'Model name'; nproc
  python3 -c "import sys, torch, numba, lightning; print(sys.version.split()[0], torch.__version__, torch.cuda.is_available(), numba.__version__, lightning.__version__)"
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 > "$OUT/smi.csv" 2>&1 &
  python3 - <<'PY'
import yaml
path = "reports/runs/hex-11x11-long/params.yaml"
params = yaml.safe_load(open(path))
params["selfplay"].update(tasks=16, workers=16, parallel_games=6)
open(path, "w").write(yaml.safe_dump(params, sort_keys=False))
print("selfplay:", {k: params["selfplay"][k] for k in ("games", "tasks", "workers", "parallel_games")})
PY
  left=$(( BUDGET - ($(date +%s) - T0) ))
  # No new generation after `minutes`, so the last one ends inside the budget (a generation
  # cut off by the timeout is lost; the snapshot of the one before stands).
  minutes=$(python3 -c "print(max(1.0, ($left - ${2:-210}) / 60))")
  echo "zero iterate --resume $RUN --minutes $minutes, at most $left s"
  timeout -k 25 -s INT $left python3 -c 'from pipeline.cli import app; app()' iterate --resume $RUN --iterations 1000 --minutes $minutes
  echo "iterate rc=$? after $(( $(date +%s) - T0 )) s"
  cat $RUN/run.json
} 2>&1 | tee "$OUT/stretch.log"
tar cf "$OUT/snapshot.tar" "$RUN/snapshot"
tar cf "$OUT/rest.tar" --exclude=snapshot --exclude=work --exclude=init.pt --exclude=params.yaml "$RUN"
ls -la "$OUT"
