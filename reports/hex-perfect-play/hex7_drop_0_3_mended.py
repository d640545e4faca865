"""The 7x7 drop of the sweep against the 11x11 champion (opening [0, 3], black), mended: the
player's root solver at its play budget (`play_solver_nodes`, 50,000) takes the book's move at
[0, 3], and at [0, 3, 12, 18], the position after the 11x11 net's reply, which follows that
proven win, gets the won budget (8 times) and finds the win the 50,000 missed (RESULTS.md,
twenty-ninth session).

    PYTHONPATH=. python reports/hex-perfect-play/hex7_drop_0_3_mended.py
"""

import time

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.match.perfect_play import WinChecker
from pipeline.players.factory import play_solver_nodes
from pipeline.search.hex_root_solver import HexRootSolver

spec = GameSpec.parse("hex:7")
budget = play_solver_nodes(spec)
for won_budget in (budget, None):
    solver = HexRootSolver(spec, budget, won_budget=won_budget)
    print(f"budget {budget:,}, won budget {solver.won_budget:,}")
    # The search's own move taken as the book's, as in the sweep's game: no second solve at [0, 3]
    # (one that proves another move's win first leaves a table that settles [0, 3, 12, 18] at 50,000).
    first = solver.winning_move(spec.replay([0, 3]).array, 12)
    print("  at [0, 3]:", first, flush=True)
    after = spec.replay([0, 3, 12, 18]).array
    t = time.time()
    move = solver.winning_move(after, 16)
    print("  at [0, 3, 12, 18]:", move, f"({time.time() - t:.1f} s)", flush=True)
    if move is not None:
        child = spec.replay([0, 3, 12, 18, move])
        print("  white to move after it, checked afresh at 400,000 nodes:", WinChecker(spec, 400_000).value(child))
