"""One Player interface for everything that picks moves: network + MCTS, pure MCTS,
uniformly random, and (through the same calls) people and engines. The arena, the web
server and the protocols all drive players through it.

Players are driven in lockstep over several games at once (`choose` gets every game in
which it is this player's turn), so a network player batches its evaluations across
games."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.search.pure import PureMCTS


class Player(Protocol):
    name: str

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        """A new match of `games` games begins."""

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        """Moves for these games, where it is this player's turn."""

    def observe(self, game: int, state: GameState, action: int) -> None:
        """`action` was played in `game` (by either side); `state` is the position after."""


class RandomPlayer:
    def __init__(self) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(0)

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        return [int(self.rng.choice(s.legal_actions())) for s in states]

    def observe(self, game: int, state: GameState, action: int) -> None:
        pass


class PurePlayer:
    """Pure MCTS (UCT, random rollouts) at a fixed number of playouts per move."""

    def __init__(self, playouts: int, c: float = 2.0):
        self.playouts = playouts
        self.c = c
        self.name = f"pure:{playouts}"
        self.searchers: list[PureMCTS] = []

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.searchers = [PureMCTS(self.playouts, self.c, seed=seed * 1_000_003 + g) for g in range(games)]

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        return [self.searchers[g].choose(s) for g, s in zip(games, states, strict=True)]

    def observe(self, game: int, state: GameState, action: int) -> None:
        pass


class NetPlayer:
    """A network through the batched PUCT search: no root noise, the most visited move
    (or a sampled one during the first `temperature_moves` plies)."""

    def __init__(self, evaluator, search: SearchConfig, name: str = "net", temperature_moves: int = 0):
        self.evaluator = evaluator
        self.config = search.model_copy(update={"threat_guidance": False})  # never in evaluation
        self.name = name
        self.temperature_moves = temperature_moves
        self.search: BatchedMCTS | None = None
        self.rng = np.random.default_rng(0)
        self.last_visits: dict[int, np.ndarray] = {}
        self.last_value: dict[int, float] = {}

    @classmethod
    def from_checkpoint(cls, path: Path, spec: GameSpec, search: SearchConfig, name: str | None = None) -> NetPlayer:
        from pipeline.nets.checkpoint import load_checkpoint
        from pipeline.nets.evaluator import NetEvaluator

        net, _ = load_checkpoint(path, spec)
        return cls(NetEvaluator(net), search, name or Path(path).stem)

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.search = BatchedMCTS(spec, games, self.config, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.fresh = np.ones(games, dtype=np.bool_)

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        search = self.search
        assert search is not None, "start() first"
        active = np.zeros(search.games, dtype=np.bool_)
        for g, s in zip(games, states, strict=True):
            if self.fresh[g] or not np.array_equal(search.roots[g], s.array):
                search.reset(g, s.array)
                self.fresh[g] = False
            active[g] = True
        visits = search.search(self.evaluator, active=active, noise=False)
        moves = []
        for g, s in zip(games, states, strict=True):
            temperature = 1.0 if s.ply < self.temperature_moves else 0.0
            self.last_visits[g] = visits[g]
            self.last_value[g] = search.tree.root_value(g)
            moves.append(pick_action(visits[g], temperature, self.rng))
        return moves

    def observe(self, game: int, state: GameState, action: int) -> None:
        if self.search is not None and not state.is_terminal and not self.fresh[game]:
            self.search.advance(game, action, state.array)


def make_player(text: str, spec: GameSpec, search: SearchConfig | None = None, models: Path | None = None) -> Player:
    """`pure:N`, `random`, or a checkpoint path (`net:PATH` or just the path)."""
    if text == "random":
        return RandomPlayer()
    if text.startswith("pure:"):
        try:
            playouts = int(text.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"{text!r}: pure MCTS takes a playout count, like pure:1000") from None
        if playouts < 1:
            raise ValueError(f"{text!r}: playouts must be at least 1")
        return PurePlayer(playouts)
    path = Path(text.removeprefix("net:").removeprefix("dqn:"))
    if models is not None and not path.is_absolute():
        path = models / path
    model = load_model(path, spec)
    from pipeline.nets.resnet import PolicyValueNet

    if isinstance(model, PolicyValueNet):
        from pipeline.nets.evaluator import NetEvaluator

        return NetPlayer(NetEvaluator(model), search or SearchConfig(), path.stem)
    from pipeline.dqn.agent import DQNPlayer

    return DQNPlayer(model, name=path.stem)


def load_model(path: Path, spec: GameSpec | None = None):
    """A policy-value net or a DQN Q-network, whichever the checkpoint holds; the file is
    read and unpickled once."""
    from pipeline.dqn.checkpoint import FORMAT as DQN_FORMAT
    from pipeline.dqn.checkpoint import qnet_from_payload
    from pipeline.nets.checkpoint import FORMAT as NET_FORMAT
    from pipeline.nets.checkpoint import CheckpointError, net_from_payload, read_payload

    path = Path(path)
    payload = read_payload(path, None)
    if payload["format"] == DQN_FORMAT:
        return qnet_from_payload(payload, path, spec)
    if payload["format"] == NET_FORMAT:
        return net_from_payload(payload, path, spec)
    raise CheckpointError(f"{path}: unknown checkpoint format {payload['format']!r}")


def checkpoint_game(path: Path) -> GameSpec:
    """The game a checkpoint (policy-value net or DQN) was trained for."""
    return load_model(path).game
