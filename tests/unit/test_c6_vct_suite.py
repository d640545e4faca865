"""The Connect6 VCT suite's tool (issue 79, `pipeline.tools.c6_vct_suite`): the suite file, the
verifier of a claimed VCT (every defender reply to a single threat played out) and the
collection of positions from a match file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.bench.tactics import load_c6_suite
from pipeline.games.base import GameSpec, GameState
from pipeline.tactics.lines.solve import Proof, solve_vcf
from pipeline.tools.c6_vct_suite import (
    TURNS,
    UNVERIFIED,
    candidates,
    load_suite,
    match_candidates,
    match_records,
    position_key,
    starts_turn,
    verify_vct,
)
from tests.unit.test_c6_threat_space import build as build_on

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "tactics" / "connect6_vct.txt"
MATCH = REPO / "reports" / "runs" / "connect6-19x19-defence" / "matches" / "gen-0046-vs-init-80.json"
SMALL = GameSpec.parse("connect6:13")

# connect6:13, black to move: three open threes (rows 2, 5 and 12, columns e-g) and a three on
# row 8 that white closes at b8; the white stones elsewhere are on the edges, out of play.
BLACK = ["c8", "d8", "e8", "e2", "f2", "g2", "e5", "f5", "g5", "e12", "f12", "g12", "k7"]
WHITE = ["b8", "a1", "a4", "a7", "a10", "a13", "m1", "m4", "m10", "m13", "c13", "k13", "c10", "k1"]
# A line the shape of a VCT: f8 makes a single threat (g8 or h8 stops it) with k10 quiet;
# white blocks at g8 with its free stone on m7; h12 and h2 make two open fours (no two stones
# stop them); white's d12 i12 and black's six d2-i2. White's free stone spoils one three at
# most, so black wins after every reply: the verifier must play out all of them.
LINE = "f8 k10 g8 m7 h12 h2 d12 i12 d2 i2"


def build(black: list[str], white: list[str], spec: GameSpec = SMALL) -> GameState:
    """The stones interleaved into a legal game, black first (on the small board)."""
    return build_on(black, white, spec)


def proof_of(line: str, spec: GameSpec = SMALL, winner: int = 0) -> Proof:
    return Proof(winner, [spec.parse_action(m) for m in line.split()], 0, "VCT")


def by_vcf(state: GameState, budget: int) -> Proof | None:
    return solve_vcf(state, budget=budget)


@pytest.fixture(scope="module")
def position() -> GameState:
    state = build(BLACK, WHITE)
    assert state.current_player == 0 and starts_turn(state.ply)
    return state


def test_the_suite_file_parses(tmp_path):
    text = "# a comment\nconnect6:19 | j10 k10 k11 | none\nconnect6:19 | j10 k10 k11 | vct 3\n"
    (tmp_path / "s.txt").write_text(text)
    rows = load_suite(tmp_path / "s.txt")
    assert [turns for _, turns in rows] == [None, 3] and rows[0][0].ply == 3
    (tmp_path / "bad.txt").write_text("connect6:19 | j10 | vct\n")
    with pytest.raises(ValueError, match="bad verdict"):
        load_suite(tmp_path / "bad.txt")
    if not SUITE.exists():
        pytest.skip(f"{SUITE.name} not built yet")
    rows = load_suite(SUITE)
    assert all(starts_turn(s.ply) and not s.is_terminal for s, _ in rows)
    assert all(TURNS[0] <= t <= TURNS[1] for _, t in rows if t is not None)
    assert len({position_key(s) for s, _ in rows}) == len(rows), "a position twice"
    positives = sum(t is not None for _, t in rows)
    assert positives >= 100 and len(rows) - positives >= 100, "the issue's target: 100 of each"


def test_every_reply_to_a_single_threat_is_played_out(position):
    calls = []

    def solve(state: GameState, budget: int) -> Proof | None:
        calls.append(state)
        return by_vcf(state, budget)

    assert verify_vct(position, proof_of(LINE), budget=20_000, solve=solve) is None
    # g8 or h8 with any of the other 139 empty cells (g8 h8 once), less the line's own reply
    assert len(calls) == 2 * 139 - 1 - 1
    assert len({position_key(s) for s in calls}) == len(calls)
    g8, h8 = SMALL.parse_action("g8"), SMALL.parse_action("h8")
    assert all(s.board().reshape(-1)[[g8, h8]].any() for s in calls)


def test_a_reply_without_a_win_refutes_the_proof(position):
    spoiled = SMALL.parse_action("h8")

    def solve(state: GameState, budget: int) -> Proof | None:
        return None if state.board().reshape(-1)[spoiled] else by_vcf(state, budget)

    why = verify_vct(position, proof_of(LINE), budget=20_000, solve=solve)
    assert why is not None and "reply" in why and "h8" in why and "no win found" in why


def test_broken_lines_are_refused(position):
    moves = LINE.split()
    cases = {
        "does not end in the attacker's six": moves[:-1],
        "ends at a defender turn": moves[:3],
        "does not stop every threat": [*moves[:2], "j11", *moves[3:]],  # j11 instead of g8
        "is not on an empty cell": [*moves[:4], "g8", *moves[5:]],
    }
    for reason, line in cases.items():
        why = verify_vct(position, proof_of(" ".join(line)), levels=0)
        assert why is not None and reason in why, (reason, why)
    assert "not the player to move's" in verify_vct(position, proof_of(LINE, winner=1), levels=0)
    # The defender has a window of four of its own: a line that lets it play on is refused.
    white = ["b8", "a1", "a2", "a3", "a4", "m10", "m13", "c13", "k13", "c10", "k1", "m1", "m4", "m7"]
    state = build(BLACK, white)
    why = verify_vct(state, proof_of(LINE.replace("m7", "l12")), levels=0)
    assert why is not None and "the defender can win this turn" in why


def test_a_quiet_turn_is_reported_unverified(position):
    # k10 k11 threaten nothing: every pair of white stones would have to be tried.
    why = verify_vct(position, proof_of("k10 k11 m7 l12 h12 h2 d12 i12 d2 i2"), budget=20_000, solve=by_vcf)
    assert why is not None and why.startswith(UNVERIFIED) and "quiet" in why


def test_a_real_vcf_proof_is_accepted():
    positions = [p for p in load_c6_suite() if p.label == "vcf"][:3]
    for p in positions:
        proof = solve_vcf(p.state, budget=20_000)
        assert proof is not None
        assert verify_vct(p.state, proof, budget=20_000) is None
        assert verify_vct(p.state, Proof(proof.winner, proof.moves[:-2], 0), levels=0) is not None


def test_positions_are_collected_from_a_match_file(tmp_path):
    # Games 1 to 4 of generation 46's match: white lost 1, 2 and 3 (black won 2 and 3 as the
    # opponent, 1 as the player), white won 4; game 1 appears twice.
    match = json.loads(MATCH.read_text())
    match["records"] = [r for r in match["records"] if r["game"] in (1, 2, 3, 4)]
    match["records"].append(match["records"][0])
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    assert [r["game"] for r in match_records([path])] == [1, 2, 3]
    found = match_candidates([path], before=4, log=lambda _: None)
    # Black's first VCF: ply 11 in games 1 and 2 (the turns at plies 3 and 7 before it), ply 47
    # in game 3 (four turns before it); the two games from one opening share ply 3.
    assert [len(m) for m in found] == [3, 7, 3, 7, 31, 35, 39, 43]
    spec = GameSpec.parse("connect6:19")
    for moves in found:
        state = spec.replay(moves)
        assert state.current_player == 0 and starts_turn(state.ply)
    first = spec.replay([spec.parse_action(m) for m in match["records"][0]["moves"][:11]])
    assert solve_vcf(first, budget=20_000) is not None
    assert len(candidates(spec, [found], seed=0)) == 7
