"""The solver's immediate-win finder (two sweeps over the board) agrees with the line
check from every empty cell, on every rule and on boards up to 20x20."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.games.gomoku import makes_line, winning_cells
from pipeline.games.layout import BOARD

pytestmark = pytest.mark.unit


def reference(s: np.ndarray, spec: GameSpec, player: int) -> np.ndarray:
    board = s[BOARD : BOARD + spec.cells]
    return np.array([board[c] == 0 and makes_line(s, c, player + 1) for c in range(spec.cells)])


@pytest.mark.parametrize(
    "board", ["gomoku:5x5:k4", "gomoku:7x12:k3:exact", "gomoku:15x15:k5:exact", "gomoku:20", "connect6:19"]
)
def test_winning_cells_match_the_line_check_from_every_cell(board):
    spec = GameSpec.parse(board)
    rng = np.random.default_rng(0)
    for fill in (0.0, 0.1, 0.3, 0.6):
        for _ in range(20):
            state = spec.new_game()
            for _ in range(int(spec.cells * fill)):
                state.apply(int(rng.choice(state.legal_actions())))
                if state.is_terminal:
                    break
            for player in (0, 1):
                out = np.zeros(spec.cells, dtype=np.bool_)
                found = winning_cells(state.array, player, out)
                expected = reference(state.array, spec, player)
                np.testing.assert_array_equal(out, expected)
                assert found == expected.sum()
