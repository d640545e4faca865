"""What a bot hands back: a `Thought` about one position, or a `Forfeit` of games it
cannot go on in. A small utility below every player, so that players defined outside
`players.py` (the external engines of `pipeline/engines/`) return the same things."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Thought:
    """What a player made of one position."""

    action: int
    visits: np.ndarray  # root visit counts by action (zeros for a player without search)
    value: float  # root value for the player to move
    simulations: int  # simulations (playouts) this search added to the root
    seconds: float


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
