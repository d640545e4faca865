"""Self-play positions/s with tactics off and on: Gomoku 8x8, the shipped 8x8 net (torch,
one thread), 25 games in lockstep at 200 simulations, seed 1.

    python -m scripts.selfplay_tactics_rate
"""

from __future__ import annotations

import time

import torch

from pipeline.games.base import GameSpec
from pipeline.nets.evaluator import NetEvaluator
from pipeline.players.models import load_model
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games

SETTINGS = [("off", 200), ("vcf", 200), ("off", 200), ("vcf", 200), ("vcf", 50), ("vcf", 20)]


def main() -> None:
    torch.set_num_threads(1)
    spec = GameSpec.parse("gomoku:8")
    evaluator = NetEvaluator(load_model("models/pretrained/gomoku-8x8.pt", spec), threads=1)
    for mode, nodes in SETTINGS:
        search = SearchConfig(simulations=200, tactics=mode, tactics_nodes=nodes)
        start = time.perf_counter()
        _, stats = play_games(spec, evaluator, 25, SelfPlayConfig(parallel_games=25, search=search), seed=1)
        print(f"tactics={mode:3s} nodes={nodes:3d} {stats.positions / (time.perf_counter() - start):6.1f} positions/s")


if __name__ == "__main__":
    main()
