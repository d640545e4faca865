"""The web app: its API contract through FastAPI's test client, then real headless
Chromium (Debian's package, driven by Playwright) playing each game kind."""

import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.serve.app import create_app

pytestmark = pytest.mark.integration

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    spec = GameSpec.parse("gomoku:7:k4")
    save_checkpoint(d / "tiny-7x7.pt", PolicyValueNet(spec, NetSpec(blocks=1, channels=8)))
    (d / "broken.pt").write_bytes(b"not a checkpoint")
    return d


@pytest.fixture(scope="module")
def client(models):
    return TestClient(create_app([models]))


def new(client, **kw):
    body = {"game": "gomoku", "size": 7, "k": 4, "opponent": "pure", "budget": 50, **kw}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_options_list_only_readable_models(client):
    models = client.get("/api/options").json()["models"]
    assert [m["id"] for m in models] == ["tiny-7x7"]
    assert models[0]["name"] == "gomoku:7x7:k4:freestyle"


def test_play_against_a_model_and_read_its_analysis(client):
    g = new(client, opponent="tiny-7x7", budget=16)
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "d4"}).json()
    assert g["ai_to_move"]
    g = client.post(f"/api/games/{g['id']}/ai").json()
    assert len(g["history"]) == 2 and not g["ai_to_move"]
    a = client.get(f"/api/games/{g['id']}/analysis").json()
    assert abs(sum(a["policy"]) - 1) < 1e-4 and -1 <= a["value"] <= 1
    assert sum(a["visits"]) == 16 - 1  # the root evaluation is the first simulation


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"game": "chess"}, 422, "game: Input should be"),
        ({"game": "gomoku", "size": 25}, 422, "size: Input should be less than or equal to 20"),
        ({"game": "gomoku", "size": 9, "k": 12}, 400, "gomoku k must be in 3..9"),
        ({"game": "hex", "size": 9, "opponent": "../../etc/passwd"}, 404, "unknown model"),
        ({"game": "gomoku", "size": 9, "opponent": "tiny-7x7"}, 400, "plays gomoku:7x7:k4:freestyle, not"),
        ({"game": "gomoku", "path": "/tmp/x.pt"}, 422, "path: Extra inputs are not permitted"),
    ],
)
def test_bad_new_game_requests(client, body, status, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == status
    assert message in r.json()["detail"]


def test_malformed_json_is_a_4xx(client):
    r = client.post("/api/games", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "detail" in r.json()


def test_illegal_moves_leave_the_game_unchanged(client):
    g = new(client)
    gid = g["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "d4"})
    before = client.get(f"/api/games/{gid}").json()
    for move, status, message in [
        ("d4", 409, "not your turn"),  # the engine is to move
    ]:
        r = client.post(f"/api/games/{gid}/move", json={"move": move})
        assert r.status_code == status and message in r.json()["detail"]
    client.post(f"/api/games/{gid}/ai")
    for move, message in [("d4", "occupied"), ("z9", "off the 7x7 board"), ("hello", "not a move name")]:
        r = client.post(f"/api/games/{gid}/move", json={"move": move})
        assert r.status_code == 400 and message in r.json()["detail"], r.text
    after = client.get(f"/api/games/{gid}").json()
    assert after["history"] == before["history"][:1] + after["history"][1:2]
    assert len(after["history"]) == 2
    assert client.get("/api/games/nope").status_code == 404


def test_games_of_different_tabs_are_isolated(client):
    a, b = new(client, human="both"), new(client, human="both")
    client.post(f"/api/games/{a['id']}/move", json={"move": "a1"})
    assert client.get(f"/api/games/{b['id']}").json()["history"] == []
    assert client.get(f"/api/games/{a['id']}").json()["history"] == ["a1"]


def test_undo_resign_export_import(client):
    g = new(client)
    gid = g["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "d4"})
    client.post(f"/api/games/{gid}/ai")
    assert client.post(f"/api/games/{gid}/undo").json()["history"] == []
    client.post(f"/api/games/{gid}/move", json={"move": "c3"})
    client.post(f"/api/games/{gid}/ai")
    sgf = client.get(f"/api/games/{gid}/export?format=sgf").text
    psq = client.get(f"/api/games/{gid}/export?format=psq").text
    assert sgf.startswith("(;FF[4]GM[4]SZ[7]") and psq.startswith("Piskvorky 7x7")
    back = client.post("/api/games/import", json={"format": "sgf", "text": sgf, "human": "both"}).json()
    assert back["history"] == client.get(f"/api/games/{gid}").json()["history"]
    bad = client.post("/api/games/import", json={"format": "sgf", "text": "(;GM[4]SZ[7];B[dd];B[ee])"})
    assert bad.status_code == 400 and "turn" in bad.json()["detail"]
    r = client.post(f"/api/games/{gid}/resign").json()
    assert r["over"] and r["winner"] == 1 and r["resigned"] == 0
    assert client.post(f"/api/games/{gid}/move", json={"move": "a1"}).status_code == 409


def test_a_search_in_progress_does_not_block_other_requests(client):
    g = new(client, size=9, k=5, budget=200_000, human="second")
    done = threading.Event()

    def think():
        client.post(f"/api/games/{g['id']}/ai")
        done.set()

    thread = threading.Thread(target=think)
    thread.start()
    time.sleep(0.3)
    start = time.perf_counter()
    assert client.get("/api/options").status_code == 200
    other = new(client, human="both")
    assert client.post(f"/api/games/{other['id']}/move", json={"move": "a1"}).status_code == 200
    assert time.perf_counter() - start < 1.0
    assert not done.is_set(), "the search should still be running"
    assert client.post(f"/api/games/{g['id']}/ai").status_code == 409  # already thinking
    thread.join()


# ---- real browser --------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(models):
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app([models]), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("Chromium is not installed (Debian package `chromium`; `make test` installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


def click_cell(page, name):
    index = page.evaluate(
        f"(() => {{ for (let i = 0; i < cells.length; i++) if (nameOf(i) === {name!r}) return i; }})()"
    )
    x, y = page.evaluate(f"[cells[{index}].x, cells[{index}].y]")
    box = page.locator("#board").bounding_box()
    page.mouse.click(box["x"] + x * box["width"] / 640, box["y"] + y * box["height"] / 640)


def stones(page) -> int:
    return page.evaluate("game.board.filter(v => v !== 0).length")


def wait_for_human(page):
    page.wait_for_function("game && !game.ai_to_move && !busy", timeout=60_000)


def settled(page, url):
    """Open the page and wait until its own first game is there: controls set before then
    would be reset when the options arrive."""
    page.goto(url)
    page.wait_for_function("options !== null && game !== null && !busy")


def start(page, game, size, human="first", budget=200, swap=False):
    page.select_option("#game", game)
    page.fill("#size", str(size))
    if game == "gomoku":
        page.fill("#k", "5" if size >= 5 else str(size))
    if swap:
        page.check("#swap")
    page.select_option("#human", human)
    page.fill("#budget", str(budget))
    page.click("#new")
    # The page opens a default game by itself; wait for the one asked for, not that one.
    page.wait_for_function(f"game !== null && game.spec.game === {game!r} && game.spec.width === {size}")
    wait_for_human(page)


@pytest.mark.parametrize(
    ("game", "size", "first", "swap"),
    [("gomoku", 9, "e5", False), ("connect6", 10, "e5", False), ("hex", 7, "d4", True)],
)
def test_browser_game_against_the_engine(server, browser, game, size, first, swap):
    SCREENSHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 720})
    settled(page, server)
    start(page, game, size, swap=swap)
    click_cell(page, first)
    # The engine answered (Connect6: with its two stones) and it is our move again.
    page.wait_for_function("game.history.length >= 2 && !game.ai_to_move && !busy", timeout=60_000)
    assert stones(page) >= 2 or game == "hex"
    page.check("#analysis")
    page.wait_for_function("analysis !== null")
    page.screenshot(path=str(SCREENSHOTS / f"{game}.png"))
    page.click("#undo")
    page.wait_for_function("game.history.length === 0")
    assert stones(page) == 0
    page.click("#export-sgf")
    page.wait_for_function("document.getElementById('record').value.startsWith('(;FF[4]')")
    page.close()


def test_browser_analysis_overlay_with_a_model(server, browser):
    page = browser.new_page(viewport={"width": 1100, "height": 720})
    settled(page, server)
    page.select_option("#game", "gomoku")
    page.select_option("#opponent", "tiny-7x7")  # sets the board the model was trained for
    assert page.input_value("#size") == "7" and page.input_value("#k") == "4"
    page.fill("#budget", "32")
    page.click("#new")
    page.wait_for_function("game !== null && game.opponent === 'tiny-7x7' && !busy")
    page.check("#analysis")
    click_cell(page, "d4")
    page.wait_for_function("game.history.length >= 2 && !game.ai_to_move && !busy && analysis && analysis.policy")
    assert page.is_visible("#valuebar")
    assert "wins" in page.inner_text("#valuetext")
    page.screenshot(path=str(SCREENSHOTS / "analysis.png"))
    page.close()


def test_browser_finishes_a_game_and_exports_it(server, browser):
    page = browser.new_page(viewport={"width": 1100, "height": 720})
    settled(page, server)
    start(page, "gomoku", 3, human="both")
    for move in ["a1", "a2", "b1", "b2", "c1"]:
        click_cell(page, move)
        page.wait_for_function(f"game.history.length === {['a1', 'a2', 'b1', 'b2', 'c1'].index(move) + 1}")
    assert page.evaluate("game.over") and page.evaluate("game.winner") == 0
    assert "Black wins" in page.inner_text("#status")
    assert sorted(page.evaluate("game.winning_cells")) == [6, 7, 8]
    page.screenshot(path=str(SCREENSHOTS / "finished.png"))
    page.click("#export-psq")
    page.wait_for_function("document.getElementById('record').value.startsWith('Piskvorky 3x3')")
    # An illegal click after the end changes nothing and shows no error.
    click_cell(page, "c3")
    assert page.evaluate("game.history.length") == 5
    page.close()


def test_two_tabs_play_separate_games(server, browser):
    context = browser.new_context()
    a, b = context.new_page(), context.new_page()
    for page in (a, b):
        settled(page, server)
        start(page, "gomoku", 5, human="both")
    click_cell(a, "c3")
    a.wait_for_function("game.history.length === 1")
    b.reload()
    b.wait_for_function("game !== null")
    assert b.evaluate("game.history.length") == 0
    context.close()


# ---- the first screen ------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "models" / "pretrained"


@pytest.fixture(scope="module")
def first_screen_server(tmp_path_factory):
    """What `zero serve` offers in a fresh workspace: the shipped models and an untrained
    generation-0 champion."""
    import json

    import uvicorn

    models = tmp_path_factory.mktemp("workspace") / "models"
    models.mkdir()
    save_checkpoint(models / "champion.pt", PolicyValueNet(GameSpec.parse("gomoku:9"), NetSpec(blocks=1, channels=8)))
    (models / "state.json").write_text(json.dumps({"generation": 0, "champion_generation": 0}))
    port = free_port()
    app = create_app([SHIPPED, models / "champion.pt"])
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def test_first_screen_is_an_empty_board_against_the_shipped_model(first_screen_server, browser):
    SCREENSHOTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 720})
    page.goto(first_screen_server)
    # Nothing pressed: a game is ready, the board drawn empty, the human to move.
    page.wait_for_function("game !== null && !busy", timeout=30_000)
    assert stones(page) == 0 and not page.evaluate("game.ai_to_move")
    assert page.evaluate("cells.length") == 81
    # The opponent is the shipped model for this board, not pure MCTS.
    assert page.input_value("#opponent") == "gomoku-9x9"
    labels = page.eval_on_selector_all("#opponent option", "os => os.map(o => o.textContent)")
    assert page.eval_on_selector("#opponent", "s => s.selectedOptions[0].textContent") == "gomoku-9x9 (pretrained)"
    assert labels[-1] == "pure MCTS"
    # The classical player, deepest first, between the models and pure MCTS.
    assert labels[-4:-1] == ["classical depth 4", "classical depth 3", "classical depth 2"]
    # The untrained champion says so, after the models worth playing.
    assert "champion gen 0 (untrained)" in labels
    assert labels.index("champion gen 0 (untrained)") > labels.index("gomoku-9x9 (pretrained)")
    # Every label fits its menu (text width measured in the menu's own font, plus the arrow).
    widest, room = page.evaluate(
        """(() => {
        const s = document.getElementById("opponent"), c = document.createElement("canvas").getContext("2d");
        c.font = getComputedStyle(s).font;
        return [Math.max(...[...s.options].map(o => c.measureText(o.textContent).width)), s.clientWidth - 24];
    })()"""
    )
    assert widest <= room, f"a label {widest:.0f}px wide in a menu with {room}px of room"
    # Another game picks its own shipped model and board.
    page.select_option("#game", "hex")
    assert page.input_value("#opponent") == "hex-7x7" and page.input_value("#size") == "7"
    hex_labels = page.eval_on_selector_all("#opponent option", "os => os.map(o => o.textContent)")
    assert hex_labels[-1] == "pure MCTS" and not any(label.startswith("classical") for label in hex_labels)
    page.select_option("#game", "gomoku")
    assert page.input_value("#opponent") == "gomoku-9x9"
    # A board the 9x9 net cannot play: the size-free net trained nearest to it.
    page.fill("#size", "13")
    assert page.input_value("#opponent") == "gomoku-15x15"
    page.fill("#size", "9")
    page.select_option("#opponent", "gomoku-9x9")
    page.screenshot(path=str(SCREENSHOTS / "first-screen.png"))
    page.close()


def test_browser_renju_marks_and_refuses_black_s_forbidden_points(server, browser):
    page = browser.new_page(viewport={"width": 1100, "height": 720})
    settled(page, server)
    page.select_option("#game", "gomoku")
    page.select_option("#rules", "renju")
    assert page.input_value("#size") == "15" and page.input_value("#k") == "5"  # renju's board, five
    assert page.is_disabled("#k")
    page.select_option("#human", "both")
    page.click("#new")
    page.wait_for_function("game !== null && game.spec.rules === 'renju' && !busy")
    moves = ["g11", "a1", "g10", "a3", "e9", "a5", "f9", "a7"]  # g9: a double three for black
    for i, move in enumerate(moves):
        click_cell(page, move)
        page.wait_for_function(f"game.history.length === {i + 1} && !busy")
    assert page.evaluate("game.forbidden.map(nameOf)") == ["g9"]
    assert "forbidden points" in page.inner_text("#status")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "renju.png"))
    click_cell(page, "g9")
    page.wait_for_function("document.getElementById('error').textContent.includes('forbidden')")
    assert "forbidden to black: double three" in page.inner_text("#error")
    assert page.evaluate("game.history.length") == 8
    page.close()
