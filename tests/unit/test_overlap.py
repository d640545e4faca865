"""`selfplay.overlap`: two half-batches in flight, the network on its own thread. The
schedule changes, the games do not: for an evaluator whose answer for a position does not
depend on the rest of its batch, overlap on and off give the same trees and the same games."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from pipeline.config import ParamsError, load_params
from pipeline.games.base import GameSpec
from pipeline.nets.evaluator import NetEvaluator
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.stages.selfplay import selfplay_config
from tests.unit.test_pinned_outputs import HashEvaluator, digest

pytestmark = pytest.mark.unit


class Recording:
    """HashEvaluator that notes each call's thread and batch size."""

    def __init__(self, spec: GameSpec):
        self.inner = HashEvaluator(spec)
        self.calls: list[tuple[str, int]] = []

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append((threading.current_thread().name, len(obs)))
        return self.inner(obs)


def outcome(text: str, games: int, config: dict, overlap: bool, evaluator=None) -> tuple:
    spec = GameSpec.parse(text)
    ended: list[tuple[int, int]] = []
    positions, stats = play_games(
        spec,
        evaluator or HashEvaluator(spec),
        games,
        SelfPlayConfig.model_validate(config | {"overlap": overlap}),
        seed=11,
        on_game_end=lambda g, n: ended.append((g, n)),
    )
    records = digest(positions.obs, positions.pi, positions.z, positions.game_id, positions.ply)
    return records, ended, stats.simulations, stats.plies, stats.resigned, stats.first_player_wins


CASES = {
    # the solvers' tables and the root guard are shared by the games: their order matters
    "gomoku vcf": ("gomoku:7:k5", 6, {"parallel_games": 5, "search": {"simulations": 24}}),
    "gomoku gumbel": ("gomoku:7:k5", 5, {"parallel_games": 4, "search": {"simulations": 24, "root": "gumbel"}}),
    "connect6 cap and resign": (
        "connect6:6",
        5,
        {
            "parallel_games": 3,
            "search": {"tactics": "off", "simulations": 16},
            "fast_simulations": 4,
            "resign_threshold": -0.2,
            "resign_calibration": 0.5,
        },
    ),
    "hex connections": ("hex:5", 4, {"parallel_games": 3, "search": {"simulations": 24}}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_overlap_plays_the_lockstep_games(name):
    text, games, config = CASES[name]
    spec = GameSpec.parse(text)
    evaluator = Recording(spec)
    on = outcome(text, games, config, True, evaluator)
    assert on == outcome(text, games, config, False)
    # ... and it did overlap: half-batches, evaluated off the calling thread
    forward = [n for thread, n in evaluator.calls if thread.startswith("forward")]
    assert forward and max(forward) <= (config["parallel_games"] + 1) // 2 * SearchConfig().leaves_per_step


def test_overlap_builds_the_lockstep_trees_and_grows_them_alike():
    spec = GameSpec.parse("gomoku:7:k5")
    config = SearchConfig(simulations=48)
    trees = []
    for overlap in (False, True):
        search = BatchedMCTS(spec, 5, config, seed=3, capacity=16, overlap=overlap)  # grows on the way
        state = spec.new_game()
        for g in range(5):
            search.reset(g, state.array)
        for _ in range(3):
            visits = search.search(HashEvaluator(spec), noise=True, simulations=np.array([48, 30, 48, 8, 40]))
            action = int(np.argmax(visits[0]))
            state.apply(action)
            for g in range(5):
                search.advance(g, action, state.array)
        tree = search.tree
        trees.append((tree.node_int.copy(), tree.node_float.copy(), tree.size.copy(), search.grown, search.evaluations))
    (a_int, a_float, a_size, a_grown, a_evals), (b_int, b_float, b_size, b_grown, b_evals) = trees
    assert a_grown > 0 and (a_grown, a_evals) == (b_grown, b_evals)
    assert np.array_equal(a_size, b_size) and np.array_equal(a_int, b_int) and np.array_equal(a_float, b_float)


def test_a_forward_error_reaches_the_caller():
    spec = GameSpec.parse("gomoku:5:k4")

    def broken(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise RuntimeError("backend gone")

    search = BatchedMCTS(spec, 4, SearchConfig(simulations=8, tactics="off"), overlap=True)
    for g in range(4):
        search.reset(g, spec.new_game().array)
    with pytest.raises(RuntimeError, match="backend gone"):
        search.search(broken)


def test_overlap_with_a_real_net_is_reproducible_and_keeps_the_records_format():
    spec = GameSpec.parse("gomoku:6:k4")
    torch.manual_seed(0)
    evaluator = NetEvaluator(PolicyValueNet(spec, NetSpec(blocks=1, channels=8, value_hidden=8)), threads=1)
    config = SelfPlayConfig(parallel_games=4, search=SearchConfig(simulations=16))
    runs = [
        play_games(spec, evaluator, 5, config.model_copy(update={"overlap": o}), seed=2) for o in (True, True, False)
    ]
    (on, stats), (again, _), (off, _) = runs
    assert stats.games == 5 and len(on) == stats.positions > 0
    assert digest(on.obs, on.pi, on.z, on.game_id, on.ply) == digest(
        again.obs, again.pi, again.z, again.game_id, again.ply
    )
    for name in ("obs", "pi", "z", "game_id", "ply"):
        a, b = getattr(on, name), getattr(off, name)
        assert a.dtype == b.dtype and a.shape[1:] == b.shape[1:]
    assert np.allclose(on.pi.sum(axis=1), 1.0, atol=1e-5) and set(np.unique(on.z)) <= {-1, 0, 1}
    for g in range(5):
        assert on.ply[on.game_id == g].tolist() == list(range((on.game_id == g).sum()))


def test_params_validate_overlap_and_the_stage_passes_it_on():
    assert load_params().selfplay.overlap is False
    params = load_params(overrides={"selfplay.overlap": True})
    assert selfplay_config(params, 1).overlap is True
    with pytest.raises(ParamsError, match="overlap"):
        load_params(overrides={"selfplay.overlap": "sometimes"})
