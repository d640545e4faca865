"""Stage 1, self-play: the learner (or, with `selfplay.player: champion`, the champion)
plays the generation's games, split into tasks that a
Prefect flow runs in parallel (threads, processes, or a Dask cluster). Each finished task
becomes one shard, written atomically; a rerun plays only the shards still missing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.config import Params
from pipeline.games.base import GameSpec
from pipeline.runtime import interrupt
from pipeline.runtime.progress import Progress, current, set_current
from pipeline.runtime.workspace import derive_seed, load_state
from pipeline.selfplay.play import SelfPlayConfig
from pipeline.selfplay.replay import (
    ARRAYS,
    Positions,
    ReplayError,
    generation_dir,
    read_shard,
    spec_header,
    write_shard,
)
from pipeline.selfplay.resign import resign_threshold_for
from pipeline.stages.interface import SelfplayReport, StageContext, write_report


def plan(games: int, tasks: int) -> list[int]:
    """Games per task, as even as possible."""
    tasks = min(tasks, games)
    base, extra = divmod(games, tasks)
    return [base + (1 if i < extra else 0) for i in range(tasks)]


def play_shard(job: dict[str, Any], model: bytes) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """One task: load the model from bytes and play. Plain data in and out, so it runs the
    same in a thread, a process or on a remote Dask worker."""
    from pipeline.nets.checkpoint import load_checkpoint
    from pipeline.nets.evaluator import shared_evaluator
    from pipeline.nets.inference import InferenceConfig
    from pipeline.selfplay.play import play_games

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
    progress = current()  # set only in the stage's own process (tasks on threads)
    reported = 0

    def game_done(game_id: int, kept: int) -> None:
        nonlocal reported
        reported += 1
        if progress is not None:
            progress.update(1, positions=kept)

    positions, stats = play_games(
        spec, evaluator, job["games"], config, seed=job["seed"], on_game_end=game_done, should_stop=interrupt.requested
    )
    arrays = {k: getattr(positions, k) for k in ARRAYS}
    summary = {
        "games": stats.games,
        "positions": stats.positions,
        "first_player_wins": stats.first_player_wins,
        "second_player_wins": stats.second_player_wins,
        "draws": stats.draws,
        "seconds": round(stats.seconds, 3),
        # Wall-clock span, so a resumed generation's figures include earlier runs' shards.
        "started_at": round(started_at, 3),
        "finished_at": round(time.time(), 3),
        "simulations": stats.simulations,
        "plies": stats.plies,
        "resigned": stats.resigned,
        "calibration_games": stats.calibration_games,
        "would_resign": stats.would_resign,
        "false_resignations": stats.false_resignations,
        "winner_min_values": [round(v, 4) for v in stats.winner_min_values],
        "reported_games": reported if progress is not None else 0,
    }
    return arrays, summary


def write_result(job: dict[str, Any], base_header: dict[str, Any], arrays, summary) -> dict[str, Any]:
    summary = dict(summary)
    reported = summary.pop("reported_games", 0)
    header = {**base_header, **summary, "seed": job["seed"], "task": job["task"]}
    write_shard(Path(job["path"]), Positions(**arrays), header)
    progress = current()
    if progress is not None and summary["games"] > reported:  # played in another process
        progress.update(summary["games"] - reported, positions=summary["positions"])
    return header


def wall_seconds(headers: list[dict[str, Any]], workers: int) -> float:
    """Self-play time of a generation's shards, whichever runs played them: the union of
    their wall-clock spans (parallel tasks overlap; the pause of an interrupt is left
    out). Shards from before the spans were recorded count their seconds over `workers`."""
    spans = sorted((h["started_at"], h["finished_at"]) for h in headers if "started_at" in h and "finished_at" in h)
    total, end = 0.0, float("-inf")
    for a, b in spans:
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    legacy = sum(h.get("seconds", 0.0) for h in headers if "started_at" not in h or "finished_at" not in h)
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


def existing_shard(path: Path, spec: GameSpec, games: int) -> dict[str, Any] | None:
    """The header of a complete shard already on disk, or None if it must be (re)played."""
    if not path.is_file():
        return None
    try:
        header = read_shard(path, spec).header
    except ReplayError:
        path.unlink()  # a damaged shard from an earlier run is replayed, not trusted
        return None
    return header if header.get("games") == games else None


def plan_jobs(
    params: Params, out_dir: Path, generation: int, model_path: Path
) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]], int]:
    """(headers of the shards already complete, jobs still to play, number of shards)."""
    spec = params.game
    sizes = plan(params.selfplay.games, params.selfplay.tasks)
    headers: dict[int, dict[str, Any]] = {}
    jobs = []
    for task, games in enumerate(sizes):
        path = out_dir / f"shard-{task:04d}.npz"
        found = existing_shard(path, spec, games)
        if found is not None:
            headers[task] = found
            continue
        jobs.append(
            {
                "task": task,
                "path": str(path),
                "game": spec.model_dump(),
                "selfplay": selfplay_config(params, generation).model_dump(),
                "games": games,
                "seed": derive_seed(params.seed, generation, task),
                "model_path": str(model_path),
                "torch_threads": params.selfplay.torch_threads,
                "inference": params.inference.model_dump(),
            }
        )
    return headers, jobs, len(sizes)


def play_jobs(
    params: Params, jobs: list[dict[str, Any]], base_header: dict[str, Any], generation: int
) -> list[dict[str, Any]]:
    """The headers of the shards the jobs wrote (all of them unless interrupted)."""
    from pipeline.runtime.parallel import run_selfplay_flow

    cfg = params.selfplay
    progress = Progress(f"self-play gen {generation}", sum(j["games"] for j in jobs), describe)
    set_current(progress)
    try:
        with interrupt.cooperative():
            return run_selfplay_flow(
                jobs, base_header, cfg.runner, cfg.workers, cfg.dask_address, play_shard, write_result
            )
    finally:
        set_current(None)
        progress.close()


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
    headers, jobs, shards = plan_jobs(params, out_dir, generation, model_path)
    if headers:
        context.log(f"generation {generation}: {len(headers)} shard(s) already complete, {len(jobs)} to play")
    base_header = {
        **spec_header(params.game),
        "generation": generation,
        "model_hash": model_hash,
        "player": params.selfplay.player,
        "simulations": params.selfplay.search.simulations,
    }
    if jobs:
        for header in play_jobs(params, jobs, base_header, generation):
            headers[header["task"]] = header
        if interrupt.requested():
            kept = [headers[t] for t in sorted(headers)]
            raise interrupt.Interrupted(
                f"self-play: {len(kept)} of {shards} shards ({sum(h['games'] for h in kept)} of "
                f"{params.selfplay.games} games) kept in {out_dir}"
            )
    total = [headers[t] for t in sorted(headers)]
    report = summarize(params, generation, total, len(total) - len(jobs), model_hash)
    write_report(paths, report)
    return report
