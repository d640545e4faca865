"""The Connect6 holding-turn search and the opening screen built on it, on positions from
generation 78's lost white games (2026-12-06 audit): after black's first turn in the suite
opening l7 g13 i13, white has no turn that meets black's VCF; in m7 k10 j9 it has one."""

import pytest

from pipeline.games.base import GameSpec
from pipeline.match.opening_screen import screen_openings
from pipeline.tactics.lines.c6_holding import counter_threat_cells, holding_turn, vct_holding_turn
from pipeline.tactics.lines.solve import near_cells, solve_opponent_vcf, solve_vcf, solve_vct

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("connect6:19")


def names(cells):
    return {SPEC.action_name(int(a)) for a in cells}


def test_a_lost_turn_start_has_no_holding_turn_and_a_threatened_one_finds_its_turn():
    lost = SPEC.replay(["l7", "g13", "i13", "k6", "j7"])
    verdict = holding_turn(lost)
    assert verdict.threatened and verdict.lost and verdict.turn is None and verdict.tried > 100
    # The four white made in the game (h13 f13) is one of the counter-threat cells' turns:
    # a delay, not counted as holding unless asked for.
    assert {"f13", "h13", "d13", "e13"} <= names(counter_threat_cells(lost))

    held = SPEC.replay(["m7", "k10", "j9", "n6", "o7"])
    verdict = holding_turn(held)
    assert verdict.threatened and not verdict.lost
    after = held.copy()
    for a in verdict.turn:
        after.apply(a)
    assert solve_vcf(after, budget=20_000) is None  # the turn holds at the confirming budget
    assert solve_opponent_vcf(held, budget=20_000)[0] is not None  # and was needed


def test_an_unthreatened_start_is_not_lost_and_other_games_and_mid_turn_are_refused():
    quiet = holding_turn(SPEC.replay(["i9", "k10", "k8", "j10", "k11"]))
    assert not quiet.threatened and not quiet.lost and quiet.tried == 0
    with pytest.raises(ValueError, match="Connect6"):
        holding_turn(GameSpec.parse("gomoku:15").new_game())
    with pytest.raises(ValueError, match="two-stone turn"):
        holding_turn(SPEC.replay(["j10", "k10"]))  # white's second stone to come


def test_the_vct_holding_turn_finds_the_turn_that_leaves_no_vct_or_says_none_was_found():
    # Generation 78's white losses (2026-12-06): at ply 5 of i8 g7 g9 white played a turn
    # after which black had a VCT in 5; i10 h8 leaves none.
    start = SPEC.replay(["i8", "g7", "g9", "j9", "g8"])
    verdict = vct_holding_turn(start)
    assert verdict.threatened and names(verdict.turn) == {"i10", "h8"}
    after = start.copy().apply(verdict.turn[0]).apply(verdict.turn[1])
    assert solve_vct(after, budget=20_000) is None
    lost = start.copy().apply(SPEC.parse_action("h7")).apply(SPEC.parse_action("f9"))  # a turn away from it
    assert solve_vct(lost, budget=2_000) is not None
    # The nearest cells first: those next to the opponent's stones (distance 1) before the rest.
    cells = near_cells(start, 2)
    assert len(cells) == 47 and names(cells[:3]) <= names(near_cells(start, 1))
    # Game 16 at ply 9: every turn within two cells leaves black a VCT.
    gone = vct_holding_turn(SPEC.replay(["g9", "m7", "k7", "f10", "g11", "l7", "j7", "i7", "n7"]))
    assert gone.lost and gone.tried == 2556
    with pytest.raises(ValueError, match="two-stone turn"):
        vct_holding_turn(SPEC.replay(["j10", "k10"]))


class Scripted:
    """Plays each game's moves in the order given."""

    name = "scripted"

    def __init__(self, moves: list[list[str]]):
        self.queues = [[SPEC.parse_action(m) for m in game] for game in moves]

    def start(self, spec, games, seed):
        assert games == len(self.queues)

    def choose(self, games, states):
        return [self.queues[g].pop(0) for g in games]

    def observe(self, game, state, action):
        pass


def test_the_screen_drops_an_opening_lost_after_the_champions_turn_and_keeps_a_held_one():
    openings = [[SPEC.parse_action(m) for m in o.split()] for o in ("l7 g13 i13", "i9 k10 k8")]
    verdicts = screen_openings(SPEC, Scripted([["k6", "j7"], ["j10", "k11"]]), openings)
    assert [v.lost for v in verdicts] == ["white", None]
    assert verdicts[0].turn == "k6 j7" and "white has no turn that meets black's VCF" in verdicts[0].reason
    assert "neither side found lost" in verdicts[1].reason
    gomoku = GameSpec.parse("gomoku:15")
    passed = screen_openings(gomoku, Scripted([]), [[0, 1, 2]])
    assert passed[0].lost is None and "Connect6 only" in passed[0].reason
