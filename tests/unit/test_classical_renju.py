"""The classical alpha-beta player under renju: black never plays a forbidden cell, even
where it would be the best move under the other rules; black's overline is no win (nor a
threat white must stop), white's is; a white four whose block is forbidden to black is a
win for white; and depth 2 beats depth 1 over a short match in which black had forbidden
cells to avoid."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.games.base import GameSpec, GameState, IllegalMoveError
from pipeline.games.layout import BOARD, PLY, STONES, TO_MOVE
from pipeline.match.arena import play_match
from pipeline.match.evaluation import Evaluation
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players.base import Thought
from pipeline.players.classical import ClassicalPlayer
from pipeline.players.factory import make_player
from pipeline.search.alphabeta import MATE, WIN, AlphaBeta

pytestmark = pytest.mark.unit

RENJU = GameSpec.parse("gomoku:renju")


def position(text: str, black: list[str], white: list[str]) -> GameState:
    """The stones set directly (the mover is the side the stone counts say: black on an
    even count), so that positions need no legal move order."""
    spec = GameSpec.parse(text)
    state = spec.new_game()
    for colour, cells in ((1, black), (2, white)):
        for m in cells:
            state.array[BOARD + spec.parse_action(m)] = colour
    n = len(black) + len(white)
    state.array[STONES] = state.array[PLY] = n
    state.array[TO_MOVE] = n % 2
    return state


def move_of(state: GameState, depth: int, seed: int = 0) -> str:
    player = ClassicalPlayer(depth)
    player.start(state.spec, 1, seed)
    return state.spec.action_name(player.choose([0], [state])[0])


CORNERS = ["a1", "o1", "a15", "o15"]


@pytest.mark.parametrize("rules", ["freestyle", "exact", "renju"])
def test_black_never_takes_the_double_three_that_wins_elsewhere(rules: str) -> None:
    # Black f8 g8 and h6 h7: h8 makes two open threes, the winning move of the other
    # rules (every depth plays it there), forbidden to black under renju.
    state = position(f"gomoku:15:{rules}", ["f8", "g8", "h6", "h7"], CORNERS)
    moves = {move_of(state, depth) for depth in (1, 2, 3, 4)}
    if rules == "renju":
        assert state.forbidden_reason("h8") == "double three"
        with pytest.raises(IllegalMoveError):
            state.copy().apply("h8")
        assert "h8" not in moves
        for move in moves:
            state.copy().apply(move)  # legal
    else:
        assert moves == {"h8"}


@pytest.mark.parametrize("rules", ["freestyle", "renju"])
def test_black_s_overline_is_no_win_and_never_played(rules: str) -> None:
    # Black b5-e5 and g5 (white a5): f5 makes six, a win under freestyle only.
    state = position(f"gomoku:15:{rules}", ["b5", "c5", "d5", "e5", "g5"], ["a5", *CORNERS])
    result = AlphaBeta(0).search(state, 3)
    if rules == "freestyle":
        assert state.spec.action_name(result.action) == "f5" and result.value > MATE
        return
    assert state.forbidden_reason("f5") == "overline"
    f5 = state.spec.parse_action("f5")
    assert f5 not in result.values and result.value < MATE
    assert {move_of(state, depth) for depth in (1, 2, 3, 4)}.isdisjoint({"f5"})


# Black's b5-e5 and g5 against white's a5 and three c7-e7 (9x9). White to move.
SIX_OF_BLACK = (["b5", "c5", "d5", "e5", "g5"], ["a5", "c7", "d7", "e7"])


@pytest.mark.parametrize(("rules", "expected"), [("freestyle", {"f5"}), ("renju", {"b7", "f7"})])
def test_white_need_not_stop_black_s_six(rules: str, expected: set[str]) -> None:
    """Under freestyle black's f5 wins and white must block it; under renju f5 is an
    overline, forbidden to black: white makes its open four instead."""
    state = position(f"gomoku:9:{rules}", *SIX_OF_BLACK)
    assert state.current_player == 1
    for depth in (1, 2, 3):
        assert move_of(state, depth) in expected


def test_white_s_six_wins_and_black_must_stop_it() -> None:
    black, white = SIX_OF_BLACK
    # The colours swapped: white's b5-e5 and g5, and f5 makes white's six, a win for white.
    state = position("gomoku:9:renju", [*white, "i1", "i9"], black)
    assert state.current_player == 1
    result = AlphaBeta(0).search(state, 1)
    assert state.spec.action_name(result.action) == "f5" and result.value == WIN
    state.apply("f5")
    assert state.winner == 1
    # Black to move must block it there (under exact five it need not: six is no win).
    state = position("gomoku:9:renju", [*white, "i1"], black)
    assert {move_of(state, depth) for depth in (1, 2, 3)} == {"f5"}
    exact = position("gomoku:9:exact", [*white, "i1"], black)
    assert move_of(exact, 2) != "f5"


# White's diagonal f10 g9 h8 (black's d12 closes it above); white's e11 makes a four
# whose only completing cell i7 is a double three for black (g7 h7 and i9 i8): black
# cannot block it. The TRAP of test_renju.py (the tactics find the same win).
TRAP_BLACK = ["d12", "i9", "i8", "g7", "h7", "j6"]
TRAP_WHITE = ["f10", "g9", "h8"]


def test_white_wins_through_black_s_forbidden_block() -> None:
    state = position("gomoku:15:renju", TRAP_BLACK, TRAP_WHITE)
    assert state.current_player == 1
    for depth in (1, 3):
        result = AlphaBeta(0).search(state, depth)
        assert state.spec.action_name(result.action) == "e11" and result.value > MATE
    state.apply("e11")
    assert state.forbidden_reason("i7") == "double three"
    result = AlphaBeta(0).search(state, 2)
    assert result.value < -MATE and state.spec.action_name(result.action) != "i7"
    state.apply(result.action)  # black's move is legal, and the game goes on
    # Under exact five the same four is simply blocked at i7.
    exact = position("gomoku:15:exact", TRAP_BLACK, TRAP_WHITE)
    assert AlphaBeta(0).search(exact, 3).value < MATE
    exact.apply("e11")
    assert move_of(exact, 2) == "i7"


class Watched:
    """A classical player that records, at each of black's turns, whether black had
    forbidden cells and whether the move chosen is one of them."""

    def __init__(self, player: ClassicalPlayer):
        self.player = player
        self.name = player.name
        self.turns_with_forbidden = 0
        self.forbidden_played = 0

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.player.start(spec, games, seed)

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        moves = self.player.choose(games, states)
        for state, move in zip(states, moves, strict=True):
            if state.current_player == 0 and (cells := state.forbidden_cells()):
                self.turns_with_forbidden += 1
                self.forbidden_played += move in cells
        return moves

    def observe(self, game: int, state: GameState, action: int) -> None:
        self.player.observe(game, state, action)

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        return self.player.think(state, budget, seconds, game)


def test_depth_two_beats_depth_one_under_renju_without_a_forbidden_move() -> None:
    deep = Watched(make_player("classical:2", RENJU))
    shallow = Watched(make_player("classical:1", RENJU))
    result = play_match(RENJU, deep, shallow, games=4, seed=0, opening_plies=2)
    assert result.games == 4 and result.wins > result.losses
    assert deep.turns_with_forbidden + shallow.turns_with_forbidden > 0  # the filter had work
    assert deep.forbidden_played == shallow.forbidden_played == 0


def test_a_renju_model_is_evaluated_against_the_classical_player(tmp_path: Path) -> None:
    """`zero evaluate --vs classical:N` on a renju checkpoint (it was refused before)."""
    spec = GameSpec.parse("gomoku:9:renju")
    model = save_checkpoint(tmp_path / "renju.pt", PolicyValueNet(spec, NetSpec(blocks=0, channels=8, value_hidden=8)))
    evaluation = Evaluation.setup(model, "classical:1", simulations=4)
    result = evaluation.play(games=2, seed=0, opening_plies=1)
    assert result.games == 2 and evaluation.as_dict()["game"] == "gomoku:9x9:k5:renju"
