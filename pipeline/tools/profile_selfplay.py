"""Where a self-play step's time goes, per inference backend (RESULTS.md, "where a self-play
step's time goes" and the profile after the overlap change).

Plays the same games with each backend and splits the wall-clock into: the network (the
evaluator call), leaf selection (`select_batch`, compiled), expansion and backup with the
tactics (`expand_and_backup`, compiled) and everything else (Python orchestration: moves,
records, noise, picking actions). Optionally writes a pyinstrument profile of one backend.

    python -m pipeline.tools.profile_selfplay --games 50 --backend torch:f32 --backend openvino:bf16
    python -m pipeline.tools.profile_selfplay --games 50 --backend openvino:bf16 --tactics off
    python -m pipeline.tools.profile_selfplay --games 20 --backend openvino:bf16 --pyinstrument prof.html
    python -m pipeline.tools.profile_selfplay --games 50 --backend openvino:bf16 --overlap
    python -m pipeline.tools.profile_selfplay --games 40 --backend openvino:bf16 --fresh

With `--overlap` (`selfplay.overlap`) the network runs on its own thread: its time is shown
apart, and the calling thread's time splits into the compiled kernels, the wait for the
forward thread and the rest. Printed per backend: the wall-clock, plies/s and positions/s,
each part's seconds and share, and the network's calls, mean batch and evaluations a ply.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable

import torch

import pipeline.search.mcts as mcts
from pipeline.config import load_params
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.inference import InferenceConfig
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.models import load_model
from pipeline.selfplay.play import SelfPlayConfig, SelfPlayRun, play_games

SPENT: dict[str, float] = defaultdict(float)


def timed(name: str, fn: Callable) -> Callable:
    """`fn`, its seconds added to SPENT[name] at each call."""

    def run(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - t

    return run


def counted(fn: Callable) -> tuple[Callable, list[int]]:
    """`fn` that also keeps the size of each batch it is called with."""
    sizes: list[int] = []

    def run(obs):
        sizes.append(len(obs))
        return fn(obs)

    return run, sizes


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--backend", action="append", help="backend:precision (repeatable); default torch:f32")
    ap.add_argument("--tactics", choices=["off", "vcf", "vct"], default=None, help="override search.tactics")
    ap.add_argument(
        "--defer", choices=["on", "off"], default=None, help="override search.tactics_defer (Gomoku refutations)"
    )
    ap.add_argument("--pyinstrument", default=None, help="write an HTML profile of the last backend here")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--overlap", action="store_true", help="selfplay.overlap: the network on its own thread")
    ap.add_argument(
        "--fresh", action="store_true", help="a fresh net of the model's game and shape (seeded weights, untrained)"
    )
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games takes at least 1")
    kernels = {"select_batch": mcts.select_batch, "expand_and_backup": mcts.expand_and_backup}
    try:
        profile(args)
    finally:  # the search's module as it was (a caller in the same process searches on)
        for name, fn in kernels.items():
            setattr(mcts, name, fn)


def profile(args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    params = load_params(args.params)
    net = load_model(args.model)
    if args.fresh:  # an untrained net's games are full of threats: the solvers' worst case
        torch.manual_seed(args.seed)
        net = PolicyValueNet(net.game, net.net)
    spec = net.game
    fields = params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields))
    if args.tactics is not None:
        fields["search"]["tactics"] = args.tactics
    if args.defer is not None:
        fields["search"]["tactics_defer"] = args.defer == "on"
    fields["overlap"] = args.overlap
    config = SelfPlayConfig.model_validate(fields)
    mcts.select_batch = timed("select leaves (compiled)", mcts.select_batch)
    mcts.expand_and_backup = timed("expand + back up + tactics (compiled)", mcts.expand_and_backup)
    print(
        f"{spec}, {args.games} games, {config.parallel_games} in lockstep, {config.search.simulations} simulations, "
        f"tactics {config.search.tactics}"
        + (", refutations deferred" if config.search.tactics_defer else "")
        + ", one worker, one thread"
        + (", overlap" if args.overlap else "")
    )
    for i, variant in enumerate(args.backend or ["torch:f32"]):
        backend, _, precision = variant.partition(":")
        evaluator = NetEvaluator(
            net,
            threads=1,
            config=InferenceConfig(backend=backend, precision=precision or "auto"),
            batch=config.parallel_games * config.search.leaves_per_step,
        )
        play_games(spec, evaluator, min(args.games, 4), config, seed=args.seed)  # warm-up: JIT, graph compile
        SPENT.clear()
        net_call, batches = counted(timed("network (evaluator)", evaluator.__call__))
        profiler = None
        if args.pyinstrument and i == len(args.backend or ["x"]) - 1:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.002)
            profiler.start()
        t = time.perf_counter()
        run = SelfPlayRun(spec, net_call, args.games, config, seed=args.seed)  # what play_games runs
        while run.counts.finished < args.games:
            run.step()
        stats = run.stats(len(run.positions()), time.perf_counter() - t)
        total = time.perf_counter() - t
        if args.overlap:  # the network's time is on its own thread: shown apart
            network = SPENT.pop("network (evaluator)", 0.0)
            SPENT["waiting for the forward thread"] = run.search.forward_wait
        if profiler is not None:
            profiler.stop()
            with open(args.pyinstrument, "w") as f:
                f.write(profiler.output_html())
        print(
            f"\n{variant}: {total:.1f} s, {stats.plies / total:.1f} plies/s, {stats.positions / total:.1f} positions/s"
        )
        rest = total - sum(SPENT.values())
        for name, seconds in [*sorted(SPENT.items(), key=lambda kv: -kv[1]), ("Python orchestration (rest)", rest)]:
            print(f"  {name:40s} {seconds:7.1f} s  {100 * seconds / total:5.1f}%")
        if args.overlap:
            print(f"  {'network, on the forward thread':40s} {network:7.1f} s  {100 * network / total:5.1f}%")
        else:
            network = SPENT["network (evaluator)"]
        print(
            f"  network: {len(batches)} calls, {sum(batches)} positions, mean batch {sum(batches) / len(batches):.1f}, "
            f"{sum(batches) / network:.0f} positions/s in the call; {sum(batches) / stats.plies:.1f} evaluations a ply"
        )


if __name__ == "__main__":
    main()
