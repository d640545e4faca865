"""Every counted drop of the 8x8 sample (both colours, against pure:1000; four with earlier
players, [23, 11] and [28, 17] with the root solver from the first move at 20,000 nodes):
the position before each drop given to today's player, `play_search` (the root solver from
the first move at PLAY_SOLVER_NODES, a fresh table), and whether the solver proves a win
there within that budget (the player then plays a proven win; `hex8_drops.py` measured the
budgets each position needs).

    python reports/hex-perfect-play/hex8_drops_today.py
"""

from hex8_drops import drops, play_today, spec

from pipeline.players.factory import play_solver_nodes
from pipeline.tactics.hex.solve import new_dfpn_table, winning_move

budget = play_solver_nodes(spec)
for name in ("hex8-sample.jsonl", "hex8-sample-second.jsonl"):
    for game, ply, state in drops(name):
        move, seconds = play_today(state)
        proven = winning_move(state, budget, tt=new_dfpn_table(20), preferred=move)
        print(
            f"{name} opening {game.moves[:2]}, ply {ply}: played then {game.moves[ply]}, today {move}"
            f" ({seconds:.1f} CPU s); a win proven within {budget} nodes: "
            + ("none" if proven is None else f"{proven}{' (the move played today)' if proven == move else ''}"),
            flush=True,
        )
