"""How strong `zero brain` plays: the brain's own move choice (one search per move, a
budget of simulations, no time limit) in arena games against pure MCTS.

    .venv/bin/python scripts/brain_strength.py --model models/pretrained/gomoku-9x9.pt \
        --vs 5000 --games 20 --simulations 800

Colours alternate and each random opening is played with both colours (the arena's
`play_match`). Each game gets its own brain, as each `zero brain` process plays one game.
Torch runs on one thread. The same script measures older code: where the bot interface
is missing it drives `pipeline.serve.engine.Engine`, which the brain used before."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from pipeline.games.base import GameSpec, GameState
from pipeline.match.arena import play_match
from pipeline.players.search import PurePlayer

try:
    from pipeline.players.factory import protocol_player
except ImportError:  # the code before the one bot interface
    player_for = None


class BrainPlayer:
    """One brain per game, each asked to `think` about its game's position."""

    def __init__(self, model: Path, simulations: int):
        self.model = model
        self.simulations = simulations
        self.name = f"brain:{model.stem}@{simulations}"
        self.bots: list = []
        self.simulations_run = 0
        self.moves = 0

    def make(self, spec: GameSpec):
        if player_for is not None:
            bot = protocol_player(spec, self.model, simulations=self.simulations)
            bot.start(spec, 1, 0)
            return bot
        from pipeline.serve.engine import Engine

        return Engine(spec, self.model, simulations=self.simulations)

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.bots = [self.make(spec) for _ in range(games)]

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        moves = []
        for g, s in zip(games, states, strict=True):
            thought = self.bots[g].think(s, budget=self.simulations)
            self.simulations_run += thought.simulations
            self.moves += 1
            moves.append(thought.action)
        return moves

    def observe(self, game: int, state: GameState, action: int) -> None:
        bot = self.bots[game]
        if player_for is not None and not state.is_terminal:
            bot.observe(0, state, action)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=Path("models/pretrained/gomoku-9x9.pt"))
    ap.add_argument("--vs", type=int, default=5000, help="pure-MCTS playouts per move")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--simulations", type=int, default=800)
    ap.add_argument("--opening-plies", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    from pipeline.players.models import checkpoint_game

    spec = checkpoint_game(args.model)
    brain = BrainPlayer(args.model, args.simulations)
    start = time.perf_counter()
    result = play_match(spec, brain, PurePlayer(args.vs), args.games, args.seed, args.opening_plies)
    summary = result.summary()
    summary.update(
        game=str(spec),
        simulations=args.simulations,
        mean_simulations_per_move=round(brain.simulations_run / max(brain.moves, 1), 1),
        seconds=round(time.perf_counter() - start, 1),
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
