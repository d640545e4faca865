"""`zero tournament` (pipeline.match.tournament, pipeline.match.crosstable): players named
and paired, games kept one a line and never played twice (a stopped run resumes with the
rest), the crosstable of known results, Bradley-Terry ratings with intervals, the files."""

import json
from collections import Counter
from pathlib import Path

import pytest

from pipeline.match.crosstable import Standings
from pipeline.match.tournament import (
    GAMES_FILE,
    Chunk,
    Tournament,
    TournamentError,
    chunk_size,
    entrants,
    game_key,
    pairings,
    play_chunk,
    read_games,
)
from pipeline.nets.checkpoint import CheckpointError

pytestmark = pytest.mark.unit

MODELS = Path(__file__).resolve().parents[2] / "models" / "pretrained"
TICTACTOE = "gomoku:3:k3"
PLAYERS = ["random", "pure:20", "pure:50"]


def tiny(out: Path, games: int = 4, players: list[str] | None = None, **kw) -> Tournament:
    return Tournament.setup(
        players or PLAYERS, out, games, simulations=8, game=TICTACTOE, openings="random", check=False, **kw
    )


def keys(path: Path) -> list[tuple[str, str, int]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [game_key(r["player"], r["opponent"], r["index"]) for r in rows]


def test_players_are_named_and_paired():
    names = [e.name for e in entrants(["random", "pure:20", "a/champion.pt", "b/champion.pt", "net:x/gen.pt"])]
    assert names == ["random", "pure:20", "a/champion", "b/champion", "gen"]
    engines = entrants(["gomocup:/usr/bin/python3 /x/brain.py -q", "htp[name=mohex]:mohex --seed 1"])
    assert [e.name for e in engines] == ["gomocup:python3 brain.py -q", "mohex"]
    with pytest.raises(TournamentError, match="listed twice"):
        entrants(["random", "random"])
    assert pairings(["a", "b", "c"], gauntlet=True) == [("a", "b"), ("a", "c")]
    assert pairings(["a", "b", "c"], gauntlet=False) == [("a", "b"), ("a", "c"), ("b", "c")]
    # Game i of (a, b) is game i ^ 1 of (b, a): the same opening, colours exchanged.
    assert game_key("b", "a", 4) == game_key("a", "b", 5) == ("a", "b", 5)
    assert chunk_size(400, 2) == 10 and chunk_size(6, 2) == 2 and chunk_size(9, 1) == 6


def test_the_game_comes_from_the_checkpoints_or_is_asked_for(tmp_path):
    with pytest.raises(TournamentError, match="all checkpoints must be of one game"):
        Tournament.setup([str(MODELS / "gomoku-9x9.pt"), str(MODELS / "gomoku-8x8.pt")], tmp_path, 2, 8, check=False)
    with pytest.raises(TournamentError, match="give --game"):
        Tournament.setup(["random", "pure:5"], tmp_path, 2, 8)
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        Tournament.setup(["random", str(tmp_path / "missing.pt")], tmp_path, 2, 8)
    with pytest.raises(TournamentError, match="--anchor pure:9"):
        tiny(tmp_path, anchor="pure:9")
    t = Tournament.setup([str(MODELS / "gomoku-9x9.pt"), "classical:1"], tmp_path, 2, 8)
    assert str(t.spec) == "gomoku:9x9:k5:freestyle" and t.names == ["gomoku-9x9", "classical:1"]


def test_a_crosstable_of_known_results():
    # a beats b 3-1, a beats c 4-0, b and c draw 2-2.
    games = [("a", "b", 1.0)] * 3 + [("b", "a", 1.0)] + [("c", "a", 0.0)] * 4 + [("b", "c", 0.5)] * 4
    s = Standings.of(games, ["c", "b", "a"], anchor="c")
    assert s.cell("a", "b") == "3/4" and s.cell("b", "a") == "1/4" and s.cell("a", "c") == "4/4"
    assert s.cell("b", "c") == "2/4" and s.cell("c", "c") == "—"
    assert s.total("a") == (7.0, 8) and s.total("b") == (3.0, 8) and s.total("c") == (2.0, 8)
    assert s.order() == ["a", "b", "c"] and s.games == 12
    assert s.ratings["c"] == 0.0 and s.ratings["a"] > s.ratings["b"] > 0.0  # a sweep stays finite
    low, high = s.interval("a")
    assert low < s.ratings["a"] < high and s.interval("c") == (0.0, 0.0)
    header, first = s.header(), s.rows()[0]
    assert (
        header[7:] == ["a", "b", "c"]
        and first[:2] == ["1", "a"]
        and first[4:] == ["7", "8", "87.5%", "—", "3/4", "4/4"]
    )
    # A player no game links to the anchor gets no rating.
    s = Standings.of([("a", "b", 1.0)], ["a", "b", "d"])
    assert s.ratings["d"] is None and s.cell("a", "d") == "·" and s.order()[-1] == "d"


def test_a_stopped_tournament_resumes_with_only_the_games_left(tmp_path):
    t = tiny(tmp_path, games=4)
    planned = len(t.planned())
    assert planned == 12
    seen: list[dict] = []
    first = t.run(workers=1, on_game=seen.append, should_stop=lambda: len(seen) >= 5)
    assert first.stopped and first.played == len(seen) >= 5 and first.played < planned
    kept = set(keys(tmp_path / GAMES_FILE))
    assert len(kept) == first.played

    again: list[dict] = []
    second = tiny(tmp_path, games=4).run(workers=1, on_game=again.append)
    assert not second.stopped and second.played == len(again) == planned - first.played
    assert not kept & {game_key(r["player"], r["opponent"], r["index"]) for r in again}  # none played twice
    lines = keys(tmp_path / GAMES_FILE)
    assert len(lines) == planned and Counter(lines).most_common(1)[0][1] == 1
    assert set(lines) == {game_key(*g) for g in t.planned()}

    # Listed in another order, as a gauntlet: every game is there already.
    reordered = tiny(tmp_path, games=4, players=["pure:50", "random", "pure:20"], gauntlet=True)
    assert reordered.missing() == {} and reordered.run().played == 0
    # More games a pairing: only the new ones are played.
    more = tiny(tmp_path, games=6)
    assert sum(len(v) for v in more.missing().values()) == 6 and more.run().played == 6
    assert len(read_games(tmp_path / GAMES_FILE)) == 18


def test_a_tournament_writes_its_crosstable_ratings_and_plot(tmp_path):
    t = tiny(tmp_path, games=8, players=["random", "pure:200"], gauntlet=True)
    t.run()
    s = t.standings()
    assert s.games == 8 and s.total("pure:200")[0] >= 5  # tic-tac-toe: pure MCTS never loses to random
    assert s.ratings["pure:200"] > s.ratings["random"] == 0.0
    written = t.write_report(s)
    assert [p.name for p in written] == ["crosstable.md", "ratings.json", "ratings.png"]
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads((tmp_path / "ratings.json").read_text())
    assert report["anchor"] == "random" and report["games"] == 8 and report["format"] == "gauntlet"
    assert [p["name"] for p in report["players"]] == ["pure:200", "random"]
    points = report["crosstable"]["pure:200"]["random"]["points"]
    assert report["crosstable"]["random"]["pure:200"]["points"] == 8 - points
    table = (tmp_path / "crosstable.md").read_text()
    assert table.startswith("# Gauntlet on gomoku:3x3:k3:freestyle") and f"| {points:g}/8 |" in table


def test_another_setting_in_the_same_folder_is_refused(tmp_path):
    tiny(tmp_path, games=2, players=["random", "pure:5"]).run()
    with pytest.raises(TournamentError, match="simulations 8, not 9"):
        Tournament.setup(["random", "pure:5"], tmp_path, 2, 9, game=TICTACTOE, openings="random")
    with pytest.raises(TournamentError, match="seed 0, not 1"):
        Tournament.setup(["random", "pure:5"], tmp_path, 2, 8, game=TICTACTOE, openings="random", seed=1)


def test_a_chunk_plays_only_its_games(tmp_path):
    t = tiny(tmp_path, games=6)
    by_name = {e.name: e for e in t.players}
    job = Chunk(by_name["random"], by_name["pure:20"], (1, 2, 5)).job(t.spec, 8, t.openings, 0)
    rows: list[dict] = []
    outcome = play_chunk(job, rows.append, lambda: False)
    assert outcome["played"] == 3 and sorted(r["index"] for r in rows) == [1, 2, 5]
    for r in rows:
        assert r["opening"] == [t.spec.action_name(a) for a in t.openings[r["index"] // 2]]
        assert r["player_colour"] == ("black" if r["index"] % 2 == 0 else "white")
        assert r["reason"] == ""
