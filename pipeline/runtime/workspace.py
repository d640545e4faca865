"""Where the pipeline keeps things, and the small state that carries between iterations
(models/state.json, tracked by DVC beside the champion)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from pipeline.runtime.atomic import atomic_file


@dataclass(frozen=True)
class Paths:
    root: Path

    @property
    def replay(self) -> Path:
        return self.root / "data" / "replay"

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def champion(self) -> Path:
        return self.models / "champion.pt"

    @property
    def earlier(self) -> Path:
        """The run's recent champions (gen-NNNN.pt), kept by promote when the gate plays
        one of them (`evaluate.vs_earlier`)."""
        return self.models / "earlier"

    @property
    def learner(self) -> Path:
        return self.models / "learner.pt"

    @property
    def candidate(self) -> Path:
        return self.models / "candidate.pt"

    @property
    def state(self) -> Path:
        return self.models / "state.json"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def games_table(self) -> Path:
        return self.reports / "games.csv"

    def report(self, name: str) -> Path:
        return self.reports / name

    @property
    def params(self) -> Path:
        return self.root / "params.yaml"


class State(BaseModel):
    """What one iteration hands the next: the generation counter (completed iterations),
    the ladder level, and a line of history per generation for the report."""

    generation: int = 0
    ladder: int = 1000
    champion_generation: int = 0
    games_played: int = 0
    history: list[dict[str, Any]] = Field(default_factory=list)


def write_json(path: Path, data: Any) -> Path:
    """Atomic JSON write (temp file + rename)."""
    with atomic_file(path, "w") as f:
        json.dump(data, f, indent=2, sort_keys=True, default=str)
        f.write("\n")
    return Path(path)


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text())


def load_state(paths: Paths) -> State:
    if not paths.state.is_file():
        raise FileNotFoundError(f"{paths.state}: no pipeline state; run `zero init` first")
    return State.model_validate(read_json(paths.state))


def save_state(paths: Paths, state: State) -> None:
    write_json(paths.state, state.model_dump())


def derive_seed(*parts: int) -> int:
    """A seed from (params seed, generation, task, ...): reruns reproduce the same games."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])
