"""H-search and the DFPN Hex solver (pipeline/tactics/hex/hsearch.py, dfpn.py).

Every connection H-search claims is checked by brute force (the claimed carrier alone,
the opponent owning every other empty cell and moving first); the solver's opening tables
against exhaustive search and the published-by-us tables of the negamax solver, under
each pruning setting; proofs are replayed against every defence."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.hex import apply_hex
from pipeline.games.layout import BOARD, PLY, STONES, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.connect import winning_connection
from pipeline.tactics.hex.hsearch import FULL, SEMI, WORDS, cells_of_bits, hsearch, must_play
from pipeline.tactics.hex.solve import dfpn_opening_table, new_dfpn_table, prove_hex, winning_move
from tests.unit.test_hex_tactics import (
    assert_line_replays,
    assert_swap_wins_3x3,
    cells_of,
    centre_cells,
    connected,
    exhaustive_openings,
    plain_value,
    position,
    random_position,
    solved_openings,
)

pytestmark = pytest.mark.unit

LIMITS = hd.default_limits()
SETTINGS_FLAGS = (
    0,
    hd.USE_INFERIOR,
    hd.USE_HSEARCH,
    hs.USE_VC,
    hs.USE_VC | hs.USE_INFERIOR,
    hd.USE_HSEARCH | hd.USE_INFERIOR,
)

# The 5x5 table of RESULTS.md (negamax solver, first part of issue 24); +1: the first
# player wins by opening there.
TABLE_5 = np.array(
    [
        [-1, -1, -1, -1, 1],
        [-1, 1, 1, 1, 1],
        [-1, 1, 1, 1, -1],
        [1, 1, 1, 1, -1],
        [1, -1, -1, -1, -1],
    ]
)


def run_hsearch(s: np.ndarray, player: int, stop_at_semi: bool = False, limits: np.ndarray = LIMITS):
    """(status, count, the VC's carrier words, [(SC carrier words, key)])."""
    k = int(limits[1])
    bits, key = np.empty((k, WORDS), np.uint64), np.empty(k, np.int64)
    status, count, *words = hsearch(
        s, np.int64(player), limits[0], limits[1], limits[2], bool(limits[3]), stop_at_semi, bits, key
    )
    return int(status), int(count), tuple(words), [(tuple(bits[i]), int(key[i])) for i in range(count)]


def cells_in(n: int, words) -> list[int]:
    return cells_of_bits(words, n * n)


def joins_second(s: np.ndarray, n: int, player: int, carrier: list[int]) -> bool:
    """Brute force: does `player` join its edges moving second, playing only inside
    `carrier`, every other empty cell being the opponent's?"""
    board = tuple(int(v) for v in s[BOARD : BOARD + n * n])
    board = tuple(v if v or x in carrier else 2 - player for x, v in enumerate(board))

    @functools.cache
    def opp_to_move(b: tuple[int, ...]) -> bool:
        if connected(b, n, player):
            return True
        empty = [x for x in carrier if b[x] == 0]
        return bool(empty) and all(me_to_move((*b[:x], 2 - player, *b[x + 1 :])) for x in empty)

    @functools.cache
    def me_to_move(b: tuple[int, ...]) -> bool:
        if connected(b, n, player):
            return True
        return any(opp_to_move((*b[:x], player + 1, *b[x + 1 :])) for x in carrier if b[x] == 0)

    return opp_to_move(board)


def with_stone(s: np.ndarray, n: int, cell: int, player: int) -> np.ndarray:
    black = [int(x) for x in np.flatnonzero(s[BOARD : BOARD + n * n] == 1)]
    white = [int(x) for x in np.flatnonzero(s[BOARD : BOARD + n * n] == 2)]
    (black if player == 0 else white).append(cell)
    return position(n, black, white, int(s[TO_MOVE]))


def after_moves_outside(s: np.ndarray, n: int, player: int, count: int) -> list[np.ndarray]:
    """The positions after the opponent's first `count` moves outside `player`'s must-play
    region (H-search's), `player` to move: each should be a win for `player`."""
    _status, *region_words = must_play(s, np.int64(player), *LIMITS[:3], bool(LIMITS[3]))
    region = cells_in(n, region_words)
    outside = [c for c in range(n * n) if s[BOARD + c] == 0 and c not in region]
    positions = []
    for c in outside[:count]:
        t = with_stone(s, n, c, 1 - player)
        t[TO_MOVE] = player
        t[PLY] = t[STONES] + ((t[STONES] + player) % 2)
        positions.append(t)
    return positions


# ---- H-search ------------------------------------------------------------------------------
def test_hsearch_derives_the_bridge_to_the_edge_and_the_ziggurat():
    spec = GameSpec.parse("hex:5")
    # c2 and b4 with edge bridges: a VC between the edges whatever white does first.
    s = position(5, cells_of(spec, "c2 b4"), [], to_move=1)
    status, _, words, _ = run_hsearch(s, 0)
    assert status == FULL
    assert joins_second(s, 5, 0, cells_in(5, words))
    # The centre of 5x5: two ziggurats (16 cells), found by the AND and OR rules alone.
    s = position(5, cells_of(spec, "c3"), [], to_move=1)
    status, _, words, _ = run_hsearch(s, 0)
    assert status == FULL and len(cells_in(5, words)) <= 16
    t = position(5, [], cells_of(spec, "c3"), to_move=0)
    assert run_hsearch(t, 1)[0] == FULL
    # One stone in the corner of 4x4 is no connection; the empty 3x3 board is an SC (the
    # centre's two bridges to the edges), checked by brute force.
    assert run_hsearch(position(4, [0], [], 1), 0)[0] != FULL
    status, _, _, semis = run_hsearch(position(3, [], [], 0), 0)
    assert status == SEMI and semis
    for words, key in semis:
        s = position(3, [key], [], 1)
        assert joins_second(s, 3, 0, [c for c in cells_in(3, words) if c != key])


def test_without_empty_pairs_the_limits_still_find_ziggurats():
    spec = GameSpec.parse("hex:5")
    s = position(5, cells_of(spec, "c3"), [], to_move=1)
    assert run_hsearch(s, 0, limits=hd.default_limits(8, 16, 4, False))[0] == FULL


BRUTE_MAX = 11  # carriers up to this many cells are checked by brute force (fast enough)
H_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@H_SETTINGS
@given(data=st.data(), n=st.sampled_from([3, 4, 5]))
def test_hsearch_claims_are_real_connections(data, n):
    """Every VC claimed between the edges is won by brute force inside its carrier alone,
    the opponent moving first; every SC is won by playing its key, then inside its
    carrier; the must-play region holds every move that does not lose at once."""
    s = random_position(data, n, {3: 1, 4: 3, 5: 8}[n])
    if s is None:
        return
    for player in (0, 1):
        status, _count, words, semis = run_hsearch(s, player)
        if status == FULL:
            if len(cells_in(n, words)) <= BRUTE_MAX:
                assert joins_second(s, n, player, cells_in(n, words))
                event("VC checked")
            continue
        for words, key in semis:
            carrier = cells_in(n, words)
            if len(carrier) > BRUTE_MAX + 1:
                continue
            assert key in carrier and s[BOARD + key] == 0
            assert joins_second(with_stone(s, n, key, player), n, player, [c for c in carrier if c != key])
        if semis:
            event("SC")
            # Outside the must-play region the opponent's move leaves a win to `player`.
            for t in after_moves_outside(s, n, player, 3):
                assert t[WINNER] < 0 and plain_value(t) == hs.WIN


@H_SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5, 6, 9, 11]))
def test_hsearch_finds_every_bridge_and_ziggurat_chain(data, n):
    """hex_connect's winning connections (bridges, edge templates) are found by H-search,
    on boards of one bitset word and of two (9x9, 11x11: cells past 63)."""
    s = random_position(data, n, 2 if n < 9 else n * n // 4)
    if s is None:
        return
    hsearch_finds_connections(s, n)


def hsearch_finds_connections(s: np.ndarray, n: int) -> bool:
    """H-search proves each winning connection (bridges, edge templates) that hex_connect
    finds in `s`; were there any?"""
    carrier = np.zeros(n * n, dtype=np.bool_)
    found = False
    for player in (0, 1):
        if winning_connection(s, player, carrier) == 1:
            assert run_hsearch(s, player)[0] == FULL
            found = True
    return found


# ---- DFPN ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("flags", SETTINGS_FLAGS)
def test_openings_match_exhaustive_search(n, flags):
    expected = exhaustive_openings(n)
    got = dfpn_opening_table(n, 10**7, flags, tt=new_dfpn_table(16)).values
    assert (got == expected).all()


@pytest.mark.parametrize(
    "flags",
    [
        hd.USE_INFERIOR,
        hd.USE_HSEARCH,
        hs.USE_VC | hs.USE_INFERIOR,
        hd.DFPN_ALL,
        hs.USE_VC | hs.USE_INFERIOR | hd.USE_HSEARCH,
    ],
)
def test_five_by_five_openings(flags):
    """Each pruning setting but none at all (3M nodes do not settle b2 then; 4x4 above
    covers the plain search); inferior cells alone take about 15 s."""
    table = dfpn_opening_table(5, 10**6, flags, tt=new_dfpn_table(18))
    assert (table.values == TABLE_5).all()
    assert all(table.values[r, c] == 1 for r, c in centre_cells(5))


def test_five_by_five_symmetric_half_is_the_table():
    table = dfpn_opening_table(5, 10**6, tt=new_dfpn_table(18), symmetric=True)
    assert (table.values == TABLE_5).all()
    assert (table.nodes[3:] == 0).all() and (table.nodes[:2] > 0).all()


def test_six_by_six_centre_wins():
    spec = GameSpec.parse("hex:6")
    for r, c in centre_cells(6):
        sol = prove_hex(spec.new_game().apply(r * 6 + c), 10**6)
        assert sol is not None and sol.winner == 0 and sol.nodes < 20_000


@H_SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5]))
def test_dfpn_value_is_the_exhaustive_value(data, n):
    s = random_position(data, n, 3 if n == 4 else 9)
    if s is None:
        return
    expected = plain_value(s)
    for flags in (0, hd.USE_HSEARCH, hd.DFPN_ALL):
        v, move, _ = hd.dfpn(s, np.int64(10**7), np.int64(flags), LIMITS, hd.centre_order(n), hd.new_tt(14))
        assert v == expected, flags
        if v == hs.WIN and move >= 0:  # the stored move wins
            t = s.copy()
            apply_hex(t, move)
            assert t[WINNER] == s[TO_MOVE] or plain_value(t) == hs.LOSS


def proof_holds(state: GameState, winner: int, tt, memo: dict) -> bool:
    """The winner's solver moves against EVERY defence end in the winner's connection."""
    if state.is_terminal:
        return state.winner == winner
    key = state.array[BOARD : BOARD + state.spec.cells].tobytes()
    if key in memo:
        return memo[key]
    if state.current_player == winner:
        move = winning_move(state, 10**6, tt=tt)
        ok = move is not None and proof_holds(state.copy().apply(move), winner, tt, memo)
    else:
        legal = np.flatnonzero(state.legal_mask())
        ok = all(proof_holds(state.copy().apply(int(a)), winner, tt, memo) for a in legal)
    memo[key] = ok
    return ok


@pytest.mark.parametrize("n", [3, 4])
def test_proofs_replay_against_every_defence(n):
    tt = new_dfpn_table(18)
    for opened, sol in solved_openings(n, lambda state: prove_hex(state, 10**6, tt=tt)):
        assert proof_holds(opened, sol.winner, tt, {})


@pytest.mark.parametrize("n", [5, 6])
def test_principal_lines_end_in_the_winners_connection(n):
    tt = new_dfpn_table(20)
    for opened, sol in solved_openings(n, lambda state: prove_hex(state, 10**6, tt=tt), 5 if n == 5 else 7):
        assert sol.line
        assert_line_replays(opened, sol)


def test_swap_as_the_second_move():
    assert_swap_wins_3x3(lambda state: prove_hex(state, 10**5))


def dfpn_value(s: np.ndarray, budget: int) -> int:
    n = int(s[WIDTH])
    return int(hd.dfpn(s, np.int64(budget), np.int64(hd.DFPN_ALL), LIMITS, hd.centre_order(n), hd.new_tt(16))[0])


def test_the_empty_board_of_a_swap_game_is_lost_for_the_first_player():
    """With the pie rule the first player loses every board (its opening is swapped when it
    wins): no connection of its own proves the empty board won. Without the swap the same
    boards are first-player wins, so the test can fail either way."""
    for n in (2, 3, 4):
        pie, plain = GameSpec.parse(f"hex:{n}:swap"), GameSpec.parse(f"hex:{n}")
        assert dfpn_value(pie.new_game().array, 10**6) == hs.LOSS
        assert dfpn_value(plain.new_game().array, 10**6) == hs.WIN
        assert winning_move(pie.new_game(), 10**6) is None
    # 5x5: the knowledge once claimed the centre wins in one node; never a win now.
    five = GameSpec.parse("hex:5:swap").new_game()
    assert dfpn_value(five.array, 20_000) != hs.WIN
    assert hs.analyse(five.array, hs.USE_VC, np.zeros(26, dtype=np.bool_))[0] == hs.UNKNOWN


def test_budget_and_table_reuse():
    spec = GameSpec.parse("hex:6")
    opened = spec.new_game().apply(spec.parse_action("a3"))
    assert prove_hex(opened, 5) is None  # five nodes settle nothing here
    tt = new_dfpn_table(18)
    first = prove_hex(opened, 10**6, tt=tt)
    again = prove_hex(opened, 10**6, tt=tt)
    assert first is not None and again is not None and again.winner == first.winner
    assert again.nodes < first.nodes  # the proven root is in the table


def test_rejects_other_games_and_boards_past_three_words():
    with pytest.raises(ValueError):
        prove_hex(GameState(GameSpec.parse("gomoku:9")), 10)
    with pytest.raises(ValueError):
        prove_hex(GameSpec.parse("hex:14").new_game(), 10)


def test_eleven_by_eleven_chain_is_proven():
    """A bridge chain down 11x11 (cells in both bitset words): a VC, so white to move is
    lost at once; with black to move, a winning move keeps it."""
    spec = GameSpec.parse("hex:11")
    chain = cells_of(spec, "f2 e4 d6 c8 b10")
    s = position(11, chain, cells_of(spec, "a1 k11"), to_move=1)
    status, _, words, _ = run_hsearch(s, 0)
    assert status == FULL and any(c >= 64 for c in cells_in(11, words))
    order = hd.centre_order(11)
    v, _, nodes = hd.dfpn(s, np.int64(1000), np.int64(hd.DFPN_ALL), LIMITS, order, hd.new_tt(12))
    assert v == hs.LOSS and nodes == 1
    black = GameState(spec, position(11, chain, cells_of(spec, "a1 k11"), to_move=0))
    move = winning_move(black, 1000, tt=new_dfpn_table(12))
    assert move is not None
    child = black.copy().apply(move)
    v, _, _ = hd.dfpn(child.array, np.int64(1000), np.int64(hd.DFPN_ALL), LIMITS, order, hd.new_tt(12))
    assert v == hs.LOSS


# ---- the evaluation cache --------------------------------------------------------------------


def solves_with(evaluations, positions: list[np.ndarray], budget: int) -> list[tuple[int, int, int]]:
    """(value, move, nodes) of each position's solve, one table for them all (as a player's)."""
    tt = hd.new_tt(14, evaluations)
    out = []
    for s in positions:
        v, move, nodes = hd.dfpn(s, np.int64(budget), np.int64(hd.DFPN_ALL), LIMITS, hd.centre_order(int(s[WIDTH])), tt)
        out.append((int(v), int(move), int(nodes)))
    return out


def test_the_evaluation_cache_changes_no_value_move_or_node_count():
    """The same solves with a cache of one entry (nearly every probe a miss) and with a
    large one warmed by the same solves before (nearly every probe a hit): the same value,
    move and node count for each, within budgets too small to settle some."""
    rng = np.random.default_rng(3)
    positions = []
    for n in (5, 6, 7):
        spec = GameSpec.parse(f"hex:{n}")
        while len(positions) < 8 * (n - 4):
            state = spec.new_game()
            for _ in range(int(rng.integers(1, 6))):
                state.apply(int(rng.choice([a for a in state.legal_actions() if a < spec.cells])))
            if not state.is_terminal:
                positions.append(state.array.copy())
    warm = hd.new_evaluations(16)
    for budget in (40, 400):
        cold = solves_with(hd.new_evaluations(0), positions, budget)
        solves_with(warm, positions, budget)
        assert solves_with(warm, positions, budget) == cold
        assert {v for v, _, _ in cold} >= ({hs.WIN, hs.LOSS} if budget == 400 else {hs.UNKNOWN})


def cached(s: np.ndarray, evaluations, flags: int = hd.DFPN_ALL, limits: np.ndarray = LIMITS):
    salt = hd.evaluation_salt(np.int64(flags), limits)
    tt = hd.new_tt(2, evaluations)
    return hd.cached_evaluate(s, hs.position_key(s), salt, np.int64(flags), limits, tt)


def test_a_cached_evaluation_is_the_evaluation_and_a_torn_entry_a_miss():
    spec = GameSpec.parse("hex:6")
    s = spec.replay(["a1"]).array  # white to move against a corner stone: not decided
    evaluations = hd.new_evaluations(4)
    direct = hd.evaluate(s, np.int64(hd.DFPN_ALL), LIMITS)
    assert direct[0] == hs.UNKNOWN and any(direct[2:5])
    assert cached(s, evaluations) == direct
    assert np.count_nonzero(evaluations[2]) == 1
    assert cached(s, evaluations) == direct  # from the entry
    slot = int(np.flatnonzero(evaluations[2])[0])
    evaluations[1][slot, 0] ^= np.uint64(1 << 20)  # a candidate changed, as by another thread's write
    assert cached(s, evaluations) == direct  # the check word no longer matches: evaluated again


def test_the_cache_tells_settings_and_the_swap_games_empty_board_apart():
    """One cache: the empty board of a swap game (no knowledge: every cell a candidate)
    after the plain empty board (won at once on 2x2 by the knowledge), and other flags
    after DFPN_ALL (black's bridge chain to both edges, a loss for white to move by
    H-search, is not decided without it)."""
    evaluations = hd.new_evaluations(6)
    plain, pie = GameSpec.parse("hex:2").new_game().array, GameSpec.parse("hex:2:swap").new_game().array
    assert hs.position_key(plain) == hs.position_key(pie)
    assert cached(plain, evaluations)[0] == hs.WIN
    assert cached(pie, evaluations) == hd.evaluate(pie, np.int64(hd.DFPN_ALL), LIMITS)
    assert cached(pie, evaluations)[0] == hs.UNKNOWN
    bridge = GameSpec.parse("hex:4").replay(["b2", "a1", "c3"]).array
    assert cached(bridge, evaluations)[0] == hs.LOSS
    assert cached(bridge, evaluations, flags=0) == hd.evaluate(bridge, np.int64(0), LIMITS)
    assert cached(bridge, evaluations, flags=0)[0] == hs.UNKNOWN
    other = hd.default_limits(max_vc=2, max_sc=2)
    assert hd.evaluation_salt(np.int64(hd.DFPN_ALL), other) != hd.evaluation_salt(np.int64(hd.DFPN_ALL), LIMITS)
