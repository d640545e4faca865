"""Game records in and out: import an SGF or PSQ record as a new game, export a game."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from pipeline.games.base import RuleName
from pipeline.games.records import RecordError, from_psq, from_sgf, to_psq, to_sgf
from pipeline.players.factory import PLAY_SECONDS
from pipeline.serve.errors import ServeError
from pipeline.serve.routes.deps import Store
from pipeline.serve.views import game_view

router = APIRouter(prefix="/api/games")


class Import(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["sgf", "psq"]
    text: str = Field(max_length=200_000)
    rules: RuleName = Field("freestyle", description="PSQ only: its format has no field for the rules (SGF: RU, GN)")
    human: Literal["first", "second", "both"] = "first"
    opponent: str = "pure"
    budget: int = Field(400, ge=1, le=200_000)
    seconds: float = Field(PLAY_SECONDS, gt=0, le=600, description="the engine's time a move")


@router.post("/import")
def import_game(req: Import, store: Store) -> dict:
    try:
        state = from_sgf(req.text) if req.format == "sgf" else from_psq(req.text, rules=req.rules)
    except RecordError as exc:
        raise ServeError(400, f"cannot import: {exc}") from None
    game_id, session = store.open(state, req.human, req.opponent, req.budget, req.seconds)
    return game_view(game_id, session)


@router.get("/{game_id}/export", response_class=PlainTextResponse)
def export(game_id: str, store: Store, format: Literal["sgf", "psq"] = "sgf") -> str:
    s = store.get(game_id)
    try:
        return to_sgf(s.state) if format == "sgf" else to_psq(s.state)
    except RecordError as exc:
        raise ServeError(400, str(exc)) from None
