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
game was lost a turn earlier, to threats that are not all double threats. Printed, per game:
the plies, the VCF's length and the budget that sees it, the threat before it and the saving
turn found; then the counts.

`--solver vct` asks the same of the winner's VCT (`tactics.lines.c6_vct`: single-threat turns
as well, budgets 200, 2,000, 20,000 unless given): the losing turn is the loser's turn before
the winner's first VCT, and a saving turn one of its turns within two cells of the stones
after which the winner has none (`c6_holding.vct_holding_turn`, proposed at 2,000 nodes and
confirmed at the largest budget; a partial search: a turn with a stone further out is not
tried).

    python -m pipeline.tools.c6_loss_audit --colour white --solver vct \\
        reports/runs/connect6-19x19-defence/matches/gen-0078-vs-gen-0058-80-screened.json"""

from __future__ import annotations

import argparse
import re
from collections import Counter

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.runtime.pipe import run_main
from pipeline.tactics.lines.c6_holding import PROPOSE_NODES, leaves_vcf, vct_holding_turn
from pipeline.tactics.lines.solve import prove, solve_opponent_vcf
from pipeline.tools._lost_games import add_match_arguments, lost_games, print_counts
from pipeline.tools.c6_no_blunder import safe_turn

BUDGETS = (200, 2_000, 20_000, 200_000)
VCT_BUDGETS = (200, 2_000, 20_000)  # a VCT search costs more a node; 20,000 takes ~0.5 s
FOUND_AT = re.compile(r"at move (\d+)")


def starts_turn(ply: int) -> bool:
    """Whether a turn starts at `ply` (Connect6: 0, 1, 3, 5, ...)."""
    return ply == 0 or stones_left_in_turn(ply) == 2


def vcf_budget(state: GameState, budgets: tuple[int, ...], solver: str = "vcf") -> tuple[int, int] | None:
    """The smallest budget at which the mover has a VCF (or with `solver` "vct" a VCT), and
    its length in turns."""
    for budget in budgets:
        proof = prove(state, solver, budget)
        if proof is not None:
            return budget, proof.attacker_moves(state.spec, state.ply)
    return None


def audit_game(spec: GameSpec, record: dict, loser: str, budgets: tuple[int, ...], solver: str = "vcf") -> dict:
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
        seen = vcf_budget(state, budgets, solver)
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
    saving = None
    if solver == "vct":
        propose = min(PROPOSE_NODES, budgets[-1])
        held = vct_holding_turn(state, budget=propose, confirm=budgets[-1])
        saving = None if held.turn is None else (propose, held.turn)
        found: dict = {"tried": held.tried}
    else:
        found = {"threatened": solve_opponent_vcf(state, budget=budgets[-1])[0] is not None}
        for b in budgets:  # the cheap budgets propose, the largest confirms
            turn = safe_turn(state, b)
            if turn is not None and not leaves_vcf(state, tuple(a for a in turn if a >= 0), budgets[-1]):
                saving = (b, turn)
                break
    row.update(losing_ply=losing, vcf_ply=start, vcf_turns=turns, vcf_budget=budget, saving=saving, **found)
    return row


def describe(spec: GameSpec, row: dict, budgets: tuple[int, ...], solver: str = "vcf") -> str:
    kind = solver.upper()
    head = f"game {row['game']:>3} (lost as {row['loser_colour']}, {row['plies']} plies):"
    if row["losing_ply"] is None:
        return f"{head} no {kind} for the winner at any budget before its win"
    mid = "" if starts_turn(row["vcf_ply"]) else f" from the winner's second stone (ply {row['vcf_ply']})"
    saving = "none found"
    if row["saving"] is not None:
        b, (x, y) = row["saving"]
        stones = spec.action_name(x) + ("" if y < 0 else " " + spec.action_name(y))
        saving = f"{stones} (found at {b:,}, none left at {budgets[-1]:,})"
    if solver == "vct":
        before = f"turns tried {row['tried']:,} (within two cells of the stones)"
    else:
        before = f"before it, a VCF had the loser passed: {'yes' if row['threatened'] else 'no'}"
    return (
        f"{head} the turn at ply {row['losing_ply']} left a {kind} in {row['vcf_turns']}{mid} "
        f"(seen at {row['vcf_budget']:,} nodes); {before}; a turn that leaves none: {saving}"
    )


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_match_arguments(parser, "Connect6")
    parser.add_argument("--solver", choices=["vcf", "vct"], default="vcf", help="the winner's forced wins looked for")
    parser.add_argument(
        "--budgets", type=int, nargs="+", default=None, help="solver budgets (vcf: 200 ... 200,000; vct: to 20,000)"
    )
    args = parser.parse_args(argv)
    if args.budgets is not None and min(args.budgets) < 1:
        parser.error("--budgets: node budgets are positive")
    spec, loser, records = lost_games(parser, args, "connect6", "Connect6")
    budgets = tuple(sorted(args.budgets or (VCT_BUDGETS if args.solver == "vct" else BUDGETS)))
    counts: Counter[str] = Counter()
    for record in records:
        row = audit_game(spec, record, loser, budgets, args.solver)
        print(describe(spec, row, budgets, args.solver), flush=True)
        counts["games"] += 1
        if row["losing_ply"] is not None:
            counts[f"{args.solver} seen at {row['vcf_budget']}"] += 1
            counts["saving turn found" if row["saving"] else "no saving turn found"] += 1
            if args.solver == "vcf":
                counts["threatened before the losing turn"] += row["threatened"]
    print_counts(counts, loser, args.colour)
    return dict(counts)


if __name__ == "__main__":
    run_main(main)
