"""Solved Hex positions shipped with the package: for the openings of a small board, a
move proven to win each one that is won for the player to move. The root solver
(`pipeline.search.hex_root_solver`) looks a position up before it solves: an opening it
cannot prove within a move's budget (some 7x7 two-stone positions need more than 20,000
nodes) is then still played perfectly. One file per board under `solved/`, made by
`python -m pipeline.tools.hex_solved_book`.

A position is its stones, with the player to move; one of each pair the half-turn maps onto
each other is stored (the half-turn keeps each player's edges: cell a -> cells - 1 - a),
and a lookup tries both."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.games.layout import BOARD, TO_MOVE

SOLVED_DIR = Path(__file__).with_name("solved")

Key = tuple[int, tuple[int, ...], tuple[int, ...]]


def book_path(spec: GameSpec) -> Path:
    return SOLVED_DIR / f"hex-{spec.height}x{spec.width}{'-swap' if spec.swap else ''}.json"


def position_key(state: np.ndarray, cells: int, turned: bool = False) -> Key:
    """(player to move, black's cells, white's cells), each half-turned when `turned`."""
    board = state[BOARD : BOARD + cells]
    black = np.flatnonzero(board == 1)
    white = np.flatnonzero(board == 2)
    if turned:
        black, white = cells - 1 - black, cells - 1 - white
    return int(state[TO_MOVE]), tuple(sorted(int(a) for a in black)), tuple(sorted(int(a) for a in white))


@dataclass
class SolvedBook:
    """Winning moves by position (each proven by DFPN); `nodes` is the largest budget a
    position was given (the unsettled ones had that much).
    `lost` and `unsettled` are the positions solved as lost for the player to move and those
    the budget did not settle (kept so that a run resumes, or tries them with more)."""

    spec: GameSpec
    nodes: int
    moves: dict[Key, int] = field(default_factory=dict)
    lost: set[Key] = field(default_factory=set)
    unsettled: set[Key] = field(default_factory=set)

    def winning_move(self, state: np.ndarray) -> int | None:
        cells = self.spec.cells
        move = self.moves.get(position_key(state, cells))
        if move is not None:
            return move
        move = self.moves.get(position_key(state, cells, turned=True))
        return None if move is None else cells - 1 - move

    def verdict(self, state: np.ndarray) -> bool | None:
        """True when the position is won for the player to move, False when lost, None when
        the book does not settle it."""
        if self.winning_move(state) is not None:
            return True
        cells = self.spec.cells
        if position_key(state, cells) in self.lost or position_key(state, cells, turned=True) in self.lost:
            return False
        return None

    def add(self, state: np.ndarray, move: int) -> None:
        self.moves[position_key(state, self.spec.cells)] = int(move)

    def save(self, path: Path) -> None:
        entries = sorted([t, list(b), list(w), move] for (t, b, w), move in self.moves.items())
        data = {
            "spec": str(self.spec),
            "nodes": self.nodes,
            "positions": entries,
            "lost": sorted([t, list(b), list(w)] for t, b, w in self.lost),
            "unsettled": sorted([t, list(b), list(w)] for t, b, w in self.unsettled),
        }
        text = json.dumps(data, separators=(",", ":"))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        tmp.replace(path)  # a crash mid-write leaves the last whole book

    @classmethod
    def load(cls, path: Path) -> SolvedBook:
        data = json.loads(path.read_text())
        book = cls(GameSpec.parse(data["spec"]), int(data["nodes"]))
        for to_move, black, white, move in data["positions"]:
            book.moves[(int(to_move), tuple(black), tuple(white))] = int(move)
        book.lost = {(int(t), tuple(b), tuple(w)) for t, b, w in data.get("lost", [])}
        book.unsettled = {(int(t), tuple(b), tuple(w)) for t, b, w in data.get("unsettled", [])}
        return book


@cache
def book_for(spec: GameSpec) -> SolvedBook | None:
    """The book shipped for `spec`'s board, or None."""
    path = book_path(spec)
    if not path.is_file():
        return None
    book = SolvedBook.load(path)
    if str(book.spec) != str(spec):
        raise ValueError(f"{path}: a book for {book.spec}, not {spec}")
    return book
