"""Deferred refutations (`search.tactics_defer`, `forced.TACTICS_DEFER`): below the root,
the moves that could refute the opponent's VCF stay children unsolved, and the tree
judges each when it expands it. What the tree relies on must not change: every move the
full verdict removes and the deferred one keeps is one whose own verdict (the child, the
opponent to move, the same budget) is a proven win for the opponent, so the tree proves
it lost the moment it visits it; and a search with deferral never plays into a VCF."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.forced import LOSS, OPEN, TACTICS_DEFER, TACTICS_VCF, WIN, tactical_verdict
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.lines.solve import solve_vcf
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.threatened import threatened_positions

pytestmark = pytest.mark.unit

BUDGET = 2000
SPEC = GameSpec.parse("gomoku:9")


def verdict(state, mode: int):
    mask = state.legal_mask()
    pv = np.empty(512, dtype=np.int64)
    v, action = tactical_verdict(state.array, mask, mode, BUDGET, 12, new_table(14), new_table(14), pv)
    return v, action, mask


@pytest.fixture(scope="module")
def positions():
    return list(threatened_positions(SPEC, 40, seed=11, budget=BUDGET))


def test_a_deferred_move_is_one_its_own_child_proves_lost(positions):
    differing = 0
    for state in positions:
        full, _, full_mask = verdict(state, TACTICS_VCF)
        deferred, _, deferred_mask = verdict(state, TACTICS_VCF | TACTICS_DEFER)
        assert deferred == full or (full == LOSS and deferred == OPEN)
        if full == WIN:
            continue
        if full == LOSS:
            full_mask[:] = False
        assert not (full_mask & ~deferred_mask).any()  # nothing the full verdict keeps is dropped
        for a in np.flatnonzero(deferred_mask & ~full_mask):
            child = state.copy().apply(int(a))
            if child.is_terminal:
                continue
            differing += 1
            opponent, _, _ = verdict(child, TACTICS_VCF)
            assert opponent == WIN, SPEC.action_name(int(a))
    assert differing > 0  # the deferral kept some refuted move: the check above ran


@pytest.mark.parametrize("defer", [False, True])
def test_a_deferring_search_never_plays_into_a_vcf(positions, defer):
    blunders = []
    for state in positions:
        config = SearchConfig(
            simulations=200, tactics="vcf", tactics_nodes=BUDGET, tactics_root_nodes=0, tactics_defer=defer
        )
        search = BatchedMCTS(SPEC, 1, config)
        search.reset(0, state.array.copy())
        search.search(UniformEvaluator(SPEC.num_actions), noise=False)
        after = state.copy().apply(search.tree.best_action(0))
        if not after.is_terminal and solve_vcf(after, budget=BUDGET) is not None:
            blunders.append(repr(state))
    assert not blunders, blunders[:3]
