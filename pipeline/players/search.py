"""Players that search: pure MCTS (random rollouts) and a policy-value net through the
batched search (PUCT, or Gumbel at the root); and the uniformly random player, the zero of
every scale."""

from __future__ import annotations

import time

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.nets.evaluator import NetEvaluator, shared_evaluator
from pipeline.nets.inference import InferenceConfig
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.base import ProvenWin, Thought, check_position
from pipeline.search.evaluator import Evaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.search.pure import PureMCTS
from pipeline.search.tree import VISITS
from pipeline.tactics.lines.solve import COLOURS, prove


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
        check_position(state)
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
        check_position(state)
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


# How a net that plays runs its forward pass (matches, the gate, the protocols, the web
# app): the backend self-play's `inference: auto` picks, measured once on this machine at
# the search's batch (8 leaves) and one thread, bf16 where the CPU computes it natively;
# on the CPU, as these players always ran, also where a GPU is (self-play's and training's).
# Eager torch in f32, which these players ran until 2026-12-07, was 1.5 to 17 times slower
# at that batch (OpenVINO in bf16 on the 2-core box: the 15x15 net 6.4x, Connect6 19x19
# 17x, Hex 11x11 3.8x; `python -m pipeline.bench.play_inference`): at a time a move,
# that many fewer simulations.
PLAY_INFERENCE = InferenceConfig(device="cpu")
PLAY_BATCH = SearchConfig().leaves_per_step


def player_evaluator(model: PolicyValueNet, inference: InferenceConfig | None = PLAY_INFERENCE) -> NetEvaluator:
    """A player's net, on one intra-op thread for its small batches (a search's few leaves
    at a time). With torch's default of a thread per core, one 15x15 forward took 0.4 s
    instead of 3 ms whenever anything else kept the cores busy (the opponent engine under
    Piskvork, a training run), and the brain's timed move got one simulation.
    `inference` None: eager torch in f32, as the net was trained. Otherwise the evaluator
    is the process's one for these weights and settings (`shared_evaluator`): the web app
    makes a player for every search, and each new one paid the weights' hash, the backend's
    choice and its compile again (about 100 ms a move on this machine)."""
    if inference is None:
        return NetEvaluator(model, threads=1, config=None, batch=PLAY_BATCH)
    return shared_evaluator(model, inference, threads=1, batch=PLAY_BATCH)


def play_inference(backend: str) -> InferenceConfig | None:
    """The forward pass a player's `--inference` names: auto (PLAY_INFERENCE), onnxruntime,
    openvino (bf16 where native), or torch (eager, f32, as the net was trained: None)."""
    if backend == "torch":
        return None
    return PLAY_INFERENCE.model_copy(update={"backend": backend})


class NetPlayer:
    """A network through the batched search: no root noise, the most visited move (with
    `search.root: gumbel`, sequential halving's choice among the top-m by prior), a proven
    win taken and a proven loss avoided, or a move sampled from the visits during the first
    `temperature_moves` plies. Each game's tree follows the moves played. `proven` keeps,
    per game of the match, the first position where its tree proved the chosen move a win
    and the solver gave the proof (a solver call only at such positions, none in a game
    once it has its proof).

    Made with `seconds` (a match by time), it thinks that long for each move, however many
    simulations that reaches: `choose` searches its games one after the other, each for the
    whole time (a lockstep batch would share it), and `think` without a budget is bounded by
    the time alone, one tree growing until the time is spent."""

    def __init__(
        self,
        evaluator: Evaluator,
        search: SearchConfig,
        name: str = "net",
        temperature_moves: int = 0,
        seconds: float | None = None,
    ):
        self.evaluator = evaluator
        self.config = search.model_copy(update={"threat_guidance": False})  # never in evaluation
        self.name = name
        self.temperature_moves = temperature_moves
        self.seconds = seconds  # a time a move instead of the search's simulations
        self.search: BatchedMCTS | None = None
        self.rng = np.random.default_rng(0)
        self.fresh = np.ones(0, dtype=np.bool_)
        self.last_visits: dict[int, np.ndarray] = {}
        self.last_value: dict[int, float] = {}
        self.proven: dict[int, ProvenWin] = {}

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.search = BatchedMCTS(spec, games, self.config, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.fresh = np.ones(games, dtype=np.bool_)
        self.proven = {}

    def _sync(self, g: int, state: GameState) -> BatchedMCTS:
        """Game g's tree, rooted at `state`: kept if it already is (tree reuse), else new."""
        search = self.search
        assert search is not None
        if self.fresh[g] or not np.array_equal(search.roots[g], state.array):
            search.reset(g, state.array)
            self.fresh[g] = False
        return search

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        if self.seconds is not None:  # by time: each game's move gets the whole time
            return [self.think(s, game=g).action for g, s in zip(games, states, strict=True)]
        search = self.search
        assert search is not None, "start() first"
        active = np.zeros(search.games, dtype=np.bool_)
        for g, s in zip(games, states, strict=True):
            self._sync(g, s)
            active[g] = True
        visits = search.search(self.evaluator, active=active, noise=False)
        moves = [self._pick(g, s, visits[g]) for g, s in zip(games, states, strict=True)]
        for g, s, a in zip(games, states, moves, strict=True):
            if g not in self.proven:
                self._note_proof(g, s, a)
        return moves

    def _proof(self, g: int, state: GameState, action: int):
        """The solver's proof of the win at game g's root when the tree proved `action` a
        win, else None: the tree knows cheaply, so the solver (up to a second for a VCT)
        runs only then."""
        assert self.search is not None
        if self.config.tactics == "off" or not self.search.tree.proven_win(g, action):
            return None
        return prove(state, self.config.tactics)

    def _note_proof(self, g: int, state: GameState, action: int) -> None:
        self._keep_proof(g, state, self._proof(g, state, action))

    def _keep_proof(self, g: int, state: GameState, proof) -> None:
        if proof is not None:
            length = proof.attacker_moves(state.spec, state.ply)
            self.proven[g] = ProvenWin(state.ply, COLOURS[proof.winner], proof.kind, length)

    def _pick(self, g: int, state: GameState, visits: np.ndarray) -> int:
        assert self.search is not None
        self.last_visits[g] = visits
        self.last_value[g] = self.search.tree.root_value(g)
        if self.config.empty_board_centre and state.spec.wins_by_line and state.ply == 0:
            return state.spec.centre_action
        if state.ply < self.temperature_moves:
            return pick_action(visits, 1.0, self.rng)
        return self.search.best_action(g)

    def observe(self, game: int, state: GameState, action: int) -> None:
        if self.search is not None and not state.is_terminal and not self.fresh[game]:
            self.search.advance(game, action, state.array)

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        check_position(state)
        if self.search is None or self.search.spec != state.spec or game >= self.search.games:
            self.start(state.spec, max(game + 1, 1), 0)
        search = self._sync(game, state)
        start = time.perf_counter()
        before = int(search.tree.node_int[game, 0, VISITS])  # the root's visits so far (reused ones included)
        active = np.zeros(search.games, dtype=np.bool_)
        active[game] = True
        timed = budget is None and self.seconds is not None  # a player by time: the time alone
        if timed and seconds is None:
            seconds = self.seconds
        visits = search.search(
            self.evaluator,
            active=active,
            simulations=None if timed else budget or self.config.simulations,
            seconds=seconds,
        )[game]
        action = self._pick(game, state, visits)
        simulations = int(search.tree.node_int[game, 0, VISITS]) - before
        proof = self._proof(game, state, action)
        if game not in self.proven:  # the match's report, as `choose` keeps it
            self._keep_proof(game, state, proof)
        seconds = time.perf_counter() - start
        text = None if proof is None else proof.describe(state.spec, state.ply)
        return Thought(action, visits, search.tree.root_value(game), simulations, seconds, text)

    def policy_value(self, state: GameState) -> tuple[np.ndarray, float]:
        """The raw network policy (by action, legal moves only, normalised) and value."""
        priors, values = self.evaluator(state.observation()[None])
        legal = state.legal_mask()
        policy = np.zeros(state.spec.num_actions, dtype=np.float32)
        for a in np.flatnonzero(legal):
            policy[a] = priors[0][state.presented_action(int(a))]
        total = policy.sum()
        return (policy / total if total > 0 else legal / legal.sum()), float(values[0])
