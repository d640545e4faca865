"""The searched value of each first stone on the 19x19 Connect6 board, at the matches'
settings (no noise, no first-play reduction at the root): Q and visits over the central 9x9,
then visits and visit-weighted Q per ring around the centre (Chebyshev distance 0-5). Shows
the searched Q of a first stone falling with its visits (RESULTS.md, twenty-second session:
why the 1,600-simulation search plays stones of a 1 per mille prior).

    python reports/connect6-opening/first_stone_q_rings.py CHECKPOINT [SIMULATIONS ...]
"""

import sys

import numpy as np
import torch

import pipeline  # noqa: F401
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player, play_search
from pipeline.tools.opening_prior import root_stats

torch.set_num_threads(1)
spec = GameSpec.parse("connect6:19")
model, budgets = sys.argv[1], [int(s) for s in sys.argv[2:]] or [1600]
np.set_printoptions(linewidth=200, precision=3, suppress=True)
centre = spec.height // 2
rows, columns = np.indices((spec.height, spec.width))
ring = np.maximum(np.abs(rows - centre), np.abs(columns - centre))
for sims in budgets:
    player = make_player(model, spec, play_search(spec, sims))
    player.start(spec, 1, 0)
    player.choose([0], [spec.new_game()])
    visits = player.last_visits[0][: spec.cells].reshape(spec.height, spec.width)
    q = root_stats(player, spec)[0][: spec.cells].reshape(spec.height, spec.width)
    print(f"{model}, {sims} simulations: black's Q (x1000) over the central 9x9 (nan: not visited)")
    print((q[5:14, 5:14] * 1000).round(0))
    print("visits:")
    print(visits[5:14, 5:14])
    for r in range(6):
        cells = ring == r
        w = visits[cells]
        mean = np.nansum(q[cells] * w) / max(w.sum(), 1)
        print(f"ring {r}: {cells.sum()} cells, {int(w.sum())} visits, visit-weighted Q {mean:+.3f}")
