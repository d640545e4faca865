"""What the routers take from the app: its game store (and through it, its models)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from pipeline.serve.registry import Models
from pipeline.serve.store import GameStore


def get_store(request: Request) -> GameStore:
    return request.app.state.store


def get_models(request: Request) -> Models:
    return request.app.state.models


Store = Annotated[GameStore, Depends(get_store)]
Registry = Annotated[Models, Depends(get_models)]
