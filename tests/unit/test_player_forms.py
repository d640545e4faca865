"""A player's text form that names no player is one error listing the forms (issue 42):
`zero evaluate --vs bogus:1` used to answer "no such checkpoint"."""

import pytest

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players import base
from pipeline.players.factory import make_player

pytestmark = pytest.mark.unit

SPEC = GameSpec(game="gomoku", size=7, k=4)
FORMS = ("random", "pure:N", "classical:N", "gomocup:COMMAND", "htp:COMMAND", "net:PATH", "dqn:PATH")


@pytest.mark.parametrize("text", ["bogus:1", "mcts:200", "Pure:5"])
def test_an_unknown_prefix_lists_the_player_forms(text):
    with pytest.raises(ValueError, match="no such player") as caught:
        make_player(text, SPEC)
    message = str(caught.value)
    assert text in message and "no such checkpoint" not in message
    for form in FORMS:
        assert form in message


def test_a_checkpoint_path_with_a_colon_is_still_a_checkpoint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_checkpoint(tmp_path / "run:3.pt", PolicyValueNet(SPEC, NetSpec(blocks=1, channels=8, value_hidden=8)))
    assert make_player("run:3.pt", SPEC).name == "run:3"
    # net:PATH and a missing plain path still say what is missing.
    for text in ("net:missing.pt", "missing.pt"):
        with pytest.raises(ValueError, match="no such checkpoint"):
            make_player(text, SPEC)


def test_one_position_check():
    assert not hasattr(base, "_check_position")
    state = GameSpec(game="gomoku", size=3, k=3).new_game()
    for action in (0, 3, 1, 4, 2):
        state.apply(action)
    with pytest.raises(ValueError, match="the game is over"):
        base.check_position(state)
