"""The [0, 62] drop's chunk replayed as the sweep played it: the sweep's own player
(`ChunkPlayer.champion`, the chunk's five games chosen for in lockstep), the recorded moves
fed back, up to the player's move at ply 4. Does it play 28 at [0, 62, 26, 34] again?

With the sweep's code (one root-solver table shared by the chunk's games) it did, in the
fourth game (hex8_drop_0_62_chunk.log); with a solver for each game it plays 35, the win
(hex8_drop_0_62_chunk_mended.log, thirty-fifth session).

    python reports/hex-perfect-play/hex8_drop_0_62_chunk.py
"""

import argparse
from pathlib import Path

from hex8_drops import MODEL, here, spec

from pipeline.tools.hex_perfect_play import ChunkPlayer, chunk_prefix, read_progress

VS = "models/pretrained/hex-11x11-swap.pt"
AT = 5  # the chunk's first opening, and (with the sweep's --seed 0) the seed of its start

sweep = argparse.Namespace(
    model=Path(MODEL),
    simulations=200,
    solver_nodes=None,
    solver_empty_cells=None,
    check_nodes=50_000,
    checker_without_book=False,
)  # the sweep's command's settings, the rest of them the tool's defaults
player = ChunkPlayer(sweep, spec).champion(VS, True)
games = read_progress(here / "hex8-sample-today-hex11.jsonl")[f"{chunk_prefix(VS, True)}{AT}:{AT + 5}"]
player.start(spec, len(games), AT)
states = [spec.new_game() for _ in games]
for g, game in enumerate(games):
    for a in game.moves[:2]:
        states[g].apply(a)
        player.observe(g, states[g], a)
for ply in (2, 4):
    moves = player.choose(list(range(len(games))), states)
    print(f"ply {ply}: {moves}; the sweep: {[game.moves[ply] for game in games]}", flush=True)
    for g, game in enumerate(games):
        for a in game.moves[ply : ply + 2]:  # the sweep's own move, then the reply it got
            states[g].apply(a)
            player.observe(g, states[g], a)
