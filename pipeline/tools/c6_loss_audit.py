"""Where a Connect6 match was lost: for each game one player lost, the first of its turns
after which the winner had a VCF, the budget the solver needs to see that VCF, and whether
the loser had a turn there that left none (issue 39: "no loss to a forced win the solver
sees within its budget"; RESULTS.md, "where the white games are lost").

    python -m pipeline.tools.c6_loss_audit reports/runs/connect6-19x19-defence/matches/gen-0046-vs-init-80.json

The match file is `zero evaluate --json`'s. From the winner's first proven win (its record's
`first_proven_win`, or the game's end) the audit walks back over the winner's turns, asking
the VCF solver at rising budgets (`--budgets`) at each turn's start, until none is found at
the largest: the loser's turn just before the earliest one found is its losing turn. There
it asks whether the winner already had a VCF had the loser passed (`solve_opponent_vcf`), and
for a turn that leaves the winner none (`c6_no_blunder.safe_turn`, the first stone on the cells
of the winner's proof tree, up to 400 turns), proposed at each budget in turn and kept only
when the largest finds no VCF after it: when the winner was threatening and no turn saves, the
game was lost a turn earlier, to threats that are not all double threats (a VCT, which the
Connect6 solver does not search). Printed, per game: the plies, the VCF's length and the
budget that sees it, the threat before it and the saving turn found; then the counts."""

from __future__ import annotations

import argparse
import re
from collections import Counter

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.runtime.pipe import run_main
from pipeline.tactics.lines.c6_holding import leaves_vcf
from pipeline.tactics.lines.solve import solve_opponent_vcf, solve_vcf
from pipeline.tools._lost_games import add_match_arguments, lost_games, print_counts
from pipeline.tools.c6_no_blunder import safe_turn

BUDGETS = (200, 2_000, 20_000, 200_000)
FOUND_AT = re.compile(r"at move (\d+)")


def starts_turn(ply: int) -> bool:
    """Whether a turn starts at `ply` (Connect6: 0, 1, 3, 5, ...)."""
    return ply == 0 or stones_left_in_turn(ply) == 2


def vcf_budget(state: GameState, budgets: tuple[int, ...]) -> tuple[int, int] | None:
    """The smallest budget at which the mover has a VCF, and its length in turns."""
    for budget in budgets:
        proof = solve_vcf(state, budget=budget)
        if proof is not None:
            return budget, proof.attacker_moves(state.spec, state.ply)
    return None


def audit_game(spec: GameSpec, record: dict, loser: str, budgets: tuple[int, ...]) -> dict:
    """The losing turn of one game `loser` lost (see the module's docstring)."""
    moves = [spec.parse_action(m) for m in record["moves"]]
    winner = record["black"] if record["white"] == loser else record["white"]
    colour = 0 if record["black"] == winner else 1
    found = FOUND_AT.search(record.get("first_proven_win", {}).get(winner, "") or "")
    last = int(found.group(1)) - 1 if found else len(moves) - 1
    earliest: tuple[int, tuple[int, int]] | None = None
    # A win found at a turn's second stone is walked back from that stone.
    for start in range(last, len(record["opening"]) - 1, -1):
        if mover_at_ply(start) != colour or not (starts_turn(start) or start == last):
            continue
        state = spec.replay(moves[:start])
        seen = vcf_budget(state, budgets)
        if seen is None:
            break
        earliest = (start, seen)
    row: dict = {"game": record["game"], "loser_colour": "white" if colour == 0 else "black", "plies": len(moves)}
    if earliest is None:
        row["losing_ply"] = None
        return row
    start, (budget, turns) = earliest
    losing = max(p for p in range(start) if starts_turn(p) and mover_at_ply(p) != colour)
    state = spec.replay(moves[:losing])
    threatened = solve_opponent_vcf(state, budget=budgets[-1])[0] is not None
    saving = None
    for b in budgets:  # the cheap budgets propose, the largest confirms
        turn = safe_turn(state, b)
        if turn is not None and not leaves_vcf(state, tuple(a for a in turn if a >= 0), budgets[-1]):
            saving = (b, turn)
            break
    row.update(
        losing_ply=losing, vcf_ply=start, vcf_turns=turns, vcf_budget=budget, saving=saving, threatened=threatened
    )
    return row


def describe(spec: GameSpec, row: dict, budgets: tuple[int, ...]) -> str:
    head = f"game {row['game']:>3} (lost as {row['loser_colour']}, {row['plies']} plies):"
    if row["losing_ply"] is None:
        return f"{head} no VCF for the winner at any budget before its win"
    mid = "" if starts_turn(row["vcf_ply"]) else f" from the winner's second stone (ply {row['vcf_ply']})"
    saving = "none found"
    if row["saving"] is not None:
        b, (x, y) = row["saving"]
        stones = spec.action_name(x) + ("" if y < 0 else " " + spec.action_name(y))
        saving = f"{stones} (found at {b:,}, none left at {budgets[-1]:,})"
    return (
        f"{head} the turn at ply {row['losing_ply']} left a VCF in {row['vcf_turns']}{mid} "
        f"(seen at {row['vcf_budget']:,} nodes); before it, a VCF had the loser passed: "
        f"{'yes' if row['threatened'] else 'no'}; a turn that leaves none: {saving}"
    )


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_match_arguments(parser, "Connect6")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS), help="solver budgets, rising")
    args = parser.parse_args(argv)
    spec, loser, records = lost_games(parser, args, "connect6", "Connect6")
    budgets = tuple(sorted(args.budgets))
    counts: Counter[str] = Counter()
    for record in records:
        row = audit_game(spec, record, loser, budgets)
        print(describe(spec, row, budgets), flush=True)
        counts["games"] += 1
        if row["losing_ply"] is not None:
            counts[f"vcf seen at {row['vcf_budget']}"] += 1
            counts["saving turn found" if row["saving"] else "no saving turn found"] += 1
            counts["threatened before the losing turn"] += row["threatened"]
    print_counts(counts, loser, args.colour)
    return dict(counts)


if __name__ == "__main__":
    run_main(main)
