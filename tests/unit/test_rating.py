"""The rating: a Bradley-Terry fit with pure-MCTS levels as fixed anchors."""

import math

import pytest

from pipeline.match.rating import anchor_elo, expected_score, fit_ratings

pytestmark = pytest.mark.unit


def games(a: str, b: str, wins: int, losses: int, draws: int = 0):
    return [(a, b, 1.0)] * wins + [(a, b, 0.0)] * losses + [(a, b, 0.5)] * draws


def test_anchors_follow_the_convention():
    assert anchor_elo("pure:1000", 1000, 100) == 0
    assert anchor_elo("pure:4000", 1000, 100) == pytest.approx(200)
    assert anchor_elo("pure:500", 1000, 120) == pytest.approx(-120)
    assert anchor_elo("gen-0003", 1000, 100) is None


def test_one_player_against_one_anchor_matches_the_logistic_formula():
    # 30 wins, 10 losses against an anchor at 0, plus one virtual draw: score 30.5 / 41.
    r = fit_ratings(games("x", "pure:1000", 30, 10), {"pure:1000": 0.0})
    p = 30.5 / 41
    assert r["pure:1000"] == 0.0
    assert r["x"] == pytest.approx(400 * math.log10(p / (1 - p)), abs=0.5)
    assert expected_score(r["x"], 0.0) == pytest.approx(p, abs=1e-3)


def test_a_sweep_is_finite_and_ranks_above_a_near_sweep():
    r = fit_ratings(games("a", "pure:1000", 10, 0) + games("b", "pure:1000", 9, 1), {"pure:1000": 0.0})
    assert math.isfinite(r["a"]) and r["a"] > r["b"] > 0


def test_players_between_anchors_and_linked_through_each_other():
    anchors = {"pure:500": -100.0, "pure:2000": 100.0}
    rows = games("g1", "pure:500", 10, 10) + games("g2", "pure:2000", 10, 10) + games("g2", "g1", 15, 5)
    r = fit_ratings(rows, anchors)
    assert r["pure:500"] == -100.0 and r["pure:2000"] == 100.0
    assert -130 < r["g1"] < -40 and 40 < r["g2"] < 130
    assert r["g2"] > r["g1"]
    # Order of the games does not matter.
    assert fit_ratings(list(reversed(rows)), anchors)["g1"] == pytest.approx(r["g1"], abs=1e-6)


def test_without_anchors_only_differences_count():
    r = fit_ratings(games("a", "b", 3, 1), {})
    assert r["a"] + r["b"] == pytest.approx(0, abs=1e-6) and r["a"] > r["b"]
    assert fit_ratings([], {}) == {}
