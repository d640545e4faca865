"""Opening suites: the starting positions a match is played from, each once with each
colour, as engine users run their matches (Gomocup and c-gomoku-cli opening files,
cutechess-cli books, HexGui's one-stone openings).

A suite is a text file, one opening a line, the moves in the game's own notation (`h8 i9
g7`, Hex `f6`), `#` starting a comment; a line `# game: SPEC` names the game it is for
(`gomoku:15x15:k5:freestyle`). The project ships suites under `openings/`, one per game and
board, built by `zero openings` with our own deep search: openings it values within a
bound of even, spread over the centre. A match uses the suite of its game when there is
one, and random openings otherwise: two random plies, or on Hex with the swap rule one
random stone, so that the second player decides whether to swap.

Suites are read in file order and wrap around when a match asks for more openings than
the file holds; an opening that is illegal or ends the game is an error naming its line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec, IllegalMoveError

# The checkout that holds this package and the shipped openings/.
PROJECT_ROOT = Path(__file__).resolve().parents[2]
OPENINGS_DIR = PROJECT_ROOT / "openings"
# What `--openings` and `evaluate.openings` take besides a file.
AUTO, RANDOM = "auto", "random"


class OpeningError(ValueError):
    """A suite that cannot be read for this game (said in one line with the file and line)."""


def random_opening(spec: GameSpec, plies: int, rng: np.random.Generator) -> list[int]:
    """`plies` random moves that do not end the game (swap never chosen)."""
    while True:
        state = spec.new_game()
        moves = []
        for _ in range(plies):
            cells = [a for a in state.legal_actions() if a < spec.cells]
            a = int(rng.choice(cells))
            state.apply(a)
            moves.append(a)
            if state.is_terminal:
                break
        if not state.is_terminal:
            return moves


def default_plies(spec: GameSpec) -> int:
    """Random plies of an opening when no suite is used: one stone on Hex with swap (the
    second player's swap decision is then played), else two."""
    return 1 if spec.has_swap_rule and spec.swap else 2


def suite_path(spec: GameSpec) -> Path:
    """Where the shipped suite of `spec` lives (it may not exist)."""
    return OPENINGS_DIR / f"{str(spec).replace(':', '_')}.txt"


@dataclass
class Suite:
    spec: GameSpec
    openings: list[list[int]]
    path: Path | None = None
    notes: list[str] = field(default_factory=list)  # each opening's comment (e.g. its value)

    def __len__(self) -> int:
        return len(self.openings)

    def names(self, index: int) -> str:
        return " ".join(self.spec.action_name(a) for a in self.openings[index])


def parse_opening(spec: GameSpec, text: str) -> list[int]:
    """The actions of one opening line (moves separated by spaces or commas)."""
    state = spec.new_game()
    moves = []
    for name in text.replace(",", " ").split():
        action = spec.parse_action(name)
        state.apply(action)
        moves.append(action)
        if state.is_terminal:
            raise IllegalMoveError(f"the opening ends the game at {name!r}")
    return moves


def read_suite(path: Path, spec: GameSpec) -> Suite:
    """The suite in `path`, checked against `spec` (its `# game:` line, every move legal)."""
    path = Path(path)
    if not path.is_file():
        raise OpeningError(f"{path}: no such opening suite")
    openings: list[list[int]] = []
    notes: list[str] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line, _, comment = raw.partition("#")
        if not line.strip():
            head = comment.strip()
            if head.lower().startswith("game:"):
                named = head.split(":", 1)[1].strip()
                try:
                    theirs = GameSpec.parse(named)
                except ValueError as exc:
                    raise OpeningError(f"{path}:{number}: {exc}") from None
                if theirs != spec:
                    raise OpeningError(f"{path}: a suite for {theirs}, not {spec}")
            continue
        try:
            openings.append(parse_opening(spec, line))
        except (IllegalMoveError, ValueError) as exc:
            raise OpeningError(f"{path}:{number}: {exc}") from None
        notes.append(comment.strip())
    if not openings:
        raise OpeningError(f"{path}: no openings in the file")
    return Suite(spec, openings, path, notes)


def write_suite(path: Path, suite: Suite, header: list[str]) -> Path:
    lines = [f"# {h}" for h in header] + [f"# game: {suite.spec}"]
    width = max(len(suite.names(i)) for i in range(len(suite)))
    for i in range(len(suite)):
        note = suite.notes[i] if i < len(suite.notes) else ""
        lines.append(suite.names(i).ljust(width) + (f"  # {note}" if note else ""))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def resolve_suite(spec: GameSpec, choice: str | None) -> Suite | None:
    """The suite a match of `spec` uses: `auto` (or None) the shipped one if there is one,
    `random` none, else a file path."""
    if choice is None or choice == AUTO:
        path = suite_path(spec)
        return read_suite(path, spec) if path.is_file() else None
    if choice == RANDOM:
        return None
    path = Path(choice)
    if not path.is_absolute() and not path.is_file() and (PROJECT_ROOT / path).is_file():
        path = PROJECT_ROOT / path  # a suite named as in the repository, from a workspace elsewhere
    return read_suite(path, spec)


class OpeningSource:
    """Openings for a match, a pair of games each: the suite's in order (wrapping), or
    random ones of `plies` moves drawn from `rng`."""

    def __init__(self, spec: GameSpec, suite: Suite | None, plies: int | None, rng: np.random.Generator):
        self.spec = spec
        self.suite = suite
        self.plies = default_plies(spec) if plies is None else plies
        self.rng = rng
        self.next = 0

    def take(self, pairs: int) -> list[list[int]]:
        if self.suite is None:
            return [random_opening(self.spec, self.plies, self.rng) for _ in range(pairs)]
        out = [list(self.suite.openings[(self.next + i) % len(self.suite)]) for i in range(pairs)]
        self.next += pairs
        return out

    def describe(self) -> str:
        if self.suite is not None:
            where = self.suite.path.name if self.suite.path else "given"
            return f"suite {where} ({len(self.suite)} openings)"
        return f"random openings of {self.plies} plies"
