"""The Connect6 threat-space search over line tables (issue 39): `c6_search.c6_solve` (through
`vcf`/`solve_vcf`) and the opponent's VCF with its refutation cells (`opponent_vcf_into`).

Every win claimed here is replayed against the rules with every defender reply that stops
the threats played out (`pipeline.bench.tactics.replay_c6`), not only the proof line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.bench.tactics import C6_SUITE, load_c6_suite, replay_c6
from pipeline.games.base import GameSpec, GameState
from pipeline.tactics.lines.c6_search import c6_solve, opponent_vcf
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.solve import solve_opponent_vcf, solve_vcf
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.threats import null_move
from pipeline.tactics.lines.vcf import vcf
from tests.tactics.reference_pairs import c6_solve_pairs

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("connect6:19")
CORNERS = ["a1", "a3", "s1", "s3", "a19", "s19", "a16", "s16"]  # white, far from everything


def build(black: list[str], white: list[str], spec: GameSpec = SPEC) -> GameState:
    """The stones interleaved into a legal game, black first."""
    state = spec.new_game()
    stones = {0: list(black), 1: list(white)}
    while stones[0] or stones[1]:
        state.apply(stones[state.current_player].pop(0))
    return state


def prover(budget: int = 100_000):
    def prove(state: GameState) -> list[int] | None:
        proof = solve_vcf(state, budget=budget, depth=12)
        return proof.moves if proof else None

    return prove


# A three on row 10, two on column m and two on the diagonal k5-l6: black's turn g10 makes
# the row an open four (two threats) and its free stone m7 makes the column and the
# diagonal threes at once; white must spend both stones on row 10 (c10/b10 and h10/i10),
# then m8 and a stone on the diagonal make three threats or more, and the six follows.
# Black cannot do it in two turns: no line holds more than three of its stones, so no
# turn makes more than two threats.
THREE_TURNS = (["d10", "e10", "f10", "m5", "m6", "k5", "l6"], CORNERS)


def test_a_three_turn_vcf_is_found_and_its_proof_replays():
    state = build(*THREE_TURNS)
    assert state.current_player == 0
    proof = solve_vcf(state, budget=2000, depth=12)
    assert proof is not None and proof.nodes <= 100
    assert proof.attacker_moves(SPEC, state.ply) == 3
    names = [SPEC.action_name(m) for m in proof.moves]
    assert set(names[:2]) == {"g10", "m7"}  # the open four and the free stone of the two threes
    assert replay_c6(state, proof.moves, prover()) is None
    # No win in two turns, however large the budget: a depth of one threat turn finds none.
    assert solve_vcf(state, budget=100_000, depth=1) is None
    # Mid-turn, after the proof's first stone, the rest is proven from there.
    half = state.copy().apply(proof.moves[0])
    rest = solve_vcf(half, budget=2000, depth=12)
    assert rest is not None and replay_c6(half, rest.moves, prover()) is None


def test_a_three_with_nothing_beside_it_is_no_vcf():
    """Black can make an open four (two threats), then nothing: both searches exhaust."""
    state = build(["d10", "e10", "f10", "c17", "q3", "q17", "c3"], CORNERS)
    pv = np.zeros(512, dtype=np.int64)
    sc = scratch_for(state.array, 12)
    for solver in (c6_solve, c6_solve_pairs):
        result, _, nodes = solver(state.array, np.int64(100_000), np.int64(12), new_table(), pv, sc)
        assert result == 0 and nodes < 100_000, solver.__name__


def test_a_replay_rejects_a_line_that_leaves_the_defender_a_choice():
    state = build(*THREE_TURNS)
    proof = solve_vcf(state, budget=2000, depth=12)
    # The line with the free stone elsewhere is no proof (the second turn makes two threats
    # at most), and a line whose defender pair misses a threat is rejected too.
    moves = list(proof.moves)
    moves[1] = SPEC.parse_action("j15")
    assert replay_c6(state, moves, prover(5000)) is not None
    moves = list(proof.moves)
    moves[2] = SPEC.parse_action("b5")
    assert replay_c6(state, moves, prover(5000)) is not None


def test_the_opponents_vcf_marks_the_cells_that_refute_it():
    """White to move on the same board: black's VCF if white passed, and the cells of its
    proof tree, which hold the line and every block white may choose in it; a turn of white
    far from them (and from every stone: no threat of its own) leaves the VCF."""
    black = build(*THREE_TURNS)
    white = black.copy()
    null_move(black.array, white.array)  # the same board, white to move
    assert white.current_player == 1
    cells = np.zeros(SPEC.cells, dtype=np.bool_)
    pv = np.zeros(512, dtype=np.int64)
    found, length, nodes = opponent_vcf(white.array, np.int64(2000), np.int64(12), new_table(), pv, cells)
    assert found == 1 and nodes > 0
    line = [int(a) for a in pv[:length]]
    assert line == solve_vcf(black, budget=2000, depth=12).moves  # the proof of black's VCF
    marked = {SPEC.action_name(c) for c in np.flatnonzero(cells)}
    # Every cell of the line, the blocks white may choose against the open four on row 10
    # (all three pairs of them are in the tree), and both ends of the column's four.
    assert {SPEC.action_name(a) for a in line} <= marked
    assert {"b10", "c10", "h10", "i10", "g10", "m7", "m8", "m4", "m9"} <= marked
    assert len(marked) < 60
    proof, marked_cells = solve_opponent_vcf(white, budget=2000, depth=12)
    assert proof is not None and proof.winner == 0 and proof.moves == line
    assert {SPEC.action_name(c) for c in marked_cells} == marked
    # White's turn far from the marked cells and the stones: black still wins.
    far = white.copy().apply("s10").apply("s12")
    assert solve_vcf(far, budget=20_000, depth=12) is not None


@pytest.mark.parametrize("bits", [1, 3])
def test_the_opponents_proof_tree_is_read_back_through_a_small_table(bits):
    """A table too small to keep the proof's wins: the tree's nodes are searched again to
    mark their cells, and the line returned is the search's, whole (depth 40 too)."""
    black = build(*THREE_TURNS)
    white = black.copy()
    null_move(black.array, white.array)
    pv = np.zeros(512, dtype=np.int64)
    for depth in (12, 40):
        cells = np.zeros(SPEC.cells, dtype=np.bool_)
        found, length, _ = opponent_vcf(white.array, np.int64(2000), np.int64(depth), new_table(bits), pv, cells)
        line = [int(a) for a in pv[:length]]
        result, n, _ = vcf(black.array, np.int64(2000), np.int64(depth), new_table(bits), pv)
        assert found == 1 and result == 1 and line == [int(a) for a in pv[:n]]
        assert cells[line].all() and cells.sum() < 60
        assert replay_c6(black, line, prover()) is None


def test_the_opponents_vcf_is_nothing_when_there_is_none():
    black = build(["d10", "e10", "f10", "c17", "q3", "q17", "c3"], CORNERS)
    white = black.copy()
    null_move(black.array, white.array)
    cells = np.ones(SPEC.cells, dtype=np.bool_)
    found, length, _ = opponent_vcf(
        white.array, np.int64(2000), np.int64(12), new_table(), np.zeros(512, np.int64), cells
    )
    assert found == 0 and length == 0 and not cells.any()


def test_the_search_through_vcf_is_the_same_search():
    state = build(*THREE_TURNS)
    pv = np.zeros(512, dtype=np.int64)
    a = vcf(state.array, np.int64(2000), np.int64(12), new_table(), pv)
    line = pv[: a[1]].copy()
    b = c6_solve(state.array, np.int64(2000), np.int64(12), new_table(), pv, scratch_for(state.array, 12))
    assert a == b and np.array_equal(line, pv[: b[1]])


def random_position(spec: GameSpec, seed: int, stones: int) -> GameState | None:
    rng = np.random.default_rng(seed)
    state = spec.new_game()
    for _ in range(stones):
        state.apply(int(rng.choice(state.legal_actions())))
        if state.is_terminal:
            return None
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=st.sampled_from(["connect6:8", "connect6:9", "connect6:10"]),
    seed=st.integers(0, 2**31),
    stones=st.integers(6, 30),
)
def test_small_boards_agree_with_the_search_over_every_pair(board, seed, stones):
    """Against the search over every pair of candidate cells (`c6_solve_pairs` of
    tests/tactics/reference_pairs.py, the Connect6 search before line tables), on small
    boards: whatever it proves, the line tables prove too (they judge every pair it would,
    without trying those that make no double threat), and every win they claim replays
    (mid-turn positions included)."""
    spec = GameSpec.parse(board)
    state = random_position(spec, seed, stones)
    if state is None:
        return
    pv = np.zeros(512, dtype=np.int64)
    sc = scratch_for(state.array, 12)
    reference, _, _ = c6_solve_pairs(state.array, np.int64(20_000), np.int64(12), new_table(12), pv, sc)
    result, length, _ = c6_solve(state.array, np.int64(100_000), np.int64(12), new_table(12), pv, sc)
    if reference == 1:
        assert result == 1
    if result == 1:
        assert replay_c6(state, [int(a) for a in pv[:length]], prover()) is None


# ---- the suite of positions from our games (tests/tactics/connect6_vcf.txt) -----------------


@pytest.fixture(scope="module")
def suite():
    return load_c6_suite(C6_SUITE)


def test_the_suite_holds_enough_positions_of_each_label(suite):
    labels = [p.label for p in suite]
    assert labels.count("vcf") >= 100 and labels.count("novcf") >= 100
    assert all(3 <= p.turns <= 7 for p in suite if p.label == "vcf")
    assert all(p.state.spec == SPEC and not p.state.is_terminal for p in suite)


def test_a_sample_of_the_suite_is_solved_within_2000_nodes_and_replays(suite):
    """Every fifth VCF position (the benchmark runs them all: pipeline.bench.tactics)."""
    wins = [p for p in suite if p.label == "vcf"][::5]
    pv = np.zeros(512, dtype=np.int64)
    sc = scratch_for(wins[0].state.array, 12)
    table = new_table()
    solved = 0
    for p in wins:
        table[:] = 0
        result, length, _ = c6_solve(p.state.array, np.int64(2000), np.int64(12), table, pv, sc)
        if result == 1:
            solved += 1
            assert replay_c6(p.state, [int(a) for a in pv[:length]], prover()) is None, p.source
    assert solved >= 0.9 * len(wins)


def test_no_win_is_claimed_on_a_sample_of_the_positions_without_one(suite):
    without = [p for p in suite if p.label == "novcf"][::4]
    pv = np.zeros(512, dtype=np.int64)
    sc = scratch_for(without[0].state.array, 12)
    for p in without:
        result, _, _ = c6_solve(p.state.array, np.int64(2000), np.int64(12), new_table(), pv, sc)
        assert result == 0, p.source
