"""`zero serve`: play the champion in a browser. FastAPI with one static page.

Games live in memory, keyed by an id the page keeps per tab, so tabs are isolated; at most
MAX_GAMES of them, however they arrive (new or imported), the oldest making room. Models
are chosen by id from a list the server built at start-up; a client never names a path.
Each model file is loaded once; every search gets a fresh bot on the shared model with the
game's own budget, so nothing grows with the budgets asked for. Searches run in the worker
threadpool, so thinking never blocks other requests."""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import BOARD_SIDES, GameSpec, GameState, IllegalMoveError
from pipeline.games.layout import HEX
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.base import Forfeit, Player
from pipeline.players.discovery import DEFAULT_SOURCES, ModelEntry, can_play, scan_models
from pipeline.players.engines import EngineConfig, EnginePlayer
from pipeline.players.factory import make_player
from pipeline.players.models import load_model
from pipeline.players.search import NetPlayer, PurePlayer
from pipeline.search.mcts import SearchConfig
from pipeline.serve.records import RecordError, from_psq, from_sgf, to_psq, to_sgf

STATIC = Path(__file__).parent / "static"
MAX_GAMES = 500
MAX_SIDE = max(high for _, high in BOARD_SIDES.values())  # each game's own limit is GameSpec's


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Literal["gomoku", "connect6", "hex"] = "gomoku"
    size: int = Field(9, ge=min(low for low, _ in BOARD_SIDES.values()), le=MAX_SIDE)
    k: int = Field(5, ge=3, le=MAX_SIDE)
    rules: Literal["freestyle", "exact"] = "freestyle"
    swap: bool = False
    human: Literal["first", "second", "both"] = "first"
    opponent: str = Field("pure", description="a model id from /api/options, or 'pure'")
    budget: int = Field(400, ge=1, le=200_000, description="simulations (model) or playouts (pure MCTS)")


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: str = Field(min_length=1, max_length=12)


class Import(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["sgf", "psq"]
    text: str = Field(max_length=200_000)
    human: Literal["first", "second", "both"] = "first"
    opponent: str = "pure"
    budget: int = Field(400, ge=1, le=200_000)


@dataclass
class Session:
    state: GameState
    human: str
    opponent: str  # a model id, or "pure"
    budget: int  # simulations (model) or playouts (pure MCTS) per move
    lock: threading.Lock = field(default_factory=threading.Lock)
    resigned: int | None = None
    visits: list[float] | None = None
    search_value: float | None = None


def spec_of(req: NewGame) -> GameSpec:
    if req.game == "hex":
        return GameSpec(game="hex", size=req.size, swap=req.swap)
    if req.game == "connect6":
        return GameSpec(game="connect6", size=req.size)
    return GameSpec(game="gomoku", size=req.size, k=req.k, rules=req.rules)


def winning_cells(state: GameState) -> list[int]:
    """The line (Gomoku, Connect6) or chain (Hex) that won."""
    if state.winner is None:
        return []
    spec = state.spec
    board = state.board()
    value = state.winner + 1
    h, w = spec.height, spec.width
    if spec.kind == HEX:
        # The winner's stones reachable from its first edge that also reach the second.
        stones = {(r, c) for r in range(h) for c in range(w) if board[r, c] == value}
        start = {s for s in stones if (s[0] == 0 if state.winner == 0 else s[1] == 0)}
        seen, todo = set(start), list(start)
        while todo:
            r, c = todo.pop()
            for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
                nb = (r + dr, c + dc)
                if nb in stones and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        return sorted(r * w + c for r, c in seen)
    last = state.history[-1]
    r0, c0 = divmod(last, w)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [(r0, c0)]
        for sign in (1, -1):
            r, c = r0 + sign * dr, c0 + sign * dc
            while 0 <= r < h and 0 <= c < w and board[r, c] == value:
                line.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        n = len(line)
        if n == spec.k or (n > spec.k and spec.rules == "freestyle") or (spec.game == "connect6" and n >= 6):
            return sorted(r * w + c for r, c in line)
    return []


class Models:
    """The models a server offers, each file loaded at most once (on first use), and the
    external engines declared in params (`evaluate.engines`, for params' game): one
    player each, its processes started on first use and shared by every game."""

    def __init__(self, entries: dict[str, ModelEntry], engines: dict[str, tuple[GameSpec, EnginePlayer]] | None = None):
        self.entries = entries
        self.engines = engines or {}
        self.loaded: dict[tuple[Path, GameSpec], PolicyValueNet | QNetwork] = {}
        self.lock = threading.Lock()

    def entry(self, model_id: str, spec: GameSpec) -> ModelEntry | EnginePlayer:
        if model_id in self.engines:
            plays, engine = self.engines[model_id]
            if plays != spec:
                raise HTTPException(400, f"engine {model_id!r} is declared for {plays}, not {spec}")
            return engine
        entry = self.entries.get(model_id)
        if entry is None:
            raise HTTPException(404, f"unknown model {model_id!r}: choose one from /api/options")
        if not can_play(entry.spec, entry.size_free, spec):
            raise HTTPException(400, f"model {model_id!r} plays {entry.spec}, not {spec}")
        return entry

    def model(self, entry: ModelEntry, spec: GameSpec) -> PolicyValueNet | QNetwork:
        """The entry's net for `spec`'s board (a size-free net: one copy per board size)."""
        key = (entry.path, spec)
        with self.lock:
            if key not in self.loaded:
                self.loaded[key] = load_model(entry.path, spec)
            return self.loaded[key]

    def player(self, model_id: str, spec: GameSpec, budget: int) -> Player:
        """A fresh bot for one search: pure MCTS, or the shared model at `budget`."""
        if model_id == "pure":
            return PurePlayer(budget)
        entry = self.entry(model_id, spec)
        if isinstance(entry, EnginePlayer):
            return entry  # plays at its own limits; the budget is not passed on
        return make_player(
            str(entry.path),
            spec,
            SearchConfig(simulations=budget),
            name=entry.id,
            load=lambda _, s: self.model(entry, s),
        )


def create_app(
    model_dirs: list[Path] | None = None,
    max_games: int = MAX_GAMES,
    engines: list[EngineConfig] | None = None,
    engine_game: GameSpec | None = None,
) -> FastAPI:
    """`engines` (params' `evaluate.engines`) are offered for `engine_game` (params' game);
    one whose program is missing here is left out."""
    app = FastAPI(title="zero-pipeline", docs_url="/api/docs", openapi_url="/api/openapi.json")
    offered: dict[str, tuple[GameSpec, EnginePlayer]] = {}
    for engine in engines or []:
        try:
            offered[f"engine:{engine.label}"] = (engine_game or GameSpec(), EnginePlayer(engine))
        except ValueError:
            continue
    models = Models(scan_models(model_dirs or list(DEFAULT_SOURCES)), offered)
    app.state.models = models
    games: dict[str, Session] = {}
    app.state.games = games
    games_lock = threading.Lock()

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'][1:]) or 'body'}: {e['msg']}" for e in exc.errors())
        return JSONResponse({"detail": problems or "malformed request"}, status_code=422)

    def check_opponent(spec: GameSpec, opponent: str, human: str) -> None:
        if human != "both" and opponent != "pure":
            models.entry(opponent, spec)

    def add_game(session: Session) -> str:
        """The one way a game enters the server: at most `max_games`, the oldest making room."""
        game_id = uuid.uuid4().hex
        with games_lock:
            while len(games) >= max_games:
                games.pop(next(iter(games)))
            games[game_id] = session
        return game_id

    def session(game_id: str) -> Session:
        s = games.get(game_id)
        if s is None:
            raise HTTPException(404, f"no game {game_id!r}")
        return s

    def ai_to_move(s: Session) -> bool:
        if s.human == "both" or s.state.is_terminal or s.resigned is not None:
            return False
        return s.state.current_player != (0 if s.human == "first" else 1)

    def view(game_id: str, s: Session) -> dict:
        st = s.state
        spec = st.spec
        winner = st.winner
        if s.resigned is not None:
            winner = 1 - s.resigned
        return {
            "id": game_id,
            "spec": {**spec.model_dump(), "name": str(spec)},
            "board": st.board().ravel().tolist(),
            "to_move": st.current_player,
            "ply": st.ply,
            "legal": np.flatnonzero(st.legal_mask()).tolist() if s.resigned is None else [],
            "history": [spec.action_name(a) for a in st.history],
            "moves": st.history,
            "last_turn": [c for c, p in st.hist_cells() if c >= 0 and p != st.current_player][:2]
            if spec.game == "connect6"
            else ([st.hist_cells()[0][0]] if st.history else []),
            "stones_left_in_turn": (1 if st.ply == 0 or st.ply % 2 == 0 else 2) if spec.game == "connect6" else 1,
            "swap_available": bool(spec.swap and st.legal_mask()[-1]) if spec.game == "hex" else False,
            "over": st.is_terminal or s.resigned is not None,
            "winner": winner,
            "draw": st.is_draw,
            "resigned": s.resigned,
            "winning_cells": winning_cells(st) if s.resigned is None else [],
            "human": s.human,
            "opponent": s.opponent,
            "ai_to_move": ai_to_move(s),
            "visits": s.visits,
            "search_value": s.search_value,
        }

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    def options() -> dict:
        return {
            "games": {
                "gomoku": {
                    "sizes": list(BOARD_SIDES["gomoku"]),
                    "k": [3, BOARD_SIDES["gomoku"][1]],
                    "rules": ["freestyle", "exact"],
                },
                "connect6": {"sizes": list(BOARD_SIDES["connect6"])},
                "hex": {"sizes": list(BOARD_SIDES["hex"]), "swap": True},
            },
            "models": [
                {
                    "id": m.id,
                    "label": m.label,
                    "game": m.spec.game,
                    "size": m.spec.height,
                    "k": m.spec.k,
                    "rules": m.spec.rules,
                    "swap": m.spec.swap,
                    "size_free": m.size_free,
                    "name": str(m.spec),
                }
                for m in models.entries.values()
            ]
            + [
                {
                    "id": engine_id,
                    "label": f"{engine.name} (external engine)",
                    "game": spec.game,
                    "size": spec.height,
                    "k": spec.k,
                    "rules": spec.rules,
                    "swap": spec.swap,
                    "name": str(spec),
                }
                for engine_id, (spec, engine) in models.engines.items()
            ],
        }

    @app.post("/api/games")
    def new_game(req: NewGame) -> dict:
        try:
            spec = spec_of(req)
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        check_opponent(spec, req.opponent, req.human)
        session = Session(spec.new_game(), req.human, req.opponent, req.budget)
        return view(add_game(session), session)

    @app.post("/api/games/import")
    def import_game(req: Import) -> dict:
        try:
            state = from_sgf(req.text) if req.format == "sgf" else from_psq(req.text)
        except RecordError as exc:
            raise HTTPException(400, f"cannot import: {exc}") from None
        check_opponent(state.spec, req.opponent, req.human)
        session = Session(state, req.human, req.opponent, req.budget)
        return view(add_game(session), session)

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> dict:
        return view(game_id, session(game_id))

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, req: Move) -> dict:
        s = session(game_id)
        with s.lock:
            if s.resigned is not None or s.state.is_terminal:
                raise HTTPException(409, "the game is over")
            if ai_to_move(s):
                raise HTTPException(409, "it is not your turn")
            try:
                s.state.apply(req.move)
            except IllegalMoveError as exc:
                raise HTTPException(400, str(exc)) from None
            s.visits, s.search_value = None, None
            return view(game_id, s)

    @app.post("/api/games/{game_id}/ai")
    def ai_move(game_id: str) -> dict:
        s = session(game_id)
        if not s.lock.acquire(blocking=False):
            raise HTTPException(409, "already thinking")
        try:
            if not ai_to_move(s):
                raise HTTPException(409, "it is not the engine's turn")
            try:
                thought = models.player(s.opponent, s.state.spec, s.budget).think(s.state)
            except Forfeit as exc:  # an external engine broke its protocol: its game is lost
                s.resigned = s.state.current_player
                raise HTTPException(502, f"the engine forfeits: {exc}") from None
            s.state.apply(thought.action)
            s.visits = thought.visits.tolist()
            s.search_value = thought.value
            return view(game_id, s)
        finally:
            s.lock.release()

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str) -> dict:
        s = session(game_id)
        with s.lock:
            moves = list(s.state.history)
            if not moves:
                raise HTTPException(409, "nothing to undo")
            s.resigned = None
            # Take back to the last position where the human was to move.
            moves.pop()
            replay = s.state.spec.new_game()
            for a in moves:
                replay.apply(a)
            tmp = Session(replay, s.human, s.opponent, s.budget)
            while moves and ai_to_move(tmp):
                moves.pop()
                replay = s.state.spec.new_game()
                for a in moves:
                    replay.apply(a)
                tmp.state = replay
            s.state = replay
            s.visits, s.search_value = None, None
            return view(game_id, s)

    @app.post("/api/games/{game_id}/resign")
    def resign(game_id: str) -> dict:
        s = session(game_id)
        with s.lock:
            if s.state.is_terminal or s.resigned is not None:
                raise HTTPException(409, "the game is over")
            s.resigned = s.state.current_player if s.human == "both" else (0 if s.human == "first" else 1)
            return view(game_id, s)

    @app.get("/api/games/{game_id}/analysis")
    def analysis(game_id: str) -> dict:
        s = session(game_id)
        out: dict = {"policy": None, "value": None, "visits": s.visits, "search_value": s.search_value}
        if s.human != "both" and s.opponent != "pure" and not s.state.is_terminal:
            player = models.player(s.opponent, s.state.spec, s.budget)
            if isinstance(player, NetPlayer):
                policy, value = player.policy_value(s.state)
                out["policy"], out["value"] = policy.tolist(), value
        return out

    @app.get("/api/games/{game_id}/export", response_class=PlainTextResponse)
    def export(game_id: str, format: Literal["sgf", "psq"] = "sgf") -> str:
        s = session(game_id)
        try:
            return to_sgf(s.state) if format == "sgf" else to_psq(s.state)
        except RecordError as exc:
            raise HTTPException(400, str(exc)) from None

    return app


def serve(
    host: str,
    port: int,
    model_dirs: list[Path] | None = None,
    engines: list[EngineConfig] | None = None,
    engine_game: GameSpec | None = None,
) -> None:
    import uvicorn

    uvicorn.run(
        create_app(model_dirs, engines=engines, engine_game=engine_game), host=host, port=port, log_level="warning"
    )
