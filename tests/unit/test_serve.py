"""The servers' state stays bounded, and the protocols search through the one bot
interface with the budget they are given (the web app through FastAPI's test client, the
brain and the HTP engine in process)."""

import io
import re

import numpy as np
import pytest
from fastapi.testclient import TestClient

from pipeline.games.base import GameSpec, IllegalMoveError
from pipeline.nets.checkpoint import CheckpointError, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players.discovery import check_sources, find_model, scan_models
from pipeline.players.factory import protocol_player
from pipeline.players.search import NetPlayer, PurePlayer
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import SearchConfig
from pipeline.search.tree import ACTION, VISITS
from pipeline.serve.app import create_app
from pipeline.serve.brain import Brain
from pipeline.serve.htp import HtpEngine, HtpError

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:7:k4")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    save_checkpoint(d / "tiny-7x7.pt", PolicyValueNet(SPEC, NetSpec(blocks=1, channels=8)))
    save_checkpoint(d / "other-7x7.pt", PolicyValueNet(SPEC, NetSpec(blocks=1, channels=8)))
    (d / "broken.pt").write_bytes(b"not a checkpoint")
    return d


def new_game(client, **kw):
    body = {"game": "gomoku", "size": 7, "k": 4, "opponent": "tiny-7x7", "human": "second", **kw}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_one_loaded_model_per_file_whatever_the_budgets(models):
    app = create_app([models])
    client = TestClient(app)
    for budget in (5, 9, 17, 33):
        g = new_game(client, budget=budget)
        g = client.post(f"/api/games/{g['id']}/ai").json()
        # The budget is the game's own, passed to this search.
        assert sum(g["visits"]) == budget - 1
        a = client.get(f"/api/games/{g['id']}/analysis").json()
        assert abs(sum(a["policy"]) - 1) < 1e-4
    loaded = app.state.models.loaded
    assert [p.name for p, _ in loaded] == ["tiny-7x7.pt"]
    g = new_game(client, opponent="other-7x7", budget=3)
    client.post(f"/api/games/{g['id']}/ai")
    assert sorted(p.name for p, _ in loaded) == ["other-7x7.pt", "tiny-7x7.pt"]


def test_the_web_app_plays_a_size_free_model_on_every_board_of_its_rules(tmp_path):
    save_checkpoint(tmp_path / "free.pt", PolicyValueNet(SPEC, NetSpec(blocks=1, channels=8, size_free=True)))
    client = TestClient(create_app([tmp_path]))
    (entry,) = client.get("/api/options").json()["models"]
    assert entry["size_free"] is True and entry["size"] == 7
    for size in (5, 9, 15):
        g = new_game(client, opponent="free", size=size, budget=5)
        g = client.post(f"/api/games/{g['id']}/ai").json()
        assert len(g["visits"]) == size * size and sum(g["visits"]) == 4
    r = client.post("/api/games", json={"game": "gomoku", "size": 9, "k": 5, "opponent": "free", "human": "first"})
    assert r.status_code == 400 and "plays gomoku:7x7:k4:freestyle" in r.text  # other rules: k5


def test_every_way_into_the_server_respects_the_game_limit(models):
    app = create_app([models], max_games=3)
    client = TestClient(app)
    first = new_game(client, human="both")["id"]
    client.post(f"/api/games/{first}/move", json={"move": "d4"})
    sgf = client.get(f"/api/games/{first}/export?format=sgf").text
    ids = [first]
    for i in range(8):
        if i % 2:
            r = client.post("/api/games/import", json={"format": "sgf", "text": sgf, "human": "both"})
        else:
            r = client.post("/api/games", json={"game": "gomoku", "size": 7, "k": 4, "human": "both"})
        assert r.status_code == 200, r.text
        ids.append(r.json()["id"])
        assert len(app.state.games) <= 3
    assert set(app.state.games) == set(ids[-3:])  # the oldest made room
    assert client.get(f"/api/games/{first}").status_code == 404
    # A rejected import adds nothing.
    before = set(app.state.games)
    assert client.post("/api/games/import", json={"format": "sgf", "text": sgf, "opponent": "nope"}).status_code == 404
    assert set(app.state.games) == before


class RecordingBot(NetPlayer):
    """A bot that notes its root's visits after each search."""

    roots: list[int]

    def think(self, state, budget=None, seconds=None, game=0):
        thought = super().think(state, budget, seconds, game)
        self.roots.append(int(self.search.tree.node_int[0, 0, VISITS]))
        return thought


def test_the_brain_thinks_its_budget_through_the_bot_and_keeps_its_tree():
    bots = []

    def make(spec):
        bots.append(RecordingBot(UniformEvaluator(spec.num_actions), SearchConfig(simulations=300), "uniform"))
        bots[-1].roots = []
        return bots[-1], ""

    out = io.StringIO()
    brain = Brain(make, out)
    brain.info("timeout_turn 60000")
    brain.handle("START 9", iter(()))
    brain.handle("BEGIN", iter(()))
    bot = bots[0]
    # The bot's tree followed its own move; answer with the reply it searched most.
    tree = bot.search.tree
    kids = tree.root_children(0)
    best = kids.start + int(np.argmax(tree.node_int[0, kids, VISITS]))
    expected, kept = int(tree.node_int[0, best, ACTION]), int(tree.node_int[0, best, VISITS])
    y, x = divmod(expected, 9)
    brain.handle(f"TURN {x},{y}", iter(()))
    lines = out.getvalue().splitlines()
    assert lines[0] == "OK"
    messages = [line for line in lines if line.startswith("MESSAGE")]
    assert len(messages) == 2 and all(" 300 simulations " in m for m in messages)
    # The one-simulation warm-up at START (its tree dropped), then the two moves.
    assert kept > 0 and bot.roots == [1, 300, kept + 300]


def test_htp_genmove_spends_the_bots_budget():
    bots = []

    def make(spec):
        bots.append(PurePlayer(2000, reuse=True))
        return bots[-1], ""

    htp = HtpEngine(make, size=5)
    move = htp.execute("genmove", ["b"])
    assert move != "resign"
    searcher = bots[-1].searchers[0]
    assert searcher.last_playouts == 2000 or searcher.solved
    htp.execute("play", ["w", "a1" if move != "a1" else "b1"])
    assert htp.execute("genmove", ["b"]) != "resign"


def test_htp_play_out_of_turn_places_the_stone_and_the_other_colour_moves():
    bots = []

    def make(spec):
        bots.append(PurePlayer(200, reuse=True))
        return bots[-1], ""

    htp = HtpEngine(make, size=3)
    # A front end setting up a position: white first, then two black stones in a row.
    for colour, move in [("w", "a2"), ("b", "a1"), ("b", "c3")]:
        assert htp.execute("play", [colour, move]) == ""
    assert htp.state.board()[1, 0] == 2 and htp.state.board()[0, 0] == 1 and htp.state.board()[2, 2] == 1
    assert htp.state.current_player == 1  # white, the colour not just placed
    with pytest.raises(HtpError, match="black's turn|white's turn"):
        htp.execute("genmove", ["b"])
    reply = htp.execute("genmove", ["w"])
    assert reply not in ("resign", "a2", "a1", "c3")
    # undo takes back the genmove and then the stones placed out of turn, one at a time.
    for stones in (3, 2, 1, 0):
        assert htp.execute("undo", []) == ""
        assert int((htp.state.board() != 0).sum()) == stones
    assert htp.state.current_player == 0 and htp.moves == []
    with pytest.raises(HtpError, match="nothing to undo"):
        htp.execute("undo", [])
    # An occupied cell is still refused, whoever plays it.
    htp.execute("play", ["w", "b2"])
    with pytest.raises(IllegalMoveError, match="occupied"):
        htp.execute("play", ["w", "b2"])


def test_model_discovery_is_one_place(models, tmp_path):
    assert sorted(scan_models([models])) == ["other-7x7", "tiny-7x7"]
    assert find_model(SPEC, sources=[models]).name == "other-7x7.pt"  # the first that fits
    assert find_model(GameSpec.parse("hex:5"), sources=[models]) is None  # pure MCTS then
    with pytest.raises(CheckpointError):
        find_model(GameSpec.parse("hex:5"), explicit=models / "tiny-7x7.pt")
    bot = protocol_player(SPEC, find_model(SPEC, sources=[models]), simulations=12)
    thought = bot.think(SPEC.new_game())
    assert thought.simulations == 12 and np.isclose(thought.visits.sum(), 11)
    assert isinstance(protocol_player(SPEC, None, playouts=50), PurePlayer)


def test_model_sources_that_offer_nothing_are_named(models, tmp_path):
    check_sources([models, models / "tiny-7x7.pt"])  # a folder with a checkpoint, a checkpoint
    empty = tmp_path / "empty"
    empty.mkdir()
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.pt").write_bytes(b"not a checkpoint")
    cases = {
        tmp_path / "BADPATH": "no such file or folder",
        empty: "no checkpoint (*.pt) in this folder",
        junk: "none of its 1 .pt files is readable",
        models / "broken.pt": "not a readable checkpoint",
    }
    for source, why in cases.items():
        with pytest.raises(CheckpointError, match=re.escape(why)):
            check_sources([models, source])


def test_zero_serve_with_a_bad_models_path_says_so_and_exits(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import pipeline.serve.app
    from pipeline.cli import app

    started = []
    monkeypatch.setattr(pipeline.serve.app, "serve", lambda *a, **k: started.append(a))
    result = CliRunner().invoke(app, ["serve", "--models", str(tmp_path / "BADPATH")])
    assert result.exit_code != 0 and not started
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "BADPATH: no such file or folder" in lines[0], result.output


def test_the_web_app_takes_its_board_limits_from_the_game_spec(models):
    client = TestClient(create_app([models]))
    games = client.get("/api/options").json()["games"]
    assert games["gomoku"]["sizes"] == [3, 20] and games["hex"]["sizes"] == [2, 19]
    assert client.post("/api/games", json={"game": "gomoku", "size": 20, "human": "both"}).status_code == 200
    assert client.post("/api/games", json={"game": "gomoku", "size": 21, "human": "both"}).status_code == 422
    r = client.post("/api/games", json={"game": "hex", "size": 20, "human": "both"})
    assert r.status_code == 400 and "2..19" in r.text


def opened(client, moves, **kw):
    """A game at the position after `moves` (played by both sides, then imported), its
    engine side as `kw` says."""
    body = {"game": kw.pop("game", "gomoku"), "size": kw.pop("size", 7), "k": kw.pop("k", 4), "human": "both"}
    setup = client.post("/api/games", json=body).json()["id"]
    for move in moves:
        assert client.post(f"/api/games/{setup}/move", json={"move": move}).status_code == 200
    sgf = client.get(f"/api/games/{setup}/export?format=sgf").text
    r = client.post("/api/games/import", json={"format": "sgf", "text": sgf, **kw})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_web_app_offers_the_classical_player_for_gomoku_and_connect6(models):
    client = TestClient(create_app([models]))
    games = client.get("/api/options").json()["games"]
    offered = {game: [o["id"] for o in limits["opponents"]] for game, limits in games.items()}
    assert offered["gomoku"] == offered["connect6"] == ["classical:4", "classical:3", "classical:2", "pure"]
    assert offered["hex"] == ["pure"]
    assert games["gomoku"]["opponents"][0]["label"] == "classical depth 4"
    # Black's four b5-e5, closed at a5: the classical side (white) must take f5.
    g = opened(client, ["b5", "a5", "c5", "a1", "d5", "a9", "e5"], size=9, k=5, human="first", opponent="classical:2")
    assert g["ai_to_move"] and g["opponent"] == "classical:2"
    g = client.post(f"/api/games/{g['id']}/ai").json()
    assert g["history"][-1] == "f5" and not g["ai_to_move"] and not g["over"]
    a = client.get(f"/api/games/{g['id']}/analysis").json()
    assert a["policy"] is None and a["visits"][g["moves"][-1]] == 1  # no net: its move, no policy
    # Connect6 on 19x19: the classical side opens with one stone, then places two a turn.
    g = new_game(client, game="connect6", size=19, k=6, opponent="classical:3", human="second")
    g = client.post(f"/api/games/{g['id']}/ai").json()
    assert len(g["history"]) == 1 and not g["ai_to_move"]
    for move in ("a1", "a2"):
        g = client.post(f"/api/games/{g['id']}/move", json={"move": move}).json()
    for stones in (4, 5):
        g = client.post(f"/api/games/{g['id']}/ai").json()
        assert len(g["history"]) == stones
    assert not g["ai_to_move"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"game": "hex", "size": 7, "opponent": "classical:3"}, 400, "classical:3 plays gomoku and connect6, not hex"),
        ({"game": "gomoku", "size": 9, "k": 5, "opponent": "classical:7"}, 404, "unknown model 'classical:7'"),
    ],
)
def test_only_the_offered_classical_depths_and_games(models, body, status, message):
    r = TestClient(create_app([models])).post("/api/games", json=body)
    assert r.status_code == status and message in r.json()["detail"]


def test_the_engines_proof_reaches_the_page_and_its_analysis(models):
    """Black's c4 d4 on 7x7 (four in a row wins): the model, black, has a VCF in 2."""
    client = TestClient(create_app([models]))
    g = opened(client, ["c4", "a1", "d4", "a7"], human="second", opponent="tiny-7x7", budget=16)
    g = client.post(f"/api/games/{g['id']}/ai").json()
    assert g["proof"].startswith("VCF in 2 for black: ")
    assert client.get(f"/api/games/{g['id']}/analysis").json()["proof"] == g["proof"]
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "g7"}).json()
    assert g["proof"] is None  # it was the engine's last position, not this one


# ---- renju in the web app, records and the terminal ------------------------------------------

# Black's g11 g10 e9 f9 make g9 a double three; white's stones are far away.
RENJU_MOVES = ["g11", "a1", "g10", "a3", "e9", "a5", "f9", "a7"]


def test_the_web_app_plays_renju_and_marks_black_s_forbidden_cells(models):
    client = TestClient(create_app([models]))
    gomoku = client.get("/api/options").json()["games"]["gomoku"]
    assert gomoku["rules"] == ["freestyle", "exact", "renju"] and gomoku["renju_side"] == 15
    body = {"game": "gomoku", "size": 15, "rules": "renju", "human": "both", "opponent": "pure"}
    g = client.post("/api/games", json=body).json()
    assert g["spec"]["name"] == "gomoku:15x15:k5:renju" and g["forbidden"] == []
    for move in RENJU_MOVES:
        g = client.post(f"/api/games/{g['id']}/move", json={"move": move}).json()
    g9 = g["cell_names"].index("g9")
    assert g["forbidden"] == [g9] and g["forbidden_reasons"] == ["double three"]
    assert g9 not in g["legal"] and len(g["legal"]) == 225 - 8 - 1
    r = client.post(f"/api/games/{g['id']}/move", json={"move": "g9"})
    assert r.status_code == 400 and "move g9 is illegal: forbidden to black: double three" in r.text
    # A model of other rules is no renju opponent here.
    r = client.post("/api/games", json={**body, "human": "first", "opponent": "tiny-7x7"})
    assert r.status_code == 400 and "plays gomoku:7x7:k4:freestyle" in r.text

    # Records carry the rules: SGF's RU (and GN), and a PSQ import is told them.
    sgf = client.get(f"/api/games/{g['id']}/export?format=sgf").text
    assert "RU[renju]" in sgf and "GN[gomoku:15x15:k5:renju]" in sgf
    back = client.post("/api/games/import", json={"format": "sgf", "text": sgf, "human": "both"}).json()
    assert back["spec"]["rules"] == "renju" and back["forbidden"] == [g9]
    bare = sgf.replace("GN[gomoku:15x15:k5:renju]", "")
    assert (
        client.post("/api/games/import", json={"format": "sgf", "text": bare, "human": "both"}).json()["spec"]["rules"]
        == "renju"
    )
    r = client.post("/api/games/import", json={"format": "sgf", "text": bare.replace("RU[renju]", "RU[caro]")})
    assert r.status_code == 400 and "unsupported rules RU[caro]" in r.text
    psq = client.get(f"/api/games/{g['id']}/export?format=psq").text
    played = psq + "7,7,0\n"  # g9 at last: forbidden under renju, legal under freestyle
    r = client.post("/api/games/import", json={"format": "psq", "text": played, "rules": "renju"})
    assert r.status_code == 400 and "forbidden to black: double three" in r.text
    free = client.post("/api/games/import", json={"format": "psq", "text": played, "human": "both"}).json()
    assert free["spec"]["rules"] == "freestyle" and free["history"][-1] == "g9"


def test_the_classical_player_plays_black_under_renju_around_its_forbidden_cell(models):
    """The web app's classical opponents play renju: as black, where g9 makes a double
    three (RENJU_MOVES' black stones, white's in the corners), it plays another move; under
    freestyle it plays g9."""
    moves = ["g11", "a1", "g10", "o1", "e9", "a15", "f9", "o15"]
    client = TestClient(create_app([models]))
    for rules, expected in (("renju", False), ("freestyle", True)):
        body = {"game": "gomoku", "size": 15, "rules": rules, "human": "both", "opponent": "pure"}
        setup = client.post("/api/games", json=body).json()["id"]
        for move in moves:
            assert client.post(f"/api/games/{setup}/move", json={"move": move}).status_code == 200
        sgf = client.get(f"/api/games/{setup}/export?format=sgf").text
        r = client.post(
            "/api/games/import", json={"format": "sgf", "text": sgf, "human": "second", "opponent": "classical:2"}
        )
        assert r.status_code == 200, r.text
        g = client.post(f"/api/games/{r.json()['id']}/ai").json()
        assert len(g["history"]) == len(moves) + 1 and (g["history"][-1] == "g9") == expected


def test_the_terminal_marks_and_refuses_black_s_forbidden_cells():
    from rich.console import Console

    from pipeline.players.base import Thought
    from pipeline.serve.terminal import play_terminal

    spec = GameSpec.parse("gomoku:renju")

    class Scripted:  # white's far-away stones
        name = "scripted"

        def __init__(self):
            self.moves = iter([*RENJU_MOVES[1::2], "a9", "a11"])

        def think(self, state, **_):
            return Thought(spec.parse_action(next(self.moves)), np.zeros(spec.num_actions, np.float32), 0.0, 0, 0.0)

        def observe(self, *_):
            pass

    class Typed(Console):
        def __init__(self, lines):
            super().__init__(file=io.StringIO(), width=120, color_system=None)
            self.lines = iter(lines)

        def input(self, prompt="", **_):
            return next(self.lines)

    console = Typed([*RENJU_MOVES[0::2], "g9", "quit"])
    state = play_terminal(spec, Scripted(), 0, console)
    text = console.file.getvalue()
    assert "move g9 is illegal: forbidden to black: double three" in text
    assert state.ply == 8
    rows = [line for line in text.splitlines() if line.strip().startswith("9 ")]
    assert rows and "×" in rows[-1]  # g9 drawn as forbidden on black's turn
