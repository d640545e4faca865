"""Self-play: one model plays a batch of games against itself with the batched search,
returning training positions (observations and policy targets in the presented frame:
the root's visit distribution, or with a Gumbel root its improved policy from completed
Q-values; results from the point of view of the player to move).

The jobs are kept apart: `GameInFlight` is one game in a slot (its state, its records,
its resignation watch, its own random streams); `ResignPolicy` (pipeline.selfplay.resign)
decides resignations and counts the false ones; `playout_cap` draws which moves are
searched in full; `training_record` and `game_positions` assemble the records;
`SelfPlayRun` advances the games in lockstep, one search per move for all of them, and
hands over each step's finished games (`FinishedGame`) as soon as the step ends.

Every random draw of a game (its move choice, playout cap, calibration, random opening
and root noise) comes from streams seeded by (seed, game id) alone, so game i is the same
game whichever games ran beside it and whichever were played before: a resumed task plays
only its missing games (`only`) and they are the games an uninterrupted run plays. What
the games in lockstep still share is the network's batch (a backend whose rows depend on
the batch's size, as eager torch on the CPU can in the last bit, may then differ) and the
threat solvers' failure tables (`search.tactics`: a hit saves nodes of a budgeted call)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from pipeline.games.base import GameSpec, GameState
from pipeline.runtime.interrupt import Interrupted
from pipeline.search.evaluator import Evaluator
from pipeline.search.gumbel import improved_policy as gumbel_target
from pipeline.search.mcts import BatchedMCTS, SearchConfig, pick_action
from pipeline.selfplay.opening import improved_policy, opening_length, random_opening_move
from pipeline.selfplay.replay import Positions
from pipeline.selfplay.resign import ResignPolicy, ResignTally, ResignWatch


class SelfPlayConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parallel_games: int = Field(32, ge=1, description="games advanced in lockstep per worker")
    temperature_moves: int = Field(
        8,
        ge=0,
        description="plies sampled at temperature 1, then the most visited move (a Gumbel root plays its own "
        "choice, already a sample)",
    )
    search: SearchConfig = SearchConfig()
    fast_simulations: int | None = Field(
        None,
        ge=1,
        description="playout-cap randomisation: moves not drawn for a full search get this many simulations, "
        "no root noise, and are not training targets (None: every move is a full search)",
    )
    full_search_prob: float = Field(0.25, gt=0, le=1, description="share of moves searched in full under a playout cap")
    resign_threshold: float | None = Field(
        None, ge=-1, le=0, description="resign when the searched root value falls below this (None: never)"
    )
    resign_calibration: float = Field(
        0.1, ge=0, le=1, description="share of games played out with resignation off, to count false resignations"
    )
    random_first_moves: float = Field(
        0.0, ge=0, le=1, description="share of games whose first move is drawn uniformly from the legal moves"
    )
    random_opening_plies: PositiveInt | Annotated[list[PositiveInt], Field(min_length=1)] = Field(
        1,
        description="plies drawn at random in a game with a random opening (3 on Connect6: the balanced "
        "openings engines are judged from are one black stone and two white); a list: each game draws "
        "one of its lengths (e.g. [1, 3]: a lone first stone answered by search, or three stones)",
    )
    random_opening_radius: int | None = Field(
        None, ge=0, description="random opening moves within this many cells of the centre (None: the whole board)"
    )
    lone_stone_anywhere: bool = Field(
        False,
        description="a random opening of one ply draws its stone from the whole board, whatever "
        "random_opening_radius says (so a net with an edge plane sees how a first stone's value falls "
        "towards the edges)",
    )
    completed_q_plies: int = Field(
        0, ge=0, description="plies whose policy target is the improved policy from completed Q-values (Gumbel)"
    )
    full_search_plies: int = Field(
        0,
        ge=0,
        description="plies always searched in full and kept as training positions, whatever the playout cap draws "
        "(the opening is otherwise one position in about fifty)",
    )

    overlap: bool = Field(
        False,
        description="two half-batches in flight: the network evaluates one half of the games while the search "
        "expands and selects the other (the same games for the same evaluations; needs a core for each)",
    )

    @model_validator(mode="after")
    def _fast_below_full(self) -> SelfPlayConfig:
        if self.fast_simulations is not None and self.fast_simulations >= self.search.simulations:
            raise ValueError(
                f"fast_simulations ({self.fast_simulations}) must be below search.simulations "
                f"({self.search.simulations})"
            )
        return self


@dataclass
class SelfPlayStats:
    games: int
    positions: int
    first_player_wins: int
    second_player_wins: int
    draws: int
    seconds: float
    simulations: int
    plies: int = 0
    resigned: int = 0
    calibration_games: int = 0
    would_resign: int = 0
    false_resignations: int = 0
    winner_min_values: list[float] = field(default_factory=list)


class Record(NamedTuple):
    """One training position before the game's result is known."""

    obs: np.ndarray  # uint8 observation planes, presented frame
    pi: np.ndarray  # float32 policy target (visit distribution or improved policy), presented frame
    mover: int  # the player to move
    ply: int
    q: float = float("nan")  # the search's root value for the mover (NaN: not known)


@dataclass
class GameRandom:
    """One game's random streams, all from (seed, game id) alone."""

    moves: np.random.Generator  # the move drawn at temperature 1, ties at temperature 0
    extra: np.random.Generator  # playout-cap draws and the calibration draw
    opening: np.random.Generator  # whether the game opens at random, and where
    noise: np.random.Generator  # root noise: Dirichlet (PUCT) or Gumbel

    @staticmethod
    def for_game(seed: int, game_id: int) -> GameRandom:
        streams = np.random.SeedSequence([int(seed) & (2**64 - 1), int(game_id)]).spawn(4)
        return GameRandom(*(np.random.default_rng(s) for s in streams))


class GameNoiseMCTS(BatchedMCTS):
    """The batched search with each slot's root noise drawn from its game's own stream
    (`slot_noise`), so that a game's noise does not depend on the games beside it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.slot_noise: list[np.random.Generator] = [self.noise_rng] * self.games

    def _add_noise(self, g: int) -> None:
        self.noise_rng = self.slot_noise[g]
        super()._add_noise(g)

    def _start_halving(self, g: int, noisy: bool, simulations: int) -> None:
        self.noise_rng = self.slot_noise[g]
        super()._start_halving(g, noisy, simulations)


@dataclass
class GameInFlight:
    """One game in a self-play slot."""

    game_id: int
    state: GameState
    resign: ResignWatch
    rng: GameRandom
    records: list[Record] = field(default_factory=list)
    opening_plies: int = 0  # how many plies of its opening are random (0: not a random opening)
    plies: int = 0


@dataclass
class FinishedGame:
    """A game that ended: its training positions (None: it kept none) and what it adds to
    the figures of a shard."""

    game_id: int
    positions: Positions | None
    winner: int | None
    resigned: bool
    plies: int
    resign: ResignTally


def games_figures(games: Sequence[FinishedGame]) -> dict[str, int | list[float]]:
    """The shard header's figures of these games (summed over shards, they are the task's)."""
    return {
        "games": len(games),
        "positions": sum(len(g.positions) for g in games if g.positions is not None),
        "first_player_wins": sum(g.winner == 0 for g in games),
        "second_player_wins": sum(g.winner == 1 for g in games),
        "draws": sum(g.winner is None for g in games),
        "plies": sum(g.plies for g in games),
        "resigned": sum(g.resigned for g in games),
        "calibration_games": sum(g.resign.calibration_games for g in games),
        "would_resign": sum(g.resign.would_resign for g in games),
        "false_resignations": sum(g.resign.false_resignations for g in games),
        "winner_min_values": [round(v, 4) for g in games for v in g.resign.winner_min_values],
    }


@dataclass
class SelfPlayCounts:
    """What the finished games add up to."""

    finished: int = 0
    plies: int = 0
    resigned: int = 0
    first_player_wins: int = 0
    second_player_wins: int = 0
    draws: int = 0

    def game_over(self, winner: int | None, resigned: bool) -> None:
        self.finished += 1
        self.resigned += resigned
        if winner is None:
            self.draws += 1
        elif winner == 0:
            self.first_player_wins += 1
        else:
            self.second_player_wins += 1


def playout_cap(
    config: SelfPlayConfig, rngs: Sequence[np.random.Generator | None], opening: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Playout-cap randomisation: which slots search this move in full (root noise, a
    training target) and each slot's simulations (None: the config's). Each slot draws
    from its game's own stream (None: an empty slot, which draws nothing). Slots marked in
    `opening` (plies under `full_search_plies`) are full whatever is drawn. Without a cap
    every move is full and nothing is drawn."""
    if config.fast_simulations is None:
        return np.ones(len(rngs), dtype=np.bool_), None
    full = np.array([rng is not None and rng.random() < config.full_search_prob for rng in rngs], dtype=np.bool_)
    if opening is not None:
        full |= opening
    return full, np.where(full, config.search.simulations, config.fast_simulations)


def training_record(state: GameState, visits: np.ndarray, q: float = float("nan")) -> Record:
    """The position to move in, its search's visit distribution in the presented frame
    (uniform over legal moves if the search handed out no visits) and its searched value `q`."""
    total = visits.sum()
    pi = visits / total if total > 0 else state.legal_mask() / state.legal_mask().sum()
    pi_presented = np.zeros_like(pi)
    pi_presented[state.presented_order()] = pi
    return Record(
        state.observation().astype(np.uint8), pi_presented.astype(np.float32), state.current_player, state.ply, q
    )


def game_positions(game: GameInFlight, winner: int | None) -> Positions | None:
    """A finished game's records with its result for each mover; None when it kept none
    (a game resigned before its first full search)."""
    rec = game.records
    if not rec:
        return None
    return Positions(
        obs=np.stack([r.obs for r in rec]),
        pi=np.stack([r.pi for r in rec]),
        z=np.array([0 if winner is None else (1 if r.mover == winner else -1) for r in rec], dtype=np.int8),
        game_id=np.full(len(rec), game.game_id, dtype=np.int32),
        ply=np.array([r.ply for r in rec], dtype=np.int16),
        plies_left=np.array([game.state.ply - r.ply for r in rec], dtype=np.int16),
        q=np.array([r.q for r in rec], dtype=np.float32),
    )


class SelfPlayRun:
    """Games 0..`games`-1 (or only the ids in `only`) played in at most `parallel_games`
    slots; a finished game's slot takes the next game until all have started. Game i's
    random streams come from (seed, i) (`GameRandom`)."""

    def __init__(
        self,
        spec: GameSpec,
        evaluator: Evaluator,
        games: int,
        config: SelfPlayConfig,
        seed: int,
        on_game_end: Callable[[int, int], None] | None = None,
        only: Sequence[int] | None = None,
    ):
        self.spec = spec
        self.evaluator = evaluator
        self.ids = list(range(games)) if only is None else sorted({int(i) for i in only})
        if not self.ids or not 0 <= self.ids[0] <= self.ids[-1] < games:
            raise ValueError(f"no games to play, or game ids outside 0..{games - 1}: {only}")
        self.games = len(self.ids)
        self.config = config
        self.seed = seed
        self.on_game_end = on_game_end
        slots = min(config.parallel_games, self.games)
        self.search = GameNoiseMCTS(spec, slots, config.search, seed=seed, overlap=config.overlap)
        self.resign = ResignPolicy(config.resign_threshold, config.resign_calibration)
        self.slots: list[GameInFlight | None] = [None] * slots
        self.started = 0
        self.finished: list[FinishedGame] = []  # in the order they ended
        self.handed = 0  # how many of them `take_finished` handed over
        self.counts = SelfPlayCounts()
        for slot in range(slots):
            self.start_game(slot)

    def start_game(self, slot: int) -> None:
        state = self.spec.new_game()
        game_id = self.ids[self.started]
        rng = GameRandom.for_game(self.seed, game_id)
        game = GameInFlight(game_id, state, self.resign.watch(rng.extra), rng)
        # No draw at all without random openings: a run's games stay what they were.
        if self.config.random_first_moves > 0 and rng.opening.random() < self.config.random_first_moves:
            game.opening_plies = opening_length(self.config.random_opening_plies, rng.opening)
        self.slots[slot] = game
        self.started += 1
        self.search.slot_noise[slot] = rng.noise
        self.search.reset(slot, state.array)

    def opening_radius(self, game: GameInFlight) -> int | None:
        """How near the centre a random opening move of `game` is drawn (None: anywhere)."""
        if self.config.lone_stone_anywhere and game.opening_plies == 1:
            return None
        return self.config.random_opening_radius

    def step(self) -> None:
        """One search for every game in flight, then one move (or a resignation) each."""
        active = np.array([game is not None for game in self.slots])
        plies = self.config.full_search_plies
        opening = np.array([g is not None and g.state.ply < plies for g in self.slots]) if plies else None
        streams = [game.rng.extra if game is not None else None for game in self.slots]
        full, budget = playout_cap(self.config, streams, opening)
        visits = self.search.search(self.evaluator, active=active, noise=full, simulations=budget)
        for slot in np.flatnonzero(active):
            self.move(int(slot), visits[slot], bool(full[slot]))

    def move(self, slot: int, visits: np.ndarray, full: bool) -> None:
        game = self.slots[slot]
        assert game is not None
        state = game.state
        mover = state.current_player
        if self.resign.resigns(game.resign, mover, self.search.tree.root_value(slot)):
            self.end_game(slot, 1 - mover, resigned=True)
            return
        search = self.config.search
        gumbel = search.root == "gumbel"
        # Inside a random opening, after a random move and before the last, the game's
        # outcome follows moves no search chose: a black stone answered by random white
        # stones scores far above one white answered (RESULTS.md, eighteenth session), and a
        # value head trained on that rates black's first stone by where random replies
        # leave it. Those positions are not kept.
        inside_random = 0 < state.ply < game.opening_plies
        if full and not inside_random:
            target = visits
            if state.ply < self.config.completed_q_plies:
                target = improved_policy(
                    state, self.evaluator, self.search.tree, slot, search.gumbel.c_visit, search.gumbel.c_scale
                )
            elif gumbel:
                target = gumbel_target(self.search.tree, slot, search.gumbel.c_visit, search.gumbel.c_scale)
            game.records.append(training_record(state, target, self.search.tree.searched_value(slot)))
        if state.ply < game.opening_plies:
            action = random_opening_move(state, game.rng.opening, self.opening_radius(game))
        elif gumbel:
            # The halving's choice: with the root's Gumbel noise it is already a sample.
            action = self.search.best_action(slot)
        else:
            temperature = 1.0 if state.ply < self.config.temperature_moves else 0.0
            action = pick_action(visits, temperature, game.rng.moves)
        state.apply(action)
        self.counts.plies += 1
        game.plies += 1
        if state.is_terminal:
            self.end_game(slot, state.winner, resigned=False)
        else:
            self.search.advance(slot, action, state.array)

    def end_game(self, slot: int, winner: int | None, resigned: bool) -> None:
        game = self.slots[slot]
        assert game is not None
        self.counts.game_over(winner, resigned)
        tally = self.resign.game_over(game.resign, winner)
        positions = game_positions(game, winner)
        self.finished.append(FinishedGame(game.game_id, positions, winner, resigned, game.plies, tally))
        if self.on_game_end:
            self.on_game_end(game.game_id, len(game.records))
        if self.started < self.games:
            self.start_game(slot)
        else:
            self.slots[slot] = None

    def take_finished(self) -> list[FinishedGame]:
        """The games that ended since the last call."""
        fresh = self.finished[self.handed :]
        self.handed = len(self.finished)
        return fresh

    def positions(self) -> Positions:
        kept = [g.positions for g in self.finished if g.positions is not None]
        if not kept:
            return Positions.empty(self.spec.obs_shape, self.spec.num_actions)
        return Positions.concat(kept)

    def stats(self, positions: int, seconds: float) -> SelfPlayStats:
        counts, tally = self.counts, self.resign.tally
        return SelfPlayStats(
            games=counts.finished,
            positions=positions,
            first_player_wins=counts.first_player_wins,
            second_player_wins=counts.second_player_wins,
            draws=counts.draws,
            seconds=seconds,
            simulations=self.search.evaluations,
            plies=counts.plies,
            resigned=counts.resigned,
            calibration_games=tally.calibration_games,
            would_resign=tally.would_resign,
            false_resignations=tally.false_resignations,
            winner_min_values=tally.winner_min_values,
        )


def play_games(
    spec: GameSpec,
    evaluator: Evaluator,
    games: int,
    config: SelfPlayConfig,
    seed: int,
    on_game_end: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    only: Sequence[int] | None = None,
    on_finished: Callable[[list[FinishedGame], int], None] | None = None,
) -> tuple[Positions, SelfPlayStats]:
    """Play `games` complete games (or only the game ids in `only`, each the same game as
    in the full run); reproducible for a given seed and evaluator.

    With a playout cap, only full searches become training positions. With a resignation
    threshold, a game ends when the player to move sees its root value below it, except
    in the calibration games, which are played out to count how often that would have
    been wrong.

    `on_game_end(game_id, positions kept)` follows each finished game. After each move of
    the lockstep that ended games, `on_finished(those games, evaluations so far)` gets them
    (e.g. to write them to disk before the next move). `should_stop` is asked between
    moves; when it says yes, the games in flight are dropped and `Interrupted` is raised
    (every finished game was handed to `on_finished` before), so a Ctrl-C stops self-play
    within one move."""
    start = time.perf_counter()
    run = SelfPlayRun(spec, evaluator, games, config, seed, on_game_end, only)
    while run.counts.finished < run.games:
        if should_stop is not None and should_stop():
            raise Interrupted(f"{run.counts.finished} of {run.games} games finished, the rest dropped")
        run.step()
        if on_finished is not None:
            fresh = run.take_finished()
            if fresh:
                on_finished(fresh, run.search.evaluations)
    positions = run.positions()
    return positions, run.stats(len(positions), time.perf_counter() - start)
