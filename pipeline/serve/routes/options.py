"""The page itself, and what it may ask for: each game's board limits and options, and
the models and engines offered."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from pipeline.games.base import BOARD_SIDES, GAME_OPTIONS, RECORD_FORMATS, RENJU_SIDE, RULE_CODES, GameSpec
from pipeline.games.presentation import DEFAULT_SIDE
from pipeline.serve.registry import builtin_opponents
from pipeline.serve.routes.deps import Registry

STATIC = Path(__file__).resolve().parent.parent / "static"

router = APIRouter()


def game_options(game: str) -> dict:
    """The limits of `game`'s setup form: board sides, the options it takes (`k`, `rules`,
    `swap`), the record formats it has, the values the form starts from (renju: k is 5,
    and its board 15x15, `renju_side`), and the opponents that need no model (pure MCTS;
    the classical player's depths for Gomoku and Connect6)."""
    low, high = BOARD_SIDES[game]
    choices = {"k": [3, high], "rules": list(RULE_CODES), "swap": True}
    defaults = {"size": DEFAULT_SIDE[game]}
    for name in GAME_OPTIONS[game]:
        if name != "swap":  # the swap box keeps its state when the game changes
            defaults[name] = GameSpec.model_fields[name].default
    extra = {"renju_side": RENJU_SIDE} if "rules" in GAME_OPTIONS[game] else {}
    return {
        **extra,
        "sizes": [low, high],
        **{name: choices[name] for name in GAME_OPTIONS[game]},
        "records": list(RECORD_FORMATS[game]),
        "defaults": defaults,
        "opponents": builtin_opponents(game),
    }


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/api/options")
def options(models: Registry) -> dict:
    return {"games": {game: game_options(game) for game in BOARD_SIDES}, "models": models.listing()}
