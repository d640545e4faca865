"""The drop of the mended 8x8 sample against the 11x11 swap champion (as black, opening
[7, 19]): the checker proved [7, 19, 18, 26, 37, 29] won for black at 50,000 nodes, the player
played 36 and [7, 19, 18, 26, 37, 29, 36, 28] is proven lost. The position solved from a fresh
table at several budgets, the move today's player makes there from a fresh table, whether 36
keeps the win at a larger budget, and the moves of one player that plays the game alone from
its opening, its table kept.

    python reports/hex-perfect-play/hex8_drop_7_19.py
"""

import time

from hex8_drops import MODEL, play_today, report_budgets, spec

from pipeline.players.factory import make_player, play_search
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table

OPENING = [7, 19]
GAME = [7, 19, 18, 26, 37, 29]  # black to move at ply 6; the sweep played 36, then 28 came
state = spec.new_game()
for a in GAME:
    state = state.apply(a)
print(f"{GAME}, black to move, played 36 in the sweep", flush=True)
report_budgets(state, 36, (5_000, 50_000, 400_000))
move, seconds = play_today(state)
print(f"today's player from a fresh table: {move} ({seconds:.1f} CPU s)", flush=True)
start = time.perf_counter()
kept = keeps_win(state, 36, 2_000_000, new_dfpn_table(22))
print(f"36 keeps the win within 2,000,000 nodes: {kept} ({time.perf_counter() - start:.1f} s)", flush=True)

player = make_player(MODEL, spec, play_search(spec, 200))
player.start(spec, 1, 0)
state = spec.new_game().apply(7).apply(19)
first = int(player.choose([0], [state])[0])
state = state.apply(first).apply(26)
second = int(player.choose([0], [state])[0])
state = state.apply(second).apply(29)
third = int(player.choose([0], [state])[0])
print(
    f"one player from {OPENING}, its table kept: {first}, {second}, {third} (the sweep: 18, 37, 36)",
    flush=True,
)
