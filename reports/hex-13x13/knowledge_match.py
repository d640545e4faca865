"""The shipped size-free Hex net with its connection knowledge in the search against the
same net with less of it, 200 simulations a move each, the board's shipped swap suite
(each opening with both colours).

    python reports/hex-13x13/knowledge_match.py MODEL GAMES [SIZE [WITH [WITHOUT]]]

SIZE defaults to 13, WITH (`search.hex_tactics` of the first player) to `all` (the
default, H-search at the root included), WITHOUT to `off`; e.g. `... 40 13 all
inferior+connect+mustplay+bridge` measures the root's H-search alone."""

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
size = int(sys.argv[3]) if len(sys.argv) > 3 else 13
with_pieces = sys.argv[4] if len(sys.argv) > 4 else "all"
without_pieces = sys.argv[5] if len(sys.argv) > 5 else "off"
spec = GameSpec.parse(f"hex:{size}:swap")
knowledge = make_player(model, spec, SearchConfig(simulations=200, hex_tactics=with_pieces), name=with_pieces)
plain = make_player(model, spec, SearchConfig(simulations=200, hex_tactics=without_pieces), name=without_pieces)
openings = OpeningSource(spec, resolve_suite(spec, "auto"), None, np.random.default_rng(0))
start = time.perf_counter()
result = play_match(spec, knowledge, plain, games, seed=0, openings=openings)
print(json.dumps(result.summary()), f"{time.perf_counter() - start:.0f} s", openings.describe())
