"""What front ends show of a position, asked of the game layer instead of branching on the
game's name: geometry and labels, the turn note, the last turn, the line that won, SGF
points. Every expected value here was worked out by hand on the position drawn."""

import pytest

from pipeline.games.base import GameSpec, IllegalMoveError
from pipeline.games.presentation import sgf_action, sgf_point
from pipeline.serve.terminal import describe

pytestmark = pytest.mark.unit


def play(spec: str, *moves: str):
    state = GameSpec.parse(spec).new_game()
    for m in moves:
        state.apply(m)
    return state


def test_geometry_and_labels():
    gomoku, hex5 = GameSpec.parse("gomoku:9"), GameSpec.parse("hex:5")
    assert (gomoku.geometry, hex5.geometry, GameSpec.parse("connect6:10").geometry) == ("grid", "hex", "grid")
    # Gomoku counts rows from the bottom (a9 is the top-left), Hex from the top (a1).
    assert [gomoku.row_label(r) for r in (0, 8)] == [9, 1]
    assert [hex5.row_label(r) for r in (0, 4)] == [1, 5]
    assert [gomoku.column_label(c) for c in (0, 8)] == ["a", "i"]
    assert GameSpec.parse("gomoku:3:k3").cell_names() == ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
    assert GameSpec.parse("hex:2").cell_names() == ["a1", "b1", "a2", "b2"]


def test_for_board_keeps_only_the_options_the_game_takes():
    assert str(GameSpec.for_board("gomoku", 7, k=4, rules="exact", swap=True)) == "gomoku:7x7:k4:exact"
    assert str(GameSpec.for_board("connect6", 10, k=4, rules="exact", swap=True)) == "connect6:10x10"
    assert str(GameSpec.for_board("hex", 5, k=9, rules="exact", swap=True)) == "hex:5x5:swap"
    with pytest.raises(ValueError, match="2..19"):
        GameSpec.for_board("hex", 20)


def test_what_each_game_is_like():
    gomoku, c6, hex5 = GameSpec.parse("gomoku:9"), GameSpec.parse("connect6:10"), GameSpec.parse("hex:5:swap")
    assert (gomoku.has_swap_rule, c6.has_swap_rule, hex5.has_swap_rule) == (False, False, True)
    assert (gomoku.wins_by_line, c6.wins_by_line, hex5.wins_by_line) == (True, True, False)
    assert (gomoku.record_formats, c6.record_formats, hex5.record_formats) == (("sgf", "psq"), ("sgf",), ("sgf",))
    assert [s.rules_label for s in (gomoku, GameSpec.parse("gomoku:7:k4:exact"), c6, hex5)] == [
        "k5-freestyle",
        "k4-exact",
        "six",
        "swap",
    ]
    assert GameSpec.parse("hex:5").rules_label == "no-swap"
    # Hex's player 1 sees the board transposed: c2 (row 1, column 2 = action 7) is b3 (11).
    assert hex5.presented_action(7, 1) == 11 and hex5.presented_action(7, 0) == 7
    assert hex5.presented_action(25, 1) == 25  # the swap is no cell
    assert gomoku.presented_action(7, 1) == 7


def test_connect6_stones_left_and_the_turn_note():
    # Black opens with one stone, then each side places two.
    expected = [1, 2, 1, 2, 1]
    state = GameSpec.parse("connect6:10").new_game()
    for n, move in zip(expected, ["e5", "a1", "a2", "f5", "g5"], strict=True):
        assert state.stones_left_in_turn == n
        assert state.turn_note() == f"{n} stone{'s' if n > 1 else ''} left in this turn"
        state.apply(move)
    assert play("gomoku:9", "e5").stones_left_in_turn == 1 and play("hex:5", "c3").stones_left_in_turn == 1


def test_turn_notes_of_hex_and_gomoku():
    assert play("hex:5").turn_note() == "connects top and bottom"
    assert play("hex:5", "c3").turn_note() == "connects left and right"
    assert play("gomoku:9").turn_note() == "" and play("gomoku:9", "e5").turn_note() == ""
    assert GameSpec.parse("hex:5").side_goal(1) == "connects left and right"
    assert describe(play("gomoku:9")) == "Black (●) to move."
    assert describe(play("connect6:10", "e5")) == "White (○) to move, 2 stones left in this turn."
    assert describe(play("hex:5", "c3")) == "White (○) to move, connects left and right."


def test_last_turn_cells():
    assert play("gomoku:9").last_turn_cells() == []
    # 9x9: a9 is action 0, e5 is row 4 column 4 = 40, a1 is 72.
    assert play("gomoku:9", "e5", "a1").last_turn_cells() == [72]
    assert play("connect6:10").last_turn_cells() == []
    # 10x10: e5 = row 5 column 4 = 54; a1 = 90, a2 = 80.
    assert play("connect6:10", "e5").last_turn_cells() == [54]
    assert sorted(play("connect6:10", "e5", "a1", "a2").last_turn_cells()) == [80, 90]
    # Mid-turn (white has placed a1 of two): the last whole turn was black's e5.
    assert play("connect6:10", "e5", "a1").last_turn_cells() == [54]
    assert play("hex:5", "c3").last_turn_cells() == [12]


def test_swap_available():
    assert not play("hex:5:swap").swap_available
    assert play("hex:5:swap", "c3").swap_available
    assert not play("hex:5:swap", "c3", "swap").swap_available
    assert not play("hex:5", "c3").swap_available and not play("gomoku:9", "e5").swap_available


def test_winning_line_of_gomoku_and_connect6():
    assert play("gomoku:7:k4", "a1", "a7", "b1", "b7", "c1", "c7").winning_line() == []  # nobody has won
    # Black: a1 b1 c1 d1 on a 7x7 board (row 6: actions 42..45).
    assert play("gomoku:7:k4", "a1", "a7", "b1", "b7", "c1", "c7", "d1").winning_line() == [42, 43, 44, 45]
    # Freestyle: d1 joins a1-c1 and e1-f1 into six, and all six won.
    state = play("gomoku:7:k4", "a1", "a7", "b1", "b7", "c1", "c7", "e1", "g7", "f1", "a5", "d1")
    assert state.winner == 0 and state.winning_line() == [42, 43, 44, 45, 46, 47]
    # A diagonal: a1 b2 c3 d4 (actions 42, 36, 30, 24).
    state = play("gomoku:7:k4", "a1", "g7", "b2", "g6", "c3", "g5", "d4")
    assert state.winning_line() == [24, 30, 36, 42]
    # Connect6 on 10x10: black's a5..f5 (row 5: actions 50..55), two stones a turn.
    moves = ["a5", "a1", "a2", "b5", "c5", "b1", "b2", "d5", "e5", "c1", "c2", "f5"]
    assert play("connect6:10", *moves).winning_line() == [50, 51, 52, 53, 54, 55]


def test_winning_line_of_hex_is_the_chain():
    # Black connects top to bottom down column a of a 3x3 board: a1 a2 a3 = 0, 3, 6.
    state = play("hex:3", "a1", "c1", "a2", "c2", "a3")
    assert state.winner == 0 and state.winning_line() == [0, 3, 6]
    # White connects left to right along a zigzag: a2 b2 c1 (3, 4, 2); black's bottom row touches no top.
    state = play("hex:3", "c3", "a2", "b3", "b2", "a3", "c1")
    assert state.winner == 1 and state.winning_line() == [2, 3, 4]


def test_sgf_points():
    gomoku, hex5 = GameSpec.parse("gomoku:9"), GameSpec.parse("hex:5:swap")
    # SGF letters: column then row, from the top-left; e5 on 9x9 is column e, row e from the top.
    assert sgf_point(gomoku, 0) == "aa" and sgf_point(gomoku, 40) == "ee" and sgf_point(gomoku, 10) == "bb"
    assert sgf_point(GameSpec.parse("gomoku:20"), 399) == "tt"
    assert [sgf_action(gomoku, p) for p in ("aa", "ee", "ib")] == [0, 40, 17]
    assert sgf_point(hex5, 12) == "c3" and sgf_point(hex5, 25) == "swap-pieces"
    assert [sgf_action(hex5, p) for p in ("c3", "swap-pieces", "swap")] == [12, 25, 25]
    for bad in ("a", "a1", "ka", "zz"):
        with pytest.raises(IllegalMoveError):
            sgf_action(gomoku, bad)
