"""The first stone a Connect6 net plays from the empty board as a player (`play_search`: what
a match, a protocol or the web app uses), at 200 to 1,600 simulations, beside its search's
most visited first stone (RESULTS.md, twenty-third session: the centre by convention).

    python reports/connect6-opening/first_stone_played.py CHECKPOINT ...
"""

import sys

import torch

import pipeline  # noqa: F401
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player, play_search

torch.set_num_threads(1)
spec = GameSpec.parse("connect6:19")
for model in sys.argv[1:]:
    for sims in [200, 400, 800, 1600]:
        thought = make_player(model, spec, play_search(spec, sims)).think(spec.new_game())
        own = divmod(int(thought.visits[: spec.cells].argmax()), spec.width)
        played = divmod(thought.action, spec.width)
        print(f"{model} at {sims}: plays {spec.action_name(thought.action)} {played}; its search's most visited {own}")
