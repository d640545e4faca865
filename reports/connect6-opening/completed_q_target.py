"""What `selfplay.completed_q_plies: 1` would make of the empty board's policy target:
the run's self-play search (its params: simulations, Dirichlet noise, first-play
reductions) from the empty 19x19 Connect6 board, N times with different noise, and the
mean of two targets over those searches: the visits (today's) and Gumbel's improved policy
from completed Q-values (`pipeline.selfplay.opening.improved_policy`). Printed: each
target's mass on the central 5x5, on the ring of the central 7x7 and elsewhere, and its
argmax (RESULTS.md, twenty-third session: whether the improved target pulls the first
stone in).

    python reports/connect6-opening/completed_q_target.py CHECKPOINT PARAMS [N]
"""

import sys
from pathlib import Path

import numpy as np
import torch

import pipeline  # noqa: F401
from pipeline.config import load_params
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player
from pipeline.search.mcts import BatchedMCTS
from pipeline.selfplay.opening import improved_policy

torch.set_num_threads(1)
model, params_path = sys.argv[1], Path(sys.argv[2])
searches = int(sys.argv[3]) if len(sys.argv) > 3 else 16
spec = GameSpec.parse("connect6:19")
config = load_params(params_path).selfplay.search
evaluator = make_player(model, spec).evaluator  # type: ignore[attr-defined]
search = BatchedMCTS(spec, searches, config, seed=0)
empty = spec.new_game()
for g in range(searches):
    search.reset(g, empty.array)
visits = search.search(evaluator, noise=True)
centre = spec.height // 2
rows, columns = np.indices((spec.height, spec.width))
ring = np.maximum(np.abs(rows - centre), np.abs(columns - centre)).reshape(-1)
regions = {"central 5x5": ring <= 2, "7x7 ring": ring == 3, "elsewhere": ring >= 4}
targets = {"visits": np.zeros(spec.cells), "completed Q": np.zeros(spec.cells)}
for g in range(searches):
    v = visits[g][: spec.cells].astype(np.float64)
    targets["visits"] += v / v.sum() / searches
    improved = improved_policy(empty, evaluator, search.tree, g, config.gumbel.c_visit, config.gumbel.c_scale)
    targets["completed Q"] += improved[: spec.cells] / improved.sum() / searches
print(f"{model}: {searches} searches of {config.simulations} simulations from the empty board, with noise")
np.set_printoptions(linewidth=200, precision=1, suppress=True)
for name, target in targets.items():
    shares = ", ".join(f"{region} {target[cells].sum():.3f}" for region, cells in regions.items())
    print(f"{name}: {shares}; argmax {divmod(int(target.argmax()), spec.width)}")
    print("  per mille over the central 9x9:")
    print((target.reshape(spec.height, spec.width)[5:14, 5:14] * 1000).round(1))
