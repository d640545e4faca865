"""Connect6 defence in the tree (pipeline.search.forced): when the opponent would win by a
VCF if the mover passed the rest of its turn, the children are the cells that can meet it
(the proof tree's cells and its own threats), and the search's two stones leave the opponent no VCF."""

import itertools

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.forced import OPEN, TACTICS_VCF, tactical_verdict
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.lines.solve import solve_vcf
from pipeline.tactics.lines.table import new_table

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("connect6:19")
CHECK = 200_000  # the check's budget, far above the tree's


def cell(r: int, c: int) -> int:
    return r * 19 + c


def two_open_threes():
    """Black to place two stones; white holds two open threes (rows 5 and 12, columns
    5-7): passing, black loses at once (white's turn makes two live fours); black's stones
    are far away in the corners and on an edge."""
    state = SPEC.new_game()
    for r, c in [(0, 0), (5, 5), (5, 6), (0, 18), (18, 0), (5, 7), (12, 5), (18, 18), (9, 18), (12, 6), (12, 7)]:
        state.apply(cell(r, c))
    assert state.current_player == 0 and state.ply == 11
    return state


def verdict_mask(state):
    mask = state.legal_mask().copy()
    verdict, _ = tactical_verdict(
        state.array.copy(), mask, TACTICS_VCF, 2000, 12, new_table(16), new_table(16), np.zeros(512, np.int64)
    )
    return verdict, mask


def test_passing_loses_so_the_children_are_the_cells_that_meet_the_threat():
    state = two_open_threes()
    passed = state.copy()
    assert solve_vcf(passed.apply(cell(15, 15)).apply(cell(16, 16)), budget=CHECK) is not None  # far stones lose
    verdict, mask = verdict_mask(state)
    assert verdict == OPEN
    assert 0 < mask.sum() < state.legal_mask().sum() // 4
    assert not mask[cell(15, 15)] and not mask[cell(2, 14)]
    # Every turn around the threats that leaves white no VCF (found by trying them all)
    # has a stone among the children: the other stone is then the turn's second.
    legal = state.legal_mask()
    region = [cell(r, c) for r in range(2, 16) for c in range(12) if legal[cell(r, c)]]
    safe = []
    for a, b in itertools.combinations(region, 2):
        after = state.copy().apply(a).apply(b)
        if solve_vcf(after, budget=20_000) is None:
            safe.append((a, b))
    assert len(safe) >= 20  # both threes can be met in many ways
    missed = [(divmod(a, 19), divmod(b, 19)) for a, b in safe if not (mask[a] or mask[b])]
    assert not missed


def test_the_search_places_both_stones_so_that_no_vcf_is_left():
    state = two_open_threes()
    config = SearchConfig(simulations=200, tactics="vcf")
    for _ in range(2):
        search = BatchedMCTS(SPEC, 1, config)
        search.reset(0, state.array.copy())
        search.search(UniformEvaluator(SPEC.num_actions), noise=False)
        state.apply(search.tree.best_action(0))
    assert state.current_player == 1
    assert solve_vcf(state, budget=CHECK) is None
