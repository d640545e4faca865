"""The fifth counted drop of the 8x8 sample (as black against pure:1000, opening [23, 11],
chunk 130-140, with the root solver from the first move): the position at ply 4 was not
settled by the checker at 50,000 nodes after a proven win at ply 2. Does the move played at
ply 2 keep the win at 500,000 nodes?

    python reports/hex-perfect-play/hex8_drop_23_11.py
"""

import time
from pathlib import Path

import pipeline  # noqa: F401
from pipeline.games.base import GameSpec
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table
from pipeline.tools.hex_perfect_play import read_progress

spec = GameSpec.parse("hex:8")
for chunk in read_progress(Path("reports/hex-perfect-play/hex8-sample.jsonl")).values():
    for game in chunk:
        if game.dropped_ply is None or game.moves[:2] != [23, 11]:
            continue
        ply = max(p for p in game.values if p < game.dropped_ply)
        state = spec.new_game()
        for a in game.moves[:ply]:
            state = state.apply(a)
        start = time.perf_counter()
        kept = keeps_win(state, game.moves[ply], 500_000, new_dfpn_table(22))
        seconds = time.perf_counter() - start
        print(
            f"opening [23, 11], ply {ply}: the move played, {game.moves[ply]}, keeps the win within"
            f" 500,000 nodes: {kept} ({seconds:.1f} s)",
            flush=True,
        )
