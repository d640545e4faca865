"""Building an opening suite with our own deep search (`zero openings`): candidate openings
drawn over the board's centre, one of each symmetry class, each searched deeply by a
champion; those it values within `bound` of even are kept, the most even first, with the
value written beside each line so anyone can check it.

A value near even does not make a game near even: a net that attacks better than it
defends converts black's openings its value calls even (issue 38: 0.70 for black over a
value-only suite). With `played_simulations`, each opening within the bound is also played
out by the champion against itself, once with each seat, at that search, and the suite
keeps the openings that the side winning more of those games did not win there (for the
freestyle champion: those black did not win). Not as many black wins as white wins: an
opening's outcome at one search says little of its outcome at another, and falls back
toward the net's black edge. Measured (RESULTS.md, twelfth session): chosen half and half
at 100 simulations, black scored 0.69 at 200; the openings black had not won at 100 gave
black 0.55 at 200 and 0.51 at 400. Measure a suite at other settings than the one it
was chosen at, or the figure only repeats the choice.

The stones of an opening alternate colours as the rules give them (Connect6: black one,
then white two), all within `radius` cells of the centre; Hex with swap opens with one
stone anywhere (the second player then decides whether to swap, so the suite keeps the
stones the search finds closest to even: those near the line between swapping and not).

With `screen` (Connect6), the openings within the bound are also screened by the solver
(`opening_screen`): the champion plays the turn after each, and an opening after which one
side has no turn that meets the other's VCF is dropped, whatever its value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.opening_screen import screen_openings, screens
from pipeline.match.openings import Suite
from pipeline.players.base import Player


@dataclass
class Candidate:
    moves: list[int]
    value: float = 0.0  # the search's root value for the side to move after the opening
    black_score: float | None = None  # black's mean score when the champion played it out, if it did
    lost: str | None = None  # the side the solver's screen found lost, if any


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
        states = [spec.replay(c.moves) for c in chunk]
        player.start(spec, len(chunk), seed + start)
        player.choose(list(range(len(chunk))), states)
        for g, c in enumerate(chunk):
            c.value = float(player.last_value[g])  # type: ignore[attr-defined]
        if on_batch:
            on_batch(start + len(chunk))


def pick_balanced(candidates: list[Candidate], count: int, bound: float) -> list[Candidate]:
    """The most even candidates within `bound`, at most `count`, most even first."""
    kept = sorted((c for c in candidates if abs(c.value) <= bound and c.lost is None), key=lambda c: abs(c.value))
    return kept[:count]


def play_candidates(
    spec: GameSpec, player: Player, twin: Player, candidates: list[Candidate], seed: int, on_game=None
) -> None:
    """Each candidate played out twice by `player` against `twin` (the same net: one game
    with each seat), all in lockstep; black's mean score kept per candidate."""
    from pipeline.match.arena import play_lockstep

    if not candidates:
        return
    records = play_lockstep(spec, player, twin, [c.moves for c in candidates], seed, on_game_end=on_game)
    for i, c in enumerate(candidates):
        c.black_score = float(np.mean([r.first_player_score for r in records[2 * i : 2 * i + 2]]))


def pick_by_outcome(candidates: list[Candidate], count: int, bound: float) -> list[Candidate]:
    """The played candidates within `bound` that the side winning more of the played games
    did not win (the other side won, or the seats split), the most even values first, at
    most `count`."""
    played = [c for c in candidates if abs(c.value) <= bound and c.black_score is not None and c.lost is None]
    if not played:
        return []
    black_ahead = np.mean([c.black_score for c in played]) >= 0.5
    kept = [c for c in played if (c.black_score <= 0.5 if black_ahead else c.black_score >= 0.5)]
    return sorted(kept, key=lambda c: abs(c.value))[:count]


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
    players: tuple[Player, Player] | None = None,
    on_game: Callable | None = None,
    screen: bool = False,
    on_screen: Callable[[int], None] | None = None,
) -> tuple[Suite, list[Candidate]]:
    """(the suite, every candidate with its value). With `screen` (Connect6), the openings
    within `bound` are screened first and those the solver finds lost dropped. With
    `players` (the champion and its twin at the playing search), the openings within `bound`
    are played out and chosen by outcome (`pick_by_outcome`)."""
    rng = np.random.default_rng(seed)
    pool = draw_candidates(spec, candidates, stones or default_stones(spec), radius, rng)
    value_candidates(spec, player, pool, seed, on_batch=on_batch)
    within = [c for c in pool if abs(c.value) <= bound]
    if screen and screens(spec) and within:
        verdicts = screen_openings(spec, player, [c.moves for c in within], seed, on_opening=on_screen)
        for c, verdict in zip(within, verdicts, strict=True):
            c.lost = verdict.lost
    if players is None:
        chosen = pick_balanced(pool, count, bound)
    else:
        within = [c for c in within if c.lost is None]
        play_candidates(spec, *players, within, seed, on_game=on_game)
        chosen = pick_by_outcome(pool, count, bound)
    notes = [
        f"value {c.value:+.3f} for the side to move"
        + ("" if c.black_score is None else f"; black scored {c.black_score:.2f} played out")
        for c in chosen
    ]
    return Suite(spec, [c.moves for c in chosen], None, notes), pool
