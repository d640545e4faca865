"""Hand-checked positions for every rule of Gomoku, Connect6 and Hex, driven through the
public game API only (`GameSpec`, `GameState`)."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState, IllegalMoveError

pytestmark = pytest.mark.unit


# ---- helpers -------------------------------------------------------------------------


def play(spec: GameSpec | str, moves) -> GameState:
    spec = GameSpec.parse(spec) if isinstance(spec, str) else spec
    state = spec.new_game()
    for m in moves:
        state.apply(m)
    return state


def interleave(first, second):
    """Alternate moves of player 0 and player 1 (Gomoku, Hex)."""
    out = []
    for i in range(max(len(first), len(second))):
        if i < len(first):
            out.append(first[i])
        if i < len(second):
            out.append(second[i])
    return out


def c6_order(p0, p1):
    """Connect6 order: p0 one stone, then two stones per turn, p1 first."""
    out = [p0[0]]
    i0, i1 = 1, 0
    while i0 < len(p0) or i1 < len(p1):
        out += p1[i1 : i1 + 2]
        i1 += 2
        out += p0[i0 : i0 + 2]
        i0 += 2
    return out


def gomoku_rc(name: str, height: int) -> tuple[int, int]:
    """Gomoku/Connect6 names count rows from the bottom."""
    return height - int(name[1:]), ord(name[0]) - ord("a")


def hex_rc(name: str) -> tuple[int, int]:
    """Hex names count rows from the top."""
    return int(name[1:]) - 1, ord(name[0]) - ord("a")


def plane(h, w, cells):
    out = np.zeros((h, w), dtype=np.float32)
    for r, c in cells:
        out[r, c] = 1.0
    return out


def mask_of(spec: GameSpec, names) -> np.ndarray:
    out = np.zeros(spec.num_actions, dtype=bool)
    for n in names:
        out[spec.parse_action(n)] = True
    return out


def assert_finished(state: GameState, winner):
    assert state.is_terminal
    assert state.winner == winner
    assert state.is_draw is (winner is None)
    assert not state.legal_mask().any()
    assert state.legal_actions().size == 0


def assert_ongoing(state: GameState):
    assert not state.is_terminal
    assert state.winner is None
    assert not state.is_draw
    assert state.legal_mask().any()


# ---- Gomoku ----------------------------------------------------------------------------

# White stones scattered on the edge so that they never make a line.
WHITE_FILLER = ["a1", "c1", "e1", "g1", "i1", "a9", "c9", "e9"]


@pytest.mark.parametrize("rules", ["freestyle", "exact"])
def test_gomoku_five_in_a_row_wins_under_both_rules(rules):
    spec = GameSpec(game="gomoku", size=9, k=5, rules=rules)
    black = ["d5", "e5", "f5", "g5", "h5"]
    state = play(spec, interleave(black[:4], WHITE_FILLER[:4]))
    assert_ongoing(state)
    assert state.current_player == 0
    state.apply(black[4])
    assert state.ply == 9
    assert_finished(state, 0)


def test_gomoku_second_player_can_win():
    spec = GameSpec.parse("gomoku:9x9:k5")
    black = ["a1", "c1", "e1", "g1", "i9"]
    white = ["e3", "e4", "e5", "e6", "e7"]
    state = play(spec, interleave(black, white))
    assert_finished(state, 1)
    assert state.ply == 10


def test_gomoku_overline_wins_under_freestyle():
    spec = GameSpec.parse("gomoku:9x9:k5:freestyle")
    # c5 d5 e5 _ g5 h5: f5 joins them into six.
    state = play(spec, interleave(["c5", "d5", "e5", "g5", "h5"], WHITE_FILLER[:5]))
    assert_ongoing(state)
    state.apply("f5")
    assert_finished(state, 0)


def test_gomoku_overline_does_not_win_under_exact_and_play_goes_on():
    spec = GameSpec.parse("gomoku:9x9:k5:exact")
    state = play(spec, interleave(["c5", "d5", "e5", "g5", "h5"], WHITE_FILLER[:5]))
    state.apply("f5")  # six in a row: no win under exact rules
    assert_ongoing(state)
    assert state.current_player == 1
    assert state.ply == 11
    assert state.board()[gomoku_rc("f5", 9)] == 1
    # The game really goes on: black later wins with exactly five elsewhere (b3..f3).
    for move in ["a5", "b3", "e9", "c3", "g9", "d3", "i9", "e3", "a7"]:
        assert_ongoing(state)
        state.apply(move)
    state.apply("f3")
    assert_finished(state, 0)


def test_gomoku_exact_five_in_one_direction_wins_despite_overline_in_another():
    spec = GameSpec.parse("gomoku:9x9:k5:exact")
    # e5 makes a5..e5 (exactly five) and e1..e6 (six) at once.
    black = ["a5", "b5", "c5", "d5", "e6", "e4", "e3", "e2", "e1"]
    white = ["a1", "c1", "g1", "i1", "a9", "c9", "g9", "i9", "i5"]
    state = play(spec, interleave(black, white))
    assert_ongoing(state)
    state.apply("e5")
    assert_finished(state, 0)


def test_gomoku_exact_overline_in_every_direction_is_not_a_win():
    spec = GameSpec.parse("gomoku:9x9:k5:exact")
    black = ["a5", "b5", "c5", "d5", "f5", "e1", "e2", "e3", "e4", "e6"]
    white = ["a1", "c1", "g1", "i1", "a9", "c9", "g9", "i9", "a7", "i7"]
    state = play(spec, interleave(black, white))
    state.apply("e5")  # six horizontally (a5..f5), six vertically (e1..e6)
    assert_ongoing(state)


@pytest.mark.parametrize(
    "moves_black",
    [
        pytest.param(["b2", "b3", "b4", "b5"], id="vertical"),
        pytest.param(["c1", "c2", "c4", "c3"], id="vertical-filled-gap"),
        pytest.param(["a1", "b2", "c3", "d4"], id="anti-diagonal"),
        pytest.param(["g1", "f2", "e3", "d4"], id="diagonal"),
        pytest.param(["d1", "e2", "f3", "g4"], id="anti-diagonal-right-edge"),
        pytest.param(["a5", "b4", "c3", "d2"], id="diagonal-top-left"),
        pytest.param(["d5", "e5", "f5", "g5"], id="horizontal-right-edge"),
    ],
)
def test_gomoku_k4_on_a_rectangular_board(moves_black):
    # 5 rows, 7 columns: columns a..g, rows 1..5 from the bottom.
    spec = GameSpec(game="gomoku", height=5, width=7, k=4)
    assert spec.num_actions == 35
    white = [w for w in ["a3", "g2", "e5", "c5", "a1", "g1"] if w not in moves_black][:3]
    state = play(spec, interleave(moves_black[:3], white))
    assert_ongoing(state)
    state.apply(moves_black[3])
    assert_finished(state, 0)
    for m in moves_black:
        assert state.board()[gomoku_rc(m, 5)] == 1


def test_gomoku_k4_broken_line_is_not_a_win_until_the_hole_is_filled():
    spec = GameSpec(game="gomoku", height=5, width=7, k=4)
    # a1 b2 c3 _ e5: four stones on one diagonal with a hole at d4.
    state = play(spec, interleave(["a1", "b2", "c3", "e5"], ["a5", "b5", "g5", "a3"]))
    assert_ongoing(state)
    state.apply("d4")
    assert_finished(state, 0)


@pytest.mark.parametrize(
    "black",
    [
        ["a4", "b4", "e5", "f5", "g5"],  # the last stone g5 ends row 5; a4 b4 start row 4
        ["g5", "f5", "e5", "b4", "a4"],
        ["e5", "f5", "a4", "b4", "g5"],
        ["a4", "b4", "f5", "g5", "e5"],
    ],
)
def test_gomoku_wins_never_wrap_around_the_flat_array(black):
    # Flat cells 4..8 of a 7-wide board are e5 f5 g5 a4 b4: contiguous in memory, but
    # two separate lines of three and two.
    spec = GameSpec(game="gomoku", height=5, width=7, k=4)
    state = play(spec, interleave(black, ["a1", "c1", "e1", "g1"]))
    assert state.ply == 9
    assert_ongoing(state)


def test_gomoku_3x3_drawn_game_fills_the_board():
    spec = GameSpec(game="gomoku", size=3, k=3)
    # X O X / X O O / O X X : no line anywhere.
    moves = ["a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1", "c1"]
    state = play(spec, moves[:-1])
    assert_ongoing(state)
    state.apply(moves[-1])
    assert_finished(state, None)
    assert state.is_draw
    np.testing.assert_array_equal(state.board(), [[1, 2, 1], [1, 2, 2], [2, 1, 1]])


def test_gomoku_win_on_the_last_cell_is_a_win_not_a_draw():
    spec = GameSpec(game="gomoku", size=3, k=3)
    # X O X / O X O / O X X : the last stone c1 completes the main diagonal.
    moves = ["a3", "b3", "c3", "a2", "b2", "c2", "b1", "a1", "c1"]
    state = play(spec, moves[:-1])
    assert_ongoing(state)
    state.apply("c1")
    assert_finished(state, 0)
    assert not state.is_draw


def test_gomoku_turns_alternate():
    spec = GameSpec.parse("gomoku:9")
    state = spec.new_game()
    moves = ["e5", "e6", "d4", "f6", "a1"]
    for ply, move in enumerate(moves):
        assert state.ply == ply
        assert state.current_player == ply % 2
        state.apply(move)
    assert state.history == [spec.parse_action(m) for m in moves]
    assert state.board()[gomoku_rc("e6", 9)] == 2


# ---- Connect6 --------------------------------------------------------------------------


def test_connect6_turn_sequence():
    spec = GameSpec.parse("connect6:10")
    state = spec.new_game()
    expected = [0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    for ply, player in enumerate(expected):
        assert state.ply == ply
        assert state.current_player == player, f"ply {ply}"
        state.apply(ply * 3 % spec.cells)  # well spread stones, no line
    assert state.board().sum() == 5 * 1 + 5 * 2  # 5 stones each


# p1's stones scattered along the bottom edge: at most three in any window of six.
C6_FILLER = ["a1", "c1", "e1", "g1", "i1", "a10", "c10", "e10", "g10", "i10", "a3", "j3"]


def test_connect6_six_wins_five_does_not():
    spec = GameSpec.parse("connect6:10")
    black = ["a5", "b5", "c5", "d5", "e5", "f5"]
    moves = c6_order(black, C6_FILLER[:6])
    # black's sixth stone is the first stone of its turn at ply 11
    assert moves[11] == "f5"
    state = play(spec, moves[:11])
    assert_ongoing(state)  # five in a row is not enough
    assert state.current_player == 0
    state.apply("f5")
    # the game ends in the middle of black's turn
    assert_finished(state, 0)
    assert state.ply == 12


def test_connect6_seven_wins():
    spec = GameSpec.parse("connect6:10")
    black = ["a5", "b5", "c5", "e5", "f5", "g5", "d5"]
    moves = c6_order(black, C6_FILLER[:6])
    state = play(spec, moves[:-1])
    assert_ongoing(state)
    assert state.current_player == 0
    state.apply("d5")
    assert_finished(state, 0)
    assert state.ply == 13


def test_connect6_player1_wins_with_the_second_stone_of_its_turn():
    spec = GameSpec.parse("connect6:10")
    white = ["b2", "b3", "b4", "b5", "b6", "b7"]
    black = ["j10", "h10", "f10", "d10", "j8", "h8"]
    moves = c6_order(black, white)
    # white's sixth stone is placed at ply 10, the second stone of its turn
    state = play(spec, moves[:9])
    assert state.current_player == 1
    state.apply("b6")  # five: not yet
    assert_ongoing(state)
    assert state.current_player == 1
    state.apply("b7")
    assert_finished(state, 1)
    with pytest.raises(IllegalMoveError, match="over"):
        state.apply("a1")


def test_connect6_diagonal_six_by_player_one():
    spec = GameSpec.parse("connect6:10")
    white = ["a1", "b2", "c3", "d4", "e5", "f6"]
    black = ["j1", "j3", "j5", "h1", "h3", "h5", "f1"]
    state = spec.new_game()
    order = c6_order(black, white)
    for m in order:
        if state.is_terminal:
            break
        state.apply(m)
    assert_finished(state, 1)
    assert state.history[-1] == spec.parse_action("f6")


# ---- Hex -----------------------------------------------------------------------------


def test_hex_player0_connects_top_and_bottom():
    state = play("hex:5", interleave(["c1", "c2", "c3", "c4"], ["e1", "e2", "e3", "e4"]))
    assert_ongoing(state)
    state.apply("c5")
    assert_finished(state, 0)


def test_hex_player1_connects_left_and_right():
    state = play("hex:5", interleave(["a1", "b1", "c1", "d1", "a5"], ["a3", "b3", "c3", "d3"]))
    assert_ongoing(state)
    state.apply("e3")
    assert_finished(state, 1)


def test_hex_connecting_the_other_players_edges_wins_nothing():
    # p0 joins left and right (player 1's edges): no win.
    state = play("hex:5", interleave(["a2", "b2", "c2", "d2", "e2"], ["a4", "c4", "e4", "b5"]))
    assert_ongoing(state)
    # p1 joins top and bottom (player 0's edges): no win.
    state = play("hex:5", interleave(["a1", "e5", "a3", "e3", "e1"], ["c1", "c2", "c3", "c4", "c5"]))
    assert state.ply == 10
    assert_ongoing(state)


@pytest.mark.parametrize("player", [0, 1])
def test_hex_short_diagonal_zigzag_wins_via_hex_adjacency(player):
    # e1 d2 c3 b4 a5: each step is (r+1, c-1), a hex neighbour; this chain touches all
    # four edges, so it wins for whichever player builds it.
    chain = ["e1", "d2", "c3", "b4", "a5"]
    other = ["a1", "b1", "a2", "e5", "e4"]
    moves = interleave(chain, other[:4]) if player == 0 else interleave(other, chain)
    assert moves[-1] == "a5"
    state = play("hex:5", moves[:-1])
    assert_ongoing(state)
    assert state.current_player == player
    state.apply(chain[-1])
    assert_finished(state, player)


def test_hex_zigzag_column_pairs():
    # c1 (0,2) -> b2 (1,1) -> b3 (2,1) -> a4 (3,0) -> a5 (4,0): steps (r+1,c-1) and (r+1,c)
    state = play("hex:5", interleave(["c1", "b2", "b3", "a4"], ["e1", "e2", "e3", "e4"]))
    assert_ongoing(state)
    state.apply("a5")
    assert_finished(state, 0)


def test_hex_main_diagonal_is_not_connected():
    # (r, c) -> (r+1, c+1) is not a hex neighbour: a1 b2 c3 d4 e5 wins for nobody.
    chain = ["a1", "b2", "c3", "d4", "e5"]
    state = play("hex:5", interleave(chain, ["a5", "b5", "e1", "d1", "a4"])[:-1])
    assert_ongoing(state)
    assert state.ply == 9


def test_hex_blocked_chain_does_not_win():
    # c1..c4 reaches the bottom only through b5 or c5; p1 holds both, and d5 is not a
    # neighbour of c4 (that would be the non-hex direction (r+1, c+1)).
    state = play("hex:5", interleave(["c1", "c2", "c3", "c4", "d5"], ["b5", "c5", "e1", "a1"]))
    assert_ongoing(state)
    assert state.board()[hex_rc("d5")] == 1
    assert state.board()[hex_rc("c4")] == 1


def test_a_stone_out_of_turn_is_placed_and_the_other_player_moves():
    # GTP front ends set up positions in any colour order (`play w a2` with black to move).
    state = GameSpec.parse("hex:3").new_game()
    state.place("a2", 1)
    assert state.board()[1, 0] == 2 and state.current_player == 0 and state.ply % 2 == 0
    state.place("b2", 1)  # white again, still out of turn
    assert state.current_player == 0 and state.ply % 2 == 0
    assert_ongoing(state)
    state.place("a1", 0)  # black's turn: an ordinary move
    assert state.current_player == 1
    state.apply("c2")  # white joins left and right through the placed stones
    assert_finished(state, 1)
    assert state.history == [3, 4, 0, 5]


def test_a_stone_out_of_turn_is_refused_where_it_cannot_go():
    state = GameSpec.parse("hex:3:swap").new_game()
    state.place("b2", 1)
    assert not state.swap_available  # a position set up out of turn offers no swap
    before = state.array.copy()
    for move, player, why in [("b2", 1, "occupied"), ("swap", 1, "only for the player to move"), ("a1", 2, "0 or 1")]:
        with pytest.raises(IllegalMoveError, match=why):
            state.place(move, player)
    np.testing.assert_array_equal(state.array, before)
    with pytest.raises(IllegalMoveError, match="connect6 plays its turns in order"):
        GameSpec.parse("connect6:10").new_game().place("e5", 1)
    gomoku = GameSpec.parse("gomoku:5:k3").new_game()
    for cell in ("a1", "b1", "c1"):
        gomoku.place(cell, 1)
    assert_finished(gomoku, 1)


def test_hex_swap_mirrors_the_first_stone_and_player0_moves_next():
    spec = GameSpec.parse("hex:5:swap")
    assert spec.num_actions == 26
    state = play(spec, ["b1"])  # (0, 1)
    assert state.legal_mask()[25]
    state.apply("swap")
    board = np.zeros((5, 5), dtype=np.int8)
    board[1, 0] = 2  # a2: player 1's stone at (c, r)
    np.testing.assert_array_equal(state.board(), board)
    assert state.ply == 2
    assert state.current_player == 0
    assert state.history == [1, 25]
    assert not state.legal_mask()[25]
    assert state.legal_mask()[1]  # b1 is empty again
    assert state.legal_actions().size == 24
    assert_ongoing(state)


def test_hex_swap_on_the_diagonal_keeps_the_cell():
    state = play("hex:5:swap", ["c3", "swap"])
    assert state.board()[2, 2] == 2
    assert int(np.count_nonzero(state.board())) == 1
    assert state.current_player == 0


def test_hex_swapped_stone_connects_for_player1_and_the_old_one_is_forgotten():
    spec = GameSpec.parse("hex:5:swap")
    # p0 opens a3 (2, 0); after swap p1 owns c1 (0, 2) and a3 is empty again.
    state = play(spec, ["a3", "swap"])
    assert state.board()[0, 2] == 2
    assert state.board()[2, 0] == 0
    # p1 finishes the top row around the swapped c1 stone: a1 b1 c1 d1 e1
    for p0, p1 in [("a3", "a1"), ("a4", "b1"), ("b4", "d1")]:
        state.apply(p0)
        state.apply(p1)
    assert_ongoing(state)
    state.apply("c4")
    state.apply("e1")
    assert_finished(state, 1)


def test_hex_after_swap_player0_can_play_its_vacated_opening_cell():
    # p0 opens b1; after swap p1 owns a2 and p0 owns nothing. p0 then builds b1..b5.
    state = play("hex:5:swap", ["b1", "swap"])
    moves = interleave(["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"])
    for m in moves:
        state.apply(m)
    assert_ongoing(state)
    state.apply("b5")
    assert_finished(state, 0)


def test_hex_swap_is_illegal_at_other_plies():
    spec = GameSpec.parse("hex:5:swap")
    state = spec.new_game()
    assert not state.legal_mask()[25]
    before = state.array.copy()
    with pytest.raises(IllegalMoveError, match=r"swap.*second move"):
        state.apply("swap")
    np.testing.assert_array_equal(state.array, before)
    state.apply("c3")
    state.apply("b2")
    assert state.ply == 2
    assert not state.legal_mask()[25]
    with pytest.raises(IllegalMoveError, match=r"move swap is illegal: swap is legal only as the second move"):
        state.apply("swap")
    with pytest.raises(IllegalMoveError, match="swap"):
        state.apply(25)
    state.apply("d4")
    with pytest.raises(IllegalMoveError, match="swap"):
        state.apply("swap")


def test_hex_swap_cannot_be_played_twice():
    state = play("hex:5:swap", ["c3", "swap"])
    with pytest.raises(IllegalMoveError, match="swap"):
        state.apply("swap")


def test_hex_swap_is_illegal_without_the_rule():
    spec = GameSpec.parse("hex:5")
    state = play(spec, ["c3"])
    assert spec.num_actions == 25
    assert state.legal_mask().size == 25
    with pytest.raises(IllegalMoveError, match="swap is not part of these rules"):
        state.apply("swap")
    with pytest.raises(IllegalMoveError, match=r"25.*off the board"):
        state.apply(25)
    assert state.history == [spec.parse_action("c3")]


@pytest.mark.parametrize("name", ["swap", "SWAP", " Swap ", "swap-pieces", "Swap-Pieces"])
def test_hex_swap_names(name):
    spec = GameSpec.parse("hex:7:swap")
    assert spec.parse_action(name) == 49
    assert spec.action_name(49) == "swap"
    state = play(spec, ["d4", name])
    assert state.history == [spec.parse_action("d4"), 49]


@pytest.mark.parametrize("text", ["gomoku:9", "connect6:10"])
def test_swap_is_not_a_move_in_other_games(text):
    spec = GameSpec.parse(text)
    for name in ["swap", "swap-pieces"]:
        with pytest.raises(IllegalMoveError, match="swap is not part of these rules"):
            spec.parse_action(name)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 7, 11])
def test_hex_full_board_random_games_always_have_a_winner(size):
    spec = GameSpec(game="hex", size=size)
    rng = np.random.default_rng(size)
    for _ in range(30):
        state = spec.new_game()
        while not state.is_terminal:
            state.apply(int(rng.choice(state.legal_actions())))
        assert state.winner in (0, 1)
        assert not state.is_draw


@pytest.mark.parametrize("size", [3, 4, 5])
def test_hex_filling_the_whole_board_always_yields_exactly_one_connection(size):
    """Fill every cell (ignoring the moment the game ends) and check the final colouring
    with a flood fill: exactly one side is connected, and the engine's winner is that
    side, since a connection once made is never broken."""
    spec = GameSpec(game="hex", size=size)
    rng = np.random.default_rng(100 + size)
    for _ in range(40):
        order = rng.permutation(spec.cells)
        state = spec.new_game()
        board = np.zeros((size, size), dtype=int)
        for ply, a in enumerate(order):
            r, c = divmod(int(a), size)
            board[r, c] = ply % 2 + 1
            if not state.is_terminal:
                state.apply(int(a))
        assert state.winner in (0, 1)
        top_bottom = _flood(board, 1, size)
        left_right = _flood(board.T, 2, size)
        assert top_bottom != left_right
        assert state.winner == (0 if top_bottom else 1)


def _flood(board, value, n):
    """Is there a chain of `value` from row 0 to row n-1 (hex neighbours)?"""
    seen = set()
    stack = [(0, c) for c in range(n) if board[0, c] == value]
    while stack:
        r, c = stack.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        if r == n - 1:
            return True
        for dr, dc in [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)]:
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n and board[rr, cc] == value:
                stack.append((rr, cc))
    return False


def test_hex_2x2():
    # On 2x2 the acute corner a1 cannot win by itself; b1 (0,1) and a2 (1,0) are linked.
    state = play("hex:2", ["b1", "b2"])
    assert_ongoing(state)
    state.apply("a2")
    assert_finished(state, 0)


# ---- bad input ---------------------------------------------------------------------------


def _assert_rejected(state: GameState, move, *fragments):
    array = state.array.copy()
    history = list(state.history)
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    np.testing.assert_array_equal(state.array, array)
    assert state.history == history
    return message


@pytest.mark.parametrize("text", ["gomoku:9", "gomoku:9x9:k5:exact", "connect6:10", "hex:9", "hex:9:swap"])
def test_occupied_cell_is_rejected(text):
    state = play(text, ["e5", "d4", "c3"])
    _assert_rejected(state, "e5", "e5", "occupied")
    _assert_rejected(state, "D4", "d4", "occupied")
    _assert_rejected(state, state.spec.parse_action("c3"), "c3", "occupied")
    state.apply("b2")  # still playable afterwards
    assert state.ply == 4


@pytest.mark.parametrize(
    ("text", "name"),
    [
        *[("gomoku:9", n) for n in ["z99", "a10", "j1", "a0", "i100"]],
        *[("gomoku:5x7:k4", n) for n in ["h1", "a6", "a0"]],
        *[("connect6:10", n) for n in ["z99", "a11", "k1", "a0"]],
        *[("hex:9:swap", n) for n in ["z99", "a10", "j1", "a0"]],
    ],
)
def test_off_board_name_is_rejected(text, name):
    state = play(text, ["c3"])
    _assert_rejected(state, name, repr(name), "is off the")


@pytest.mark.parametrize("action", [-1, 81, 1000])
def test_off_board_action_index_is_rejected(action):
    state = play("gomoku:9", ["e5"])
    _assert_rejected(state, action, str(action), "off the board")


@pytest.mark.parametrize("name", ["", "e", "5e", "ee", "e5x", "e-5", "é5", "e 5", "swapp", "e5.0"])
def test_malformed_name_is_rejected(name):
    state = play("gomoku:9", ["e5"])
    message = _assert_rejected(state, name, repr(name), "not a move name")
    assert "like e5" in message


@pytest.mark.parametrize("name", ["e²", "a١", "b½"])
def test_non_ascii_digits_are_rejected_as_illegal_moves(name):
    state = play("hex:9", ["e5"])
    _assert_rejected(state, name, repr(name), "not a move name")


@pytest.mark.parametrize("text", ["gomoku:9", "connect6:10", "hex:5"])
def test_swap_not_allowed_is_rejected(text):
    state = play(text, ["c3"])
    _assert_rejected(state, "swap", "swap", "not part of these rules")


def test_swap_at_the_wrong_time_is_rejected():
    state = GameSpec.parse("hex:5:swap").new_game()
    _assert_rejected(state, "swap", "swap", "second move")
    state.apply("a1").apply("b2")
    _assert_rejected(state, "swap-pieces", "swap", "second move")


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("gomoku:3x3:k3", ["a1", "a2", "b1", "b2", "c1"]),
        ("gomoku:3x3:k3:exact", ["a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1", "c1"]),  # a draw
        ("hex:2", ["b1", "b2", "a2"]),
        ("hex:3:swap", ["b1", "a1", "b2", "a2", "b3"]),
    ],
)
def test_any_move_after_the_end_is_rejected(text, moves):
    state = play(text, moves)
    assert state.is_terminal
    spec = state.spec
    for a in range(spec.num_actions):  # empty and occupied cells, and swap
        name = spec.action_name(a)
        _assert_rejected(state, a, f"move {name} is illegal", "the game is over")
        _assert_rejected(state, name, f"move {name} is illegal", "the game is over")


def test_connect6_after_the_end():
    spec = GameSpec.parse("connect6:10")
    state = play(spec, c6_order(["a5", "b5", "c5", "d5", "e5", "f5"], C6_FILLER[:6]))
    assert state.winner == 0
    _assert_rejected(state, "j9", "j9", "the game is over")


# ---- action names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "gomoku:15",
        "gomoku:5x7:k4",
        "gomoku:7x5:k4",
        "gomoku:19",
        "connect6:10",
        "connect6:19",
        "hex:11",
        "hex:7:swap",
        "hex:19",
    ],
)
def test_action_names_round_trip(text):
    spec = GameSpec.parse(text)
    names = [spec.action_name(a) for a in range(spec.num_actions)]
    assert len(set(names)) == spec.num_actions
    for a, name in enumerate(names):
        assert spec.parse_action(name) == a
        assert spec.parse_action(name.upper()) == a
        assert spec.parse_action(f"  {name} ") == a


def test_gomoku_rows_count_from_the_bottom():
    spec = GameSpec.parse("gomoku:15")
    centre = 7 * 15 + 7
    assert spec.action_name(centre) == "h8"
    assert spec.action_name(0) == "a15"  # top-left
    assert spec.action_name(14 * 15) == "a1"  # bottom-left
    assert spec.action_name(14 * 15 + 14) == "o1"  # bottom-right
    assert spec.parse_action("a1") == 210
    assert spec.parse_action("o15") == 14
    state = play(spec, ["a1"])
    assert state.board()[14, 0] == 1


def test_rectangular_names():
    spec = GameSpec(game="gomoku", height=5, width=7, k=4)  # 5 rows, 7 columns
    assert spec.action_name(0) == "a5"
    assert spec.action_name(6) == "g5"
    assert spec.action_name(28) == "a1"
    assert spec.action_name(34) == "g1"
    with pytest.raises(IllegalMoveError):
        spec.parse_action("h1")
    with pytest.raises(IllegalMoveError):
        spec.parse_action("a6")
    tall = GameSpec(game="gomoku", height=7, width=5, k=4)
    assert tall.action_name(0) == "a7"
    assert tall.parse_action("e1") == 34


def test_connect6_names_like_gomoku():
    spec = GameSpec.parse("connect6:19")
    assert spec.action_name(9 * 19 + 9) == "j10"
    assert spec.parse_action("a1") == 18 * 19


def test_hex_rows_count_from_the_top():
    spec = GameSpec.parse("hex:11")
    assert spec.action_name(0) == "a1"
    assert spec.action_name(10) == "k1"
    assert spec.action_name(11) == "a2"
    assert spec.action_name(120) == "k11"
    assert spec.parse_action("f6") == 60
    state = play(spec, ["a1", "k1"])
    assert state.board()[0, 0] == 1
    assert state.board()[0, 10] == 2


def test_action_name_off_board_raises():
    spec = GameSpec.parse("gomoku:9")
    for a in (-1, 81):
        with pytest.raises(IllegalMoveError, match=f"action {a} is off the 9x9 board"):
            spec.action_name(a)


# ---- spec validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "gomoku", "size": 2}, "gomoku board must be 3..20 on each side, got 2x2"),
        ({"game": "gomoku", "size": 21}, "gomoku board must be 3..20"),
        ({"game": "gomoku", "height": 9, "width": 2}, "gomoku board must be 3..20 on each side, got 9x2"),
        ({"game": "gomoku", "size": 9, "k": 10}, r"gomoku k must be in 3..9 for a 9x9 board, got 10"),
        ({"game": "gomoku", "height": 5, "width": 7, "k": 8}, r"3..7 for a 5x7 board, got 8"),
        ({"game": "gomoku", "size": 9, "k": 2}, "gomoku k must be in 3..9"),
        ({"game": "gomoku", "size": 9, "swap": True}, "the swap rule exists only for hex"),
        ({"game": "connect6", "size": 10, "swap": True}, "the swap rule exists only for hex"),
        ({"game": "connect6", "size": 10, "rules": "exact"}, "connect6 is six or more in a row"),
        ({"game": "connect6", "size": 10, "k": 5}, "connect6 is six or more in a row"),
        ({"game": "connect6", "size": 5}, "connect6 board must be 6..19 on each side, got 5x5"),
        ({"game": "connect6", "size": 20}, "connect6 board must be 6..19"),
        ({"game": "hex", "height": 5, "width": 6}, "hex board must be square"),
        ({"game": "hex", "size": 1}, "hex board must be square, 2..19, got 1x1"),
        ({"game": "hex", "size": 20}, "hex board must be square, 2..19"),
        ({"game": "hex", "size": 9, "k": 5}, "hex has no k"),
        ({"game": "hex", "size": 9, "rules": "exact"}, "hex has no exact rule"),
        ({"game": "chess", "size": 8}, "game"),
        ({"game": "gomoku", "size": 9, "rules": "caro"}, "rules"),
        ({"game": "gomoku", "size": 15, "k": 6, "rules": "renju"}, "renju is five in a row: k must be 5, got 6"),
        ({"game": "connect6", "size": 10, "rules": "renju"}, "connect6 is six or more in a row"),
        ({"game": "hex", "size": 9, "rules": "renju"}, "hex has no renju rule"),
        ({"game": "gomoku", "size": 9, "colour": "black"}, "colour"),
    ],
)
def test_spec_validation_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GameSpec(**kwargs)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gomoku:9:bogus", "cannot read 'bogus'"),
        ("gomoku:9:k", "cannot read 'k'"),
        ("gomoku:2", "gomoku board must be 3..20"),
        ("gomoku:9:k12", "gomoku k must be in 3..9"),
        ("gomoku:9:swap", "the swap rule exists only for hex"),
        ("connect6:10:exact", "connect6 is six or more in a row"),
        ("hex:5x6", "hex board must be square"),
        ("othello:8", "game"),
    ],
)
def test_spec_parse_errors(text, message):
    with pytest.raises(ValueError, match=message):
        GameSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gomoku:15", GameSpec(game="gomoku", size=15, k=5)),
        ("gomoku:9x9:k5:exact", GameSpec(game="gomoku", height=9, width=9, k=5, rules="exact")),
        ("Gomoku:5x7:K4", GameSpec(game="gomoku", height=5, width=7, k=4)),
        ("connect6:10", GameSpec(game="connect6", size=10, k=6)),
        ("hex:11:swap", GameSpec(game="hex", size=11, swap=True)),
    ],
)
def test_spec_parse_and_str_round_trip(text, expected):
    spec = GameSpec.parse(text)
    assert spec == expected
    assert GameSpec.parse(str(spec)) == spec


def test_spec_defaults():
    assert GameSpec(game="connect6", size=10).k == 6
    assert GameSpec(game="hex", size=9).k == 0
    assert GameSpec.parse("hex:9").swap is False
    assert GameSpec.parse("gomoku:9").rules == "freestyle"
    assert GameSpec.parse("gomoku:5x7:k4").obs_shape == (4, 5, 7)
    assert GameSpec.parse("connect6:10").obs_shape == (5, 10, 10)
    assert GameSpec.parse("hex:7:swap").num_actions == 50


# ---- observation planes -------------------------------------------------------------------------


def test_gomoku_observation_planes():
    spec = GameSpec.parse("gomoku:9")
    state = play(spec, ["e5", "d4", "f6"])  # white to move
    obs = state.observation()
    assert obs.shape == (4, 9, 9)
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs[0], plane(9, 9, [(5, 3)]))  # own: d4
    np.testing.assert_array_equal(obs[1], plane(9, 9, [(4, 4), (3, 5)]))  # opp: e5 f6
    np.testing.assert_array_equal(obs[2], plane(9, 9, [(3, 5)]))  # opp's last move: f6
    np.testing.assert_array_equal(obs[3], np.zeros((9, 9)))  # colour: second player to move
    state.apply("a9")  # black to move
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(9, 9, [(4, 4), (3, 5)]))
    np.testing.assert_array_equal(obs[1], plane(9, 9, [(5, 3), (0, 0)]))
    np.testing.assert_array_equal(obs[2], plane(9, 9, [(0, 0)]))
    np.testing.assert_array_equal(obs[3], np.ones((9, 9)))


def test_gomoku_observation_at_the_start():
    obs = GameSpec(game="gomoku", height=5, width=7, k=4).new_game().observation()
    assert obs.shape == (4, 5, 7)
    assert not obs[:3].any()
    assert obs[3].all()


def test_connect6_observation_planes():
    spec = GameSpec.parse("connect6:10")
    e5, f5, a1, b1 = (gomoku_rc(n, 10) for n in ["e5", "f5", "a1", "b1"])
    state = play(spec, ["e5", "a1"])  # p1 to move, one stone placed this turn
    obs = state.observation()
    assert obs.shape == (5, 10, 10)
    np.testing.assert_array_equal(obs[0], plane(10, 10, [a1]))
    np.testing.assert_array_equal(obs[1], plane(10, 10, [e5]))
    np.testing.assert_array_equal(obs[2], plane(10, 10, [e5]))  # opponent's last turn
    np.testing.assert_array_equal(obs[3], plane(10, 10, [a1]))  # own stones this turn
    np.testing.assert_array_equal(obs[4], np.zeros((10, 10)))
    state.apply("b1")  # p0 to move at ply 3
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(10, 10, [e5]))
    np.testing.assert_array_equal(obs[1], plane(10, 10, [a1, b1]))
    np.testing.assert_array_equal(obs[2], plane(10, 10, [a1, b1]))
    np.testing.assert_array_equal(obs[3], np.zeros((10, 10)))
    np.testing.assert_array_equal(obs[4], np.ones((10, 10)))
    state.apply("f5")  # p0's second stone of the turn is next
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(10, 10, [e5, f5]))
    np.testing.assert_array_equal(obs[2], plane(10, 10, [a1, b1]))
    np.testing.assert_array_equal(obs[3], plane(10, 10, [f5]))
    np.testing.assert_array_equal(obs[4], np.ones((10, 10)))
    state.apply("j10")  # p1 to move: p0's last turn was f5 + j10 (not e5)
    obs = state.observation()
    np.testing.assert_array_equal(obs[2], plane(10, 10, [f5, (0, 9)]))
    np.testing.assert_array_equal(obs[3], np.zeros((10, 10)))
    np.testing.assert_array_equal(obs[4], np.zeros((10, 10)))


def test_connect6_observation_at_the_start():
    obs = GameSpec.parse("connect6:10").new_game().observation()
    assert not obs[:4].any()
    assert obs[4].all()


def test_hex_observation_is_transposed_when_player1_moves():
    spec = GameSpec.parse("hex:5")
    state = play(spec, ["b1"])  # p0 stone at (0, 1); p1 to move: shown transposed
    obs = state.observation()
    assert obs.shape == (4, 5, 5)
    np.testing.assert_array_equal(obs[0], np.zeros((5, 5)))
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(1, 0)]))
    np.testing.assert_array_equal(obs[2], plane(5, 5, [(1, 0)]))
    np.testing.assert_array_equal(obs[3], np.zeros((5, 5)))  # no swap rule
    state.apply("d3")  # p1 at (2, 3); p0 to move: shown as is
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(5, 5, [(0, 1)]))
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(2, 3)]))
    np.testing.assert_array_equal(obs[2], plane(5, 5, [(2, 3)]))
    state.apply("e5")  # p1 to move again: transposed
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(5, 5, [(3, 2)]))
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(1, 0), (4, 4)]))
    np.testing.assert_array_equal(obs[2], plane(5, 5, [(4, 4)]))


def test_hex_presented_frame_shows_player1_connecting_top_to_bottom():
    # p1 builds a left-right row a3..d3; in its presented frame that is a column.
    state = play("hex:5", interleave(["a1", "b1", "c1", "d1", "a5"], ["a3", "b3", "c3", "d3"]))
    assert state.current_player == 1
    own = state.observation()[0]
    np.testing.assert_array_equal(own, plane(5, 5, [(0, 2), (1, 2), (2, 2), (3, 2)]))
    assert state.presented_action(state.spec.parse_action("e3")) == 4 * 5 + 2


def test_hex_presented_action():
    spec = GameSpec.parse("hex:5:swap")
    state = spec.new_game()
    for a in range(spec.num_actions):
        assert state.presented_action(a) == a  # p0 to move: identity
    state.apply("b1")
    for a in range(spec.cells):
        r, c = divmod(a, 5)
        assert state.presented_action(a) == c * 5 + r
    assert state.presented_action(25) == 25  # swap stays swap
    gomoku = play("gomoku:9", ["e5"])
    assert all(gomoku.presented_action(a) == a for a in range(81))


def test_hex_swap_plane():
    spec = GameSpec.parse("hex:5:swap")
    state = spec.new_game()
    assert not state.observation()[3].any()  # ply 0: swap not available
    state.apply("b1")
    obs = state.observation()
    assert obs[3].all()  # swap available now
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(1, 0)]))  # transposed frame
    state.apply("swap")  # p1 owns (1, 0) = a2; p0 to move, untransposed
    obs = state.observation()
    assert not obs[3].any()
    np.testing.assert_array_equal(obs[0], np.zeros((5, 5)))
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(1, 0)]))
    np.testing.assert_array_equal(obs[2], plane(5, 5, [(1, 0)]))
    state.apply("e5")  # p1 to move: transposed, its own stone (1, 0) shows at (0, 1)
    obs = state.observation()
    np.testing.assert_array_equal(obs[0], plane(5, 5, [(0, 1)]))
    np.testing.assert_array_equal(obs[1], plane(5, 5, [(4, 4)]))
    np.testing.assert_array_equal(obs[2], plane(5, 5, [(4, 4)]))
    assert not obs[3].any()


# ---- threat guidance -------------------------------------------------------------------------


def test_gomoku_immediate_win_restricts_to_the_winning_cells():
    spec = GameSpec.parse("gomoku:9")
    # black has an open four e5..h5; white has a four a1..a4 too, but black wins first.
    state = play(spec, interleave(["e5", "f5", "g5", "h5"], ["a1", "a2", "a3", "a4"]))
    assert state.current_player == 0
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["d5", "i5"]))


def test_gomoku_forced_block_restricts_to_the_blocking_cell():
    spec = GameSpec.parse("gomoku:9")
    # white a1..a4 reaches five only at a5; black has nothing.
    state = play(spec, interleave(["c9", "e7", "g9", "i7"], ["a1", "a2", "a3", "a4"]))
    assert state.current_player == 0
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["a5"]))
    # blocking leaves white without a win; then guidance gives every legal move again
    state.apply("a5")
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())


def test_gomoku_no_threat_keeps_every_legal_move():
    state = play("gomoku:9", ["e5", "e6", "d5"])
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())
    assert state.candidate_mask().sum() == 78


def test_gomoku_exact_rules_guidance_skips_overline_cells():
    black = ["c5", "d5", "e5", "f5", "h5"]  # b5 makes five; g5 makes six
    white = ["a1", "c1", "e1", "g1", "i1"]
    free = play("gomoku:9x9:k5:freestyle", interleave(black, white))
    exact = play("gomoku:9x9:k5:exact", interleave(black, white))
    np.testing.assert_array_equal(free.candidate_mask(), mask_of(free.spec, ["b5", "g5"]))
    np.testing.assert_array_equal(exact.candidate_mask(), mask_of(exact.spec, ["b5"]))


def test_gomoku_guidance_for_an_open_four():
    spec = GameSpec.parse("gomoku:9")
    # white to move with its own open four e3..e6: both ends win
    state = play(spec, interleave(["a9", "c9", "e9", "g9", "i9"], ["e3", "e4", "e5", "e6"]))
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["e2", "e7"]))
    # black to move against it: both ends are the (hopeless) blocks
    state = play(spec, interleave(["a9", "c9", "e9", "g9", "i1"], ["e3", "e4", "e5", "e6", "a1"]))
    assert state.current_player == 0
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["e2", "e7"]))


def test_connect6_guidance_over_the_two_stone_turn():
    spec = GameSpec.parse("connect6:10")
    black = ["c5", "d5", "f5", "g5", "j10"]  # four in the windows b5..g5 and c5..h5
    white = ["a1", "c1", "e1", "g1"]
    state = play(spec, c6_order(black, white))
    assert state.ply == 9
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["b5", "e5", "h5"]))
    state.apply("e5")  # blocks both windows; white's second stone is free again
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())


def test_connect6_guidance_after_a_partial_block():
    spec = GameSpec.parse("connect6:10")
    black = ["c5", "d5", "e5", "f5", "j10"]  # windows a5..f5, b5..g5, c5..h5
    white = ["a1", "c1", "e1", "g1"]
    state = play(spec, c6_order(black, white))
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["a5", "b5", "g5", "h5"]))
    state.apply("g5")  # one stone left this turn: only window a5..f5 remains open
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["a5", "b5"]))
    state.apply("b5")
    assert state.current_player == 0
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())


def test_connect6_guidance_own_win_in_two_then_one():
    spec = GameSpec.parse("connect6:10")
    black = ["j10", "j8", "j6", "h10", "h6"]
    white = ["a1", "a2", "a3", "a4"]
    state = play(spec, c6_order(black, white))
    assert state.ply == 9
    assert state.current_player == 1
    # two stones left: a1..a6 has four whites and two empties
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["a5", "a6"]))
    state.apply("a5")
    assert_ongoing(state)
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["a6"]))
    state.apply("a6")
    assert_finished(state, 1)
    assert not state.candidate_mask().any()


def test_connect6_guidance_ignores_three_in_a_window():
    spec = GameSpec.parse("connect6:10")
    state = play(spec, c6_order(["c5", "d5", "e5"], ["a1", "c1"]))
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())


def test_connect6_guidance_ignores_windows_already_blocked():
    spec = GameSpec.parse("connect6:10")
    black = ["c5", "d5", "e5", "f5", "j10"]
    white = ["b5", "g5", "a1", "c1"]
    state = play(spec, c6_order(black, white))
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())


def test_hex_single_cell_connection_threat():
    spec = GameSpec.parse("hex:5:swap")
    # p0's c1..c4 reaches the bottom only via b5 or c5; p1 holds b5.
    state = play(spec, ["c1", "b5", "c2", "e1", "c3", "e2", "c4"])
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["c5"]))  # forced block
    state.apply("e3")  # ignore it
    assert state.current_player == 0
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["c5"]))  # immediate win
    state.apply("c5")
    assert_finished(state, 0)


def test_hex_threat_through_an_edge_and_two_cells():
    spec = GameSpec.parse("hex:5")
    # p0 c1..c4 with neither b5 nor c5 blocked: both cells win.
    state = play(spec, ["c1", "e1", "c2", "e2", "c3", "e3", "c4"])
    assert state.current_player == 1
    np.testing.assert_array_equal(state.candidate_mask(), mask_of(spec, ["b5", "c5"]))


def test_hex_guidance_keeps_swap_when_there_is_no_threat():
    spec = GameSpec.parse("hex:5:swap")
    state = play(spec, ["c3"])
    np.testing.assert_array_equal(state.candidate_mask(), state.legal_mask())
    assert state.candidate_mask()[25]


def test_guidance_is_empty_after_the_end():
    for text, moves in [("gomoku:3x3:k3", ["a1", "a2", "b1", "b2", "c1"]), ("hex:2", ["b1", "b2", "a2"])]:
        state = play(text, moves)
        assert not state.candidate_mask().any()


def test_presented_order_matches_presented_action():
    for text, moves in (("hex:5", ["c1"]), ("hex:4:swap", ["b1"]), ("gomoku:5x7:k4", ["a1"]), ("connect6:6", [])):
        state = GameSpec.parse(text).new_game()
        for m in moves:
            state.apply(m)
        perm = state.presented_order()
        assert perm.tolist() == [state.presented_action(a) for a in range(state.spec.num_actions)]


def test_a_game_replays_from_actions_or_names():
    spec = GameSpec.parse("gomoku:9")
    by_name = spec.replay(["e5", "d4", "f6"])
    by_action = spec.replay(np.array(by_name.history))  # numpy integers too, as the tools hold them
    assert by_action.history == by_name.history and np.array_equal(by_action.array, by_name.array)
    assert by_name.current_player == 1 and spec.replay([]).ply == 0
    with pytest.raises(IllegalMoveError, match="e5"):
        spec.replay(["e5", "e5"])
