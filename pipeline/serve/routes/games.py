"""Playing a game: start one, read it, move, let the engine move, undo, resign."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from pipeline.games.base import BOARD_SIDES, GameSpec, RuleName
from pipeline.players.factory import PLAY_SECONDS
from pipeline.serve.errors import ServeError
from pipeline.serve.routes.deps import Store
from pipeline.serve.views import game_view

MAX_SIDE = max(high for _, high in BOARD_SIDES.values())  # each game's own limit is GameSpec's

router = APIRouter(prefix="/api/games")


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Literal["gomoku", "connect6", "hex"] = "gomoku"
    size: int = Field(9, ge=min(low for low, _ in BOARD_SIDES.values()), le=MAX_SIDE)
    k: int = Field(5, ge=3, le=MAX_SIDE)
    rules: RuleName = "freestyle"
    swap: bool = False
    human: Literal["first", "second", "both"] = "first"
    opponent: str = Field(
        "pure", description="a model id from /api/options, or one of the game's opponents there ('pure', 'classical:3')"
    )
    budget: int = Field(400, ge=1, le=200_000, description="simulations (model) or playouts (pure MCTS), at most")
    seconds: float = Field(
        PLAY_SECONDS,
        gt=0,
        le=600,
        description="the engine's time a move: its search stops at the budget or its share of this (Hex 7x7 and 8x8: "
        "the solver gets the rest)",
    )


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: str = Field(min_length=1, max_length=12)


@router.post("")
def new_game(req: NewGame, store: Store) -> dict:
    try:
        spec = GameSpec.for_board(req.game, req.size, req.k, req.rules, req.swap)
    except ValueError as exc:
        raise ServeError(400, str(exc)) from None
    game_id, session = store.open(spec.new_game(), req.human, req.opponent, req.budget, req.seconds)
    return game_view(game_id, session)


@router.get("/{game_id}")
def get_game(game_id: str, store: Store) -> dict:
    return game_view(game_id, store.get(game_id))


@router.post("/{game_id}/move")
def move(game_id: str, req: Move, store: Store) -> dict:
    return game_view(game_id, store.move(game_id, req.move))


@router.post("/{game_id}/ai")
def ai_move(game_id: str, store: Store) -> dict:
    return game_view(game_id, store.ai_move(game_id))


@router.post("/{game_id}/undo")
def undo(game_id: str, store: Store) -> dict:
    return game_view(game_id, store.undo(game_id))


@router.post("/{game_id}/resign")
def resign(game_id: str, store: Store) -> dict:
    return game_view(game_id, store.resign(game_id))
