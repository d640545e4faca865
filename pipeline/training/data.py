"""The replay window as a LightningDataModule, with a symmetry drawn per sample."""

from __future__ import annotations

from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from pipeline.games.base import GameSpec
from pipeline.selfplay.replay import Positions, augment, load_window


def value_scale(plies_left: np.ndarray, discount: float) -> np.ndarray:
    """What a result is worth `plies_left` moves before it: `discount` per move after the
    mover's own (a win the mover makes at once keeps its full 1). An unknown distance (0,
    shards written before it was kept) is not discounted."""
    return (discount ** np.maximum(plies_left.astype(np.float32) - 1.0, 0.0)).astype(np.float32)


def value_target(z: np.ndarray, q: np.ndarray, weight: float) -> np.ndarray:
    """The result `z` mixed with the searched value `q`: (1 - weight) z + weight q where q
    is known, z alone where it is not (NaN: a shard written before q was kept)."""
    return np.where(np.isfinite(q), (1.0 - weight) * z + weight * np.nan_to_num(q), z).astype(np.float32)


class ReplayDataModule(L.LightningDataModule):
    def __init__(
        self,
        spec: GameSpec,
        positions: Positions | None = None,
        replay_root: Path | None = None,
        window: int = 4,
        batch_size: int = 256,
        augment: bool = True,
        seed: int = 0,
        skip_corrupt: bool = False,
        pin_memory: bool = False,
        value_discount: float = 1.0,
        searched_value_weight: float = 0.0,
    ):
        super().__init__()
        if positions is None and replay_root is None:
            raise ValueError("give positions or a replay directory")
        self.spec = spec
        self.positions = positions
        self.replay_root = replay_root
        self.window = window
        self.batch_size = batch_size
        self.augment = augment
        self.seed = seed
        self.skip_corrupt = skip_corrupt
        self.pin_memory = pin_memory
        self.value_discount = value_discount
        self.searched_value_weight = searched_value_weight
        self.skipped: list[str] = []
        self._rng = np.random.default_rng(seed)

    @classmethod
    def for_training(cls, spec: GameSpec, replay_root: Path, cfg) -> ReplayDataModule:
        """The replay window a `train` config asks for (window, batch, augmentation...)."""
        return cls(
            spec,
            replay_root=replay_root,
            window=cfg.window,
            batch_size=cfg.batch_size,
            augment=cfg.augment,
            seed=cfg.seed,
            skip_corrupt=cfg.skip_corrupt,
            # Page-locked batches copy to a GPU asynchronously; on the CPU they only cost.
            pin_memory=getattr(cfg, "device", "cpu") != "cpu" and torch.cuda.is_available(),
            value_discount=cfg.value_discount,
            searched_value_weight=cfg.searched_value_weight,
        )

    def setup(self, stage: str | None = None) -> None:
        if self.positions is None:
            assert self.replay_root is not None
            self.positions, self.skipped = load_window(self.replay_root, self.spec, self.window, self.skip_corrupt)

    def collate(self, indices: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        assert self.positions is not None
        idx = np.asarray(indices)
        obs = self.positions.obs[idx].astype(np.float32)
        pi = self.positions.pi[idx].astype(np.float32)
        if self.augment:
            for i in range(len(idx)):
                obs[i], pi[i] = augment(self.spec, obs[i], pi[i], self._rng)
        z = self.positions.z[idx].astype(np.float32)
        if self.value_discount < 1.0:
            z *= value_scale(self.positions.plies_left[idx], self.value_discount)
        if self.searched_value_weight > 0:
            z = value_target(z, self.positions.q[idx], self.searched_value_weight)
        return torch.from_numpy(obs), torch.from_numpy(pi), torch.from_numpy(z)

    def train_dataloader(self) -> DataLoader:
        assert self.positions is not None
        generator = torch.Generator().manual_seed(self.seed)
        return DataLoader(
            range(len(self.positions)),  # type: ignore[arg-type]
            batch_size=min(self.batch_size, len(self.positions)),
            shuffle=True,
            generator=generator,
            collate_fn=self.collate,
            drop_last=False,
            pin_memory=self.pin_memory,
        )
