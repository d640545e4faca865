"""An exhaustive solver over the public game API proves the known values of small games.

Negamax with alpha-beta and a transposition table keyed on (player to move, board up to
symmetry). A wrong win check, a wrong draw rule, a wrong turn order or a broken swap makes
one of these values come out differently."""

import time

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState

pytestmark = pytest.mark.unit

WIN, DRAW, LOSS = 1, 0, -1


class Solver:
    """Game-theoretic value of a position for the player to move: +1 win, 0 draw, -1 loss."""

    def __init__(self, spec: GameSpec):
        self.spec = spec
        # spec.symmetries maps cell i to perm[i]; the board seen through it is b[inverse].
        self.views = []
        for perm in spec.symmetries:
            perm = np.asarray(perm[: spec.cells])
            inverse = np.empty_like(perm)
            inverse[perm] = np.arange(spec.cells)
            self.views.append(inverse)
        # Try central cells first (and swap before any cell): far fewer nodes.
        r, c = np.divmod(np.arange(spec.num_actions), spec.width)
        distance = np.abs(r - (spec.height - 1) / 2) + np.abs(c - (spec.width - 1) / 2)
        distance[spec.cells :] = -1
        self.order = np.argsort(distance, kind="stable")
        self.table: dict[tuple[int, bytes], tuple[int, int]] = {}
        self.nodes = 0

    def key(self, state: GameState) -> tuple[int, bytes]:
        board = state.board().reshape(-1)
        return state.current_player, min(board[v].tobytes() for v in self.views)

    def value(self, state: GameState, alpha: int = LOSS, beta: int = WIN) -> int:
        self.nodes += 1
        key = self.key(state)
        hit = self.table.get(key)
        if hit is not None:
            bound, v = hit
            if bound == 0 or (bound > 0 and v >= beta) or (bound < 0 and v <= alpha):
                return v
        children = []
        legal = state.legal_mask()
        for action in self.order[legal[self.order]]:
            child = state.copy().apply(int(action))
            if child.winner is not None:
                # the mover just completed a connection
                assert child.winner == state.current_player
                self.table[key] = (0, WIN)
                return WIN
            children.append(child)
        assert children, "a position that is not over must have a legal move"
        best = LOSS - 1
        lower = alpha
        for child in children:
            if child.is_draw:
                v = DRAW
            elif child.current_player == state.current_player:
                v = self.value(child, alpha, beta)  # Connect6-style second stone
            else:
                v = -self.value(child, -beta, -alpha)
            best = max(best, v)
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        bound = 1 if best >= beta else (-1 if best <= lower else 0)
        self.table[key] = (bound, best)
        return best


def solve(text: str) -> tuple[int, Solver]:
    spec = GameSpec.parse(text)
    solver = Solver(spec)
    return solver.value(spec.new_game()), solver


def plain_value(state: GameState, memo: dict) -> int:
    """Full minimax with a memo and nothing else: a cross-check of the solver itself."""
    key = (state.current_player, state.board().tobytes(), state.legal_mask().tobytes())
    if key not in memo:
        best = LOSS
        for action in state.legal_actions():
            child = state.copy().apply(int(action))
            v = WIN if child.winner is not None else DRAW if child.is_draw else -plain_value(child, memo)
            best = max(best, v)
        memo[key] = best
    return memo[key]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gomoku:3x3:k3", DRAW),
        ("gomoku:3x3:k3:exact", DRAW),
        ("gomoku:4x4:k3", WIN),
        ("gomoku:4x4:k4", DRAW),
        ("gomoku:3x4:k3", WIN),
        ("hex:2", WIN),
        ("hex:3", WIN),
        ("hex:2:swap", LOSS),  # with the pie rule the second player wins every Hex game
        ("hex:3:swap", LOSS),
        ("hex:4", WIN),
        ("hex:4:swap", LOSS),
    ],
)
def test_solved_values(text, expected):
    start = time.perf_counter()
    value, solver = solve(text)
    elapsed = time.perf_counter() - start
    print(f"{text}: value {value:+d}, {solver.nodes} nodes, {len(solver.table)} positions, {elapsed:.2f}s")
    assert value == expected


@pytest.mark.parametrize("text", ["gomoku:3x3:k3", "hex:3:swap"])
def test_solver_agrees_with_plain_minimax(text):
    spec = GameSpec.parse(text)
    assert solve(text)[0] == plain_value(spec.new_game(), {})


def test_tic_tac_toe_opening_values():
    """Every opening move of 3x3 tic-tac-toe draws with best play, and some replies lose:
    after a corner opening the only non-losing reply is the centre."""
    spec = GameSpec.parse("gomoku:3x3:k3")
    solver = Solver(spec)
    for a in range(9):
        assert -solver.value(spec.new_game().apply(a)) == DRAW
    corner = spec.new_game().apply("a3")
    replies = {spec.action_name(int(b)): -solver.value(corner.copy().apply(int(b))) for b in corner.legal_actions()}
    assert replies == {name: (DRAW if name == "b2" else LOSS) for name in replies}


def test_hex_swap_punishes_every_opening():
    """With the pie rule each 3x3 opening loses: winning openings are swapped, losing ones
    answered directly. Without it the centre wins."""
    plain = GameSpec.parse("hex:3")
    pie = GameSpec.parse("hex:3:swap")
    plain_solver, pie_solver = Solver(plain), Solver(pie)
    assert -plain_solver.value(plain.new_game().apply("b2")) == WIN
    for a in range(9):
        opened = pie.new_game().apply(a)
        opening_wins = -plain_solver.value(plain.new_game().apply(a)) == WIN
        swapped = opened.copy().apply("swap")
        # after the swap the opener (player 0) faces the mirrored stone: it loses exactly
        # when the opening would have won
        assert pie_solver.value(swapped) == (LOSS if opening_wins else WIN)
        assert pie_solver.value(opened) == WIN
