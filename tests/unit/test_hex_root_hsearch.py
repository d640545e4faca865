"""H-search at the search's root (`search.hex_tactics` piece `hsearch`,
`pipeline.search.hex_forced.hsearch_root`): every claim checked against the exhaustive
value, and the search kept inside the opponent's must-play region."""

from __future__ import annotations

from itertools import islice

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from pipeline.games.base import GameSpec
from pipeline.games.hex import apply_hex
from pipeline.games.layout import BOARD, TO_MOVE, WINNER
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.forced import LOSS, OPEN, WIN
from pipeline.search.hex_forced import HEX_ALL, HEX_HSEARCH, HSEARCH_LIMITS, hex_tactics_flags, hsearch_root
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.tree import ACTION
from pipeline.tactics.hex import solver as hs
from tests.unit.test_hex_root_solver import PER_EXPANSION
from tests.unit.test_hex_tactics import SETTINGS, plain_value, random_position

pytestmark = pytest.mark.unit


def mover_wins_after(s: np.ndarray, cell: int) -> bool:
    """Does the player to move at `s` win (with best play) after playing `cell`?"""
    t = s.copy()
    apply_hex(t, cell)
    return t[WINNER] == s[TO_MOVE] or (t[WINNER] < 0 and plain_value(t) == hs.LOSS)


def empty_cells(s: np.ndarray, n: int) -> list[int]:
    return [c for c in range(n * n) if s[BOARD + c] == 0]


def test_hsearch_is_a_piece_of_all():
    assert hex_tactics_flags("hsearch") == HEX_HSEARCH and HEX_ALL & HEX_HSEARCH


def test_nothing_is_claimed_before_the_swap():
    """Empty 4x4 is a first-player win (a semi-connection H-search finds), but with the swap
    the opponent takes the first stone: no claim until the swap has passed."""
    region = np.zeros(16, dtype=np.bool_)
    plain = GameSpec.parse("hex:4").new_game().array
    verdict, key = hsearch_root(plain, region, HSEARCH_LIMITS)
    assert verdict == WIN and mover_wins_after(plain, int(key))
    swap = GameSpec.parse("hex:4:swap")
    assert hsearch_root(swap.new_game().array, region, HSEARCH_LIMITS) == (OPEN, -1)
    assert hsearch_root(swap.new_game().apply(5).array, region, HSEARCH_LIMITS) == (OPEN, -1)


@SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5]))
def test_every_root_claim_is_the_exhaustive_value(data, n):
    s = random_position(data, n, 5 if n == 4 else 9)
    if s is None:
        return
    region = np.zeros(n * n, dtype=np.bool_)
    verdict, key = hsearch_root(s, region, HSEARCH_LIMITS)
    if verdict == WIN:
        event("win")
        assert plain_value(s) == hs.WIN
        if key >= 0:
            assert s[BOARD + key] == 0 and mover_wins_after(s, int(key))
    elif verdict == LOSS:
        event("loss")
        assert plain_value(s) == hs.LOSS
    else:
        assert verdict == OPEN
        outside = [c for c in empty_cells(s, n) if not region[c]]
        event("narrowed" if outside else "open")
        assert any(region[c] for c in empty_cells(s, n))
        # A move outside the must-play region lets one of the opponent's semi-connections
        # through: every one of them loses.
        for cell in outside:
            assert not mover_wins_after(s, cell)


def random_roots(n: int, seed: int, low: int, high: int):
    """Endless random positions of hex:n (low to high alternate random stones, nobody
    connected), each with the root's H-search verdict: (state, verdict, key, region)."""
    rng = np.random.default_rng(seed)
    spec = GameSpec.parse(f"hex:{n}")
    while True:
        s = spec.new_game()
        for _ in range(int(rng.integers(low, high))):
            s = s.apply(int(rng.choice(np.flatnonzero(s.legal_mask()[: spec.cells]))))
            if s.is_terminal:
                break
        if s.is_terminal:
            continue
        region = np.zeros(spec.cells, dtype=np.bool_)
        verdict, key = hsearch_root(s.array, region, HSEARCH_LIMITS)
        yield s.array.copy(), verdict, key, region


def narrowed_positions(n: int, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random positions where H-search narrows the root to a region smaller than the empty
    cells, with that region."""
    roots = random_roots(n, seed, n, n * n // 2)
    narrowed = ((s, r) for s, v, _, r in roots if v == OPEN and r.sum() < len(empty_cells(s, n)))
    return list(islice(narrowed, count))


def searched_move(spec: GameSpec, s: np.ndarray, pieces: str) -> tuple[int, np.ndarray]:
    """The search's move, and the root's children (after the per-expansion pieces)."""
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=24, hex_tactics=pieces), seed=0)
    search.reset(0, s.copy())
    search.search(UniformEvaluator(spec.num_actions), noise=False)
    return search.best_action(0), search.tree.node_int[0, search.tree.root_children(0), ACTION]


@pytest.mark.parametrize("n", [7, 9])
def test_the_search_plays_inside_the_must_play_region(n):
    spec = GameSpec.parse(f"hex:{n}")
    without = PER_EXPANSION
    outside_without = inside = 0
    for s, region in narrowed_positions(n, 16, seed=n):
        move, children = searched_move(spec, s, "all")
        if not region[children].any():
            # The region's cells are all dead or captured: lost whatever is played, and the
            # search keeps its own best try.
            continue
        inside += 1
        assert region[move]
        outside_without += not region[searched_move(spec, s, without)[0]]
    assert inside >= 8
    # The per-expansion pieces alone (bridges and templates, never combined) let some
    # of these through: the root's H-search is what keeps the move inside.
    assert outside_without > 0


def test_a_semi_connection_key_is_played_as_a_proven_win():
    spec = GameSpec.parse("hex:9")
    keyed = (s for s, verdict, key, _ in random_roots(9, 5, 12, 40) if verdict == WIN and key >= 0)
    for s in islice(keyed, 5):
        search = BatchedMCTS(spec, 1, SearchConfig(simulations=16, hex_tactics="hsearch"), seed=0)
        search.reset(0, s.copy())
        search.search(UniformEvaluator(spec.num_actions), noise=False)
        action = search.best_action(0)
        assert search.tree.proven_win(0, action)
