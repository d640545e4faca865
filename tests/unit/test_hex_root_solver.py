"""The Hex root solver (SearchConfig.hex_root_solver_nodes, pipeline.search.hex_root_solver):
a proven win is played, a proven loss keeps the search's move, off changes nothing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.hex import apply_hex
from pipeline.games.layout import BOARD, TO_MOVE, WINNER
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.hex_root_solver import HexRootSolver, table_bits
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.solve import keeps_win, loses
from tests.unit.test_hex_tactics import plain_value, position, random_position

pytestmark = pytest.mark.unit
PER_EXPANSION = "inferior+connect+mustplay+bridge"


def searched(
    spec: GameSpec, s: np.ndarray, nodes: int, simulations: int = 16, empty_cells: int | None = None
) -> tuple[BatchedMCTS, np.ndarray]:
    # Without the root's H-search (a piece of `all`, tested in test_hex_root_hsearch.py), which
    # proves these wins itself: the baseline of these tests is the tree's per-expansion pieces.
    config = SearchConfig(
        simulations=simulations,
        hex_root_solver_nodes=nodes,
        hex_root_solver_empty_cells=empty_cells,
        hex_tactics=PER_EXPANSION,
    )
    search = BatchedMCTS(spec, 1, config, seed=5)
    search.reset(0, s.copy())
    visits = search.search(UniformEvaluator(spec.num_actions), noise=False)
    return search, visits[0]


def wins(s: np.ndarray, action: int) -> bool:
    child = s.copy()
    apply_hex(child, action)
    return child[WINNER] == s[TO_MOVE] or plain_value(child) == hs.LOSS


# A 5x5 position (found by exhaustive search over random ones): black (to move) wins with
# c3 only, so 16 uniform simulations seldom find it; after c3 white (to move) is lost.
BLACK = ["d3", "e3", "a1"]
WHITE = ["d5", "a2", "b2"]


def hand_made(spec: GameSpec, extra_black: list[str], to_move: int) -> np.ndarray:
    black = [spec.parse_action(x) for x in BLACK + extra_black]
    return position(5, black, [spec.parse_action(x) for x in WHITE], to_move)


def test_hand_made_positions_are_what_the_tests_need():
    spec = GameSpec.parse("hex:5")
    s = hand_made(spec, [], 0)
    assert plain_value(s) == hs.WIN
    assert [a for a in range(25) if s[BOARD + a] == 0 and wins(s, a)] == [spec.parse_action("c3")]
    assert plain_value(hand_made(spec, ["c3"], 1)) == hs.LOSS


def test_a_proven_win_is_played_and_gets_every_visit():
    spec = GameSpec.parse("hex:5")
    s = hand_made(spec, [], 0)
    search, visits = searched(spec, s, nodes=100_000)
    move = search.best_action(0)
    assert wins(s, move)
    assert search.tree.proven_win(0, move)
    assert visits[move] == visits.sum() > 0
    assert np.count_nonzero(visits) == 1
    # Without the solver the search spreads its visits: the test can fail.
    _, plain = searched(spec, s, nodes=0)
    assert np.count_nonzero(plain) > 1


def test_the_solver_waits_for_the_empty_cells_it_is_given():
    spec = GameSpec.parse("hex:5")
    s = hand_made(spec, [], 0)  # 19 empty cells, black wins with c3 only
    for empty_cells, solved in ((18, False), (19, True)):
        search, visits = searched(spec, s, nodes=100_000, empty_cells=empty_cells)
        assert (np.count_nonzero(visits) == 1) == solved
        assert search.tree.proven_win(0, spec.parse_action("c3")) == solved


def test_the_first_move_of_a_swap_game_is_not_solved():
    """Under the pie rule the first player has no win to prove (a won opening is swapped):
    the solver spends nothing on the empty board, where it once claimed the centre won."""
    for text, first_wins in (("hex:4:swap", False), ("hex:4", True)):
        spec = GameSpec.parse(text)
        solver = HexRootSolver(spec, 100_000)
        assert (solver.winning_move(spec.new_game().array, 0) is not None) == first_wins
        assert np.any(solver.tt[0]) == (not spec.swap)  # the table keys: a solve ran, or none


def test_a_proven_loss_keeps_the_search_move():
    spec = GameSpec.parse("hex:5")
    s = hand_made(spec, ["c3"], 1)
    assert plain_value(s) == hs.LOSS
    with_solver, v1 = searched(spec, s, nodes=100_000)
    without, v0 = searched(spec, s, nodes=0)
    assert (v1 == v0).all()
    assert with_solver.best_action(0) == without.best_action(0)


def test_a_refuted_search_move_is_dropped_and_the_next_checked():
    """The 8x8 sample's drop at [7, 19, 18, 26, 37, 29] (RESULTS.md, thirty-sixth session) in
    miniature: 7x7 [0, 3, 12, 30] is won for black, but not within 10 nodes, and the uniform
    search's move, 13, loses. Refuted within 20,000 nodes, it and the next five are marked
    lost (their visits dropped), and the search plays a win."""
    spec = GameSpec.parse("hex:7")
    s = spec.replay([0, 3, 12, 30]).array
    played = {}
    for refute in (0, 20_000):
        config = SearchConfig(
            simulations=16, hex_root_solver_nodes=10, hex_root_solver_refute_nodes=refute, hex_tactics=PER_EXPANSION
        )
        search = BatchedMCTS(spec, 1, config, seed=5)
        search.reset(0, s.copy())
        visits = search.search(UniformEvaluator(spec.num_actions), noise=False)[0]
        move = search.best_action(0)
        lost = [a for a in range(spec.cells) if search.tree.proven_loss(0, a)]
        played[refute] = move, lost
        assert all(loses(GameState(spec, s.copy()), a, 100_000) for a in lost)
        assert not visits[lost].any()
        assert not search.tree.proven_win(0, move)  # the root solver proved nothing
    assert played[0] == (13, [])
    assert loses(GameState(spec, s.copy()), 13, 100_000)
    move, lost = played[20_000]
    assert 13 in lost
    assert keeps_win(GameState(spec, s.copy()), move, 100_000)


def test_a_lost_position_refutes_nothing():
    """Every move of a lost position loses: the search's move is the best try, not refuted."""
    spec = GameSpec.parse("hex:5")
    s = hand_made(spec, ["c3"], 1)
    move = int(np.flatnonzero(s[BOARD : BOARD + spec.cells] == 0)[0])
    solver = HexRootSolver(spec, 100_000, refute_budget=100_000, log2_table=14)
    assert solver.winning_move(s, move) is None and solver.lost
    assert not solver.refuted(s, move)
    assert loses(GameState(spec, s.copy()), move, 100_000)  # it loses, but no refutation was tried


def test_the_refutation_budget_is_a_tenth_of_a_moves_by_default():
    spec = GameSpec.parse("hex:5")
    assert HexRootSolver(spec, 50_000, log2_table=10).refute_budget == 5_000
    assert HexRootSolver(spec, 50_000, refute_budget=0, log2_table=10).refute_budget == 0
    search = BatchedMCTS(spec, 1, SearchConfig(hex_root_solver_nodes=1_000, hex_root_solver_refute_nodes=7))
    assert search.root_solver(0).refute_budget == 7


def test_off_by_default():
    spec = GameSpec.parse("hex:5")
    assert SearchConfig().hex_root_solver_nodes == 0
    assert BatchedMCTS(spec, 1, SearchConfig()).root_solvers is None
    assert BatchedMCTS(GameSpec.parse("gomoku:7:k5"), 1, SearchConfig(hex_root_solver_nodes=10)).root_solvers is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_solver_moves_are_winning_moves(data):
    """On random 5x5 positions: a move is returned exactly when the mover wins, and it wins."""
    s = random_position(data, 5, 8)
    if s is None:
        return
    solver = HexRootSolver(GameSpec.parse("hex:5"), 200_000, log2_table=14)
    move = solver.winning_move(s, preferred=-1)
    if plain_value(s) == hs.WIN:
        assert move is not None and wins(s, move)
    else:
        assert move is None


def test_a_position_after_the_players_own_proven_win_gets_the_larger_budget():
    """The 7x7 sweep against the 11x11 champion: the book's winning move, a reply, and a win
    past the move's budget (RESULTS.md, twenty-ninth session). Here in miniature: 10 nodes a
    move, after the book's 12 at [0, 3] the reply 30 needs more; the won budget finds it."""
    spec = GameSpec.parse("hex:7")
    opening, after = spec.replay([0, 3]).array, spec.replay([0, 3, 12, 30]).array
    solver = HexRootSolver(spec, 10, won_budget=30_000, log2_table=14)
    assert solver.winning_move(opening, -1) == 12  # the book's
    assert solver.follows_own_win(after)
    move = solver.winning_move(after, -1)
    assert move is not None and keeps_win(GameState(spec, after.copy()), move, 100_000)  # a fresh table
    # Without the larger budget, or without the player's own win before it, 10 nodes prove nothing.
    plain = HexRootSolver(spec, 10, won_budget=10, log2_table=14)
    assert plain.winning_move(opening, -1) == 12
    assert plain.winning_move(after, -1) is None
    fresh = HexRootSolver(spec, 10, won_budget=30_000, log2_table=14)
    assert not fresh.follows_own_win(after)
    assert fresh.winning_move(after, -1) is None
    # The opponent's move is what is taken back: after the player's own stone nothing follows.
    assert not solver.follows_own_win(spec.replay([0, 3, 12]).array)


def test_the_won_budget_is_eight_moves_by_default_and_never_less_than_a_moves():
    spec = GameSpec.parse("hex:5")
    assert HexRootSolver(spec, 1_000, log2_table=10).won_budget == 8_000
    assert HexRootSolver(spec, 1_000, won_budget=10, log2_table=10).won_budget == 1_000
    config = SearchConfig(hex_root_solver_nodes=1_000, hex_root_solver_won_nodes=5_000)
    search = BatchedMCTS(spec, 1, config)
    assert search.root_solver(0).won_budget == 5_000


def test_a_winning_swap_is_played_and_leaves_no_board_to_remember():
    """The swap is not a cell (it remakes the board), so no board follows it; a winning cell does."""
    spec = GameSpec.parse("hex:4:swap")
    swap = spec.num_actions - 1
    solver = HexRootSolver(spec, 100_000, log2_table=12)
    assert solver.winning_move(spec.replay([6]).array, swap) == swap  # 6 wins for the first player
    assert not solver.won_boards
    move = solver.winning_move(spec.replay([0]).array, swap)  # 0 does not: a cell wins
    assert move is not None and move < spec.cells
    assert len(solver.won_boards) == 1


def test_each_game_of_a_batch_has_a_solver_of_its_own():
    """The 8x8 sample against the 11x11 champion gave back a win that a game alone keeps: one
    table served the chunk's five games, and theirs pushed its proof past the budget
    (RESULTS.md, thirty-fourth session). Now a game's table, and the wins it remembers, are
    what the same game alone leaves, whatever is played beside it."""
    spec = GameSpec.parse("hex:5")
    config = SearchConfig(simulations=16, hex_root_solver_nodes=100_000, hex_tactics=PER_EXPANSION)
    won, lost = hand_made(spec, [], 0), hand_made(spec, ["c3"], 1)
    pair = BatchedMCTS(spec, 2, config, seed=5)
    alone = BatchedMCTS(spec, 1, config, seed=5)
    pair.reset(0, won.copy())
    pair.reset(1, lost.copy())
    alone.reset(0, won.copy())
    pair.search(UniformEvaluator(spec.num_actions), noise=False)
    alone.search(UniformEvaluator(spec.num_actions), noise=False)
    assert pair.best_action(0) == alone.best_action(0) == spec.parse_action("c3")
    mine, beside, lone = pair.root_solver(0), pair.root_solver(1), alone.root_solver(0)
    assert mine.tt is not beside.tt
    assert all(np.array_equal(a, b) for a, b in zip(mine.tt, lone.tt, strict=True))
    # The game beside it solved too (its table is not empty), and only the won game remembers a board.
    assert np.any(beside.tt[0]) and not all(np.array_equal(a, b) for a, b in zip(beside.tt, lone.tt, strict=True))
    assert mine.won_boards == lone.won_boards and len(mine.won_boards) == 1 and not beside.won_boards


def test_a_batch_keeps_its_tables_within_bounds():
    assert [table_bits(n) for n in (1, 5, 16, 17, 32, 64, 400)] == [18, 18, 18, 17, 17, 16, 16]
    search = BatchedMCTS(GameSpec.parse("hex:5"), 40, SearchConfig(hex_root_solver_nodes=10))
    assert search.root_solvers == [None] * 40  # none made before a game needs one
    assert len(search.root_solver(3).tt[0]) == 1 << 16
