"""Stage 1, self-play: the learner (or, with `selfplay.player: champion`, the champion)
plays the generation's games, split into tasks that a Prefect flow runs in parallel
(threads, processes, or a Dask cluster). A task writes its games as they end: after each
move of its lockstep that ended games, those games become a part shard, written
atomically, so that a Ctrl-C or a kill keeps every game that ended. At its end a task's
parts are merged into its one shard. A rerun plays only the games still missing, each
with the random streams of (params seed, generation, task, game), so they are the games
an uninterrupted run plays (pipeline.selfplay.play says what the games in lockstep still
share)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.config import Params
from pipeline.games.base import GameSpec
from pipeline.runtime import interrupt
from pipeline.runtime.progress import Progress, current, set_current
from pipeline.runtime.workspace import derive_seed, load_state
from pipeline.search.evaluator import Evaluator
from pipeline.selfplay.play import FinishedGame, SelfPlayConfig, games_figures
from pipeline.selfplay.replay import (
    ARRAYS,
    Positions,
    ReplayError,
    generation_dir,
    part_shard_path,
    part_shard_paths,
    read_header,
    read_shard,
    shard_paths,
    spec_header,
    task_shard_path,
    write_shard,
)
from pipeline.selfplay.resign import resign_threshold_for
from pipeline.stages.interface import SelfplayReport, StageContext, write_report

# Figures of a shard header that add up over the parts of a task.
SUMMED = (
    "first_player_wins",
    "second_player_wins",
    "draws",
    "plies",
    "resigned",
    "calibration_games",
    "would_resign",
    "false_resignations",
    "simulations",
    "seconds",
)
PART_ONLY = ("game_ids", "task_games", "format", "positions")  # header fields a merged shard drops


def plan(games: int, tasks: int) -> list[int]:
    """Games per task, as even as possible."""
    tasks = min(tasks, games)
    base, extra = divmod(games, tasks)
    return [base + (1 if i < extra else 0) for i in range(tasks)]


class PartWriter:
    """A task's finished games, each lockstep move's as one part shard: written at once
    and atomically where the task runs (`job["write_here"]`), or, on a remote Dask worker
    that does not share the folder, kept to be written by the flow."""

    def __init__(self, spec: GameSpec, job: dict[str, Any], started_at: float):
        self.spec = spec
        self.job = job
        self.started_at = started_at
        self.last = started_at
        self.evaluations = 0
        self.games = 0
        self.positions = 0
        self.unwritten: list[tuple[dict[str, np.ndarray], dict[str, Any]]] = []

    def __call__(self, games: list[FinishedGame], evaluations: int) -> None:
        job, now = self.job, time.time()
        kept = [g.positions for g in games if g.positions is not None]
        positions = Positions.concat(kept) if kept else Positions.empty(self.spec.obs_shape, self.spec.num_actions)
        ids = sorted(g.game_id for g in games)
        header = {
            **job["header"],
            **games_figures(games),
            "task": job["task"],
            "seed": job["seed"],
            "task_games": job["games"],
            "game_ids": ids,
            "simulations": evaluations - self.evaluations,  # the evaluations since the last part
            "seconds": round(now - self.last, 3),
            # The task's wall-clock span so far: the parts of one run overlap, and a resumed
            # generation's time is the union of the spans (`wall_seconds`).
            "started_at": round(self.started_at, 3),
            "finished_at": round(now, 3),
        }
        if job["write_here"]:
            write_shard(part_shard_path(Path(job["out_dir"]), job["task"], ids[0]), positions, header)
        else:
            self.unwritten.append(({k: getattr(positions, k) for k in ARRAYS}, header))
        self.evaluations, self.last = evaluations, now
        self.games += len(games)
        self.positions += len(positions)


def play_task(
    spec: GameSpec,
    evaluator: Evaluator,
    job: dict[str, Any],
    started_at: float | None = None,
    should_stop: Callable[[], bool] = interrupt.requested,
) -> dict[str, Any]:
    """Play the job's missing games (`job["only"]`), their parts written as they end. A
    stop (`should_stop`) is not an error: the result says how far it got."""
    from pipeline.selfplay.play import play_games

    config = SelfPlayConfig.model_validate(job["selfplay"])
    writer = PartWriter(spec, job, time.time() if started_at is None else started_at)
    progress = current()  # set only in the stage's own process (tasks on threads)
    reported = 0

    def game_done(game_id: int, kept: int) -> None:
        nonlocal reported
        reported += 1
        if progress is not None:
            progress.update(1, positions=kept)

    interrupted = False
    try:
        play_games(
            spec,
            evaluator,
            job["games"],
            config,
            seed=job["seed"],
            on_game_end=game_done,
            should_stop=should_stop,
            only=job["only"],
            on_finished=writer,
        )
    except interrupt.Interrupted:
        interrupted = True
    return {
        "task": job["task"],
        "games": writer.games,
        "positions": writer.positions,
        "unwritten": writer.unwritten,
        "interrupted": interrupted,
        "reported_games": reported if progress is not None else 0,
    }


def play_shard(job: dict[str, Any], model: bytes) -> dict[str, Any]:
    """One task: load the model from bytes and play. Plain data in and out, so it runs the
    same in a thread, a process or on a remote Dask worker."""
    from pipeline.nets.checkpoint import load_checkpoint
    from pipeline.nets.evaluator import shared_evaluator
    from pipeline.nets.inference import InferenceConfig

    started_at = time.time()  # the task's span includes loading the model and the evaluator
    interrupt.install_in_worker()  # in a pool worker process: a signal stops its games
    spec = GameSpec.model_validate(job["game"])
    net, _ = load_checkpoint(Path(job["model_path"]), spec, data=model)
    config = SelfPlayConfig.model_validate(job["selfplay"])
    # One evaluator per process (tasks on threads share it), with its own thread count:
    # the process's torch setting is left alone. `auto` is measured at the real batch.
    batch = config.parallel_games * config.search.leaves_per_step
    if config.overlap:  # the network sees half the games at a time
        batch = (config.parallel_games + 1) // 2 * config.search.leaves_per_step
    inference = InferenceConfig.model_validate(job["inference"])
    evaluator = shared_evaluator(net, inference, threads=job["torch_threads"], batch=batch)
    return play_task(spec, evaluator, job, started_at)


def write_result(job: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """In the flow, as a task ends: write the parts its worker could not, count its games
    if another process played them, and merge the task's parts into its shard once all its
    games are there. The merged shard's header, or None (a stopped task)."""
    out_dir = Path(job["out_dir"])
    for arrays, header in result["unwritten"]:
        write_shard(part_shard_path(out_dir, job["task"], header["game_ids"][0]), Positions(**arrays), header)
    progress = current()
    reported = result["reported_games"]
    if progress is not None and result["games"] > reported:  # played in another process
        progress.update(result["games"] - reported, positions=result["positions"])
    if result["interrupted"]:
        return None
    return merge_parts(out_dir, GameSpec.model_validate(job["game"]), job["task"], job["games"])


def union_spans(spans: list[tuple[float, float]]) -> list[list[float]]:
    """Overlapping wall-clock spans joined: the disjoint spans that cover them."""
    joined: list[list[float]] = []
    for a, b in sorted(spans):
        if joined and a <= joined[-1][1]:
            joined[-1][1] = max(joined[-1][1], b)
        else:
            joined.append([a, b])
    return joined


def spans_of(header: dict[str, Any]) -> list[tuple[float, float]]:
    if "spans" in header:
        return [(a, b) for a, b in header["spans"]]
    if "started_at" in header and "finished_at" in header:
        return [(header["started_at"], header["finished_at"])]
    return []


def merge_parts(out_dir: Path, spec: GameSpec, task: int, games: int) -> dict[str, Any]:
    """Merge a task's parts, which must hold each of its games once, into its shard (the
    positions in game order, so a resumed task's shard is an uninterrupted one's), then
    delete them. Cut short between the two, the parts are left out by every reader
    (`shard_paths`) and deleted by the next run. Returns the shard's header."""
    parts = [read_shard(path, spec) for path in part_shard_paths(out_dir, task)]
    parts.sort(key=lambda p: p.header["game_ids"][0])
    ids = sorted(i for p in parts for i in p.header["game_ids"])
    if ids != list(range(games)):
        raise ReplayError(f"{out_dir}: the parts of task {task} hold games {ids}, not 0..{games - 1} once each")
    joined = Positions.concat(parts)
    order = np.argsort(joined.game_id, kind="stable")  # each game's positions stay in ply order
    positions = joined.take(order)
    headers = [p.header for p in parts]
    header = {k: v for k, v in headers[0].items() if k not in PART_ONLY}
    for key in SUMMED:
        header[key] = sum(h.get(key, 0) for h in headers)
    header["seconds"] = round(header["seconds"], 3)
    header["games"] = games
    header["winner_min_values"] = [v for h in headers for v in h.get("winner_min_values", [])]
    spans = union_spans([s for h in headers for s in spans_of(h)])
    header.update(spans=spans, started_at=spans[0][0], finished_at=spans[-1][1])
    write_shard(task_shard_path(out_dir, task), positions, header)
    for path in part_shard_paths(out_dir, task):
        path.unlink(missing_ok=True)
    return {**header, "positions": len(positions)}


def wall_seconds(headers: list[dict[str, Any]], workers: int) -> float:
    """Self-play time of a generation's shards, whichever runs played them: the union of
    their wall-clock spans (parallel tasks overlap; the pause of an interrupt is left
    out). Shards from before the spans were recorded count their seconds over `workers`."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(s for h in headers for s in spans_of(h)):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    legacy = sum(h.get("seconds", 0.0) for h in headers if not spans_of(h))
    return total + legacy / max(1, workers)


def describe(progress: Progress) -> str:
    positions = progress.figures.get("positions", 0)
    return f"games, {int(positions):,} positions, {progress.rate('positions'):.1f} positions/s, ETA {progress.eta()}"


def selfplay_config(params: Params, generation: int) -> SelfPlayConfig:
    """The per-game self-play settings; threat guidance is switched on for the early
    generations when `threat_guidance_until` asks for it."""
    config = SelfPlayConfig.model_validate(params.selfplay.model_dump(include=set(SelfPlayConfig.model_fields)))
    if generation <= params.selfplay.threat_guidance_until:
        config.search = config.search.model_copy(update={"threat_guidance": True})
    return config


def task_on_disk(
    out_dir: Path, spec: GameSpec, task: int, games: int, seed: int
) -> tuple[dict[str, Any] | None, set[int]]:
    """What a task has on disk: its shard's header when it is complete (else None), and the
    ids of its games already played. A damaged file, or one from other params (another
    number of games, another seed), is deleted and its games played again; so are the
    parts that a merge cut short left beside a complete shard."""
    whole = task_shard_path(out_dir, task)
    if whole.is_file():
        try:
            header: dict[str, Any] | None = read_shard(whole, spec).header
        except ReplayError:
            header = None  # a damaged shard from an earlier run is replayed, not trusted
        if header is not None and header.get("games") == games:
            for path in part_shard_paths(out_dir, task):
                path.unlink(missing_ok=True)
            return header, set(range(games))
        whole.unlink()
    done: set[int] = set()
    for path in part_shard_paths(out_dir, task):
        try:
            part = read_shard(path, spec).header
        except ReplayError:
            part = {}
        ids = part.get("game_ids") or []
        ours = part.get("seed") == seed and part.get("task_games") == games
        if not ours or not ids or any(not 0 <= i < games or i in done for i in ids):
            path.unlink()
            continue
        done.update(ids)
    return None, done


@dataclass
class Plan:
    """The generation's tasks as the folder finds them."""

    complete: dict[int, dict[str, Any]]  # task -> header of its shard, complete before this run
    jobs: list[dict[str, Any]]  # the tasks with games still to play
    tasks: int
    played: int  # games already on disk


def plan_jobs(params: Params, out_dir: Path, generation: int, model_path: Path, header: dict[str, Any]) -> Plan:
    """The jobs still to play, each with the ids of its missing games. A task whose games
    are all on disk in parts (a merge cut short) is merged here."""
    spec = params.game
    sizes = plan(params.selfplay.games, params.selfplay.tasks)
    # A remote Dask worker may not share this folder: its parts come back to the flow.
    write_here = not (params.selfplay.runner == "dask" and params.selfplay.dask_address)
    result = Plan({}, [], len(sizes), 0)
    for task, games in enumerate(sizes):
        seed = derive_seed(params.seed, generation, task)
        found, done = task_on_disk(out_dir, spec, task, games, seed)
        result.played += len(done)
        if found is None and len(done) == games:
            found = merge_parts(out_dir, spec, task, games)
        if found is not None:
            result.complete[task] = found
            continue
        result.jobs.append(
            {
                "task": task,
                "out_dir": str(out_dir),
                "write_here": write_here,
                "header": header,
                "game": spec.model_dump(),
                "selfplay": selfplay_config(params, generation).model_dump(),
                "games": games,
                "only": [i for i in range(games) if i not in done],
                "seed": seed,
                "model_path": str(model_path),
                "torch_threads": params.selfplay.torch_threads,
                "inference": params.inference.model_dump(),
            }
        )
    return result


def games_on_disk(out_dir: Path, tasks: int) -> int:
    """The games of the generation's tasks that its shards hold (headers alone are read)."""
    count = 0
    for path in shard_paths(out_dir):
        try:
            header = read_header(path)
        except ReplayError:
            continue
        if 0 <= header.get("task", -1) < tasks:
            count += int(header.get("games", 0))
    return count


def play_jobs(params: Params, jobs: list[dict[str, Any]], generation: int) -> tuple[list[dict[str, Any]], int]:
    """(the headers of the task shards the jobs completed, all of them unless interrupted;
    the games that ended in this run)."""
    from pipeline.runtime.parallel import run_selfplay_flow

    cfg = params.selfplay
    progress = Progress(f"self-play gen {generation}", sum(len(j["only"]) for j in jobs), describe)
    set_current(progress)
    try:
        with interrupt.cooperative():
            headers = run_selfplay_flow(jobs, cfg.runner, cfg.workers, cfg.dask_address, play_shard, write_result)
    finally:
        set_current(None)
        progress.close()
    return headers, progress.done


def summarize(
    params: Params, generation: int, total: list[dict[str, Any]], resumed: int, model_hash: str
) -> SelfplayReport:
    """The generation's report over all its shards (`resumed`: those of earlier runs)."""
    seconds = wall_seconds(total, params.selfplay.workers)
    games = sum(h["games"] for h in total)
    positions = sum(h["positions"] for h in total)
    # Shards from before playout caps and resignation have neither plies nor these counts.
    plies = sum(h.get("plies", h["positions"]) for h in total)
    would = sum(h.get("would_resign", 0) for h in total)
    false = sum(h.get("false_resignations", 0) for h in total)
    suggested = resign_threshold_for([v for h in total for v in h.get("winner_min_values", [])])

    def rate(key: str) -> float:
        return round(sum(h[key] for h in total) / games, 4) if games else 0.0

    return SelfplayReport(
        generation=generation,
        games=games,
        positions=positions,
        mean_game_length=round(plies / games, 3) if games else 0.0,
        first_player_win_rate=rate("first_player_wins"),
        second_player_win_rate=rate("second_player_wins"),
        draw_rate=rate("draws"),
        positions_per_s=round(positions / seconds, 2) if seconds else 0.0,
        seconds=round(seconds, 2),
        shards=len(total),
        resumed_shards=resumed,
        simulations=params.selfplay.search.simulations,
        fast_simulations=params.selfplay.fast_simulations,
        runner=params.selfplay.runner,
        player=params.selfplay.player,
        model_hash=model_hash,
        resign_threshold=params.selfplay.resign_threshold,
        resigned_games=sum(h.get("resigned", 0) for h in total),
        calibration_games=sum(h.get("calibration_games", 0) for h in total),
        false_resignation_rate=round(false / would, 4) if would else None,
        suggested_resign_threshold=round(suggested, 4) if suggested is not None else None,
    )


def run(context: StageContext) -> SelfplayReport:
    from pipeline.nets.checkpoint import file_hash

    params, paths = context.params, context.paths
    generation = load_state(paths).generation + 1
    out_dir = generation_dir(paths.replay, generation)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob(".tmp-*"):
        stale.unlink()  # a killed writer's temp file: never a visible shard
    model_path = paths.learner if params.selfplay.player == "learner" else paths.champion
    if not model_path.is_file():
        raise FileNotFoundError(f"{model_path}: no {params.selfplay.player} model; run `zero init` first")
    model_hash = file_hash(model_path)
    base_header = {
        **spec_header(params.game),
        "generation": generation,
        "model_hash": model_hash,
        "player": params.selfplay.player,
        "simulations": params.selfplay.search.simulations,
    }
    work = plan_jobs(params, out_dir, generation, model_path, base_header)
    games = params.selfplay.games
    if work.played:
        context.log(
            f"generation {generation}: {work.played} of {games} games already played, {games - work.played} to play"
        )
    headers = dict(work.complete)
    if work.jobs:
        done, finished = play_jobs(params, work.jobs, generation)
        for header in done:
            headers[header["task"]] = header
        if interrupt.requested():
            raise interrupt.Interrupted(
                f"self-play: {games_on_disk(out_dir, work.tasks)} of {games} games kept in {out_dir} "
                f"({finished} ended in this run)"
            )
    total = [headers[t] for t in sorted(headers)]
    report = summarize(params, generation, total, len(work.complete), model_hash)
    write_report(paths, report)
    return report
