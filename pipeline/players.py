"""The one bot interface, for everything that picks moves: network + PUCT search, pure
MCTS, a DQN's greedy move, uniformly random. The arena, the evaluate stage, the DQN
comparison, the web app, the Gomocup brain, the HTP engine and the terminal game all
drive players through it, in the spirit of OpenSpiel's `Bot`:

- `start(spec, games, seed)`: a new match of `games` games begins;
- `choose(games, states)`: moves for every game where it is this player's turn, all at
  once (a network player batches its evaluations across games);
- `observe(game, state, action)`: a move was played (by either side), so a player that
  keeps its search tree follows it;
- `think(state, budget, seconds, game)`: one position, analysed: the move, the root's
  visits and value, the simulations run and the time taken, within a simulation budget
  (default the player's own) and/or a time limit. The protocols and the web app use it.

A new kind of player is a class with these four methods and a `name`, plus a line in
`make_player` if it has a text form. A player that cannot go on in a game (an external
engine that broke its protocol) raises `Forfeit` from `choose`: the arena scores that game
as its loss, with the reason."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

import numpy as np

from pipeline.bot import Thought
from pipeline.dqn.agent import greedy, q_values
from pipeline.dqn.checkpoint import FORMAT as DQN_FORMAT
from pipeline.dqn.checkpoint import qnet_from_payload
from pipeline.dqn.qnet import QNetwork
from pipeline.engines import EnginePlayer, is_engine_text, parse_engine
from pipeline.games.base import GameSpec, GameState
from pipeline.nets.checkpoint import FORMAT as NET_FORMAT
from pipeline.nets.checkpoint import CheckpointError, net_from_payload, read_payload
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import PolicyValueNet
from pipeline.search.evaluator import Evaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.search.pure import PureMCTS
from pipeline.search.tree import VISITS


class Player(Protocol):
    name: str

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        """A new match of `games` games begins."""

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        """Moves for these games, where it is this player's turn."""

    def observe(self, game: int, state: GameState, action: int) -> None:
        """`action` was played in `game` (by either side); `state` is the position after."""

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        """Analyse `state` (game `game` of the match; a one-game match is started if none
        is) within `budget` simulations (default the player's own) and `seconds`."""


def _check_position(state: GameState) -> None:
    if state.is_terminal:
        raise ValueError("the game is over")


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

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        _check_position(state)
        action = self.choose([game], [state])[0]
        return Thought(action, np.zeros(state.spec.num_actions, dtype=np.float32), 0.0, 0, 0.0)


class PurePlayer:
    """Pure MCTS (UCT, random rollouts) at a fixed number of playouts per move. With
    `reuse`, each game's tree follows the moves played (the ladder does not reuse)."""

    def __init__(self, playouts: int, c: float = 2.0, reuse: bool = False):
        self.playouts = playouts
        self.c = c
        self.reuse = reuse
        self.name = f"pure:{playouts}"
        self.searchers: list[PureMCTS] = []
        self.spec: GameSpec | None = None

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.spec = spec
        self.searchers = [
            PureMCTS(self.playouts, self.c, seed=seed * 1_000_003 + g, reuse=self.reuse) for g in range(games)
        ]

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        return [self.searchers[g].choose(s) for g, s in zip(games, states, strict=True)]

    def observe(self, game: int, state: GameState, action: int) -> None:
        if self.reuse and not state.is_terminal and game < len(self.searchers):
            self.searchers[game].observe(state, action)

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        _check_position(state)
        if self.spec != state.spec or game >= len(self.searchers):
            self.start(state.spec, max(game + 1, 1), 0)
        searcher = self.searchers[game]
        start = time.perf_counter()
        visits = searcher.search(state, playouts=budget or self.playouts, seconds=seconds)
        return Thought(
            searcher.best_action(),
            visits,
            searcher.root_value(),
            searcher.last_playouts,
            time.perf_counter() - start,
        )


def player_evaluator(model: PolicyValueNet) -> NetEvaluator:
    """A player's net, on one intra-op thread for its small batches (a search's few leaves
    at a time). With torch's default of a thread per core, one 15x15 forward took 0.4 s
    instead of 3 ms whenever anything else kept the cores busy (the opponent engine under
    Piskvork, a training run), and the brain's timed move got one simulation."""
    return NetEvaluator(model, threads=1)


class NetPlayer:
    """A network through the batched PUCT search: no root noise, the most visited move
    (a proven win taken, a proven loss avoided), or a sampled one during the first
    `temperature_moves` plies. Each game's tree follows the moves played."""

    def __init__(self, evaluator: Evaluator, search: SearchConfig, name: str = "net", temperature_moves: int = 0):
        self.evaluator = evaluator
        self.config = search.model_copy(update={"threat_guidance": False})  # never in evaluation
        self.name = name
        self.temperature_moves = temperature_moves
        self.search: BatchedMCTS | None = None
        self.rng = np.random.default_rng(0)
        self.fresh = np.ones(0, dtype=np.bool_)
        self.last_visits: dict[int, np.ndarray] = {}
        self.last_value: dict[int, float] = {}

    @classmethod
    def from_checkpoint(cls, path: Path, spec: GameSpec, search: SearchConfig, name: str | None = None) -> NetPlayer:
        model = load_model(path, spec)
        if not isinstance(model, PolicyValueNet):
            raise CheckpointError(f"{path}: a DQN checkpoint, not a policy-value net")
        return cls(player_evaluator(model), search, name or Path(path).stem)

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.search = BatchedMCTS(spec, games, self.config, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.fresh = np.ones(games, dtype=np.bool_)

    def _sync(self, g: int, state: GameState) -> BatchedMCTS:
        """Game g's tree, rooted at `state`: kept if it already is (tree reuse), else new."""
        search = self.search
        assert search is not None
        if self.fresh[g] or not np.array_equal(search.roots[g], state.array):
            search.reset(g, state.array)
            self.fresh[g] = False
        return search

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        search = self.search
        assert search is not None, "start() first"
        active = np.zeros(search.games, dtype=np.bool_)
        for g, s in zip(games, states, strict=True):
            self._sync(g, s)
            active[g] = True
        visits = search.search(self.evaluator, active=active, noise=False)
        return [self._pick(g, s, visits[g]) for g, s in zip(games, states, strict=True)]

    def _pick(self, g: int, state: GameState, visits: np.ndarray) -> int:
        assert self.search is not None
        self.last_visits[g] = visits
        self.last_value[g] = self.search.tree.root_value(g)
        if state.ply < self.temperature_moves:
            return pick_action(visits, 1.0, self.rng)
        return self.search.tree.best_action(g)

    def observe(self, game: int, state: GameState, action: int) -> None:
        if self.search is not None and not state.is_terminal and not self.fresh[game]:
            self.search.advance(game, action, state.array)

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        _check_position(state)
        if self.search is None or self.search.spec != state.spec or game >= self.search.games:
            self.start(state.spec, max(game + 1, 1), 0)
        search = self._sync(game, state)
        start = time.perf_counter()
        before = int(search.tree.I[game, 0, VISITS])  # the root's visits so far (reused ones included)
        active = np.zeros(search.games, dtype=np.bool_)
        active[game] = True
        visits = search.search(
            self.evaluator, active=active, simulations=budget or self.config.simulations, seconds=seconds
        )[game]
        action = self._pick(game, state, visits)
        simulations = int(search.tree.I[game, 0, VISITS]) - before
        return Thought(action, visits, search.tree.root_value(game), simulations, time.perf_counter() - start)

    def policy_value(self, state: GameState) -> tuple[np.ndarray, float]:
        """The raw network policy (by action, legal moves only, normalised) and value."""
        priors, values = self.evaluator(state.observation()[None])
        legal = state.legal_mask()
        policy = np.zeros(state.spec.num_actions, dtype=np.float32)
        for a in np.flatnonzero(legal):
            policy[a] = priors[0][state.presented_action(int(a))]
        total = policy.sum()
        return (policy / total if total > 0 else legal / legal.sum()), float(values[0])


class DQNPlayer:
    """A trained Q-network: the legal move with the highest Q, no search."""

    def __init__(self, net: QNetwork, name: str = "dqn"):
        self.net = net.eval()
        self.name = name

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        if spec != self.net.game:
            raise ValueError(f"this DQN plays {self.net.game}, not {spec}")

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        q = q_values(self.net, states)
        return [greedy(q[i], s.legal_mask()) for i, s in enumerate(states)]

    def observe(self, game: int, state: GameState, action: int) -> None:
        pass

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        _check_position(state)
        start = time.perf_counter()
        q = q_values(self.net, [state])[0]
        action = greedy(q, state.legal_mask())
        zeros = np.zeros(state.spec.num_actions, dtype=np.float32)
        return Thought(action, zeros, float(q[action]), 0, time.perf_counter() - start)


def load_model(path: Path, spec: GameSpec | None = None) -> PolicyValueNet | QNetwork:
    """A policy-value net or a DQN Q-network, whichever the checkpoint holds; the file is
    read and unpickled once."""
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


def model_player(model: PolicyValueNet | QNetwork, search: SearchConfig, name: str) -> NetPlayer | DQNPlayer:
    """A player for a loaded model: the net through its search, or the DQN's greedy move.
    Players are cheap: many may share one loaded model."""
    if isinstance(model, PolicyValueNet):
        return NetPlayer(player_evaluator(model), search, name)
    return DQNPlayer(model, name=name)


def make_player(text: str, spec: GameSpec, search: SearchConfig | None = None, models: Path | None = None) -> Player:
    """`pure:N`, `random`, an external engine (`gomocup:COMMAND`, `htp:COMMAND`, see
    `pipeline.engines.config`), or a checkpoint path (`net:PATH`, `dqn:PATH` or just the path)."""
    if is_engine_text(text):
        engine = parse_engine(text)
        engine.check_game(spec)
        return EnginePlayer(engine)
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
    return model_player(load_model(path, spec), search or SearchConfig(), path.stem)


def player_for(
    spec: GameSpec,
    model: Path | None,
    simulations: int = 800,
    playouts: int = 20_000,
    search: SearchConfig | None = None,
) -> Player:
    """The bot the protocols and the terminal play: the checkpoint through its search at
    `simulations` per move, or pure MCTS at `playouts` (with tree reuse) when there is no
    model. Find the model with `pipeline.discovery.find_model`."""
    if model is None:
        return PurePlayer(playouts, reuse=True)
    config = (search or SearchConfig()).model_copy(update={"simulations": simulations})
    return model_player(load_model(model, spec), config, Path(model).stem)
