"""What a shipped Gomoku net thinks of the empty board: its prior over the first move and
its value after a first move on each cell (for black), printed as boards.

    python -m scripts.opening_prior models/pretrained/gomoku-15x15.pt gomoku:15
"""

from __future__ import annotations

import sys

import numpy as np
import torch

from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player


def main(model: str, text: str) -> None:
    torch.set_num_threads(1)
    spec = GameSpec.parse(text)
    player = make_player(model, spec)
    prior, value = player.policy_value(spec.new_game())
    entropy = float(-(prior * np.log(prior + 1e-12)).sum() / np.log(len(prior)))
    top = divmod(int(prior.argmax()), spec.width)
    print(f"{model} on {spec}: empty-board value {value:+.3f}, prior entropy {entropy:.2f} of uniform, argmax {top}")
    np.set_printoptions(linewidth=220, precision=2, suppress=True)
    print("prior (per mille):\n", (prior.reshape(spec.height, spec.width) * 1000).round(0))
    obs = np.stack([spec.new_game().apply(a).observation() for a in range(spec.cells)])
    _, values = player.evaluator(obs)
    print("value for black after its first move there:\n", -np.asarray(values).reshape(spec.height, spec.width))


if __name__ == "__main__":
    main(*sys.argv[1:3])
