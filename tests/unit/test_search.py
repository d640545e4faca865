"""Search against known tactics, and the mechanics that make it correct."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState
from pipeline.players.search import NetPlayer, PurePlayer
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.search.pure import PureMCTS
from pipeline.search.tree import ACTION, FIRST, PENDING, TERM_VALUE, TERMINAL, VISITS

pytestmark = pytest.mark.unit


def position(text: str, moves: list[str]) -> GameState:
    state = GameSpec.parse(text).new_game()
    for m in moves:
        state.apply(m)
    return state


# (game, moves, the only good answers)
WIN_IN_ONE = [
    ("gomoku:9", ["e5", "a1", "f5", "a2", "g5", "a3", "h5", "b9"], {"d5", "i5"}),
    # Exact five: f5 would make six (b5-g5), which does not win; a5 makes exactly five.
    ("gomoku:9:exact", ["b5", "a1", "c5", "a2", "d5", "a3", "e5", "a9", "g5", "i9"], {"a5"}),
    ("hex:5", ["c1", "a1", "c2", "a2", "c3", "a3", "c4", "b5"], {"c5"}),
    # Connect6: black has five in a row (e5-i5) and its two stones to place; white wasted
    # its turn on a8, a9.
    ("connect6:10", ["e5", "a1", "a2", "f5", "g5", "a4", "a5", "h5", "i5", "a8", "a9"], {"d5", "j5"}),
]
BLOCK = [
    # White must stop d5-h5: the four is closed at c5 by white... i5 is the only answer.
    ("gomoku:9", ["e5", "d5", "f5", "a2", "g5", "a3", "h5"], {"i5"}),
    # c4 touches b5 and c5 on the bottom edge; white holds b5, so c5 is the only block.
    ("hex:5", ["c1", "b5", "c2", "a2", "c3", "a3", "c4"], {"c5"}),
]


def pure_choice(state: GameState, seed: int) -> str:
    return state.spec.action_name(PureMCTS(2000, seed=seed).choose(state))


def puct_choices(state: GameState, simulations: int = 2000) -> list[str]:
    search = BatchedMCTS(state.spec, 3, SearchConfig(simulations=simulations, leaves_per_step=4), seed=5)
    for g in range(3):
        search.reset(g, state.array)
    visits = search.search(UniformEvaluator(state.spec.num_actions))
    return [state.spec.action_name(int(np.argmax(v))) for v in visits]


@pytest.mark.parametrize(("game", "moves", "good"), WIN_IN_ONE + BLOCK)
def test_pure_mcts_finds_the_tactic(game, moves, good):
    state = position(game, moves)
    for seed in range(3):
        assert pure_choice(state, seed) in good


@pytest.mark.parametrize(("game", "moves", "good"), WIN_IN_ONE + BLOCK)
def test_uniform_puct_finds_the_tactic(game, moves, good):
    assert set(puct_choices(position(game, moves))) <= good


def test_connect6_turn_is_two_plies_without_sign_flip():
    # Black (two stones to place) has four in a row with both ends open: any stone that
    # extends it leads to a certain six with the second stone. Values of the first and
    # second stone are the same player's, so backup must not flip between them.
    state = position("connect6:12", ["f6", "a1", "a2", "g6", "h6", "a12", "l12", "i6", "l1", "b12", "c12"])
    assert state.current_player == 0 and state.ply % 2 == 1
    good = {"d6", "e6", "j6", "k6"}
    assert set(puct_choices(state, simulations=600)) <= good
    assert pure_choice(state, 0) in good


def test_pure_mcts_is_seeded():
    state = position("gomoku:7:k4", ["d4"])
    a = PureMCTS(500, seed=3).search(state)
    b = PureMCTS(500, seed=3).search(state)
    c = PureMCTS(500, seed=4).search(state)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.sum() == 500


def test_puct_spends_exactly_its_simulations_and_is_seeded():
    spec = GameSpec.parse("gomoku:7:k4")
    runs = []
    for _ in range(2):
        search = BatchedMCTS(spec, 2, SearchConfig(simulations=100, leaves_per_step=8), seed=11)
        for g in range(2):
            search.reset(g, spec.new_game().array)
        runs.append(search.search(UniformEvaluator(spec.num_actions), noise=True))
    assert np.array_equal(runs[0], runs[1])
    # The root's own visit counts the root evaluation; its children hold the rest.
    assert (runs[0].sum(axis=1) >= 99).all() and (runs[0].sum(axis=1) <= 100 + 8).all()


def test_virtual_loss_spreads_a_step_over_distinct_leaves():
    spec = GameSpec.parse("gomoku:9")
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=300, leaves_per_step=8), seed=0)
    search.reset(0, spec.new_game().array)
    search.search(UniformEvaluator(spec.num_actions))
    assert search.evaluations / search.steps > 6  # most steps fill their 8 leaves
    assert (search.tree.node_int[0, : search.tree.size[0], PENDING] == 0).all()


def test_tree_reuse_keeps_the_subtree():
    spec = GameSpec.parse("gomoku:7:k4")
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=400, leaves_per_step=4), seed=2)
    state = spec.new_game()
    search.reset(0, state.array)
    visits = search.search(UniformEvaluator(spec.num_actions))[0]
    action = int(np.argmax(visits))
    kept = int(visits[action])
    state.apply(action)
    search.advance(0, action, state.array)
    assert search.tree.node_int[0, 0, VISITS] == kept
    assert search.tree.node_int[0, 0, FIRST] >= 0
    visits = search.search(UniformEvaluator(spec.num_actions))
    assert visits.sum() >= kept + 399 - 1
    legal = state.legal_mask()
    assert (visits[0][~legal] == 0).all()


def test_visits_of_a_root_move_proven_lost_are_never_returned():
    """With tactics off the in-tree solver proves moves lost that the search visited first
    (in this search or, through tree reuse, an earlier one): sampling, the most visited
    move and the training target must not see them."""
    spec = GameSpec.parse("gomoku:5:k4")
    search = BatchedMCTS(spec, 4, SearchConfig(simulations=64, leaves_per_step=4, tactics="off"), seed=3)
    rng = np.random.default_rng(0)
    states = [spec.new_game() for _ in range(4)]
    for g, state in enumerate(states):
        search.reset(g, state.array)
    evaluator = UniformEvaluator(spec.num_actions)
    visited_losses = 0
    for _ in range(12):
        active = np.array([not s.is_terminal for s in states])
        if not active.any():
            break
        visits = search.search(evaluator, active=active)
        for g in np.flatnonzero(active):
            kids = search.tree.root_children(int(g))
            actions = search.tree.node_int[g, kids, ACTION]
            lost = (search.tree.node_int[g, kids, TERMINAL] != 0) & (search.tree.node_float[g, kids, TERM_VALUE] < 0)
            visited_losses += int((search.tree.node_int[g, kids, VISITS][lost] > 0).sum())
            if lost.any() and not lost.all():
                assert (visits[g][actions[lost]] == 0).all()
            action = pick_action(visits[g], 1.0, rng)
            states[g].apply(action)
            if not states[g].is_terminal:
                search.advance(int(g), action, states[g].array)
    assert visited_losses > 0  # the case arose


def test_pure_tree_reuse_follows_both_sides():
    state = position("gomoku:7:k4", [])
    player = PureMCTS(400, seed=1, reuse=True)
    action = player.choose(state)
    state.apply(action)
    reply = int(state.legal_actions()[0])
    state.apply(reply)
    player.observe(state, reply)
    visits = player.search(state)
    assert visits.sum() >= 400
    assert player.choose(state) in state.legal_actions()


def test_threat_guidance_restricts_root_to_the_block():
    state = position("gomoku:9", ["e5", "d5", "f5", "a2", "g5", "a3", "h5"])
    config = SearchConfig(simulations=20, leaves_per_step=2, threat_guidance=True, prove_wins=False)
    search = BatchedMCTS(state.spec, 1, config, seed=0)
    search.reset(0, state.array)
    visits = search.search(UniformEvaluator(state.spec.num_actions))
    assert np.flatnonzero(visits[0]).tolist() == [state.spec.parse_action("i5")]


def test_root_noise_changes_priors_but_keeps_a_distribution():
    spec = GameSpec.parse("gomoku:9")
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=2), seed=0)
    search.reset(0, spec.new_game().array)
    search.search(UniformEvaluator(spec.num_actions), noise=True)
    kids = search.tree.root_children(0)
    priors = search.tree.node_float[0, kids, 0]
    assert priors.sum() == pytest.approx(1.0, abs=1e-4)
    assert priors.std() > 1e-3
    assert sorted(search.tree.node_int[0, kids, ACTION].tolist()) == list(range(81))


def test_pick_action_temperature():
    rng = np.random.default_rng(0)
    visits = np.array([0, 10, 30, 0], dtype=np.float32)
    assert pick_action(visits, 0.0, rng) == 2
    draws = [pick_action(visits, 1.0, rng) for _ in range(2000)]
    assert set(draws) == {1, 2}
    assert 0.2 < draws.count(1) / 2000 < 0.3


# ---- search invariants: a budget is spent in full, the tree never fills up silently ----


def visited_leaves(tree, g: int) -> int:
    """Visited, unfinished nodes without children: with every leaf expanded on its
    evaluation, PUCT leaves none (the ones in flight are not counted: none are)."""
    nodes = tree.node_int[g, : tree.size[g]]
    return int(((nodes[:, VISITS] > 0) & (nodes[:, FIRST] < 0) & (nodes[:, TERMINAL] == 0)).sum())


class ConfidentEvaluator:
    """A made-up net that is sure of itself: nearly all prior mass on the first free cell
    of a fixed order, so search piles its visits onto one line."""

    def __init__(self, num_actions: int, seed: int = 0):
        # Each cell is 5 logits below the one before it in a fixed random order.
        self.logits = -5.0 * np.random.default_rng(seed).permutation(num_actions).astype(np.float32)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = np.exp(self.logits - self.logits.max())
        n = obs.shape[0]
        return np.tile(p / p.sum(), (n, 1)), np.zeros(n, dtype=np.float32)


@pytest.mark.parametrize("game", ["gomoku:9", "hex:7", "connect6:10"])
def test_puct_bot_spends_its_whole_budget_and_expands_every_leaf(game):
    spec = GameSpec.parse(game)
    expanded = []
    for budget in (50, 200, 800):
        bot = NetPlayer(UniformEvaluator(spec.num_actions), SearchConfig(simulations=budget), "uniform")
        thought = bot.think(spec.new_game())
        tree = bot.search.tree
        assert thought.simulations == budget
        assert tree.node_int[0, 0, VISITS] == budget
        assert thought.visits.sum() == budget - 1  # the root's own evaluation is the first
        assert visited_leaves(tree, 0) == 0
        assert tree.expanded(0) == bot.search.evaluations
        expanded.append(tree.expanded(0))
    assert expanded[0] < expanded[1] < expanded[2]
    assert expanded[2] > 0.9 * 800


@pytest.mark.parametrize("game", ["gomoku:9", "hex:7"])
def test_pure_bot_spends_its_whole_budget_and_the_tree_grows_with_it(game):
    spec = GameSpec.parse(game)
    expanded = []
    for budget in (100, 1000, 20000):
        bot = PurePlayer(budget)
        thought = bot.think(spec.new_game())
        tree = bot.searchers[0].tree
        assert thought.simulations == budget
        assert tree.node_int[0, 0, VISITS] == budget
        expanded.append(tree.expanded(0))
    assert expanded[0] < expanded[1] < expanded[2]


def test_a_full_tree_grows_instead_of_stopping():
    spec = GameSpec.parse("gomoku:9")
    # Room for two expansions only: the search must grow the tree again and again.
    search = BatchedMCTS(spec, 2, SearchConfig(simulations=400), seed=0, capacity=2 * spec.num_actions + 1)
    for g in range(2):
        search.reset(g, spec.new_game().array)
    search.search(UniformEvaluator(spec.num_actions))
    assert search.grown > 0
    for g in range(2):
        assert search.tree.node_int[g, 0, VISITS] == 400
        assert visited_leaves(search.tree, g) == 0
    assert search.tree.expanded(0) + search.tree.expanded(1) == search.evaluations

    pure = PureMCTS(3000, seed=0, capacity=spec.num_actions + 1)
    pure.search(spec.new_game())
    assert pure.grown > 0 and pure.last_playouts == 3000
    fresh = PureMCTS(3000, seed=0)
    assert np.array_equal(fresh.search(spec.new_game()), pure.tree.root_visits(0))  # growing changes nothing


def test_a_time_limited_search_grows_one_tree_until_the_time_is_spent():
    spec = GameSpec.parse("gomoku:9")
    bot = NetPlayer(UniformEvaluator(spec.num_actions), SearchConfig(simulations=64), "uniform")
    thought = bot.think(spec.new_game(), budget=10**9, seconds=0.5)
    tree = bot.search.tree
    assert 0.5 <= thought.seconds < 5
    assert thought.simulations > 64  # more than one budget's worth, in one tree
    assert tree.node_int[0, 0, VISITS] == thought.simulations
    assert visited_leaves(tree, 0) == 0 and tree.expanded(0) == bot.search.evaluations

    pure = PurePlayer(10**9)
    thought = pure.think(spec.new_game(), seconds=0.3)
    assert 0.3 <= thought.seconds < 5 and thought.simulations > 1000
    assert pure.searchers[0].tree.node_int[0, 0, VISITS] == thought.simulations


def test_tree_reuse_over_a_whole_game_with_a_confident_evaluator_never_runs_out_of_room():
    spec = GameSpec.parse("gomoku:9")
    budget = 200
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=budget, leaves_per_step=8), seed=0)
    evaluator = ConfidentEvaluator(spec.num_actions)
    state = spec.new_game()
    search.reset(0, state.array)
    kept_most = used_most = 0
    while not state.is_terminal:
        kept = int(search.tree.node_int[0, 0, VISITS])
        visits = search.search(evaluator)[0]
        assert search.tree.node_int[0, 0, VISITS] == kept + budget or search.tree.node_int[0, 0, TERMINAL] != 0
        assert visited_leaves(search.tree, 0) == 0
        kept_most = max(kept_most, kept)
        used_most = max(used_most, int(search.tree.size[0]))
        action = int(np.argmax(visits))
        state.apply(action)
        if not state.is_terminal:
            search.advance(0, action, state.array)
    # The confident line carried many searches' worth of visits from move to move: far
    # more than the fixed room of two searches the tree once had.
    assert kept_most > 4 * budget
    assert used_most > 2 * (budget + 2) * spec.num_actions


def test_the_brain_bot_reuses_its_tree_across_both_sides_moves():
    spec = GameSpec.parse("gomoku:7:k4")
    bot = NetPlayer(UniformEvaluator(spec.num_actions), SearchConfig(simulations=300), "uniform")
    state = spec.new_game()
    first = bot.think(state)
    state.apply(first.action)
    bot.observe(0, state, first.action)
    reply = int(np.argmax(first.visits * (state.legal_mask()[: len(first.visits)])))
    kept = int(bot.search.tree.root_visits(0)[reply])
    state.apply(reply)
    bot.observe(0, state, reply)
    second = bot.think(state)
    assert kept > 0
    assert bot.search.tree.node_int[0, 0, VISITS] == kept + 300
    assert second.simulations == 300
