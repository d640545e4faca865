"""Stage 4, promote: the gate. A candidate that passes replaces the champion, is
registered in MLflow with the alias `champion`, and a clean sweep raises the ladder. The
generation counter advances whatever the decision, so the next iteration is new work."""

from __future__ import annotations

import shutil
from typing import Any

from pipeline.config import Params
from pipeline.nets.checkpoint import file_hash, load_checkpoint
from pipeline.workspace import Paths, load_state, read_json, save_state, write_json


def decide(params: Params, evaluation: dict[str, Any]) -> tuple[bool, bool, list[str]]:
    """(passed, clean sweep, reasons)."""
    cfg = params.promote
    reasons = []
    pure = evaluation["vs_pure"]
    passed = True
    if pure["score"] >= cfg.min_vs_pure:
        reasons.append(f"vs pure:{evaluation['ladder']}: score {pure['score']:.2f} >= {cfg.min_vs_pure}")
    else:
        passed = False
        reasons.append(f"vs pure:{evaluation['ladder']}: score {pure['score']:.2f} < {cfg.min_vs_pure}")
    champ = evaluation.get("vs_champion")
    if champ is not None:
        if champ["score"] >= cfg.min_vs_champion:
            reasons.append(f"vs champion: score {champ['score']:.2f} >= {cfg.min_vs_champion}")
        else:
            passed = False
            reasons.append(f"vs champion: score {champ['score']:.2f} < {cfg.min_vs_champion}")
    sweep = pure["wins"] == pure["games"]
    return passed, sweep, reasons


def run_promote(params: Params, paths: Paths, tracking_uri: str) -> dict[str, Any]:
    state = load_state(paths)
    generation = state.generation + 1
    evaluation = read_json(paths.report("evaluation.json"))
    selfplay = read_json(paths.report("selfplay.json"))
    train = read_json(paths.report("train.json"))
    if evaluation.get("generation") != generation or train.get("generation") != generation:
        raise RuntimeError(f"reports are not for generation {generation}: rerun the earlier stages")
    passed, sweep, reasons = decide(params, evaluation)
    ladder_before = state.ladder
    version = None
    if passed:
        load_checkpoint(paths.candidate, params.game)  # never promote an unreadable file
        tmp = paths.champion.with_suffix(".pt.tmp")
        shutil.copyfile(paths.candidate, tmp)
        tmp.replace(paths.champion)
        state.champion_generation = generation
        if params.promote.register_model:
            from pipeline.tracking import register_champion

            version = register_champion(tracking_uri, params.game, train["run_id"], paths.candidate.name, generation)
        if sweep and params.promote.raise_on_sweep:
            state.ladder += params.evaluate.ladder_step
    state.generation = generation
    state.games_played += selfplay["games"]
    state.history.append(
        {
            "generation": generation,
            "games_played": state.games_played,
            "positions": selfplay["positions"],
            "ladder": ladder_before,
            "vs_pure_score": evaluation["vs_pure"]["score"],
            "vs_pure_interval": evaluation["vs_pure"]["interval_95"],
            "vs_champion_score": evaluation.get("vs_champion", {}).get("score"),
            "promoted": passed,
            "sweep": sweep,
            "train_run_id": train["run_id"],
            "final_loss": train.get("final_loss"),
            "final_policy_entropy": train.get("final_policy_entropy"),
            "seconds": {"selfplay": selfplay["seconds"], "train": train["seconds"]},
        }
    )
    decision = {
        "generation": generation,
        "promoted": passed,
        "sweep": sweep,
        "reasons": reasons,
        "ladder_before": ladder_before,
        "ladder_after": state.ladder,
        "champion_generation": state.champion_generation,
        "champion_hash": file_hash(paths.champion),
        "model_version": version,
    }
    save_state(paths, state)
    write_json(paths.report("promotion.json"), decision)
    from pipeline.tracking import log_strength

    strength = {
        "vs_pure_score": evaluation["vs_pure"]["score"],
        "vs_pure_elo": evaluation["vs_pure"]["elo"],
        "ladder": ladder_before,
        "games_played": state.games_played,
        "promoted": float(passed),
    }
    if "vs_champion" in evaluation:
        strength["vs_champion_score"] = evaluation["vs_champion"]["score"]
    log_strength(tracking_uri, params.game, generation, strength)
    return decision
