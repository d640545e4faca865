"""Search simulations/s with tactics off and on, with a shipped net, on 15x15 Gomoku and
19x19 Connect6: the empty board and positions of 10, 20 and 30 stones near the centre.

    python -m scripts.search_tactics_rate

Each mode runs twice, alternating; the first run of each includes numba's compile."""

from __future__ import annotations

import numpy as np
import torch

from pipeline.games.base import GameSpec, GameState
from pipeline.players.factory import make_player
from pipeline.search.mcts import SearchConfig

CASES = [("models/pretrained/gomoku-15x15.pt", "gomoku:15"), ("models/pretrained/connect6-19x19.pt", "connect6:19")]


def position(spec: GameSpec, plies: int, rng: np.random.Generator) -> GameState:
    state = spec.new_game()
    r0, c0 = spec.height // 2, spec.width // 2
    while state.ply < plies:
        legal = state.legal_actions()
        r, c = np.divmod(legal, spec.width)
        trial = state.copy().apply(int(rng.choice(legal[(abs(r - r0) <= 3) & (abs(c - c0) <= 3)])))
        if not trial.is_terminal:
            state = trial
    return state


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for model, text in CASES:
        spec = GameSpec.parse(text)
        positions = [spec.new_game()] + [position(spec, p, rng) for p in (10, 20, 30)]
        for mode in ("off", "vcf", "off", "vcf"):
            player = make_player(model, spec, SearchConfig(simulations=400, tactics=mode))
            sims = seconds = 0.0
            for state in positions:
                thought = player.think(state.copy(), budget=400)
                player.search = None  # a fresh tree for every position
                sims += thought.simulations
                seconds += thought.seconds
            print(f"{text:12s} tactics={mode:3s} {sims / seconds:8.0f} simulations/s")


if __name__ == "__main__":
    main()
