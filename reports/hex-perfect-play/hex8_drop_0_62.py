"""The drop of the 8x8 sample against the 11x11 swap champion (as black, opening [0, 62]):
the checker proved [0, 62, 26, 34] won for black at 50,000 nodes, the player played 28 and
[0, 62, 26, 34, 28, 43] is proven lost. The position solved from a fresh table at several
budgets, the move today's player makes there from a fresh table, whether 28 keeps the win, and
the moves of one player that plays the game alone from its opening.

    python reports/hex-perfect-play/hex8_drop_0_62.py
"""

from hex8_drops import MODEL, play_today, report_budgets, spec

from pipeline.players.factory import make_player, play_search
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table

state = spec.new_game()
for a in (0, 62, 26, 34):
    state = state.apply(a)
print("[0, 62, 26, 34], black to move, played 28 in the sweep", flush=True)
report_budgets(state, 28, (5_000, 20_000, 50_000))
move, seconds = play_today(state)
print(f"today's player from a fresh table: {move} ({seconds:.1f} CPU s)", flush=True)
print(f"28 keeps the win within 400,000 nodes: {keeps_win(state, 28, 400_000, new_dfpn_table(22))}", flush=True)


# The game alone from its opening: one player, its root solver's table kept between its two
# moves (in the sweep the table was also shared by the chunk's other four games:
# hex8_drop_0_62_chunk.py).
player = make_player(MODEL, spec, play_search(spec, 200))
player.start(spec, 1, 0)
state = spec.new_game().apply(0).apply(62)
first = int(player.choose([0], [state])[0])
state = state.apply(first).apply(34)
second = int(player.choose([0], [state])[0])
print(f"one player from [0, 62], its table kept: {first}, then after 34: {second} (the sweep: 26, then 28)", flush=True)
