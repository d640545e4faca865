"""The games table: every evaluation game ever played (generation, both players,
colours, result, why it ended otherwise and the first win a solver proved in it), one CSV
row each, in reports/games.csv. The rating is fitted over it. A table written before a
column was added reads with that column empty."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from pipeline.runtime.atomic import atomic_file

COLUMNS = (
    "generation",
    "match",
    "game",
    "pair",
    "player",
    "opponent",
    "player_first",
    "score",
    "plies",
    "opening",
    "reason",
    "proof",  # the game's first solver-proven win, in words (see pipeline.match.arena)
)


def read_games(path: Path) -> list[dict[str, Any]]:
    if not Path(path).is_file():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["generation"] = int(row["generation"])
        row["game"] = int(row["game"])
        row["pair"] = int(row["pair"])
        row["plies"] = int(row["plies"])
        row["score"] = float(row["score"])
        row["player_first"] = row["player_first"] in ("1", "True", "true")
    return rows


def replace_generation(path: Path, generation: int, rows: list[dict[str, Any]]) -> None:
    """Write `rows` as this generation's games, dropping any earlier attempt at it, so a
    rerun of evaluate leaves the table as one run would."""
    kept = [r for r in read_games(path) if r["generation"] != generation]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in [*kept, *rows]:
        writer.writerow({**{c: row.get(c, "") for c in COLUMNS}, "player_first": int(bool(row["player_first"]))})
    with atomic_file(path, "w") as f:
        f.write(out.getvalue())


def as_results(rows: list[dict[str, Any]]) -> list[tuple[str, str, float]]:
    return [(r["player"], r["opponent"], r["score"]) for r in rows]
