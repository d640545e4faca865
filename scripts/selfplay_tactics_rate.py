"""Self-play positions/s with tactics off and on: Gomoku 8x8, the shipped 8x8 net (torch,
one thread), 25 games in lockstep at 200 simulations, seed 1.

    python -m scripts.selfplay_tactics_rate [--games 25] [--rounds 2] [--modes off,vcf]

The modes alternate round by round (off, vcf, off, vcf, ...), so that a shared machine's
load falls on them alike; the last line gives each mode's rate over all its rounds and
the ratio to the first mode. `--modes` takes `MODE` or `MODE:NODES` (solver budget).
`--split` also times the network and the compiled expansion (backup and tactics
included) of each round."""

from __future__ import annotations

import argparse
import time

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.evaluator import NetEvaluator
from pipeline.players.models import load_model
from pipeline.search import mcts
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default="gomoku:8")
    parser.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    parser.add_argument("--games", type=int, default=25, help="games per round, all in lockstep")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default="off,vcf", help="comma-separated MODE or MODE:NODES")
    parser.add_argument("--split", action="store_true", help="time the network and the expansion too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    spec = GameSpec.parse(args.spec)
    net = NetEvaluator(load_model(args.model, spec), threads=1)
    spent = {"network": 0.0, "expansion": 0.0}

    def timed(key, fn):
        def call(*a, **k):
            start = time.perf_counter()
            out = fn(*a, **k)
            spent[key] += time.perf_counter() - start
            return out

        return call

    evaluator = timed("network", net) if args.split else net
    if args.split:  # the search calls it through the module: time every call
        mcts.expand_and_backup = timed("expansion", mcts.expand_and_backup)
    modes = [(m.split(":")[0], int(m.split(":")[1]) if ":" in m else 200) for m in args.modes.split(",")]
    totals = {m: [0, 0.0] for m in modes}
    for mode, nodes in modes:  # warm up: load the compiled code before anything is timed
        search = SearchConfig(simulations=8, tactics=mode, tactics_nodes=nodes)
        play_games(spec, evaluator, 1, SelfPlayConfig(parallel_games=1, search=search), seed=0)
    for r in range(args.rounds):
        for mode, nodes in modes:
            search = SearchConfig(simulations=args.simulations, tactics=mode, tactics_nodes=nodes)
            config = SelfPlayConfig(parallel_games=args.games, search=search)
            spent.update(network=0.0, expansion=0.0)
            start = time.perf_counter()
            _, stats = play_games(spec, evaluator, args.games, config, seed=1)
            seconds = time.perf_counter() - start
            totals[(mode, nodes)][0] += stats.positions
            totals[(mode, nodes)][1] += seconds
            line = f"round {r}: tactics={mode:3s} nodes={nodes:3d} {stats.positions / seconds:6.1f} positions/s"
            if args.split:
                per_sim = spent["expansion"] / max(stats.simulations, 1) * 1e6
                line += (
                    f"; network {spent['network'] / seconds:.0%}, expansion {spent['expansion'] / seconds:.0%}"
                    f" ({per_sim:.1f} us a simulation)"
                )
            print(line, flush=True)
    base = totals[modes[0]][0] / totals[modes[0]][1]
    summary = [f"{m}:{n} {p / s:.1f} ({p / s / base:.2f}x)" for (m, n), (p, s) in totals.items()]
    print("all rounds: " + ", ".join(summary))


if __name__ == "__main__":
    main()
