"""Building an opening suite with our own deep search (`zero openings`): candidate openings
drawn over the board's centre, one of each symmetry class, each searched deeply by a
champion; those it values within `bound` of even are kept, the most even first, with the
value written beside each line so anyone can check it.

The stones of an opening alternate colours as the rules give them (Connect6: black one,
then white two), all within `radius` cells of the centre; Hex with swap opens with one
stone anywhere (the second player then decides whether to swap, so the suite keeps the
stones the search finds closest to even: those near the line between swapping and not)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.openings import Suite
from pipeline.players.base import Player


@dataclass
class Candidate:
    moves: list[int]
    value: float = 0.0  # the search's root value for the side to move after the opening


def default_stones(spec: GameSpec) -> int:
    """Stones of an opening: one on Hex with swap, two on Hex without, three elsewhere
    (Gomocup's usual length; Connect6: black's first stone and white's first turn)."""
    if spec.game == "hex":
        return 1 if spec.swap else 2
    return 3


def canonical(spec: GameSpec, moves: list[int]) -> tuple:
    """One key for every symmetric image of an opening (stones by colour, order-free)."""
    images = []
    for perm in spec.symmetries:
        state = spec.new_game()
        sides: list[list[int]] = [[], []]
        for a in moves:
            sides[state.current_player].append(int(perm[a]))
            state.apply(a)
        images.append(tuple(tuple(sorted(s)) for s in sides))
    return min(images)


def central_cells(spec: GameSpec, radius: int | None) -> np.ndarray:
    if radius is None:
        return np.arange(spec.cells)
    r0, c0 = (spec.height - 1) / 2, (spec.width - 1) / 2
    cells = [
        r * spec.width + c
        for r in range(spec.height)
        for c in range(spec.width)
        if abs(r - r0) <= radius and abs(c - c0) <= radius
    ]
    return np.array(cells)


def draw_candidates(
    spec: GameSpec, count: int, stones: int, radius: int | None, rng: np.random.Generator
) -> list[Candidate]:
    """Up to `count` openings of `stones` stones in the central cells, one per symmetry
    class, none ending the game (drawn at random; fewer if the region holds fewer)."""
    cells = central_cells(spec, radius)
    seen: set[tuple] = set()
    out: list[Candidate] = []
    for _ in range(50 * count):
        if len(out) >= count:
            break
        moves = [int(a) for a in rng.choice(cells, size=stones, replace=False)]
        state = spec.new_game()
        try:
            for a in moves:
                state.apply(a)
        except ValueError:
            continue
        if state.is_terminal:
            continue
        key = canonical(spec, moves)
        if key not in seen:
            seen.add(key)
            out.append(Candidate(moves))
    return out


def value_candidates(
    spec: GameSpec, player: Player, candidates: list[Candidate], seed: int, batch: int = 64, on_batch=None
) -> None:
    """Each candidate's root value after a search by `player` (a net player, which keeps
    `last_value` per game), in lockstep batches."""
    for start in range(0, len(candidates), batch):
        chunk = candidates[start : start + batch]
        states = []
        for c in chunk:
            state = spec.new_game()
            for a in c.moves:
                state.apply(a)
            states.append(state)
        player.start(spec, len(chunk), seed + start)
        player.choose(list(range(len(chunk))), states)
        for g, c in enumerate(chunk):
            c.value = float(player.last_value[g])  # type: ignore[attr-defined]
        if on_batch:
            on_batch(start + len(chunk))


def pick_balanced(candidates: list[Candidate], count: int, bound: float) -> list[Candidate]:
    """The most even candidates within `bound`, at most `count`, most even first."""
    kept = sorted((c for c in candidates if abs(c.value) <= bound), key=lambda c: abs(c.value))
    return kept[:count]


def build_suite(
    spec: GameSpec,
    player: Player,
    count: int,
    candidates: int,
    bound: float,
    stones: int | None = None,
    radius: int | None = 3,
    seed: int = 0,
    on_batch: Callable[[int], None] | None = None,
) -> tuple[Suite, list[Candidate]]:
    """(the suite, every candidate with its value)."""
    rng = np.random.default_rng(seed)
    pool = draw_candidates(spec, candidates, stones or default_stones(spec), radius, rng)
    value_candidates(spec, player, pool, seed, on_batch=on_batch)
    chosen = pick_balanced(pool, count, bound)
    notes = [f"value {c.value:+.3f} for the side to move" for c in chosen]
    return Suite(spec, [c.moves for c in chosen], None, notes), pool
