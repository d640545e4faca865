"""Hex moves between our swap rule and HTP's `swap-pieces` (board unchanged, colours
exchanged, white to move), by hand-checked positions."""

import pytest

from pipeline.games.base import GameSpec
from pipeline.games.htp_frame import from_htp, htp_board, htp_colour_to_move, swapped, to_htp

pytestmark = pytest.mark.unit

SPEC = GameSpec(game="hex", size=4, swap=True)


def test_before_the_swap_the_frames_agree():
    state = SPEC.new_game()
    assert to_htp(SPEC, state.history, 0, SPEC.parse_action("b1")) == (0, "b1")
    assert from_htp(SPEC, state.history, 0, "b1") == (0, SPEC.parse_action("b1"))
    state.apply("b1").apply("c3")
    assert not swapped(SPEC, state.history)
    assert htp_colour_to_move(state) == 0
    assert to_htp(SPEC, state.history, 0, SPEC.parse_action("a4")) == (0, "a4")


def test_after_the_swap_moves_are_mirrored_and_change_colour():
    state = SPEC.new_game().apply("b1")  # black at column b, row 1: (r=0, c=1)
    assert to_htp(SPEC, state.history, 1, SPEC.cells) == (1, "swap-pieces")
    assert from_htp(SPEC, state.history, 1, "swap-pieces") == (1, SPEC.cells)
    state.apply("swap")
    # Ours: white's stone on the mirrored cell a2 (r=1, c=0), black to move.
    assert state.board()[1, 0] == 2 and state.current_player == 0
    # HTP: black's stone still on b1, white to move.
    assert htp_board(state)[0][1] == 1 and sum(v != 0 for row in htp_board(state) for v in row) == 1
    assert htp_colour_to_move(state) == 1
    # Our black (the first mover) playing c3 (r=2, c=2: on the diagonal) is HTP's white at c3;
    # our black at d2 (r=1, c=3) is HTP's white at b4 (r=3, c=1).
    assert to_htp(SPEC, state.history, 0, SPEC.parse_action("c3")) == (1, "c3")
    assert to_htp(SPEC, state.history, 0, SPEC.parse_action("d2")) == (1, "b4")
    assert from_htp(SPEC, state.history, 1, "b4") == (0, SPEC.parse_action("d2"))
    state.apply("d2")
    assert htp_board(state)[3][1] == 2  # HTP's white stone on b4
    assert to_htp(SPEC, state.history, 1, SPEC.parse_action("a3")) == (0, "c1")


def test_every_move_round_trips():
    state = SPEC.new_game().apply("c2").apply("swap").apply("a1")
    for player in (0, 1):
        for action in range(SPEC.cells):
            colour, name = to_htp(SPEC, state.history, player, action)
            assert from_htp(SPEC, state.history, colour, name) == (player, action)


def test_sgf_records_hex_as_hexgui_writes_it_after_the_swap():
    from pipeline.games.records import from_sgf, to_sgf

    state = SPEC.new_game().apply("b1").apply("swap").apply("d2")
    text = to_sgf(state)
    # HexGui's record: black b1, white swap-pieces, then our black's d2 is white's b4.
    assert ";B[b1];W[swap-pieces];W[b4]" in text
    back = from_sgf(text)
    assert back.history == state.history
