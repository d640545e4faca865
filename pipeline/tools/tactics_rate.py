"""What the threat solvers cost the search and self-play (Gomoku and Connect6): rates with
`search.tactics` off and on, the modes alternating so that a shared machine's load falls on
them alike (RESULTS.md: "tactics for the k-in-a-row games", "the tree's tactical verdict
made cheap"). `zero bench` measures the same ratio with a fresh net (`tactics_on_over_off`);
this tool runs the shipped nets and any modes and solver budgets.

    python -m pipeline.tools.tactics_rate search
    python -m pipeline.tools.tactics_rate selfplay --games 12 --rounds 2 [--split]
    python -m pipeline.tools.tactics_rate selfplay --spec gomoku:15 --model models/pretrained/gomoku-15x15.pt \\
        --games 4 --simulations 50 --rounds 2

`search`: simulations/s of a shipped net (default 15x15 Gomoku and 19x19 Connect6) at 400
simulations on the empty board and positions of 10, 20 and 30 stones near the centre, a
fresh tree each; each mode runs twice, alternating, the first run including numba's
compile.

`selfplay`: positions/s of self-play (default Gomoku 8x8, the shipped 8x8 net, torch on
one thread, 25 games in lockstep at 200 simulations, seed 1), the modes alternating round
by round; the last line gives each mode's rate over all its rounds and the ratio to the
first mode. `--modes` takes `MODE` or `MODE:NODES` (solver budget). `--split` also times
the network and the compiled expansion (backup and tactics included) of each round."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch

from pipeline.games.base import GameSpec, GameState
from pipeline.nets.evaluator import NetEvaluator
from pipeline.players.factory import make_player
from pipeline.players.models import load_model
from pipeline.search import mcts
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games

CASES = [("models/pretrained/gomoku-15x15.pt", "gomoku:15"), ("models/pretrained/connect6-19x19.pt", "connect6:19")]
MODES = ("off", "vcf", "vct")


def near_centre(spec: GameSpec, plies: int, rng: np.random.Generator) -> GameState:
    """A position of `plies` random stones within 3 cells of the centre, nobody won."""
    state = spec.new_game()
    r0, c0 = spec.height // 2, spec.width // 2
    while state.ply < plies:
        legal = state.legal_actions()
        r, c = np.divmod(legal, spec.width)
        trial = state.copy().apply(int(rng.choice(legal[(abs(r - r0) <= 3) & (abs(c - c0) <= 3)])))
        if not trial.is_terminal:
            state = trial
    return state


def search_rates(
    cases: list[tuple[str, str]], simulations: int, stones: list[int], modes: list[str], passes: int
) -> dict[tuple[str, str], list[float]]:
    """(spec, mode) -> simulations/s of each pass; printed as they come."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    out: dict[tuple[str, str], list[float]] = {}
    for model, text in cases:
        spec = GameSpec.parse(text)
        positions = [spec.new_game()] + [near_centre(spec, p, rng) for p in stones]
        for mode in modes * passes:
            player = make_player(model, spec, SearchConfig(simulations=simulations, tactics=mode))
            sims = seconds = 0.0
            for state in positions:
                thought = player.think(state.copy(), budget=simulations)
                player.search = None  # type: ignore[attr-defined]  # a fresh tree for every position
                sims += thought.simulations
                seconds += thought.seconds
            rate = sims / max(seconds, 1e-9)
            out.setdefault((text, mode), []).append(rate)
            print(f"{text:12s} tactics={mode:3s} {rate:8.0f} simulations/s", flush=True)
    return out


def selfplay_rates(
    spec_text: str,
    model: str,
    games: int,
    simulations: int,
    rounds: int,
    modes: list[tuple[str, int]],
    split: bool,
) -> dict[tuple[str, int], float]:
    """(mode, solver nodes) -> positions/s over all rounds; each round printed as it ends."""
    torch.set_num_threads(1)
    spec = GameSpec.parse(spec_text)
    net = NetEvaluator(load_model(model, spec), threads=1)
    spent = {"network": 0.0, "expansion": 0.0}

    def timed(key: str, fn: Callable) -> Callable:
        def call(*a, **k):
            start = time.perf_counter()
            out = fn(*a, **k)
            spent[key] += time.perf_counter() - start
            return out

        return call

    evaluator = timed("network", net) if split else net
    expansion = mcts.expand_and_backup
    if split:  # the search calls it through the module: time every call
        mcts.expand_and_backup = timed("expansion", expansion)
    try:
        totals = {m: [0, 0.0] for m in modes}
        for mode, nodes in modes:  # warm up: load the compiled code before anything is timed
            search = SearchConfig(simulations=8, tactics=mode, tactics_nodes=nodes)
            play_games(spec, evaluator, 1, SelfPlayConfig(parallel_games=1, search=search), seed=0)
        for r in range(rounds):
            for mode, nodes in modes:
                search = SearchConfig(simulations=simulations, tactics=mode, tactics_nodes=nodes)
                config = SelfPlayConfig(parallel_games=games, search=search)
                spent.update(network=0.0, expansion=0.0)
                start = time.perf_counter()
                _, stats = play_games(spec, evaluator, games, config, seed=1)
                seconds = time.perf_counter() - start
                totals[(mode, nodes)][0] += stats.positions
                totals[(mode, nodes)][1] += seconds
                line = f"round {r}: tactics={mode:3s} nodes={nodes:3d} {stats.positions / seconds:6.1f} positions/s"
                if split:
                    per_sim = spent["expansion"] / max(stats.simulations, 1) * 1e6
                    line += (
                        f"; network {spent['network'] / seconds:.0%}, expansion {spent['expansion'] / seconds:.0%}"
                        f" ({per_sim:.1f} us a simulation)"
                    )
                print(line, flush=True)
    finally:
        mcts.expand_and_backup = expansion
    rates = {m: p / s for m, (p, s) in totals.items()}
    base = rates[modes[0]]
    print("all rounds: " + ", ".join(f"{m}:{n} {rate:.1f} ({rate / base:.2f}x)" for (m, n), rate in rates.items()))
    return rates


def parse_modes(text: str) -> list[tuple[str, int]]:
    """`off,vcf:50` -> [("off", 200), ("vcf", 50)]: MODE or MODE:NODES (default 200 nodes)."""
    out = []
    for item in text.split(","):
        mode, _, nodes = item.partition(":")
        if mode not in MODES or (nodes and not nodes.isdigit()):
            raise ValueError(f"{item!r}: a mode is one of {', '.join(MODES)}, optionally :NODES (vcf:50)")
        out.append((mode, int(nodes) if nodes else 200))
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("search", help="search simulations/s, tactics off and on")
    s.add_argument(
        "--case", nargs=2, action="append", metavar=("MODEL", "SPEC"), help="a net and its game (repeatable)"
    )
    s.add_argument("--simulations", type=int, default=400)
    s.add_argument("--stones", type=int, nargs="*", default=[10, 20, 30], help="random positions beside the empty one")
    s.add_argument("--modes", default="off,vcf", help="comma-separated, alternating")
    s.add_argument("--passes", type=int, default=2, help="runs of each mode")
    p = sub.add_parser("selfplay", help="self-play positions/s, tactics off and on")
    p.add_argument("--spec", default="gomoku:8")
    p.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    p.add_argument("--games", type=int, default=25, help="games per round, all in lockstep")
    p.add_argument("--simulations", type=int, default=200)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--modes", default="off,vcf", help="comma-separated MODE or MODE:NODES")
    p.add_argument("--split", action="store_true", help="time the network and the expansion too")
    args = parser.parse_args(argv)
    try:
        modes = parse_modes(args.modes)
    except ValueError as error:
        parser.error(str(error))
    if args.command == "search":
        if args.passes < 1:
            parser.error("--passes takes at least 1")
        cases = [tuple(c) for c in args.case] if args.case else CASES
        return search_rates(cases, args.simulations, args.stones, [m for m, _ in modes], args.passes)  # type: ignore[arg-type]
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds take at least 1")
    return selfplay_rates(args.spec, args.model, args.games, args.simulations, args.rounds, modes, args.split)


if __name__ == "__main__":
    main()
