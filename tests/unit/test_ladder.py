"""The ladder in params: a rising list of pure-MCTS levels; a pass moves one level up."""

import pytest

from pipeline.config import EvaluateConfig, ParamsError, load_params

pytestmark = pytest.mark.unit


def test_a_pass_moves_one_level_up_and_the_top_stays():
    cfg = EvaluateConfig()
    assert cfg.ladder == [500, 1000, 2000, 4000, 8000, 16000, 32000]
    assert cfg.next_level(500) == 1000
    assert cfg.next_level(16000) == 32000
    assert cfg.next_level(32000) == 32000
    assert cfg.next_level(1500) == 2000  # a level from an older state: the next one above it


@pytest.mark.parametrize("ladder", [[], [1000, 500], [500, 500], [0, 10]])
def test_a_ladder_that_does_not_rise_is_one_clear_error(ladder):
    with pytest.raises(ParamsError, match="evaluate.ladder"):
        load_params(None, {"evaluate.ladder": ladder})


def test_the_old_gate_keys_are_named_in_the_error():
    with pytest.raises(ParamsError, match="evaluate.ladder_start"):
        load_params(None, {"evaluate.ladder_start": 500})
