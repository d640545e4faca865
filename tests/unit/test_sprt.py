"""The sequential gate: its log-likelihood ratio by hand, and its error rates with
simulated players of known strength."""

import math

import numpy as np
import pytest
from pydantic import ValidationError

from pipeline.games.base import GameSpec
from pipeline.match.arena import play_sequential
from pipeline.match.sprt import SPRT, SPRTConfig, VsChampionTest, VsPureTest, game_llr

pytestmark = pytest.mark.unit


def test_llr_and_bounds_by_hand():
    cfg = SPRTConfig(p0=0.5, p1=0.8, alpha=0.05, beta=0.1, max_games=40)
    assert cfg.bounds == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert cfg.bounds == pytest.approx((-2.2513, 2.8904), abs=1e-4)
    t = SPRT(cfg)
    for s in (1, 1, 0.5, 0, 1):
        t.add(s)
    # 3 wins, 1 draw (half a win, half a loss), 1 loss: 3.5 * ln(0.8/0.5) + 1.5 * ln(0.2/0.5)
    expected = 3.5 * math.log(1.6) + 1.5 * math.log(0.4)
    assert t.llr == pytest.approx(expected)
    assert t.llr == pytest.approx(0.2706, abs=1e-4)
    assert t.decision is None and t.games == 5
    assert game_llr(1.0, 0.5, 0.8) == pytest.approx(math.log(1.6))
    for _ in range(5):
        t.add(1)
    assert t.llr == pytest.approx(2.6206, abs=1e-4) and t.decision is None  # 5 more wins: not yet
    t.add(1)
    assert t.llr >= cfg.bounds[1] and t.decision == "H1"
    s = t.summary()
    assert s["games"] == 11 and s["accepted"] and not s["truncated"]


def test_losses_reject_and_the_limit_decides_by_sign():
    t = SPRT(SPRTConfig(p0=0.5, p1=0.8, max_games=40))
    t.add(0)
    t.add(0)
    assert t.decision is None
    t.add(0)  # 3 * ln(0.4) = -2.75 < -2.25
    assert t.decision == "H0"
    short = SPRT(SPRTConfig(p0=0.5, p1=0.8, max_games=4))
    for s in (1, 1, 1, 0):  # llr = 3 ln 1.6 + ln 0.4 = 0.49: inside the bounds, above 0
        short.add(s)
    assert short.decision == "H1" and short.truncated
    with pytest.raises(ValueError):
        short.add(0.3)


def test_config_is_validated_and_sections_keep_their_own_defaults():
    with pytest.raises(ValidationError, match="p0"):
        SPRTConfig(p0=0.6, p1=0.5)
    assert VsPureTest(max_games=10).p1 == 0.8
    assert VsChampionTest(max_games=10).p0 == 0.35


def simulated_error_rate(true_score: float, cfg: SPRTConfig, matches: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    accepted, games = 0, 0
    for _ in range(matches):
        t = SPRT(cfg)
        while t.decision is None:
            t.add(float(rng.random() < true_score))
        accepted += t.decision == "H1"
        games += t.games
    return accepted / matches, games / matches


@pytest.mark.parametrize(("p0", "p1", "alpha", "beta"), [(0.5, 0.8, 0.05, 0.1), (0.35, 0.5, 0.1, 0.1)])
def test_error_rates_are_about_those_asked_for(p0, p1, alpha, beta):
    # Without a game limit the test is Wald's: at p0 it passes with probability about
    # alpha (Wald's bound is alpha / (1 - beta)), at p1 it fails with about beta.
    cfg = SPRTConfig(p0=p0, p1=p1, alpha=alpha, beta=beta, max_games=100_000)
    false_pass, _ = simulated_error_rate(p0, cfg, 2000, seed=1)
    true_pass, mean_games = simulated_error_rate(p1, cfg, 2000, seed=2)
    assert false_pass <= alpha / (1 - beta) + 0.02
    assert 1 - true_pass <= beta / (1 - alpha) + 0.02
    assert false_pass > 0 and true_pass < 1  # the test is not trivially strict or lax
    # A player far above p1 is accepted quickly; one far below is rejected quickly.
    assert simulated_error_rate(0.98, cfg, 200, seed=3)[0] == 1.0
    assert simulated_error_rate(0.02, cfg, 200, seed=4)[0] == 0.0
    assert mean_games < 200


class ScriptedPlayer:
    """Plays the first legal move: a deterministic player whose games are decided by colour."""

    def __init__(self, name: str):
        self.name = name

    def start(self, spec, games, seed):
        pass

    def choose(self, games, states):
        return [int(s.legal_actions()[0]) for s in states]

    def observe(self, game, state, action):
        pass


def test_sequential_match_plays_paired_rounds_until_decided():
    spec = GameSpec.parse("gomoku:5x5:k4")
    cfg = SPRTConfig(p0=0.4, p1=0.6, max_games=12)
    result = play_sequential(
        spec, ScriptedPlayer("a"), ScriptedPlayer("b"), cfg, seed=5, opening_plies=2, pairs_per_round=2
    )
    recs = result.records
    # Rounds of 2 pairs: 4, 8, 12 games at most; both colours per opening.
    assert len(recs) % 4 == 0 and len(recs) <= 12
    for pair in range(len(recs) // 2):
        a, b = [r for r in recs if r.pair == pair]
        assert a.opening == b.opening and a.player_first != b.player_first
    openings = {tuple(r.opening) for r in recs}
    assert len(openings) == len(recs) // 2  # every pair has its own opening
    assert result.sprt["games"] == len(recs) == result.match.games
    # A first-legal-move mirror match is decided by colour, so each pair splits 1-1.
    assert result.match.score == 0.5
