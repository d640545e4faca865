"""Hex connection knowledge and the compiled solver (pipeline/tactics/hex/).

Soundness first: every claim of the knowledge (a dead cell, a captured pair, a winning
virtual connection) is checked against exhaustive search, and the solver's values
against a plain exhaustive negamax written here with nothing shared but the rules."""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.hex import apply_hex, link_stone
from pipeline.games.layout import BOARD, PLY, STONES, TO_MOVE, WINNER
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.connect import ZIG_C, ZIG_R, bridge_intrusions, collect_links, winning_connection
from pipeline.tactics.hex.patterns import captured_pairs, dead_mask, inferior_mask, is_dead
from pipeline.tactics.hex.solve import hex_opening_table, new_table, solve_hex

pytestmark = pytest.mark.unit

NB = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


# ---- an independent exhaustive solver over plain tuples -----------------------------
def connected(board: tuple[int, ...], n: int, player: int) -> bool:
    """Does `player` join its edges (0: top-bottom, 1: left-right)?"""
    value = player + 1
    stack = [i * n if player else i for i in range(n) if board[i * n if player else i] == value]
    seen = set(stack)
    while stack:
        cell = stack.pop()
        r, c = divmod(cell, n)
        if (c if player else r) == n - 1:
            return True
        for dr, dc in NB:
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n:
                x = rr * n + cc
                if board[x] == value and x not in seen:
                    seen.add(x)
                    stack.append(x)
    return False


def exhaustive(board: tuple[int, ...], n: int, to_move: int, memo: dict) -> int:
    """+1 if the player to move wins with best play, else -1 (Hex has no draws). Plain
    minimax; the memo is keyed up to the 180-degree rotation, central cells go first."""
    key = (min(board, board[::-1]), to_move)
    if key not in memo:
        empty = sorted((c for c in range(n * n) if board[c] == 0), key=lambda c: _centrality(c, n))
        children = [(*board[:c], to_move + 1, *board[c + 1 :]) for c in empty]
        value = 1 if any(connected(child, n, to_move) for child in children) else -1
        if value < 0:
            value = 1 if any(exhaustive(child, n, 1 - to_move, memo) == -1 for child in children) else -1
        memo[key] = value
    return memo[key]


def _centrality(cell: int, n: int) -> float:
    r, c = divmod(cell, n)
    dr, dc = r - (n - 1) / 2, c - (n - 1) / 2
    return max(abs(dr), abs(dc), abs(dr + dc))


def exhaustive_openings(n: int) -> np.ndarray:
    memo: dict = {}
    out = np.zeros((n, n), dtype=np.int8)
    for cell in range(n * n):
        board = tuple(1 if x == cell else 0 for x in range(n * n))
        out.flat[cell] = -exhaustive(board, n, 1, memo)
    return out


# ---- positions built by hand ---------------------------------------------------------
def position(n: int, black: list[int], white: list[int], to_move: int) -> np.ndarray:
    """A Hex state with these stones (not necessarily reachable by alternate play)."""
    s = GameSpec.parse(f"hex:{n}").initial_array()
    for player, cells in ((0, black), (1, white)):
        for cell in cells:
            s[BOARD + cell] = player + 1
            if link_stone(s, cell, player):
                s[WINNER] = player
    stones = len(black) + len(white)
    s[STONES] = stones
    s[PLY] = stones + ((stones + to_move) % 2)  # apply_hex derives the side to move from PLY
    s[TO_MOVE] = to_move
    return s


def reduced(s: np.ndarray, keep: np.ndarray, colour: int) -> np.ndarray:
    """`s` with every empty cell outside `keep` given to `colour`: if the other player
    still wins, it wins in `s` too (an extra stone never helps its opponent)."""
    n = int(s[2])
    black = [int(x) for x in np.flatnonzero(s[BOARD : BOARD + n * n] == 1)]
    white = [int(x) for x in np.flatnonzero(s[BOARD : BOARD + n * n] == 2)]
    fill = [x for x in range(n * n) if s[BOARD + x] == 0 and not keep[x]]
    (black if colour == 0 else white).extend(fill)
    return position(n, black, white, int(s[TO_MOVE]))


def cells_of(spec: GameSpec, names: str) -> list[int]:
    return [spec.parse_action(x) for x in names.split()]


def plain_value(s: np.ndarray, flags: int = 0) -> int:
    """Exhaustive compiled search (flags 0: no connection knowledge, no pruning)."""
    v, _, _ = hs.solve(s, np.int64(10**8), np.int64(flags), *_TABLES[flags])
    assert v != hs.UNKNOWN
    return int(v)


_TABLES = {f: new_table(18) for f in (0, hs.USE_VC, hs.USE_INFERIOR, hs.USE_ALL)}


def centre_cells(n: int) -> list[tuple[int, int]]:
    """The centre; on even boards the two middle cells of the short diagonal."""
    return [(n // 2, n // 2)] if n % 2 else [(n // 2 - 1, n // 2), (n // 2, n // 2 - 1)]


# ---- opening tables --------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
def test_openings_match_exhaustive_search(n):
    expected = exhaustive_openings(n)
    for flags in (0, hs.USE_VC, hs.USE_INFERIOR, hs.USE_ALL):
        assert (hex_opening_table(n, 10**7, flags) == expected).all(), flags
    assert all(expected[r, c] == 1 for r, c in centre_cells(n))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_opening_table_is_symmetric_and_the_centre_wins(n):
    start = time.perf_counter()
    table = hex_opening_table(n, 10**7)
    print(f"hex {n}x{n}: {time.perf_counter() - start:.2f}s\n{table}")
    assert (table != 0).all()
    assert (table == table[::-1, ::-1]).all()  # 180-degree rotation
    assert all(table[r, c] == 1 for r, c in centre_cells(n))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_proofs_replay_to_the_claimed_winner(n):
    table = new_table(20)
    for opened, sol in solved_openings(n, lambda state: solve_hex(state, 10**7, table=table)):
        assert_line_replays(opened, sol)


def solved_openings(n: int, solve, step: int = 1):
    """(opened, solution) for every `step`-th first stone on hex:n, `solve` (a state to its
    solution) having found one."""
    spec = GameSpec.parse(f"hex:{n}")
    for cell in range(0, n * n, step):
        opened = spec.new_game().apply(cell)
        sol = solve(opened)
        assert sol is not None
        yield opened, sol


def assert_line_replays(opened: GameState, sol) -> None:
    """A solution's principal line, played out from `opened`, ends in its winner's
    connection, and its move is the line's first exactly when the player to move wins."""
    replay = opened.copy()
    for move in sol.line:
        replay.apply(move)
    assert replay.winner == sol.winner
    if sol.winner == opened.current_player:
        assert sol.move == sol.line[0]
    else:
        assert sol.move is None


def assert_swap_wins_3x3(solve) -> None:
    """With the pie rule the second player wins 3x3: every opening is swapped or answered
    (`solve`: a state to its solution), and the line shows how."""
    spec = GameSpec.parse("hex:3:swap")
    for cell in range(9):
        sol = solve(spec.new_game().apply(cell))
        assert sol is not None and sol.winner == 1
        replay = spec.new_game().apply(cell)
        for move in sol.line:
            replay.apply(move)
        assert replay.winner == 1


def test_solver_handles_swap_as_the_second_move():
    assert_swap_wins_3x3(lambda state: solve_hex(state, 10**6))


# ---- virtual connections ---------------------------------------------------------------
def test_bridges_and_edge_bridges_make_a_winning_connection():
    spec = GameSpec.parse("hex:5")
    s = position(5, cells_of(spec, "c2 b4"), [], to_move=1)
    carrier = np.zeros(25, dtype=np.bool_)
    assert winning_connection(s, 0, carrier) == 1
    assert set(np.flatnonzero(carrier)) == set(cells_of(spec, "c1 d1 b3 c3 a5 b5"))
    # White to move cannot stop it even owning every cell outside the carrier.
    assert plain_value(reduced(s, carrier, 1)) == hs.LOSS
    # Take one edge-bridge cell and the claim goes (black has not answered).
    s2 = position(5, cells_of(spec, "c2 b4"), cells_of(spec, "c1 d1"), to_move=1)
    assert winning_connection(s2, 0, carrier) == 0


def test_centre_of_5x5_is_two_ziggurats():
    spec = GameSpec.parse("hex:5")
    s = position(5, cells_of(spec, "c3"), [], to_move=1)
    carrier = np.zeros(25, dtype=np.bool_)
    assert winning_connection(s, 0, carrier) == 1
    assert carrier.sum() == 16
    assert plain_value(reduced(s, carrier, 1)) == hs.LOSS
    t = position(5, [], cells_of(spec, "c3"), to_move=0)  # the same for white, transposed
    assert winning_connection(t, 1, carrier) == 1 and carrier.sum() == 16


def _second_player_joins(board: list[int], n: int, carrier: list[int], start: int, player: int, edge: int) -> bool:
    """Does `player` join stone `start` to its edge (0 top/left, 1 bottom/right) playing
    second inside `carrier`, every other cell being the opponent's?"""

    def joined(b: tuple[int, ...]) -> bool:
        value = player + 1
        seen, stack = {start}, [start]
        while stack:
            x = stack.pop()
            r, c = divmod(x, n)
            pos = c if player else r
            if pos == (0 if edge == 0 else n - 1):
                return True
            for dr, dc in NB:
                rr, cc = r + dr, c + dc
                y = rr * n + cc
                if 0 <= rr < n and 0 <= cc < n and b[y] == value and y not in seen:
                    seen.add(y)
                    stack.append(y)
        return False

    @functools.cache
    def opp_to_move(b: tuple[int, ...]) -> bool:
        empty = [x for x in carrier if b[x] == 0]
        if not empty:
            return joined(b)
        return all(me_to_move((*b[:x], 2 - player, *b[x + 1 :])) for x in empty)

    @functools.cache
    def me_to_move(b: tuple[int, ...]) -> bool:
        if joined(b):
            return True
        return any(opp_to_move((*b[:x], player + 1, *b[x + 1 :])) for x in carrier if b[x] == 0)

    return opp_to_move(tuple(board))


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("edge", [0, 1])
@pytest.mark.parametrize("mirror", [0, 1])
def test_ziggurat_carriers_are_sound_and_minimal(player, edge, mirror):
    """Every orientation of template IIIa connects against any defence, and loses that
    property when any one carrier cell is taken away; collect_links finds it."""
    n = 7
    r, c = (2 if edge == 0 else n - 3), 3
    if player == 1:
        r, c = c, r
    carrier = []
    for i in range(8):
        dr, dc = int(ZIG_R[mirror, i]), int(ZIG_C[mirror, i])
        if edge == 1:
            dr, dc = -dr, -dc
        if player == 1:
            dr, dc = dc, dr
        carrier.append((r + dr) * n + c + dc)
    stone = r * n + c
    board = [2 - player] * (n * n)
    for x in carrier:
        board[x] = 0
    board[stone] = player + 1
    assert _second_player_joins(board, n, carrier, stone, player, edge)
    for x in carrier:
        less = board.copy()
        less[x] = 2 - player
        assert not _second_player_joins(less, n, [y for y in carrier if y != x], stone, player, edge)
    # collect_links sees it on an otherwise empty board.
    s = position(n, [stone] if player == 0 else [], [stone] if player == 1 else [], to_move=1 - player)
    size = 4 * n * n + 16
    a, b, k = (np.empty(size, dtype=np.int64) for _ in range(3))
    link_cells = np.empty((size, 8), dtype=np.int64)
    m = collect_links(s, player, a, b, k, link_cells)
    found = {frozenset(link_cells[i, :8].tolist()) for i in range(m) if k[i] == 8}
    assert frozenset(carrier) in found


def test_bridge_intrusion_reply():
    spec = GameSpec.parse("hex:5")
    game = spec.new_game()
    for name in ("b2", "e5", "c3", "c2"):  # white c2 intrudes the b2-c3 bridge
        game.apply(name)
    out = np.zeros(25, dtype=np.bool_)
    assert bridge_intrusions(game.array, 0, out) == 1
    assert np.flatnonzero(out).tolist() == [spec.parse_action("b3")]
    # An edge bridge: black d2 over d1/e1, white takes d1: the reply is e1.
    game = spec.new_game()
    for name in ("d2", "a5", "a4", "d1"):
        game.apply(name)
    out[:] = False
    assert bridge_intrusions(game.array, 0, out) == 1
    assert np.flatnonzero(out).tolist() == [spec.parse_action("e1")]
    # Not the opponent's last move: nothing to answer.
    out[:] = False
    assert bridge_intrusions(game.array, 1, out) == 0


# ---- random positions: knowledge against exhaustive search -----------------------------
def random_position(data: st.DataObject, n: int, min_stones: int) -> np.ndarray | None:
    """Stones of alternate colours on random cells, stopping before anyone connects, with
    either side to move (the count need not match the side: knowledge must not care)."""
    cells = n * n
    count = data.draw(st.integers(min_stones, cells - 2), label="stones")
    order = data.draw(st.permutations(range(cells)), label="cells")
    to_move = data.draw(st.integers(0, 1), label="to_move")
    black: list[int] = []
    white: list[int] = []
    for i, cell in enumerate(order[:count]):
        side = black if i % 2 == 0 else white
        side.append(cell)
        if position(n, black, white, to_move)[WINNER] >= 0:
            side.pop()
    s = position(n, black, white, to_move)
    return None if len(black) + len(white) < min_stones else s


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5]))
def test_claimed_winning_connections_are_wins(data, n):
    s = random_position(data, n, 6 if n == 4 else 13)
    if s is None:
        return
    carrier = np.zeros(n * n, dtype=np.bool_)
    claims = 0
    for player in (0, 1):
        if winning_connection(s, player, carrier) == 1:
            claims += 1
            assert all(s[BOARD + x] == 0 for x in np.flatnonzero(carrier))
            # The opponent moves first and still loses.
            t = s.copy()
            t[TO_MOVE] = 1 - player
            t[PLY] = t[STONES] + ((t[STONES] + t[TO_MOVE]) % 2)
            assert plain_value(t) == hs.LOSS
    assert claims <= 1
    event(f"claims: {claims}")


@SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5]))
def test_pruning_never_changes_the_value(data, n):
    s = random_position(data, n, 4 if n == 4 else 13)
    if s is None:
        return
    values = {flags: plain_value(s, flags) for flags in (0, hs.USE_VC, hs.USE_INFERIOR, hs.USE_ALL)}
    assert len(set(values.values())) == 1, values
    # At the root: when the mover wins, some cell outside the inferior ones wins too.
    inferior = np.zeros(n * n, dtype=np.bool_)
    marked = inferior_mask(s, inferior)
    event(f"inferior cells: {min(marked, 3)}")
    if values[0] == hs.WIN:
        me = int(s[TO_MOVE])
        wins = False
        for cell in np.flatnonzero((s[BOARD : BOARD + n * n] == 0) & ~inferior):
            child = s.copy()
            apply_hex(child, cell)
            if child[WINNER] == me or plain_value(child) == hs.LOSS:
                wins = True
                break
        assert wins


@SETTINGS
@given(data=st.data(), n=st.sampled_from([4, 5]))
def test_dead_cells_and_captured_pairs_do_not_matter(data, n):
    """A dead cell of either colour, and a captured pair in its captor's colour, leave the
    value of the position unchanged."""
    s = random_position(data, n, 5 if n == 4 else 13)
    if s is None:
        return
    base = plain_value(s)
    dead = np.zeros(n * n, dtype=np.bool_)
    dead_mask(s, dead)
    stones = [list(np.flatnonzero(s[BOARD : BOARD + n * n] == p + 1)) for p in (0, 1)]
    for cell in np.flatnonzero(dead):
        for colour in (0, 1):
            filled = [[*x, cell] if p == colour else x for p, x in enumerate(stones)]
            t = position(n, filled[0], filled[1], int(s[TO_MOVE]))
            value = (hs.WIN if t[WINNER] == s[TO_MOVE] else hs.LOSS) if t[WINNER] >= 0 else plain_value(t)
            assert value == base
    for colour in (0, 1):
        captured = np.zeros(n * n, dtype=np.bool_)
        if captured_pairs(s, colour, captured) == 0:
            continue
        marked = set(np.flatnonzero(captured).tolist())
        for x in marked:  # one pair at a time: overlapping pairs are not captured together
            for y in marked:
                if y <= x or not (is_dead(s, x, y, colour) and is_dead(s, y, x, colour)):
                    continue
                filled = [[*v, x, y] if p == colour else v for p, v in enumerate(stones)]
                t = position(n, filled[0], filled[1], int(s[TO_MOVE]))
                value = (hs.WIN if t[WINNER] == s[TO_MOVE] else hs.LOSS) if t[WINNER] >= 0 else plain_value(t)
                assert value == base
    event(f"dead: {min(int(dead.sum()), 3)}")


def test_state_api_rejects_other_games():
    with pytest.raises(ValueError):
        solve_hex(GameState(GameSpec.parse("gomoku:9")), 10)


def test_six_by_six_centre_openings_win():
    """The centre cells of the short diagonal of 6x6 win for the first player (published
    theory), proven with the replayed line (about 10 s). The full 6x6 table is not a
    unit test: its edge openings take far more nodes (scripts/hex_opening_table.py)."""
    spec = GameSpec.parse("hex:6")
    table = new_table(22)
    for r, c in centre_cells(6):
        opened = spec.new_game().apply(r * 6 + c)
        sol = solve_hex(opened, 10**7, table=table)
        assert sol is not None and sol.winner == 0
        for move in sol.line:
            opened.apply(move)
        assert opened.winner == 0
