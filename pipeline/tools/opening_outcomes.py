"""What a first move is worth when a net plays it out against itself: black's score after
a first stone in the centre against one in a corner (or any cells), the second stone
drawn at random from the legal moves and shared between the cells compared, so that
only the first move differs. The value head's verdict on the same first moves is printed
beside it (`pipeline.tools.opening_prior` prints the whole board). RESULTS.md: "the
opening: the cause, measured".

    python -m pipeline.tools.opening_outcomes models/pretrained/gomoku-15x15.pt gomoku:15 --cells h8 a1 --openings 10

Printed, per first move: black's score over the games played from it and the value head's
value for black after it. Each opening is played twice (the net on each side: the same net, so the two games differ
only by the search's seeds), at the gate's 200 simulations, tactics on."""

from __future__ import annotations

import argparse

import numpy as np
import torch

from pipeline.games.base import GameSpec
from pipeline.match.arena import play_lockstep
from pipeline.players.factory import make_player
from pipeline.search.mcts import SearchConfig


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("spec")
    parser.add_argument("--cells", nargs="+", default=["h8", "a1"], help="first moves to compare")
    parser.add_argument("--openings", type=int, default=10, help="random second stones per first move")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.openings < 1:
        parser.error("--openings takes at least 1")
    torch.set_num_threads(1)
    spec = GameSpec.parse(args.spec)
    search = SearchConfig(simulations=args.simulations)
    black = make_player(args.model, spec, search, name="black")
    white = make_player(args.model, spec, search, name="white")
    rng = np.random.default_rng(args.seed)
    firsts = [spec.parse_action(c) for c in args.cells]
    scores: dict[str, float] = {}
    seconds: list[int] = []
    while len(seconds) < args.openings:  # a second stone legal after every first move compared
        a = int(rng.integers(spec.num_actions))
        if a not in firsts:
            seconds.append(a)
    for cell, first in zip(args.cells, firsts, strict=True):
        openings = [[first, second] for second in seconds]
        records = play_lockstep(spec, black, white, openings, seed=args.seed)
        first_side = [r.first_player_score for r in records]
        scores[cell] = float(np.mean(first_side))
        state = spec.new_game().apply(first)
        _, value = black.policy_value(state)
        print(
            f"{cell}: black scores {np.mean(first_side):.2f} over {len(records)} games "
            f"(value head, for black after {cell}: {-value:+.2f})",
            flush=True,
        )
    return scores


if __name__ == "__main__":
    main()
