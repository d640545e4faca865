"""The one win the 7x7 champion dropped as white in the sweep against pure:1000 (opening
[9, 3], chunk 392:490 of `hex7-2ply-second.jsonl`): the position before its fifth-ply move,
its move there with the root solver at 20,000 nodes (the play budget of the sweep) and at
50,000 (the 7x7 play budget since), and whether each keeps the win (DFPN, 200,000 nodes).

    python reports/hex-perfect-play/hex7_white_drop.py
"""

import json
import time
from pathlib import Path

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player, play_search
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table

spec = GameSpec.parse("hex:7")
progress = Path(__file__).with_name("hex7-2ply-second.jsonl")
games = [g for line in progress.read_text().splitlines() for g in json.loads(line)["games"]]
moves = next(g["moves"] for g in games if g["moves"][:2] == [9, 3] and not g["first"])
state = spec.new_game()
for a in moves[:5]:
    state = state.apply(a)
print(f"opening [9, 3], the position after {moves[:5]}, white to move; the sweep's move: {moves[5]}")
for nodes in (20_000, 50_000):
    player = make_player(
        "models/pretrained/hex-7x7.pt", spec, play_search(spec, 200).model_copy(update={"hex_root_solver_nodes": nodes})
    )
    start = time.perf_counter()
    move = player.think(state.copy()).action
    kept = keeps_win(state.copy(), move, 200_000, new_dfpn_table(20), hd.default_limits())
    print(f"root solver at {nodes} nodes: plays {move} ({time.perf_counter() - start:.1f} s), keeps the win: {kept}")
