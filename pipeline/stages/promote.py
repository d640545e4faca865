"""Stage 4, promote. The candidate always becomes the learner (nothing trained is thrown
away); it replaces the champion only when the gate passed for the very file that was
evaluated. A pass registers an MLflow model version with the alias `champion` and moves
the ladder to its next level. Every generation's rating is fitted over the games table.

Idempotent: each step checks whether it is already done, so a promote killed anywhere
and rerun ends in the same state, with one registry version per promoted generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.config import Params
from pipeline.match.games_table import as_results, read_games
from pipeline.match.rating import anchor_elo, fit_ratings
from pipeline.nets.checkpoint import file_hash
from pipeline.runtime.atomic import copy_atomic
from pipeline.runtime.workspace import Paths, load_state, read_json, save_state, write_json
from pipeline.stages.evaluate import generation_name


class PromoteError(RuntimeError):
    """The reports do not fit the models on disk; the message says what to rerun."""


def step(name: str) -> None:
    """Called between the steps of promote; tests replace it to inject a crash."""


def decide(params: Params, evaluation: dict[str, Any]) -> tuple[bool, list[str]]:
    """(passed, reasons): the sequential tests' decisions."""
    reasons = []
    passed = True
    for key, label, meaning in (
        ("vs_pure", f"pure:{evaluation['ladder']}", "clearly stronger"),
        ("vs_champion", f"champion (generation {evaluation.get('champion_generation', '?')})", "not weaker"),
    ):
        match = evaluation.get(key)
        if match is None:
            continue
        t = match["sprt"]
        ok = bool(t["accepted"])
        passed = passed and ok
        how = "cut off at the game limit, " if t["truncated"] else ""
        reasons.append(
            f"vs {label}: {meaning}? {'yes' if ok else 'no'} ({how}{t['games']} games, score {t['score']:.2f}, "
            f"LLR {t['llr']:+.2f}, bounds [{t['lower_bound']:+.2f}, {t['upper_bound']:+.2f}])"
        )
    return passed, reasons


def copy_if_different(source: Path, target: Path, digest: str) -> None:
    if target.is_file() and file_hash(target) == digest:
        return
    copy_atomic(source, target)


def ratings_now(params: Params, paths: Paths) -> dict[str, float]:
    rows = read_games(paths.games_table)
    cfg = params.evaluate
    names = {n for r in rows for n in (r["player"], r["opponent"])}
    anchors = {}
    for n in names:
        elo = anchor_elo(n, cfg.anchor_playouts, cfg.anchor_elo_per_doubling)
        if elo is not None:
            anchors[n] = elo
    return fit_ratings(as_results(rows), anchors)


def strongest_beaten(history: list[dict[str, Any]]) -> int | None:
    levels = [h["ladder"] for h in history if h.get("promoted")]
    return max(levels) if levels else None


def run_promote(params: Params, paths: Paths, tracking_uri: str) -> dict[str, Any]:
    state = load_state(paths)
    evaluation = read_json(paths.report("evaluation.json"))
    selfplay = read_json(paths.report("selfplay.json"))
    train = read_json(paths.report("train.json"))
    generation = evaluation.get("generation")
    rerun = state.generation == generation and bool(state.history) and state.history[-1]["generation"] == generation
    if not rerun and (generation != state.generation + 1 or train.get("generation") != generation):
        raise PromoteError(f"reports are not for generation {state.generation + 1}: rerun the earlier stages")
    digest = evaluation.get("candidate_hash")
    if not paths.candidate.is_file() or file_hash(paths.candidate) != digest:
        raise PromoteError(
            f"{paths.candidate} is not the model that was evaluated (hash {digest}): rerun evaluate "
            "(`zero stage evaluate` or `dvc repro`)"
        )
    passed, reasons = decide(params, evaluation)
    ladder_before = state.history[-1]["ladder"] if rerun else state.ladder

    step("learner")
    copy_if_different(paths.candidate, paths.learner, digest)
    step("champion")
    version = None
    if passed:
        copy_if_different(paths.candidate, paths.champion, digest)
        step("register")
        if params.promote.register_model:
            from pipeline.runtime.tracking import register_champion

            version = register_champion(tracking_uri, params.game, train["run_id"], paths.candidate.name, generation)
    step("state")
    ratings = ratings_now(params, paths)
    rating = ratings.get(generation_name(generation))
    if not rerun:
        if passed:
            state.champion_generation = generation
            state.ladder = params.evaluate.next_level(ladder_before)
        state.generation = generation
        state.games_played += selfplay["games"]
        pure = evaluation["vs_pure"]
        champ = evaluation.get("vs_champion") or {}
        state.history.append(
            {
                "generation": generation,
                "games_played": state.games_played,
                "positions": selfplay["positions"],
                "ladder": ladder_before,
                "vs_pure_score": pure["score"],
                "vs_pure_interval": pure["interval_95"],
                "vs_pure_games": pure["games"],
                "vs_pure_llr": pure["sprt"]["llr"],
                "vs_champion_score": champ.get("score"),
                "vs_champion_games": champ.get("games"),
                "promoted": passed,
                "candidate_hash": digest,
                "rating": None if rating is None else round(rating, 1),
                "train_run_id": train["run_id"],
                "final_loss": train.get("final_loss"),
                "final_policy_entropy": train.get("final_policy_entropy"),
                "seconds": {
                    "selfplay": selfplay["seconds"],
                    "train": train["seconds"],
                    "evaluate": evaluation.get("seconds"),
                },
            }
        )
        save_state(paths, state)
    step("report")
    # The rating of every generation moves as games are added; the history keeps the
    # rating each had when it was promoted or refused, the report refits all of them.
    decision = {
        "generation": generation,
        "promoted": passed,
        "reasons": reasons,
        "ladder_before": ladder_before,
        "ladder_after": state.ladder,
        "candidate_hash": digest,
        "learner_hash": file_hash(paths.learner),
        "champion_generation": state.champion_generation,
        "champion_hash": file_hash(paths.champion),
        "model_version": version,
        "rating": None if rating is None else round(rating, 1),
        "strongest_level_beaten": strongest_beaten(state.history),
        "vs_pure_sprt": evaluation["vs_pure"]["sprt"],
        "vs_champion_sprt": (evaluation.get("vs_champion") or {}).get("sprt"),
    }
    write_json(paths.report("promotion.json"), decision)
    from pipeline.runtime.tracking import generation_tags, log_strength

    sprt = evaluation["vs_pure"]["sprt"]
    strength = {
        "vs_pure_score": evaluation["vs_pure"]["score"],
        "vs_pure_games": sprt["games"],
        "vs_pure_llr": sprt["llr"],
        "vs_pure_llr_lower": sprt["lower_bound"],
        "vs_pure_llr_upper": sprt["upper_bound"],
        "vs_pure_accepted": float(sprt["accepted"]),
        "ladder": ladder_before,
        "games_played": state.games_played,
        "promoted": float(passed),
    }
    if rating is not None:
        strength["rating"] = rating
    if "vs_champion" in evaluation:
        c = evaluation["vs_champion"]["sprt"]
        strength.update(
            vs_champion_score=evaluation["vs_champion"]["score"], vs_champion_games=c["games"], vs_champion_llr=c["llr"]
        )
    log_strength(tracking_uri, params.game, generation, strength, generation_tags(paths.root, generation))
    return decision
