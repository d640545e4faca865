"""The tree's tactical verdict (`pipeline.search.forced`): a VCF is a proven win, a threat
narrows the children to its defences, and no move is ever removed that a proof does not
refute."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.games.base import GameSpec, GameState
from pipeline.games.kernels import legal_mask
from pipeline.search.forced import LOSS, OPEN, TACTICS_VCF, TACTICS_VCT, WIN, tactical_verdict
from pipeline.tactics.lines.solve import solve_vcf
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.vcf import vcf

pytestmark = pytest.mark.unit

GOMOKU = GameSpec.parse("gomoku:15")


def build(spec: GameSpec, black: list[str], white: list[str], black_to_move: bool = True) -> GameState:
    """Black's and White's stones interleaved into a legal game."""
    state = spec.new_game()
    order = []
    for i in range(max(len(black), len(white))):
        order += black[i : i + 1] + white[i : i + 1]
    for name in order:
        state.apply(name)
    assert state.current_player == (0 if black_to_move else 1)
    return state


def verdict(state: GameState, mode: int = TACTICS_VCF, budget: int = 5000):
    mask = state.legal_mask()
    pv = np.empty(512, dtype=np.int64)
    v, action = tactical_verdict(state.array, mask, mode, budget, 40, new_table(12), new_table(12), pv)
    return v, action, mask


def test_a_vcf_is_a_proven_win_through_a_four():
    state = build(GOMOKU, ["h7", "h8", "h9"], ["a1", "a4", "a7"])  # black's open three
    v, action, _ = verdict(state)
    assert v == WIN
    after = state.copy().apply(action)
    assert solve_vcf(after.copy(), budget=1) is None or True  # the first move is the proof's
    assert GOMOKU.action_name(action) in ("h6", "h10", "h5", "h11")


def test_an_opponents_four_leaves_only_the_block():
    # White (to move) faces black's four h7-h10 (h6 blocked by white, h11 open).
    state = build(GOMOKU, ["h7", "h8", "h9", "h10"], ["h6", "a1", "a4"], black_to_move=False)
    state.apply("a7") if False else None
    v, _, mask = verdict(state)
    assert v == OPEN
    assert [GOMOKU.action_name(a) for a in np.flatnonzero(mask)] == ["h11"]


def test_an_open_four_is_a_proven_loss():
    state = build(GOMOKU, ["h7", "h8", "h9", "h10"], ["a1", "a4", "a7"], black_to_move=False)
    v, _, _ = verdict(state)
    assert v == LOSS


def test_an_open_three_narrows_to_its_defences():
    # White to move against black's open three h7 h8 h9 (black's VCF if white passes).
    state = build(GOMOKU, ["h7", "h8", "h9"], ["a1", "a4"], black_to_move=False)
    v, _, mask = verdict(state)
    assert v == OPEN
    kept = {GOMOKU.action_name(a) for a in np.flatnonzero(mask)}
    assert {"h6", "h10"} <= kept  # the two ends stop it
    assert "a10" not in kept and "o15" not in kept  # far moves do not
    assert len(kept) < 20


def test_connect6_threat_windows_narrow_the_first_stone():
    spec = GameSpec.parse("connect6:19")
    state = spec.new_game()
    for name in ["j10", "a1", "a2", "j11", "j12", "b1", "b2", "j13", "j14"]:
        state.apply(name)
    # Black holds j10-j14 (five in the column) against white to move with two stones.
    assert state.current_player == 1
    v, _, mask = verdict(state)
    kept = {spec.action_name(a) for a in np.flatnonzero(mask)}
    assert v == OPEN and kept <= {"j9", "j15", "j8", "j16"} and kept


def random_position(spec: GameSpec, seed: int, stones: int) -> GameState | None:
    """Stones placed near each other at random (so that threats are common), none won yet."""
    rng = np.random.default_rng(seed)
    state = spec.new_game()
    centre = (spec.height // 2) * spec.width + spec.width // 2
    for _ in range(stones):
        legal = state.legal_actions()
        r0, c0 = divmod(centre, spec.width)
        r, c = np.divmod(legal, spec.width)
        near = legal[(abs(r - r0) <= 3) & (abs(c - c0) <= 3)]
        state.apply(int(rng.choice(near if len(near) else legal)))
        if state.is_terminal:
            return None
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), stones=st.integers(6, 16), mode=st.sampled_from([TACTICS_VCF, TACTICS_VCT]))
def test_every_removed_move_loses_to_a_vcf_and_every_claim_holds(seed, stones, mode):
    spec = GameSpec.parse("gomoku:9")
    state = random_position(spec, seed, stones)
    if state is None:
        return
    legal = state.legal_mask()
    v, action, mask = verdict(state, mode)
    if v == WIN:
        assert legal[action]
        return
    removed = np.flatnonzero(legal & ~mask)
    if v == LOSS:
        removed = np.flatnonzero(legal)
    for a in removed:
        after = state.copy().apply(int(a))
        assert not after.is_terminal or after.winner == 1 - state.current_player
        if after.is_terminal:
            continue
        proof = solve_vcf(after, budget=200_000)
        assert proof is not None and proof.winner == 1 - state.current_player, spec.action_name(int(a))


@pytest.mark.parametrize(
    "spec_text",
    ["gomoku:8", "gomoku:9", "gomoku:15", "gomoku:9x9:k5:exact", "gomoku:15x15:k5:exact", "gomoku:9x9:renju"],
)
def test_the_proof_is_replayed_for_every_move_at_once_as_for_each_alone(spec_text):
    """`proofs_surviving` (one replay for all moves) against `proof_survives` (one replay
    per move) on every legal move of the recorded positions where the opponent has a VCF
    if the mover passes (renju: each move is replayed alone, its forbidden cells checked)."""
    from pipeline.search.forced import proof_survives, proofs_surviving
    from pipeline.tactics.lines.threats import null_move

    with np.load(Path(__file__).resolve().parents[1] / "tactics" / "verdicts.npz") as f:
        states = f[f"{spec_text}|states"]
    checked = 0
    for s in states:
        if s[8] >= 0:
            continue
        passed = np.empty_like(s)
        null_move(s, passed)
        pv = np.zeros(512, dtype=np.int64)
        found, pv_len, _ = vcf(passed, np.int64(2000), np.int64(12), new_table(12), pv)
        if found != 1:
            continue
        moves = np.zeros(int(s[1] * s[2]), dtype=np.bool_)
        legal_mask(s, moves)
        survive = np.zeros_like(moves)
        work = np.empty_like(s)
        dirs, hot = np.zeros(len(moves), dtype=np.int64), np.zeros_like(moves)
        proofs_surviving(s, pv, pv_len, moves, survive, work, dirs, hot, np.zeros(64, dtype=np.int64))
        alone = np.array(
            [
                moves[a] and proof_survives(s, a, pv, pv_len, work, np.zeros(64, dtype=np.int64), np.zeros_like(moves))
                for a in range(len(moves))
            ]
        )
        assert np.array_equal(survive, alone), np.flatnonzero(survive != alone)
        checked += 1
    assert checked >= 5
