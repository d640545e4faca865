"""The one bot interface, for everything that picks moves: network + PUCT search, pure
MCTS, a DQN's greedy move, uniformly random. The arena, the evaluate stage, the DQN
comparison, the web app, the Gomocup brain, the HTP engine and the terminal game all
drive players through it, in the spirit of OpenSpiel's `Bot`:

- `start(spec, games, seed)`: a new match of `games` games begins;
- `choose(games, states)`: moves for every game where it is this player's turn, all at
  once (a network player batches its evaluations across games);
- `observe(game, state, action)`: a move was played (by either side), so a player that
  keeps its search tree follows it;
- `think(state, budget, seconds, game)`: one position, analysed: the move, the root's
  visits and value, the simulations run and the time taken, within a simulation budget
  (default the player's own) and/or a time limit. The protocols and the web app use it.

A player whose search proves wins with a solver may also keep `proven`, a dict from each
game of the match to its first `ProvenWin` there (reset by `start`): the arena reports
which games tactics decided.

A new kind of player is a class with these four methods and a `name` (in its own module
of this package), plus a line in `factory.make_player` if it has a text form. A player
that cannot go on in a game (an external engine that broke its protocol) raises `Forfeit`
from `choose`: the arena scores that game as its loss, with the reason.

This module depends on the game layer only, so whatever drives players (the arena, the
protocols) gets the interface without loading torch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from pipeline.games.base import GameSpec, GameState


@dataclass
class Thought:
    """What a player made of one position."""

    action: int
    visits: np.ndarray  # root visit counts by action (zeros for a player without search)
    value: float  # root value for the player to move
    simulations: int  # simulations (playouts) this search added to the root
    seconds: float
    proof: str | None = None  # what a solver proved here, e.g. "VCF in 7 for black: ..."


@dataclass(frozen=True)
class ProvenWin:
    """The first win a player's solver proved in one game of a match: at the position of
    ply `ply` (so the move played there is the game's move `ply + 1`, counting stones in
    Connect6), `colour` had a forced win, a `kind` ("VCF", "VCT") of `length` moves
    (Connect6: turns)."""

    ply: int
    colour: str
    kind: str
    length: int

    def phrase(self, name: str | None = None) -> str:
        """Like "black found VCF in 7 at move 23", or with the player's `name`
        "gomoku-15x15 (black) found VCF in 7 at move 23"."""
        who = f"{name} ({self.colour})" if name else self.colour
        return f"{who} found {self.kind} in {self.length} at move {self.ply + 1}"


@dataclass
class Forfeit(Exception):
    """Raised by `choose` (or `think`) when a player cannot go on in some games: an
    external engine answered an illegal move or garbage, nothing in time, or died.

    `reasons` maps each forfeited game to why; those games are lost by this player.
    `moves` holds the moves it did choose for the other games of the call, so a fault in
    one game costs nothing in the others. `drop` says why the player must leave the match
    altogether (too many faults); the arena then stops the match, keeping every game that
    was finished."""

    reasons: dict[int, str]
    moves: dict[int, int] = field(default_factory=dict)
    drop: str | None = None

    def __str__(self) -> str:
        told = "; ".join(f"game {g}: {r}" for g, r in sorted(self.reasons.items()))
        return told + (f" ({self.drop})" if self.drop else "")


class Player(Protocol):
    name: str

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        """A new match of `games` games begins."""

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        """Moves for these games, where it is this player's turn."""

    def observe(self, game: int, state: GameState, action: int) -> None:
        """`action` was played in `game` (by either side); `state` is the position after."""

    def think(
        self, state: GameState, budget: int | None = None, seconds: float | None = None, game: int = 0
    ) -> Thought:
        """Analyse `state` (game `game` of the match; a one-game match is started if none
        is) within `budget` simulations (default the player's own) and `seconds`."""


def check_position(state: GameState) -> None:
    """`think` is asked only about positions where a move can be made."""
    if state.is_terminal:
        raise ValueError("the game is over")
