"""The second counted drop of the 8x8 sample as white (against pure:1000, opening [28, 17],
chunk 170-180, with the root solver from the first move at the play budget of 20,000 nodes):
the position at ply 5 proven won by the checker, the one at ply 7 proven lost. What budget
does the position at ply 5 need from a fresh table, and does the move played keep the win?
(`hex8_drops.py`'s measurements, for this game.) And the move the champion plays there
under `play_search` (the front ends' search, root solver from a fresh table), checked.

    python reports/hex-perfect-play/hex8_drop_28_17.py
"""

from hex8_drops import MODEL, drops, play_today, report_budgets, report_keeps_win, spec

from pipeline.players.factory import play_solver_nodes
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table

for game, ply, state in drops("hex8-sample-second.jsonl"):
    if game.moves[:2] != [28, 17]:
        continue
    played = game.moves[ply]
    print(f"opening {game.moves[:2]}: won at ply {ply} ({spec.cells - ply} empty), played {played}; moves {game.moves}")
    report_budgets(state, played, (5_000, 20_000, 50_000, 100_000))
    report_keeps_win(game, ply, state)
    move, seconds = play_today(state)
    kept = keeps_win(state, move, 500_000, new_dfpn_table(22))
    print(
        f"  {MODEL} under play_search (root solver {play_solver_nodes(spec)} nodes) plays {move}"
        f" ({seconds:.1f} CPU s); it keeps the win within 500,000 nodes: {kept}",
        flush=True,
    )
