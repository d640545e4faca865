"""Stage 4, promote. The candidate always becomes the learner (nothing trained is thrown
away); it replaces the champion only when the gate passed for the very file that was
evaluated. A pass registers an MLflow model version with the alias `champion` and moves
the ladder to its next level. Every generation's rating is fitted over the games table.

The figures it writes (reports/promotion.json, the MLflow `strength` run) use one set of
names: `beaten` the strongest pure-MCTS level a promoted generation has beaten so far (0:
none yet) and `rating` this generation's Bradley-Terry estimate (a point estimate from the
games it played; see `rating_fit`), in both; `level_played` the level this candidate
faced and `next_level` the level the next candidate faces, in MLflow (and in the details
as `ladder_before` and `ladder_after`).

Idempotent: each step checks whether it is already done, so a promote killed anywhere
and rerun ends in the same state, with one registry version per promoted generation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.config import Params
from pipeline.match.games_table import as_results, read_games
from pipeline.match.rating import anchor_elo, fit_ratings
from pipeline.nets.checkpoint import file_hash
from pipeline.runtime import earlier_champions
from pipeline.runtime.atomic import copy_atomic
from pipeline.runtime.workspace import Paths, State, load_state, save_state
from pipeline.stages.evaluate import generation_name
from pipeline.stages.interface import (
    EvaluationReport,
    PromotionReport,
    SelfplayReport,
    StageContext,
    StageError,
    TrainReport,
    read_report,
    write_report,
)


class PromoteError(StageError):
    """The reports do not fit the models on disk; the message says what to rerun."""


def decide(evaluation: EvaluationReport) -> tuple[bool, list[str]]:
    """(passed, reasons): the sequential tests' decisions."""
    reasons = []
    passed = True
    for _, opponent, meaning, match in evaluation.gate():
        t = match.sprt
        passed = passed and t.accepted
        how = "cut off at the game limit, " if t.truncated else ""
        reasons.append(
            f"vs {opponent}: {meaning}? {'yes' if t.accepted else 'no'} ({how}{t.games} games, score {t.score:.2f}, "
            f"LLR {t.llr:+.2f}, bounds [{t.lower_bound:+.2f}, {t.upper_bound:+.2f}])"
        )
    return passed, reasons


def copy_if_different(source: Path, target: Path, digest: str) -> None:
    if target.is_file() and file_hash(target) == digest:
        return
    copy_atomic(source, target)


def ratings_now(params: Params, paths: Paths) -> dict[str, float]:
    return rating_fit(params, paths)[0]


def rating_fit(params: Params, paths: Paths) -> tuple[dict[str, float], dict[str, float]]:
    """Every player's rating over the games table, the pure-MCTS levels fixed at their
    conventional ratings, and each rating's standard error (Elo; 0 for the anchors).

    A rating is a point estimate from the games the player played: a generation that met
    only pure:500 is placed by its score there, with one virtual draw so a sweep stays
    finite. 10 wins of 10 put it 400 log10(10.5 / 0.5) = 529 Elo above pure:500 (-100),
    at +429, above pure:1000 (0), a level it never played; the standard error (251 Elo
    for those ten games, a 95% interval of +-493) says how loosely they place it. The
    ladder's `beaten` is the other figure: what the sequential test certified."""
    from pipeline.match.crosstable import rating_errors

    rows = read_games(paths.games_table)
    cfg = params.evaluate
    names = {n for r in rows for n in (r["player"], r["opponent"])}
    anchors = {}
    for n in names:
        elo = anchor_elo(n, cfg.anchor_playouts, cfg.anchor_elo_per_doubling)
        if elo is not None:
            anchors[n] = elo
    games = as_results(rows)
    ratings = fit_ratings(games, anchors)
    if not anchors:
        return ratings, {}
    return ratings, rating_errors(games, ratings, anchors)


def strongest_beaten(history: list[dict[str, Any]]) -> int | None:
    levels = [h["ladder"] for h in history if h.get("promoted")]
    return max(levels) if levels else None


@dataclass
class Promotion:
    """What promote acts on: the earlier stages' reports, checked against the state and
    the candidate on disk, and the gate's decision."""

    state: State
    selfplay: SelfplayReport
    train: TrainReport
    evaluation: EvaluationReport
    rerun: bool  # this generation is already in the state: a promote killed after "state"
    passed: bool
    reasons: list[str]
    ladder_before: int

    @property
    def generation(self) -> int:
        return self.evaluation.generation

    @property
    def digest(self) -> str:
        return self.evaluation.candidate_hash


def prepare(paths: Paths) -> Promotion:
    state = load_state(paths)
    evaluation = read_report(paths, EvaluationReport)
    selfplay = read_report(paths, SelfplayReport)
    train = read_report(paths, TrainReport)
    generation = evaluation.generation
    rerun = state.generation == generation and bool(state.history) and state.history[-1]["generation"] == generation
    if not rerun and (generation != state.generation + 1 or train.generation != generation):
        raise PromoteError(f"reports are not for generation {state.generation + 1}: rerun the earlier stages")
    digest = evaluation.candidate_hash
    if not paths.candidate.is_file() or file_hash(paths.candidate) != digest:
        raise PromoteError(
            f"{paths.candidate} is not the model that was evaluated (hash {digest}): rerun evaluate "
            "(`zero stage evaluate` or `dvc repro`)"
        )
    passed, reasons = decide(evaluation)
    ladder_before = state.history[-1]["ladder"] if rerun else state.ladder
    return Promotion(state, selfplay, train, evaluation, rerun, passed, reasons, ladder_before)


def history_entry(p: Promotion, rating: float | None) -> dict[str, Any]:
    """The generation's line in the state's history (`classical_beaten` only when the
    classical ladder was climbed: the deepest depth beaten, 0 for none)."""
    pure, champ, train = p.evaluation.vs_pure, p.evaluation.vs_champion, p.train
    classical = p.evaluation.classical
    extra = {} if classical is None else {"classical_beaten": classical.deepest_beaten or 0}
    return {
        "generation": p.generation,
        "games_played": p.state.games_played,
        "positions": p.selfplay.positions,
        "ladder": p.ladder_before,
        "vs_pure_score": pure.score,
        "vs_pure_interval": pure.interval_95,
        "vs_pure_games": pure.games,
        "vs_pure_llr": pure.sprt.llr,
        "vs_champion_score": champ.score if champ else None,
        "vs_champion_games": champ.games if champ else None,
        **earlier_entry(p.evaluation),
        "promoted": p.passed,
        "candidate_hash": p.digest,
        "rating": None if rating is None else round(rating, 1),
        "train_run_id": train.run_id,
        "final_loss": train.final_loss,
        "final_policy_entropy": train.final_policy_entropy,
        "seconds": {"selfplay": p.selfplay.seconds, "train": train.seconds, "evaluate": p.evaluation.seconds},
        **extra,
    }


def earlier_entry(evaluation: EvaluationReport) -> dict[str, Any]:
    """The match against an earlier champion in the history (nothing when none was played)."""
    if evaluation.vs_earlier is None:
        return {}
    return {"vs_earlier_score": evaluation.vs_earlier.score, "vs_earlier_generation": evaluation.earlier_generation}


def advance_state(params: Params, paths: Paths, p: Promotion, rating: float | None) -> None:
    """Once per generation (not on a rerun): the generation, the champion and the ladder
    move on, and the history gets its line."""
    if p.rerun:
        return
    state = p.state
    if p.passed:
        state.champion_generation = p.generation
        state.ladder = params.evaluate.next_level(p.ladder_before)
    state.generation = p.generation
    state.games_played += p.selfplay.games
    state.history.append(history_entry(p, rating))
    save_state(paths, state)


def crown(context: StageContext, p: Promotion, between_steps: Callable[[str], None]) -> str | None:
    """On a pass: the candidate becomes the champion and, if asked, a registered model
    version. Returns the version."""
    if not p.passed:
        return None
    paths = context.paths
    earlier = context.params.evaluate.vs_earlier
    if earlier is not None and file_hash(paths.champion) != p.digest:
        # The champion it replaces, before it is replaced (a rerun finds it replaced already).
        earlier_champions.keep(paths, p.state.champion_generation, paths.champion, earlier.back)
    copy_if_different(paths.candidate, paths.champion, p.digest)
    if earlier is not None:
        earlier_champions.keep(paths, p.generation, paths.champion, earlier.back)
    between_steps("register")
    if not context.params.promote.register_model:
        return None
    from pipeline.runtime.tracking import register_champion

    return register_champion(
        context.tracking_uri, context.params.game, p.train.run_id, paths.candidate.name, p.generation
    )


def decision(paths: Paths, p: Promotion, version: str | None, rating: float | None) -> PromotionReport:
    # The rating of every generation moves as games are added; the history keeps the
    # rating each had when it was promoted or refused, the report refits all of them.
    champ = p.evaluation.vs_champion
    return PromotionReport(
        generation=p.generation,
        promoted=p.passed,
        reasons=p.reasons,
        ladder_before=p.ladder_before,
        ladder_after=p.state.ladder,
        candidate_hash=p.digest,
        learner_hash=file_hash(paths.learner),
        champion_generation=p.state.champion_generation,
        champion_hash=file_hash(paths.champion),
        model_version=version,
        rating=None if rating is None else round(rating, 1),
        strongest_level_beaten=strongest_beaten(p.state.history),
        vs_pure_sprt=p.evaluation.vs_pure.sprt,
        vs_champion_sprt=champ.sprt if champ else None,
    )


def log_strength_of(context: StageContext, p: Promotion, rating: float | None) -> None:
    """The generation's strength in MLflow's long-lived `strength` run."""
    from pipeline.runtime.tracking import generation_tags, log_strength

    pure = p.evaluation.vs_pure
    sprt = pure.sprt
    strength = {
        "vs_pure_score": pure.score,
        "vs_pure_games": sprt.games,
        "vs_pure_llr": sprt.llr,
        "vs_pure_llr_lower": sprt.lower_bound,
        "vs_pure_llr_upper": sprt.upper_bound,
        "vs_pure_accepted": float(sprt.accepted),
        # The names of reports/promotion.json (see the module's docstring).
        "level_played": p.ladder_before,
        "beaten": strongest_beaten(p.state.history) or 0,
        "next_level": p.state.ladder,
        "games_played": p.state.games_played,
        "promoted": float(p.passed),
    }
    if rating is not None:
        strength["rating"] = rating
    if p.evaluation.classical is not None:
        strength["classical_depth_beaten"] = p.evaluation.classical.deepest_beaten or 0
    champ = p.evaluation.vs_champion
    if champ is not None:
        strength.update(
            vs_champion_score=champ.score, vs_champion_games=champ.sprt.games, vs_champion_llr=champ.sprt.llr
        )
    root = context.paths.root
    log_strength(context.tracking_uri, context.params.game, p.generation, strength, generation_tags(root, p.generation))


def no_pause(step: str) -> None:
    """The default `between_steps`: nothing happens between the steps."""


def run(context: StageContext, between_steps: Callable[[str], None] = no_pause) -> PromotionReport:
    """`between_steps(name)` is called before each step ("learner", "champion",
    "register", "state", "report"); a test passes one that raises, to kill promote there."""
    params, paths = context.params, context.paths
    p = prepare(paths)
    between_steps("learner")
    copy_if_different(paths.candidate, paths.learner, p.digest)
    between_steps("champion")
    version = crown(context, p, between_steps)
    between_steps("state")
    rating = ratings_now(params, paths).get(generation_name(p.generation))
    advance_state(params, paths, p, rating)
    between_steps("report")
    report = decision(paths, p, version, rating)
    write_report(paths, report)
    log_strength_of(context, p, rating)
    return report
