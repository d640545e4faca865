"""Stage 3, evaluate: the candidate against pure MCTS at the ladder level ("is it clearly
stronger?") and, optionally, against the champion ("is it not weaker?") and against the
champion of a few promotions ago ("is it clearly stronger?", `evaluate.vs_earlier`), each
a sequential test over rounds of paired games; then against any external engines listed
(`evaluate.engines`) and up the classical ladder (`evaluate.classical_ladder`), for the
rating and the report only. Every game goes to the games table; the hash of the judged
candidate is recorded so that promote acts on this very model."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pipeline.match.arena import GameRecord, play_sequential
from pipeline.match.games_table import replace_generation
from pipeline.match.openings import OpeningSource, Suite, resolve_suite
from pipeline.match.sprt import SPRT, SPRTConfig
from pipeline.nets.checkpoint import file_hash
from pipeline.players.base import Player
from pipeline.players.factory import make_player
from pipeline.players.search import PurePlayer
from pipeline.runtime import earlier_champions, interrupt
from pipeline.runtime.workspace import derive_seed, load_state
from pipeline.stages.engine_ladder import classical_name, play_classical, play_engine
from pipeline.stages.interface import (
    ClassicalLadder,
    EngineMatch,
    EvaluationReport,
    MatchReport,
    SkippedEngine,
    StageContext,
    write_report,
)


def generation_name(generation: int) -> str:
    """How a generation's candidate is named in the games table and the rating."""
    return f"gen-{generation:04d}"


def rows_of(generation: int, match: str, player: str, opponent: str, records: list[GameRecord]) -> list[dict]:
    return [
        {
            "generation": generation,
            "match": match,
            "game": r.index,
            "pair": r.pair,
            "player": player,
            "opponent": opponent,
            "player_first": r.player_first,
            "score": r.score,
            "plies": r.plies,
            "opening": " ".join(map(str, r.opening)),
            "reason": r.reason,
            "proof": r.proof,
        }
        for r in records
    ]


def announce(log: Callable[[str], None], label: str) -> Callable[[SPRT], None]:
    """A progress line after each round of a sequential test."""

    def show(sprt: SPRT) -> None:
        s = sprt.summary()
        log(
            f"candidate vs {label}: {sprt.games} games, score {s['score']:.2f}, "
            f"LLR {s['llr']:+.2f} in [{s['lower_bound']:+.2f}, {s['upper_bound']:+.2f}]"
            + (f" -> {s['decision']}" if s["decision"] else "")
        )

    return show


@dataclass
class Matches:
    """The matches of one evaluation as they are played: the games table's rows, and the
    setting every match shares."""

    context: StageContext
    candidate: Player
    generation: int
    seed: int
    rows: list[dict] = field(default_factory=list)
    suite: Suite | None = None  # the opening suite every match plays from (None: random openings)

    def sequential(
        self, match: str, opponent: Player, label: str, test: SPRTConfig, seed: int, name: str
    ) -> MatchReport:
        """A sequential test against `opponent` (`name` in the games table, `label` in the log)."""
        cfg = self.context.params.evaluate
        # A Ctrl-C stops the match between moves (`should_stop`), not at whatever line the
        # signal lands on: raised mid-search, the stop could leave the forward thread
        # running on the search's buffers as the process wound down. CI saw the stage die
        # of a SIGSEGV 0.03 s after a Ctrl-C there (2026-12-06).
        with interrupt.cooperative():
            result = play_sequential(
                self.context.params.game,
                self.candidate,
                opponent,
                test,
                seed,
                cfg.opening_plies,
                cfg.pairs_per_round,
                on_round=announce(self.context.log, label),
                openings=self.openings(seed),
                should_stop=interrupt.requested,
            )
        self.rows += rows_of(self.generation, match, generation_name(self.generation), name, result.records)
        return MatchReport.model_validate(result.summary())

    def openings(self, seed: int) -> OpeningSource:
        cfg = self.context.params.evaluate
        return OpeningSource(self.context.params.game, self.suite, cfg.opening_plies, np.random.default_rng(seed))

    def engines(self) -> dict[str, EngineMatch | SkippedEngine] | None:
        """The external engines, for the rating only (not part of the gate)."""
        cfg = self.context.params.evaluate
        results = {}
        for i, engine in enumerate(cfg.engines):
            played, summary = play_engine(
                self.context.params.game,
                self.candidate,
                engine,
                self.seed + 2 + i,
                cfg.opening_plies,
                self.context.log,
                suite=self.suite,
            )
            results[engine.label] = (SkippedEngine if "skipped" in summary else EngineMatch).model_validate(summary)
            self.rows += rows_of(self.generation, "vs_engine", generation_name(self.generation), engine.label, played)
        return results or None

    def classical(self) -> ClassicalLadder | None:
        """The classical ladder, for the rating and the report (not part of the gate)."""
        cfg = self.context.params.evaluate
        if not cfg.classical_ladder:
            return None
        played, summary = play_classical(
            self.context.params.game,
            self.candidate,
            cfg.classical_ladder,
            cfg.classical_games,
            self.seed + 101,
            cfg.opening_plies,
            self.context.log,
            suite=self.suite,
        )
        for depth, records in played.items():
            name = classical_name(depth)
            self.rows += rows_of(self.generation, "vs_classical", generation_name(self.generation), name, records)
        return ClassicalLadder.model_validate(summary)


def run(context: StageContext) -> EvaluationReport:
    params, paths = context.params, context.paths
    state = load_state(paths)
    generation = state.generation + 1
    cfg = params.evaluate
    search = params.selfplay.search.model_copy(
        update={"simulations": cfg.simulations or params.selfplay.search.simulations}
    )
    candidate_hash = file_hash(paths.candidate)
    candidate = make_player(str(paths.candidate), params.game, search, name="candidate")
    seed = derive_seed(params.seed, generation, 7919)
    matches = Matches(context, candidate, generation, seed, suite=resolve_suite(params.game, cfg.openings))
    start = time.perf_counter()
    level = state.ladder
    vs_pure = matches.sequential("vs_pure", PurePlayer(level), f"pure:{level}", cfg.vs_pure, seed, f"pure:{level}")
    vs_champion = None
    if cfg.vs_champion is not None:
        champion = make_player(str(paths.champion), params.game, search, name="champion")
        label = f"champion (generation {state.champion_generation})"
        name = generation_name(state.champion_generation)
        vs_champion = matches.sequential("vs_champion", champion, label, cfg.vs_champion, seed + 1, name)
    vs_earlier, earlier = None, None
    if cfg.vs_earlier is not None:
        earlier = earlier_champions.opponent(paths, state.champion_generation)
        if earlier is None:
            context.log("no earlier champion kept yet (models/earlier/): the gate plays none")
        else:
            player = make_player(str(earlier[1]), params.game, search, name="earlier")
            label, name = f"earlier champion (generation {earlier[0]})", generation_name(earlier[0])
            vs_earlier = matches.sequential("vs_earlier", player, label, cfg.vs_earlier, seed + 3, name)
    engines = matches.engines()
    classical = matches.classical()
    if file_hash(paths.candidate) != candidate_hash:
        raise RuntimeError(f"{paths.candidate} changed while it was evaluated: rerun evaluate")
    report = EvaluationReport(
        generation=generation,
        ladder=level,
        simulations=search.simulations,
        candidate_hash=candidate_hash,
        champion_hash=file_hash(paths.champion),
        champion_generation=state.champion_generation,
        vs_pure=vs_pure,
        vs_champion=vs_champion,
        vs_earlier=vs_earlier,
        earlier_generation=None if earlier is None else earlier[0],
        engines=engines,
        classical=classical,
        seconds=round(time.perf_counter() - start, 2),
    )
    replace_generation(paths.games_table, generation, matches.rows)
    write_report(paths, report)
    return report
