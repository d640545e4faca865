"""The engines as other programs see them: subprocesses on stdin/stdout, playing a full
game against pure MCTS, and answering malformed input in the protocol's error form."""

import subprocess

import pytest

from pipeline.games.base import GameSpec
from pipeline.search.pure import PureMCTS
from tests.conftest import BIN, REPO, env

pytestmark = pytest.mark.integration


class Pipe:
    def __init__(self, *args, cwd=None):
        self.proc = subprocess.Popen(
            [str(BIN / "zero"), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            bufsize=1,
            cwd=cwd,
        )

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def line(self):
        out = self.proc.stdout.readline()
        assert out, f"engine closed its output: {self.proc.stderr.read()[-2000:]}"
        return out.rstrip("\n")

    def close(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def brain_reply(brain):
    """The next non-MESSAGE line."""
    while True:
        line = brain.line()
        if not line.startswith(("MESSAGE", "DEBUG")):
            return line


def test_gomocup_brain_full_game_against_pure_mcts():
    spec = GameSpec.parse("gomoku:9")
    brain = Pipe("brain", "--playouts", "3000")
    brain.send("ABOUT")
    assert brain.line().startswith('name="zero-pipeline"')
    brain.send("START 9")
    assert brain.line() == "OK"
    brain.send("INFO timeout_turn 2000")
    brain.send("INFO timeout_match 60000")
    brain.send("INFO time_left 60000")
    # Malformed and illegal input: the protocol's error form, and the brain keeps going.
    brain.send("TURN nonsense")
    assert brain_reply(brain).startswith("ERROR")
    brain.send("TURN 20,20")
    assert brain_reply(brain).startswith("ERROR")
    brain.send("FROBNICATE")
    assert brain_reply(brain).startswith("UNKNOWN")

    state = spec.new_game()
    opponent = PureMCTS(300, seed=5)
    brain.send("BEGIN")
    while True:
        x, y = (int(v) for v in brain_reply(brain).split(","))
        state.apply(y * 9 + x)
        if state.is_terminal:
            break
        ours = opponent.choose(state)
        state.apply(ours)
        if state.is_terminal:
            break
        brain.send(f"TURN {ours % 9},{ours // 9}")
    assert state.winner == 0, "the brain (pure MCTS 3000) should beat pure MCTS 300 as black"
    brain.send("RESTART")
    assert brain_reply(brain) == "OK"
    brain.send("BOARD")
    for line in ("4,4,2", "3,3,1", "5,5,2", "DONE"):
        brain.send(line)
    x, y = (int(v) for v in brain_reply(brain).split(","))
    assert (x, y) not in {(4, 4), (3, 3), (5, 5)}
    brain.send("TAKEBACK 7,7")
    assert brain_reply(brain).startswith("ERROR")
    brain.send(f"TAKEBACK {x},{y}")
    assert brain_reply(brain) == "OK"
    brain.send("INFO rule 1")
    brain.send("END")
    assert brain.close() == 0


def htp(engine, command):
    engine.send(command)
    first = engine.line()
    lines = [first]
    while True:
        line = engine.line()
        if line == "":
            break
        lines.append(line)
    return first, "\n".join(lines)


def test_htp_full_game_against_pure_mcts():
    engine = Pipe("htp", "--size", "5", "--playouts", "3000")
    assert htp(engine, "name")[0] == "= zero-pipeline"
    assert htp(engine, "7 version")[0] == "=7 0.1"
    assert htp(engine, "known_command genmove")[0] == "= true"
    assert htp(engine, "known_command fly")[0] == "= false"
    assert "genmove" in htp(engine, "list_commands")[1]
    assert htp(engine, "boardsize 5")[0] == "="
    # Errors keep the engine running.
    assert htp(engine, "play b z9")[0].startswith("? ")
    # A stone out of turn is placed, as GTP front ends set positions up; undo takes it back.
    assert htp(engine, "play w a1")[0] == "="
    assert "O" in htp(engine, "showboard")[1]
    assert htp(engine, "undo")[0] == "="
    assert htp(engine, "boardsize 99")[0].startswith("? ")
    assert htp(engine, "fly")[0].startswith("? unknown command")

    spec = GameSpec.parse("hex:5")
    state = spec.new_game()
    opponent = PureMCTS(100, seed=1)
    while not state.is_terminal:
        if state.current_player == 0:
            first, _ = htp(engine, "genmove b")
            state.apply(first.removeprefix("= "))
        else:
            move = spec.action_name(opponent.choose(state))
            assert htp(engine, f"play w {move}")[0] == "="
            state.apply(move)
    assert state.winner == 0, "black with 3000 playouts should beat 100 on 5x5 Hex"
    assert "X" in htp(engine, "showboard")[1]
    assert htp(engine, "undo")[0] == "="
    assert htp(engine, "clear_board")[0] == "="
    engine.send("quit")
    assert engine.line() == "="
    assert engine.close() == 0


def test_htp_swap():
    """`swap-pieces` as HexGui and MoHex mean it: the board is unchanged, the players
    exchange colours, and white moves next."""
    engine = Pipe("htp", "--size", "4", "--swap", "--playouts", "500")
    assert htp(engine, "play b b1")[0] == "="
    assert htp(engine, "play w swap-pieces")[0] == "="
    board = htp(engine, "showboard")[1]
    assert "X" in board and "O" not in board  # black's stone stays where it was
    assert htp(engine, "play w b1")[0].startswith("?")  # b1 is black's stone
    assert htp(engine, "play b a1")[0] == "="  # out of turn: placed, white still to move
    assert htp(engine, "undo")[0] == "="
    assert htp(engine, "play w a1")[0] == "="
    reply = htp(engine, "genmove b")[0]
    assert reply.startswith("= ") and reply[2:] not in ("a1", "b1")
    engine.send("quit")
    engine.line()
    engine.close()


def test_terminal_play_a_whole_game():
    out = subprocess.run(
        [str(BIN / "zero"), "play", "--game", "gomoku:3:k3", "--budget", "2000"],
        input="b2\nzz\na1\nc3\na3\nc1\nb1\nb3\nc2\na2\nquit\n",
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
    )
    assert out.returncode == 0
    assert "is not a move name" in out.stdout
    assert "engine plays" in out.stdout
    assert ("wins." in out.stdout) or ("Draw." in out.stdout)


@pytest.mark.parametrize("bot", ["pure", "model"])
def test_brain_honours_the_turn_time_limit(tmp_path, bot):
    import re
    import time

    # pure: a folder with no models, so pure MCTS, which only the clock can stop.
    # model: this checkout, whose shipped 15x15 net plays the board.
    brain = Pipe("brain", "--playouts", "100000000", "--simulations", "100000", cwd=tmp_path if bot == "pure" else REPO)
    brain.send("START 15")
    assert brain.line() == "OK"
    brain.send("INFO timeout_turn 500")
    for move in ("7,7", "8,8"):  # the first move too: no loading on the clock
        start = time.perf_counter()
        brain.send(f"TURN {move}")
        messages = []
        while (line := brain.line()).startswith(("MESSAGE", "DEBUG")):
            messages.append(line)
        elapsed = time.perf_counter() - start
        assert "," in line
        # Its own budget is 70% of the limit; the rest is slack for a loaded machine.
        assert elapsed < 0.5 + 1.0, f"answered after {elapsed:.2f}s with a 0.5s limit"
        searched = [int(m) for m in re.findall(r"(\d+) simulations in", " ".join(messages))]
        assert searched and searched[-1] >= 20, messages  # a real search, not one forward pass
    brain.send("END")
    assert brain.close() == 0


@pytest.fixture
def shipped(tmp_path):
    """A folder whose models/pretrained holds a size-free freestyle Gomoku net trained on
    7x7 and a fixed-size 5x5 Hex net, as `zero brain` and `zero htp` find them."""
    from pipeline.nets.checkpoint import save_checkpoint
    from pipeline.nets.resnet import NetSpec, PolicyValueNet

    folder = tmp_path / "models/pretrained"
    folder.mkdir(parents=True)
    free = NetSpec(blocks=0, channels=8, value_hidden=8, size_free=True, head_channels=2)
    save_checkpoint(folder / "gomoku-7x7-freestyle.pt", PolicyValueNet(GameSpec.parse("gomoku:7"), free))
    fixed = NetSpec(blocks=0, channels=8, value_hidden=8)
    save_checkpoint(folder / "hex-5x5.pt", PolicyValueNet(GameSpec.parse("hex:5"), fixed))
    return tmp_path


def test_the_brain_picks_its_model_for_every_board_and_rule(shipped):
    brain = Pipe("brain", "--simulations", "8", "--playouts", "200", cwd=shipped)
    brain.send("START 20")
    assert brain.line() == "OK"
    free = "gomoku-7x7-freestyle.pt plays gomoku:20x20:k5:freestyle (size-free, trained on 7x7)"
    assert brain.line() == f"MESSAGE {free}"
    brain.send("INFO rule 1")
    assert brain.line() == "MESSAGE no model plays gomoku:20x20:k5:exact: pure MCTS, 200 playouts a move"
    brain.send("BEGIN")
    assert brain.line().startswith("MESSAGE pure:200: ")
    x, y = (int(v) for v in brain.line().split(","))
    assert 0 <= x < 20 and 0 <= y < 20
    brain.send("INFO rule 0")  # mid-game
    assert brain.line() == f"MESSAGE {free}"
    brain.send("TURN 19,19" if (x, y) != (19, 19) else "TURN 0,0")
    assert brain.line().startswith("MESSAGE gomoku-7x7-freestyle: 8 simulations")
    assert "," in brain.line()
    brain.send("START 21")
    assert brain.line() == "ERROR unsupported board 21x21 (5..20 on each side)"
    brain.send("END")
    assert brain.close() == 0
    # A model given that cannot play the board: the protocol's error form, never a traceback.
    brain = Pipe("brain", "--model", "models/pretrained/hex-5x5.pt", cwd=shipped)
    brain.send("START 15")
    assert brain.line().startswith("ERROR hex-5x5.pt cannot play gomoku:15x15:k5:freestyle")
    brain.send("BEGIN")
    assert brain.line().startswith("ERROR hex-5x5.pt cannot play")
    brain.send("END")
    assert brain.close() == 0
    assert "Traceback" not in brain.proc.stderr.read()


def test_htp_picks_its_model_for_every_boardsize(shipped):
    engine = Pipe("htp", "--size", "5", "--simulations", "8", "--playouts", "200", cwd=shipped)
    assert htp(engine, "genmove b")[0].startswith("= ")
    assert htp(engine, "boardsize 7")[0] == "="
    assert htp(engine, "boardsize 5")[0] == "="
    engine.send("quit")
    engine.line()
    engine.close()
    assert engine.proc.stderr.read().splitlines() == [
        "hex-5x5.pt plays hex:5x5",
        "no model plays hex:7x7: pure MCTS, 200 playouts a move",
        "hex-5x5.pt plays hex:5x5",
    ]
    engine = Pipe("htp", "--model", "models/pretrained/hex-5x5.pt", cwd=shipped)  # --size 11 by default
    why = "hex-5x5.pt cannot play hex:11x11: a fixed-size net, it plays only hex:5x5"
    assert htp(engine, "genmove b")[0] == f"? {why}"
    assert htp(engine, "boardsize 5")[0] == "="
    assert htp(engine, "genmove b")[0].startswith("= ")
    engine.send("quit")
    engine.line()
    engine.close()
    assert engine.proc.stderr.read().splitlines() == [f"no bot for hex:11x11: {why}", "hex-5x5.pt plays hex:5x5"]
