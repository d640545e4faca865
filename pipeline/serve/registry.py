"""The models and engines a web server offers. Models are chosen by id from a list built at
start-up (a client never names a path); each file is loaded at most once, and every search
gets a fresh bot on the shared model with the game's own budget, so nothing grows with the
budgets asked for. Beside them every server offers opponents that need no file: pure MCTS
(`pure`) and, for Gomoku and Connect6, the classical player at a few depths
(`classical:2` ...), only those."""

from __future__ import annotations

import threading
from pathlib import Path

from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.base import Player
from pipeline.players.classical import GAMES as CLASSICAL_GAMES
from pipeline.players.discovery import ModelEntry, can_play
from pipeline.players.engines import EngineConfig, EnginePlayer
from pipeline.players.factory import make_player, play_search
from pipeline.players.models import load_model
from pipeline.players.search import PurePlayer
from pipeline.serve.errors import ServeError

# The classical depths offered: a move takes about 0.005 s (depth 1) to 0.05 s (depth 4)
# on the big boards, so none ties up a worker thread for long. Depth d+1 beats depth d.
CLASSICAL_DEPTHS = (2, 3, 4)
CLASSICAL = {f"classical:{d}" for d in CLASSICAL_DEPTHS}


def builtin_opponents(game: str) -> list[dict]:
    """What /api/options offers for `game` after the models, strongest first as the models
    are: the classical player for the games it plays (deepest first), then pure MCTS."""
    out = []
    if game in CLASSICAL_GAMES:
        out += [
            {
                "id": f"classical:{d}",
                "label": f"classical depth {d}",
                "title": f"alpha-beta to {d} plies over a pattern evaluation, nothing learned "
                "(the thinking budget is not used)",
            }
            for d in sorted(CLASSICAL_DEPTHS, reverse=True)
        ]
    return [*out, {"id": "pure", "label": "pure MCTS", "title": "pure MCTS: playouts = thinking budget"}]


def offered_engines(
    engines: list[EngineConfig] | None, engine_game: GameSpec | None
) -> dict[str, tuple[GameSpec, EnginePlayer]]:
    """`engines` (params' `evaluate.engines`) by id, each for `engine_game` (params' game);
    one whose program is missing here is left out."""
    offered: dict[str, tuple[GameSpec, EnginePlayer]] = {}
    for engine in engines or []:
        try:
            offered[f"engine:{engine.label}"] = (engine_game or GameSpec(), EnginePlayer(engine))
        except ValueError:
            continue
    return offered


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
                raise ServeError(400, f"engine {model_id!r} is declared for {plays}, not {spec}")
            return engine
        entry = self.entries.get(model_id)
        if entry is None:
            raise ServeError(404, f"unknown model {model_id!r}: choose one from /api/options")
        if not can_play(entry.spec, entry.size_free, spec):
            raise ServeError(400, f"model {model_id!r} plays {entry.spec}, not {spec}")
        return entry

    def check_opponent(self, spec: GameSpec, opponent: str, human: str) -> None:
        """Refuse a game whose engine side names a model or engine that cannot play it."""
        if human == "both" or opponent == "pure":
            return
        if opponent in CLASSICAL:
            if spec.game not in CLASSICAL_GAMES:
                raise ServeError(400, f"{opponent} plays {' and '.join(CLASSICAL_GAMES)}, not {spec.game}")
            return
        self.entry(opponent, spec)

    def model(self, entry: ModelEntry, spec: GameSpec) -> PolicyValueNet | QNetwork:
        """The entry's net for `spec`'s board (a size-free net: one copy per board size)."""
        key = (entry.path, spec)
        with self.lock:
            if key not in self.loaded:
                self.loaded[key] = load_model(entry.path, spec)
            return self.loaded[key]

    def player(self, model_id: str, spec: GameSpec, budget: int) -> Player:
        """A fresh bot for one search: pure MCTS, the classical player at its depth (it
        takes no budget), or the shared model at `budget`."""
        if model_id == "pure":
            return PurePlayer(budget)
        if model_id in CLASSICAL:
            return make_player(model_id, spec)
        entry = self.entry(model_id, spec)
        if isinstance(entry, EnginePlayer):
            return entry  # plays at its own limits; the budget is not passed on
        return make_player(
            str(entry.path),
            spec,
            play_search(spec, budget),
            name=entry.id,
            load=lambda _, s: self.model(entry, s),
        )

    def listing(self) -> list[dict]:
        """What /api/options says of each model, then of each engine."""
        models = [
            {"id": m.id, "label": m.label, **_spec_fields(m.spec), "size_free": m.size_free, "name": str(m.spec)}
            for m in self.entries.values()
        ]
        engines = [
            {"id": engine_id, "label": f"{engine.name} (external engine)", **_spec_fields(spec), "name": str(spec)}
            for engine_id, (spec, engine) in self.engines.items()
        ]
        return models + engines


def _spec_fields(spec: GameSpec) -> dict:
    return {"game": spec.game, "size": spec.height, "k": spec.k, "rules": spec.rules, "swap": spec.swap}
