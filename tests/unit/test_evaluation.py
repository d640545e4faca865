"""`zero evaluate`'s match (pipeline.match.evaluation): a checkpoint against a named
opponent, its score with interval, and the board a size-free net may change."""

from pathlib import Path

import pytest

from pipeline.match.evaluation import Evaluation, model_spec

pytestmark = pytest.mark.unit

MODEL = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "gomoku-8x8.pt"


def test_an_evaluation_plays_scores_and_describes_its_match():
    evaluation = Evaluation.setup(MODEL, "random", simulations=8)
    result = evaluation.play(games=2, seed=0, opening_plies=1)
    assert result.games == 2 and result.wins + result.losses + result.draws == 2
    record = evaluation.as_dict()
    assert record["game"] == "gomoku:8x8:k5:freestyle" and record["simulations"] == 8
    assert record["player"] == "gomoku-8x8" and record["forfeits"] == [] and len(record["interval_95"]) == 2
    line = evaluation.describe("random")
    assert line.startswith("gomoku-8x8 vs random on gomoku:8x8:k5:freestyle: ") and "95%; Elo " in line


def test_a_fixed_size_net_keeps_its_board():
    assert str(model_spec(MODEL)) == "gomoku:8x8:k5:freestyle"
    with pytest.raises(ValueError, match="fixed-size net"):
        Evaluation.setup(MODEL, "random", simulations=8, board="9")
