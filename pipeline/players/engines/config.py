"""An external engine as configured: its protocol, command line, limits and setup, from a
params entry (`evaluate.engines`) or from a player's text form, like
`gomocup:./pbrain-embryo`, `htp[turn=2,faults=5]:mohex --seed 1`,
`htp[swap=1]:mohex` (tells the engine the swap rule is on: `HTP_SWAP_SETTING`) or
`htp[setup=param_mohex max_games 1000;param_game allow_swap 1]:mohex` (protocol lines sent
after each new board, separated by `;`; `gomocup[setup=INFO rule 1]:pbrain` likewise).
Each process's stderr is kept whole in a log file under `log_dir` (text key `logs`)."""

from __future__ import annotations

import re
import shlex
import shutil
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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
    "swap": "swap",
    "setup": "setup",
    "logs": "log_dir",
}
# What `swap=1` (`swap=0`) sends an HTP engine after the board: the swap rule's setting of
# MoHex and the other benzene engines, whose default is off (our `swap-pieces` is then
# refused). An engine that sets it another way takes its own line in `setup` instead.
HTP_SWAP_SETTING = "param_game allow_swap {value}"
# Where the engines' stderr logs go by default (relative: to the current directory).
LOG_DIR = "engine-logs"
OPTION = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(.*)$", re.DOTALL)


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
    setup: list[str] = Field(
        default_factory=list,
        description="protocol lines sent after each new board (HTP: once per process, each must be accepted)",
    )
    swap: bool | None = Field(
        None,
        description="HTP: tell the engine the swap rule is on (1) or off (0) with HTP_SWAP_SETTING; unset: not told",
    )
    log_dir: str = Field(LOG_DIR, min_length=1, description="folder of its stderr logs, one file per process")
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

    @model_validator(mode="after")
    def _swap_is_htp(self) -> EngineConfig:
        if self.swap is not None and self.protocol != "htp":
            raise ValueError("swap: only HTP (Hex) engines are told the swap rule")
        return self

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
        if self.swap and not spec.swap:
            raise ValueError(f"{self.label}: swap=1 tells the engine the swap rule is on, but {spec} has none")


def is_engine_text(text: str) -> bool:
    head = text.split(":", 1)[0]
    return ":" in text and head.split("[", 1)[0] in PROTOCOLS


def _options(text: str, protocol: str, options: str) -> dict[str, object]:
    """The fields set by `key=value,...`; a `setup=` value may hold commas (a fragment after
    it that is not `key=...` continues it) and its lines are separated by `;`."""
    items: list[tuple[str, str]] = []
    for part in options.split(","):
        option = OPTION.match(part)
        if option is None and items and items[-1][0] == "setup":
            items[-1] = ("setup", f"{items[-1][1]},{part}")
            continue
        if option is None and not part.strip():
            continue
        if option is None or option[1] not in TEXT_KEYS:
            raise ValueError(
                f"{text!r}: unknown option {part.strip()!r} (one of {', '.join(TEXT_KEYS)}, as key=value, "
                f"like {protocol}[turn=2,faults=3]:COMMAND)"
            )
        items.append((option[1], option[2]))
    values: dict[str, object] = {}
    for key, value in items:
        if key == "setup":
            values["setup"] = [line.strip() for line in value.split(";") if line.strip()]
        else:
            values[TEXT_KEYS[key]] = value.strip()
    return values


def parse_engine(text: str) -> EngineConfig:
    """`PROTOCOL[key=value,...]:COMMAND LINE`; keys: turn, nodes, grace, startup (seconds or
    counts), faults, processes, name, swap (HTP: 1 or 0), setup (protocol lines separated by
    `;`), logs (the log folder). Any mistake is one clear ValueError."""
    protocol = re.match(r"[^\[:]*", text)[0]  # type: ignore[index]
    rest = text[len(protocol) :]
    if protocol not in PROTOCOLS:
        raise ValueError(f"{text!r}: not an engine (gomocup:COMMAND or htp:COMMAND)")
    options = ""
    if rest.startswith("["):
        end = rest.find("]:")
        if end < 0:
            raise ValueError(f"{text!r}: options go in brackets, like {protocol}[turn=2,faults=3]:COMMAND")
        options, rest = rest[1:end], rest[end + 1 :]
    if not rest.startswith(":"):
        raise ValueError(f"{text!r}: the command follows a colon, like {protocol}:COMMAND")
    values: dict[str, object] = {"protocol": protocol, "command": rest[1:].strip(), "name": text}
    values.update(_options(text, protocol, options))
    try:
        return EngineConfig.model_validate(values)
    except ValidationError as exc:
        raise ValueError(f"{text!r}: {describe_errors(exc)}") from None
