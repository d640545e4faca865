"""The shipped size-free Hex net on 13x13 with its connection knowledge in the search
(`search.hex_tactics: all`, the default) against the same net without it (`off`), 200
simulations a move each, the shipped 13x13 swap suite (each opening with both colours)."""

import json
import sys
import time

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.arena import play_match
from pipeline.match.openings import OpeningSource, resolve_suite
from pipeline.players.factory import make_player
from pipeline.search.mcts import SearchConfig

model, games = sys.argv[1], int(sys.argv[2])
spec = GameSpec.parse("hex:13:swap")
knowledge = make_player(model, spec, SearchConfig(simulations=200, hex_tactics="all"), name="with knowledge")
plain = make_player(model, spec, SearchConfig(simulations=200, hex_tactics="off"), name="without")
openings = OpeningSource(spec, resolve_suite(spec, "auto"), None, np.random.default_rng(0))
start = time.perf_counter()
result = play_match(spec, knowledge, plain, games, seed=0, openings=openings)
print(json.dumps(result.summary()), f"{time.perf_counter() - start:.0f} s", openings.describe())
