"""`zero bench --selfplay`: what the inference backends buy end to end.

Every variant (backend:precision) is measured in the same run, in interleaved order, so a
change in machine load falls on all of them alike, and is given as a ratio to eager torch
in f32 (what self-play ran before the backends existed):
- self-play positions/s and games/hour on the workspace's params (board, net, search,
  parallel games) on one worker, the variants taking turns at every search step;
- worker scaling: the backend `auto` picks on 2 workers (threads sharing one evaluator,
  as the stage runs) against 1;
- the bare forward pass at the self-play batch on Gomoku 9x9 and 15x15 (3x64 net);
- training samples/s on this device, and the DataModule's batches/s beside it;
- games/hour at 400 simulations on Gomoku 8x8 five in a row, beside the pure-Python
  reference implementation's 6.0 s per game per core."""

from __future__ import annotations

import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from pipeline.bench.search import Record, bench_network, record
from pipeline.config import Params, load_params
from pipeline.games.base import GameSpec
from pipeline.nets.autoselect import interleaved_medians
from pipeline.nets.checkpoint import load_checkpoint
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.inference import InferenceConfig, cpu_has_bf16, resolve_device
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.search.evaluator import Evaluator
from pipeline.selfplay.play import SelfPlayConfig, SelfPlayRun, play_games

BASELINE = "torch:f32"
# The reference: 8x8 five in a row, 400 playouts, batch 1, 6.0 s per self-play game on one
# core of this machine type, i.e. 600 games/hour/core.
REFERENCE_SECONDS_PER_GAME = 6.0
REFERENCE_BOARD = "gomoku:8x8:k5"
REFERENCE_BATCHES = 2


def default_variants(device: str) -> list[str]:
    if device == "cuda":
        return ["torch:f32", "torch:bf16"]
    found = ["torch:f32", "onnxruntime:f32", "openvino:f32"]
    if cpu_has_bf16():  # emulated bf16 is slower than f32: not worth measuring
        found += ["openvino:bf16", "torch:bf16"]
    return found


def inference_config(variant: str, device: str, cache_dir: str | None) -> InferenceConfig:
    backend, _, precision = variant.partition(":")
    return InferenceConfig(backend=backend, device=device, precision=precision or "auto", cache_dir=cache_dir)  # type: ignore[arg-type]


@dataclass
class Played:
    seconds: float
    games: int
    positions: int
    plies: int
    evaluations: int = 0  # network evaluations (the search's simulations that reached a new leaf)


def play_workers(
    spec: GameSpec, evaluator: NetEvaluator, config: SelfPlayConfig, workers: int, games: int, seed: int
) -> Played:
    """`workers` self-play tasks on threads, one evaluator between them, as the stage runs."""
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda w: play_games(spec, evaluator, games, config, seed=seed + w), range(workers)))
    seconds = time.perf_counter() - start
    stats = [s for _, s in results]
    return Played(
        seconds,
        sum(s.games for s in stats),
        sum(s.positions for s in stats),
        sum(s.plies for s in stats),
        sum(s.simulations for s in stats),
    )


def selfplay_records(spec: GameSpec, label: str, played: dict[str, list[Played]], baseline: str | None) -> list[Record]:
    out = []
    rates = {}
    for name, runs in played.items():
        seconds = sum(p.seconds for p in runs)
        positions = sum(p.positions for p in runs)
        games = sum(p.games for p in runs)
        rates[name] = positions / seconds
        out += [
            record(spec, f"{label} {name}", "selfplay_positions_per_s", positions / seconds, "positions/s"),
            record(spec, f"{label} {name}", "selfplay_games_per_hour", 3600 * games / seconds, "games/h"),
            record(spec, f"{label} {name}", "selfplay_mean_plies", sum(p.plies for p in runs) / games, "plies"),
        ]
    if baseline is not None:
        for name, rate in rates.items():
            out.append(record(spec, f"{label} {name}", "selfplay_vs_torch_eager", rate / rates[baseline], "ratio"))
    return out


class Baton:
    """Turns between threads, passed on at every evaluator call: one variant's self-play
    runs at a time, for one search step (a fraction of a second), in a fixed rotation. Each
    variant is charged only the time it held the baton, so minutes-long runs of different
    backends see the same machine load, step by step."""

    def __init__(self, names: list[str]):
        self.order = list(names)
        self.active = set(names)
        self.turn = 0
        self.cond = threading.Condition()
        self.held = dict.fromkeys(names, 0.0)
        self.since = 0.0

    def wait(self, name: str) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.order[self.turn] == name)
            self.since = time.perf_counter()

    def _advance(self, name: str) -> None:
        self.held[name] += time.perf_counter() - self.since
        for step in range(1, len(self.order) + 1):
            candidate = (self.turn + step) % len(self.order)
            if self.order[candidate] in self.active:
                self.turn = candidate
                break
        self.cond.notify_all()

    def pass_on(self, name: str) -> None:
        with self.cond:
            self._advance(name)

    def leave(self, name: str) -> None:
        with self.cond:
            self.active.discard(name)
            self._advance(name)


def play_in_turns(
    spec: GameSpec, evaluators: dict[str, NetEvaluator], config: SelfPlayConfig, games: int, seed: int
) -> dict[str, Played]:
    """Every variant plays the same `games` (same seed) on one worker, taking turns."""
    baton = Baton(list(evaluators))
    results: dict[str, Played] = {}

    def run(name: str) -> None:
        evaluator = evaluators[name]

        def in_turn(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            out = evaluator(obs)
            baton.pass_on(name)
            baton.wait(name)
            return out

        baton.wait(name)
        try:
            _, stats = play_games(spec, in_turn, games, config, seed=seed)
        finally:
            baton.leave(name)
        results[name] = Played(baton.held[name], stats.games, stats.positions, stats.plies)

    threads = [threading.Thread(target=run, args=(name,)) for name in evaluators]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def bench_selfplay_variants(
    params: Params,
    net: PolicyValueNet,
    variants: list[str],
    device: str,
    workers: int,
    rounds: int,
    cache_dir: str | None,
    progress=None,
) -> tuple[list[Record], str]:
    """End-to-end self-play per variant on one worker, all variants taking turns step by
    step (`Baton`); then auto's pick on `workers` workers against 1 worker, the two runs
    alternating over `rounds`. Returns the records and auto's pick."""
    spec = params.game
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    threads = params.selfplay.torch_threads
    batch = config.parallel_games * config.search.leaves_per_step
    evaluators = {
        v: NetEvaluator(net, threads, inference_config(v, device, cache_dir), batch) for v in [BASELINE, *variants]
    }
    auto = NetEvaluator(net, threads, InferenceConfig(device=device, cache_dir=cache_dir), batch)  # type: ignore[arg-type]
    auto_name = f"{auto.backend}:{auto.precision}"
    evaluators.setdefault(auto_name, auto)
    games = config.parallel_games  # one lockstep batch per worker: the self-play batch is the real one
    played: dict[str, list[Played]] = {name: [] for name in evaluators}
    for r in range(rounds):
        if progress:
            progress(f"self-play, every backend in turns, round {r + 1}/{rounds}")
        for name, result in play_in_turns(spec, evaluators, config, games, seed=1000 * r).items():
            played[name].append(result)
    records = selfplay_records(spec, "1w", played, BASELINE)
    if workers > 1:
        one: list[Played] = []
        many: list[Played] = []
        for r in range(rounds):
            if progress:
                progress(f"self-play {auto_name}, 1 and {workers} workers, round {r + 1}/{rounds}")
            one.append(play_workers(spec, evaluators[auto_name], config, 1, games, seed=1000 * r))
            many.append(play_workers(spec, evaluators[auto_name], config, workers, games, seed=1000 * r))
        records += selfplay_records(spec, f"{workers}w", {auto_name: many}, None)
        rate_one = sum(p.positions for p in one) / sum(p.seconds for p in one)
        rate_many = sum(p.positions for p in many) / sum(p.seconds for p in many)
        records.append(
            record(spec, f"{workers}w/1w {auto_name}", "selfplay_worker_scaling", rate_many / rate_one, "ratio")
        )
    return records, auto_name


def play_moves(
    spec: GameSpec, evaluator: Evaluator, config: SelfPlayConfig, games: int, seed: int, moves: int | None = None
) -> Played:
    """`games` games on one worker to the end, or only their first `moves` lockstep moves."""
    start = time.perf_counter()
    run = SelfPlayRun(spec, evaluator, games, config, seed)
    steps = 0
    while run.counts.finished < games and (moves is None or steps < moves):
        run.step()
        steps += 1
    seconds = time.perf_counter() - start
    return Played(seconds, run.counts.finished, len(run.positions()), run.counts.plies, run.search.evaluations)


def warm_batch(evaluator: Evaluator, spec: GameSpec, batch: int) -> np.ndarray:
    """A fixed random batch of observations, evaluated once (the warm-up call)."""
    obs = np.random.default_rng(0).integers(0, 2, (batch, *spec.obs_shape)).astype(np.float32)
    evaluator(obs)
    return obs


def forward_rate(evaluator: Evaluator, spec: GameSpec, batch: int, repeats: int) -> float:
    """Bare forward positions/s at `batch` (median of `repeats` after a warm-up call)."""
    obs = warm_batch(evaluator, spec, batch)
    return batch / statistics.median(timed_once(lambda: evaluator(obs)) for _ in range(repeats))


def concurrent_forward_rate(evaluator: Evaluator, spec: GameSpec, batch: int, repeats: int, workers: int) -> float:
    """Forward positions/s of `workers` threads calling the evaluator at once at `batch`, as
    the self-play workers do: what the cores together reach when they do nothing else (two
    cores busy run slower each than one alone: shared caches, memory, clocks)."""
    obs = warm_batch(evaluator, spec, batch)

    def calls(_: int) -> None:
        for _ in range(repeats):
            evaluator(obs)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(calls, range(workers)))  # warm every thread's session
        start = time.perf_counter()
        list(pool.map(calls, range(workers)))
        seconds = time.perf_counter() - start
    return workers * repeats * batch / seconds


def bench_overlap(
    spec: GameSpec,
    evaluator: Evaluator,
    config: SelfPlayConfig,
    name: str,
    rounds: int,
    seed: int = 0,
    moves: int | None = None,
    repeats: int = 5,
    progress=None,
    games: int | None = None,
) -> list[Record]:
    """Self-play on one worker with `evaluator` (labelled `name`), `selfplay.overlap` off
    and on in alternation (off, on, off, on, ...: a change in load falls on both alike),
    `games` games each (default one lockstep batch, `parallel_games`; more refill the
    slots as a self-play task does), to the end (or `moves` moves: then the rates count
    searched moves, not training positions); and the forward-bound rate: the bare forward
    positions/s at the self-play batch over the network evaluations per position, which
    self-play would reach if the network were all it did. The ratio of the two is the
    share of the time the network is busy."""
    games = max(games or config.parallel_games, config.parallel_games)
    batch = config.parallel_games * config.search.leaves_per_step
    unit = "positions" if moves is None else "moves"
    forward = [forward_rate(evaluator, spec, batch, repeats)]
    played: dict[bool, list[Played]] = {False: [], True: []}
    for r in range(rounds):
        for overlap in (False, True):
            if progress:
                progress(f"self-play {name}, overlap {'on' if overlap else 'off'}, round {r + 1}/{rounds}")
            cfg = config.model_copy(update={"overlap": overlap})
            played[overlap].append(play_moves(spec, evaluator, cfg, games, seed + 1000 * r, moves))
    forward.append(forward_rate(evaluator, spec, batch, repeats))
    forward_s = statistics.mean(forward)  # measured before and after the games
    out = [record(spec, f"batch {batch} {name}", "forward_positions_per_s", forward_s, "positions/s")]
    rates = {}
    for overlap, runs in played.items():
        seconds = sum(p.seconds for p in runs)
        counted = sum((p.positions if moves is None else p.plies) for p in runs)
        evaluations = sum(p.evaluations for p in runs)
        per = evaluations / max(counted, 1)
        label = f"1w {name} overlap {'on' if overlap else 'off'}"
        rates[overlap] = counted / seconds
        out += [
            record(spec, label, "selfplay_games_played", sum(p.games for p in runs), "games"),
            record(spec, label, f"selfplay_{unit}_per_s", counted / seconds, f"{unit}/s"),
            record(spec, label, f"evaluations_per_{unit[:-1]}", per, "evaluations"),
            record(spec, label, f"forward_bound_{unit}_per_s", forward_s / per, f"{unit}/s"),
            # (counted / seconds) / (forward_s / per): the network's share of the time
            record(spec, label, "selfplay_over_forward_bound", evaluations / (seconds * forward_s), "ratio"),
        ]
    out.append(record(spec, f"1w {name} on/off", "overlap_speedup", rates[True] / rates[False], "ratio"))
    return out


def bench_selfplay_backend(
    params: Params,
    net: PolicyValueNet,
    device: str,
    rounds: int,
    cache_dir: str | None,
    quick: bool = False,
    progress=None,
) -> list[Record]:
    """The backend self-play uses (the params' `inference`, on `device`): the search's
    simulations/s against its bare forward pass (`bench.search.bench_network`, with the
    params' search), and self-play with overlap off and on against the forward-bound rate
    (`bench_overlap`), on one task's share of a self-play stage (`selfplay.games /
    selfplay.tasks` games, the slots refilled as the stage refills them: a lone lockstep
    batch would also time its tail, the last games searched in tiny batches)."""
    spec = params.game
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    batch = config.parallel_games * config.search.leaves_per_step
    inference = params.inference.model_copy(update={"device": device, "cache_dir": cache_dir})
    evaluator = NetEvaluator(net, params.selfplay.torch_threads, inference, batch)
    name = f"{evaluator.backend}:{evaluator.precision}"
    if progress:
        progress(f"search against the forward pass, {name}")
    records = bench_network(
        spec,
        config.parallel_games,
        config.search.simulations,
        3 if quick else 9,
        params.selfplay.torch_threads,
        evaluator=evaluator,
        config=config.search,
        label=f"selfplay {name}",
    )
    per_task = params.selfplay.games // params.selfplay.tasks
    return records + bench_overlap(
        spec,
        evaluator,
        config,
        name,
        max(rounds, 2),
        repeats=3 if quick else 9,
        progress=progress,
        games=config.parallel_games if quick else per_task,
    )


def bench_forward_variants(
    boards: list[str], variants: list[str], device: str, batch: int, threads: int, repeats: int, cache_dir: str | None
) -> list[Record]:
    """Bare forward positions/s of the 3x64 net at the self-play batch, every variant
    timed in alternation with eager torch."""
    out = []
    for text in boards:
        spec = GameSpec.parse(text)
        torch.manual_seed(0)
        net = PolicyValueNet(spec, NetSpec()).eval()
        rng = np.random.default_rng(0)
        obs = rng.integers(0, 2, (batch, *spec.obs_shape)).astype(np.float32)
        fns = {
            v: NetEvaluator(net, threads, inference_config(v, device, cache_dir), batch) for v in [BASELINE, *variants]
        }
        seconds = interleaved_medians(fns, obs, repeats)  # type: ignore[arg-type]
        for name, s in seconds.items():
            out.append(record(spec, f"batch {batch} {name}", "forward_positions_per_s", batch / s, "positions/s"))
            out.append(record(spec, f"batch {batch} {name}", "forward_vs_torch_eager", seconds[BASELINE] / s, "ratio"))
    return out


def bench_training_device(params: Params, device: str, steps: int) -> list[Record]:
    """Training samples/s on `device` with the workspace's net and batch (forward, backward,
    Adam: what Lightning runs per step), and the DataModule's own samples/s making those
    batches (gather, float conversion, a symmetry per sample), which must stay well above."""
    from pipeline.selfplay.replay import Positions
    from pipeline.training.data import ReplayDataModule
    from pipeline.training.loop import trainer_device
    from pipeline.training.module import PolicyValueModule

    spec = params.game
    accelerator, precision = trainer_device(device)
    batch = params.train.batch_size
    rng = np.random.default_rng(0)
    n = 4 * batch
    positions = Positions(
        obs=rng.integers(0, 2, (n, *spec.obs_shape)).astype(np.uint8),
        pi=rng.dirichlet(np.ones(spec.num_actions), n).astype(np.float32),
        z=rng.choice([-1, 1], n).astype(np.int8),
        game_id=np.arange(n, dtype=np.int32),
        ply=np.zeros(n, dtype=np.int16),
    )
    data = ReplayDataModule(spec, positions=positions, batch_size=batch, augment=params.train.augment)
    data.setup()
    indices = list(range(batch))
    data.collate(indices)
    collate_s = statistics.median(timed_once(lambda: data.collate(indices)) for _ in range(5))

    net = PolicyValueNet(spec, params.net).to(accelerator)
    module = PolicyValueModule(net, params.train)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs, pi, z = (t.to(accelerator) for t in data.collate(indices))
    autocast = torch.autocast(accelerator, dtype=torch.bfloat16 if "bf16" in precision else torch.float16)
    mixed = precision != "32-true"

    def step() -> None:
        opt.zero_grad()
        with autocast if mixed else torch.autocast(accelerator, enabled=False):
            loss = module.losses(obs, pi, z)["loss"]
        loss.backward()
        opt.step()
        if accelerator == "cuda":
            torch.cuda.synchronize()

    step()
    seconds = timed_once(lambda: [step() for _ in range(steps)])
    where = f"{accelerator} {precision}"
    return [
        record(spec, where, "train_samples_per_s", steps * batch / seconds, "samples/s"),
        record(spec, where, "datamodule_samples_per_s", batch / collate_s, "samples/s"),
    ]


def timed_once(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_reference(
    params: Params, variant: str, device: str, workers: int, cache_dir: str | None, progress=None
) -> list[Record]:
    """Games/hour on the reference's setting (8x8 five in a row, 400 simulations a move)
    with our default net and self-play settings, on `workers` workers, each playing
    `REFERENCE_BATCHES` times `parallel_games` games with the slots refilled as a self-play
    task refills them; and the reference's figure for as many cores.

    One lockstep batch a worker would also time its tail (the last games searched in
    batches of a few leaves) as if every batch ended so; a stage's task plays four. The
    ceiling's forward rate is measured before and after the games (it moved by 15% between
    two runs on a shared machine)."""
    spec = GameSpec.parse(REFERENCE_BOARD)
    update = {"simulations": 400}
    search = params.selfplay.search.model_copy(update=update)
    config = SelfPlayConfig.model_validate(
        params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)) | {"search": search.model_dump()}
    )
    torch.manual_seed(0)
    net = PolicyValueNet(spec, NetSpec())
    batch = config.parallel_games * config.search.leaves_per_step
    evaluator = NetEvaluator(net, params.selfplay.torch_threads, inference_config(variant, device, cache_dir), batch)
    if progress:
        progress(f"reference setting: 400 simulations, {variant}, {workers} workers")
    before = [forward_rate(evaluator, spec, batch, 5), concurrent_forward_rate(evaluator, spec, batch, 5, workers)]
    played = play_workers(spec, evaluator, config, workers, REFERENCE_BATCHES * config.parallel_games, seed=7)
    ours = 3600 * played.games / played.seconds
    reference = workers * 3600 / REFERENCE_SECONDS_PER_GAME
    label = f"400 sims {workers}w {variant}"
    # The ceiling: every worker's core doing nothing but forward passes at the self-play
    # batch, all at once as the workers run, for the network evaluations these games needed
    # (one core's rate times the workers is printed beside it: the older, looser bound).
    single = (before[0] + forward_rate(evaluator, spec, batch, 5)) / 2
    together = (before[1] + concurrent_forward_rate(evaluator, spec, batch, 5, workers)) / 2
    per_game = played.evaluations / max(played.games, 1)
    return [
        record(spec, label, "selfplay_games_per_hour", ours, "games/h"),
        record(spec, label, "selfplay_mean_plies", played.plies / played.games, "plies"),
        record(spec, label, "evaluations_per_game", per_game, "evaluations"),
        record(spec, label, "forward_bound_games_per_hour", 3600 * together / max(per_game, 1), "games/h"),
        record(
            spec,
            label,
            "one_core_forward_x_workers_games_per_hour",
            workers * 3600 * single / max(per_game, 1),
            "games/h",
        ),
        record(spec, label, "selfplay_over_forward_bound", ours * max(per_game, 1) / (3600 * together), "ratio"),
        record(spec, f"reference, {workers} cores", "reference_games_per_hour", reference, "games/h"),
        record(spec, label, "vs_reference", ours / reference, "ratio"),
    ]


FORWARD_BOARDS = ("gomoku:9x9:k5", "gomoku:15x15:k5")  # the forward pass at the self-play batch, beside params'


def run_selfplay_bench(
    params: Params,
    net: PolicyValueNet | None,
    variants: list[str] | None,
    device: str,
    workers: int,
    rounds: int,
    quick: bool,
    progress=None,
) -> list[Record]:
    """Everything `zero bench --selfplay` prints on one device, in one run (the options as
    `run_selfplay_bench_on` takes them)."""
    if quick:
        search = params.selfplay.search.model_copy(update={"simulations": 16})
        params = params.model_copy(
            update={"selfplay": params.selfplay.model_copy(update={"parallel_games": 4, "search": search})}
        )
    where = resolve_device(device)
    variants = [v for v in (variants or default_variants(where)) if v != BASELINE]
    if net is None:
        torch.manual_seed(0)
        net = PolicyValueNet(params.game, params.net)
    threads = params.selfplay.torch_threads
    batch = params.selfplay.parallel_games * params.selfplay.search.leaves_per_step
    if progress:
        progress("forward pass at the self-play batch")
    records = bench_forward_variants(list(FORWARD_BOARDS), variants, where, batch, threads, 3 if quick else 9, None)
    sp, auto_name = bench_selfplay_variants(params, net, variants, where, workers, rounds, None, progress)
    records += sp
    records += bench_selfplay_backend(params, net, where, rounds, None, quick, progress)
    if progress:
        progress("training step and DataModule")
    records += bench_training_device(params, where, 2 if quick else 10)
    if not quick:
        records += bench_reference(params, auto_name, where, workers, None, progress)
    return records


def run_selfplay_bench_on(
    params_file: Path | None,
    model: Path | None = None,
    variants: list[str] | None = None,
    device: str = "auto",
    workers: int = 2,
    rounds: int = 1,
    quick: bool = False,
    progress=None,
) -> list[Record]:
    """`run_selfplay_bench` on a params file (None: the defaults) and a checkpoint to play
    (None: a fresh net). With `device` auto on a machine with a GPU, the whole bench runs on
    the CPU and then on the GPU, each row labelled with its device, so the two stand side by
    side (`variants` are the CPU's then; the GPU runs its defaults); without one, or with
    cpu or cuda named, on that device alone. A ValueError for
    params, a checkpoint, a backend or a device this machine cannot run."""
    loaded = load_params(params_file)
    net = load_checkpoint(model, loaded.game)[0] if model else None
    devices = bench_devices(device)
    out: list[Record] = []
    for where in devices:
        if progress and len(devices) > 1:
            progress(f"on the {where.upper()}")
        # Backends named for the CPU may not run on the GPU: the GPU run takes its own defaults.
        chosen = variants if where != "cuda" or len(devices) == 1 else None
        records = run_selfplay_bench(loaded, net, chosen, where, workers, rounds, quick, progress=progress)
        if len(devices) > 1:
            records = [replace(r, position=f"{where}: {r.position}") for r in records]
        out += records
    return out


def bench_devices(device: str) -> list[str]:
    """The devices `zero bench --selfplay` runs on: both when auto finds a GPU."""
    if device == "auto" and resolve_device("auto") == "cuda":
        return ["cpu", "cuda"]
    return [device]
