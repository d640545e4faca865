"""Does the search walk into a VCF? Positions where the player to move faces a four, or a
VCF that one of its moves refutes (`pipeline.tactics.lines.threatened`; `--fours` of them facing
a four, the rest the first threat of a random game, mostly a VCF), searched at 200
simulations with tactics on and, for contrast, off; a blunder is a move after which the
opponent wins by VCF (checked by the solver at a larger budget than the generator's)
(RESULTS.md: "tactics shown to the user", and the root guard's table).

    python -m pipeline.tools.no_blunder --count 1000 [--no-off] [--model models/pretrained/gomoku-15x15.pt ...]

Uniform priors by default; `--model` (repeatable) searches with a shipped net on the
games it plays (uniform priors elsewhere). The count is split evenly over `--spec`s
(default Gomoku 15x15 freestyle and exact five). Connect6 is not offered: the generator
draws threats of single stones, while a Connect6 turn is two.

A blunder in a position where every move loses to a proof at the check's budget is
unavoidable, and is counted apart: the generator's cheaper check thought some move
refuted the threat, but that move may lose another way (a four whose forced block starts
a threat the mover cannot meet). Every position with a blunder under tactics is listed."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.players.discovery import can_play, checkpoint_reach
from pipeline.players.models import load_model
from pipeline.players.search import player_evaluator
from pipeline.runtime.pipe import run_main
from pipeline.search.evaluator import Evaluator, UniformEvaluator
from pipeline.search.forced import LOSS, TACTICS_VCF, tactical_verdict
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.lines.solve import DEFAULT_DEPTH, PV_CAPACITY, solve_vcf, threat_defences
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.threatened import threatened_positions

DEFAULT_SPECS = ["gomoku:15", "gomoku:15x15:k5:exact"]
CHUNK = 50  # positions searched in lockstep (one evaluator call per step for all)


def loses_to_vcf(state: GameState, action: int, budget: int) -> bool:
    """Whether the opponent has a VCF after `action` (a win on the board is no loss)."""
    after = state.copy().apply(action)
    return not after.is_terminal and solve_vcf(after, budget=budget) is not None


def lost_after(state: GameState, action: int, budget: int) -> bool:
    """Whether `action` loses to a proof: the opponent has a VCF after it, or `action` made
    a four whose forced block leaves a position the tree's solvers prove lost (the block
    can start a threat the mover cannot meet: no VCF right after `action`, yet lost)."""
    if loses_to_vcf(state, action, budget):
        return True
    after = state.copy().apply(action)
    need, cells = threat_defences(after)
    if after.is_terminal or need != 1:
        return False
    blocked = after.apply(int(cells[0]))
    if blocked.is_terminal:
        return blocked.winner is not None and blocked.winner != state.current_player
    mask = blocked.legal_mask().copy()
    pv = np.zeros(PV_CAPACITY, dtype=np.int64)
    verdict, _ = tactical_verdict(blocked.array, mask, TACTICS_VCF, budget, DEFAULT_DEPTH, new_table(), new_table(), pv)
    return verdict == LOSS


def refutable(state: GameState, budget: int) -> bool:
    """Some move survives `lost_after` at `budget` (the defences of a four, or every move
    when the threat is a VCF)."""
    need, cells = threat_defences(state)
    moves = cells if need == 1 else state.legal_actions()
    return any(not lost_after(state, int(a), budget) for a in moves)


def chosen_moves(spec: GameSpec, states: list[GameState], config: SearchConfig, evaluator: Evaluator) -> list[int]:
    """The move a player (no noise, a proven win taken) makes in each position."""
    moves: list[int] = []
    for start in range(0, len(states), CHUNK):
        chunk = states[start : start + CHUNK]
        search = BatchedMCTS(spec, len(chunk), config)
        for g, state in enumerate(chunk):
            search.reset(g, state.array.copy())
        search.search(evaluator, noise=False)
        moves += [search.tree.best_action(g) for g in range(len(chunk))]
    return moves


def evaluator_for(spec: GameSpec, models: Iterable[Path]) -> tuple[Evaluator, str]:
    """The first model that plays `spec`, else uniform priors."""
    for path in models:
        if can_play(*checkpoint_reach(path), spec):
            return player_evaluator(load_model(path, spec)), path.name
    return UniformEvaluator(spec.num_actions), "uniform priors"


def main(argv: list[str] | None = None) -> dict[str, list[int]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, help="positions in all, split over the specs")
    parser.add_argument(
        "--spec", action="append", help=f"game spec (repeatable; default {' and '.join(DEFAULT_SPECS)})"
    )
    parser.add_argument("--model", action="append", type=Path, default=[], help="checkpoint (repeatable)")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--tactics-nodes", type=int, default=None, help="solver budget in the tree (default params')")
    parser.add_argument("--budget", type=int, default=2000, help="the generator's solver budget")
    parser.add_argument("--check-budget", type=int, default=20000, help="the blunder check's solver budget")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fours", type=float, default=0.25, help="share of positions facing a four")
    parser.add_argument("--no-off", action="store_true", help="skip the tactics-off contrast")
    args = parser.parse_args(argv)
    specs = [GameSpec.parse(s) for s in (args.spec or DEFAULT_SPECS)]
    if any(s.game != "gomoku" for s in specs):
        parser.error("the generator draws Gomoku threats only")
    shares = [args.count // len(specs) + (i < args.count % len(specs)) for i in range(len(specs))]
    modes = ["vcf"] if args.no_off else ["vcf", "off"]
    if args.count < 1:
        parser.error("--count takes at least 1")
    total = {m: [0, 0] for m in modes}  # blunders, unavoidable
    print(f"{args.simulations} simulations a move; blunder check: opponent's VCF within {args.check_budget} nodes")
    for i, (spec, count) in enumerate(zip(specs, shares, strict=True)):
        evaluator, source = evaluator_for(spec, args.model)
        t0 = time.perf_counter()
        # Each spec its own seed: the same random games would give the same positions.
        fours = round(count * args.fours)
        seed = args.seed + 1000 * i
        states = list(threatened_positions(spec, count - fours, seed=seed, budget=args.budget))
        states += threatened_positions(spec, fours, seed=seed + 1, budget=args.budget, four=True)
        made = time.perf_counter() - t0
        fours = sum(threat_defences(s)[0] == 1 for s in states)  # the first kind may hold some too
        print(
            f"{spec} ({source}): {len(states)} positions ({fours} facing a four, {len(states) - fours} a VCF) "
            f"in {made:.0f} s"
        )
        for mode in modes:
            update = {"simulations": args.simulations, "tactics": mode}
            if args.tactics_nodes:
                update["tactics_nodes"] = args.tactics_nodes
            config = SearchConfig().model_copy(update=update)
            t0 = time.perf_counter()
            moves = chosen_moves(spec, states, config, evaluator)
            searched = time.perf_counter() - t0
            lost = [s for s, a in zip(states, moves, strict=True) if loses_to_vcf(s, a, args.check_budget)]
            unavoidable = sum(not refutable(s, args.check_budget) for s in lost)
            total[mode][0] += len(lost)
            total[mode][1] += unavoidable
            print(
                f"  tactics {mode:>3}: {len(lost)} blunders of {len(states)} ({unavoidable} in positions lost "
                f"whatever the move); search {searched / max(len(states), 1) * 1e3:.0f} ms a position"
            )
            for state in lost if mode != "off" else lost[:3]:
                names = " ".join(spec.action_name(a) for a in state.history)
                print(f"    {names}")
    told = "; ".join(f"tactics {m}: {b} blunders ({u} unavoidable)" for m, (b, u) in total.items())
    print(f"all {sum(shares)} positions: {told}")
    return total


if __name__ == "__main__":
    run_main(main)
