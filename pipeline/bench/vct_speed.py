"""The Connect6 VCT's cost in the tree (issue 79: simulations/s with `search.tactics: vct`
at 0.6x those with `vcf` or better, on 19x19): the search with the shipped net, `--games`
games in lockstep, from positions of the defence suite (tests/tactics/connect6_defence.txt:
middle games where the opponent threatens, where the solvers work hardest) and of the
opening suite, each position searched with `vcf` and with `vct` back to back (and without
tactics), the modes' total simulations over their total time.

    python -m pipeline.bench.vct_speed [--model models/pretrained/connect6-19x19.pt]
        [--positions 12] [--games 8] [--simulations 200] [--tactics-nodes 200] [--root-nodes 5000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from pipeline.games.base import GameSpec, GameState
from pipeline.nets.checkpoint import load_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig

MODEL = Path("models/pretrained/connect6-19x19.pt")
DEFENCE = Path("tests/tactics/connect6_defence.txt")
MODES = ("off", "vcf", "vct")


def suite_positions(spec: GameSpec, path: Path, count: int) -> list[GameState]:
    """The first `count` positions of a `spec | moves | ...` suite file."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        state = spec.new_game()
        for move in line.split("|")[1].split():
            state.apply(spec.parse_action(move))
        out.append(state)
        if len(out) == count:
            break
    return out


def search_seconds(
    spec: GameSpec, state: GameState, config: SearchConfig, evaluator: NetEvaluator, games: int
) -> float:
    search = BatchedMCTS(spec, games, config, seed=0)
    for g in range(games):
        search.reset(g, state.array)
    start = time.perf_counter()
    search.search(evaluator, noise=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--positions", type=int, default=12, help="positions of the defence suite")
    parser.add_argument("--games", type=int, default=8, help="games in lockstep")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--tactics-nodes", type=int, default=200, help="the solvers' budget at each expansion")
    parser.add_argument(
        "--root-nodes", type=int, default=5000, help="the root guard's budget (search.tactics_root_nodes; 0: off)"
    )
    args = parser.parse_args(argv)
    if not args.model.exists():
        parser.error(f"no model at {args.model}")
    spec = GameSpec.parse("connect6:19x19")
    torch.set_num_threads(1)
    net, _ = load_checkpoint(args.model, spec)
    net.eval()
    evaluator = NetEvaluator(net, threads=1)
    positions = suite_positions(spec, DEFENCE, args.positions)
    base = SearchConfig(
        simulations=args.simulations, tactics_nodes=args.tactics_nodes, tactics_root_nodes=args.root_nodes
    )
    configs = {mode: base.model_copy(update={"tactics": mode}) for mode in MODES}
    for mode in MODES:  # compile and load before the clock runs
        search_seconds(spec, positions[0], configs[mode].model_copy(update={"simulations": 16}), evaluator, 2)
    seconds = dict.fromkeys(MODES, 0.0)
    for state in positions:
        for mode in MODES:
            seconds[mode] += search_seconds(spec, state, configs[mode], evaluator, args.games)
    sims = len(positions) * args.games * args.simulations
    table = Table(
        title=f"Connect6 19x19 search, {len(positions)} defence positions x {args.games} games, "
        f"{args.model.name}, root guard {args.root_nodes} nodes"
    )
    for column in ("tactics", "sims/s", "vs vcf"):
        table.add_column(column, justify="right")
    for mode in MODES:
        table.add_row(mode, f"{sims / seconds[mode]:.0f}", f"{seconds['vcf'] / seconds[mode]:.2f}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
