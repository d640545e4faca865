"""Training the policy-value net with Lightning.

Loss = (z - v)^2 - pi^T log p + c * ||theta||^2. The L2 term is part of the loss (the
optimiser has no weight decay), so the logged loss is exactly what is optimised."""

from __future__ import annotations

import lightning as L
import torch
import torch.nn.functional as F

from pipeline.nets.resnet import PolicyValueNet
from pipeline.training.config import OptimConfig


def l2_term(net: torch.nn.Module) -> torch.Tensor:
    return sum((p * p).sum() for p in net.parameters())  # type: ignore[return-value]


class PolicyValueModule(L.LightningModule):
    def __init__(
        self,
        net: PolicyValueNet,
        optim: OptimConfig,
        total_steps: int = 1000,
        optimizer_state: dict | None = None,
    ):
        super().__init__()
        self.net = net
        self.optim = optim
        self.total_steps = total_steps
        self.optimizer_state = optimizer_state
        self.optimizer_resumed = False
        self.save_hyperparameters({"optim": optim.model_dump(), "total_steps": total_steps})

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(x)

    def losses(self, obs: torch.Tensor, pi: torch.Tensor, z: torch.Tensor) -> dict[str, torch.Tensor]:
        logits, value = self.net(obs)
        log_p = F.log_softmax(logits, dim=1)
        value_loss = F.mse_loss(value, z)
        policy_loss = -(pi * log_p).sum(dim=1).mean()
        l2 = self.optim.l2 * l2_term(self.net)
        with torch.no_grad():
            entropy = -(log_p.exp() * log_p).sum(dim=1).mean()
        return {
            "loss": value_loss + policy_loss + l2,
            "value_loss": value_loss,
            "policy_loss": policy_loss,
            "l2": l2,
            "policy_entropy": entropy,
        }

    def training_step(self, batch: tuple[torch.Tensor, ...], batch_idx: int) -> torch.Tensor:
        out = self.losses(*batch)
        for name, value in out.items():
            self.log(name, value.detach(), on_step=True, on_epoch=False, prog_bar=name == "loss")
        self.log("lr", self.trainer.optimizers[0].param_groups[0]["lr"], on_step=True, on_epoch=False)
        return out["loss"]

    def on_train_start(self) -> None:
        """Continue the saved optimiser (Adam's moments, SGD's momentum) when there is one
        of the same kind; the learning rate is always this run's."""
        if not self.optimizer_state:
            return
        opt = self.trainer.optimizers[0]
        try:
            opt.load_state_dict(self.optimizer_state)
        except (ValueError, KeyError):
            return  # another optimiser or net shape: start its state afresh
        for group in opt.param_groups:
            group["lr"] = self.optim.lr
            group.pop("initial_lr", None)
        self.optimizer_resumed = True

    def configure_optimizers(self):  # type: ignore[override]
        o = self.optim
        if o.optimizer == "sgd":
            opt: torch.optim.Optimizer = torch.optim.SGD(self.net.parameters(), lr=o.lr, momentum=o.momentum)
        else:
            opt = torch.optim.Adam(self.net.parameters(), lr=o.lr)
        if o.schedule == "constant":
            return opt
        if o.schedule == "cosine":
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, self.total_steps))
        else:
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=o.step_every, gamma=o.step_gamma)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
