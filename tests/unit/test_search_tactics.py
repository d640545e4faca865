"""Tactics inside the search: threatened by a four or by a VCF that some move refutes, the
search (uniform priors, 200 simulations) never plays a move after which the opponent wins
by VCF, and it takes its own VCF. `scripts/no_blunder.py --count 1000` runs the
same check on 1,000 positions."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.lines.solve import solve_vcf, threat_defences
from pipeline.tactics.lines.threatened import refutable_threat, threatened_positions

pytestmark = pytest.mark.unit

BUDGET = 2000


def choose(state, tactics: str, nodes: int = BUDGET, root_nodes: int = 0) -> int:
    spec = state.spec
    config = SearchConfig(simulations=200, tactics=tactics, tactics_nodes=nodes, tactics_root_nodes=root_nodes)
    search = BatchedMCTS(spec, 1, config)
    search.reset(0, state.array.copy())
    search.search(UniformEvaluator(spec.num_actions), noise=False)
    return search.tree.best_action(0)


def test_the_root_guard_catches_what_a_small_tree_budget_misses():
    """With 4 solver nodes an expansion, the tree misses threats that 2,000 find; the
    root's last look at 2,000 nodes (`tactics_root_nodes`) drops those moves."""
    spec = GameSpec.parse("gomoku:9")
    positions = list(threatened_positions(spec, 40, seed=7, budget=BUDGET))

    def blunders(root_nodes: int) -> int:
        count = 0
        for state in positions:
            after = state.copy().apply(choose(state, "vcf", nodes=4, root_nodes=root_nodes))
            count += not after.is_terminal and solve_vcf(after, budget=BUDGET) is not None
        return count

    assert blunders(0) >= 2
    assert blunders(BUDGET) == 0


@pytest.mark.parametrize("spec", ["gomoku:9", "gomoku:15x15:k5:exact", "gomoku:15x15:k5:renju"])
def test_the_search_never_plays_into_a_vcf(spec):
    spec = GameSpec.parse(spec)
    blunders = []
    positions = list(threatened_positions(spec, 40, seed=7, budget=BUDGET))
    for state in positions:
        after = state.copy().apply(choose(state, "vcf"))
        if not after.is_terminal and solve_vcf(after, budget=BUDGET) is not None:
            blunders.append(state)
    assert not blunders, [repr(s) for s in blunders[:3]]


def test_without_tactics_the_same_positions_are_lost_often():
    """The test above can fail: pure priors at 200 simulations walk into these threats."""
    spec = GameSpec.parse("gomoku:9")
    lost = 0
    for state in threatened_positions(spec, 40, seed=7, budget=BUDGET):
        after = state.copy().apply(choose(state, "off"))
        lost += not after.is_terminal and solve_vcf(after, budget=BUDGET) is not None
    assert lost >= 4


def test_the_search_takes_its_own_vcf():
    spec = GameSpec.parse("gomoku:15")
    state = spec.new_game()
    for name in ["h7", "a1", "h8", "a4", "h9", "a7"]:  # black's open three, black to move
        state.apply(name)
    action = choose(state, "vcf")
    after = state.copy().apply(action)
    proof = solve_vcf(after.copy().apply(int(np.flatnonzero(after.legal_mask())[0])), budget=BUDGET)
    assert spec.action_name(action) in ("h6", "h10", "h5", "h11") and (proof is None or proof.winner == 0)


def test_a_players_thought_says_what_the_solver_proved():
    from pipeline.nets.resnet import NetSpec, PolicyValueNet
    from pipeline.players.search import NetPlayer, player_evaluator

    spec = GameSpec.parse("gomoku:15")
    state = spec.new_game()
    for name in ["h7", "a1", "h8", "a4", "h9", "a7"]:
        state.apply(name)
    net = PolicyValueNet(spec, NetSpec(blocks=1, channels=8))
    thought = NetPlayer(player_evaluator(net), SearchConfig(simulations=16)).think(state)
    assert thought.proof is not None and thought.proof.startswith("VCF in 2 for black")
    quiet = NetPlayer(player_evaluator(net), SearchConfig(simulations=16, tactics="off")).think(state)
    assert quiet.proof is None


def test_a_four_is_a_refutable_threat_by_its_block():
    """Black's four b5-e5 (a5 taken): white must block at f5, and that refutes it. The
    generator once tried the block's index as a mask, so it drew almost no fours."""
    spec = GameSpec.parse("gomoku:9")
    state = spec.new_game()
    for name in ["b5", "a5", "c5", "a1", "d5", "a9", "e5"]:
        state.apply(name)
    assert refutable_threat(state, BUDGET)
    positions = list(threatened_positions(spec, 5, seed=3, budget=BUDGET, four=True))
    for drawn in positions:
        need, cells = threat_defences(drawn)
        assert need == 1 and solve_vcf(drawn.copy().apply(int(cells[0])), budget=BUDGET) is None


def test_the_root_guard_checks_an_unvisited_move_when_every_visited_one_is_lost():
    """Found by `scripts/no_blunder.py` with the shipped net: the tree proved all five
    visited defences lost, and the most visited rule then fell to c13, never visited,
    after which white has a VCF in 3. The guard checks the moves in `best_action`'s order,
    visited or not."""
    from pathlib import Path

    from pipeline.players.factory import make_player

    spec = GameSpec.parse("gomoku:15")
    state = spec.new_game()
    for name in ["h6", "h9", "e9", "k11", "k6", "g6", "e11", "e5", "i10", "g5", "f10", "g10", "f9", "i5", "j5", "g7"]:
        state.apply(name)
    model = Path(__file__).parents[2] / "models" / "pretrained" / "gomoku-15x15.pt"
    player = make_player(str(model), spec, SearchConfig(simulations=200))
    thought = player.think(state)
    after = state.copy().apply(thought.action)
    assert solve_vcf(after, budget=BUDGET) is None
    assert thought.visits[thought.action] > 0  # the training target names the move played
