"""The classical alpha-beta player: the tactics every classical engine has, under
freestyle and exact rules and in Connect6, and its place among the players (renju:
`test_classical_renju.py`)."""

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mark_windows
from pipeline.match.arena import play_match
from pipeline.players.classical import ClassicalPlayer
from pipeline.players.factory import make_player
from tests.unit.test_search import position

pytestmark = pytest.mark.unit


def move_of(state: GameState, depth: int, seed: int = 0) -> str:
    player = ClassicalPlayer(depth)
    player.start(state.spec, 1, seed)
    return state.spec.action_name(player.choose([0], [state])[0])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_takes_an_immediate_five(depth: int) -> None:
    state = position("gomoku:9", ["e5", "a1", "f5", "a2", "g5", "a3", "h5", "b9"])
    assert move_of(state, depth) in {"d5", "i5"}


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_blocks_a_four_at_its_only_cell(depth: int) -> None:
    # Black d5 is white: e5-h5 is closed there, so i5 is the only block.
    state = position("gomoku:9", ["e5", "d5", "f5", "a2", "g5", "a3", "h5"])
    assert move_of(state, depth) == "i5"


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_blocks_an_open_three_before_it_becomes_an_open_four(depth: int) -> None:
    # Black f8-h8 with two free cells on each side: unanswered, e8 or i8 makes an open
    # four. Only a stone next to the three stops it (d8 or j8 leaves a four that is open).
    state = position("gomoku:15", ["f8", "a1", "g8", "o1", "h8"])
    assert move_of(state, depth) in {"e8", "i8"}


# White has b5-e5 and g5 (black a5): f5 makes six. Black's turn; black also has c7-e7.
OVERLINE_THREAT = ["a5", "b5", "c7", "c5", "d7", "d5", "i1", "e5", "e7", "g5"]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_exact_five_no_block_where_the_opponent_would_make_only_six(depth: int) -> None:
    state = position("gomoku:9:exact", OVERLINE_THREAT)
    assert move_of(state, depth) in {"b7", "f7"}  # the open four, not f5


@pytest.mark.parametrize("depth", [1, 3])
def test_freestyle_the_same_six_must_be_blocked(depth: int) -> None:
    state = position("gomoku:9", OVERLINE_THREAT)
    assert move_of(state, depth) == "f5"


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_exact_five_no_move_into_an_overline(depth: int) -> None:
    # Black b5-e5 and g5 (white a5): f5 makes six, no win. White's b2-e2 (black a2) wins
    # at f2, so black must block there.
    moves = ["b5", "a5", "c5", "b2", "d5", "c2", "e5", "d2", "g5", "e2", "a2", "i9"]
    state = position("gomoku:9:exact", moves)
    assert move_of(state, depth) == "f2"


def test_exact_five_takes_the_exact_five() -> None:
    # f5 would make six (b5-g5); a5 makes exactly five.
    state = position("gomoku:9:exact", ["b5", "a1", "c5", "a2", "d5", "a3", "e5", "a9", "g5", "i9"])
    assert move_of(state, 2) == "a5"


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_connect6_completes_six_with_its_two_stones(depth: int) -> None:
    # Black e5-h5 and two stones to place; white's stones are scattered.
    state = position("connect6:10", ["e5", "a1", "c1", "f5", "g5", "j1", "j3", "h5", "a10", "h1", "j7"])
    player = ClassicalPlayer(depth)
    player.start(state.spec, 1, 0)
    for _ in range(2):
        state.apply(player.choose([0], [state])[0])
    assert state.winner == 0


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_connect6_blocks_a_window_of_four(depth: int) -> None:
    # White d5-g5; black places two stones and must leave no window of four white ones.
    state = position("connect6:10", ["j10", "d5", "e5", "a10", "a9", "f5", "g5"])
    player = ClassicalPlayer(depth)
    player.start(state.spec, 1, 0)
    for _ in range(2):
        state.apply(player.choose([0], [state])[0])
    marks = np.zeros(state.spec.cells, dtype=np.bool_)
    assert mark_windows(state.array, 1, 4, marks) == 0


def test_think_reports_one_move() -> None:
    state = position("gomoku:9", ["e5", "d5", "f5", "a2", "g5", "a3", "h5"])
    thought = ClassicalPlayer(3).think(state)
    assert thought.action == state.spec.parse_action("i5")
    assert thought.visits.sum() == 1 and thought.visits[thought.action] == 1
    assert -1.0 <= thought.value <= 1.0 and thought.simulations > 0


def test_same_seed_same_game_other_seed_other_game() -> None:
    spec = GameSpec.parse("gomoku:9")

    def game(seed: int) -> list[int]:
        a, b = make_player("classical:1", spec), make_player("classical:2", spec)
        a.start(spec, 1, seed)
        b.start(spec, 1, seed + 1)
        state = spec.new_game()
        while not state.is_terminal and state.ply < 12:
            who = a if state.current_player == 0 else b
            state.apply(who.choose([0], [state])[0])
        return state.history

    assert game(3) == game(3)
    assert len({tuple(game(s)) for s in range(4)}) > 1


def test_plays_a_full_game_against_pure_mcts() -> None:
    spec = GameSpec.parse("gomoku:9")
    player = make_player("classical:2", spec)
    assert player.name == "classical:2"
    result = play_match(spec, player, make_player("pure:50", spec), games=2, seed=1)
    assert result.games == 2 and result.wins + result.losses + result.draws == 2


def test_refuses_hex_and_bad_depths() -> None:
    with pytest.raises(ValueError, match="classical players play the k-in-a-row games: gomoku, connect6"):
        make_player("classical:3", GameSpec.parse("hex:5"))
    for text in ("classical:0", "classical:13", "classical:x", "classical:", "classical:-1"):
        with pytest.raises(ValueError, match="depth"):
            make_player(text, GameSpec.parse("gomoku:9"))
