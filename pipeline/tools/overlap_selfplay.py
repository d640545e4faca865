"""Self-play with `selfplay.overlap` off and on, per backend, against the forward-bound rate:
`pipeline.bench.selfplay.bench_overlap` on a params file (or preset) and a checkpoint, one
worker, the two settings in alternation (off, on, off, on) (RESULTS.md, "the network kept
busy, two half-batches in flight"). `zero bench --selfplay` measures the same for the
params' own backend; this tool takes any list of backends.

    python -m pipeline.tools.overlap_selfplay --backend torch:f32 --backend openvino:bf16
    python -m pipeline.tools.overlap_selfplay --params presets/gomoku-9x9.yaml --model models/pretrained/gomoku-9x9.pt
    python -m pipeline.tools.overlap_selfplay --params presets/gomoku-15x15.yaml \\
        --model models/pretrained/gomoku-15x15.pt --moves 8

Printed per backend (a table, or `--json`): the forward pass's positions/s at the
self-play batch, then for overlap off and on the games, positions (or with `--moves`,
moves) per second, evaluations a position, the forward-bound rate and the ratio to it,
and the on/off speed-up.
"""

from __future__ import annotations

import argparse
import json
import sys

import torch
from rich.console import Console

from pipeline.bench.search import as_dicts, records_table
from pipeline.bench.selfplay import bench_overlap
from pipeline.config import load_params
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.inference import InferenceConfig
from pipeline.players.models import load_model
from pipeline.selfplay.play import SelfPlayConfig


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    ap.add_argument("--backend", action="append", help="backend:precision (repeatable); default torch:f32")
    ap.add_argument("--rounds", type=int, default=2, help="off/on pairs per backend")
    ap.add_argument("--moves", type=int, default=None, help="lockstep moves per run (default: the games' end)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the records as JSON instead of a table")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    params = load_params(args.params)
    net = load_model(args.model)
    spec = net.game
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    batch = config.parallel_games * config.search.leaves_per_step
    console = Console(width=160)
    out: list[dict[str, object]] = []
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
        out += as_dicts(records)
        if not args.json:
            console.print(records_table(records, f"{spec}, {config.search.simulations} simulations, {variant}"))
    if args.json:
        print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
