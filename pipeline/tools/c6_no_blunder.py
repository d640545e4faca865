"""Does the Connect6 search walk into the opponent's VCF? (issue 39, the 1,000-position
target.) Positions at the start of a turn where the player to move has no VCF of its own,
the opponent would win by one if the mover passed (so a turn away from the threats loses),
and some turn leaves the opponent none (found by trying turns: the first stone among the
opponent's proof-tree cells, the second among those after it). Each is searched for both
stones at 200 simulations, tactics on and, for contrast, off; a blunder is a turn after
which the opponent has a VCF within the check's budget (RESULTS.md, "the Connect6 defence"),
counted apart when the VCF is within the root guard's budget (`search.tactics_root_nodes`:
the most nodes the search gives one solver call, so a deeper VCF is one it cannot see).

    python -m pipeline.tools.c6_no_blunder --count 1000            # build, then search
    python -m pipeline.tools.c6_no_blunder --write tests/tactics/connect6_defence.txt
    python -m pipeline.tools.c6_no_blunder --suite tests/tactics/connect6_defence.txt

The positions come from games of random stones placed near the stones already on the
board (each turn's stones within two cells of one), from a few central stones: threats
come up every few turns. Uniform priors by default; `--model` searches with a net."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.runtime.pipe import run_main
from pipeline.search.evaluator import Evaluator, UniformEvaluator
from pipeline.search.mcts import SearchConfig
from pipeline.tactics.lines.c6_holding import leaves_vcf
from pipeline.tactics.lines.solve import solve_opponent_vcf, solve_vcf
from pipeline.tools.no_blunder import chosen_moves

SPEC = "connect6:19"
HEADER = """# Connect6 19x19 defence positions (issue 39): spec | moves in play order | a turn that leaves no VCF
# Start-of-turn positions (two stones to place) of random games played near the stones on the board: the
# mover has no VCF within {budget} nodes, the opponent has one if the mover passes, and the turn after the
# second bar leaves the opponent none within {budget} nodes. Built with
#   python -m pipeline.tools.c6_no_blunder --count {count} --seed {seed} --write PATH
"""


def safe_turn(state: GameState, budget: int, tries: int = 400) -> tuple[int, int] | None:
    """A turn after which the opponent has no VCF within `budget` nodes, tried with its
    first stone on the opponent's proof-tree cells (where every refutation that is not a
    threat of the mover's own has a stone) and its second on those left after the first."""
    for a in solve_opponent_vcf(state, budget=budget)[1][:40]:
        mid = state.copy().apply(int(a))
        if mid.is_terminal:
            return (int(a), -1)
        proof, second = solve_opponent_vcf(mid, budget=budget)
        if proof is None:
            # Nothing more to meet: any second stone nearby; try the first few.
            second = np.flatnonzero(mid.legal_mask())
        for b in second[:20]:
            tries -= 1
            if tries < 0:
                return None
            if not leaves_vcf(mid, (int(b),), budget):
                return (int(a), int(b))
    return None


def random_game(spec: GameSpec, rng: np.random.Generator, max_turns: int) -> list[int]:
    """Moves of a game whose stones go near the stones on the board."""
    state = spec.new_game()
    moves: list[int] = []
    centre = spec.height // 2
    for _ in range(int(rng.integers(1, 4))):
        a = int((centre + rng.integers(-2, 3)) * spec.width + centre + rng.integers(-2, 3))
        if state.legal_mask()[a] and not state.is_terminal:
            state.apply(a)
            moves.append(a)
    while not state.is_terminal and len(moves) < max_turns * 2:
        stones = np.array(moves)
        r, c = np.divmod(stones, spec.width)
        legal = state.legal_actions()
        lr, lc = np.divmod(legal, spec.width)
        near = (np.abs(lr[:, None] - r[None, :]) <= 2) & (np.abs(lc[:, None] - c[None, :]) <= 2)
        pool = legal[near.any(axis=1)]
        a = int(rng.choice(pool if len(pool) else legal))
        state.apply(a)
        moves.append(a)
    return moves


def build(count: int, seed: int, budget: int, log=print) -> list[tuple[GameState, tuple[int, int]]]:
    """`count` positions (at most two from one game) and a safe turn of each."""
    spec = GameSpec.parse(SPEC)
    out: list[tuple[GameState, tuple[int, int]]] = []
    game = 0
    t0 = time.perf_counter()
    while len(out) < count:
        rng = np.random.default_rng(seed + game)
        game += 1
        moves = random_game(spec, rng, max_turns=40)
        state = spec.new_game()
        taken = 0
        for a in moves:
            if taken >= 2 or len(out) >= count:
                break
            state.apply(a)
            if state.is_terminal or state.ply % 2 == 0:
                continue  # a turn starts at an odd ply (the first turn is one stone)
            if solve_vcf(state, budget=budget) is not None:
                continue
            proof, _ = solve_opponent_vcf(state, budget=budget)
            if proof is None:
                continue
            turn = safe_turn(state, budget)
            if turn is None:
                continue
            out.append((state.copy(), turn))
            taken += 1
        if game % 50 == 0:
            log(f"  {game} games: {len(out)} positions ({time.perf_counter() - t0:.0f} s)")
    return out


def write(path: Path, rows: list[tuple[GameState, tuple[int, int]]], count: int, seed: int, budget: int) -> None:
    spec = GameSpec.parse(SPEC)
    lines = [HEADER.format(budget=budget, count=count, seed=seed)]
    for state, turn in rows:
        moves = " ".join(spec.action_name(a) for a in state.history)
        safe = " ".join(spec.action_name(a) for a in turn if a >= 0)
        lines.append(f"{SPEC} | {moves} | {safe}\n")
    path.write_text("".join(lines))


def load(path: Path) -> list[GameState]:
    """The positions of a suite file."""
    states = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec_text, moves, _ = (part.strip() for part in line.split("|"))
        spec = GameSpec.parse(spec_text)
        state = spec.new_game()
        for name in moves.split():
            state.apply(spec.parse_action(name))
        states.append(state)
    return states


def chosen_turns(states: list[GameState], config: SearchConfig, evaluator: Evaluator) -> list[tuple[int, int]]:
    """Both stones of the turn the search (no noise) plays in each position: one search a
    stone, the second from the position after the first (-1 when the first ended the game)."""
    spec = states[0].spec
    first = chosen_moves(spec, states, config, evaluator)
    mids = [s.copy().apply(a) for s, a in zip(states, first, strict=True)]
    live = [i for i, m in enumerate(mids) if not m.is_terminal]
    second = dict(zip(live, chosen_moves(spec, [mids[i] for i in live], config, evaluator), strict=True))
    return [(a, second.get(i, -1)) for i, a in enumerate(first)]


def blunders(
    states: list[GameState],
    mode: str,
    simulations: int,
    check_budget: int,
    evaluator: Evaluator | None = None,
    root_budget: int | None = None,
) -> tuple[list[int], list[int], float]:
    """Indices of the positions where the search's turn leaves the opponent a VCF within
    `check_budget` nodes, those of them where it does within the root guard's budget
    (`search.tactics_root_nodes`, the most the search itself looks), and the seconds of
    search a position."""
    spec = states[0].spec
    config = SearchConfig().model_copy(update={"simulations": simulations, "tactics": mode})
    root_budget = config.tactics_root_nodes if root_budget is None else root_budget
    t0 = time.perf_counter()
    turns = chosen_turns(states, config, evaluator or UniformEvaluator(spec.num_actions))
    seconds = (time.perf_counter() - t0) / max(len(states), 1)
    lost = [i for i, (s, t) in enumerate(zip(states, turns, strict=True)) if leaves_vcf(s, t, check_budget)]
    seen = [i for i in lost if leaves_vcf(states[i], turns[i], min(root_budget, check_budget))]
    return lost, seen, seconds


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, help="positions to build")
    parser.add_argument("--suite", type=Path, help="search the positions of this file instead of building")
    parser.add_argument("--write", type=Path, help="write the built positions here (and search nothing)")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--budget", type=int, default=20000, help="the builder's and the check's solver budget")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--no-off", action="store_true", help="skip the tactics-off contrast")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count takes at least 1")
    if args.suite:
        states = load(args.suite)
        print(f"{len(states)} positions from {args.suite}")
    else:
        t0 = time.perf_counter()
        rows = build(args.count, args.seed, args.budget)
        print(f"{len(rows)} positions built in {time.perf_counter() - t0:.0f} s")
        if args.write:
            write(args.write, rows, args.count, args.seed, args.budget)
            print(f"-> {args.write}")
            return {}
        states = [s for s, _ in rows]
    result = {}
    for mode in ["vcf"] if args.no_off else ["vcf", "off"]:
        lost, seen, seconds = blunders(states, mode, args.simulations, args.budget)
        result[mode] = len(lost)
        told = f"{len(lost)} of {len(states)} turns leave the opponent a VCF"
        root = SearchConfig().tactics_root_nodes
        print(f"tactics {mode:>3}: {told} ({len(seen)} within the root's {root} nodes); {seconds:.2f} s a position")
        for i in lost[:10] if mode != "off" else lost[:3]:
            print("    " + " ".join(states[i].spec.action_name(a) for a in states[i].history))
    return result


if __name__ == "__main__":
    run_main(main)
