"""External engines as players, through their protocols in other processes: our own
`zero brain` and `zero htp` play full matches against the same model in-process (and the
games are the ones the model plays against itself in-process), and small fake engines
that break the protocol lose by forfeit, with the reason, while the match goes on."""

import copy
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from pipeline.config import ParamsError, load_params
from pipeline.games.base import GameSpec
from pipeline.games.htp_frame import htp_board, to_htp
from pipeline.match.arena import PlayerDropped, paired_openings, play_lockstep, play_sequential
from pipeline.match.games_table import read_games
from pipeline.match.sprt import SPRTConfig
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players.base import Forfeit
from pipeline.players.engines import EngineSetupError
from pipeline.players.engines.process import GOODBYE_SECONDS, STOP_SECONDS
from pipeline.players.factory import make_player, play_search
from pipeline.players.search import PurePlayer
from pipeline.runtime.workspace import Paths
from pipeline.stages import evaluate
from pipeline.stages.init import run_init
from pipeline.stages.interface import StageContext
from pipeline.stages.promote import ratings_now
from tests.conftest import BIN, TINY_PARAMS, make_workspace

pytestmark = pytest.mark.integration

FAKES = Path(__file__).resolve().parents[1] / "engines"
GOMOKU = GameSpec(game="gomoku", size=7, k=5)
HEX = GameSpec(game="hex", size=5)
HEX_SWAP = GameSpec(game="hex", size=5, swap=True)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """The engines' logs go to ./engine-logs by default: here, a test's own folder."""
    monkeypatch.chdir(tmp_path)


class Recorder:
    """A player that keeps the moves of every game (through `observe`)."""

    def __init__(self, inner):
        self.inner, self.name, self.moves = inner, inner.name, {}

    def start(self, spec, games, seed):
        self.moves = {g: [] for g in range(games)}
        self.inner.start(spec, games, seed)

    def choose(self, games, states):
        return self.inner.choose(games, states)

    def observe(self, game, state, action):
        self.moves[game].append(action)
        self.inner.observe(game, state, action)

    def think(self, state, budget=None, seconds=None, game=0):
        return self.inner.think(state, budget, seconds, game)


def fake(protocol: str, *args: str, options: str = "turn=0.5,grace=2,faults=100") -> str:
    script = FAKES / f"fake_{'gomocup' if protocol == 'gomocup' else 'htp'}.py"
    return f"{protocol}[{options}]:{sys.executable} {script} {' '.join(args)}"


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    d = tmp_path_factory.mktemp("engines")
    torch.manual_seed(0)
    out = {}
    for spec in (GOMOKU, HEX):
        out[spec.game] = save_checkpoint(d / f"{spec.game}.pt", PolicyValueNet(spec, NetSpec(blocks=1, channels=8)))
    return out


def told_moves(moves, first):
    """The recorded player's moves that its opponent engine was told: all but a game's
    last move when it ended the game (nobody asks the engine after that). `first[g]` is
    the ply parity of the recorded player in game g."""
    out = []
    for g, history in moves.items():
        mine = history[first[g] :: 2]
        if len(history) % 2 == (first[g] + 1) % 2:  # the recorded player made the last move
            mine = mine[:-1]
        out += mine
    return out


def sent_to(log: Path) -> list[list[str]]:
    """The commands each fake engine process received (a fake logs to LOG.<pid>)."""
    return [p.read_text().splitlines() for p in sorted(log.parent.glob(f"{log.name}.*"))]


def moves_of(spec, player, opponent, pairs=1, plies=1, seconds=None):
    recorder = Recorder(player)
    openings = paired_openings(spec, pairs, plies, np.random.default_rng(3))
    records = play_lockstep(spec, recorder, opponent, openings, 0, seconds=seconds)
    return records, recorder.moves


@pytest.mark.parametrize("protocol", ["gomocup", "htp"])
def test_our_engine_in_another_process_plays_as_the_model_in_process(protocol, tiny_models):
    spec = GOMOKU if protocol == "gomocup" else HEX
    model = str(tiny_models[spec.game])
    command = "brain" if protocol == "gomocup" else f"htp --size {spec.height}"
    engine = make_player(
        f"{protocol}[turn=30,startup=120]:{BIN / 'zero'} {command} --model {model} --simulations 12", spec
    )
    search = play_search(spec, 12)  # what the engine plays: on small Hex, the root solver too
    # The engine thinks by time (its 30 s a turn; the search stops at its 12 simulations first),
    # and so do the players in-process: on Hex a timed move schedules the root solver's work
    # differently from an untimed one (refutations first), so only like compares with like.
    seconds = 30.0
    try:
        # A full match each way: the engine second in game 0, first in game 1.
        records, moves = moves_of(spec, make_player(model, spec, search), engine, seconds=seconds)
    finally:
        engine.close()
    same, same_moves = moves_of(
        spec, make_player(model, spec, search), make_player(model, spec, search), seconds=seconds
    )
    assert [r.reason for r in records] == ["", ""]
    assert [r.player_first for r in records] == [True, False]
    assert moves == same_moves  # the very games the model plays against itself in-process
    assert [(r.score, r.plies) for r in records] == [(r.score, r.plies) for r in same]


def test_a_brain_told_the_board_move_by_move_in_exact_coordinates(tmp_path):
    log = tmp_path / "commands.log"
    engine = make_player(fake("gomocup", "--log", str(log), options="turn=0.5,nodes=777"), GOMOKU)
    records, moves = moves_of(GOMOKU, PurePlayer(30), engine, pairs=1, plies=0)
    engine.close()
    processes = sent_to(log)
    assert len(processes) == 2  # one per game in flight
    setup = ["START 7", "INFO timeout_turn 500", "INFO timeout_match 0", "INFO rule 0", "INFO max_node 777"]
    assert all(sent[:5] == setup for sent in processes)
    sent = [line for lines in processes for line in lines]
    # Game 0: pure MCTS first, so the fake hears each of its moves as TURN x,y (x the column).
    turns = [line.removeprefix("TURN ") for line in sent if line.startswith("TURN")]
    pure_moves = [f"{a % 7},{a // 7}" for a in told_moves(moves, first=[0, 1])]
    assert sorted(turns) == sorted(pure_moves)
    assert "BEGIN" in sent  # game 1: the fake moves first on an empty board
    assert [r.reason for r in records] == ["", ""]


def test_processes_shared_between_games_get_the_whole_board(tmp_path):
    log = tmp_path / "commands.log"
    engine = make_player(fake("gomocup", "--log", str(log), options="processes=1"), GOMOKU)
    records, _ = moves_of(GOMOKU, PurePlayer(30), engine, pairs=2, plies=1)
    engine.close()
    (sent,) = sent_to(log)
    assert sent.count("START 7") == 1 and "BOARD" in sent
    assert len(records) == 4 and all(r.reason == "" for r in records)


GOMOCUP_FAULTS = {
    "illegal": "illegal move",
    "offboard": "off the 7x7 board",
    "garbage": "malformed answer 'I resign, human'",
    "error": "answered 'ERROR out of memory'",
    "slow": "no move in time",
    "exit": "the engine exited (code 3): 'RuntimeError: fake brain gave up'",
}
HTP_FAULTS = {
    "illegal": "illegal move",
    "garbage": "malformed answer 'pass the salt'",
    "refuse": "refused 'genmove",
    "slow": "no move in time",
    "exit": "the engine exited (code 3)",
}


@pytest.mark.parametrize(
    ("protocol", "fault", "reason"),
    [("gomocup", f, r) for f, r in GOMOCUP_FAULTS.items()] + [("htp", f, r) for f, r in HTP_FAULTS.items()],
)
def test_a_fault_loses_the_game_by_forfeit_and_the_match_goes_on(protocol, fault, reason):
    spec = GOMOKU if protocol == "gomocup" else HEX
    engine = make_player(fake(protocol, "--fault", fault, "--after", "1"), spec)
    records, _ = moves_of(spec, PurePlayer(30), engine, pairs=2, plies=1)
    engine.close()
    assert len(records) == 4
    forfeits = [r for r in records if r.reason]
    assert forfeits, "the fake never got to its fault"
    for r in forfeits:
        assert r.score == 1.0  # the engine's loss
        assert r.reason.startswith("forfeit: ") and reason in r.reason, r.reason
    assert engine.faults == len(forfeits)  # each with its own fresh process


def test_a_resignation_is_a_loss_but_no_fault():
    engine = make_player(fake("htp", "--fault", "resign"), HEX)
    records, _ = moves_of(HEX, PurePlayer(30), engine, pairs=1, plies=1)
    engine.close()
    assert [(r.score, r.reason) for r in records] == [(1.0, "forfeit: resigned")] * 2
    assert engine.faults == 0


def test_too_many_faults_drop_the_engine_and_keep_the_finished_games():
    # The fake plays well-formed moves in the first round and garbage once restarted.
    engine = make_player(fake("gomocup", "--fault", "garbage", "--after-restarts", "1", options="faults=2"), GOMOKU)
    test = SPRTConfig(p0=0.3, p1=0.7, alpha=0.001, beta=0.001, max_games=12)  # undecided for a while
    with pytest.raises(PlayerDropped, match="dropped after .* faults .*malformed answer") as dropped:
        play_sequential(GOMOKU, PurePlayer(30), engine, test, opening_plies=1, pairs_per_round=2)
    records = dropped.value.records
    assert [r.index for r in records[:4]] == [0, 1, 2, 3] and not any(r.reason for r in records[:4])
    assert len(records) > 4 and all(r.reason.startswith("forfeit: malformed") for r in records[4:])
    assert not engine.slots  # its processes are gone
    with pytest.raises(Forfeit, match="dropped"):
        engine.choose([0], [GOMOKU.new_game()])


def test_a_fault_in_think_is_a_forfeit_not_a_crash():
    engine = make_player(fake("gomocup", "--fault", "garbage"), GOMOKU)
    with pytest.raises(Forfeit, match="malformed answer"):
        engine.think(GOMOKU.new_game())
    engine.close()


def test_the_evaluate_stage_rates_the_engines_and_records_their_forfeits(tmp_path):
    params = copy.deepcopy(TINY_PARAMS)
    params["game"] = {"game": "gomoku", "height": 7, "width": 7, "k": 5}
    params["evaluate"].update(vs_champion=None, vs_pure={"max_games": 2}, ladder=[20, 40])
    params["evaluate"]["engines"] = [
        {"name": "first-cell", "protocol": "gomocup", "command": fake("gomocup").split(":", 1)[1], "games": 4},
        {
            "name": "garbage",
            "protocol": "gomocup",
            "command": fake("gomocup", "--fault", "garbage").split(":", 1)[1],
            "games": 4,
            "max_faults": 2,
            "turn_seconds": 0.5,
        },
        {"name": "absent", "protocol": "gomocup", "command": "no-such-brain --fast"},
    ]
    paths = Paths(make_workspace(tmp_path / "ws", params))
    loaded = load_params(paths.params)
    run_init(loaded, paths)
    shutil.copyfile(paths.champion, paths.candidate)
    said = []
    result = evaluate.run(StageContext.create(loaded, paths, log=said.append))

    engines = result.engines
    assert engines["first-cell"].games == 4 and engines["first-cell"].forfeits == 0
    assert "(max_faults 2)" in engines["garbage"].dropped
    assert "no-such-brain" in engines["absent"].skipped
    assert any("absent skipped" in line for line in said)
    rows = [r for r in read_games(paths.games_table) if r["match"] == "vs_engine"]
    assert {r["opponent"] for r in rows} == {"first-cell", "garbage"}
    garbage = [r for r in rows if r["opponent"] == "garbage"]
    assert garbage and all(r["score"] == 1.0 and r["reason"].startswith("forfeit: malformed") for r in garbage)
    ratings = ratings_now(loaded, paths)
    assert "first-cell" in ratings and "garbage" in ratings
    assert ratings["garbage"] < ratings["gen-0001"]  # it lost every game it played
    assert json.loads(paths.report("details/evaluation.json").read_text())["engines"]["first-cell"]["games"] == 4


def test_engines_in_params_must_speak_for_the_game(tmp_path):
    params = copy.deepcopy(TINY_PARAMS)
    params["evaluate"]["engines"] = [{"protocol": "htp", "command": "mohex"}]
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    with pytest.raises(ParamsError, match=r"evaluate.engines.0: htp:mohex: HTP engines play hex, not gomoku"):
        load_params(path)


def test_the_web_app_offers_the_engines_declared_in_params(tmp_path):
    from fastapi.testclient import TestClient

    from pipeline.players.engines import parse_engine
    from pipeline.serve.app import create_app

    engines = [
        parse_engine(fake("gomocup", options="name=first-cell")),
        parse_engine(fake("gomocup", "--fault", "garbage", options="name=garbage")),
        parse_engine("gomocup[name=absent]:no-such-brain"),
    ]
    web = TestClient(create_app([tmp_path], engines=engines, engine_game=GOMOKU))
    offered = {m["id"]: m for m in web.get("/api/options").json()["models"]}
    assert set(offered) == {"engine:first-cell", "engine:garbage"}  # a missing program is not offered
    assert offered["engine:first-cell"]["size"] == 7
    game = web.post("/api/games", json={"game": "gomoku", "size": 7, "human": "first", "opponent": "engine:first-cell"})
    gid = game.json()["id"]
    web.post(f"/api/games/{gid}/move", json={"move": "d4"})
    after = web.post(f"/api/games/{gid}/ai").json()
    assert after["history"] == ["d4", "a7"]  # the fake's first empty cell: x=0, y=0 is a7 from the top
    bad = web.post("/api/games", json={"game": "gomoku", "size": 7, "human": "first", "opponent": "engine:garbage"})
    bid = bad.json()["id"]
    web.post(f"/api/games/{bid}/move", json={"move": "d4"})
    answer = web.post(f"/api/games/{bid}/ai")
    assert answer.status_code == 502 and "malformed answer" in answer.json()["detail"]
    assert web.get(f"/api/games/{bid}").json()["over"]
    other = web.post("/api/games", json={"game": "gomoku", "size": 9, "opponent": "engine:first-cell"})
    assert other.status_code == 400 and "declared for gomoku:7" in other.json()["detail"]


class Swapper(PurePlayer):
    """Takes the swap whenever it may, else plays as pure MCTS."""

    def choose(self, games, states):
        moves = super().choose(games, states)
        return [s.spec.cells if s.legal_mask()[-1] and s.spec.swap else m for s, m in zip(states, moves, strict=True)]


def test_an_htp_engine_hears_letter_columns_numbered_rows_and_the_swap(tmp_path):
    """The fake keeps its board in HTP's meaning of the swap (board unchanged, colours
    exchanged, white to move) and refuses moves onto occupied cells or out of turn: every
    move it was told and its final board must agree with ours mapped into that frame."""
    log = tmp_path / "commands.log"
    spec = HEX_SWAP
    engine = make_player(fake("htp", "--log", str(log), options="turn=0.5,grace=2,faults=100,swap=1"), spec)
    records, moves = moves_of(spec, Swapper(20), engine, pairs=1, plies=0)
    engine.close()
    processes = sent_to(log)
    assert len(processes) == 2  # one per game in flight
    for sent in processes:
        # time_settings refused, and that is fine; then the swap rule's setting (the fake, like
        # MoHex, refuses swap-pieces without it)
        assert sent[:4] == ["boardsize 5", "clear_board", "time_settings 0 1 1", "param_game allow_swap 1"]
    sent = [line for lines in processes for line in lines]
    # Game 1: the fake opens at a1 (top left), the swapper swaps, the fake is told so.
    assert moves[1][:2] == [0, spec.cells]
    assert "play w swap-pieces" in sent
    # Every move the fake was told is the other side's, named in HTP's frame: letter = column,
    # number = row from the top, mirrored and with colours exchanged from the swap on.
    told = [" ".join(line.split()[1:3]) for line in sent if line.startswith("play ")]
    expected = []
    for g, history in moves.items():
        state = spec.new_game()
        for ply, action in enumerate(history):
            colour, name = to_htp(spec, state.history, state.current_player, action)
            if ply % 2 == [0, 1][g] and ply < len(history) - 1:  # the game's last move is never told
                expected.append(f"{'bw'[colour]} {name}")
            state.apply(action)
        board = htp_board(state)
        final = {f"{spec.action_name(r * spec.width + c)}:{'.bw'[board[r][c]]}" for r, c in np.argwhere(board)}
        boards = [set(line.split()[1:]) for line in sent if line.startswith("BOARD ")]
        # The fake never hears the move that ended the game: its board is ours less at most that stone.
        assert any(b <= final and len(final - b) <= 1 for b in boards), (final, boards)
    assert sorted(told) == sorted(expected), (processes, dict(moves))
    assert [r.reason for r in records] == ["", ""]


# ---- goodbye, logs, setup (issue 38) ---------------------------------------------------
GOODBYE = {"gomocup": "END", "htp": "quit"}


def spec_of(protocol):
    return GOMOKU if protocol == "gomocup" else HEX


@pytest.mark.parametrize("protocol", ["gomocup", "htp"])
def test_closed_engines_are_told_goodbye_and_given_time_to_save(protocol, tmp_path):
    log = tmp_path / "commands.log"
    engine = make_player(fake(protocol, "--log", str(log), "--farewell", "0.5"), spec_of(protocol))
    records, _ = moves_of(spec_of(protocol), PurePlayer(20), engine, pairs=1, plies=1)
    processes = [s.process for s in engine.slots]
    engine.close()
    assert [r.reason for r in records] == ["", ""]
    sent = sent_to(log)
    assert len(sent) == 2
    for lines in sent:  # each process heard the goodbye last, and was let finish saving
        lines = [line for line in lines if not line.startswith("BOARD ")]  # the fake HTP's final board
        assert lines[-2:] == [GOODBYE[protocol], f"saved on {GOODBYE[protocol]}"], lines
    assert all(p.proc.returncode == 0 for p in processes)
    for path in engine.logs:
        assert path.read_text().splitlines()[-1] == "[zero] exited (code 0)"


def test_an_engine_that_does_not_exit_is_stopped_after_a_bounded_wait(tmp_path):
    log = tmp_path / "commands.log"
    engine = make_player(fake("gomocup", "--log", str(log), "--farewell", "30"), GOMOKU)
    moves_of(GOMOKU, PurePlayer(20), engine, pairs=1, plies=1)
    processes = [s.process for s in engine.slots]
    begin = time.monotonic()
    engine.close()
    took = time.monotonic() - begin
    assert GOODBYE_SECONDS - 0.1 <= took < GOODBYE_SECONDS + STOP_SECONDS + 1.5  # the processes waited together
    assert all(p.proc.returncode is not None for p in processes)
    assert all(lines[-1] == "END" for lines in sent_to(log))  # told, never got to save
    for path in engine.logs:
        assert path.read_text().splitlines()[-1] == "[zero] stopped: no exit within 2s of 'END'"


NEVER_CLOSED = """
import sys
from pipeline.games.base import GameSpec
from pipeline.players.engines import EnginePlayer, parse_engine
engine = EnginePlayer(parse_engine(sys.argv[1]))
engine.think(GameSpec(game="gomoku", size=7, k=5).new_game())
print(engine.log_path)
"""


def test_an_engine_never_closed_is_told_goodbye_when_the_program_exits(tmp_path):
    log = tmp_path / "commands.log"
    text = fake("gomocup", "--log", str(log), "--farewell", "0.3")
    run = subprocess.run([sys.executable, "-c", NEVER_CLOSED, text], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    (sent,) = sent_to(log)
    assert sent[-2:] == ["END", "saved on END"]
    assert Path(run.stdout.strip()).read_text().splitlines()[-1] == "[zero] exited (code 0)"


def test_an_engines_stderr_is_kept_whole_in_a_log_the_player_and_the_fault_name(tmp_path):
    logs = tmp_path / "my-logs"
    said = "starting up|loaded 3 books|ready"
    engine = make_player(
        fake("gomocup", "--stderr", f"'{said}'", "--fault", "exit", "--after", "1", options=f"faults=100,logs={logs}"),
        GOMOKU,
    )
    records, _ = moves_of(GOMOKU, PurePlayer(20), engine, pairs=1, plies=1)
    engine.close()
    assert len(engine.logs) >= 2 and len(set(engine.logs)) == len(engine.logs)  # one file per process
    assert engine.log_path == engine.logs[-1]
    for path in engine.logs:
        assert path.parent == logs and path.name.startswith("gomocup-python-fake_gomocup.py-stderr")
        assert "-pid" in path.name and path.suffix == ".log"
        text = path.read_text()
        assert "starting up\nloaded 3 books\nready\n" in text  # all of it, not the last line
    forfeits = [r.reason for r in records if r.reason]
    assert forfeits
    for reason in forfeits:
        assert "the engine exited (code 3): 'RuntimeError: fake brain gave up'" in reason
        path = Path(reason.split("(engine log: ")[1].rstrip(")"))
        assert path in engine.logs and "Traceback (most recent call last):" in path.read_text()


def test_the_logs_go_to_engine_logs_here_by_default(tmp_path):
    with make_player(fake("htp"), HEX) as engine:
        engine.think(HEX.new_game())
    assert engine.log_path is not None and engine.log_path.parent == Path("engine-logs")
    assert engine.log_path.exists() and engine.log_path.name.startswith("htp-python-fake_htp.py-")


def test_a_refused_swap_stops_the_match_as_a_setup_error_not_a_forfeit():
    engine = make_player(fake("htp"), HEX_SWAP)  # not told swap=1: the fake refuses swap-pieces, as MoHex does
    test = SPRTConfig(p0=0.3, p1=0.7, alpha=0.001, beta=0.001, max_games=8)
    with pytest.raises(EngineSetupError, match=r"refused the swap \('play w swap-pieces'.*htp\[swap=1\]") as error:
        play_sequential(HEX_SWAP, Swapper(20), engine, test, opening_plies=0, pairs_per_round=1)
    assert "engine log: engine-logs/" in str(error.value)
    assert engine.faults == 0 and engine.reasons == []  # no forfeit was scored
    assert engine.setup_error == str(error.value) and not engine.slots  # its processes are gone
    with pytest.raises(EngineSetupError, match="refused the swap"):
        engine.choose([0], [HEX_SWAP.new_game()])
    engine.close()


def test_a_refused_swap_setting_is_a_setup_error(tmp_path):
    engine = make_player(fake("htp", "--no-params", options="swap=1"), HEX_SWAP)
    with pytest.raises(EngineSetupError, match=r"refused the swap setting \('param_game allow_swap 1'.*setup=LINE"):
        moves_of(HEX_SWAP, Swapper(20), engine, pairs=1, plies=0)
    assert engine.faults == 0
    engine.close()


def test_setup_lines_are_sent_and_a_refused_one_is_a_setup_error(tmp_path):
    log = tmp_path / "commands.log"
    setup = "param_mohex max_games 1000;param_game allow_swap 1"
    engine = make_player(fake("htp", "--log", str(log), options=f"turn=0.5,setup={setup}"), HEX_SWAP)
    records, moves = moves_of(HEX_SWAP, Swapper(20), engine, pairs=1, plies=0)
    engine.close()
    assert [r.reason for r in records] == ["", ""] and moves[1][1] == HEX_SWAP.cells  # the swap, accepted
    for sent in sent_to(log):
        assert sent[3:5] == ["param_mohex max_games 1000", "param_game allow_swap 1"]

    refusing = make_player(fake("htp", "--no-params", options="setup=param_mohex max_games 1000"), HEX)
    with pytest.raises(EngineSetupError, match=r"refused a setup line \('param_mohex max_games 1000'"):
        moves_of(HEX, PurePlayer(20), refusing, pairs=1, plies=0)
    refusing.close()

    gomocup_log = tmp_path / "gomocup.log"
    brain = make_player(
        fake("gomocup", "--log", str(gomocup_log), options="setup=INFO max_memory 83886080;INFO rule 1"), GOMOKU
    )
    moves_of(GOMOKU, PurePlayer(20), brain, pairs=1, plies=1)
    brain.close()
    for sent in sent_to(gomocup_log):
        assert sent[1:6] == [
            "INFO timeout_turn 5000",
            "INFO timeout_match 0",
            "INFO rule 0",
            "INFO max_memory 83886080",
            "INFO rule 1",
        ]
