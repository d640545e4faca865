"""External engines named as players: the text form, its options and the clear errors a
user gets for a wrong one (no process is started here)."""

import sys

import pytest

from pipeline.games.base import GameSpec
from pipeline.players.engines import EngineConfig, is_engine_text, parse_engine
from pipeline.players.factory import make_player

pytestmark = pytest.mark.unit

PY = sys.executable


def test_the_text_form_names_protocol_options_and_command():
    engine = parse_engine(f"gomocup[turn=1.5, nodes=20000,faults=5,processes=2,name=embryo]:{PY} -u brain.py --x 'a b'")
    assert engine.protocol == "gomocup" and engine.label == "embryo"
    assert (engine.turn_seconds, engine.nodes, engine.max_faults, engine.processes) == (1.5, 20000, 5, 2)
    assert engine.argv == [PY, "-u", "brain.py", "--x", "a b"]
    plain = parse_engine("htp:mohex --seed 1")
    assert plain.label == "htp:mohex --seed 1" and plain.turn_seconds == 5.0 and plain.max_faults == 3


def test_the_text_form_takes_the_engines_setup():
    engine = parse_engine("htp[swap=1, setup=param_mohex max_games 1000; param_game allow_swap 1 ,turn=2]:mohex")
    assert engine.swap is True and engine.turn_seconds == 2.0 and engine.command == "mohex"
    assert engine.setup == ["param_mohex max_games 1000", "param_game allow_swap 1"]
    assert parse_engine("htp[swap=0]:mohex").swap is False and parse_engine("htp:mohex").swap is None
    # a setup line may hold commas and colons; the bracket closes at "]:"
    brain = parse_engine("gomocup[setup=INFO rule 1;INFO folder C:/x,y,name=b]:pbrain -a")
    assert brain.setup == ["INFO rule 1", "INFO folder C:/x,y"] and brain.label == "b" and brain.command == "pbrain -a"
    assert parse_engine("htp[setup=]:mohex").setup == []
    assert parse_engine("htp[logs=/tmp/engine logs]:mohex").log_dir == "/tmp/engine logs"
    assert parse_engine("htp:mohex").log_dir == "engine-logs"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gomocup[speed=3]:x", "unknown option 'speed=3'"),
        ("htp[swap=maybe]:mohex", "swap: Input should be a valid boolean"),
        ("gomocup[swap=1]:pbrain", "swap: only HTP"),
        ("htp[logs=]:mohex", "log_dir: String should have at least 1 character"),
        ("htp[setup=a,turns=2]:mohex", "unknown option 'turns=2'"),
        ("gomocup", "the command follows a colon"),
        ("htp[turn=2]mohex", "options go in brackets"),
        ("mohex:x", "not an engine"),
        ("gomocup[turn=fast]:x", "turn_seconds: Input should be a valid number"),
        ("gomocup[turn=2:x", "options go in brackets"),
        ("htp[faults=0]:x", "max_faults: Input should be greater than or equal to 1"),
        ("gomocup:", "command"),
        ("htp:'unclosed", "cannot split"),
    ],
)
def test_a_wrong_text_form_is_one_clear_error(text, message):
    with pytest.raises(ValueError, match=message) as error:
        parse_engine(text)
    assert "\n" not in str(error.value) and type(error.value) is ValueError


def test_only_the_two_protocols_are_engines():
    assert is_engine_text("gomocup:pbrain") and is_engine_text("htp[turn=1]:mohex")
    assert not is_engine_text("pure:1000") and not is_engine_text("models/champion.pt")
    assert not is_engine_text("gomocup")


@pytest.mark.parametrize(
    ("text", "spec", "message"),
    [
        (f"gomocup:{PY}", GameSpec(game="hex", size=7), "five in a row"),
        (f"gomocup:{PY}", GameSpec(game="gomoku", size=7, k=4), "five in a row"),
        (f"htp:{PY}", GameSpec(game="connect6", size=10), "HTP engines play hex"),
        ("htp:no-such-engine --fast", GameSpec(game="hex", size=7), "'no-such-engine' is neither a program"),
        (f"htp[swap=1]:{PY}", GameSpec(game="hex", size=7), "swap=1 tells the engine the swap rule is on, but hex:7"),
    ],
)
def test_make_player_refuses_an_engine_that_cannot_play_here(text, spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(text, spec)


def test_an_engine_for_the_game_is_made_without_starting_anything():
    player = make_player(f"gomocup:{PY} brain.py", GameSpec(game="gomoku", size=9))
    assert player.name == f"gomocup:{PY} brain.py" and player.slots == []
    assert EngineConfig(protocol="htp", command="mohex").label == "htp:mohex"
