"""The [7, 19] drop's position with the refutation check (thirty-sixth session): the moves
the root solver checks at [7, 19, 18, 26, 37, 29] (36 refuted, the next not), the move played,
and whether it keeps the win within 400,000 nodes from a fresh table.

    python reports/hex-perfect-play/hex8_drop_7_19_mended.py
"""

import time

from hex8_drops import MODEL, spec

from pipeline.players.factory import make_player, play_search
from pipeline.search import hex_root_solver as hrs
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table

checked = hrs.HexRootSolver.refuted


def traced(self, state, move):
    start = time.perf_counter()
    refuted = checked(self, state, move)
    print(f"  refuted({move}) = {refuted} ({time.perf_counter() - start:.1f} s)", flush=True)
    return refuted


hrs.HexRootSolver.refuted = traced
state = spec.new_game()
for a in [7, 19, 18, 26, 37, 29]:
    state = state.apply(a)
player = make_player(MODEL, spec, play_search(spec, 200))
player.start(spec, 1, 0)
start = time.perf_counter()
move = int(player.choose([0], [state])[0])
kept = keeps_win(state, move, 400_000, new_dfpn_table(22))
print(f"played {move} ({time.perf_counter() - start:.1f} s); keeps the win within 400,000 nodes: {kept}", flush=True)
