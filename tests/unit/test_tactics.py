"""Threat analysis and forcing-win solvers (pipeline.tactics).

Every proof a solver returns is replayed through GameState.apply with each defender
move checked against a plain-Python reference of what the rules force, and on small
boards claimed wins are confirmed by a bounded exhaustive search in which the defender
may play any legal move."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.tactics.lines.solve import (
    Proof,
    four_moves,
    solve_vcf,
    solve_vct,
    threat_defences,
    three_defences,
    three_moves,
    winning_moves,
)

POSITIONS = Path(__file__).resolve().parents[1] / "tactics" / "positions.txt"

pytestmark = pytest.mark.unit
DIRS = ((0, 1), (1, 0), (1, 1), (1, -1))


# ---- plain-Python reference of the rules ------------------------------------------------


@dataclass(frozen=True)
class Board:
    """A board as a tuple of cells (0 empty, 1 black, 2 white) with the line rules."""

    spec: GameSpec
    cells: tuple[int, ...]

    @classmethod
    def of(cls, state: GameState) -> Board:
        return cls(state.spec, tuple(int(v) for v in state.board().ravel()))

    def put(self, cell: int, v: int) -> Board:
        c = list(self.cells)
        c[cell] = v
        return Board(self.spec, tuple(c))

    def empties(self) -> list[int]:
        return [i for i, v in enumerate(self.cells) if v == 0]

    def wins_at(self, cell: int, v: int) -> bool:
        """Would a stone of v on the empty `cell` complete a line by the rules."""
        h, w, k = self.spec.height, self.spec.width, self.spec.k
        exact = self.spec.rules == "exact"
        r0, c0 = divmod(cell, w)
        for dr, dc in DIRS:
            n = 1
            for sign in (1, -1):
                r, c = r0 + sign * dr, c0 + sign * dc
                while 0 <= r < h and 0 <= c < w and self.cells[r * w + c] == v:
                    n += 1
                    r, c = r + sign * dr, c + sign * dc
            if n == k or (n > k and not exact):
                return True
        return False

    def near(self, cell: int, v: int, dist: int) -> bool:
        """Is a stone of v within `dist` cells of `cell` along one of the 8 directions."""
        h, w = self.spec.height, self.spec.width
        r0, c0 = divmod(cell, w)
        for dr, dc in DIRS:
            for sign in (1, -1):
                for i in range(1, dist + 1):
                    r, c = r0 + sign * i * dr, c0 + sign * i * dc
                    if 0 <= r < h and 0 <= c < w and self.cells[r * w + c] == v:
                        return True
        return False

    def win_cells(self, v: int) -> set[int]:
        # A winning cell has a stone of v next to it (k >= 2): skip the others quickly.
        return {e for e in self.empties() if self.near(e, v, 1) and self.wins_at(e, v)}

    def near_windows(self, v: int, min_own: int) -> set[int]:
        """Empty cells of k-windows with >= min_own stones of v and none of the other."""
        h, w, k = self.spec.height, self.spec.width, self.spec.k
        out: set[int] = set()
        for r0 in range(h):
            for c0 in range(w):
                for dr, dc in DIRS:
                    if not (0 <= r0 + (k - 1) * dr < h and 0 <= c0 + (k - 1) * dc < w):
                        continue
                    cells = [(r0 + i * dr) * w + c0 + i * dc for i in range(k)]
                    vals = [self.cells[c] for c in cells]
                    if vals.count(v) >= min_own and vals.count(3 - v) == 0:
                        out.update(c for c in cells if self.cells[c] == 0)
        return out

    def windows(self, v: int, min_own: int) -> list[set[int]]:
        """Connect6: the empty cells of each six-window with >= min_own of v, no other."""
        h, w = self.spec.height, self.spec.width
        out = []
        for r0 in range(h):
            for c0 in range(w):
                for dr, dc in DIRS:
                    cells = [(r0 + i * dr) * w + c0 + i * dc for i in range(6)]
                    if not (0 <= r0 + 5 * dr < h and 0 <= c0 + 5 * dc < w):
                        continue
                    vals = [self.cells[c] for c in cells]
                    if vals.count(v) >= min_own and vals.count(3 - v) == 0:
                        out.append({c for c in cells if self.cells[c] == 0})
        return out


def double_four_cells(b: Board, v: int) -> set[int]:
    # A cell that makes a winning cell has a stone of v within k - 1 cells on a line.
    k = b.spec.k
    return {e for e in b.empties() if b.near(e, v, k - 1) and len(b.put(e, v).win_cells(v)) >= 2}


def reference_three_defences(b: Board, attacker_v: int) -> set[int]:
    """Defender moves that do not lose at once to a double four: his own fours, and
    the moves after which the attacker has no double-four cell."""
    dv = 3 - attacker_v
    out = set()
    for m in b.empties():
        after = b.put(m, dv)
        if after.win_cells(dv) or not double_four_cells(after, attacker_v):
            out.add(m)
    return out


def hitting_number(windows: list[set[int]], empties: list[int]) -> int:
    if not windows:
        return 0
    if any(all(c in wnd for wnd in windows) for c in empties):
        return 1
    cand = sorted(set().union(*windows))
    if any(all(a in wnd or b in wnd for wnd in windows) for a, b in combinations(cand, 2)):
        return 2
    return 3


# ---- positions ------------------------------------------------------------------------------


def build(spec: GameSpec, black: list[str], white: list[str]) -> GameState:
    """Interleave the stones into a legal game in turn order (black first)."""
    state = spec.new_game()
    stones = {0: list(black), 1: list(white)}
    while stones[0] or stones[1]:
        p = state.current_player
        assert stones[p], f"{spec}: no stone left for player {p} at ply {state.ply}"
        state.apply(stones[p].pop(0))
    return state


def load_positions() -> list[tuple[GameState, str, str]]:
    out = []
    for line in POSITIONS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec_text, black, white, expected, note = (x.strip() for x in line.split("|"))
        spec = GameSpec.parse(spec_text)
        out.append((build(spec, black.split(), white.split()), expected, f"{spec_text}: {note}"))
    return out


# ---- proof checks ---------------------------------------------------------------------------


def check_gomoku_proof(state: GameState, proof: Proof, threes: bool) -> None:
    """Replay the proof; every defender move must be forced: the unique block of the
    attacker's single winning cell, or (VCT) one of the complete reply set to a three;
    when the attacker has two winning cells, any reply loses."""
    s = state.copy()
    atk = s.current_player
    av, dv = atk + 1, 2 - atk
    assert proof.winner == atk
    for i, move in enumerate(proof.moves):
        if i % 2 == 1:
            b = Board.of(s)
            assert not b.win_cells(dv), "the defender could win at once"
            wins = b.win_cells(av)
            if len(wins) == 1:
                assert {move} == wins, "a defender move that is not the forced block"
            elif len(wins) == 0:
                assert threes, "a VCF defender move that was not forced"
                assert double_four_cells(b, av), "the attacker's move was no threat"
                defences = reference_three_defences(b, av)
                # With no defence at all every reply loses; the proof shows one of them.
                assert not defences or move in defences, "the reply is not a defence"
        s.apply(move)
        if i < len(proof.moves) - 1:
            assert s.winner is None, "the game ended inside the proof"
    assert s.winner == atk, "the proof does not end in the attacker's win"


def check_c6_proof(state: GameState, proof: Proof) -> None:
    """Replay a Connect6 proof: before each defender turn the attacker's threat windows
    need two stones (so the defender's two are forced into a hitting pair, which this
    must be) or more than two (any reply loses); in a VCT one stone may do (a single
    threat: the line's pair must still stop it; its free stone is checked elsewhere,
    tests/unit/test_c6_vct.py)."""
    s = state.copy()
    atk = s.current_player
    av = atk + 1
    moves = proof.moves
    i = 0
    while i < len(moves):
        # A defender's turn is judged once, before its first stone (its second stone
        # naturally faces fewer threats).
        if s.current_player != atk and stones_left_in_turn(s.ply) == 2:
            b = Board.of(s)
            assert not b.windows(3 - av, 4), "the defender could win this turn"
            windows = b.windows(av, 4)
            need = hitting_number(windows, b.empties())
            assert need >= (1 if proof.kind == "VCT" else 2), "the defender was not forced"
            pair = {moves[i], moves[i + 1]}
            if need <= 2:
                assert all(wnd & pair for wnd in windows), "the defender's pair misses a threat"
        s.apply(moves[i])
        i += 1
        if i < len(moves):
            assert s.winner is None
    assert s.winner == atk


@lru_cache(maxsize=200_000)
def attacker_wins(b: Board, atk_v: int, depth: int) -> bool:
    """Bounded exhaustive check (Gomoku, attacker to move): a win within `depth` more
    attacker moves against every defender move. Attacker moves are limited to threats
    (fours and double-four set-ups), which can only hide wins, never invent them. A
    defender move other than the block of a single winning cell is not searched: the
    attacker then wins at once, which the rules make plain."""
    dv = 3 - atk_v
    if b.win_cells(atk_v):
        return True
    if depth == 0 or not b.empties():
        return False
    d_wins = b.win_cells(dv)
    if len(d_wins) >= 2:
        return False
    k = b.spec.k
    moves = sorted(d_wins) if d_wins else sorted(b.near_windows(atk_v, max(k - 3, 1)))
    for m in moves:
        after = b.put(m, atk_v)
        if after.wins_at(m, atk_v):
            return True
        if after.win_cells(dv):
            continue
        wins = after.win_cells(atk_v)
        if len(wins) >= 2:
            return True
        if len(wins) == 1:
            (w,) = wins
            if not after.wins_at(w, dv) and attacker_wins(after.put(w, dv), atk_v, depth - 1):
                return True
            continue
        if depth < 2 or not double_four_cells(after, atk_v):
            continue
        # A three: the defender may answer anywhere (he has no winning cell here).
        if all(attacker_wins(after.put(r, dv), atk_v, depth - 1) for r in after.empties()):
            return True
    return False


# ---- tests: the position suite ---------------------------------------------------------------


SUITE = load_positions()


def test_the_suite_has_enough_positions():
    assert len(SUITE) >= 30


@pytest.mark.parametrize(("state", "expected", "note"), SUITE, ids=[n for _, _, n in SUITE])
def test_suite_position(state, expected, note):
    spec = state.spec
    vcf = solve_vcf(state, budget=50_000)
    vct = solve_vct(state, budget=50_000, depth=8)
    if expected == "vcf":
        assert vcf is not None, note
        assert vct is not None, note
    elif expected == "vct":
        assert vcf is None, note
        assert vct is not None, note
    elif expected == "novcf":
        assert vcf is None, note
    else:
        assert vcf is None and vct is None, note
    for proof, threes in ((vcf, False), (vct, True)):
        if proof is None:
            continue
        assert proof.describe(spec, state.ply).startswith(proof.kind + " in ")
        if spec.game == "connect6":
            check_c6_proof(state, proof)
        else:
            check_gomoku_proof(state, proof, threes)


def test_describe_counts_attacker_moves():
    spec = GameSpec.parse("gomoku:15")
    state = build(spec, ["h7", "h8", "h9"], ["a1", "a4", "a7"])
    proof = solve_vcf(state)
    assert proof is not None
    assert proof.describe(spec, state.ply) == "VCF in 2 for black: " + " ".join(
        spec.action_name(a) for a in proof.moves
    )


def test_must_block_the_opponents_four():
    spec = GameSpec.parse("gomoku:15")
    state = build(spec, ["d10", "l4", "l5", "l6"], ["e10", "f10", "g10", "h10"])
    need, cells = threat_defences(state)
    assert need == 1 and [spec.action_name(c) for c in cells] == ["i10"]
    # Two winning cells for the opponent: lost unless we win at once.
    state = build(spec, ["l4", "l5", "l6", "a1"], ["e10", "f10", "g10", "h10"])
    need, cells = threat_defences(state)
    assert need == -1 and sorted(spec.action_name(c) for c in cells) == ["d10", "i10"]
    assert winning_moves(state).size == 0


def test_connect6_threat_defences():
    spec = GameSpec.parse("connect6:19")
    # White (to move after black's turn) faces black's open four: two stones, forced.
    state = build(spec, ["j10", "k10", "l10", "m10", "a19"], ["a1", "a5", "a9", "a13"])
    assert state.current_player == 1 and stones_left_in_turn(state.ply) == 2
    need, cells = threat_defences(state)
    assert need == 2
    # Windows h-m, i-n, j-o: the hitting pairs are {i, n}, {h, n} and {i, o}.
    assert {spec.action_name(c) for c in cells} == {"h10", "i10", "n10", "o10"}
    # A wasted first stone leaves one: no single stone hits every window.
    state.apply("a2")
    need, _ = threat_defences(state)
    assert need == -1


def test_threat_kernels_on_a_known_shape():
    spec = GameSpec.parse("gomoku:15")
    state = build(spec, ["h7", "h8", "h9"], ["a1", "a4", "a7"])
    names = lambda cells: sorted(spec.action_name(c) for c in cells)  # noqa: E731
    assert names(four_moves(state)) == ["h10", "h11", "h5", "h6"]
    # The defender's complete answers to the open three are the two adjacent blocks: after
    # a far block (h5 or h11) black still makes an open four on the other side.
    assert names(three_defences(state, 0)) == ["h10", "h6"]
    assert "h10" not in names(three_moves(state))  # h10 makes a four, not a three


# ---- tests: small boards against the references ------------------------------------------------


def random_board(spec: GameSpec, seed: int, stones: int) -> tuple[GameState | None, Board | None]:
    """`random_state` and its Board (None, None when the game ended)."""
    state = random_state(spec, seed, stones)
    return (None, None) if state is None else (state, Board.of(state))


def random_state(spec: GameSpec, seed: int, stones: int) -> GameState | None:
    rng = np.random.default_rng(seed)
    state = spec.new_game()
    centre_bias = rng.random() < 0.7
    for _ in range(stones):
        legal = state.legal_actions()
        if centre_bias:
            r, c = np.divmod(legal, spec.width)
            d = np.maximum(abs(r - spec.height // 2), abs(c - spec.width // 2))
            p = 1.0 / (1.0 + d)
            move = int(rng.choice(legal, p=p / p.sum()))
        else:
            move = int(rng.choice(legal))
        state.apply(move)
        if state.is_terminal:
            return None
    return state


SMALL = ["gomoku:7x7:k4", "gomoku:7x7:k4:exact", "gomoku:6x6:k4", "gomoku:8x8:k5:exact"]


# Derandomized: the exhaustive check below costs seconds on most boards but many minutes on a
# few (gomoku:7x7:k4:exact, seed 6, 6 stones passed the 600 s timeout on a loaded machine), so
# the examples are the same every run and the suite's time does not depend on the draw.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(board=st.sampled_from(SMALL), seed=st.integers(0, 2**31), stones=st.integers(6, 12))
@example(board="gomoku:6x6:k4", seed=2969, stones=7)
def test_gomoku_claims_are_real_and_simple_wins_found(board, seed, stones):
    spec = GameSpec.parse(board)
    state, b = random_board(spec, seed, stones)
    if state is None:
        return
    av = state.current_player + 1
    for solve, threes in ((solve_vcf, False), (solve_vct, True)):
        proof = solve(state, budget=5_000, depth=6) if threes else solve(state, budget=5_000)
        if proof is None:
            continue
        check_gomoku_proof(state, proof, threes)
        n_attacker = (len(proof.moves) + 1) // 2
        # The exhaustive check plays fours and double-four set-ups, never a three: a VCT can
        # win in fewer attacker moves than it (gomoku:6x6:k4, seed 2969, 7 stones: VCT in 3,
        # fours alone in 4), so a VCT's claim gets one move more, within the same depth of 3
        # (4 took minutes). A win it finds is a real one at any depth.
        depth = n_attacker + (1 if threes else 0)
        if depth <= 3:
            assert attacker_wins(b, av, depth), f"false win {proof.describe(spec, state.ply)}"
    # A double four on the board (and no winning cell for the opponent) must be found.
    if not b.win_cells(3 - av) and (b.win_cells(av) or double_four_cells(b, av)):
        assert solve_vcf(state, budget=5_000) is not None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=st.sampled_from(SMALL[:3]), seed=st.integers(0, 2**31), stones=st.integers(4, 12))
def test_threat_kernels_match_the_reference(board, seed, stones):
    state, b = random_board(GameSpec.parse(board), seed, stones)
    if state is None:
        return
    for p in (0, 1):
        v = p + 1
        if not b.win_cells(v):
            fours = {e for e in b.empties() if b.put(e, v).win_cells(v)}
            assert set(four_moves(state, p).tolist()) == fours
            if not double_four_cells(b, v):  # (else every quiet move keeps a threat)
                threes = {e for e in b.empties() if not b.put(e, v).win_cells(v) and double_four_cells(b.put(e, v), v)}
                assert set(three_moves(state, p).tolist()) == threes
            if not b.win_cells(3 - v) and double_four_cells(b, v):
                assert set(three_defences(state, p).tolist()) == reference_three_defences(b, v)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), stones=st.integers(7, 17))
@example(seed=1153, stones=17)  # a proof whose defender turn faces exactly two threats
def test_connect6_claims_are_real(seed, stones):
    spec = GameSpec.parse("connect6:8")
    state = random_state(spec, seed, stones)
    if state is None:
        return
    proof = solve_vcf(state, budget=3_000, depth=4)
    if proof is not None:
        check_c6_proof(state, proof)
    # The threat count agrees with a brute-force hitting number.
    b = Board.of(state)
    me = state.current_player
    need, _ = threat_defences(state)
    h = hitting_number(b.windows(2 - me, 4), b.empties())
    left = stones_left_in_turn(state.ply)
    assert need == (h if h <= left else -1)
    assert mover_at_ply(state.ply) == me


def test_a_failure_that_holds_at_every_depth_ends_the_deepening():
    from pipeline.tactics.lines.table import new_table
    from pipeline.tactics.lines.vcf import vcf

    spec = GameSpec.parse("gomoku:9")
    # Black's three c5 d5 e5 is closed at b5: its fours are f5 and g5, each blocked at once,
    # and nothing follows. White has played away from it; black is to move.
    state = build(spec, ["c5", "d5", "e5", "a9"], ["b5", "i1", "i9", "a1"])
    assert state.current_player == 0
    runs = {}
    for depth in (2, 12):
        pv = np.zeros(64, dtype=np.int64)
        result, _, nodes = vcf(state.array.copy(), np.int64(1000), np.int64(depth), new_table(10), pv)
        runs[depth] = (result, nodes)
    # Rounds of depth 1 and 2 search the two fours; at depth 2 the line ran out, so no deeper
    # round is searched (each would search the same two fours again).
    assert runs[12] == runs[2] == (0, 4)
