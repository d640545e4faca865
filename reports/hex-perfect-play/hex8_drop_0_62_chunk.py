"""The [0, 62] drop's chunk replayed as the sweep played it: one player (a fresh root-solver
table at `start`, shared by the chunk's five games, chosen for in lockstep), the recorded
moves fed back, up to the player's move at ply 4. Does it play 28 at [0, 62, 26, 34] again?

    PYTHONPATH=reports/hex-perfect-play:. python reports/hex-perfect-play/hex8_drop_0_62_chunk.py
"""

from hex8_drops import MODEL, here, spec

from pipeline.players.factory import make_player, play_solver_nodes
from pipeline.search.mcts import SearchConfig
from pipeline.tools.hex_perfect_play import read_progress

chunks = read_progress(here / "hex8-sample-today-hex11.jsonl")
games = next(chunk for key, chunk in chunks.items() if "first 5:10" in str(key))
player = make_player(
    MODEL, spec, SearchConfig(simulations=200, hex_root_solver_nodes=play_solver_nodes(spec)), name="hex-8x8"
)
player.start(spec, len(games), 5)  # the sweep's seed for the chunk at 5
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
