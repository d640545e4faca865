"""Pinned outputs: for a fixed seed, self-play and both searches give exactly the games
they gave before a refactoring. The expected digests were recorded with the code before
the tree's fields were named and self-play was split into its jobs (issue 22); a change
here means the same seed no longer gives the same games. They were recorded again, once,
when issue 23 changed the search on purpose (with tactics off, as here): a proven win now
takes every visit at its parent (the root included), so the visit counts point at it.
The two Hex cases were recorded again when issue 24 made Hex's connection knowledge
(`search.hex_tactics`) the default: they run with it on.
The self-play cases were recorded again when issue 42 gave each game its own random
streams, from (seed, game id) alone, so that a resumed task plays the same games.
The two Hex cases were recorded again when issue 40 added H-search at the root to
`hex_tactics: all` (the default), and all but the pure and Connect6 ones when a root move
proven lost lost its visits wherever the proof came from (before, only the root guard's
proofs did: a move the in-tree solver or H-search proved lost could still be sampled, taken
as the most visited and trained on), and the swap self-play case when the empty board of a
swap game stopped pruning first moves as inferior (a weak first move is what the swap asks
for).

Print the current values with

    python -m tests.unit.test_pinned_outputs

The evaluator below is integer arithmetic on the observation planes, so its priors and
values are the same on every machine (no BLAS rounding), yet vary from position to
position, which drives resignation and the solver the way a network would."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.pure import PureMCTS
from pipeline.selfplay.play import SelfPlayConfig, play_games

pytestmark = pytest.mark.unit


class HashEvaluator:
    """Deterministic pseudo-network: priors and values from integer hashes of the planes."""

    def __init__(self, spec: GameSpec, seed: int = 0):
        rng = np.random.default_rng(seed)
        size = int(np.prod(spec.obs_shape))
        self.num_actions = spec.num_actions
        self.w_prior = rng.integers(0, 1000, (size, spec.num_actions), dtype=np.int64)
        self.w_value = rng.integers(-1000, 1000, size, dtype=np.int64)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = obs.reshape(obs.shape[0], -1).astype(np.int64)
        priors = ((x @ self.w_prior) % 97 + 1).astype(np.float32)
        values = (((x @ self.w_value) % 1801) - 900).astype(np.float32) / 1000.0
        return priors, values


def digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


# name -> (game spec, games, self-play config)
SELFPLAY_CASES: dict[str, tuple[str, int, dict]] = {
    "plain": ("gomoku:5:k4", 5, {"parallel_games": 3, "search": {"tactics": "off", "simulations": 16}}),
    "cap_and_resign": (
        "gomoku:6:k4",
        8,
        {
            "parallel_games": 3,
            "temperature_moves": 4,
            "search": {"tactics": "off", "simulations": 24},
            "fast_simulations": 6,
            "full_search_prob": 0.4,
            "resign_threshold": -0.15,
            "resign_calibration": 0.3,
        },
    ),
    "connect6_resign": (
        "connect6:6",
        4,
        {
            "parallel_games": 2,
            "search": {"tactics": "off", "simulations": 16},
            "resign_threshold": -0.2,
            "resign_calibration": 0.5,
        },
    ),
    "hex_swap_cap": (
        "hex:4:swap",
        5,
        {
            "parallel_games": 2,
            "search": {"tactics": "off", "simulations": 16},
            "fast_simulations": 4,
            "full_search_prob": 0.5,
        },
    ),
}


def selfplay_outcome(name: str) -> dict:
    text, games, config = SELFPLAY_CASES[name]
    spec = GameSpec.parse(text)
    ended: list[tuple[int, int]] = []
    positions, stats = play_games(
        spec,
        HashEvaluator(spec),
        games,
        SelfPlayConfig.model_validate(config),
        seed=11,
        on_game_end=lambda g, n: ended.append((g, n)),
    )
    return {
        "records": digest(positions.obs, positions.pi, positions.z, positions.game_id, positions.ply),
        "positions": len(positions),
        "ended": ended,
        "stats": (
            stats.games,
            stats.positions,
            stats.first_player_wins,
            stats.second_player_wins,
            stats.draws,
            stats.simulations,
            stats.plies,
            stats.resigned,
            stats.calibration_games,
            stats.would_resign,
            stats.false_resignations,
            [round(v, 6) for v in stats.winner_min_values],
        ),
    }


def batched_outcome(text: str, guided: bool) -> str:
    spec = GameSpec.parse(text)
    config = SearchConfig(simulations=64, threat_guidance=guided, tactics="off")
    search = BatchedMCTS(spec, 2, config, seed=5, capacity=64)  # small: the tree grows on the way
    state = spec.new_game()
    for g in range(2):
        search.reset(g, state.array)
    seen = []
    for _ in range(10):
        visits = search.search(HashEvaluator(spec), noise=True)
        seen.append(visits)
        action = int(np.argmax(visits[0]))
        state.apply(action)
        if state.is_terminal:
            break
        for g in range(2):
            search.advance(g, action, state.array)
    return digest(np.stack(seen), np.array([search.grown, search.evaluations]))


def pure_outcome(text: str) -> str:
    spec = GameSpec.parse(text)
    player = PureMCTS(300, seed=9, reuse=True, capacity=50)
    state = spec.new_game()
    seen = []
    while not state.is_terminal and state.ply < 8:
        visits = player.search(state)
        seen.append(visits)
        seen.append(np.array([player.root_value(), player.last_playouts, player.solved], dtype=np.float64))
        action = player.choose(state)
        state.apply(action)
        seen.append(np.array([action, player.grown]))
    return digest(*seen)


EXPECTED_SELFPLAY: dict[str, dict] = {
    "plain": {
        "records": "58d7163a579fe0af",
        "positions": 73,
        "ended": [(2, 10), (0, 16), (1, 16), (3, 12), (4, 19)],
        "stats": (5, 73, 1, 4, 0, 1013, 73, 0, 0, 0, 0, [-0.306588, -0.347737, -0.505474, -0.178, -0.472]),
    },
    "cap_and_resign": {
        "records": "4ca59af93a166bb4",
        "positions": 17,
        "ended": [(1, 1), (3, 1), (2, 5), (0, 2), (6, 1), (5, 1), (4, 3), (7, 3)],
        "stats": (8, 17, 4, 4, 0, 579, 40, 7, 1, 2, 1, [-0.333]),
    },
    "connect6_resign": {
        "records": "a9e278779a616139",
        "positions": 67,
        "ended": [(0, 2), (1, 6), (2, 23), (3, 36)],
        "stats": (4, 67, 2, 1, 1, 1028, 67, 2, 1, 1, 1, [-0.262]),
    },
    "hex_swap_cap": {
        "records": "2ed86cc55bde1d35",
        "positions": 21,
        "ended": [(1, 2), (0, 4), (2, 6), (3, 6), (4, 3)],
        "stats": (5, 21, 2, 3, 0, 165, 46, 0, 0, 0, 0, [-0.0955, -0.034333, 0.107882, 0.592235, -0.081562]),
    },
}
EXPECTED_BATCHED: dict[tuple[str, bool], str] = {
    ("gomoku:7:k5", False): "210456629f2a8987",
    ("gomoku:5:k4", True): "5fdbfa59b2e05da1",
    ("connect6:6", True): "94d46bf1d2250684",
    ("hex:5", False): "24a1e4baf72cc21f",
}
EXPECTED_PURE: dict[str, str] = {
    "gomoku:6:k4": "dd5cac7456094ff2",
    "connect6:6": "14f7c83c91f507f9",
    "hex:4:swap": "32aa86731c47a170",
}


@pytest.mark.parametrize("name", list(SELFPLAY_CASES))
def test_selfplay_gives_the_pinned_games(name):
    assert selfplay_outcome(name) == EXPECTED_SELFPLAY[name]


@pytest.mark.parametrize("case", list(EXPECTED_BATCHED), ids=str)
def test_batched_search_gives_the_pinned_visits(case):
    assert batched_outcome(*case) == EXPECTED_BATCHED[case]


@pytest.mark.parametrize("text", list(EXPECTED_PURE))
def test_pure_search_gives_the_pinned_visits(text):
    assert pure_outcome(text) == EXPECTED_PURE[text]


if __name__ == "__main__":
    for name in SELFPLAY_CASES:
        print(repr(name), ":", repr(selfplay_outcome(name)), ",")
    for case in EXPECTED_BATCHED:
        print(repr(case), ":", repr(batched_outcome(*case)), ",")
    for text in EXPECTED_PURE:
        print(repr(text), ":", repr(pure_outcome(text)), ",")
