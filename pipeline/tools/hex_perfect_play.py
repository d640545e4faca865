"""Perfect play on a solved Hex board, checked by the solver (pipeline.match.perfect_play):
a champion with the root solver (`search.hex_root_solver_nodes`) plays each opponent as
the first player and as the second, and every position of its own is judged by DFPN
(RESULTS.md: Hex 7x7 perfect play, the Hex 8x8 champion as first and second player).

    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-7x7.pt --games 100 \\
        --sides first --vs pure:100 pure:1000 pure:10000 random

Printed per opponent: the report (games won as first and as second player, games with a
position of its own proven won, wins dropped, positions not settled), then the positions
judged; `--json` writes every game with the checker's value of each position.

A checkpoint opponent plays on the champion's board (a size-free net) without the root
solver; `--random-plies` gives the opponent that many uniformly random first moves in half
of the games (different openings against a deterministic opponent, and openings it would
not choose)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pipeline.match.evaluation import model_spec
from pipeline.match.perfect_play import PerfectPlayReport, WinChecker, play_checked
from pipeline.players.factory import PLAY_SOLVER_EMPTY_CELLS, PLAY_SOLVER_NODES, make_player
from pipeline.search.mcts import SearchConfig


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=Path("models/pretrained/hex-7x7.pt"))
    parser.add_argument("--board", default=None, help="another board for a size-free net, e.g. 8")
    parser.add_argument("--vs", nargs="+", default=["pure:1000", "random"])
    parser.add_argument("--games", type=int, default=100, help="games a side against each opponent")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument(
        "--solver-nodes",
        type=int,
        default=PLAY_SOLVER_NODES,
        help="the champion's root solver budget (what zero evaluate, htp and the web app use up to 8x8)",
    )
    parser.add_argument(
        "--solver-empty-cells",
        type=int,
        default=PLAY_SOLVER_EMPTY_CELLS,
        help="the root solver waits until at most this many cells are empty (as in zero evaluate)",
    )
    parser.add_argument("--check-nodes", type=int, default=200_000, help="the checker's budget a position")
    parser.add_argument("--random-plies", type=int, default=1)
    parser.add_argument("--sides", choices=["both", "first", "second"], default="both")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write every game here")
    args = parser.parse_args(argv)
    try:
        spec = model_spec(args.model, args.board)
        # every opponent is built before the first game: a wrong name or a checkpoint of other
        # rules fails at once, not after an hour of games against the ones before it
        opponents = {vs: make_player(vs, spec, SearchConfig(simulations=args.simulations)) for vs in args.vs}
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(f"error: {error}") from None
    search = SearchConfig(
        simulations=args.simulations,
        hex_root_solver_nodes=args.solver_nodes,
        hex_root_solver_empty_cells=args.solver_empty_cells,
    )
    checker = WinChecker(spec, args.check_nodes)
    sides = {"both": (True, False), "first": (True,), "second": (False,)}[args.sides]
    out = []
    for vs, opponent in opponents.items():
        records = []
        for first in sides:
            player = make_player(str(args.model), spec, search, name=args.model.stem)
            start = time.perf_counter()
            half = args.games // 2
            for part, plies in ((0, args.random_plies), (1, 0)):
                n = half if part == 0 else args.games - half
                seed = args.seed + 1000 * part + (0 if first else 500)
                records += play_checked(spec, player, opponent, n, first, checker, seed, plies)
            print(f"  ({'first' if first else 'second'} player: {time.perf_counter() - start:.0f} s)", flush=True)
        report = PerfectPlayReport(args.model.stem, vs, records)
        print(report.describe(), flush=True)
        out.append(
            {
                "opponent": vs,
                "first": report.summary(True),
                "second": report.summary(False),
                "games": [
                    {"first": g.player_first, "won": g.won, "moves": g.moves, "values": g.values} for g in records
                ],
            }
        )
    judged = sum(len(g["values"]) for o in out for g in o["games"])
    print(f"{spec}: {judged} positions judged, {checker.solves} distinct ones solved at {args.check_nodes} nodes")
    if args.json:
        args.json.write_text(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
