"""What the loss audits share: a `zero evaluate --json` match file read from the command
line, the games one side lost (optionally as one colour), and the closing line of counts."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from pipeline.games.base import GameSpec


def add_match_arguments(parser: argparse.ArgumentParser, game: str) -> None:
    parser.add_argument("match", type=Path, help=f"a `zero evaluate --json` file of a {game} match")
    parser.add_argument("--loser", default=None, help="whose lost games: the match's player (default) or opponent")
    parser.add_argument("--colour", choices=["black", "white"], default=None, help="only the games it lost as this")


def lost_games(
    parser: argparse.ArgumentParser, args: argparse.Namespace, game: str, label: str
) -> tuple[GameSpec, str, Iterator[dict]]:
    """(the match's game, the loser, the records of the games it lost), or the parser's error
    for a file that is not a match of `game` (the GameSpec kind; `label` names it)."""
    if not args.match.is_file():
        parser.error(f"no match file at {args.match}")
    try:
        data = json.loads(args.match.read_text())
        spec = GameSpec.parse(data["game"])
        records = list(data["records"])
    except (ValueError, KeyError, TypeError):
        parser.error(f"{args.match} is not a `zero evaluate --json` file with its records")
    if spec.game != game:
        parser.error(f"{data['game']} is not {label}")
    loser = args.loser or data["player"]
    if loser not in (data["player"], data["opponent"]):
        parser.error(f"--loser {loser}: the match is {data['player']} against {data['opponent']}")
    lost_score = 0.0 if loser == data["player"] else 1.0  # a record's score is the match player's

    def lost() -> Iterator[dict]:
        for record in records:
            mine = "black" if record["black"] == loser else "white"
            if record["score"] == lost_score and (args.colour is None or args.colour == mine):
                yield record

    return spec, loser, lost()


def print_counts(counts: Counter[str], loser: str, colour: str | None) -> None:
    if not counts:
        print(f"{loser} lost no game" + (f" as {colour}" if colour else ""))
    else:
        print(", ".join(f"{k}: {v}" for k, v in counts.items()))
