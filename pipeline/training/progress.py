"""Lightning callback for a training run: progress (step, loss, samples/s) through
`pipeline.runtime.progress`, and a clean stop after the current step on Ctrl-C or SIGTERM."""

from __future__ import annotations

from typing import Any

import lightning as L

from pipeline.runtime import interrupt
from pipeline.runtime.progress import Progress


def describe(progress: Progress) -> str:
    loss = progress.figures.get("loss")
    text = f"steps, loss {loss:.4f}" if loss is not None else "steps"
    return f"{text}, {progress.rate('samples'):.0f} samples/s, ETA {progress.eta()}"


class TrainProgress(L.Callback):
    """Shows progress when `show`; always asks the trainer to stop once a signal came."""

    def __init__(self, label: str, steps: int, batch_size: int, show: bool = True) -> None:
        self.label = label
        self.steps = steps
        self.batch_size = batch_size
        self.show = show
        self.progress: Progress | None = None
        self.stopped = False

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self.show:
            self.progress = Progress(self.label, self.steps, describe)

    def on_train_batch_end(
        self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        if self.progress is not None:
            loss = trainer.callback_metrics.get("loss")
            if loss is not None:
                self.progress.set(loss=float(loss))
            self.progress.update(completed=trainer.global_step, samples=self.batch_size)
        if interrupt.requested():
            self.stopped = True
            trainer.should_stop = True

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self.close()

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule, exception: BaseException) -> None:
        self.close()

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress = None
