"""Gumbel root against PUCT with a trained net: self-play positions/s per arm (arms
interleaved so that machine load hits them alike), then an optional match between the
two searches at one budget (paired openings, both colours).

    python -m scripts.gumbel_measure --games 8 --rounds 1 --arms puct:200 gumbel:16 gumbel:32 --match 20 --match-sims 32

The net is models/pretrained/gomoku-9x9.pt (the board comes from the checkpoint), run by
eager torch in f32 on one thread; the search's other knobs are presets/gomoku-9x9.yaml's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from pipeline.config import load_params
from pipeline.match.arena import play_match
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.models import checkpoint_game, load_model
from pipeline.players.search import NetPlayer
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games

ROOT = Path(__file__).resolve().parents[1]


def arm_search(base: SearchConfig, arm: str) -> SearchConfig:
    """`puct:N` or `gumbel:N` (N simulations a move) on top of the preset's search."""
    root, sims = arm.split(":")
    return base.model_copy(update={"root": root, "simulations": int(sims)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models/pretrained/gomoku-9x9.pt")
    parser.add_argument("--preset", type=Path, default=ROOT / "presets/gomoku-9x9.yaml")
    parser.add_argument("--arms", nargs="+", default=["puct:200", "gumbel:16", "gumbel:32"])
    parser.add_argument("--games", type=int, default=8, help="self-play games per arm and round, in lockstep")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--match", type=int, default=0, help="games of gumbel against puct (0: none)")
    parser.add_argument("--match-sims", type=int, default=32)
    args = parser.parse_args()

    torch.set_num_threads(1)
    spec = checkpoint_game(args.model)
    model = load_model(args.model, spec)
    assert isinstance(model, PolicyValueNet)
    evaluator = NetEvaluator(model, threads=1)
    base = load_params(args.preset).selfplay.search
    out: dict = {"game": str(spec), "model": args.model.name, "selfplay": {}}
    totals = {arm: {"games": 0, "plies": 0, "evaluations": 0, "seconds": 0.0} for arm in args.arms}
    for seed in range(args.rounds):
        for arm in args.arms:
            config = SelfPlayConfig(parallel_games=args.games, search=arm_search(base, arm))
            _, stats = play_games(spec, evaluator, args.games, config, seed=seed)
            t = totals[arm]
            t["games"] += stats.games
            t["plies"] += stats.plies
            t["evaluations"] += stats.simulations
            t["seconds"] += stats.seconds
    for arm, t in totals.items():
        if not t["plies"]:  # --rounds 0: the match only
            continue
        out["selfplay"][arm] = {
            **t,
            "seconds": round(t["seconds"], 1),
            "positions_per_s": round(t["plies"] / t["seconds"], 2),
            "evaluations_per_move": round(t["evaluations"] / t["plies"], 1),
            "mean_length": round(t["plies"] / t["games"], 1),
        }
    if args.match:
        gumbel = NetPlayer(evaluator, arm_search(base, f"gumbel:{args.match_sims}"), name="gumbel")
        puct = NetPlayer(evaluator, arm_search(base, f"puct:{args.match_sims}"), name="puct")
        result = play_match(spec, gumbel, puct, args.match, seed=0, opening_plies=2)
        out["match"] = result.summary()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
