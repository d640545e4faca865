"""Playout-cap randomisation against plain self-play: games/s, kept positions/s and network
evaluations per move, arms interleaved so that machine load hits both alike.

    python scripts/playout_cap_throughput.py gomoku:9:k5 --games 20 --rounds 2
"""

from __future__ import annotations

import argparse
import json

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="gomoku:9:k5")
    parser.add_argument("--games", type=int, default=20, help="games per arm and round, all in lockstep")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--full", type=int, default=200, help="simulations of a full search")
    parser.add_argument("--fast", type=int, default=40, help="simulations of a fast search")
    parser.add_argument("--prob", type=float, default=0.25, help="share of moves searched in full")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    spec = GameSpec.parse(args.game)
    evaluator = NetEvaluator(PolicyValueNet(spec, NetSpec()))  # untrained: the cost, not the play, is measured
    search = SearchConfig(simulations=args.full)
    arms = {
        f"plain {args.full}": SelfPlayConfig(parallel_games=args.games, search=search),
        f"cap {args.prob} x {args.full} / {args.fast}": SelfPlayConfig(
            parallel_games=args.games, search=search, fast_simulations=args.fast, full_search_prob=args.prob
        ),
    }
    totals = {name: {"games": 0, "plies": 0, "positions": 0, "evaluations": 0, "seconds": 0.0} for name in arms}
    for seed in range(args.rounds):
        for name, config in arms.items():
            _, stats = play_games(spec, evaluator, args.games, config, seed=seed)
            t = totals[name]
            t["games"] += stats.games
            t["plies"] += stats.plies
            t["positions"] += stats.positions
            t["evaluations"] += stats.simulations
            t["seconds"] += stats.seconds
    for t in totals.values():
        t["games_per_s"] = round(t["games"] / t["seconds"], 3)
        t["kept_positions_per_s"] = round(t["positions"] / t["seconds"], 2)
        t["evaluations_per_move"] = round(t["evaluations"] / t["plies"], 1)
        t["seconds"] = round(t["seconds"], 1)
    print(json.dumps({"game": str(spec), **totals}, indent=1))


if __name__ == "__main__":
    main()
