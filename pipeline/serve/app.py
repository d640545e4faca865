"""`zero serve`: play the champion in a browser. FastAPI with one static page.

`create_app` only wires the parts: the model registry (`registry.Models`), the game store
(`store.GameStore`: sessions, their locks, the engine's turn) and one router per concern
(`routes/`: games, records, analysis, options). Searches run in the worker threadpool, so
thinking never blocks other requests."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from pipeline.games.base import GameSpec
from pipeline.players.discovery import DEFAULT_SOURCES, check_sources, scan_models
from pipeline.players.engines import EngineConfig
from pipeline.serve.errors import install_error_handlers
from pipeline.serve.registry import Models, offered_engines
from pipeline.serve.routes import analysis, games, options, records
from pipeline.serve.store import MAX_GAMES, GameStore


def create_app(
    model_dirs: list[Path] | None = None,
    max_games: int = MAX_GAMES,
    engines: list[EngineConfig] | None = None,
    engine_game: GameSpec | None = None,
) -> FastAPI:
    """`engines` (params' `evaluate.engines`) are offered for `engine_game` (params' game);
    one whose program is missing here is left out."""
    app = FastAPI(title="zero-pipeline", docs_url="/api/docs", openapi_url="/api/openapi.json")
    models = Models(scan_models(model_dirs or list(DEFAULT_SOURCES)), offered_engines(engines, engine_game))
    store = GameStore(models, max_games)
    app.state.models = models
    app.state.store = store
    app.state.games = store.sessions
    install_error_handlers(app)
    for router in (options.router, records.router, games.router, analysis.router):
        app.include_router(router)
    return app


def serve(
    host: str,
    port: int,
    model_dirs: list[Path] | None = None,
    engines: list[EngineConfig] | None = None,
    engine_game: GameSpec | None = None,
) -> None:
    """Serve until stopped. Model sources given (`--models`) must each hold a checkpoint
    (a CheckpointError before anything starts, else)."""
    import uvicorn

    check_sources(model_dirs or [])
    uvicorn.run(
        create_app(model_dirs, engines=engines, engine_game=engine_game), host=host, port=port, log_level="warning"
    )
