import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.selfplay.resign import ResignPolicy, resign_threshold_for

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
        # Every move was searched in full, so the last record is the move that ends the game.
        assert positions.plies_left[positions.game_id == g].tolist() == list(range(len(plies), 0, -1))
    # A stone is never where the policy target puts weight: targets are legal moves.
    stones = positions.obs[:, 0] + positions.obs[:, 1]
    cells = spec.cells
    assert (positions.pi[:, :cells].reshape(-1, spec.height, spec.width)[stones > 0] == 0).all()
    assert np.array_equal(positions.obs, again.obs) and np.array_equal(positions.pi, again.pi)
    if spec.game != "hex":
        assert set(np.unique(positions.z)) <= {-1, 0, 1}
    else:
        assert set(np.unique(positions.z)) <= {-1, 1}


class StoneParityEvaluator:
    """Uniform priors; every position is judged won for the first player (a value of
    +0.99 when the first player is to move, -0.99 otherwise), so the second player's
    searched root value is about -0.99 from its first move on."""

    def __init__(self, num_actions: int):
        self.num_actions = num_actions

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        stones = obs[:, :2].sum(axis=(1, 2, 3))
        values = np.where(stones % 2 == 0, 0.99, -0.99).astype(np.float32)
        return np.full((len(obs), self.num_actions), 1.0 / self.num_actions, dtype=np.float32), values


def test_a_playout_cap_of_one_is_the_plain_search():
    spec = GameSpec.parse("gomoku:4:k3")
    search = SearchConfig(simulations=24)
    evaluator = UniformEvaluator(spec.num_actions)
    plain, _ = play_games(spec, evaluator, 4, SelfPlayConfig(parallel_games=4, search=search), seed=5)
    capped = SelfPlayConfig(parallel_games=4, search=search, fast_simulations=4, full_search_prob=1.0)
    same, _ = play_games(spec, evaluator, 4, capped, seed=5)
    assert np.array_equal(plain.obs, same.obs) and np.array_equal(plain.pi, same.pi)


def test_playout_cap_records_only_full_searches():
    spec = GameSpec.parse("gomoku:5:k4")
    full, fast = 48, 6
    config = SelfPlayConfig(
        parallel_games=6, search=SearchConfig(simulations=full), fast_simulations=fast, full_search_prob=0.3
    )
    positions, stats = play_games(spec, UniformEvaluator(spec.num_actions), 12, config, seed=1)
    assert stats.games == 12
    # Roughly 30% of the moves are training positions; the rest are played and not kept.
    assert 0.1 * stats.plies < stats.positions < 0.55 * stats.plies
    assert len(positions) == stats.positions
    # Each game's kept plies are a strictly increasing subset of its moves.
    for g in np.unique(positions.game_id):
        plies = positions.ply[positions.game_id == g]
        assert (np.diff(plies) > 0).all()
    # The search spent about 0.3 * 48 + 0.7 * 6 = 18.6 evaluations a move, far below 48.
    assert stats.simulations / stats.plies < 0.6 * full
    assert np.allclose(positions.pi.sum(axis=1), 1.0, atol=1e-5)


def test_resignation_ends_games_for_the_losing_side():
    spec = GameSpec.parse("gomoku:5:k4")
    config = SelfPlayConfig(
        parallel_games=4, search=SearchConfig(simulations=16), resign_threshold=-0.9, resign_calibration=0.0
    )
    positions, stats = play_games(spec, StoneParityEvaluator(spec.num_actions), 6, config, seed=0)
    # The second player resigns at its first move in every game: one ply each, won by the first.
    assert stats.resigned == 6 and stats.plies == 6 and stats.first_player_wins == 6
    assert len(positions) == 6 and (positions.z == 1).all()


def test_each_position_keeps_its_searched_value_for_the_mover():
    spec = GameSpec.parse("gomoku:5:k4")
    config = SelfPlayConfig(parallel_games=4, search=SearchConfig(simulations=16, tactics="off"))
    positions, _ = play_games(spec, StoneParityEvaluator(spec.num_actions), 4, config, seed=0)
    assert np.isfinite(positions.q).all() and (np.abs(positions.q) <= 1).all()
    # Before any win is in reach of 16 simulations, the root's mean is the evaluator's
    # judgement for the mover: about +0.99 for the first player, -0.99 for the second.
    early = positions.ply < 3
    assert early.sum() == 12
    assert np.allclose(positions.q[early], np.where(positions.ply[early] % 2 == 0, 0.99, -0.99), atol=0.02)
    # A position whose mover wins at once: the search proved it, and q is that proof (1),
    # not the root's mean, which its own first visit keeps below 1.
    last = positions.plies_left == 1
    assert last.sum() == 4 and (positions.q[last] == 1.0).all()


def test_calibration_games_count_false_resignations():
    spec = GameSpec.parse("gomoku:5:k4")
    config = SelfPlayConfig(
        # Without tactics: its proven losses would give the first player values below the
        # threshold too, and this test counts the second player's alone.
        parallel_games=4,
        search=SearchConfig(simulations=16, tactics="off"),
        resign_threshold=-0.9,
        resign_calibration=1.0,
    )
    _, stats = play_games(spec, StoneParityEvaluator(spec.num_actions), 8, config, seed=0)
    assert stats.resigned == 0 and stats.calibration_games == 8
    # The second player would have resigned in every game; each game it did not lose was
    # a false resignation.
    assert stats.would_resign == 8
    assert stats.false_resignations == 8 - stats.first_player_wins
    assert stats.false_resignations > 0
    assert len(stats.winner_min_values) == 8 - stats.draws


def test_suggested_resign_threshold_is_the_winners_5th_percentile():
    assert resign_threshold_for([]) is None
    # np.quantile's linear rule: position 0.05 * 3 = 0.15 between -1.0 and -0.5.
    assert resign_threshold_for([0.5, -1.0, 0.0, -0.5]) == pytest.approx(-0.925)


def test_fast_simulations_must_be_below_full():
    with pytest.raises(ValueError, match="fast_simulations"):
        SelfPlayConfig(search=SearchConfig(simulations=50), fast_simulations=50)


def test_resign_policy_resigns_below_its_threshold_and_calibration_games_only_count():
    policy = ResignPolicy(threshold=-0.8, calibration=0.0)
    watch = policy.watch(np.random.default_rng(0))
    assert not watch.calibrating
    assert not policy.resigns(watch, 0, -0.5) and watch.min_value == [-0.5, 1.0]
    assert policy.resigns(watch, 1, -0.9)
    policy.game_over(watch, 0)
    assert policy.tally.calibration_games == 0 and policy.tally.winner_min_values == []
    # A calibration game never resigns: a would-be resignation by the eventual winner is false.
    calibrating = ResignPolicy(threshold=-0.8, calibration=1.0)
    watch = calibrating.watch(np.random.default_rng(0))
    assert watch.calibrating
    assert not calibrating.resigns(watch, 0, -0.9) and watch.would_resign == [True, False]
    calibrating.game_over(watch, 0)
    tally = calibrating.tally
    assert (tally.calibration_games, tally.would_resign, tally.false_resignations) == (1, 1, 1)
    assert tally.winner_min_values == [-0.9]


def test_without_resignation_no_random_number_is_drawn_and_every_winner_counts():
    policy = ResignPolicy(threshold=None, calibration=0.1)
    rng = np.random.default_rng(0)
    watch = policy.watch(rng)
    assert watch.calibrating and rng.random() == np.random.default_rng(0).random()
    assert not policy.resigns(watch, 1, -1.0)
    policy.game_over(watch, 1)
    assert policy.tally.winner_min_values == [-1.0] and policy.tally.calibration_games == 0
