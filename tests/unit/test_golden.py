"""Golden playthroughs: one seeded random game per rule set, recorded move by move in
tests/golden/*.jsonl. Any change to legality, turn order, win detection, observations or
threat guidance shows up as a diff against these files.

Regenerate them after an intended rules change with

    python -m tests.unit.test_golden --regenerate

or run the tests with ZERO_REGENERATE_GOLDEN=1, and review the diff before committing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.games.base import GameSpec

pytestmark = pytest.mark.unit

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"

# file stem -> (game spec, seed). The Hex seed is one whose game opens with a swap.
CASES: dict[str, tuple[str, int]] = {
    "gomoku_9x9_k5_freestyle": ("gomoku:9x9:k5:freestyle", 0),
    "gomoku_7x7_k4_exact": ("gomoku:7x7:k4:exact", 0),
    "connect6_10x10": ("connect6:10x10", 0),
    "hex_7x7_swap": ("hex:7x7:swap", 82),
    "gomoku_15x15_k5_renju": ("gomoku:15x15:k5:renju", 3),  # black meets all three forbidden shapes
}


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(array.tobytes()).hexdigest()[:16]


def playthrough(text: str, seed: int) -> list[dict]:
    """Play uniformly random legal actions (swap included) from a numpy Generator and
    record, before each move, what the player to move sees; then the result."""
    spec = GameSpec.parse(text)
    rng = np.random.default_rng(seed)
    state = spec.new_game()
    records: list[dict] = [{"spec": str(spec), "seed": seed}]
    while not state.is_terminal:
        legal = state.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        record = {
            "ply": state.ply,
            "player": state.current_player,
            "move": spec.action_name(action),
            "legal": len(legal),
            "candidates": int(state.candidate_mask().sum()),
            "obs": digest(state.observation()),
        }
        if spec.rules == "renju":  # black's forbidden cells, with why (the other files have none)
            kinds = state.forbidden_kinds()
            record["forbidden"] = {spec.action_name(int(a)): int(kinds[a]) for a in np.flatnonzero(kinds)}
        records.append(record)
        state.apply(action)
    records.append(
        {
            "ply": state.ply,
            "terminal": state.is_terminal,
            "winner": state.winner,
            "draw": state.is_draw,
            "obs": digest(state.observation()),
            "board": digest(state.board()),
        }
    )
    return records


def render(records: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)


def golden_path(stem: str) -> Path:
    return GOLDEN_DIR / f"{stem}.jsonl"


def regenerate() -> list[Path]:
    """Rewrite every golden file from the current rules."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (text, seed) in CASES.items():
        path = golden_path(stem)
        path.write_text(render(playthrough(text, seed)))
        written.append(path)
    return written


@pytest.mark.parametrize("stem", sorted(CASES))
def test_golden_playthrough(stem):
    text, seed = CASES[stem]
    if os.environ.get("ZERO_REGENERATE_GOLDEN") == "1":
        regenerate()
    path = golden_path(stem)
    assert path.exists(), f"{path} is missing: run python -m tests.unit.test_golden --regenerate"
    expected = path.read_text().splitlines()
    actual = render(playthrough(text, seed)).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, (
            f"{path.name} line {i + 1} differs (if the rules changed on purpose, run "
            f"python -m tests.unit.test_golden --regenerate and review the diff)\n"
            f"  golden: {want}\n  now:    {got}"
        )
    assert len(actual) == len(expected), f"{path.name}: {len(expected)} lines recorded, {len(actual)} now"


def test_golden_files_cover_the_interesting_cases():
    """Guard the choice of seeds: each game ends, the Hex game really swaps."""
    games = {stem: [json.loads(line) for line in golden_path(stem).read_text().splitlines()] for stem in CASES}
    for stem, records in games.items():
        header, moves, end = records[0], records[1:-1], records[-1]
        assert header == {"spec": str(GameSpec.parse(CASES[stem][0])), "seed": CASES[stem][1]}
        assert end["terminal"] is True
        assert end["ply"] == len(moves)
        assert [m["ply"] for m in moves] == list(range(len(moves)))
        assert (end["winner"] is None) == end["draw"]
    hex_moves = games["hex_7x7_swap"][1:-1]
    assert hex_moves[1]["move"] == "swap"
    assert hex_moves[1]["player"] == 1
    assert hex_moves[2]["player"] == 0  # the opener moves again after the swap
    c6 = [m["player"] for m in games["connect6_10x10"][1:8]]
    assert c6 == [0, 1, 1, 0, 0, 1, 1]
    renju = games["gomoku_15x15_k5_renju"][1:-1]
    kinds = {k for m in renju for k in m["forbidden"].values()}
    assert kinds == {1, 2, 3}  # overline, double four and double three all occur
    # On black's turns the forbidden cells are left out of the legal moves.
    assert all(m["legal"] == 225 - m["ply"] - len(m["forbidden"]) for m in renju if m["player"] == 0)
    assert all(m["legal"] == 225 - m["ply"] for m in renju if m["player"] == 1)


def test_playthrough_is_deterministic():
    text, seed = CASES["hex_7x7_swap"]
    assert playthrough(text, seed) == playthrough(text, seed)
    assert playthrough(text, seed) != playthrough(text, seed + 1)


if __name__ == "__main__":
    if "--regenerate" not in sys.argv[1:]:
        sys.exit("usage: python -m tests.unit.test_golden --regenerate")
    for written in regenerate():
        print(f"wrote {written}")
