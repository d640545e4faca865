"""Where a Gomoku match was lost: for each game one player lost, the first of its moves after
which the winner had a forced win the threat solvers see (a VCF, else a VCT, at `--budget`
nodes) all the way to the end, and whether another move there left the winner none (issue 78:
is the loss tactical, which a deeper root guard would save, or was the game gone before any
threat sequence the solvers see?).

    python -m pipeline.tools.gomoku_loss_audit reports/gomoku-15x15-defence/gen31-vs-classical9-20.json

The match file is `zero evaluate --json`'s. From the game's end the audit walks back over the
winner's turns while the winner, to move, has a VCF or VCT at the budget: the loser's move
just before the earliest such turn is its losing move. There every legal move within
`--radius` cells of a stone is tried, and kept as saving when the winner, to move after it,
has neither (a win at once counts as saving too). "No saving move" means the game was lost
earlier than any sequence the solvers see at that budget: to the judgement of the moves
before, or to a longer sequence. Printed, per game: the plies, the losing move, the
solver that sees the win after it, the saving moves found; then the counts."""

from __future__ import annotations

import argparse
from collections import Counter

from pipeline.games.base import GameSpec, GameState
from pipeline.runtime.pipe import run_main
from pipeline.tactics.lines.solve import near_cells, prove
from pipeline.tools._lost_games import add_match_arguments, lost_games, print_counts

BUDGET = 20_000
RADIUS = 2


def forced_win(state: GameState, budget: int) -> str | None:
    """`vcf` or `vct` when the player to move has that forced win within `budget`, else None."""
    for kind in ("vcf", "vct"):
        if prove(state, kind, budget) is not None:
            return kind
    return None


def saving_moves(spec: GameSpec, moves: list[int], budget: int, radius: int) -> list[int]:
    """The moves of the player to move after `moves` that leave the other side no forced win."""
    before = spec.replay(moves)
    legal = set(map(int, near_cells(before, radius)))
    found = []
    for action in sorted(legal):
        after = before.copy()
        after.apply(action)
        if after.is_terminal or forced_win(after, budget) is None:
            found.append(action)
    return found


def audit_game(spec: GameSpec, record: dict, loser: str, budget: int, radius: int) -> dict:
    """The losing move of one game `loser` lost (see the module's docstring)."""
    moves = [spec.parse_action(m) for m in record["moves"]]
    loser_colour = 0 if record["black"] == loser else 1
    opening = len(record["opening"])
    earliest: tuple[int, str] | None = None
    for ply in range(len(moves) - 1, opening - 1, -1):
        if ply % 2 == loser_colour:
            continue  # the winner moves at the other plies
        kind = forced_win(spec.replay(moves[:ply]), budget)
        if kind is None:
            break
        earliest = (ply, kind)
    row: dict = {"game": record["game"], "loser_colour": "black" if loser_colour == 0 else "white", "plies": len(moves)}
    if earliest is None or earliest[0] - 1 < opening:
        row.update(losing_ply=None, kind=earliest[1] if earliest else None, saving=[])
        return row
    ply, kind = earliest
    row.update(losing_ply=ply - 1, kind=kind, saving=saving_moves(spec, moves[: ply - 1], budget, radius))
    row["played"] = moves[ply - 1]
    return row


def describe(spec: GameSpec, row: dict, budget: int) -> str:
    head = f"game {row['game']:>3} (lost as {row['loser_colour']}, {row['plies']} plies):"
    if row["losing_ply"] is None:
        seen = f"a {row['kind'].upper()} from the opening on" if row["kind"] else "no forced win seen before the end"
        return f"{head} {seen} at {budget:,} nodes"
    saving = ", ".join(spec.action_name(a) for a in row["saving"][:8]) or "none"
    more = f" (+{len(row['saving']) - 8})" if len(row["saving"]) > 8 else ""
    return (
        f"{head} move {row['losing_ply'] + 1} ({spec.action_name(row['played'])}) left a "
        f"{row['kind'].upper()} at {budget:,} nodes; moves that leave none: {saving}{more}"
    )


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_match_arguments(parser, "Gomoku")
    parser.add_argument("--budget", type=int, default=BUDGET, help="nodes of each VCF or VCT search")
    parser.add_argument("--radius", type=int, default=RADIUS, help="the saving moves tried: this close to a stone")
    args = parser.parse_args(argv)
    spec, loser, records = lost_games(parser, args, "gomoku", "Gomoku")
    counts: Counter[str] = Counter()
    for record in records:
        row = audit_game(spec, record, loser, args.budget, args.radius)
        print(describe(spec, row, args.budget), flush=True)
        counts["games"] += 1
        if row["losing_ply"] is not None:
            counts["a saving move found" if row["saving"] else "no saving move"] += 1
    print_counts(counts, loser, args.colour)
    return dict(counts)


if __name__ == "__main__":
    run_main(main)
