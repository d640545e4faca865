"""Stage 2, train: the learner continues (weights and optimiser state) on the replay
window; the result is the candidate, which promote makes the next learner whatever the
gate decides, so no training is thrown away."""

from __future__ import annotations

from pipeline.nets.checkpoint import file_hash
from pipeline.runtime.tracking import generation_tags
from pipeline.runtime.workspace import derive_seed, load_state
from pipeline.stages.interface import StageContext, TrainReport, write_report
from pipeline.training.data import ReplayDataModule
from pipeline.training.loop import train_network


def run(context: StageContext) -> TrainReport:
    params, paths = context.params, context.paths
    generation = load_state(paths).generation + 1
    cfg = params.train.model_copy(update={"seed": derive_seed(params.seed, params.train.seed, generation) % 2**31})
    data = ReplayDataModule.for_training(params.game, paths.replay, cfg)
    data.setup()
    result = train_network(
        params.game,
        params.net,
        cfg,
        data,
        paths.candidate,
        context.tracking_uri,
        init=paths.learner,
        resume_optimizer=True,
        run_name=f"gen-{generation:04d}",
        extra_params={"generation": generation},
        tags=generation_tags(paths.root, generation),
        progress=context.progress,
    )
    report = TrainReport(
        generation=generation,
        run_id=result.run_id,
        experiment_id=result.experiment_id,
        steps=result.steps,
        positions=result.positions,
        seconds=round(result.seconds, 2),
        samples_per_s=round(result.samples_per_s, 1),
        skipped_shards=result.skipped,
        optimizer_resumed=result.optimizer_resumed,
        init_hash=file_hash(paths.learner),
        candidate_hash=file_hash(paths.candidate),
        **{f"final_{k}": round(v, 5) for k, v in result.final.items()},
    )
    write_report(paths, report)
    return report
