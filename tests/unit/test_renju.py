"""Renju (`rules: renju`): the compiled rules against the reference written from the RIF
definitions (`pipeline.games.renju_reference`), positions built to hold each forbidden shape,
published strict-rule examples, and the threat solvers and search under the rule.

The 2,000-game comparison is `scripts/renju_reference.py --games 2000`; here a few games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games import renju_reference as ref
from pipeline.games.base import GameSpec, GameState, IllegalMoveError
from pipeline.games.layout import BOARD, PLY, STONES, TO_MOVE
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.pure import PureMCTS
from pipeline.tactics.lines.solve import Proof, solve_vcf, solve_vct, threat_defences, three_defences

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:renju")
COLUMNS = "abcdefghijklmno"
REASONS = {"3": "double three", "4": "double four", "6": "overline"}


# ---- positions -------------------------------------------------------------------------------


def diagram(text: str) -> tuple[ref.Board, dict[str, str]]:
    """A 15x15 board drawn as renju diagrams are (row 15 on top, columns A..O); a digit on
    an empty cell marks a forbidden point (3 double three, 4 double four, 6 overline)."""
    board = [[0] * 15 for _ in range(15)]
    marks = {}
    for line in text.strip().splitlines():
        label, *cells = line.split()[:16]
        r = 15 - int(label)
        for c, ch in enumerate(cells):
            if ch in "XO":
                board[r][c] = 1 if ch == "X" else 2
            elif ch != ".":
                marks[f"{COLUMNS[c]}{label}"] = REASONS[ch]
    return board, marks


def shape(text: str, top: int = 3, left: int = 3) -> tuple[ref.Board, dict[str, tuple[int, int]]]:
    """A small drawing placed on an empty 15x15 board at (top, left); lower-case letters
    mark empty cells the test names."""
    board = [[0] * 15 for _ in range(15)]
    marks = {}
    for i, line in enumerate(text.strip().splitlines()):
        for j, ch in enumerate(line.split()):
            if ch in "XO":
                board[top + i][left + j] = 1 if ch == "X" else 2
            elif ch != ".":
                marks[ch] = (top + i, left + j)
    return board, marks


def state_of(board: ref.Board, to_move: int = 0, spec: GameSpec = SPEC) -> GameState:
    """The position as a state with `to_move` to move (set directly: the tests need
    positions whose black stones could not all have been played in order)."""
    state = spec.new_game()
    n = 0
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v:
                state.array[BOARD + r * spec.width + c] = v
                n += 1
    state.array[STONES] = state.array[PLY] = n
    state.array[TO_MOVE] = to_move
    return state


def name(cell: tuple[int, int], size: int = 15) -> str:
    return f"{COLUMNS[cell[1]]}{size - cell[0]}"


def fast_forbidden(state: GameState) -> dict[str, str]:
    return {state.spec.action_name(a): state.forbidden_reason(a) for a in state.forbidden_cells()}


def slow_forbidden(board: ref.Board) -> dict[str, str]:
    return {name(cell, len(board)): why for cell, why in ref.forbidden_map(board).items()}


# ---- the rule set -------------------------------------------------------------------------------


def test_the_spec():
    assert GameSpec.parse("gomoku:renju") == GameSpec(game="gomoku", size=15, k=5, rules="renju")
    assert GameSpec(game="gomoku", rules="renju").height == 15  # renju's board where no size is given
    assert GameSpec.parse("gomoku:9:renju").cells == 81  # any size Gomoku allows
    assert str(SPEC) == "gomoku:15x15:k5:renju" and GameSpec.parse(str(SPEC)) == SPEC
    assert SPEC.rules_label == "k5-renju"
    with pytest.raises(ValueError, match="renju is five in a row: k must be 5, got 4"):
        GameSpec.parse("gomoku:15:k4:renju")


# Strict-rule examples published with a renju engine's documentation, each with its
# forbidden points marked: every marked point, and no other, is forbidden.
PUBLISHED = {
    "one-line double fours": """
15 . . . . . . . . . . . . . . .
14 . . . . X . X 4 X . X . . . .
13 . . . . . . . . . . . . . . .
12 . . . . O O O O O O O . . . .
11 . . . . . . . . . . . . . . .
10 . . . . X . X X 4 . X . . . .
 9 . . . . . . . . . . . . . . .
 8 . . . . O O O O O O O . . . .
 7 . . . . . . . . . . . . . . .
 6 . . . . X X . X 4 . X X . . .
 5 . . . . . . . . . . . . . . .
 4 . . . . O O O O O O O . . . .
 3 . . . . . . . . . . . . . . .
 2 . . X . X . X X . . X X . X .
 1 . . . . . . . . . . . . . . .
""",
    "pseudo double fours (none forbidden)": """
15 . . . . . . . . . . . . . . .
11 . . . . . . . O . . . . . . .
10 . . . . . O . . . . . . . . .
 9 . . . . . X X . . . . . . . .
 8 . . . . . . O X O . . . . . .
 7 . . . . . . O X O . . . . . .
 6 . . . . . . . . X X X O . . .
""",
    "nested": """
11 . . . O . . O . . . . . . . .
10 . . . . X . . X . O . . . . .
 9 . . . . O X O X X . . . . . .
 8 . . . . . . X X 3 . . . . . .
 7 . . . . . . O O X X . . . . .
 6 . . . . . X . . . . . . . . .
 5 . . . . O X . . . . . . . . .
 4 . . . . . O . . . . . . . . .
""",
    "multiple nested": """
12 . . . . . . . X . . . . . . .
11 . . . . . . . . . . . . X . .
10 . . . . . O . . . 3 . . O X .
 9 . . O X . . X O X X X O X . .
 8 . . . X O O . X O 3 . . . . .
 7 . O . . X X 3 . . X 3 . . . .
 6 . . . . . . X . . . X X O . .
 5 . . . . O . . . . . . . . . .
""",
    "recursive": """
10 . . . . . . O O . . . . . . .
 9 . . . . . 3 X X 3 . . . . . .
 8 . . . . O X X X X O . . . . .
 7 . . . . O X X X X O . . . . .
 6 . . . . . 3 X X 3 . . . . . .
 5 . . . . . . O O . . . . . . .
""",
}


@pytest.mark.parametrize("title", sorted(PUBLISHED))
def test_published_examples(title):
    board, marks = diagram(PUBLISHED[title])
    assert fast_forbidden(state_of(board)) == marks
    assert slow_forbidden(board) == marks


# Each shape names the cell `a`; the expected reason, or None where black may play it.
SHAPES = {
    "double three": (
        """
        . . . . . .
        . . . X . .
        . . . X . .
        . X X a . .
        . . . . . .
        """,
        "double three",
    ),
    "double three of split threes": (
        """
        . . . . . . .
        . . . . X . .
        . . . . . . .
        . . . . X . .
        . X . X a . .
        . . . . . . .
        """,
        "double three",
    ),
    "a three blocked two cells away is still a three": (
        """
        . . . . . .
        . . . X . .
        . . . X . .
        . X X a . O
        . . . . . .
        """,
        "double three",
    ),
    "a three blocked next to it is no three": (
        """
        . . . . . .
        . . . X . .
        . . . X . .
        O X X a . .
        . . . . . .
        """,
        None,
    ),
    "four-three is allowed": (
        """
        . . . O . . .
        . . . X . . .
        . . . X . . .
        . . . X . . .
        . X X a . . .
        . . . . . . .
        """,
        None,
    ),
    "double four": (
        """
        . . . . O . .
        . . . . X . .
        . . . . X . .
        . . . . X . .
        O X X X a . .
        . . . . . . .
        """,
        "double four",
    ),
    "double four in one line: X . X a X . X": ("X . X a X . X", "double four"),
    "double four in one line: X X . a X . X X": ("X X . a X . X X", "double four"),
    "double four in one line: X X X . a . X X X": ("X X X . a . X X X", "double four"),
    "one four in a line: X X X . a . X": ("X X X . a . X", None),
    "overline": ("X X X a X X", "overline"),
    "overline of seven": ("X X X a X X X", "overline"),
    # A five takes precedence over every forbidden shape the same stone makes.
    "five with an overline across it": (
        """
        . . . . . .
        . . . . X .
        . . . . X .
        . . . . X .
        X X X X a .
        . . . . X .
        . . . . X .
        . . . . . .
        """,
        None,
    ),
    "five with a double four across it": (
        """
        . . . . . . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . X
        X X X X a . X .
        . . . . . X . .
        . . . . . . . .
        """,
        None,
    ),
    # The horizontal "three" at a becomes a straight four only at e, and e is forbidden
    # (an overline down its column): it is no three, so a is one three, allowed.
    "a three whose straight four is an overline": (
        """
        . . . . . . . . .
        . . . . . X . . .
        . . . . . X . . .
        . . . . . X . . .
        O . X X a e . O .
        . . . . X X . . .
        . . . . X X . . .
        . . . . . . . . .
        """,
        None,
    ),
    # The same with e a double three (its own threes real): one level deeper.
    "a three whose straight four is a double three": (
        """
        . . . . . . . . . .
        . . . . . . . . . .
        O . X X a e . O . .
        . . . . X X X . . .
        . . . . X X . X . .
        . . . . . . . . . .
        . . . . . . . . . .
        """,
        None,
    ),
    # e would make a five down its column at the same time: no three either (RIF).
    "a three whose straight four also makes a five": (
        """
        . . . . . . . . .
        . . . . . X . . .
        . . . . . X . . .
        O . X X a e . O .
        . . . . X X . . .
        . . . . X X . . .
        . . . . . . . . .
        """,
        None,
    ),
    # The control: e is a plain four-three, so the three counts and a is a double three.
    "a three whose straight four is allowed": (
        """
        . . . . . . . . .
        O . X X a e . O .
        . . . . X X . . .
        . . . . X X . . .
        . . . . . . . . .
        """,
        "double three",
    ),
}


@pytest.mark.parametrize("title", list(SHAPES))
def test_built_shapes(title):
    drawing, expected = SHAPES[title]
    board, marks = shape(drawing)
    a = marks["a"]
    state = state_of(board)
    cell = a[0] * 15 + a[1]
    assert state.forbidden_reason(cell) == expected
    assert ref.forbidden(board, a) == expected
    assert bool(state.legal_mask()[cell]) == (expected is None)
    assert (cell in state.forbidden_cells()) == (expected is not None)
    if expected is None:
        return
    before = state.array.copy()
    with pytest.raises(IllegalMoveError, match=f"move {name(a)} is illegal: forbidden to black: {expected}"):
        state.apply(cell)
    assert np.array_equal(state.array, before)  # the state is left as it was
    white = state_of(board, to_move=1)
    assert white.legal_mask()[cell]  # white has no forbidden moves
    white.apply(cell)


def test_fives_win_despite_forbidden_shapes_and_black_overlines_never_win():
    for title in ("five with an overline across it", "five with a double four across it"):
        board, marks = shape(SHAPES[title][0])
        state = state_of(board).apply(marks["a"][0] * 15 + marks["a"][1])
        assert state.winner == 0 and len(state.winning_line()) == 5
    # White's overline wins; the same line is black's forbidden overline.
    board, marks = shape("O O O a O O")
    state = state_of(board, to_move=1).apply(name(marks["a"]))
    assert state.winner == 1 and len(state.winning_line()) == 6
    board, marks = shape("X X X a X X")
    assert state_of(board).forbidden_reason(name(marks["a"])) == "overline"


def test_black_with_only_forbidden_cells_left_draws():
    """A 5x7 game (found by random play) where white's last stone leaves one empty cell,
    forbidden to black: the game is drawn, by the kernels and by the reference."""
    spec = GameSpec(game="gomoku", height=5, width=7, rules="renju")
    moves = "d2 f1 f2 a1 f4 d3 d5 d1 g2 b3 c4 e3 a2 g1 e1 a4 g3 c1 e2 g4 a5 b5 a3 e5 f5 b1 b2 b4 f3 e4 c5 c3 g5 d4"
    state = spec.new_game()
    game = ref.Game(5, 7)
    for move in moves.split():
        action = spec.parse_action(move)
        state.apply(action)
        game.play(divmod(action, 7))
    assert state.is_draw and state.winner is None and game.over and game.winner is None
    empty = np.flatnonzero(state.board().ravel() == 0).tolist()
    assert len(empty) == 1
    assert spec.action_name(empty[0]) == "c2"
    assert ref.forbidden(game.board, divmod(empty[0], 7)) == "overline"  # a2..g2 would be seven
    assert state.forbidden_reason("c2") == "overline"


def test_the_kernels_agree_with_the_reference_on_random_games():
    result = ref.compare(games=8, seed=11)
    assert result.disagreements == 0, result.examples
    assert result.plies > 300
    assert set(result.forbidden_seen) == {"overline", "double four", "double three"}
    assert result.refused_threes > 0  # the recursive definition was at work


def test_forbidden_cells_are_black_s_whoever_is_to_move():
    board, marks = shape(SHAPES["double three"][0])
    black, white = state_of(board), state_of(board, to_move=1)
    assert black.forbidden_cells() == white.forbidden_cells() == [marks["a"][0] * 15 + marks["a"][1]]
    assert GameSpec.parse("gomoku:15:exact").new_game().forbidden_cells() == []


# ---- tactics under renju -------------------------------------------------------------------------


# White's diagonal three points at a, black's double-three point; both of its far ends are
# black's: white's four at c has a as its only winning cell, and black may not block there.
TRAP = """
X . . . . . . .
. c . . . . . .
. . O . . . . .
. . . O . X . .
. . . . O X . .
. . . X X a . .
. . . . . . X .
. . . . . . . .
"""


def test_a_white_four_whose_block_is_forbidden_cannot_be_stopped():
    board, marks = shape(TRAP)
    c = marks["c"]
    board[c[0]][c[1]] = 2
    state = state_of(board)
    a = marks["a"]
    assert state.forbidden_reason(name(a)) == "double three"
    need, cells = threat_defences(state)
    assert need == -1 and [SPEC.action_name(int(x)) for x in cells] == [name(a)]
    assert np.array_equal(state.candidate_mask(), state.legal_mask())  # no block to narrow to
    same = state_of(board, spec=GameSpec.parse("gomoku:15:exact"))
    assert threat_defences(same)[0] == 1  # under exact five black just blocks


def test_white_wins_through_black_s_forbidden_point():
    board, marks = shape(TRAP)
    state = state_of(board, to_move=1)
    proof = solve_vcf(state)
    assert proof is not None and proof.winner == 1
    assert SPEC.action_name(proof.moves[-1]) == name(marks["a"])
    replay_renju_proof(state, proof, threes=False)
    # Under exact five the same stones are no win: black simply blocks there.
    exact = state_of(board, to_move=1, spec=GameSpec.parse("gomoku:15:exact"))
    assert solve_vcf(exact) is None


def test_black_s_double_four_is_no_win_but_a_straight_four_is():
    board, _ = shape(SHAPES["double four"][0])
    assert solve_vcf(state_of(board, spec=GameSpec.parse("gomoku:15:exact"))) is not None
    assert solve_vcf(state_of(board)) is None
    board, _ = shape(". X X X . .")
    proof = solve_vcf(state_of(board))
    assert proof is not None and proof.winner == 0


def test_white_defends_by_making_black_s_threat_forbidden():
    """Black's only threat is h5 (an open four); white's i3, far from h5's lines, makes h5 a
    double three (i3 turns one of h5's threes real): a defence the stop cells do not hold.
    Found by random play (3 such positions in about 100,000)."""
    moves = "h2 h1 i1 j2 k2 g2 h3 l3 g3 m2 m4 l4 m5 h4 f2 e3 i4 f4 l2 n5 i5 k1 m1 l5 g5 f6 e1 g1 j5 o6 g4 m6 f3 d1 d3"
    state = SPEC.new_game()
    for move in moves.split():
        state.apply(move)
    board = state.board().tolist()
    assert state.current_player == 1 and [name(f) for f in threat_cells(board, ref.BLACK)] == ["h5"]
    replies = {SPEC.action_name(int(a)) for a in three_defences(state, 0)}
    assert "i3" in replies and "h5" in replies
    board[12][8] = ref.WHITE  # i3
    assert ref.forbidden(board, (10, 7)) == "double three"  # h5
    assert not threat_cells(board, ref.BLACK)


def renju_wins(board: ref.Board, colour: int) -> set[tuple[int, int]]:
    """The empty cells where `colour` makes a five (black: exactly five)."""
    return {
        (r, c)
        for r, row in enumerate(board)
        for c, v in enumerate(row)
        if v == 0 and ref.could_matter(board, (r, c), colour) and ref.makes_five(board, (r, c), colour)
    }


def legal_for(board: ref.Board, cell: tuple[int, int], colour: int) -> bool:
    return colour == ref.WHITE or ref.forbidden(board, cell) is None


def threat_cells(board: ref.Board, colour: int) -> list[tuple[int, int]]:
    """`colour`'s legal moves that make two or more winning cells (double-four cells)."""
    out = []
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v or not ref.could_matter(board, (r, c), colour):
                continue
            board[r][c] = colour
            wins = len(renju_wins(board, colour))
            board[r][c] = 0
            if wins >= 2 and legal_for(board, (r, c), colour):
                out.append((r, c))
    return out


def replay_renju_proof(state: GameState, proof: Proof, threes: bool) -> None:
    """Replay a proof through the rules (a forbidden black move raises), checking every
    defender move is forced by the reference: the one legal block of a single winning
    cell; any move when that block is forbidden to black or there are two winning cells;
    after a three, a move that leaves no attacker threat or makes a four of its own."""
    s = state.copy()
    atk = s.current_player
    av, dv = atk + 1, 2 - atk
    for i, move in enumerate(proof.moves):
        if i % 2 == 1:
            board = s.board().tolist()
            cell = divmod(move, s.spec.width)
            assert not renju_wins(board, dv), "the defender could win at once"
            wins = renju_wins(board, av)
            if len(wins) == 1 and legal_for(board, next(iter(wins)), dv):
                assert wins == {cell}, "a defender move that is not the forced block"
            elif not wins:
                assert threes, "a VCF defender move that was not forced"
                assert threat_cells(board, av), "the attacker's move was no threat"
                board[cell[0]][cell[1]] = dv
                defended = renju_wins(board, dv) or not threat_cells(board, av)
                board[cell[0]][cell[1]] = 0
                if not defended:  # acceptable only when no move at all defends
                    assert all(
                        not legal_for(board, m, dv) or _leaves_threat(board, m, av, dv)
                        for m in [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
                    ), "the reply is not a defence"
        s.apply(move)  # raises on a forbidden move
        if i < len(proof.moves) - 1:
            assert s.winner is None, "the game ended inside the proof"
    assert s.winner == atk, "the proof does not end in the attacker's win"


def _leaves_threat(board: ref.Board, m: tuple[int, int], av: int, dv: int) -> bool:
    board[m[0]][m[1]] = dv
    try:
        return not renju_wins(board, dv) and bool(threat_cells(board, av))
    finally:
        board[m[0]][m[1]] = 0


SMALL = GameSpec(game="gomoku", size=10, rules="renju")


def random_position(seed: int, stones: int) -> GameState | None:
    """A renju position of `stones` stones near the centre of a 10x10 board."""
    rng = np.random.default_rng(seed)
    state = SMALL.new_game()
    for _ in range(stones):
        legal = state.legal_actions()
        r, c = np.divmod(legal, SMALL.width)
        d = np.maximum(abs(r - 4.5), abs(c - 4.5))
        p = 1.0 / (1.0 + d) ** 2
        state.apply(int(rng.choice(legal, p=p / p.sum())))
        if state.is_terminal:
            return None
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), stones=st.integers(10, 30))
def test_renju_proofs_replay_by_the_rules(seed, stones):
    state = random_position(seed, stones)
    if state is None:
        return
    for solve, threes in ((solve_vcf, False), (solve_vct, True)):
        proof = solve(state, budget=3_000, depth=6)
        if proof is not None:
            replay_renju_proof(state, proof, threes)


# 10 random positions: each is checked against the reference at every empty cell (cubic in
# the board's cells, pure Python: about 3 s a position on a 2-core machine).
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), stones=st.integers(10, 30))
def test_renju_three_defences_are_complete_and_legal(seed, stones):
    """The solver's answers to a player's threats (its double-four cells) hold every move
    that leaves the threatened side alive, and no move forbidden to black."""
    state = random_position(seed, stones)
    if state is None:
        return
    board = state.board().tolist()
    for attacker in (0, 1):
        av, dv = attacker + 1, 2 - attacker
        if renju_wins(board, av) or renju_wins(board, dv) or not threat_cells(board, av):
            continue
        replies = {divmod(int(a), SMALL.width) for a in three_defences(state, attacker)}
        for m in replies:
            assert legal_for(board, m, dv), f"{name(m, 10)} is forbidden to black"
        empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
        for m in empty:
            if m not in replies and legal_for(board, m, dv):
                assert _leaves_threat(board, m, av, dv), f"{name(m, 10)} also defends ({state})"


def test_the_search_never_plays_a_forbidden_move():
    """From positions where black has forbidden cells, the net's search (uniform priors,
    tactics on) and pure MCTS choose legal moves, and give forbidden cells no visits."""
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 6:
        state = SMALL.new_game()
        for _ in range(40):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state.apply(int(rng.choice(legal)))
            if state.is_terminal or state.current_player != 0 or not state.forbidden_cells():
                continue
            forbidden = state.forbidden_cells()
            search = BatchedMCTS(SMALL, 1, SearchConfig(simulations=64, tactics="vct"))
            search.reset(0, state.array.copy())
            visits = search.search(UniformEvaluator(SMALL.num_actions), noise=False)[0]
            assert visits[forbidden].sum() == 0
            assert state.legal_mask()[search.tree.best_action(0)]
            pure = PureMCTS(200, seed=checked)
            pure_visits = pure.search(state)
            assert pure_visits[forbidden].sum() == 0
            assert state.legal_mask()[pure.best_action()]
            checked += 1
            break
