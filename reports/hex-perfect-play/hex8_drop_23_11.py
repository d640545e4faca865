"""The fifth counted drop of the 8x8 sample (as black against pure:1000, opening [23, 11],
chunk 130-140, with the root solver from the first move): the position at ply 4 was not
settled by the checker at 50,000 nodes after a proven win at ply 2. Does the move played at
ply 2 keep the win at 500,000 nodes? (`hex8_drops.py`'s drops and check, for this game.)

    python reports/hex-perfect-play/hex8_drop_23_11.py
"""

from hex8_drops import drops, report_keeps_win

for game, ply, state in drops("hex8-sample.jsonl"):
    if game.moves[:2] == [23, 11]:
        report_keeps_win(game, ply, state)
