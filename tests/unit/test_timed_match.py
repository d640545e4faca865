"""Matches by time (`zero evaluate --seconds`, `zero tournament --seconds`): a net made by
time thinks for its time, however many simulations that reaches, and reports them; pure
MCTS gets the time at each move; an engine is told it through its protocol (Gomocup
`INFO timeout_turn`, HTP `time_settings 0 S 1`); --seconds with --simulations is one
clear error. The timings here only bound the time from above, with a generous margin."""

import json
import sys
import time
from pathlib import Path

import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.match.evaluation import Evaluation
from pipeline.match.tournament import GAMES_FILE, Tournament
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players.factory import make_player, play_search

pytestmark = pytest.mark.unit

GOMOKU = GameSpec(game="gomoku", size=7, k=5)
HEX = GameSpec(game="hex", size=5)
FAKES = Path(__file__).resolve().parents[1] / "engines"
MARGIN = 1.5  # seconds a move may run past its time here (a shared, loaded test machine)


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory) -> Path:
    torch.manual_seed(0)
    net = PolicyValueNet(GOMOKU, NetSpec(blocks=1, channels=8))
    return save_checkpoint(tmp_path_factory.mktemp("timed") / "tiny-7x7.pt", net)


def test_a_net_by_time_thinks_for_its_time_and_more_time_reaches_more_simulations(tiny_net):
    player = make_player(str(tiny_net), GOMOKU, play_search(GOMOKU, 16), seconds=0.05)
    state = GOMOKU.replay([GOMOKU.centre_action, 0])
    player.think(state, budget=1)  # the compiled search loaded, not on the clock
    short = player.think(state)  # its own time: 0.05 s
    longer = player.think(state, seconds=0.5)
    assert 0 < short.simulations < longer.simulations
    assert longer.simulations > 16  # the time alone bounds it, not the search's 16 simulations
    assert short.seconds < 0.05 + MARGIN and 0.5 <= longer.seconds < 0.5 + MARGIN
    # Given a budget, it is the budget's search, as before.
    assert player.think(state, budget=8).simulations == 8
    # Asked for several games at once (a lockstep caller), each game gets the whole time.
    player.start(GOMOKU, 2, 0)
    started = time.perf_counter()
    assert len(player.choose([0, 1], [state, state.copy()])) == 2
    assert time.perf_counter() - started >= 2 * 0.05


def test_an_evaluation_by_time_reports_each_sides_simulations_a_move(tiny_net):
    evaluation = Evaluation.setup(tiny_net, "pure:5000", simulations=16, seconds=0.03)
    result = evaluation.play(games=2, seed=0, opening_plies=2)
    assert result.games == 2
    for record in evaluation.records:
        mine, theirs = record.simulations
        assert len(mine) == len(record.seconds[0]) > 0 and len(theirs) == len(record.seconds[1]) > 0
        assert max(mine) > 0 and max(theirs) > 0  # 0 where the root was already decided
        assert max(record.seconds[0] + record.seconds[1]) < 0.03 + MARGIN
    summary = evaluation.as_dict()
    assert summary["seconds"] == 0.03 and summary["simulations"] is None
    sims = summary["simulations_a_move"]
    assert sims["player"]["name"] == "tiny-7x7" and sims["player"]["counts"] == "simulations"
    assert sims["opponent"]["counts"] == "playouts" and sims["opponent"]["median"] > 0
    assert sims["player"]["mean"] > 0 and sims["player"]["median"] > 0
    assert summary["seconds_a_move"]["player"]["max"] < 0.03 + MARGIN
    assert all("simulations_a_move" in game for game in summary["records"])
    lines = evaluation.describe("pure:5000").splitlines()
    assert lines[1].startswith("by time, 0.03 s a move: tiny-7x7 median ") and "playouts a move" in lines[1]


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
def test_seconds_and_simulations_together_are_one_clear_error(command, tiny_net, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    players = ["--model", str(tiny_net), "--vs", "random"] if command == "evaluate" else [str(tiny_net), "random"]
    argv = [command, *players, "--seconds", "0.1", "--simulations", "50", "--games", "2"]
    if command == "tournament":
        argv += ["--out", str(tmp_path / "t")]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--simulations and --seconds" in lines[0] and "Traceback" not in result.output
    assert not (tmp_path / "t").exists()


def fake(protocol: str, log: Path, options: str = "") -> str:
    script = FAKES / f"fake_{protocol}.py"
    return f"{protocol}{options}:{sys.executable} {script} --log {log}"


def sent(log: Path) -> list[str]:
    return [line for p in sorted(log.parent.glob(f"{log.name}.*")) for line in p.read_text().splitlines()]


def test_an_engine_is_told_the_time_a_move_through_its_protocol(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the engines' logs
    brain = make_player(fake("gomocup", tmp_path / "brain"), GOMOKU, seconds=0.25)
    with brain:
        brain.think(GOMOKU.new_game())
    assert brain.config.turn_seconds == 0.25 and "INFO timeout_turn 250" in sent(tmp_path / "brain")

    hex_engine = make_player(fake("htp", tmp_path / "hex"), HEX, seconds=3)
    with hex_engine:
        hex_engine.think(HEX.new_game())
    assert "time_settings 0 3 1" in sent(tmp_path / "hex")  # GTP's whole seconds: 3 s byo-yomi, 1 stone

    # The engine's own turn= is kept; without --seconds, its default.
    assert make_player(fake("gomocup", tmp_path / "b", "[turn=2]"), GOMOKU, seconds=0.25).config.turn_seconds == 2
    assert make_player(fake("gomocup", tmp_path / "c"), GOMOKU).config.turn_seconds == 5.0


def test_a_tournament_by_time_keeps_its_seconds_and_each_games_simulations(tmp_path):
    def setup(**kw) -> Tournament:
        return Tournament.setup(
            ["random", "pure:50"], tmp_path, 2, 8, game="gomoku:3:k3", openings="random", check=False, **kw
        )

    t = setup(seconds=0.02)
    t.run(workers=1)
    rows = [json.loads(line) for line in (tmp_path / GAMES_FILE).read_text().splitlines()]
    assert len(rows) == 2 and all(row["simulations_a_move"]["pure:50"] > 0 for row in rows)
    settings = json.loads((tmp_path / "tournament.json").read_text())
    assert settings["seconds"] == 0.02 and settings["simulations"] is None
    assert "by time, 0.02 s a move for every player" in t.notes(t.standings())[0]
    with pytest.raises(ValueError, match="seconds 0.02, not None"):
        setup()


def test_the_classical_player_by_time_answers_within_it_at_any_depth():
    spec = GameSpec.parse("gomoku:15")
    state = spec.replay([spec.parse_action(m) for m in ("h8", "i9", "i8", "g8", "j7", "h9")])
    player = make_player("classical:8", spec)
    player.think(state, budget=1)  # compiled, not on the clock
    thought = player.think(state, seconds=0.02)
    assert state.legal_mask()[thought.action] and thought.simulations > 0
    assert thought.seconds < 0.02 + MARGIN
    assert thought.simulations < player.think(state).simulations  # the full depth searches more nodes


def test_hex_past_the_solved_boards_searches_by_time_without_the_costly_knowledge():
    """By time on 11x11 the must-play region and the inferior cells cost more simulations
    than they are worth (RESULTS.md, 2026-12-07): a match by time drops them there, and
    keeps every piece at a simulation count and on the solved boards."""
    from pipeline.players.factory import TIMED_HEX_TACTICS

    hex11, hex8 = GameSpec.parse("hex:11:swap"), GameSpec.parse("hex:8")
    assert play_search(hex11, 200, seconds=0.5).hex_tactics == TIMED_HEX_TACTICS == "connect+bridge+hsearch"
    assert play_search(hex11, 200).hex_tactics == "all"
    assert play_search(hex8, 200, seconds=0.5).hex_tactics == "all"
    assert play_search(GameSpec.parse("gomoku:15"), 200, seconds=0.5) == play_search(GameSpec.parse("gomoku:15"), 200)
    model = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "hex-11x11-swap.pt"
    timed = Evaluation.setup(model, "random", 200, seconds=0.1)
    assert timed.player.config.hex_tactics == TIMED_HEX_TACTICS
    assert Evaluation.setup(model, "random", 200).player.config.hex_tactics == "all"


def test_zero_htp_plays_by_time_past_the_solved_boards_unless_given_simulations(monkeypatch):
    """An engine user's match against MoHex is by time: past 8x8 `zero htp` thinks for the
    move's whole time with the timed knowledge; on 8x8 it keeps the play defaults (the
    timing target: median move at most 1 s); `--simulations` bounds every board."""
    import io

    from pipeline.players import factory
    from pipeline.serve import htp as htp_module

    made: dict[int, object] = {}

    def spy(spec, path, simulations=800, playouts=20_000, net_game=None, timed=False):
        player = factory.protocol_player(spec, path, simulations, playouts, net_game, timed)
        made[spec.width] = player
        return player

    monkeypatch.setattr(htp_module, "protocol_player", spy)
    model = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "hex-11x11-swap.pt"
    commands = io.StringIO("boardsize 8\nboardsize 11\nquit\n")
    htp_module.run_htp(model, 11, True, stdin=commands, stdout=io.StringIO(), stderr=io.StringIO())
    timed, small = made[11], made[8]
    assert timed.seconds is not None and timed.config.hex_tactics == factory.TIMED_HEX_TACTICS
    assert small.seconds is None and small.config.hex_tactics == "all"
    assert small.config.simulations == factory.PROTOCOL_SIMULATIONS == 800
    made.clear()
    commands = io.StringIO("quit\n")
    htp_module.run_htp(model, 11, True, 300, stdin=commands, stdout=io.StringIO(), stderr=io.StringIO())
    bounded = made[11]
    assert bounded.seconds is None and bounded.config.hex_tactics == "all" and bounded.config.simulations == 300


def test_each_side_may_set_its_hex_knowledge_and_a_wrong_piece_is_one_clear_error():
    from typer.testing import CliRunner

    from pipeline.cli import app

    model = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "hex-11x11-swap.pt"
    evaluation = Evaluation.setup(model, str(model), 200, seconds=0.1, hex_tactics="all", vs_hex_tactics="connect")
    assert (evaluation.player.config.hex_tactics, evaluation.opponent.config.hex_tactics) == ("all", "connect")
    assert (evaluation.player.name, evaluation.opponent.name) == ("hex-11x11-swap+all", "hex-11x11-swap+connect")
    wrong = CliRunner().invoke(app, ["evaluate", "--model", str(model), "--vs", "random", "--hex-tactics", "bogus"])
    assert wrong.exit_code == 2, wrong.output
    assert "expected off, all, or pieces of" in wrong.output and "Traceback" not in wrong.output
