"""The threat solvers, measured (issue 39; `zero bench --tactics`): the Connect6
threat-space search on the position suite tests/tactics/connect6_vcf.txt, each claimed win
replayed against the rules, then the line solvers' suite tests/tactics/positions.txt (VCF
and VCT) and random middle games of Gomoku 15x15 (freestyle, exact five) and Connect6 19x19.

    zero bench --tactics [--quick]
    python -m pipeline.bench.tactics [--budget 2000] [--limit-ms 20] [--repeats 3] [--random 100]
                                     [--every N] [--no-lines]
    python -m pipeline.bench.tactics suite [--games 300] [--net-games 60] [--out FILE]

The first two forms print the figures: per Connect6 label, how many positions the search
(`c6_search.c6_solve` through `vcf_into`, the tree's call: a scratch and a table kept, the
table cleared before each position) solves within the node budget and within the time
limit, the mean and largest times and node counts, and the claims on positions without a
VCF. Times are the searching thread's CPU time (`time.thread_time`: one core, whatever
else the machine runs), the least of `--repeats` runs. Every win claimed is replayed
move by move (`replay_c6`): at each defender turn the defender has no window of four, the
attacker's threats need both its stones (or more: then any reply loses), and every pair of
defender stones that stops them all is played out, its own proof found by the search and
replayed in turn; the line ends in the attacker's six by the rules. Then the VCF solver on
the line suite's VCF positions (solved within `--limit-ms`), the VCT solver on its VCF and
VCT ones, the no-VCF positions claimed (always 0), and per random set the wins found,
nodes/s and CPU ms a call. `zero bench --tactics --quick` takes every tenth Connect6
position, one run each and 10 random middle games a set.

The second form rebuilds the suite (hours on one core): games on connect6:19 between
classical players (and the shipped net against them), their start-of-turn positions
screened by the search at 20,000 nodes and the open ones labelled at 2,000,000, then a
stratified choice (see the suite's header; the suite of the tests was labelled by the
search before line tables, now tests/tactics/reference_pairs.py, which the package does
not import)."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import stones_left_in_turn

ROOT = Path(__file__).resolve().parents[2]
C6_SUITE = ROOT / "tests" / "tactics" / "connect6_vcf.txt"
LINE_SUITE = ROOT / "tests" / "tactics" / "positions.txt"
DEPTH = 12  # attacker turns the searches look ahead (the tree's default)
REPLAY_BUDGET = 200_000  # nodes for the proof of each other defender reply, when replaying
SCREEN_BUDGET = 20_000  # the suite: reference nodes for a first look at every position
LABEL_BUDGET = 2_000_000  # ... and for the positions the first look left open
NET = ROOT / "models" / "pretrained" / "connect6-19x19.pt"


@dataclass(frozen=True)
class C6Position:
    """One line of the Connect6 suite."""

    state: GameState
    label: str  # vcf, novcf, vcf-new (see the suite's header)
    turns: int  # the attacker turns of the labelling proof (0 for novcf)
    reference_nodes: int
    source: str


def load_c6_suite(path: Path = C6_SUITE) -> list[C6Position]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec_text, moves, label, turns, nodes, source = (x.strip() for x in line.split("|"))
        state = GameSpec.parse(spec_text).new_game()
        for move in moves.split():
            state.apply(move)
        out.append(C6Position(state, label, 0 if turns == "-" else int(turns), int(nodes), source))
    return out


# ---- the replay: a claimed win checked against the rules ------------------------------


def threat_windows(board: np.ndarray, height: int, width: int, value: int) -> list[frozenset[int]]:
    """The empty cells of every six-window holding four or more stones of `value` and none
    of the other player's (read cell by cell, plain Python)."""
    out = []
    other = 3 - value
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r0 in range(height):
            for c0 in range(width):
                if not (0 <= r0 + 5 * dr < height and 0 <= c0 + 5 * dc < width):
                    continue
                cells = [(r0 + i * dr) * width + c0 + i * dc for i in range(6)]
                values = [int(board[c]) for c in cells]
                if other not in values and values.count(value) >= 4:
                    out.append(frozenset(c for c, v in zip(cells, values, strict=True) if v == 0))
    return out


def stopping_pairs(windows: list[frozenset[int]]) -> tuple[int, list[tuple[int, int]]]:
    """(fewest stones that hit every window: 0, 1, 2 or 3 for three or more; every pair of
    cells that hits them all when that is 2), by brute force."""
    if not windows:
        return 0, []
    cells = sorted(set().union(*windows))
    if any(all(c in w for w in windows) for c in cells):
        return 1, []
    pairs = [(a, b) for a, b in combinations(cells, 2) if all(a in w or b in w for w in windows)]
    return (2, pairs) if pairs else (3, [])


def replay_c6(
    state: GameState, moves: list[int], prove: Callable[[GameState], list[int] | None], depth: int = 0
) -> str | None:
    """Check the Connect6 proof `moves` (the attacker to move in `state`) against the rules;
    None when it holds, else why not. At each defender turn: the defender cannot win this
    turn, the attacker's threats need two stones or more to stop, the proof's pair stops
    them (when two do) and so does every other pair, whose continuation `prove` finds and
    this replays in turn."""
    if depth > 40:
        return "proof tree too deep"
    s = state.copy()
    attacker = s.current_player
    av, dv = attacker + 1, 2 - attacker
    h, w = s.spec.height, s.spec.width
    for i, move in enumerate(moves):
        if s.current_player != attacker and stones_left_in_turn(s.ply) == 2:
            board = s.board().reshape(-1)
            if threat_windows(board, h, w, dv):
                return f"move {i}: the defender can win this turn"
            need, pairs = stopping_pairs(threat_windows(board, h, w, av))
            if need < 2:
                return f"move {i}: the defender is not forced ({need} stone(s) stop the threats)"
            if i + 1 >= len(moves):
                return "the proof ends at a defender turn"
            if need == 2:
                line = {move, moves[i + 1]}
                if not any(set(p) == line for p in pairs):
                    return f"move {i}: the proof's pair does not stop every threat"
                for a, b in pairs:
                    if {a, b} == line:
                        continue
                    other = s.copy().apply(a).apply(b)
                    if other.is_terminal:
                        return f"move {i}: the reply {a},{b} ends the game"
                    sub = prove(other)
                    if sub is None:
                        return f"move {i}: no proof after the reply {a},{b}"
                    why = replay_c6(other, sub, prove, depth + 1)
                    if why is not None:
                        return f"move {i}, reply {a},{b}: {why}"
        if s.board().reshape(-1)[move] != 0:
            return f"move {i} is on a stone"
        s.apply(move)
        if i < len(moves) - 1 and s.is_terminal:
            return f"the game ended at move {i}, inside the proof"
    if s.winner != attacker:
        return "the proof does not end in the attacker's six"
    return None


# ---- Connect6 figures -----------------------------------------------------------------


@dataclass
class Solved:
    result: int
    nodes: int
    ms: float
    moves: list[int]


class C6Solver:
    """A Connect6 search as the tree calls it: one scratch and one table, cleared per call."""

    def __init__(self, spec: GameSpec, depth: int = DEPTH, bits: int = 16):
        from pipeline.tactics.lines.c6_search import c6_solve
        from pipeline.tactics.lines.scratch import scratch_for
        from pipeline.tactics.lines.table import new_table

        self.solve = c6_solve
        self.depth = depth
        self.scratch = scratch_for(spec.new_game().array, depth)
        self.table = new_table(bits)
        self.pv = np.zeros(512, dtype=np.int64)

    def __call__(self, state: GameState, budget: int, repeats: int = 1) -> Solved:
        best = float("inf")
        for _ in range(repeats):
            self.table[:] = 0
            t0 = time.thread_time()
            result, length, nodes = self.solve(
                state.array, np.int64(budget), np.int64(self.depth), self.table, self.pv, self.scratch
            )
            best = min(best, (time.thread_time() - t0) * 1e3)
        return Solved(int(result), int(nodes), best, [int(a) for a in self.pv[:length]] if result == 1 else [])

    def prover(self, budget: int = REPLAY_BUDGET) -> Callable[[GameState], list[int] | None]:
        def prove(state: GameState) -> list[int] | None:
            solved = self(state, budget)
            return solved.moves if solved.result == 1 else None

        return prove


def c6_figures(
    positions: list[C6Position], solver: C6Solver, budget: int, limit_ms: float, repeats: int, replay: bool
) -> dict[str, dict]:
    """Per label: positions, wins claimed, claimed within the time limit, false claims (a
    replay that fails), and the times and node counts."""
    prove = solver.prover()
    rows: dict[str, list] = defaultdict(list)
    for p in positions:
        solved = solver(p.state, budget, repeats)
        false = replay and solved.result == 1 and replay_c6(p.state, solved.moves, prove) is not None
        rows[p.label].append((solved.result, solved.nodes, solved.ms, false))
    out = {}
    for label, r in rows.items():
        won = np.array([x[0] for x in r])
        nodes = np.array([x[1] for x in r])
        ms = np.array([x[2] for x in r])
        out[label] = {
            "positions": len(r),
            "won": int(won.sum()),
            "won_in_time": int(((won == 1) & (ms <= limit_ms)).sum()),
            "false": int(sum(x[3] for x in r)),
            "mean_ms": float(ms.mean()),
            "max_ms": float(ms.max()),
            "mean_nodes": float(nodes.mean()),
            "max_nodes_won": int(nodes[won == 1].max()) if won.any() else 0,
        }
    return out


def opponent_figures(positions: list[C6Position], budget: int) -> dict:
    """`opponent_vcf_into` on the VCF positions seen from the defender (the same board with
    the defender to move): found, time, and marked cells holding every cell of the line."""
    from pipeline.tactics.lines.scratch import scratch_for
    from pipeline.tactics.lines.table import new_table
    from pipeline.tactics.lines.threats import null_move
    from pipeline.tactics.lines.vcf import opponent_vcf_into

    spec = positions[0].state.spec
    scratch = scratch_for(spec.new_game().array, DEPTH)
    table = new_table(16)
    pv = np.zeros(512, dtype=np.int64)
    cells = np.zeros(spec.cells, dtype=np.bool_)
    found, ms, marked, covered = 0, [], [], 0
    for p in positions:
        defender = p.state.array.copy()
        null_move(p.state.array, defender)
        table[:] = 0
        t0 = time.thread_time()
        result, length, _ = opponent_vcf_into(defender, np.int64(budget), np.int64(DEPTH), table, pv, cells, scratch)
        ms.append((time.thread_time() - t0) * 1e3)
        if result == 1:
            found += 1
            marked.append(int(cells.sum()))
            covered += bool(cells[pv[:length]].all())
    return {
        "positions": len(positions),
        "found": found,
        "line_marked": covered,
        "mean_marked": float(np.mean(marked)) if marked else 0.0,
        "mean_ms": float(np.mean(ms)),
        "max_ms": float(np.max(ms)),
    }


def print_c6(title: str, figures: dict[str, dict], budget: int, limit_ms: float) -> None:
    print(title)
    for label in ("vcf", "vcf-new", "novcf"):
        f = figures.get(label)
        if f is None:
            continue
        n = f["positions"]
        if label == "novcf":
            print(
                f"  novcf   {n:4d}: wins claimed {f['won']} (false {f['false']}); "
                f"mean {f['mean_ms']:.2f} ms, max {f['max_ms']:.1f} ms"
            )
            continue
        print(
            f"  {label:7s} {n:4d}: {f['won']} solved within {budget:,} nodes ({100 * f['won'] / n:.1f}%), "
            f"{f['won_in_time']} of them within {limit_ms:g} ms ({100 * f['won_in_time'] / n:.1f}%); "
            f"false wins {f['false']}; mean {f['mean_ms']:.2f} ms, max {f['max_ms']:.1f} ms; "
            f"nodes mean {f['mean_nodes']:.0f}, max of a win {f['max_nodes_won']}"
        )


# ---- the line solvers' suite and random middle games ----------------------------------

# (game, stones) of the random middle games: Gomoku 15x15 freestyle and exact five (VCF and
# VCT), Connect6 19x19 (VCF: double threats; no VCT there)
RANDOM_SETS = (("gomoku:15", 30), ("gomoku:15x15:k5:exact", 30), ("connect6:19", 31))


def load_line_suite(path: Path = LINE_SUITE) -> list[tuple[GameState, str]]:
    """(position, expected) for each line of the suite: vcf, vct, novcf or none."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec_text, black, white, expected, _ = (x.strip() for x in line.split("|"))
        state = GameSpec.parse(spec_text).new_game()
        stones = {0: black.split(), 1: white.split()}
        while stones[0] or stones[1]:
            state.apply(stones[state.current_player].pop(0))
        out.append((state, expected))
    return out


def _timed(solver, state: GameState, budget: int, depth: int, table: np.ndarray, repeats: int = 1):
    """(result, nodes, the least CPU ms of `repeats` calls), each call from an empty table."""
    pv = np.zeros(512, dtype=np.int64)
    best = float("inf")
    for _ in range(repeats):
        table[:] = 0
        t0 = time.thread_time()
        result, _, nodes = solver(state.array, np.int64(budget), np.int64(depth), table, pv)
        best = min(best, (time.thread_time() - t0) * 1e3)
    return int(result), int(nodes), best


def line_figures(budget: int, repeats: int, random_positions: int, limit_ms: float) -> None:
    """The VCF and VCT solvers (`vcf`, `vct`: the tree's calls) on tests/tactics/positions.txt
    and on random middle games of each of RANDOM_SETS: solved, CPU ms a call, nodes/s."""
    from pipeline.bench.search import centre_weighted
    from pipeline.tactics.lines.table import new_table
    from pipeline.tactics.lines.vcf import vcf
    from pipeline.tactics.lines.vct import vct

    table = new_table(14)
    suite = load_line_suite()
    for state, _ in suite[:2] + suite[-6:-5]:  # compile or load every kernel before the timings
        _timed(vcf, state, 100, 4, table)
        _timed(vct, state, 100, 4, table)
    wins = [s for s, e in suite if e == "vcf"]
    runs = [_timed(vcf, s, budget, 40, table, repeats) for s in wins]
    t = np.array([r[2] for r in runs])
    solved = sum(r[0] == 1 and r[2] <= limit_ms for r in runs)
    print(
        f"line suite ({LINE_SUITE.relative_to(ROOT)}), VCF budget {budget:,}: {solved}/{len(wins)} solved within "
        f"{limit_ms:g} ms; median {np.median(t):.3f} ms, max {t.max():.3f} ms"
    )
    cases = [s for s, e in suite if e in ("vcf", "vct")]
    runs = [_timed(vct, s, budget, 8, table) for s in cases]
    t = np.array([r[2] for r in runs])
    print(
        f"line suite, VCT depth 8: {sum(r[0] for r in runs)}/{len(cases)} solved; median {np.median(t):.3f} ms, "
        f"max {t.max():.3f} ms"
    )
    false = sum(_timed(vcf, s, budget, 40, table)[0] for s, e in suite if e in ("none", "novcf"))
    print(f"line suite, no-VCF positions claimed: {false}")
    rng = np.random.default_rng(0)
    for spec_text, stones in RANDOM_SETS:
        spec = GameSpec.parse(spec_text)
        states = [s for s in (centre_weighted(spec, rng, stones) for _ in range(random_positions)) if s is not None]
        for name, solver, depth in (("VCF", vcf, 40), ("VCT", vct, 8)):
            if (spec.game == "connect6" and name == "VCT") or not states:
                continue
            runs = [_timed(solver, s, budget, depth, table) for s in states]
            t = np.array([r[2] for r in runs])
            nodes = sum(r[1] for r in runs)
            print(
                f"{spec_text} random {stones}-stone positions ({len(states)}), {name}: {sum(r[0] for r in runs)} "
                f"wins, {nodes / max(t.sum(), 1e-9) * 1e3:,.0f} nodes/s, median {np.median(t):.2f} ms, "
                f"max {t.max():.2f} ms"
            )


# ---- the suite, rebuilt ---------------------------------------------------------------


def play_games(spec: GameSpec, games: int, seed: int, net_games: int, net_simulations: int = 100) -> list[dict]:
    """Games from a few random stones near the centre: classical:A against classical:B (A,
    B in 1..3 drawn per game), then the shipped net against classical:N, both colours."""
    from pipeline.players.classical import ClassicalPlayer

    out = []
    net = None
    for g in range(games + net_games):
        rng = np.random.default_rng(seed + g)
        depths = [int(x) for x in rng.integers(1, 4, size=2)]
        if g < games:
            players = [ClassicalPlayer(depths[0], seed=seed + g), ClassicalPlayer(depths[1], seed=seed + g + 7)]
            names = [f"classical:{d}" for d in depths]
        else:
            if net is None:
                from pipeline.players.factory import make_player
                from pipeline.search.mcts import SearchConfig

                net = make_player(str(NET), spec, search=SearchConfig(simulations=net_simulations))
            classical = ClassicalPlayer(depths[0], seed=seed + g)
            players = [net, classical] if g % 2 == 0 else [classical, net]
            names = [f"net-{net_simulations}", f"classical:{depths[0]}"][:: 1 if g % 2 == 0 else -1]
        for p in players:
            p.start(spec, 1, seed + g)
        state = spec.new_game()
        actions: list[int] = []
        for _ in range(int(rng.integers(1, 8))):
            legal = state.legal_actions()
            r, c = np.divmod(legal, spec.width)
            near = legal[(abs(r - spec.height // 2) <= 3) & (abs(c - spec.width // 2) <= 3)]
            actions.append(int(rng.choice(near)))
            state.apply(actions[-1])
            for p in players:
                p.observe(0, state, actions[-1])
        while not state.is_terminal and len(actions) < 200:
            actions.append(int(players[state.current_player].choose([0], [state])[0]))
            state.apply(actions[-1])
            for p in players:
                p.observe(0, state, actions[-1])
        out.append({"game": seed + g, "players": names, "actions": actions})
    return out


def label_positions(spec: GameSpec, games: list[dict], log: Callable[[str], None] = print) -> list[dict]:
    """Every start-of-turn position (from ply 5) of the games, labelled by the search:
    SCREEN_BUDGET nodes, then LABEL_BUDGET for those it left open."""
    solver = C6Solver(spec, bits=20)
    from pipeline.tactics.lines.solve import Proof

    rows = []
    for g in games:
        state = spec.new_game()
        for ply, action in enumerate(g["actions"]):
            if stones_left_in_turn(state.ply) == 2 and state.ply >= 5:
                solved = solver(state, SCREEN_BUDGET)
                budget = SCREEN_BUDGET
                if solved.result == 0 and solved.nodes >= SCREEN_BUDGET:
                    solved, budget = solver(state, LABEL_BUDGET), LABEL_BUDGET
                turns = Proof(state.current_player, solved.moves, solved.nodes).attacker_moves(spec, state.ply)
                rows.append(
                    {
                        "game": g["game"],
                        "ply": ply,
                        "actions": g["actions"][:ply],
                        "source": f"{g['players'][0]} v {g['players'][1]}, game {g['game']}, ply {ply}",
                        "label": "vcf" if solved.result else "novcf",
                        "turns": turns if solved.result else 0,
                        "nodes": solved.nodes,
                        "exhausted": solved.result == 0 and solved.nodes < budget,
                    }
                )
            state.apply(action)
        log(f"game {g['game']}: {sum(r['game'] == g['game'] for r in rows)} positions labelled")
    return rows


def choose_suite(spec: GameSpec, rows: list[dict], seed: int = 39) -> list[dict]:
    """200 VCF positions of 3 to 7 turns by the reference's nodes (40 of 2,000-20,000, 110
    of 20,000-300,000, 50 above), and 200 without: 130 where the reference's budget ran
    out, the rest where it was exhausted after 2,000 nodes or more; at most two of a label
    from one game, the net's games first. A position without a reference VCF where
    `c6_solve` proves one (replayed) is labelled vcf-new."""
    rng = np.random.default_rng(seed)
    taken: dict[str, Counter] = defaultdict(Counter)

    def pick(pool: list[dict], n: int) -> list[dict]:
        order = list(rng.permutation(len(pool)))
        order = [i for i in order if pool[i]["source"].count("net")] + [
            i for i in order if not pool[i]["source"].count("net")
        ]
        out = []
        for i in order:
            row = pool[i]
            if taken[row["label"]][row["game"]] >= 2:
                continue
            taken[row["label"]][row["game"]] += 1
            out.append(row)
            if len(out) == n:
                break
        return out

    vcf = [r for r in rows if r["label"] == "vcf" and 3 <= r["turns"] <= 7]
    chosen = []
    for low, high, n in ((2_000, 20_000, 40), (20_000, 300_000, 110), (300_000, 10**12, 50)):
        chosen += pick([r for r in vcf if low <= r["nodes"] < high], n)
    solver = C6Solver(spec, bits=18)
    prove = solver.prover()
    from pipeline.tactics.lines.solve import Proof

    without, new = [], []

    def judge(row: dict) -> None:
        state = spec.new_game()
        for a in row["actions"]:
            state.apply(a)
        solved = solver(state, 1_000_000)
        if solved.result == 1 and replay_c6(state, solved.moves, prove) is None:
            turns = Proof(state.current_player, solved.moves, solved.nodes).attacker_moves(spec, state.ply)
            new.append(dict(row, label="vcf-new", turns=turns))
        else:
            without.append(row)

    for row in pick([r for r in rows if r["label"] == "novcf" and not r["exhausted"]], 130):
        judge(row)
    for row in pick([r for r in rows if r["label"] == "novcf" and r["exhausted"] and r["nodes"] >= 2_000], 10**6):
        if len(without) >= 200:
            break
        judge(row)
    return chosen + without + new


def write_suite(spec: GameSpec, rows: list[dict], path: Path) -> None:
    header = C6_SUITE.read_text().splitlines() if C6_SUITE.exists() else []
    lines = [line for line in header if line.startswith("#")]
    for r in rows:
        moves = " ".join(spec.action_name(a) for a in r["actions"])
        turns = "-" if r["label"] == "novcf" else str(r["turns"])
        lines.append(f"{spec} | {moves} | {r['label']} | {turns} | {r['nodes']} | {r['source']}")
    path.write_text("\n".join(lines) + "\n")


# ---- main ----------------------------------------------------------------------------


def figures(
    budget: int = 2000,
    limit_ms: float = 20.0,
    repeats: int = 3,
    lines: bool = True,
    random_positions: int = 100,
    every: int = 1,
) -> None:
    """Everything `zero bench --tactics` prints: the Connect6 suite (every `every`-th
    position) with each win replayed, the opponent's VCF on its wins, then (`lines`) the
    line solvers' suite and random middle games."""
    positions = load_c6_suite()[::every]
    spec = positions[0].state.spec
    counts = Counter(p.label for p in positions)
    t0 = time.perf_counter()
    solver = C6Solver(spec)
    solver(positions[0].state, 100)  # compile or load from the cache
    print(f"warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")
    print(f"Connect6 suite {C6_SUITE.relative_to(ROOT)}: " + ", ".join(f"{counts[k]} {k}" for k in sorted(counts)))
    c6 = c6_figures(positions, solver, budget, limit_ms, repeats, replay=True)
    print_c6(
        f"c6_solve, budget {budget:,} nodes, depth {DEPTH}, CPU ms of one thread, least of {repeats}; "
        "every win replayed against every defender reply:",
        c6,
        budget,
        limit_ms,
    )
    wins = [p for p in positions if p.label == "vcf"]
    opp = opponent_figures(wins, budget)
    print(
        f"opponent_vcf_into (the same VCF positions, the defender to move): {opp['found']}/{opp['positions']} found "
        f"within {budget:,} nodes, the line inside the marked cells in {opp['line_marked']}; "
        f"{opp['mean_marked']:.1f} cells marked on average; mean {opp['mean_ms']:.2f} ms, max {opp['max_ms']:.1f} ms"
    )
    if lines:
        line_figures(20_000, repeats, random_positions, limit_ms)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    build = sub.add_parser("suite", help="rebuild the Connect6 suite (hours on one core)")
    build.add_argument("--games", type=int, default=300, help="classical games")
    build.add_argument("--net-games", type=int, default=60, help="games of the shipped net against classical")
    build.add_argument("--seed", type=int, default=2000)
    build.add_argument("--out", type=Path, default=C6_SUITE)
    build.add_argument("--labels", type=Path, help="keep the labelled positions here (JSON lines)")
    parser.add_argument("--budget", type=int, default=2000, help="node budget of each Connect6 search")
    parser.add_argument("--limit-ms", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=3, help="runs per position; the fastest is kept")
    parser.add_argument("--no-lines", action="store_true", help="leave out the line suite and random middle games")
    parser.add_argument("--random", type=int, default=100, help="random middle games a set")
    parser.add_argument("--every", type=int, default=1, help="every N-th position of the Connect6 suite")
    args = parser.parse_args(argv)
    if args.command == "suite":
        spec = GameSpec.parse("connect6:19")
        games = play_games(spec, args.games, args.seed, args.net_games)
        rows = label_positions(spec, games)
        if args.labels:
            args.labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
        write_suite(spec, choose_suite(spec, rows), args.out)
        print(f"-> {args.out}")
        return
    if min(args.repeats, args.every, args.budget) < 1 or args.random < 0:
        parser.error("--repeats, --every and --budget take at least 1, --random at least 0")
    figures(args.budget, args.limit_ms, args.repeats, not args.no_lines, args.random, args.every)


if __name__ == "__main__":
    main()
