import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.selfplay import SelfPlayConfig, play_games

pytestmark = pytest.mark.unit


def test_reroot_into_a_proven_subtree_keeps_searching():
    # Tic-tac-toe where the solver proves subtrees early: every move must stay legal and
    # every search must hand out visits.
    spec = GameSpec.parse("gomoku:3:k3")
    rng = np.random.default_rng(0)
    for seed in range(5):
        search = BatchedMCTS(spec, 1, SearchConfig(simulations=50), seed=seed)
        state = spec.new_game()
        search.reset(0, state.array)
        while not state.is_terminal:
            visits = search.search(UniformEvaluator(spec.num_actions))[0]
            assert visits.sum() > 0
            assert visits[~state.legal_mask()].sum() == 0
            action = pick_action(visits, 1.0, rng)
            state.apply(action)
            search.advance(0, action, state.array)


def test_pick_action_refuses_empty_visits():
    with pytest.raises(ValueError, match="no visits"):
        pick_action(np.zeros(9), 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("text", ["gomoku:3:k3", "connect6:6", "hex:4:swap"])
def test_selfplay_positions_are_consistent_and_reproducible(text):
    spec = GameSpec.parse(text)
    config = SelfPlayConfig(parallel_games=4, search=SearchConfig(simulations=24))
    evaluator = UniformEvaluator(spec.num_actions)
    positions, stats = play_games(spec, evaluator, 6, config, seed=3)
    again, _ = play_games(spec, evaluator, 6, config, seed=3)
    assert stats.games == 6
    assert stats.first_player_wins + stats.second_player_wins + stats.draws == 6
    assert len(positions) == stats.positions == positions.obs.shape[0]
    assert positions.obs.dtype == np.uint8 and positions.obs.shape[1:] == spec.obs_shape
    assert np.allclose(positions.pi.sum(axis=1), 1.0, atol=1e-5)
    assert set(np.unique(positions.game_id)) == set(range(6))
    for g in range(6):
        plies = positions.ply[positions.game_id == g]
        assert plies.tolist() == list(range(len(plies)))
    # A stone is never where the policy target puts weight: targets are legal moves.
    stones = positions.obs[:, 0] + positions.obs[:, 1]
    cells = spec.cells
    assert (positions.pi[:, :cells].reshape(-1, spec.height, spec.width)[stones > 0] == 0).all()
    assert np.array_equal(positions.obs, again.obs) and np.array_equal(positions.pi, again.pi)
    if spec.game != "hex":
        assert set(np.unique(positions.z)) <= {-1, 0, 1}
    else:
        assert set(np.unique(positions.z)) <= {-1, 1}
