"""Hex connection analysis past 11x11: H-search's three-word bitsets on 12x12 and 13x13
(the Olympiad size), where cells 128-168 live in the third word.

Hand-checked positions first (bridge chains whose carriers are worked out cell by cell,
ziggurats at the bottom edge, inside the third word), then random positions whose every
claim is checked by brute force (a VC inside its carrier alone, the opponent moving
first; an SC after its key) or against the negamax solver of hex_solver (which shares no
code with H-search), the DFPN solver and the root solver on 13x13, and the connection
knowledge of the tree search on 13x13."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.hex import apply_hex
from pipeline.games.layout import BOARD, TO_MOVE, WINNER
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.hex_root_solver import HexRootSolver
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.hsearch import FULL, MAX_SIDE, NONE, SEMI, WORDS, empty_bits, must_play
from pipeline.tactics.hex.solve import new_dfpn_table, prove_hex, winning_move
from tests.unit.test_hex_dfpn import (
    LIMITS,
    after_moves_outside,
    cells_in,
    hsearch_finds_connections,
    joins_second,
    run_hsearch,
    with_stone,
)
from tests.unit.test_hex_tactics import cells_of, plain_value, position, random_position

pytestmark = pytest.mark.unit


def chain_carrier(n: int, stones: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The cells of a chain of black stones, each two rows below the last and one column
    to the left ((r, c) -> (r + 2, c - 1): a bridge over (r + 1, c - 1) and (r + 1, c)),
    the first on row 0 or 1, the last on row n - 1 or n - 2 (a stone on row 1 bridges to
    the top over (0, c) and (0, c + 1); one on row n - 2 to the bottom over (n - 1, c - 1)
    and (n - 1, c))."""
    out: set[tuple[int, int]] = set()
    r, c = stones[0]
    if r == 1:
        out |= {(0, c), (0, c + 1)}
    for (r, c), (r2, c2) in itertools.pairwise(stones):
        assert (r2, c2) == (r + 2, c - 1)
        out |= {(r + 1, c - 1), (r + 1, c)}
    r, c = stones[-1]
    if r == n - 2:
        out |= {(n - 1, c - 1), (n - 1, c)}
    return out


def named(spec: GameSpec, cells) -> set[str]:
    return {spec.action_name(int(c)) for c in cells}


# Black's chains: 13x13 g2 f4 e6 d8 c10 b12 (edge bridges at both ends: the bottom one in
# the third word); 12x12 i1 h3 g5 f7 e9 d11 (on the top row, and an edge bridge at the
# bottom over c12 d12, cells 134 and 135).
CHAINS = {
    13: ("g2 f4 e6 d8 c10 b12", "a1 m13", "a13 b11 b13 c9 c11 d7 d9 e5 e7 f3 f5 g1 g3 h1"),
    12: ("i1 h3 g5 f7 e9 d11", "a1 l12", "c12 d10 d12 e8 e10 f6 f8 g4 g6 h2 h4 i2"),
}


@pytest.mark.parametrize("n", [12, 13])
def test_a_bridge_chain_is_a_vc_with_the_carrier_worked_out_by_hand(n):
    spec = GameSpec.parse(f"hex:{n}")
    chain, white, carrier = CHAINS[n]
    stones = [divmod(c, n) for c in cells_of(spec, chain)]
    assert named(spec, (r * n + c for r, c in chain_carrier(n, stones))) == set(carrier.split())
    s = position(n, cells_of(spec, chain), cells_of(spec, white), to_move=1)
    status, _, words, _ = run_hsearch(s, 0)
    assert status == FULL
    assert named(spec, cells_in(n, words)) == set(carrier.split())
    assert any(c >= 128 for c in cells_in(n, words))  # the third word is used
    # White has nothing: not even a semi-connection (black's chain cuts every path).
    assert run_hsearch(s, 1)[0] == NONE
    # The same through must_play: black's VC, the mover (white) has lost.
    assert must_play(s, np.int64(0), *LIMITS[:3], bool(LIMITS[3]))[0] == FULL


@pytest.mark.parametrize("n", [12, 13])
def test_one_gap_in_the_chain_is_a_semi_connection_keyed_in_the_gap(n):
    """Take out the chain's middle stone: black keeps semi-connections, each keyed at the
    gap, and white's must-play region is the gap and cells of the chain's carrier (14
    of 150 empty cells on 13x13), never elsewhere."""
    spec = GameSpec.parse(f"hex:{n}")
    chain, white, carrier = CHAINS[n]
    cells = cells_of(spec, chain)
    gap = cells.pop(len(cells) // 2)
    s = position(n, cells, cells_of(spec, white), to_move=1)
    status, count, _, semis = run_hsearch(s, 0)
    assert status == SEMI and count >= 1
    assert {key for _, key in semis} == {gap}
    region_status, *words = must_play(s, np.int64(0), *LIMITS[:3], bool(LIMITS[3]))
    region = set(cells_in(n, words))
    assert region_status == SEMI and gap in region
    assert region <= set(cells_of(spec, carrier)) | {gap}


# A ziggurat (edge template IIIa) at the bottom edge, for a black stone at (r, c) on the
# third row from it: the cell left of it, three on the row below, four on the last row.
ZIGGURAT_BOTTOM = ((0, -1), (1, 0), (1, -1), (1, -2), (2, 0), (2, -1), (2, -2), (2, -3))


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("n", [12, 13])
def test_a_ziggurat_in_the_far_corner_is_found_and_holds(n, player):
    """A wall of the player's stones from its near edge to the third row (column for
    white) from the far edge, near the far corner, every other cell the opponent's but
    the 8 of the ziggurat: H-search's VC is exactly those 8 cells (on 13x13 for black
    all in the third word, on 12x12 across the second and third), and brute force wins
    inside them moving second. White's case is the transpose."""
    c = n - 3
    wall = [(i, c) for i in range(n - 2)]
    zig = [(n - 3 + dr, c + dc) for dr, dc in ZIGGURAT_BOTTOM]
    if player == 1:
        wall = [(b, a) for a, b in wall]
        zig = [(b, a) for a, b in zig]
    own = [r * n + q for r, q in wall]
    empty = {r * n + q for r, q in zig}
    other = [x for x in range(n * n) if x not in empty and x not in own]
    s = position(n, own if player == 0 else other, other if player == 0 else own, to_move=1 - player)
    assert s[WINNER] < 0
    status, _, words, _ = run_hsearch(s, player)
    assert status == FULL
    carrier = cells_in(n, words)
    assert set(carrier) == empty
    if player == 0:
        assert min(carrier) >= 128 if n == 13 else (min(carrier) < 128 <= max(carrier))
    assert joins_second(s, n, player, carrier)


H13 = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BRUTE_MAX = 11


@H13
@given(data=st.data(), n=st.sampled_from([12, 13]))
def test_hsearch_claims_on_big_boards_are_real_connections(data, n):
    """Dense random positions (at most 45 empty cells): every VC between the edges with a
    carrier of up to 11 cells is won inside it by brute force, the opponent moving first;
    every such SC after its key; and when few cells are empty, every move outside the
    must-play region loses by the negamax solver of hex_solver."""
    s = random_position(data, n, n * n - 45)
    if s is None:
        return
    empty = int((s[BOARD : BOARD + n * n] == 0).sum())
    for player in (0, 1):
        status, _count, words, semis = run_hsearch(s, player)
        if status == FULL:
            carrier = cells_in(n, words)
            assert all(s[BOARD + c] == 0 for c in carrier)
            if len(carrier) <= BRUTE_MAX:
                assert joins_second(s, n, player, carrier)
                event("VC checked")
            continue
        for words, key in semis:
            carrier = cells_in(n, words)
            assert key in carrier and all(s[BOARD + c] == 0 for c in carrier)
            if len(carrier) <= BRUTE_MAX + 1:
                assert joins_second(with_stone(s, n, key, player), n, player, [c for c in carrier if c != key])
                event("SC checked")
        if semis and empty <= 20:
            for t in after_moves_outside(s, n, player, 2):
                assert t[WINNER] < 0 and plain_value(t, hs.USE_ALL) == hs.WIN
                event("must-play checked")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.sampled_from([12, 13]))
def test_hsearch_finds_every_bridge_and_ziggurat_chain_on_big_boards(data, n):
    """hex_connect's winning connections (bridges, edge templates) are found by H-search."""
    s = random_position(data, n, n * n // 3)
    if s is None:
        return
    if hsearch_finds_connections(s, n):
        event("connection")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_dfpn_value_on_thirteen_is_the_negamax_value(data):
    """Endgames of 13x13 (at most 20 empty cells): DFPN with H-search and inferior cells
    gives the value of the negamax solver of hex_solver, and its winning move wins."""
    n = 13
    s = random_position(data, n, n * n - 20)
    if s is None:
        return
    expected = plain_value(s, hs.USE_ALL)
    v, move, _ = hd.dfpn(s, np.int64(10**6), np.int64(hd.DFPN_ALL), LIMITS, hd.centre_order(n), hd.new_tt(14))
    assert v == expected
    if v == hs.WIN and move >= 0:  # the stored move wins
        t = s.copy()
        apply_hex(t, move)
        assert t[WINNER] == s[TO_MOVE] or plain_value(t, hs.USE_ALL) == hs.LOSS


def test_thirteen_by_thirteen_chain_is_proven_and_played():
    """The 13x13 chain: white to move is lost at the first node; with black to move the
    solver's winning move keeps the win, and the root solver of the tree search plays one
    (13x13 was refused before the third word)."""
    spec = GameSpec.parse("hex:13")
    chain, white, _ = CHAINS[13]
    s = position(13, cells_of(spec, chain), cells_of(spec, white), to_move=1)
    order = hd.centre_order(13)
    v, _, nodes = hd.dfpn(s, np.int64(1000), np.int64(hd.DFPN_ALL), LIMITS, order, hd.new_tt(12))
    assert v == hs.LOSS and nodes == 1
    sol = prove_hex(GameState(spec, s.copy()), 1000, tt=new_dfpn_table(12))
    assert sol is not None and sol.winner == 0
    black = GameState(spec, position(13, cells_of(spec, chain), cells_of(spec, white), to_move=0))
    move = winning_move(black, 1000, tt=new_dfpn_table(12))
    assert move is not None
    child = black.copy().apply(move)
    v, _, _ = hd.dfpn(child.array, np.int64(1000), np.int64(hd.DFPN_ALL), LIMITS, order, hd.new_tt(12))
    assert v == hs.LOSS
    played = HexRootSolver(spec, budget=1000, log2_table=12).winning_move(black.array, preferred=-1)
    assert played is not None
    child = black.copy().apply(played)
    v, _, _ = hd.dfpn(child.array, np.int64(1000), np.int64(hd.DFPN_ALL), LIMITS, order, hd.new_tt(12))
    assert v == hs.LOSS


def test_the_tree_proves_the_thirteen_by_thirteen_chain_in_a_few_simulations():
    spec = GameSpec.parse("hex:13")
    chain, white, carrier = CHAINS[13]
    s = position(13, cells_of(spec, chain), cells_of(spec, white), to_move=0)
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=8, hex_tactics="connect"), seed=3)
    search.reset(0, s.copy())
    search.search(UniformEvaluator(spec.num_actions), noise=False)
    action = search.tree.best_action(0)
    assert search.tree.proven_win(0, action)
    assert spec.action_name(action) in set(carrier.split())


def test_sizes_and_words():
    assert MAX_SIDE == 13 and MAX_SIDE * MAX_SIDE <= 64 * WORDS
    s = GameSpec.parse("hex:13").initial_array()
    assert cells_in(13, empty_bits(s)) == list(range(169))
    with pytest.raises(ValueError):  # past the third word: refused, never a wrong bit
        run_hsearch(GameSpec.parse("hex:14").initial_array(), 0)
