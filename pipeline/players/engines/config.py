"""An external engine as configured: its protocol, command line and limits, from a
params entry (`evaluate.engines`) or from a player's text form, like
`gomocup:./pbrain-embryo` or `htp[turn=2,faults=5]:mohex --seed 1`."""

from __future__ import annotations

import shlex
import shutil
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipeline.games.base import GameSpec, describe_errors

PROTOCOLS = ("gomocup", "htp")
# The short keys of the text form, and the field each one sets.
TEXT_KEYS = {
    "turn": "turn_seconds",
    "nodes": "nodes",
    "grace": "grace_seconds",
    "startup": "startup_seconds",
    "faults": "max_faults",
    "processes": "processes",
    "name": "name",
}


class EngineConfig(BaseModel):
    """One external engine and the limits it plays under."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", description="its name in the games table and the rating (default: the text form)")
    protocol: Literal["gomocup", "htp"] = Field(description="gomocup (Piskvork brains, Gomoku) or htp (GTP, Hex)")
    command: str = Field(min_length=1, description="the command line that starts it (split as a shell would)")
    turn_seconds: float = Field(5.0, gt=0, description="time per move it is told (INFO timeout_turn, time_settings)")
    nodes: int | None = Field(None, ge=1, description="node limit it is told (INFO max_node), where it reads one")
    grace_seconds: float = Field(2.0, ge=0, description="waited beyond the time per move before it forfeits")
    startup_seconds: float = Field(60.0, gt=0, description="time to start and accept a board")
    max_faults: int = Field(3, ge=1, description="forfeits after which it is dropped from the match")
    processes: int | None = Field(None, ge=1, description="processes at most (default: one per game in flight)")
    setup: list[str] = Field(default_factory=list, description="protocol lines sent after each new board")
    games: int = Field(10, ge=2, description="games per evaluation (pairs of colours), in the evaluate stage")

    @field_validator("command")
    @classmethod
    def _runnable(cls, v: str) -> str:
        try:
            argv = shlex.split(v)
        except ValueError as exc:
            raise ValueError(f"cannot split {v!r} into words: {exc}") from None
        if not argv:
            raise ValueError("an empty command line")
        return v

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command)

    @property
    def label(self) -> str:
        return self.name or f"{self.protocol}:{self.command}"

    def check_runnable(self) -> None:
        """A clear error when the program is missing (checked when a player is made, not
        when params are read: a stage that plays no engine runs without it)."""
        program = self.argv[0]
        if shutil.which(program) is None:
            raise ValueError(f"{self.label}: {program!r} is neither a program on PATH nor an executable file")

    def check_game(self, spec: GameSpec) -> None:
        """A clear error when the protocol cannot describe this game."""
        if self.protocol == "gomocup" and (spec.game != "gomoku" or spec.k != 5):
            raise ValueError(f"{self.label}: the Gomocup protocol plays five in a row (gomoku, k=5), not {spec}")
        if self.protocol == "htp" and spec.game != "hex":
            raise ValueError(f"{self.label}: HTP engines play hex, not {spec}")


def is_engine_text(text: str) -> bool:
    head = text.split(":", 1)[0]
    return ":" in text and head.split("[", 1)[0] in PROTOCOLS


def parse_engine(text: str) -> EngineConfig:
    """`PROTOCOL[key=value,...]:COMMAND LINE`; keys: turn, nodes, grace, startup (seconds or
    counts), faults, processes, name."""
    head, command = text.split(":", 1)
    protocol, _, options = head.partition("[")
    values: dict[str, object] = {"protocol": protocol, "command": command.strip(), "name": text}
    if options:
        if not options.endswith("]"):
            raise ValueError(f"{text!r}: options go in brackets, like {protocol}[turn=2,faults=3]:COMMAND")
        for item in filter(None, (s.strip() for s in options[:-1].split(","))):
            key, sep, value = item.partition("=")
            if not sep or key.strip() not in TEXT_KEYS:
                raise ValueError(f"{text!r}: unknown option {item!r} (one of {', '.join(TEXT_KEYS)}, as key=value)")
            values[TEXT_KEYS[key.strip()]] = value.strip()
    try:
        return EngineConfig.model_validate(values)
    except ValidationError as exc:
        raise ValueError(f"{text!r}: {describe_errors(exc)}") from None
