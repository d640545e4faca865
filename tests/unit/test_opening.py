"""Opening exploration in self-play: the completed-Q policy target and random first moves."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.players.factory import play_search
from pipeline.players.search import NetPlayer
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.selfplay.opening import improved_policy
from pipeline.selfplay.play import SelfPlayConfig, play_games

pytestmark = pytest.mark.unit


class CentreHater:
    """Uniform priors; the player to move loses (-1) whenever the centre is taken, else 0."""

    def __init__(self, spec: GameSpec):
        self.spec = spec

    def __call__(self, obs):
        n = obs.shape[0]
        c = self.spec.height // 2
        taken = obs[:, :2, c, c].sum(axis=1) > 0
        return np.full((n, self.spec.num_actions), 1 / self.spec.num_actions, np.float32), np.where(taken, -1.0, 0.0)


def searched(spec, state, evaluator, simulations):
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=simulations, tactics="off", prove_wins=False), seed=0)
    search.reset(0, state.array)
    visits = search.search(evaluator)[0]
    return search, visits


def test_an_unvisited_good_move_leads_the_improved_policy():
    spec = GameSpec.parse("gomoku:9:k5")
    state = spec.new_game()
    evaluator = CentreHater(spec)
    search, visits = searched(spec, state, evaluator, simulations=4)
    centre = state.to_action("e5")
    assert visits[centre] == 0  # four simulations over 81 equal priors never reached it
    pi = improved_policy(state, evaluator, search.tree, 0)
    assert pi.sum() == pytest.approx(1.0)
    # sigma = (50 + max visits) * 0.1 on a [0, 1] scale: e^5.1 against 1 for each of 80 others
    assert int(pi.argmax()) == centre and pi[centre] > 0.6
    assert pi[centre] > 100 * np.delete(pi, centre).max()


def test_an_immediate_win_leads_the_improved_policy_without_a_visit():
    spec = GameSpec.parse("gomoku:3:k3")
    state = spec.new_game()
    for move in ["a1", "a2", "b1", "b2"]:
        state.apply(move)
    search, _ = searched(spec, state, UniformEvaluator(spec.num_actions), simulations=1)
    win = state.spec.new_game().to_action("c1")
    pi = improved_policy(state, UniformEvaluator(spec.num_actions), search.tree, 0)
    assert int(pi.argmax()) == win and pi[win] > 0.5
    assert pi[~state.legal_mask()].sum() == 0


def test_random_first_moves_spread_the_openings_and_change_nothing_when_off():
    spec = GameSpec.parse("gomoku:7:k4")
    evaluator = UniformEvaluator(spec.num_actions)
    search = SearchConfig(simulations=8, tactics="off")
    plain, _ = play_games(spec, evaluator, 8, SelfPlayConfig(parallel_games=4, search=search, temperature_moves=0), 3)
    off = SelfPlayConfig(parallel_games=4, search=search, temperature_moves=0, random_first_moves=0.0)
    same, _ = play_games(spec, evaluator, 8, off, 3)
    assert np.array_equal(plain.obs, same.obs) and np.array_equal(plain.pi, same.pi)
    on = SelfPlayConfig(parallel_games=4, search=search, temperature_moves=0, random_first_moves=1.0)
    spread, _ = play_games(spec, evaluator, 24, on, 3)
    first_stones = {
        int(np.flatnonzero(o[:2].sum(axis=0).ravel())[0]) for o, p in zip(spread.obs, spread.ply, strict=True) if p == 1
    }
    assert len(first_stones) >= 8  # 24 games, 49 cells: a uniform draw, not the search's favourite


def test_completed_q_plies_replace_only_the_first_targets():
    spec = GameSpec.parse("gomoku:7:k4")
    evaluator = CentreHater(spec)
    search = SearchConfig(simulations=6, tactics="off")
    config = SelfPlayConfig(parallel_games=2, search=search, temperature_moves=0, completed_q_plies=1)
    positions, _ = play_games(spec, evaluator, 2, config, 0)
    first = positions.pi[positions.ply == 0]
    assert len(first) == 2 and (first.argmax(axis=1) == 24).all() and (first[:, 24] > 0.7).all()
    later = positions.pi[positions.ply == 1]
    # Visit counts again: a few simulations leave most legal moves at zero, where the
    # improved policy gives every legal move some mass.
    assert ((later == 0).sum(axis=1) > 40).all()
    assert ((first == 0).sum(axis=1) == 0).all()


def test_full_search_plies_keep_every_opening_position_under_a_playout_cap():
    spec = GameSpec.parse("gomoku:7:k4")
    evaluator = UniformEvaluator(spec.num_actions)
    search = SearchConfig(simulations=8, tactics="off")
    capped = SelfPlayConfig(
        parallel_games=4, search=search, temperature_moves=0, fast_simulations=2, full_search_prob=0.1
    )
    sparse, _ = play_games(spec, evaluator, 8, capped, 5)
    kept = SelfPlayConfig.model_validate(capped.model_dump() | {"full_search_plies": 2})
    dense, _ = play_games(spec, evaluator, 8, kept, 5)
    assert (sparse.ply < 2).sum() < 8  # a 10% draw keeps few of the 16 opening positions
    assert sorted(np.bincount(dense.game_id[dense.ply < 2])) == [2] * 8  # every game keeps plies 0 and 1


def central_random_openings(plies: int | list[int]) -> SelfPlayConfig:
    """Every game from a random opening of `plies` moves within 2 cells of the centre, its
    first plies searched in full and kept, the rest rarely."""
    return SelfPlayConfig(
        parallel_games=4,
        search=SearchConfig(simulations=4, tactics="off"),
        temperature_moves=0,
        random_first_moves=1.0,
        random_opening_plies=plies,
        random_opening_radius=2,
        full_search_plies=4,
        fast_simulations=2,
        full_search_prob=0.05,
    )


def test_random_openings_of_several_plies_stay_within_the_radius_and_are_kept_as_targets():
    spec = GameSpec.parse("connect6:19")
    evaluator = UniformEvaluator(spec.num_actions)
    positions, _ = play_games(spec, evaluator, 6, central_random_openings(3), 1)
    after_opening = [o for o, p in zip(positions.obs, positions.ply, strict=True) if p == 3]
    assert len(after_opening) == 6  # every game's position after its random opening is a target
    openings = set()
    for obs in after_opening:
        rows, cols = np.nonzero(obs[:2].sum(axis=0))
        assert len(rows) == 3  # one black stone, two white
        assert (np.abs(rows - 9) <= 2).all() and (np.abs(cols - 9) <= 2).all()
        openings.add(tuple(sorted(zip(rows.tolist(), cols.tolist(), strict=True))))
    assert len(openings) >= 5  # drawn, not the search's favourite
    # Inside the opening only the empty board is kept: the outcomes after it follow random moves.
    assert set(positions.ply.tolist()) & {1, 2} == set()
    assert (positions.ply == 0).sum() == 6


def test_a_random_opening_move_leaves_the_centre_only_when_it_is_full():
    from pipeline.selfplay.opening import random_opening_move

    spec = GameSpec.parse("gomoku:5:k4")
    state = spec.new_game()
    state.apply("c3")
    rng = np.random.default_rng(0)
    anywhere = {random_opening_move(state, rng, 0) for _ in range(50)}
    assert len(anywhere) > 8 and state.to_action("c3") not in anywhere
    assert len({random_opening_move(state, rng, 1) for _ in range(200)}) == 8  # the ring around c3


def test_a_mix_of_opening_lengths_keeps_the_lone_first_stone_answered_by_search():
    spec = GameSpec.parse("connect6:19")
    evaluator = UniformEvaluator(spec.num_actions)
    positions, _ = play_games(spec, evaluator, 12, central_random_openings([1, 3]), 3)
    games = np.unique(positions.game_id)
    lone = {int(g) for g in games if ((positions.game_id == g) & (positions.ply == 1)).any()}
    three = set(games.tolist()) - lone
    assert lone and three  # both lengths drawn over 12 games
    for obs, ply, game in zip(positions.obs, positions.ply, positions.game_id, strict=True):
        if ply == 1:  # white to move after one random black stone: kept, its outcome played by search
            rows, cols = np.nonzero(obs[:2].sum(axis=0))
            assert len(rows) == 1 and abs(rows[0] - 9) <= 2 and abs(cols[0] - 9) <= 2
        if int(game) in three:
            assert ply not in (1, 2)  # between random moves: not kept
    for game in three:
        assert ((positions.game_id == game) & (positions.ply == 3)).any()


def test_lone_stones_drawn_anywhere_and_three_stone_openings_near_the_centre():
    spec = GameSpec.parse("connect6:19")
    evaluator = UniformEvaluator(spec.num_actions)
    config = central_random_openings([1, 3]).model_copy(update={"lone_stone_anywhere": True})
    positions, _ = play_games(spec, evaluator, 24, config, 4)
    lone = {int(g) for g, p in zip(positions.game_id, positions.ply, strict=True) if p == 1}
    lone_stones, three_stones = [], []
    for obs, ply, game in zip(positions.obs, positions.ply, positions.game_id, strict=True):
        rows, cols = np.nonzero(obs[:2].sum(axis=0))
        far = np.maximum(np.abs(rows - 9), np.abs(cols - 9))
        if ply == 1:
            lone_stones.append(int(far[0]))
        elif ply == 3 and int(game) not in lone:
            three_stones.extend(far.tolist())
    assert lone_stones and three_stones
    assert max(lone_stones) > 2  # from the whole board: 24 draws all within 2 of the centre is (25/361)^k
    assert max(three_stones) <= 2


def test_an_empty_list_of_opening_lengths_is_refused():
    with pytest.raises(ValueError, match="random_opening_plies"):
        SelfPlayConfig(random_opening_plies=[])
    with pytest.raises(ValueError):
        SelfPlayConfig(random_opening_plies=[0, 3])


class CornerLover:
    """Every prior on action 0 (a corner), values 0: a search that plays there."""

    def __init__(self, spec: GameSpec):
        self.spec = spec

    def __call__(self, obs):
        priors = np.full((obs.shape[0], self.spec.num_actions), 1e-4, np.float32)
        priors[:, 0] = 1.0
        return priors / priors.sum(axis=1, keepdims=True), np.zeros(obs.shape[0])


@pytest.mark.parametrize("text, centre", [("connect6:19", "j10"), ("gomoku:15", "h8"), ("gomoku:3:k3", "b2")])
def test_a_played_net_opens_a_line_game_at_the_centre_whatever_its_search_likes(text, centre):
    spec = GameSpec.parse(text)
    search = play_search(spec, 16)
    assert search.empty_board_centre
    own = NetPlayer(CornerLover(spec), search.model_copy(update={"empty_board_centre": False}), "own")
    played = NetPlayer(CornerLover(spec), search, "played")
    assert own.think(spec.new_game()).action == 0
    thought = played.think(spec.new_game())
    assert spec.action_name(thought.action) == centre
    assert played.last_visits[0].argmax() == 0  # its search ran, liked the corner, and its analysis is kept
    # Only the empty board: after a first stone the search's choice stands.
    state = spec.new_game().apply(centre)
    assert played.think(state).action != spec.centre_action


def test_hex_keeps_its_searched_first_move():
    spec = GameSpec.parse("hex:7")
    assert not play_search(spec, 16).empty_board_centre
    forced = play_search(spec, 16).model_copy(update={"empty_board_centre": True})  # not for Hex, even when set
    move = NetPlayer(CornerLover(spec), forced, "hex").think(spec.new_game()).action
    assert move == NetPlayer(CornerLover(spec), play_search(spec, 16), "hex").think(spec.new_game()).action
    assert move != spec.centre_action
