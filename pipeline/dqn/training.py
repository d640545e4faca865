"""One DQN training run: self-play experience, Lightning, MLflow, a checkpoint."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import lightning as L
from lightning.pytorch.loggers import MLFlowLogger

from pipeline.dqn.checkpoint import save_dqn
from pipeline.dqn.config import DQNConfig
from pipeline.dqn.module import DQNModule
from pipeline.games.base import GameSpec
from pipeline.runtime.tracking import artifact_root, experiment_name, tracking_env_kept
from pipeline.training.loop import lightning_trainer, quiet_lightning, trainer_device


@dataclass
class DQNResult:
    run_id: str
    steps: int
    games: int
    moves: int
    syncs: int
    seconds: float
    checkpoint: Path
    final: dict[str, float]


def train_dqn(spec: GameSpec, cfg: DQNConfig, out: Path, tracking_uri: str, progress: bool = False) -> DQNResult:
    with tracking_env_kept():
        return _train_dqn(spec, cfg, out, tracking_uri, progress)


def _train_dqn(spec: GameSpec, cfg: DQNConfig, out: Path, tracking_uri: str, progress: bool) -> DQNResult:
    quiet_lightning()
    warnings.filterwarnings("ignore", message=".*module\\(s\\) in eval mode.*")  # Q-target, on purpose
    L.seed_everything(cfg.seed, workers=True, verbose=False)
    module = DQNModule(spec, cfg)
    accelerator, precision = trainer_device(cfg.device)
    logger = MLFlowLogger(
        experiment_name=experiment_name(spec) + "/dqn",
        tracking_uri=tracking_uri,
        run_name="dqn",
        artifact_location=artifact_root(tracking_uri),
    )
    logger.log_hyperparams({f"dqn.{k}": v for k, v in cfg.model_dump().items()} | {"game": str(spec)})
    trainer = lightning_trainer(
        accelerator,
        precision,
        cfg.steps,
        logger,
        progress,
        max_time=timedelta(minutes=cfg.minutes) if cfg.minutes else None,
    )
    start = time.perf_counter()
    trainer.fit(module)
    seconds = time.perf_counter() - start
    meta = {"run_id": logger.run_id, "steps": trainer.global_step, "games": module.experience.games}
    save_dqn(out, module.q_net.cpu(), meta)
    logger.experiment.log_artifact(logger.run_id, str(out))
    return DQNResult(
        str(logger.run_id),
        int(trainer.global_step),
        module.experience.games,
        module.experience.moves,
        module.syncs,
        seconds,
        Path(out),
        {k: float(v) for k, v in trainer.callback_metrics.items()},
    )


def run_dqn_train(
    spec: GameSpec, cfg: DQNConfig, out: Path, report: Path, tracking_uri: str, progress: bool = False
) -> DQNResult:
    """`zero dqn train` (and its DVC stage): train, then write the run's figures to `report`."""
    from pipeline.runtime.workspace import write_json

    result = train_dqn(spec, cfg, out, tracking_uri, progress=progress)
    metrics = {
        "run_id": result.run_id,
        "steps": result.steps,
        "games": result.games,
        "moves": result.moves,
        "target_syncs": result.syncs,
        "seconds": round(result.seconds, 2),
        **{f"final_{k}": round(v, 5) for k, v in result.final.items()},
    }
    write_json(report, metrics)
    return result
