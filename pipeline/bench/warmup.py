"""Fill numba's disk cache once, so that nothing compiles later.

`make install` runs `python -m pipeline.bench.warmup` after installing the package: every
compiled kernel that self-play, the network search (PUCT and Gumbel roots, the threat
solvers at expansion and the root guard, Hex's connection knowledge and root solver), pure
MCTS, the classical player, the solvers of the web app and the protocols, the evaluate
stage's match and perfect-play check, and the DQN baseline call, on tiny inputs of every
game (Gomoku freestyle, exact and renju; Connect6; Hex with and without swap). A first
`make run` or test run then loads machine code from the cache (pipeline/__init__.py says
where it lives) instead of compiling it: about 85 s saved on a 2-core machine.

numba compiles a kernel for the argument types of its call, not their values, and a
kernel compiles every kernel it calls: what matters is to reach every kernel that Python
code calls, with the types it passes. So the warm-up goes through the same Python code
as the real callers (the players, `play_games`, the solvers' Python API), not around it.

`--check` then reports, per process, how many kernels were compiled rather than loaded
(numba's dispatcher statistics): 0 after a first warm-up. The test
tests/integration/test_warmup.py checks that a self-play and a search in a new process
compile nothing after the warm-up."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

# Small boards of every game and rule set: a kernel's machine code depends on the types it
# is called with, never on the board's size.
SPECS = (
    "gomoku:7x7:k5:freestyle",
    "gomoku:7x7:k4:exact",
    "gomoku:9x9:k5:renju",
    "connect6:7x7",
    "hex:5",
    "hex:5:swap",
)
KERNEL_PACKAGES = ("pipeline.games", "pipeline.tactics", "pipeline.search")


def kernels() -> Iterator[tuple[str, object]]:
    """Every numba kernel of the compiled packages, by qualified name."""
    from numba.core.dispatcher import Dispatcher

    for root in KERNEL_PACKAGES:
        package = importlib.import_module(root)
        names = [root] + [m.name for m in pkgutil.walk_packages(package.__path__, root + ".")]
        for name in names:
            module = importlib.import_module(name)
            for attr, value in vars(module).items():
                if isinstance(value, Dispatcher) and value.py_func.__module__ == name:
                    yield f"{name}.{attr}", value


def compiled_here() -> dict[str, int]:
    """Kernels compiled (not loaded from the disk cache) in this process, with the count
    of their signatures: numba's cache misses."""
    out = {}
    for name, kernel in kernels():
        misses = sum(kernel.stats.cache_misses.values())
        if misses:
            out[name] = misses
    return out


def loaded_here() -> int:
    """Kernel signatures loaded from the disk cache in this process."""
    return sum(sum(kernel.stats.cache_hits.values()) for _, kernel in kernels())


def tiny_evaluator(spec):
    """A fresh one-block net through the evaluator self-play and the players use."""
    import torch

    from pipeline.nets.evaluator import NetEvaluator
    from pipeline.nets.resnet import NetSpec, PolicyValueNet

    torch.manual_seed(0)
    return NetEvaluator(PolicyValueNet(spec, NetSpec(blocks=1, channels=8, value_hidden=8)), threads=1)


def midgame(spec, stones: int, seed: int = 0):
    """A random position with `stones` stones and no winner (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    state = spec.new_game()
    for _ in range(stones):
        legal = state.legal_actions()
        after = state.copy()
        after.apply(int(rng.choice(legal)))
        if after.is_terminal:
            break
        state = after
    return state


def rules_api(spec) -> None:
    """The state's whole Python API (rules, observation, names, records), to the end of a game."""
    from pipeline.games.records import to_psq, to_sgf

    rng = np.random.default_rng(1)
    state = spec.new_game()
    state.apply(spec.action_name(spec.cells // 2))
    while not state.is_terminal:
        state.legal_mask()
        state.candidate_mask()
        state.observation()
        state.presented_order()
        state.presented_action(0)
        state.stones_left_in_turn  # noqa: B018
        state.swap_available  # noqa: B018
        state.last_turn_cells()
        state.hist_cells()
        state.turn_note()
        if spec.rules == "renju":
            state.forbidden_kinds()
            for cell in state.forbidden_cells()[:1]:
                state.forbidden_reason(cell)
        state = state.copy()
        state.apply(int(rng.choice(state.legal_actions())))
    state.winning_line()
    state.winner  # noqa: B018
    to_sgf(state)
    if "psq" in spec.record_formats:
        to_psq(state)


def line_tactics(spec) -> None:
    """The threat helpers and both solvers of the Python API (players, web analysis)."""
    from pipeline.tactics.lines import solve

    for seed in range(3):
        state = midgame(spec, spec.cells // 3, seed)
        solve.winning_moves(state)
        solve.threat_defences(state)
        solve.four_moves(state)
        solve.three_moves(state)
        solve.three_defences(state, 1 - state.current_player)
        for kind in ("vcf", "vct"):
            proof = solve.prove(state, kind, budget=200)
            if proof is not None:
                proof.describe(spec, state.ply)
        if spec.game == "connect6":
            import numpy as np

            from pipeline.tactics.lines.c6_vct import c6_vct_zone, opponent_vct_into
            from pipeline.tactics.lines.scratch import scratch_for
            from pipeline.tactics.lines.table import new_table

            s, sc, pv = state.array, scratch_for(state.array, 12), np.zeros(512, np.int64)
            zone = np.zeros(spec.cells, np.bool_)
            budget, depth = np.int64(200), np.int64(12)
            opponent_vct_into(s, budget, depth, new_table(10), pv, zone, sc)
            c6_vct_zone(s, budget, depth, new_table(10), pv, zone, sc, np.int64(2), budget)

            from pipeline.tactics.lines.c6_holding import counter_threat_cells

            counter_threat_cells(state)  # the opening screen's (`zero openings`)


def hex_tactics(spec) -> None:
    """Hex's solvers as the web app, the perfect-play check and the root solver call them."""
    from pipeline.match.perfect_play import WinChecker
    from pipeline.search.hex_root_solver import HexRootSolver
    from pipeline.tactics.hex import solve

    state = midgame(spec, 4)
    solve.solve_hex(state, budget=500, table=solve.new_table(10))
    solve.prove_hex(state, budget=500, tt=solve.new_dfpn_table(10))
    solve.winning_move(state, budget=500, tt=solve.new_dfpn_table(10), preferred=0)
    WinChecker(spec, budget=200, log2_table=10).value(state)
    HexRootSolver(spec, budget=200, log2_table=10).winning_move(state.array, 0)


def selfplay(spec, evaluator) -> None:
    """Self-play as the stage runs it, with each of its search variants."""
    from pipeline.search.mcts import SearchConfig
    from pipeline.selfplay.play import SelfPlayConfig, play_games

    base = SearchConfig(simulations=8, leaves_per_step=4, tactics_nodes=50, tactics_root_nodes=100)
    variants = [
        {},
        {"search": base.model_copy(update={"root": "gumbel"}), "completed_q_plies": 2},
        {"search": base.model_copy(update={"threat_guidance": True, "tactics": "vct"})},
        {"fast_simulations": 2, "resign_threshold": -0.5, "random_first_moves": 0.5},
    ]
    if spec.game == "hex":
        variants.append({"search": base.model_copy(update={"hex_root_solver_nodes": 100})})
    for update in variants:
        config = SelfPlayConfig(**{"parallel_games": 2, "temperature_moves": 2, "search": base, **update})
        play_games(spec, evaluator, 2, config, seed=0)


def players(spec, evaluator) -> None:
    """The players of matches, the evaluate stage, the web app and the protocols."""
    from pipeline.match.arena import play_match
    from pipeline.players.factory import classical_player, play_search
    from pipeline.players.search import NetPlayer, PurePlayer, RandomPlayer

    net = NetPlayer(evaluator, play_search(spec, 8), "net")
    pure = PurePlayer(16, reuse=True)
    state = midgame(spec, 3)
    for player in (net, pure):
        player.think(state)
        player.think(state, seconds=0.01)
    if hasattr(net, "policy_value"):
        net.policy_value(state)
    opponents: list = [PurePlayer(16), RandomPlayer()]
    if spec.wins_by_line:
        classical = classical_player("classical:2", spec)
        classical.think(state)
        opponents.append(classical)
    for opponent in opponents:
        play_match(spec, net, opponent, 2, seed=0, opening_plies=1)
    play_match(spec, PurePlayer(16, reuse=True), RandomPlayer(), 2, seed=0)


def dqn(spec) -> None:
    from pipeline.dqn.agent import shaped_reward

    state = midgame(spec, 4)
    shaped_reward(state, int(state.legal_actions()[0]), 0.1)


def steps_for(spec) -> list[tuple[str, Callable[[], None]]]:
    evaluator = tiny_evaluator(spec)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("rules", lambda: rules_api(spec)),
        ("self-play", lambda: selfplay(spec, evaluator)),
        ("players", lambda: players(spec, evaluator)),
    ]
    if spec.wins_by_line:
        steps.append(("threat solvers", lambda: line_tactics(spec)))
        steps.append(("dqn", lambda: dqn(spec)))
    else:
        steps.append(("hex solvers", lambda: hex_tactics(spec)))
    return steps


def warm_up(specs: tuple[str, ...] = SPECS, log: Callable[[str], None] = print) -> list[str]:
    """Call every kernel on every game; return the steps that failed. A failure does not
    stop the others: the warm-up only saves time, it never decides whether a run works."""
    from pipeline.games.base import GameSpec

    failed = []
    for text in specs:
        spec = GameSpec.parse(text)
        for label, step in steps_for(spec):
            start = time.perf_counter()
            try:
                step()
            except Exception as exc:  # a step's kernels may be warm even so: report, go on
                failed.append(f"{spec} {label}: {type(exc).__name__}: {exc}")
                log(f"  {spec}: {label} FAILED: {type(exc).__name__}: {exc}")
                continue
            log(f"  {spec}: {label} {time.perf_counter() - start:.1f}s")
    return failed


MANIFEST = "warmed.json"


def file_stamps(root: Path, pattern: str = "*") -> dict[str, list[int]]:
    """Size and modification time of every file under `root` matching `pattern`, the
    manifest aside."""
    out = {}
    for path in sorted(root.rglob(pattern)):
        if path.is_file() and path.name != MANIFEST:
            stat = path.stat()
            out[str(path.relative_to(root))] = [stat.st_size, stat.st_mtime_ns]
    return out


def snapshot_manifest(snapshot: Path) -> dict:
    """The snapshot's files, and the package's modules: numba keys a cached kernel on its
    file's stamp, so a snapshot taken before an edit (or a checkout) no longer says what a
    warm-up leaves."""
    return {"cache": file_stamps(snapshot), "sources": file_stamps(Path(__file__).resolve().parents[1], "*.py")}


def snapshot_intact(snapshot: Path) -> bool:
    """Whether the snapshot is still the cache a warm-up leaves: its files untouched and
    the package's sources as they were when it was taken."""
    manifest = snapshot / MANIFEST
    return manifest.is_file() and json.loads(manifest.read_text()) == snapshot_manifest(snapshot)


def snapshot_path(cache: Path) -> Path:
    """Where the warm-up keeps a copy of the cache as it left it: beside the cache folder."""
    return cache.with_name(cache.name + ".warmed")


def write_snapshot(cache: Path) -> None:
    """The cache as the warm-up left it, kept beside it as hard links (numba writes a cache
    file anew and renames it over the old, so a link keeps the warm-up's version when a
    later process compiles more into the cache), with a manifest of sizes and times that
    tells whether the copy is intact. tests/integration/test_warmup.py probes a copy of it
    instead of warming an empty cache again."""
    if not cache.is_dir():
        return
    snapshot = snapshot_path(cache)
    shutil.rmtree(snapshot, ignore_errors=True)
    for path in cache.rglob("*"):
        if path.is_file() and path.name != MANIFEST:
            target = snapshot / path.relative_to(cache)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, target)
            except OSError:  # another file system, or no hard links: a copy
                shutil.copy2(path, target)
    if snapshot.is_dir():
        (snapshot / MANIFEST).write_text(json.dumps(snapshot_manifest(snapshot)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.bench.warmup", description=__doc__.split("\n")[0])
    parser.add_argument("--quiet", action="store_true", help="only the summary line")
    parser.add_argument("--specs", nargs="+", default=list(SPECS), metavar="SPEC", help="games to warm up")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when a step failed (by default it is reported, not fatal)"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a kernel had to be compiled: the cache was not warm"
    )
    parser.add_argument(
        "--unused", action="store_true", help="list the kernels no step reached (meaningful on an empty cache)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    log = (lambda _: None) if args.quiet else (lambda line: print(line, flush=True))
    failed = warm_up(tuple(args.specs), log)
    compiled = compiled_here()
    print(
        f"numba warm-up: {len(compiled)} kernels compiled ({sum(compiled.values())} signatures), "
        f"{loaded_here()} loaded from the cache, in {time.perf_counter() - start:.0f}s "
        f"(cache: {os.environ.get('NUMBA_CACHE_DIR', '?')})",
        flush=True,
    )
    if not failed:
        write_snapshot(Path(os.environ.get("NUMBA_CACHE_DIR", ".")))
    for line in failed:
        print(f"numba warm-up: a step failed (its kernels may be compiled on first use): {line}", file=sys.stderr)
    if args.unused:
        for name, kernel in kernels():
            if not kernel.signatures:
                print(f"  not reached from Python: {name}")
    if args.check and compiled:
        for name, count in sorted(compiled.items()):
            print(f"  compiled: {name} ({count})", file=sys.stderr)
        return 1
    return 1 if args.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main())
