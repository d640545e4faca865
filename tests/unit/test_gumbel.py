"""Gumbel root search: sequential halving's schedule, the Gumbel top-m, the completed-Q
improved policy on positions with a known best move, and self-play with a Gumbel root."""

import numpy as np
import pytest

from pipeline.config import ParamsError, load_params
from pipeline.games.base import GameSpec
from pipeline.match.arena import play_match
from pipeline.players.search import NetPlayer
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.gumbel import completed_q, considered_visits, improved_policy, interior_child
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.tree import ACTION, COUNT, FIRST, PRIOR, RAW, VALUE, VISITS, Tree
from pipeline.selfplay.play import SelfPlayConfig, play_games
from tests.unit.test_search import position

pytestmark = pytest.mark.unit


def phases(considered: int, simulations: int) -> list[tuple[int, int]]:
    """(actions, simulations) of each run of the schedule where the same number of
    actions receive one more visit each."""
    sequence = considered_visits(considered, simulations).tolist()
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(sequence):
        width = sequence.count(sequence[k])
        if out and out[-1][0] == width:
            out[-1] = (width, out[-1][1] + width)
        else:
            out.append((width, width))
        k += width
    return out


def test_schedule_m4_n16_by_hand():
    # log2(4) = 2 phases. Phase 1: 4 actions, 16 // (2 * 4) = 2 visits each (8 sims);
    # phase 2: the best 2, 16 // (2 * 2) = 4 visits each (8 sims). Entry k is the visit
    # count the k-th simulation's action must already have.
    assert considered_visits(4, 16).tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    final = np.bincount(considered_visits(4, 16))  # actions holding each count when visited
    assert final.tolist() == [4, 4, 2, 2, 2, 2]  # two actions stop at 2 visits, two go on to 6


def test_schedule_m16_n200_by_hand():
    # log2(16) = 4 phases: 16 x 3 (200 // 64) = 48, 8 x 6 (200 // 32) = 48, 4 x 12
    # (200 // 16) = 48, 2 x 25 (200 // 8) = 50: 194 simulations; the last 6 continue the
    # last phase (2 actions, 3 more each).
    assert phases(16, 200) == [(16, 48), (8, 48), (4, 48), (2, 56)]
    # Visits per action at the end: 8 x 3, 4 x (3 + 6), 2 x (9 + 12), 2 x (21 + 25 + 3).
    counts = np.bincount(considered_visits(16, 200))  # counts[v]: actions visited once more at count v
    ends = [int(counts[v] - (counts[v + 1] if v + 1 < len(counts) else 0)) for v in range(len(counts))]
    final = {v + 1: n for v, n in enumerate(ends) if n}
    assert final == {3: 8, 9: 4, 21: 2, 49: 2}
    assert sum(v * n for v, n in final.items()) == 200


def test_schedule_small_and_single():
    assert considered_visits(8, 13).tolist() == [0] * 8 + [1] * 4 + [2]  # fewer sims than a full halving
    assert considered_visits(1, 5).tolist() == [0, 1, 2, 3, 4]  # one action takes every visit
    assert considered_visits(7, 24).tolist() == [0] * 7 + [1, 1, 1, 2, 2, 2] + [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]
    # A longer schedule (a timed search) keeps the planned one as its start.
    assert considered_visits(4, 16, 20).tolist()[:16] == considered_visits(4, 16).tolist()


class SkewedPriors:
    """Distinct priors per cell (fixed), value 0: the Gumbel top-m is then a clear order."""

    def __init__(self, spec: GameSpec, seed: int = 5):
        self.priors = np.random.default_rng(seed).random(spec.num_actions).astype(np.float32) + 0.05

    def __call__(self, obs):
        n = obs.shape[0]
        return np.tile(self.priors, (n, 1)), np.zeros(n, dtype=np.float32)


def gumbel_search(spec, state, evaluator, simulations, considered=16, games=1, noise=True, seed=0, **extra):
    config = SearchConfig(
        simulations=simulations,
        root="gumbel",
        gumbel={"considered_actions": considered},
        **({"tactics": "off"} | extra),
    )
    search = BatchedMCTS(spec, games, config, seed=seed)
    for g in range(games):
        search.reset(g, state.array)
    visits = search.search(evaluator, noise=noise)
    return search, visits


def test_the_considered_actions_are_the_gumbel_top_m_and_get_the_schedule():
    spec = GameSpec.parse("gomoku:7:k5")
    evaluator = SkewedPriors(spec)
    state = spec.new_game()
    search, visits = gumbel_search(spec, state, evaluator, simulations=16, considered=4, games=3, seed=9)
    tree = search.tree
    noise = np.random.default_rng(9)  # the search's noise stream: one draw per game, in order
    for g in range(3):
        kids = tree.root_children(g)
        actions = tree.node_int[g, kids, ACTION]
        score = noise.gumbel(size=len(actions)) + np.log(tree.node_float[g, kids, PRIOR].astype(np.float64))
        top = set(actions[np.argsort(score)[-4:]].tolist())
        assert set(np.flatnonzero(visits[g]).tolist()) == top
        assert sorted(visits[g][visits[g] > 0].tolist()) == [2, 2, 6, 6]  # the m=4, n=16 schedule
        assert visits[g].sum() == 16
        assert visits[g][search.best_action(g)] == 6  # the move is one of the two finalists
    # Three games drew different noise, so they did not all consider the same moves.
    assert len({tuple(np.flatnonzero(v)) for v in visits}) > 1


def test_without_noise_the_top_m_by_prior_is_considered():
    spec = GameSpec.parse("gomoku:7:k5")
    evaluator = SkewedPriors(spec)
    _, visits = gumbel_search(spec, spec.new_game(), evaluator, simulations=8, considered=8, noise=False)
    assert set(np.flatnonzero(visits[0]).tolist()) == set(np.argsort(evaluator.priors)[-8:].tolist())


def test_a_forced_block_leads_the_improved_policy_with_few_simulations():
    # 3x3, three in a row. X: a1, a2 (column a) threatens a3; O must block there: every
    # other move lets X complete the column.
    state = position("gomoku:3:k3", ["a1", "b2", "a2"])
    spec = state.spec
    block = state.to_action("a3")
    assert not state.is_terminal and len(state.legal_actions()) == 6
    for seed in range(5):
        search, _ = gumbel_search(spec, state, UniformEvaluator(spec.num_actions), simulations=8, seed=seed)
        pi = improved_policy(search.tree, 0)
        assert pi.sum() == pytest.approx(1.0)
        assert int(pi.argmax()) == block and pi[block] > 0.9
        assert search.best_action(0) == block


def test_an_immediate_win_leads_the_improved_policy_and_is_played():
    state = position("gomoku:3:k3", ["a1", "a2", "b1", "b2"])
    spec = state.spec
    win = state.to_action("c1")
    search, _ = gumbel_search(spec, state, UniformEvaluator(spec.num_actions), simulations=8, prove_wins=False)
    pi = improved_policy(search.tree, 0)
    assert int(pi.argmax()) == win and pi[win] > 0.5
    assert pi[~state.legal_mask()].sum() == 0
    assert search.best_action(0) == win


def test_a_proven_win_is_taken_on_a_big_board_even_outside_the_considered_moves():
    # 9x9: X has four in a row on row 1 (a1..d1) with e1 open; the uniform prior gives e1
    # no reason to be among the 4 considered of 77 moves, but the proof (prove_wins) does.
    state = position("gomoku:9:k5", ["a1", "a9", "b1", "b9", "c1", "c9", "d1", "d9"])
    spec = state.spec
    win = state.to_action("e1")
    for seed in range(3):
        search, _ = gumbel_search(
            spec, state, UniformEvaluator(spec.num_actions), simulations=8, considered=4, seed=seed
        )
        assert search.best_action(0) == win
        assert int(improved_policy(search.tree, 0).argmax()) == win


def test_a_proven_loss_is_not_chosen_when_another_move_exists():
    # O to move must block a3 (above); with considered=1 and no noise the halving looks at
    # the prior's favourite only. A prior that loves c3 (a losing move) must not win.
    state = position("gomoku:3:k3", ["a1", "b2", "a2"])
    spec = state.spec
    lover = state.to_action("c3")

    def evaluator(obs):
        priors = np.full((obs.shape[0], spec.num_actions), 0.01, np.float32)
        priors[:, lover] = 1.0  # the presented frame is the board frame for Gomoku
        return priors, np.zeros(obs.shape[0], np.float32)

    search, visits = gumbel_search(spec, state, evaluator, simulations=6, considered=1, noise=False)
    tree = search.tree
    kids = tree.root_children(0)
    child = kids.start + int(np.flatnonzero(tree.node_int[0, kids, ACTION] == lover)[0])
    assert tree.node_int[0, child, VISITS] >= 1  # it was searched, and refuted
    assert visits[0][lover] == 0  # so its visits are not a target
    assert search.best_action(0) != lover


def test_selfplay_with_a_gumbel_root_records_improved_policies():
    spec = GameSpec.parse("gomoku:6:k4")
    search = SearchConfig(simulations=12, root="gumbel", gumbel={"considered_actions": 8}, tactics="off")
    config = SelfPlayConfig(parallel_games=3, search=search)
    positions, stats = play_games(spec, UniformEvaluator(spec.num_actions), 4, config, seed=3)
    assert stats.games == 4 and len(positions) == stats.plies
    assert np.allclose(positions.pi.sum(axis=1), 1.0, atol=1e-5)
    # Unlike visit counts of 12 simulations, the improved policy gives every legal move mass.
    legal = positions.obs[:, :2].sum(axis=1).reshape(len(positions), -1) == 0
    assert ((positions.pi > 0) == legal).all()
    again, _ = play_games(spec, UniformEvaluator(spec.num_actions), 4, config, seed=3)
    assert np.array_equal(positions.pi, again.pi) and np.array_equal(positions.obs, again.obs)


def test_params_validate_the_gumbel_section():
    params = load_params(overrides={"selfplay.search.root": "gumbel", "selfplay.search.gumbel.considered_actions": 8})
    assert params.selfplay.search.root == "gumbel" and params.selfplay.search.gumbel.considered_actions == 8
    assert load_params().selfplay.search.root == "puct"
    with pytest.raises(ParamsError, match="root"):
        load_params(overrides={"selfplay.search.root": "uct"})
    with pytest.raises(ParamsError, match="considered_actions"):
        load_params(overrides={"selfplay.search.gumbel.considered_actions": 0})


def hand_tree() -> Tree:
    """A root with three children: priors 0.5, 0.3, 0.2; visits 2, 1, 0; value sums 1.0,
    -0.1 (means 0.5, -0.1) for the player to move at the root; the root's raw value 0.2."""
    tree = Tree(1, 8, 3)
    tree.reset(0, GameSpec.parse("gomoku:3:k3").new_game().array)
    ni, nf = tree.node_int, tree.node_float
    ni[0, 0, FIRST], ni[0, 0, COUNT], ni[0, 0, VISITS] = 1, 3, 4
    nf[0, 0, RAW] = 0.2
    for k, (prior, visits, total) in enumerate([(0.5, 2, 1.0), (0.3, 1, -0.1), (0.2, 0, 0.0)]):
        ni[0, 1 + k, ACTION], ni[0, 1 + k, FIRST] = k, -1
        ni[0, 1 + k, VISITS] = visits
        nf[0, 1 + k, PRIOR], nf[0, 1 + k, VALUE] = prior, total
    tree.size[0] = 4
    return tree


def test_completed_q_uses_the_mixed_value_for_unvisited_moves():
    tree = hand_tree()
    q = np.zeros(3)
    most = completed_q(tree.node_int, tree.node_float, 0, 0, np.zeros(0), q)
    # v_mix = (0.2 + 3 * (0.5 * 0.5 + 0.3 * -0.1) / 0.8) / (1 + 3) = 0.25625
    assert most == 2 and q == pytest.approx([0.5, -0.1, 0.25625], abs=1e-6)
    given = np.array([np.nan, np.nan, 0.9])  # a measured value replaces the mixed one
    completed_q(tree.node_int, tree.node_float, 0, 0, given, q)
    assert q[2] == pytest.approx(0.9)
    # Improved policy: q rescaled to [0, 1] (0.5 -> 1, -0.1 -> 0, 0.25625 -> 0.59375) times
    # (50 + 2) * 0.1, plus log prior, softmaxed.
    logits = np.log([0.5, 0.3, 0.2]) + 5.2 * np.array([1.0, 0.0, 0.59375])
    expected = np.exp(logits) / np.exp(logits).sum()
    assert improved_policy(tree, 0) == pytest.approx(expected, abs=1e-6)


def test_the_non_root_selection_is_the_papers_deterministic_rule():
    tree = hand_tree()
    buf = np.zeros(3)
    pi = improved_policy(tree, 0)  # pi' at this node: about [0.95, 0.003, 0.05]
    score = pi - np.array([2, 1, 0]) / (1 + 3)  # pi'(a) - N(a) / (1 + sum N)
    assert interior_child(tree.node_int, tree.node_float, 0, 0, 50.0, 0.1, buf) == 1 + int(score.argmax())
    assert int(score.argmax()) == 0  # the strong move still leads after 2 of 3 visits
    # A third visit finds the first move worth 0 (sum 0.0 over 3): the mixed value, (0.2 + 4 *
    # (0.5 * 0 + 0.3 * -0.1) / 0.8) / 5 = 0.01, now beats both visited moves, so the
    # unvisited one leads pi' and is next.
    tree.node_int[0, 1, VISITS] = 3
    tree.node_float[0, 1, VALUE] = 0.0
    q = np.zeros(3)
    completed_q(tree.node_int, tree.node_float, 0, 0, np.zeros(0), q)
    assert q == pytest.approx([0.0, -0.1, 0.01], abs=1e-6)
    pi = improved_policy(tree, 0)
    score = pi - np.array([3, 1, 0]) / (1 + 4)
    assert int(score.argmax()) == 2
    assert interior_child(tree.node_int, tree.node_float, 0, 0, 50.0, 0.1, buf) == 3


def test_a_net_player_with_a_gumbel_root_blocks_and_plays_games():
    state = position("gomoku:3:k3", ["a1", "b2", "a2"])
    spec = state.spec
    config = SearchConfig(simulations=8, root="gumbel", tactics="off")
    player = NetPlayer(UniformEvaluator(spec.num_actions), config)
    assert player.think(state).action == state.to_action("a3")
    # In lockstep, through the arena, against the PUCT search at the same budget.
    spec = GameSpec.parse("gomoku:5:k4")
    puct = NetPlayer(UniformEvaluator(spec.num_actions), SearchConfig(simulations=8, tactics="off"), name="puct")
    result = play_match(spec, player, puct, games=4, seed=1, opening_plies=2)
    assert result.games == 4 and result.wins + result.losses + result.draws == 4


def test_a_timed_gumbel_search_goes_past_its_planned_budget():
    # A search bounded by time alone plans its halving for the config's simulations and
    # then keeps the last phase going: the two finalists share the extra visits.
    spec = GameSpec.parse("gomoku:5:k4")
    evaluator = UniformEvaluator(spec.num_actions)
    search, _ = gumbel_search(spec, spec.new_game(), evaluator, simulations=8, considered=4)  # compiled now
    search.reset(0, spec.new_game().array)
    visits = search.search(evaluator, noise=True, simulations=None, seconds=0.3)[0]
    counts = np.sort(visits[visits > 0])
    assert counts.sum() > 24 and len(counts) == 4
    assert counts[:2].tolist() == [1, 1]  # m=4, n=8: the two dropped after one visit each
    assert counts[-1] - counts[-2] <= 1 and visits[search.best_action(0)] == counts[-1]
