"""The yardstick property of `classical:DEPTH`: one ply deeper must beat the depth below,
on every game it plays; and where the ladder sits against pure MCTS (RESULTS.md, "tactics
for the k-in-a-row games": the classical yardstick's table).

    python -m pipeline.tools.classical_ladder --games 40 --depths 1 2 3 4 \\
        --spec gomoku:15 --spec connect6:19 --seed 1 [--vs-pure 1000 --pure-spec gomoku:9]

Each match is the arena's (`match_records`): random openings of `--opening-plies` moves, each
played twice with the colours swapped. Printed per match: classical:d+1's score against
classical:d (wins-losses-draws), and each side's mean seconds per move; `--json` writes
the rows.

`zero tournament classical:1 classical:2 ... --game gomoku:15 --openings random` plays a
round robin of the same players (two-ply openings, every pair, Bradley-Terry ratings);
this tool plays only the neighbouring depths, from openings of any length, and times them."""

from __future__ import annotations

import argparse
import json
import time

from pipeline.games.base import GameSpec
from pipeline.match.arena import match_records, result_of
from pipeline.players.factory import make_player
from pipeline.runtime.pipe import run_main


def warm_up(spec: GameSpec, text: str) -> None:
    """One move first, so that loading the compiled search is not timed."""
    player = make_player(text, spec)
    player.start(spec, 1, 0)
    player.choose([0], [spec.new_game().apply(spec.cells // 2)])


def match(spec: GameSpec, first: str, second: str, games: int, seed: int, plies: int) -> dict[str, object]:
    warm_up(spec, first)
    warm_up(spec, second)
    began = time.perf_counter()
    records = match_records(spec, make_player(first, spec), make_player(second, spec), games, seed, plies)
    result = result_of(first, second, records)
    # the arena times each move after the opening (its share of the lockstep call that made it)
    seconds = [[x for r in records for x in r.seconds[side]] for side in (0, 1)]
    per_move = [sum(xs) / max(len(xs), 1) for xs in seconds]
    row = {
        "game": str(spec),
        "player": first,
        "opponent": second,
        "wins": result.wins,
        "losses": result.losses,
        "draws": result.draws,
        "wins_as_first": result.wins_as_first,
        "wins_as_second": result.wins_as_second,
        "score": round(result.score, 3),
        "mean_plies": round(sum(result.lengths) / max(len(result.lengths), 1), 1),
        "s_per_move": {first: round(per_move[0], 4), second: round(per_move[1], 4)},
        "wall_s": round(time.perf_counter() - began, 1),
    }
    print(
        f"{spec}: {first} vs {second}: {result.wins}-{result.losses}-{result.draws} "
        f"(wins as first {result.wins_as_first}, as second {result.wins_as_second}) "
        f"(score {result.score:.2f}, {row['mean_plies']} plies a game); s/move {first} {per_move[0]:.4f}, "
        f"{second} {per_move[1]:.4f}; {row['wall_s']} s",
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", action="append", help="games for the depth ladder (default gomoku:15, connect6:19)")
    ap.add_argument("--depths", type=int, nargs="*", default=[1, 2, 3, 4], help="d: classical:d+1 plays classical:d")
    ap.add_argument("--games", type=int, default=10, help="games per match (pairs of colours)")
    ap.add_argument("--opening-plies", type=int, default=4, help="random opening moves per pair of games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vs-pure", type=int, default=0, help="also play classical:d against pure:N (0: not)")
    ap.add_argument("--pure-spec", action="append", help="games for the pure MCTS matches (default gomoku:9)")
    ap.add_argument("--pure-depths", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--pure-games", type=int, default=4)
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    rows = []
    for text in args.spec or ["gomoku:15", "connect6:19"]:
        spec = GameSpec.parse(text)
        for d in args.depths:
            rows.append(match(spec, f"classical:{d + 1}", f"classical:{d}", args.games, args.seed, args.opening_plies))
    if args.vs_pure:
        for text in args.pure_spec or ["gomoku:9"]:
            spec = GameSpec.parse(text)
            for d in args.pure_depths:
                pure = f"pure:{args.vs_pure}"
                rows.append(match(spec, f"classical:{d}", pure, args.pure_games, args.seed, args.opening_plies))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return rows


if __name__ == "__main__":
    run_main(main)
