"""One training run: replay window in, checkpoint out, every step logged to MLflow."""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lightning as L
import torch
from lightning.pytorch.loggers import MLFlowLogger

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import file_hash, load_checkpoint, load_optimizer_state, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.nets.transfer import carried_optimizer_state, deepened, with_edge_plane
from pipeline.runtime import interrupt
from pipeline.runtime.tracking import artifact_root, experiment_name, tracking_env_kept
from pipeline.training.config import TrainConfig
from pipeline.training.data import ReplayDataModule
from pipeline.training.module import PolicyValueModule
from pipeline.training.progress import TrainProgress


@dataclass
class TrainResult:
    run_id: str
    experiment_id: str
    checkpoint: Path
    steps: int
    positions: int
    seconds: float
    samples_per_s: float
    final: dict[str, float]
    skipped: list[str]
    optimizer_resumed: bool = False


def trainer_device(device: str, precision: str = "auto") -> tuple[str, str]:
    """Lightning's (accelerator, precision) for a `device` setting. Mixed precision only on a
    GPU: on the CPU, bf16 autocast of the backward pass is slower than f32 here."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device: cuda asked for, but torch sees no CUDA GPU (use auto or cpu)")
    if precision != "auto":
        return device, precision
    if device == "cuda":
        return device, "bf16-mixed" if torch.cuda.is_bf16_supported() else "16-mixed"
    return device, "32-true"


def lightning_trainer(
    accelerator: str, precision: str, steps: int, logger: MLFlowLogger, progress_bar: bool, **options: Any
) -> L.Trainer:
    """A Lightning trainer as the project's training runs use one: one device, `steps`
    steps, every step logged to `logger`, no checkpoints or model summary of its own."""
    return L.Trainer(
        max_steps=steps,
        accelerator=accelerator,
        precision=precision,  # type: ignore[arg-type]
        devices=1,
        logger=logger,
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=progress_bar,
        **options,
    )


def quiet_lightning() -> None:
    for name in ("lightning.pytorch", "lightning.fabric", "lightning", "mlflow", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")
    warnings.filterwarnings("ignore", message=".*LeafSpec.*")


def stopped(logger: MLFlowLogger, step: int, steps: int, out: Path) -> None:
    """A signal ended the fit early: the run is marked KILLED and no checkpoint is written
    (a half-trained one would pass for the real thing)."""
    from contextlib import suppress

    with suppress(Exception):
        logger.experiment.set_terminated(logger.run_id, "KILLED")
    raise interrupt.Interrupted(f"training stopped at step {step} of {steps}; {out.name} not written")


def train_network(*args: Any, **kwargs: Any) -> TrainResult:
    with tracking_env_kept():
        return _train_network(*args, **kwargs)


def _train_network(
    spec: GameSpec,
    net_spec: NetSpec,
    cfg: TrainConfig,
    data: ReplayDataModule,
    out: Path,
    tracking_uri: str,
    init: Path | None = None,
    run_name: str | None = None,
    extra_params: dict[str, Any] | None = None,
    tags: dict[str, str] | None = None,
    progress: bool = True,
    resume_optimizer: bool = False,
) -> TrainResult:
    quiet_lightning()
    L.seed_everything(cfg.seed, workers=True, verbose=False)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    optimizer_state = None
    if init is not None:
        net, _ = load_checkpoint(init, spec)  # its architecture wins over params.net ...
        net.train()
        if resume_optimizer:
            optimizer_state = load_optimizer_state(init)
        grown = net
        if net_spec.edge_plane and not net.net.edge_plane:
            # ... but for the edge plane, which a run may turn on midway: the stem's weights
            # for it start at zero, so the learner plays as it did until trained ...
            grown = with_edge_plane(grown)
        if net_spec.blocks > net.net.blocks and net_spec.channels == net.net.channels:
            # ... and for more blocks (a plateau's remedy midway): appended as identities.
            grown = deepened(grown, net_spec.blocks)
        if grown is not net:
            if optimizer_state is not None:
                optimizer_state = carried_optimizer_state(optimizer_state, net, grown)
            net = grown
    else:
        net = PolicyValueNet(spec, net_spec)
    module = PolicyValueModule(net, cfg, total_steps=cfg.steps, optimizer_state=optimizer_state)
    logger = MLFlowLogger(
        experiment_name=experiment_name(spec),
        tracking_uri=tracking_uri,
        run_name=run_name,
        tags=tags or None,
        artifact_location=artifact_root(tracking_uri),
    )
    params: dict[str, Any] = {
        **{f"train.{k}": v for k, v in cfg.model_dump().items()},
        **{f"net.{k}": v for k, v in net.net.model_dump().items()},
        "game": str(spec),
        "init": str(init) if init else "scratch",
        "init_hash": file_hash(init) if init else "",
        "optimizer_resumed": optimizer_state is not None,
        **(extra_params or {}),
    }
    logger.log_hyperparams(params)
    accelerator, precision = trainer_device(cfg.device, cfg.precision)
    watch = TrainProgress(f"training {run_name or ''}".strip(), cfg.steps, cfg.batch_size, show=progress)
    trainer = lightning_trainer(
        accelerator,
        precision,
        cfg.steps,
        logger,
        progress_bar=False,  # TrainProgress: a bar on a terminal, lines in a log
        max_epochs=-1,
        deterministic=True,
        callbacks=[watch],
    )
    start = time.perf_counter()
    try:
        with interrupt.cooperative():  # a Ctrl-C ends the fit after the current step
            trainer.fit(module, datamodule=data)
    except BaseException:
        if interrupt.requested():  # Lightning's own SIGTERM exception, or a stop mid-setup
            stopped(logger, trainer.global_step, cfg.steps, out)
        raise
    if interrupt.requested():
        stopped(logger, trainer.global_step, cfg.steps, out)
    seconds = time.perf_counter() - start
    net.cpu().eval()  # checkpoints and the evaluators that load them start on the CPU
    meta = {
        "run_id": logger.run_id,
        "steps": cfg.steps,
        "positions": len(data.positions or []),
        "optimizer_resumed": module.optimizer_resumed,
        **(extra_params or {}),
    }
    optimizer = trainer.optimizers[0].state_dict() if resume_optimizer else None
    save_checkpoint(out, net, meta, optimizer=optimizer)
    logger.experiment.log_artifact(logger.run_id, str(out))
    final = {k: float(v) for k, v in trainer.callback_metrics.items()}
    return TrainResult(
        run_id=str(logger.run_id),
        experiment_id=str(logger.experiment_id),
        checkpoint=Path(out),
        steps=int(trainer.global_step),
        positions=len(data.positions or []),
        seconds=seconds,
        samples_per_s=trainer.global_step * data.batch_size / seconds if seconds > 0 else 0.0,
        final=final,
        skipped=data.skipped,
        optimizer_resumed=module.optimizer_resumed,
    )
