"""Perfect play where Hex is solved, checked by the solver: a player's games against an
opponent, where before each of the player's moves the DFPN solver (pipeline.tactics.
hex_solve) says whether the player to move has a proven win there.

A perfect player (1) never loses a game whose first position of its own was a proven win
(as the first player on 7x7, the empty board is one), and (2) as the second player wins
every game the opponent's mistakes made winnable: once one of its positions is proven won,
every later one must be too (the opponent cannot undo a lost position; only the player can
drop the win). The checker's own table and budget are separate from the player's, so the
check does not share the player's knowledge.

The opponent's first `random_plies` moves are uniformly random (openings the opponent
would not choose, and different games against a deterministic opponent); after that it
plays its own moves. Or each game starts from a given opening (`openings`: every opening of
a few plies, `all_openings`), played by neither side."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.players.base import Player
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.book import SolvedBook
from pipeline.tactics.hex.solve import check_dfpn_size, new_dfpn_table
from pipeline.tactics.hex.solver import LOSS, UNKNOWN, WIN

# The checker's budget in a position after one of the player's proven won ones, as a multiple
# of its budget: there an unsettled verdict would count as a win dropped (the player's root
# solver has the same multiple there, pipeline.search.hex_root_solver).
WON_BUDGET_FACTOR = 8


def all_openings(spec: GameSpec, plies: int) -> list[list[int]]:
    """Every opening of `plies` stones (no swap), one of each pair the half-turn maps onto
    each other (Hex's symmetry: it keeps each player's edges), in a fixed order."""
    cells = spec.cells
    seen: set[tuple[int, ...]] = set()
    out = []
    for moves in permutations(range(cells), plies):
        turned = tuple(cells - 1 - a for a in moves)  # the half-turn of a cell is cells - 1 - it
        if turned in seen:
            continue
        seen.add(moves)
        out.append(list(moves))
    return out


class WinChecker:
    """DFPN with H-search within `budget` nodes a position (`won_budget`, by default 8 times
    it, where an unsettled verdict would count as a win dropped), one table kept between calls.
    Each position's verdict is kept too: a deterministic champion reaches the same opening
    positions in game after game, and those (unproven on 8x8) cost the whole budget each.

    `book` (a board's shipped `SolvedBook`) answers the positions it holds as won or lost
    before any search (each proven by DFPN; a lost one costs up to the whole budget). Those
    it left unsettled are solved here all the same: the book's budget was spent with a table
    warmed by other openings, so the checker's own search may still settle one. The book's
    verdicts are the one knowledge the checker shares with the player (which plays the
    book's winning moves); a wrong "won" there would still show, as the player's next
    position not proven won."""

    def __init__(
        self,
        spec: GameSpec,
        budget: int,
        log2_table: int = 20,
        book: SolvedBook | None = None,
        won_budget: int | None = None,
    ):
        if spec.game != "hex":
            raise ValueError(f"perfect play is checked by the Hex solver, not for {spec}")
        check_dfpn_size(spec.width)
        self.budget = budget
        self.won_budget = max(budget, budget * WON_BUDGET_FACTOR if won_budget is None else won_budget)
        self.rechecked: set[bytes] = set()
        self.limits = hd.default_limits()
        self.order = hd.centre_order(spec.width)
        self.tt = new_dfpn_table(log2_table)
        self.solves = 0
        self.book = book
        self.from_book = 0
        self.verdicts: dict[bytes, int] = {}
        self.earlier: set[bytes] = set()  # positions whose verdict came from an earlier sweep
        self.from_earlier = 0

    def take_verdicts(self, verdicts: dict[bytes, int]) -> None:
        """Verdicts an earlier check gave (by position, `state.array.tobytes()`), taken
        instead of solving those positions again. A proven one is a proof whatever the budget
        was; an unsettled one is what this budget would likely give again, so it should come
        from a check at the same budget. Where an unsettled verdict would count as a win
        dropped it is still solved at `won_budget`: a taken verdict can settle a position
        but never hide a drop."""
        for key, verdict in verdicts.items():
            if key not in self.verdicts:
                self.verdicts[key] = int(verdict)
                self.earlier.add(key)

    def value(self, state: GameState, after_win: bool = False) -> int:
        """WIN or LOSS for the player to move, UNKNOWN when the budget did not settle it.
        `after_win`: one of the player's earlier positions was proven won, so an unsettled
        verdict here would count as a win dropped; it gets `won_budget` before it does."""
        verdict = self._value(state)
        key = state.array.tobytes()
        if verdict == UNKNOWN and after_win and key not in self.rechecked:
            self.rechecked.add(key)
            self.verdicts[key] = verdict = self._solve(state, self.won_budget)
        return verdict

    def _solve(self, state: GameState, budget: int) -> int:
        self.solves += 1
        v, _, _ = hd.dfpn(state.array, np.int64(budget), np.int64(hd.DFPN_ALL), self.limits, self.order, self.tt)
        return int(v)

    def _value(self, state: GameState) -> int:
        key = state.array.tobytes()
        if key in self.earlier:
            self.earlier.discard(key)  # counted once, like a position solved here
            self.from_earlier += 1
        if key not in self.verdicts and self.book is not None:
            known = self.book.verdict(state.array)
            if known is not None:
                self.from_book += 1
                self.verdicts[key] = WIN if known else LOSS
        if key not in self.verdicts:
            self.verdicts[key] = self._solve(state, self.budget)
        return self.verdicts[key]


@dataclass
class CheckedGame:
    """One game from the checked player's side. `values` holds the solver's verdict (WIN,
    LOSS, UNKNOWN for the player to move) at each of the player's turns, by ply; `seconds`
    the time each of the player's moves took, in a game played by time (else empty)."""

    index: int
    player_first: bool
    won: bool
    moves: list[int]
    values: dict[int, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)

    @property
    def winnable_ply(self) -> int | None:
        """The first of the player's positions proven won for it."""
        return next((p for p, v in sorted(self.values.items()) if v == WIN), None)

    @property
    def dropped_ply(self) -> int | None:
        """The first of the player's positions after a proven win that is not proven won
        (the win dropped by the player's move before it, or the checker's budget short:
        then it is UNKNOWN, see `values`)."""
        start = self.winnable_ply
        if start is None:
            return None
        return next((p for p, v in sorted(self.values.items()) if p > start and v != WIN), None)

    @property
    def perfect(self) -> bool:
        """Nothing the solver can hold against the player: no proven win dropped or lost."""
        return self.winnable_ply is None or (self.won and self.dropped_ply is None)


@dataclass
class PerfectPlayReport:
    player: str
    opponent: str
    games: list[CheckedGame]

    def side(self, first: bool) -> list[CheckedGame]:
        return [g for g in self.games if g.player_first == first]

    def summary(self, first: bool) -> dict[str, int]:
        games = self.side(first)
        winnable = [g for g in games if g.winnable_ply is not None]
        return {
            "games": len(games),
            "won": sum(g.won for g in games),
            "lost": sum(not g.won for g in games),
            "winnable": len(winnable),
            "winnable_won": sum(g.won for g in winnable),
            "dropped": sum(g.dropped_ply is not None for g in winnable),
            "unknown_positions": sum(v == UNKNOWN for g in games for v in g.values.values()),
        }

    def describe(self) -> str:
        lines = []
        for first in (True, False):
            s = self.summary(first)
            if not s["games"]:
                continue
            side = "first" if first else "second"
            lines.append(
                f"{self.player} as {side} player vs {self.opponent}: {s['won']}-{s['lost']} in {s['games']} games; "
                f"{s['winnable']} winnable (a position of its own proven won), {s['winnable_won']} of them won, "
                f"{s['dropped']} with a win dropped; {s['unknown_positions']} positions the checker did not settle"
            )
        return "\n".join(lines)


def play_checked(
    spec: GameSpec,
    player: Player,
    opponent: Player,
    games: int,
    player_first: bool,
    checker: WinChecker,
    seed: int = 0,
    random_plies: int = 0,
    openings: Sequence[list[int]] | None = None,
    seconds: float | None = None,
) -> list[CheckedGame]:
    """`games` games in lockstep (a net batches its evaluations across them), the player
    first or second in all of them, each of the player's positions judged by `checker`;
    game g from `openings[g]` when given (then `games` is their number). With `seconds` the
    player moves as it does for people: each move on its own (`think`) within that time,
    which is recorded (`CheckedGame.seconds`)."""
    rng = np.random.default_rng(seed)
    if openings is not None:
        games = len(openings)
    states = [spec.new_game() for _ in range(games)]
    records = [CheckedGame(g, player_first, False, []) for g in range(games)]
    player.start(spec, games, seed)
    opponent.start(spec, games, seed + 1)
    for g, opening in enumerate(openings or []):
        for a in opening:
            states[g].apply(int(a))
            records[g].moves.append(int(a))
            player.observe(g, states[g], int(a))
            opponent.observe(g, states[g], int(a))
        if states[g].is_terminal:
            raise ValueError(f"opening {opening} ends the game")
    mine = 0 if player_first else 1
    opponent_moves = [0] * games
    live = set(range(games))
    while live:
        for side_is_player in (player_first, not player_first):
            turn = sorted(g for g in live if (states[g].current_player == mine) == side_is_player)
            if not turn:
                continue
            if side_is_player:
                for g in turn:
                    after_win = WIN in records[g].values.values()
                    records[g].values[states[g].ply] = checker.value(states[g], after_win)
                if seconds is None:
                    moves = player.choose(turn, [states[g] for g in turn])
                else:
                    moves = []
                    for g in turn:
                        started = time.perf_counter()
                        moves.append(player.think(states[g], seconds=seconds, game=g).action)
                        records[g].seconds.append(round(time.perf_counter() - started, 4))
            else:
                own = [g for g in turn if opponent_moves[g] >= random_plies]
                chosen = dict(zip(own, opponent.choose(own, [states[g] for g in own]) if own else [], strict=True))
                for g in turn:
                    if g not in chosen:
                        chosen[g] = int(rng.choice([a for a in states[g].legal_actions() if a < spec.cells]))
                    opponent_moves[g] += 1
                moves = [chosen[g] for g in turn]
            for g, a in zip(turn, moves, strict=True):
                states[g].apply(int(a))
                records[g].moves.append(int(a))
                player.observe(g, states[g], int(a))
                opponent.observe(g, states[g], int(a))
                if states[g].is_terminal:
                    records[g].won = states[g].winner == mine
                    live.discard(g)
    return records
