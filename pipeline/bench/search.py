"""`zero bench`: the engine's speed, as figures.

Pure-MCTS playouts/s (one thread, empty board and a mid-game position); network-guided
simulations/s at the self-play batch size; the bare forward-pass positions/s of the same
net at the same batch size, measured in the same run around the search; their ratio; on
the k-in-a-row boards the same search with the threat solvers off (the default has them
on) and the solver's own nodes/s; and how long a second process takes to its first
playout.

Two sets of boards: the small boards with the default net (3 blocks x 64 channels, fixed
heads), and the standard boards (15x15, 19x19, 20x20) with a size-free net of the depth
the standard-board presets use (`BIG_NET`). Every record names its net."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.nets.resnet import NetSpec

if TYPE_CHECKING:
    from pipeline.search.mcts import SearchConfig

BOARDS = ("gomoku:9x9:k5", "gomoku:15x15:k5", "hex:11x11", "connect6:10x10")
# The standard boards of issue 14, measured with the size-free net their presets train
# (presets/gomoku-15x15.yaml, connect6-19x19.yaml: 3 blocks x 64 channels, size_free).
BIG_BOARDS = ("gomoku:15x15:k5", "connect6:19x19", "gomoku:20x20:k5")
BIG_NET = NetSpec(blocks=3, channels=64, size_free=True)
SELFPLAY_GAMES = 32  # games advanced in lockstep by default self-play


@dataclass
class Record:
    game: str
    size: str
    rules: str
    position: str
    figure: str
    value: float
    unit: str
    net: str = ""


def record(spec: GameSpec, position: str, figure: str, value: float, unit: str, net: str = "") -> Record:
    return Record(
        spec.game, f"{spec.height}x{spec.width}", spec.rules_label, position, figure, round(value, 3), unit, net
    )


def net_label(net: NetSpec) -> str:
    """'3x64', '6x64 size-free', '3x64 hex-kernels': blocks x channels and the head kind."""
    label = f"{net.blocks}x{net.channels}"
    if net.size_free:
        label += " size-free"
    if net.hex_kernels:
        label += " hex-kernels"
    return label


def parse_net(text: str) -> NetSpec:
    """'6x64' -> a size-free NetSpec of 6 blocks of 64 channels (a standard-board net)."""
    try:
        blocks, channels = (int(part) for part in text.lower().split("x"))
        return NetSpec(blocks=blocks, channels=channels, size_free=True)
    except ValueError as exc:  # wrong shape, not integers, or out of NetSpec's range
        raise ValueError(f"expected BLOCKSxCHANNELS such as 3x64, got {text!r}") from exc


def midgame(spec: GameSpec, seed: int = 7) -> GameState:
    """A seeded random position with a quarter of the board filled, no winner yet and no
    threat on the board (no immediate win, no forced block): on the big boards most random
    fillings hold one, and a search that proves its root at once measures nothing."""
    rng = np.random.default_rng(seed)
    while True:
        state = spec.new_game()
        for _ in range(spec.cells // 4):
            state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal:
                break
        if not state.is_terminal and state.candidate_mask().sum() == state.legal_mask().sum():
            return state


def positions(spec: GameSpec) -> Iterator[tuple[str, GameState]]:
    yield "empty", spec.new_game()
    yield "midgame", midgame(spec)


def timed(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of `repeats` calls (after the caller has warmed `fn` up)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_pure(spec: GameSpec, playouts: int, repeats: int) -> list[Record]:
    from pipeline.search.pure import PureMCTS

    out = []
    for name, state in positions(spec):
        PureMCTS(200, seed=0).search(state)  # compile / load from the numba cache
        player = PureMCTS(playouts, seed=1)
        seconds = timed(lambda p=player, s=state: p.search(s), repeats)
        # A solved root stops the search early: count the playouts actually run.
        out.append(record(spec, name, "pure_playouts_per_s", player.last_playouts / seconds, "playouts/s"))
    return out


def bench_network(
    spec: GameSpec,
    games: int,
    simulations: int,
    repeats: int,
    threads: int | None,
    net: NetSpec | None = None,
    evaluator: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
    config: SearchConfig | None = None,
    label: str | None = None,
) -> list[Record]:
    """Search simulations/s from the empty board and a mid-game position, `games` games
    in lockstep, against the bare forward pass at the same batch. By default a fresh `net`
    in eager torch with the default search; `zero bench --selfplay` passes the evaluator
    and search that self-play uses."""
    from pipeline.nets.evaluator import NetEvaluator
    from pipeline.nets.resnet import PolicyValueNet
    from pipeline.search.mcts import BatchedMCTS, SearchConfig

    net = net or NetSpec()
    label = label or net_label(net)
    config = (config or SearchConfig()).model_copy(update={"simulations": simulations})
    evaluator = evaluator or NetEvaluator(PolicyValueNet(spec, net), threads=threads)
    batch = games * config.leaves_per_step
    out = []
    for name, state in positions(spec):
        # Warm up (compile, load) with a short search; it also leaves real positions in
        # the observation buffer for the bare forward measurement.
        warm = BatchedMCTS(spec, games, config.model_copy(update={"simulations": 2 * config.leaves_per_step}), seed=0)
        for g in range(games):
            warm.reset(g, state.array)
        warm.search(evaluator, noise=True)
        obs = warm.obs[:batch].copy()
        search = BatchedMCTS(spec, games, config, seed=0)

        def run(search: BatchedMCTS = search, state: GameState = state) -> None:
            for g in range(games):
                search.reset(g, state.array)
            search.search(evaluator, noise=True)

        evaluator(obs)
        before = timed(lambda o=obs: evaluator(o), repeats)
        search_s = timed(run, 1)
        after = timed(lambda o=obs: evaluator(o), repeats)
        forward = batch / ((before + after) / 2)
        sims = games * simulations / search_s
        out += [
            record(spec, name, "search_sims_per_s", sims, "sims/s", label),
            record(spec, name, "forward_positions_per_s", forward, "positions/s", label),
            record(spec, name, "search_over_forward", sims / forward, "ratio", label),
        ]
        if spec.wins_by_line and config.tactics != "off":
            # The same search without the threat solvers (and so without the root guard),
            # right after: the tactics' cost is the ratio of the two.
            plain = BatchedMCTS(spec, games, config.model_copy(update={"tactics": "off"}), seed=0)
            run(plain)
            off = games * simulations / timed(lambda s=plain: run(s), 1)
            out += [
                record(spec, name, "search_sims_per_s_tactics_off", off, "sims/s", label),
                record(spec, name, "tactics_on_over_off", sims / off, "ratio", label),
            ]
    return out


def bench_solver(spec: GameSpec, positions_count: int, budget: int = 2_000) -> list[Record]:
    """The threat solver's own rate (VCF; Connect6: double threats), nodes per second over
    seeded random middle games whose stones gather near the centre, as in play. One call
    per position at `budget` nodes with a fresh table: the rate of a tree's solver calls."""
    from pipeline.tactics.lines.solve import DEFAULT_DEPTH, PV_CAPACITY
    from pipeline.tactics.lines.table import new_table
    from pipeline.tactics.lines.vcf import vcf

    rng = np.random.default_rng(3)
    states = [clustered(spec, rng) for _ in range(positions_count)]
    table = new_table(16)
    pv = np.zeros(PV_CAPACITY, dtype=np.int64)

    def call(state: GameState) -> tuple[int, int]:
        table[:] = 0
        result, _, nodes = vcf(state.array, np.int64(budget), np.int64(DEFAULT_DEPTH), table, pv)
        return int(result), int(nodes)

    call(states[0])  # compile / load from the numba cache
    nodes, seconds, proofs = 0, 0.0, 0
    for state in states:
        start = time.perf_counter()
        result, spent = call(state)
        seconds += time.perf_counter() - start
        nodes += spent
        proofs += result == 1
    where = f"{len(states)} middle games"
    return [
        record(spec, where, "solver_nodes_per_s", nodes / seconds, "nodes/s"),
        record(spec, where, "solver_ms_per_call", 1e3 * seconds / len(states), "ms"),
        record(spec, where, "solver_wins_found", proofs, "positions"),
    ]


def clustered(spec: GameSpec, rng: np.random.Generator) -> GameState:
    """A middle game as the tree meets them: a tenth of the board filled with stones drawn
    near the centre, no winner and no threat on the board (a position with a four to
    answer is decided before any search, so it would time nothing)."""
    while True:
        state = centre_weighted(spec, rng, spec.cells // 10)
        if state is not None and state.candidate_mask().sum() == state.legal_mask().sum():
            return state


def centre_weighted(spec: GameSpec, rng: np.random.Generator, stones: int) -> GameState | None:
    """`stones` random stones, each cell weighted 1/(1+d)^2 by its distance d from the
    centre, as games gather there; None when the drawing ended the game."""
    state = spec.new_game()
    for _ in range(stones):
        legal = state.legal_actions()
        r, c = np.divmod(legal, spec.width)
        d = np.maximum(abs(r - spec.height // 2), abs(c - spec.width // 2))
        p = 1.0 / (1.0 + d) ** 2
        state.apply(int(rng.choice(legal, p=p / p.sum())))
        if state.is_terminal:
            return None
    return state


def bench_training(
    spec: GameSpec, batch: int, steps: int, threads: int | None, net: NetSpec | None = None
) -> list[Record]:
    """Optimiser steps of the training loss (forward, backward, Adam) on `net` (default:
    the default net), the work Lightning runs per batch; Hex also compares hexagonal with
    square kernels."""
    import torch

    from pipeline.nets.evaluator import NetEvaluator
    from pipeline.nets.resnet import PolicyValueNet
    from pipeline.training.config import OptimConfig
    from pipeline.training.module import PolicyValueModule

    base = net or NetSpec()
    if threads:
        torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    obs = torch.from_numpy(rng.integers(0, 2, (batch, *spec.obs_shape)).astype(np.float32))
    pi = torch.softmax(torch.from_numpy(rng.normal(size=(batch, spec.num_actions)).astype(np.float32)), dim=1)
    z = torch.from_numpy(rng.choice([-1.0, 1.0], batch).astype(np.float32))
    out = []
    hex_board = spec.geometry == "hex"  # hexagonal kernels are an option only there
    kinds = [False, True] if hex_board else [False]
    for hexagonal in kinds:
        kind_net = base.model_copy(update={"hex_kernels": hexagonal})
        label = net_label(kind_net)
        model = PolicyValueNet(spec, kind_net)
        module = PolicyValueModule(model, OptimConfig())
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)

        def step(module: PolicyValueModule = module, opt: torch.optim.Optimizer = opt) -> None:
            opt.zero_grad()
            module.losses(obs, pi, z)["loss"].backward()
            opt.step()

        step()
        seconds = timed(lambda s=step: [s() for _ in range(steps)], 1)
        suffix = "_hex_kernels" if hexagonal else ""
        out.append(record(spec, "random", f"train_samples_per_s{suffix}", steps * batch / seconds, "samples/s", label))
        if hex_board:
            evaluator = NetEvaluator(model)
            x = obs.numpy()
            evaluator(x)
            forward = batch / timed(lambda e=evaluator, x=x: e(x), 3)
            kind = "hex" if hexagonal else "square"
            out.append(record(spec, "random", f"forward_positions_per_s_{kind}_kernels", forward, "positions/s", label))
            model.train()
    return out


FIRST_PLAYOUT = (
    "import time; t0 = time.perf_counter(); "
    "from pipeline.games.base import GameSpec; from pipeline.search.pure import PureMCTS; "
    "PureMCTS(1, seed=0).search(GameSpec.parse('gomoku:9').new_game()); print(time.perf_counter() - t0)"
)


def bench_startup() -> list[Record]:
    """Wall time for a fresh interpreter to finish its first playout, the numba cache on
    disk warmed by a first run."""
    cmd = [sys.executable, "-c", FIRST_PLAYOUT]
    subprocess.run(cmd, check=True, capture_output=True)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return [record(GameSpec.parse("gomoku:9"), "empty", "second_process_first_playout_s", seconds, "s")]


def run_bench(
    quick: bool = False,
    boards: tuple[str, ...] = BOARDS,
    games: int = SELFPLAY_GAMES,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
    big_boards: tuple[str, ...] = BIG_BOARDS,
    big_net: NetSpec = BIG_NET,
) -> list[Record]:
    """`boards` with the default net, then `big_boards` with `big_net`."""
    playouts, repeats, simulations = (2_000, 1, 32) if quick else (20_000, 3, 200)
    records: list[Record] = []
    plan = [(text, NetSpec()) for text in boards] + [(text, big_net) for text in big_boards]
    measured_pure: set[GameSpec] = set()
    measured_solver: set[GameSpec] = set()
    for text, net in plan:
        spec = GameSpec.parse(text)
        label = net_label(net)
        if spec not in measured_pure:  # pure MCTS needs no net: once per board
            measured_pure.add(spec)
            if progress:
                progress(f"pure MCTS on {spec}")
            records += bench_pure(spec, playouts, repeats)
        if progress:
            progress(f"network search on {spec}, net {label}")
        records += bench_network(spec, games, simulations, repeats, threads, net)
        if spec.wins_by_line and spec not in measured_solver:
            measured_solver.add(spec)
            if progress:
                progress(f"threat solver on {spec}")
            records += bench_solver(spec, 10 if quick else 40)
        if progress:
            progress(f"training on {spec}, net {label}")
        records += bench_training(spec, 256, 3 if quick else 10, threads, net)
    if progress:
        progress("second-process start-up")
    records += bench_startup()
    return records


@dataclass
class BenchPlan:
    """What `zero bench` measures: `boards` with the default net, `big_boards` with `big_net`."""

    boards: tuple[str, ...]
    big_boards: tuple[str, ...]
    big_net: NetSpec


def plan_bench(boards: list[str] | None, big_boards: list[str] | None, big_net: str) -> BenchPlan:
    """The boards asked for (both default sets when neither is given) and the parsed
    BLOCKSxCHANNELS net; a ValueError names the option at fault."""
    chosen = bool(boards) or bool(big_boards)
    small = tuple(boards or ()) if chosen else BOARDS
    big = tuple(big_boards or ()) if chosen else BIG_BOARDS
    for option, texts in (("--board", small), ("--big-board", big)):
        for text in texts:
            try:
                GameSpec.parse(text)
            except ValueError as exc:
                raise ValueError(f"{option} {text!r}: {exc}") from None
    try:
        net = parse_net(big_net)
    except ValueError as exc:
        raise ValueError(f"--big-net: {exc}") from None
    return BenchPlan(small, big, net)


def run_plan(
    plan: BenchPlan,
    quick: bool = False,
    games: int = SELFPLAY_GAMES,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Record]:
    return run_bench(quick, plan.boards, games, threads, progress, big_boards=plan.big_boards, big_net=plan.big_net)


def as_dicts(records: list[Record]) -> list[dict[str, object]]:
    return [asdict(r) for r in records]


def records_table(records: list[Record], title: str = "zero bench"):
    """The records as a Rich table; the net column only when some record names a net."""
    from rich.table import Table

    table = Table(title=title)
    nets = any(r.net for r in records)
    for col in ("game", "size", "rules", "position", "figure", "value", "unit", *(("net",) if nets else ())):
        table.add_column(col, justify="right" if col == "value" else "left")
    for r in records:
        cells = [r.game, r.size, r.rules, r.position, r.figure, f"{r.value:,.3f}", r.unit]
        table.add_row(*cells, *((r.net,) if nets else ()))
    return table


def bench_orchestration(tasks: int = 8, repeats: int = 3) -> list[Record]:
    """Prefect's own cost: an empty flow, and each no-op task on the thread runner and on
    a local Dask cluster, in whatever API mode is configured (ephemeral local server, or
    PREFECT_API_URL for a real server). Compare with a self-play stage's duration."""
    import os

    from prefect import flow, task
    from prefect.cache_policies import NONE

    from pipeline.runtime.parallel import make_task_runner

    mode = "server" if os.environ.get("PREFECT_API_URL") else "local"

    @task(cache_policy=NONE)
    def noop(i: int) -> int:
        return i

    @flow(validate_parameters=False)
    def empty() -> None:
        return None

    @flow(validate_parameters=False)
    def fan_out(n: int, runner: str) -> int:
        with make_task_runner(runner, 2, None) as r:
            futures = [r.submit(noop, {"i": i}) for i in range(n)]
            return sum(f.result() for f in futures)

    empty()  # the first flow starts the local API server: not counted
    flow_s = timed(empty, repeats)
    spec = GameSpec.parse("gomoku:8x8:k5")
    out = [record(spec, mode, "prefect_flow_overhead_s", flow_s, "s")]
    for runner in ("threads", "dask"):
        fan_out(1, runner)
        total = timed(lambda r=runner: fan_out(tasks, r), repeats)
        single = timed(lambda r=runner: fan_out(1, r), repeats)
        per_task = max(0.0, (total - single) / (tasks - 1))
        out.append(record(spec, f"{mode}/{runner}", "prefect_task_overhead_s", per_task, "s"))
        out.append(record(spec, f"{mode}/{runner}", "prefect_runner_start_s", max(0.0, single - flow_s), "s"))
    return out
