"""Stage 2, train: the learner continues (weights and optimiser state) on the replay
window; the result is the candidate, which promote makes the next learner whatever the
gate decides, so no training is thrown away."""

from __future__ import annotations

from typing import Any

from pipeline.config import Params
from pipeline.nets.checkpoint import file_hash
from pipeline.runtime.tracking import generation_tags
from pipeline.runtime.workspace import Paths, derive_seed, load_state, write_json
from pipeline.training.data import ReplayDataModule
from pipeline.training.loop import train_network


def run_train(params: Params, paths: Paths, tracking_uri: str, progress: bool = False) -> dict[str, Any]:
    state = load_state(paths)
    generation = state.generation + 1
    cfg = params.train.model_copy(update={"seed": derive_seed(params.seed, params.train.seed, generation) % 2**31})
    data = ReplayDataModule.for_training(params.game, paths.replay, cfg)
    data.setup()
    result = train_network(
        params.game,
        params.net,
        cfg,
        data,
        paths.candidate,
        tracking_uri,
        init=paths.learner,
        resume_optimizer=True,
        run_name=f"gen-{generation:04d}",
        extra_params={"generation": generation},
        tags=generation_tags(paths.root, generation),
        progress=progress,
    )
    metrics = {
        "generation": generation,
        "run_id": result.run_id,
        "experiment_id": result.experiment_id,
        "steps": result.steps,
        "positions": result.positions,
        "seconds": round(result.seconds, 2),
        "samples_per_s": round(result.samples_per_s, 1),
        "skipped_shards": result.skipped,
        "optimizer_resumed": result.optimizer_resumed,
        "init_hash": file_hash(paths.learner),
        "candidate_hash": file_hash(paths.candidate),
        **{f"final_{k}": round(v, 5) for k, v in result.final.items()},
    }
    write_json(paths.report("train.json"), metrics)
    return metrics
