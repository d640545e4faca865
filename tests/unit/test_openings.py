"""Opening suites and per-game records (pipeline.match.openings, pipeline.match.game_records):
the suite file read and checked against the rules, each opening played once with each
colour, Hex with swap opened by one stone so the swap decision is played and counted, and
every game written as the GUIs read it."""

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.games.records import from_psq, from_sgf
from pipeline.match.arena import match_records, result_of
from pipeline.match.evaluation import Evaluation
from pipeline.match.game_records import game_dict, interleaved_milliseconds, write_records
from pipeline.match.openings import (
    OpeningError,
    OpeningSource,
    default_plies,
    read_suite,
    resolve_suite,
    suite_path,
    write_suite,
)
from pipeline.players.search import RandomPlayer

pytestmark = pytest.mark.unit

GOMOKU9 = GameSpec.parse("gomoku:9")
HEX5 = GameSpec.parse("hex:5:swap")


def suite_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.txt"
    path.write_text(text)
    return path


def test_a_suite_is_read_in_the_games_notation_with_comments(tmp_path):
    path = suite_file(tmp_path, "# game: gomoku:9x9:k5:freestyle\ne5 d4 f6   # value +0.02\n\ne5, e6\n")
    suite = read_suite(path, GOMOKU9)
    assert len(suite) == 2
    assert suite.names(0) == "e5 d4 f6" and suite.notes == ["value +0.02", ""]
    assert suite.openings[1] == [GOMOKU9.parse_action("e5"), GOMOKU9.parse_action("e6")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# game: gomoku:15\nh8\n", "a suite for gomoku:15x15:k5:freestyle, not gomoku:9x9"),
        ("e5 e5\n", "suite.txt:1:"),
        ("e5\nz99\n", "suite.txt:2:"),
        ("# nothing\n", "no openings"),
        ("a1 b1 a2 b2 a3 b3 a4 b4 a5\n", "ends the game"),
    ],
)
def test_a_bad_suite_is_one_line_naming_the_file_and_line(tmp_path, text, message):
    with pytest.raises(OpeningError, match=message):
        read_suite(suite_file(tmp_path, text), GOMOKU9)


def test_a_suite_written_reads_back(tmp_path):
    suite = read_suite(suite_file(tmp_path, "e5 d4 f6  # v\ne5\n"), GOMOKU9)
    again = read_suite(write_suite(tmp_path / "again.txt", suite, ["built by a test"]), GOMOKU9)
    assert again.openings == suite.openings and again.notes == suite.notes


def test_openings_wrap_around_the_suite_and_random_ones_default_by_game(tmp_path):
    suite = read_suite(suite_file(tmp_path, "e5\nd4\nf6\n"), GOMOKU9)
    source = OpeningSource(GOMOKU9, suite, None, np.random.default_rng(0))
    names = [GOMOKU9.action_name(o[0]) for o in source.take(2) + source.take(2)]
    assert names == ["e5", "d4", "f6", "e5"]
    assert default_plies(HEX5) == 1 and default_plies(GOMOKU9) == 2 and default_plies(GameSpec.parse("hex:5")) == 2
    random = OpeningSource(HEX5, None, None, np.random.default_rng(0)).take(3)
    assert [len(o) for o in random] == [1, 1, 1]


def test_auto_finds_the_shipped_suite_and_random_has_none():
    spec = GameSpec.parse("gomoku:15")
    assert suite_path(spec).name == "gomoku_15x15_k5_freestyle.txt"
    assert resolve_suite(GOMOKU9, "random") is None
    shipped = resolve_suite(spec, "auto")
    assert shipped is None or len(shipped) >= 20  # a shipped suite is big enough to play both colours of each


def test_each_opening_is_played_once_with_each_colour(tmp_path):
    suite = read_suite(suite_file(tmp_path, "e5 d4 f6\nc3 g7\n"), GOMOKU9)
    source = OpeningSource(GOMOKU9, suite, None, np.random.default_rng(0))
    records = match_records(GOMOKU9, RandomPlayer(), RandomPlayer(), 4, seed=1, openings=source)
    assert [r.player_first for r in records] == [True, False, True, False]
    assert [r.opening for r in records] == [suite.openings[0]] * 2 + [suite.openings[1]] * 2
    for r in records:
        assert r.moves[: len(r.opening)] == r.opening and len(r.moves) == r.plies
        after = len(r.moves) - len(r.opening)
        assert len(r.seconds[0]) + len(r.seconds[1]) == after and all(t >= 0 for t in r.seconds[0])


class Swapper(RandomPlayer):
    """Swaps whenever it may, else plays at random."""

    def choose(self, games, states):
        return [
            s.spec.cells if s.legal_mask()[s.spec.cells] else int(self.rng.choice(s.legal_actions())) for s in states
        ]


def test_hex_with_swap_opens_with_one_stone_and_counts_the_swaps():
    source = OpeningSource(HEX5, None, None, np.random.default_rng(2))
    player = Swapper()
    player.name = "swapper"
    opponent = RandomPlayer()
    records = match_records(HEX5, player, opponent, 6, seed=0, openings=source)
    assert all(len(r.opening) == 1 for r in records)
    # The swapper is second in the odd games and swaps each time; the random side may too.
    assert all(r.swapped for r in records if not r.player_first)
    result = result_of("swapper", "random", records)
    assert result.swaps_by_player == 3 and result.swaps >= 3
    assert game_dict(HEX5, records[1], "swapper", "random")["moves"][1] == "swap"


def test_records_are_written_as_the_guis_read_them(tmp_path):
    source = OpeningSource(GOMOKU9, None, 2, np.random.default_rng(0))
    records = match_records(GOMOKU9, RandomPlayer(), RandomPlayer(), 2, seed=0, openings=source)
    paths = write_records(GOMOKU9, records, tmp_path / "gomoku", "me", "them")
    assert [p.name for p in paths] == ["game-0001.psq", "game-0002.psq"]
    for path, record in zip(paths, records, strict=True):
        text = path.read_text()
        assert from_psq(text).history == record.moves
        lines = text.splitlines()
        assert lines[-3:] == (["me", "them", "-1"] if record.player_first else ["them", "me", "-1"])
        assert len(interleaved_milliseconds(record)) == len(record.moves) - len(record.opening)
    hexes = match_records(
        HEX5, Swapper(), RandomPlayer(), 2, seed=0, openings=OpeningSource(HEX5, None, None, np.random.default_rng(1))
    )
    sgf = write_records(HEX5, hexes, tmp_path / "hex", "me", "them")
    for path, record in zip(sgf, hexes, strict=True):
        text = path.read_text()
        assert from_sgf(text).history == record.moves
        assert ("PB[me]" in text) == record.player_first and "PW[" in text


def test_zero_evaluates_json_lists_every_game(tmp_path):
    model = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "gomoku-8x8.pt"
    evaluation = Evaluation.setup(model, "random", simulations=8)
    suite = suite_file(tmp_path, "# game: gomoku:8x8:k5:freestyle\nd4 e5\nc3\n")
    evaluation.play(games=4, seed=0, openings=str(suite))
    out = json.loads(json.dumps(evaluation.as_dict()))
    assert out["openings"] == "suite suite.txt (2 openings)" and out["games"] == 4 and len(out["records"]) == 4
    first = out["records"][0]
    assert first["opening"] == ["d4", "e5"] and first["black"] == "gomoku-8x8" and first["white"] == "random"
    assert first["moves"][:2] == ["d4", "e5"] and first["result"] in ("1-0", "0-1", "1/2")
    assert set(first["seconds_a_move"]) == {"gomoku-8x8", "random"}
    assert set(first["first_proven_win"]) == {"gomoku-8x8", "random"}
    assert out["records"][1]["black"] == "random"
    assert "openings: suite suite.txt" in evaluation.describe("random")


def test_symmetric_openings_are_one_candidate_and_the_balanced_are_kept():
    from pipeline.match.suite_build import Candidate, canonical, draw_candidates, pick_balanced

    spec = GameSpec.parse("gomoku:9")
    e5, d4, f6, d6 = (spec.parse_action(n) for n in ("e5", "d4", "f6", "d6"))
    assert canonical(spec, [e5, d4]) == canonical(spec, [e5, f6]) == canonical(spec, [e5, d6])
    drawn = draw_candidates(spec, 40, 3, 1, np.random.default_rng(0))
    keys = {canonical(spec, c.moves) for c in drawn}
    assert len(keys) == len(drawn) and all(abs(a // 9 - 4) <= 1 and abs(a % 9 - 4) <= 1 for c in drawn for a in c.moves)
    pool = [Candidate([1], 0.3), Candidate([2], -0.05), Candidate([3], 0.1), Candidate([4], -0.2)]
    assert [c.moves for c in pick_balanced(pool, 5, 0.15)] == [[2], [3]]
    # An opening the solver's screen found lost is not kept, however even its value.
    pool.append(Candidate([5], 0.0, lost="white"))
    assert [c.moves for c in pick_balanced(pool, 5, 0.15)] == [[2], [3]]


def test_a_suite_chosen_by_outcome_keeps_the_openings_the_side_ahead_did_not_win():
    from pipeline.match.suite_build import Candidate, pick_by_outcome

    def c(n, value, black):
        return Candidate([n], value, black)

    pool = [c(1, 0.01, 1.0), c(2, 0.02, 0.25), c(3, -0.03, 0.75), c(4, 0.04, 0.0), c(5, 0.3, 0.0), c(6, -0.01, 0.5)]
    pool += [c(8, 0.05, 1.0), Candidate([7], 0.0)]  # 7 never played: not chosen
    # Black ahead (0.58 over the played games in the bound; 5 lies outside it): 1, 3 and 8
    # black won; the rest by how even their value is.
    assert [x.moves for x in pick_by_outcome(pool, 10, 0.15)] == [[6], [2], [4]]
    assert [x.moves for x in pick_by_outcome(pool, 2, 0.15)] == [[6], [2]]
    screened = [Candidate(x.moves, x.value, x.black_score, "black" if x.moves == [6] else None) for x in pool]
    assert [x.moves for x in pick_by_outcome(screened, 10, 0.15)] == [[2], [4]]
    # White ahead over the played games: the openings white did not win.
    flipped = [Candidate(x.moves, x.value, None if x.black_score is None else 1 - x.black_score) for x in pool]
    assert [x.moves for x in pick_by_outcome(flipped, 10, 0.15)] == [[6], [2], [4]]


def zero_openings(model: str, out: Path, candidates: int, simulations: int):
    """`zero openings` with the shipped `model` into `out`: a function of the further
    arguments giving the CLI's result."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    path = Path(__file__).resolve().parents[2] / "models" / "pretrained" / model
    args = ["openings", "--model", str(path), "--out", str(out), "--candidates", str(candidates)]
    return lambda *more: CliRunner().invoke(app, [*args, "--simulations", str(simulations), *more])


def test_zero_openings_writes_a_suite_a_match_can_play(tmp_path):
    out = tmp_path / "suite.txt"
    run = zero_openings("gomoku-8x8.pt", out, 12, 16)
    result = run("--bound", "1.0", "--count", "5")
    assert result.exit_code == 0, result.output
    suite = read_suite(out, GameSpec.parse("gomoku:8"))
    assert 1 <= len(suite) <= 5 and all(len(o) == 3 for o in suite.openings)
    assert all(n.startswith("value ") for n in suite.notes)
    values = [abs(float(n.split()[1])) for n in suite.notes]
    assert values == sorted(values)
    refused = run("--bound", "0.0")
    assert refused.exit_code != 0 and "Traceback" not in refused.output


def test_zero_openings_screens_connect6_suites_with_the_solver(tmp_path):
    out = tmp_path / "suite.txt"
    run = zero_openings("connect6-10x10.pt", out, 6, 8)
    result = run("--bound", "1.0", "--count", "6")
    assert result.exit_code == 0, result.output
    suite = read_suite(out, GameSpec.parse("connect6:10"))
    header = out.read_text()
    # Every candidate within the bound was screened: those kept plus those the header counts dropped.
    dropped = int(header.split("screened: ")[1].split()[0])
    assert len(suite) + dropped == 6 and "--no-screen" not in header
    unscreened = run("--bound", "1.0", "--count", "6", "--no-screen")
    header = out.read_text()
    assert unscreened.exit_code == 0 and "--no-screen" in header and "screened: " not in header
    assert len(read_suite(out, suite.spec)) == 6
