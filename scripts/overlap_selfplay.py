"""Self-play with `selfplay.overlap` off and on, per backend, against the forward-bound rate
(issue 25, part 2): `pipeline.bench.selfplay.bench_overlap` on a params file (or preset)
and a checkpoint, one worker, the two settings in alternation (off, on, off, on).

    python -m scripts.overlap_selfplay --backend torch:f32 --backend openvino:bf16
    python -m scripts.overlap_selfplay --params presets/gomoku-9x9.yaml --model models/pretrained/gomoku-9x9.pt
    python -m scripts.overlap_selfplay --params presets/gomoku-15x15.yaml \\
        --model models/pretrained/gomoku-15x15.pt --moves 6
"""

from __future__ import annotations

import argparse
import sys

import torch
from rich.console import Console

from pipeline.bench.search import records_table
from pipeline.bench.selfplay import bench_overlap
from pipeline.config import load_params
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.inference import InferenceConfig
from pipeline.players.models import load_model
from pipeline.selfplay.play import SelfPlayConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    ap.add_argument("--backend", action="append", help="backend:precision (repeatable); default torch:f32")
    ap.add_argument("--rounds", type=int, default=2, help="off/on pairs per backend")
    ap.add_argument("--moves", type=int, default=None, help="lockstep moves per run (default: the games' end)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    params = load_params(args.params)
    net = load_model(args.model)
    spec = net.game
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    batch = config.parallel_games * config.search.leaves_per_step
    console = Console(width=160)
    for variant in args.backend or ["torch:f32"]:
        backend, _, precision = variant.partition(":")
        inference = InferenceConfig(backend=backend, precision=precision or "auto")  # type: ignore[arg-type]
        evaluator = NetEvaluator(net, params.selfplay.torch_threads, inference, batch)
        warm = config.model_copy(update={"parallel_games": 2})
        bench_overlap(spec, evaluator, warm, variant, 1, moves=2, repeats=1)  # JIT, graph compile
        records = bench_overlap(
            spec,
            evaluator,
            config,
            variant,
            args.rounds,
            seed=args.seed,
            moves=args.moves,
            progress=lambda m: print(m, file=sys.stderr, flush=True),
        )
        console.print(records_table(records, f"{spec}, {config.search.simulations} simulations, {variant}"))


if __name__ == "__main__":
    main()
