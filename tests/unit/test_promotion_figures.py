"""The figures after the first `make run`, as a newcomer reads them: reports/promotion.json
and the MLflow `strength` run name the ladder's figures alike (`beaten` and `rating` in
both; `level_played` and `next_level` in MLflow and the report), and the report says what
the rating means: an estimate with its interval, not a level beaten."""

import math
from types import SimpleNamespace

import pytest

import pipeline.runtime.tracking
from pipeline.config import load_params
from pipeline.match.games_table import replace_generation
from pipeline.runtime.workspace import Paths, State
from pipeline.stages import promote
from pipeline.stages.interface import PromotionReport, SPRTReport
from pipeline.stages.report import header_lines, rating_cell, replay_draws_line, strength_lines

pytestmark = pytest.mark.unit

SPRT = SPRTReport(
    p0=0.5,
    p1=0.8,
    alpha=0.05,
    beta=0.1,
    max_games=40,
    games=10,
    score=1.0,
    llr=4.7,
    lower_bound=-2.25,
    upper_bound=2.89,
    decision="H1",
    accepted=True,
    truncated=False,
)


def sweep(generation: int, opponent: str, games: int = 10) -> list[dict]:
    """`games` wins of generation `generation` against `opponent`, both colours."""
    player = f"gen-{generation:04d}"
    return [
        {"generation": generation, "match": "vs_pure", "game": i, "pair": i // 2, "player": player}
        | {"opponent": opponent, "player_first": i % 2 == 0, "score": 1.0, "plies": 20}
        for i in range(games)
    ]


def promotion(promoted: bool, beaten: int | None, after: int, rating: float | None = 428.9) -> PromotionReport:
    return PromotionReport(
        generation=1,
        promoted=promoted,
        reasons=[],
        ladder_before=500,
        ladder_after=after,
        candidate_hash="c",
        learner_hash="c",
        champion_generation=1 if promoted else 0,
        champion_hash="c",
        model_version=None,
        rating=rating,
        strongest_level_beaten=beaten,
        vs_pure_sprt=SPRT,
        vs_champion_sprt=None,
    )


def test_a_sweep_of_the_first_level_is_rated_from_those_games_with_its_error(tmp_path):
    params = load_params(None)  # the defaults: the ladder from pure:500, pure:1000 at 0 Elo
    paths = Paths(tmp_path)
    replace_generation(paths.games_table, 1, sweep(1, "pure:500"))
    ratings, errors = promote.rating_fit(params, paths)
    assert ratings["pure:500"] == -100.0 and errors["pure:500"] == 0.0
    # 10 wins of 10 and one virtual draw: 10.5 of 11 against pure:500, 529 Elo above it.
    assert ratings["gen-0001"] == pytest.approx(-100 + 400 * math.log10(10.5 / 0.5), abs=0.05)
    assert round(ratings["gen-0001"], 1) == 428.9
    # The curvature of ten games: a standard error of 400 / ln 10 / sqrt(11 * 21/22 * 1/22).
    assert errors["gen-0001"] == pytest.approx(400 / math.log(10) / math.sqrt(11 * 21 / 484), rel=1e-3)
    assert rating_cell(ratings["gen-0001"], errors["gen-0001"]) == "429 ± 493"
    # More games at more levels narrow it.
    replace_generation(paths.games_table, 2, sweep(2, "pure:1000", 30))
    assert promote.rating_fit(params, paths)[1]["gen-0002"] < errors["gen-0001"]


def test_promotion_json_carries_the_level_beaten_not_the_next_level():
    assert promotion(True, 500, 1000).metrics() == {
        "promotion.json": {"decision": "promoted", "beaten": 500, "rating": 428.9}
    }
    assert promotion(False, None, 500, None).metrics() == {"promotion.json": {"decision": "refused", "beaten": 0}}


def test_mlflow_logs_the_same_figures_under_the_same_names(monkeypatch, tmp_path):
    logged = {}

    def log_strength(uri, spec, generation, metrics, tags=None):
        logged.update(metrics)

    monkeypatch.setattr(pipeline.runtime.tracking, "log_strength", log_strength)
    monkeypatch.setattr(pipeline.runtime.tracking, "generation_tags", lambda root, generation: {})
    state = State(generation=1, ladder=1000, champion_generation=1, games_played=400)
    state.history.append({"generation": 1, "ladder": 500, "promoted": True})
    p = SimpleNamespace(
        evaluation=SimpleNamespace(
            vs_pure=SimpleNamespace(score=1.0, sprt=SPRT), vs_champion=None, classical=None, generation=1
        ),
        state=state,
        ladder_before=500,
        passed=True,
        generation=1,
    )
    context = SimpleNamespace(
        paths=Paths(tmp_path), tracking_uri="sqlite:///unused.db", params=SimpleNamespace(game=None)
    )
    promote.log_strength_of(context, p, 428.9)
    assert (logged["level_played"], logged["beaten"], logged["next_level"]) == (500, 500, 1000)
    assert "ladder" not in logged  # the old name, which meant the level played (promotion.json's: the next)
    headline = promotion(True, 500, 1000).metrics()["promotion.json"]
    assert all(logged[name] == headline[name] for name in ("beaten", "rating"))


def test_the_report_says_which_level_was_beaten_and_what_the_rating_is():
    params = load_params(None)
    entry = {
        "generation": 1,
        "games_played": 400,
        "ladder": 500,
        "vs_pure_score": 1.0,
        "vs_pure_interval": [0.72, 1.0],
        "vs_pure_games": 10,
        "vs_pure_llr": 4.7,
        "promoted": True,
        "seconds": {"selfplay": 81, "train": 72},
    }
    state = State(generation=1, ladder=1000, champion_generation=1, games_played=400, history=[entry])
    header = " ".join(header_lines(params, state, None))
    assert "strongest level beaten pure:500 (`beaten`); the next candidate plays pure:1000 (`next_level`)" in header
    fresh = " ".join(header_lines(params, State(ladder=500), None))
    assert "no pure-MCTS level beaten yet (`beaten`); the next candidate plays pure:500" in fresh
    lines = strength_lines(params, [entry], {1: 428.9}, {1: 251.4})
    text = " ".join(lines)
    assert "rating (Elo, 95%)" in text and "not a level it beat" in text
    row = lines[-1].split("|")
    assert row[9].strip() == "500" and row[10].strip() == "429 ± 493"


def test_the_report_says_how_often_a_position_is_drawn():
    """steps x batch over one generation's positions, whatever the window: 100 x 256 over
    1,280 positions is 20 draws; no line before a generation has kept any."""
    params = load_params(overrides={"train.steps": 100, "train.batch_size": 256, "train.window": 8})
    (line, blank) = replay_draws_line(params, [{"generation": 45, "positions": 1280}])
    assert "about 20.0 times" in line and "1,280 positions" in line and "generation 45" in line
    assert "window of 8" in line and blank == ""
    assert replay_draws_line(params, []) == []
    assert replay_draws_line(params, [{"generation": 1}]) == []
