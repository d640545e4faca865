"""Matches between two players: colours alternate, openings are seeded and played twice
(once with each colour), results come with Wilson intervals and an Elo estimate; a
sequential match plays rounds of such pairs until an SPRT decides."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec, GameState
from pipeline.match.openings import OpeningSource, random_opening
from pipeline.match.sprt import SPRT, SPRTConfig
from pipeline.players.base import Forfeit, Player, ProvenWin
from pipeline.players.engines import EnginePlayer
from pipeline.runtime.interrupt import Interrupted


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (draws count as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score: float, n: int) -> float:
    """Elo of the first player over the second from its score fraction (clipped so a
    clean sweep gives a finite figure: half a game short of perfect)."""
    if n == 0:
        return 0.0
    p = min(max(score, 0.5 / n), 1 - 0.5 / n)
    return -400.0 * math.log10(1.0 / p - 1.0)


@dataclass
class MatchResult:
    player: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    wins_as_first: int
    wins_as_second: int
    lengths: list[int] = field(default_factory=list)
    proven: int = 0  # games where `player`'s solver proved its win (the first proof of the game)
    proven_against: int = 0  # ... where `opponent`'s did
    proofs: list[str] = field(default_factory=list)  # "game 4: NAME (black) found VCF in 7 at move 23"
    swaps: int = 0  # Hex: games where the second player took the first stone (swap-pieces)
    swaps_by_player: int = 0  # ... and of them, those where `player` swapped

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def summary(self) -> dict[str, object]:
        low, high = wilson(self.wins + 0.5 * self.draws, self.games)
        out = asdict(self)
        out.pop("lengths")
        out.update(
            score=round(self.score, 4),
            win_rate=round(self.wins / self.games, 4) if self.games else 0.0,
            interval_95=[round(low, 4), round(high, 4)],
            elo=round(elo_difference(self.score, self.games), 1),
            mean_length=round(float(np.mean(self.lengths)), 2) if self.lengths else 0.0,
        )
        return out


@dataclass
class GameRecord:
    """One finished game of a match, from `player`'s side."""

    index: int
    pair: int
    player_first: bool
    score: float  # 1 win, 0.5 draw, 0 loss for `player`
    plies: int
    opening: list[int]
    reason: str = ""  # why the game ended other than by the rules ("forfeit: ...", the loser's fault)
    proof: str = ""  # the game's first solver-proven win: "NAME (black) found VCF in 7 at move 23"
    proof_by_player: bool | None = None  # whether `player` (else the opponent) found it
    moves: list[int] = field(default_factory=list)  # every action of the game, the opening's first
    # (player, opponent): each move's seconds, its share of the lockstep call that made it
    seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    swapped: bool = False  # Hex: the second player took the first stone (swap-pieces)
    player_proof: str = ""  # `player`'s first proven win in words ("" if none)
    opponent_proof: str = ""  # the opponent's
    # (player, opponent): each move's simulations, in a match by time (`think`'s count:
    # playouts for pure MCTS, nodes for the classical player, 0 for an engine); else empty
    simulations: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))

    @property
    def first_player_score(self) -> float:
        """The score of the side that moved first (black)."""
        return self.score if self.player_first else 1.0 - self.score

    def mean_seconds(self) -> tuple[float, float]:
        """Mean seconds a move of (player, opponent) after the opening."""
        return tuple(round(float(np.mean(xs)), 4) if xs else 0.0 for xs in self.seconds)  # type: ignore[return-value]

    def mean_simulations(self) -> tuple[float, float]:
        """Mean simulations a move of (player, opponent) in a match by time (0 otherwise)."""
        return tuple(round(float(np.mean(xs)), 1) if xs else 0.0 for xs in self.simulations)  # type: ignore[return-value]


class PlayerDropped(Exception):
    """A player left the match (an external engine with too many faults). `records` are
    the games finished before it left: they count as played."""

    def __init__(self, message: str, records: list[GameRecord]):
        super().__init__(message)
        self.records = records


def first_proof(g: int, player: Player, opponent: Player) -> tuple[str, bool | None]:
    """(the earliest win either side's solver proved in game g, in words; whether `player`
    proved it): players that keep `proven` (see `pipeline.players.base`) say so."""
    found: list[tuple[int, bool, str, ProvenWin]] = []
    for who, mine in ((player, True), (opponent, False)):
        win = getattr(who, "proven", {}).get(g)
        if isinstance(win, ProvenWin):
            found.append((win.ply, not mine, who.name, win))
    if not found:
        return "", None
    _, theirs, name, win = min(found, key=lambda f: (f[0], f[1]))
    return win.phrase(name), not theirs


def side_proofs(g: int, player: Player, opponent: Player) -> tuple[str, str]:
    """Each side's first proven win in game g, in words ("" where it proved none)."""
    out = []
    for who in (player, opponent):
        win = getattr(who, "proven", {}).get(g)
        out.append(win.phrase(who.name) if isinstance(win, ProvenWin) else "")
    return out[0], out[1]


def paired_openings(spec: GameSpec, pairs: int, plies: int, rng: np.random.Generator) -> list[list[int]]:
    return [random_opening(spec, plies, rng) for _ in range(pairs)]


def warm_up(spec: GameSpec, *players: Player) -> None:
    """Before a match by time: each player's search once, off the clock (one simulation,
    as `zero brain` does at each new board), else the first move pays for loading the
    compiled kernels and the net's first forward (33 s for pure MCTS's first move in a test
    whose kernels were not cached). An external engine is left alone: it is asked only for
    moves."""
    for who in players:
        if not isinstance(who, EnginePlayer):
            who.think(spec.new_game(), budget=1)


def timed_moves(
    who: Player,
    turn: list[int],
    states: list[GameState],
    seconds: float,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[list[int], list[float], list[int], Forfeit]:
    """A match by time: the move of each game in `turn`, one game after the other, each
    thought over for `seconds` on its own (`think`); with each move's seconds and
    simulations, and the games forfeited (their move -1). `should_stop` is asked before
    each game's move (a side's turn over many games takes that many times `seconds`)."""
    forfeit = Forfeit({})
    moves: list[int] = []
    spent: list[float] = []
    simulations: list[int] = []
    for g in turn:
        if should_stop is not None and should_stop():
            raise Interrupted("stopped")
        started = time.perf_counter()
        try:
            thought = who.think(states[g], seconds=seconds, game=g)
            moves.append(thought.action)
            simulations.append(thought.simulations)
        except Forfeit as raised:
            forfeit.reasons.update(raised.reasons)
            forfeit.drop = forfeit.drop or raised.drop
            moves.append(-1)
            simulations.append(0)
        spent.append(time.perf_counter() - started)
    return moves, spent, simulations, forfeit


def play_lockstep(
    spec: GameSpec,
    player: Player,
    opponent: Player,
    openings: list[list[int]],
    seed: int,
    first_index: int = 0,
    on_game_end: Callable[[GameRecord], None] | None = None,
    seconds: float | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[GameRecord]:
    """Two games per opening, `player` first in the even one; all games advance in
    lockstep so a network player batches its evaluations across them. A player that
    raises `Forfeit` loses those games (the reason recorded); one that asks to be dropped
    ends the match with `PlayerDropped`, carrying the games finished so far.

    With `seconds`, a match by time: the games still advance together, but each move is
    one player's `think` over one game for that long (a batch would share the time), its
    simulations recorded; so the games are played one move at a time, not batched.

    `should_stop` is asked before each side's moves: when it says so, `Interrupted` is
    raised there, between moves, with no search half done and no batch in flight."""
    games = 2 * len(openings)
    states: list[GameState] = [spec.replay(openings[g // 2]) for g in range(games)]
    player.start(spec, games, seed)
    opponent.start(spec, games, seed + 1)
    first = [g % 2 for g in range(games)]  # the colour `player` has in game g
    records: list[GameRecord | None] = [None] * games
    done = [False] * games
    seconds_used: list[tuple[list[float], list[float]]] = [([], []) for _ in range(games)]
    simulations: list[tuple[list[int], list[int]]] = [([], []) for _ in range(games)]

    def finish(g: int, score: float, reason: str = "") -> None:
        done[g] = True
        proof, by_player = first_proof(g, player, opponent)
        mine, theirs = side_proofs(g, player, opponent)
        rec = GameRecord(
            first_index + g,
            (first_index + g) // 2,
            first[g] == 0,
            score,
            states[g].ply,
            list(openings[g // 2]),
            reason,
            proof,
            by_player,
            list(states[g].history),
            seconds_used[g],
            spec.has_swap_rule and spec.swap and len(states[g].history) > 1 and states[g].history[1] == spec.cells,
            mine,
            theirs,
            simulations[g],
        )
        records[g] = rec
        if on_game_end:
            on_game_end(rec)

    while not all(done):
        for side, who in ((0, player), (1, opponent)):
            turn = [g for g in range(games) if not done[g] and ((states[g].current_player == first[g]) == (side == 0))]
            if not turn:
                continue
            if should_stop is not None and should_stop():
                raise Interrupted("stopped")
            if seconds is not None:
                moves, spent, sims, forfeit = timed_moves(who, turn, states, seconds, should_stop)
                for g, n in zip(turn, sims, strict=True):
                    simulations[g][side].append(n)
            else:
                forfeit = Forfeit({})
                started = time.perf_counter()
                try:
                    moves = who.choose(turn, [states[g] for g in turn])
                except Forfeit as raised:
                    forfeit = raised
                    moves = [forfeit.moves.get(g, -1) for g in turn]
                share = (time.perf_counter() - started) / len(turn)  # a lockstep call moves every game in it
                spent = [share] * len(turn)
            for g, a, used in zip(turn, moves, spent, strict=True):
                seconds_used[g][side].append(round(used, 4))
                if g in forfeit.reasons:
                    finish(g, float(side == 1), f"forfeit: {forfeit.reasons[g]}")
                    continue
                states[g].apply(a)
                player.observe(g, states[g], a)
                opponent.observe(g, states[g], a)
                if states[g].is_terminal:
                    winner = states[g].winner
                    finish(g, 0.5 if winner is None else float(winner == first[g]))
            if forfeit.drop:
                raise PlayerDropped(forfeit.drop, [r for r in records if r is not None])
    return [r for r in records if r is not None]


def result_of(player: str, opponent: str, records: list[GameRecord]) -> MatchResult:
    result = MatchResult(player, opponent, len(records), 0, 0, 0, 0, 0)
    for r in records:
        result.lengths.append(r.plies)
        if r.swapped:
            result.swaps += 1
            result.swaps_by_player += not r.player_first
        if r.proof:
            result.proven += bool(r.proof_by_player)
            result.proven_against += not r.proof_by_player
            result.proofs.append(f"game {r.index + 1}: {r.proof}")
        if r.score == 0.5:
            result.draws += 1
        elif r.score == 1.0:
            result.wins += 1
            if r.player_first:
                result.wins_as_first += 1
            else:
                result.wins_as_second += 1
        else:
            result.losses += 1
    return result


def play_match(spec: GameSpec, player: Player, opponent: Player, *args: Any, **kwargs: Any) -> MatchResult:
    """`match_records` (the same arguments) summed up: the match's result for `player`."""
    return result_of(player.name, opponent.name, match_records(spec, player, opponent, *args, **kwargs))


def match_records(
    spec: GameSpec,
    player: Player,
    opponent: Player,
    games: int,
    seed: int = 0,
    opening_plies: int | None = 0,
    on_game_end=None,
    openings: OpeningSource | None = None,
    seconds: float | None = None,
) -> list[GameRecord]:
    """The records of a match: `player` takes the first move in even-numbered games,
    `opponent` in odd ones; game 2i and 2i+1 share an opening (from `openings`, else
    `opening_plies` random moves). All games advance in lockstep (by time with `seconds`:
    see `play_lockstep`)."""
    source = openings or OpeningSource(spec, None, opening_plies, np.random.default_rng(seed))
    chosen = source.take((games + 1) // 2)
    records = play_lockstep(
        spec,
        player,
        opponent,
        chosen,
        seed,
        on_game_end=(lambda r: on_game_end(r.index)) if on_game_end else None,
        seconds=seconds,
    )
    # An odd count drops the last game of the last pair, as before.
    return [r for r in records if r.index < games]


@dataclass
class SequentialResult:
    match: MatchResult
    sprt: dict[str, object]
    records: list[GameRecord]

    def summary(self) -> dict[str, object]:
        return {**self.match.summary(), "sprt": self.sprt}


def play_sequential(
    spec: GameSpec,
    player: Player,
    opponent: Player,
    test: SPRTConfig,
    seed: int = 0,
    opening_plies: int | None = 0,
    pairs_per_round: int = 5,
    on_round: Callable[[SPRT], None] | None = None,
    openings: OpeningSource | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SequentialResult:
    """Rounds of paired games (same opening, both colours) until the SPRT decides or its
    game limit is reached. Every game played counts, also those of the deciding round
    that finished after the decision would have been reached (discarding them would bias
    the result)."""
    source = openings or OpeningSource(spec, None, opening_plies, np.random.default_rng(seed))
    sprt = SPRT(test)
    records: list[GameRecord] = []
    round_no = 0
    while sprt.decision is None:
        pairs = min(pairs_per_round, (test.max_games - sprt.games + 1) // 2)
        try:
            played = play_lockstep(
                spec,
                player,
                opponent,
                source.take(pairs),
                seed + 7 * round_no,
                first_index=len(records),
                should_stop=should_stop,
            )
        except PlayerDropped as dropped:
            dropped.records = records + dropped.records
            raise
        for r in played:  # in game order already
            sprt.add(r.score)
        records += played
        round_no += 1
        if on_round:
            on_round(sprt)
    return SequentialResult(result_of(player.name, opponent.name, records), sprt.summary(), records)
