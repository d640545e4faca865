"""The book of solved Hex openings (`pipeline.tactics.hex.book`,
`python -m pipeline.tools.hex_solved_book`): every stored move is a proven win, a lookup
finds a position and its half-turn, the root solver plays a book position even with no
budget to prove it, and the book shipped for 7x7 holds the opening whose win the
champion once gave back."""

import json

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.search import hex_root_solver
from pipeline.search.hex_root_solver import HexRootSolver
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.book import SolvedBook, book_for
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table
from pipeline.tools import hex_solved_book

pytestmark = pytest.mark.unit


def after(spec: GameSpec, moves: list[int]):
    state = spec.new_game()
    for a in moves:
        state.apply(int(a))
    return state


def from_key(spec: GameSpec, black, white, turned: bool = False):
    """The position of a book key: black's and white's stones interleaved."""
    order = [m for pair in zip(black, white, strict=False) for m in pair] + list(black[len(white) :])
    return after(spec, [spec.cells - 1 - m for m in order] if turned else order)


def value(state) -> int:
    v, _, _ = hd.dfpn(
        state.array,
        np.int64(200_000),
        np.int64(hd.DFPN_ALL),
        hd.default_limits(),
        hd.centre_order(state.spec.width),
        new_dfpn_table(18),
    )
    return int(v)


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> SolvedBook:
    out = tmp_path_factory.mktemp("book") / "hex-4x4.json"
    hex_solved_book.main(["--size", "4", "--stones", "2", "--nodes", "20000", "--out", str(out)])
    return SolvedBook.load(out)


def test_every_move_of_the_book_wins_and_the_rest_is_lost(small_book):
    spec = GameSpec.parse("hex:4")
    assert len(small_book.moves) > 20 and small_book.lost and not small_book.unsettled
    for (to_move, black, white), move in small_book.moves.items():
        position = from_key(spec, black, white)
        assert position.current_player == to_move
        child = position.copy().apply(move)
        assert child.winner == to_move or value(child) == hd.LOSS
    for _, black, white in small_book.lost:
        assert value(from_key(spec, black, white)) == hd.LOSS


def test_a_lookup_finds_the_half_turn_of_a_stored_position(small_book):
    spec = GameSpec.parse("hex:4")
    (_, black, white), move = next(iter(small_book.moves.items()))
    turned = from_key(spec, black, white, turned=True)
    assert small_book.winning_move(turned.array) == spec.cells - 1 - move


def test_the_root_solver_plays_a_book_position_without_budget(small_book, monkeypatch):
    spec = GameSpec.parse("hex:4")
    monkeypatch.setattr(hex_root_solver, "book_for", lambda s: small_book)
    solver = HexRootSolver(spec, budget=1)
    (_, black, white), move = next(iter(small_book.moves.items()))
    position = from_key(spec, black, white)
    assert solver.winning_move(position.array, preferred=-1) == move
    _, black, white = next(iter(small_book.lost))  # lost for the mover: no winning move, book or not
    assert solver.winning_move(from_key(spec, black, white).array, preferred=0) is None


def test_the_shipped_7x7_book_has_the_opening_once_given_back():
    """Opening (8, 24) of the 7x7 sweep: won for black at ply 2, the champion played 35
    and lost the win (RESULTS.md, the fifteenth session)."""
    spec = GameSpec.parse("hex:7")
    book = book_for(spec)
    assert book is not None and book.nodes >= 50_000
    position = after(spec, [8, 24])
    move = book.winning_move(position.array)
    assert move is not None and move != 35  # (its proof takes DFPN about 100 s: the 4x4 book checks every move)


def test_the_shipped_8x8_book_answers_the_position_the_timed_sweep_gave_back():
    """8x8 (23, 37, 49, 20, 14), white to move: won, but its proof needs 20,000-50,000 nodes,
    past 5 s of a cold core; the first timed sweep dropped the win there (RESULTS.md, the
    forty-ninth session). From the book the root solver has the winning move with no budget."""
    spec = GameSpec.parse("hex:8")
    book = book_for(spec)
    assert book is not None and book.nodes >= 50_000
    position = after(spec, [23, 37, 49, 20, 14])
    move = book.winning_move(position.array)
    assert move is not None and move in position.legal_actions()
    assert HexRootSolver(spec, budget=1).winning_move(position.array, preferred=-1) == move


def test_the_openings_a_book_changes_are_those_where_the_champion_played_another_move(small_book, tmp_path):
    """Listed: a game whose move in a book position neither is the book's nor is proven to
    win (the root solver would now play the book's). Not listed: the book's move, another
    winning move (the solver keeps the search's move when it proves it), white's games."""
    spec = small_book.spec
    (_, black, white), move = next(iter(small_book.moves.items()))
    position = from_key(spec, black, white)
    loses = [a for a in position.legal_actions() if not keeps_win(position, int(a), 200_000)]
    wins = [a for a in position.legal_actions() if a != move and keeps_win(position, int(a), 200_000)]
    opening = [int(black[0]), int(white[0])]
    games = [
        {"first": True, "won": True, "moves": [*opening, move], "values": {}},
        {"first": True, "won": False, "moves": [*opening, int(loses[0])], "values": {}},
        {"first": False, "won": True, "moves": [*opening, int(loses[0])], "values": {}},
    ]
    if wins:
        games.append({"first": True, "won": True, "moves": [*opening, int(wins[0])], "values": {}})
    progress = tmp_path / "sweep.jsonl"
    progress.write_text(json.dumps({"chunk": "pure:1 first 0:4", "games": games}) + "\n")
    written = tmp_path / "changed.json"
    assert hex_solved_book.changed_openings(small_book, progress, written) == [opening]
    assert json.loads(written.read_text()) == [opening]


def test_a_sweep_of_listed_openings_says_what_is_wrong_with_the_list(tmp_path):
    from pipeline.tools import hex_perfect_play

    bad = tmp_path / "openings.json"
    for text in ("not json", "[[0, 0]]", "[[99]]"):
        bad.write_text(text)
        with pytest.raises(SystemExit, match="not a JSON list of move lists"):
            hex_perfect_play.main(["--openings-file", str(bad), "--vs", "random"])


def test_a_book_of_the_slow_positions_of_a_sweep(tmp_path):
    """`--positions-from`: the champion's positions where its move took at least
    `--slower-than` seconds, the won ones first, those the checker proved lost left out, one
    entry for a position met twice or half-turned; each solved and its winning move stored."""
    spec = GameSpec.parse("hex:4")
    games = [  # values and seconds: the champion's plies, in order
        {"first": True, "won": True, "moves": [5, 10, 6, 9], "values": {"2": 0, "4": 1}, "seconds": [4.5, 0.1]},
        {"first": True, "won": True, "moves": [5, 10, 6, 9], "values": {"2": 0, "4": 1}, "seconds": [4.2, 4.9]},
        {"first": False, "won": False, "moves": [0, 15, 1], "values": {"1": -1, "3": 0}, "seconds": [5.0, 4.0]},
        {"first": True, "won": True, "moves": [10, 5], "values": {"2": 0}, "seconds": [4.1]},  # [5, 10] turned
        {"first": True, "won": True, "moves": [3, 12], "values": {"2": 0}, "seconds": [3.9]},
    ]
    progress = tmp_path / "sweep.jsonl"
    progress.write_text(json.dumps({"chunk": "pure:1 first 0:4", "games": games}) + "\ncut by a cra")
    assert hex_solved_book.slow_positions([progress], 4.0) == [[5, 10, 6, 9], [5, 10], [0, 15, 1], [10, 5]]
    out = tmp_path / "hex-4x4.json"
    book = hex_solved_book.main(
        ["--size", "4", "--nodes", "20000", "--positions-from", str(progress), "--slower-than", "4", "--out", str(out)]
    )
    assert len(book.moves) + len(book.lost) + len(book.unsettled) == 3 and not book.unsettled
    for (to_move, black, white), move in book.moves.items():
        position = from_key(spec, black, white)
        child = position.copy().apply(move)
        assert position.current_player == to_move
        assert child.winner == to_move or value(child) == hd.LOSS
    with pytest.raises(SystemExit):
        hex_solved_book.main(["--size", "4", "--positions-from", str(tmp_path / "none.jsonl"), "--out", str(out)])
    (tmp_path / "other.jsonl").write_text('{"rows": []}\n')
    with pytest.raises(SystemExit):
        hex_solved_book.main(["--size", "4", "--positions-from", str(tmp_path / "other.jsonl"), "--out", str(out)])
