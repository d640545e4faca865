"""Stage 3, evaluate: the candidate against pure MCTS at the ladder level ("is it clearly
stronger?") and, optionally, against the champion ("is it not weaker?"), each a
sequential test over rounds of paired games; then against any external engines listed
(`evaluate.engines`), for the rating only. Every game goes to the games table; the
hash of the judged candidate is recorded so that promote acts on this very model."""

from __future__ import annotations

import time
from typing import Any

from pipeline.config import Params
from pipeline.match.arena import GameRecord, play_sequential
from pipeline.match.games_table import replace_generation
from pipeline.match.sprt import SPRT
from pipeline.nets.checkpoint import file_hash
from pipeline.players.factory import make_player
from pipeline.players.search import PurePlayer
from pipeline.runtime.workspace import Paths, derive_seed, load_state, write_json
from pipeline.stages.engine_ladder import play_engine


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
        }
        for r in records
    ]


def run_evaluate(params: Params, paths: Paths, log=print) -> dict[str, Any]:
    state = load_state(paths)
    generation = state.generation + 1
    cfg = params.evaluate
    search = params.selfplay.search.model_copy(
        update={"simulations": cfg.simulations or params.selfplay.search.simulations}
    )
    spec = params.game
    candidate_hash = file_hash(paths.candidate)
    candidate = make_player(str(paths.candidate), spec, search, name="candidate")
    me = generation_name(generation)
    seed = derive_seed(params.seed, generation, 7919)

    def progress(label: str):
        def show(sprt: SPRT) -> None:
            s = sprt.summary()
            log(
                f"candidate vs {label}: {sprt.games} games, score {s['score']:.2f}, "
                f"LLR {s['llr']:+.2f} in [{s['lower_bound']:+.2f}, {s['upper_bound']:+.2f}]"
                + (f" -> {s['decision']}" if s["decision"] else "")
            )

        return show

    start = time.perf_counter()
    level = state.ladder
    vs_pure = play_sequential(
        spec,
        candidate,
        PurePlayer(level),
        cfg.vs_pure,
        seed,
        cfg.opening_plies,
        cfg.pairs_per_round,
        on_round=progress(f"pure:{level}"),
    )
    rows = rows_of(generation, "vs_pure", me, f"pure:{level}", vs_pure.records)
    result: dict[str, Any] = {
        "generation": generation,
        "ladder": level,
        "simulations": search.simulations,
        "candidate_hash": candidate_hash,
        "champion_hash": file_hash(paths.champion),
        "champion_generation": state.champion_generation,
        "vs_pure": vs_pure.summary(),
    }
    if cfg.vs_champion is not None:
        champion = make_player(str(paths.champion), spec, search, name="champion")
        vs_champion = play_sequential(
            spec,
            candidate,
            champion,
            cfg.vs_champion,
            seed + 1,
            cfg.opening_plies,
            cfg.pairs_per_round,
            on_round=progress(f"champion (generation {state.champion_generation})"),
        )
        rows += rows_of(generation, "vs_champion", me, generation_name(state.champion_generation), vs_champion.records)
        result["vs_champion"] = vs_champion.summary()
    for i, engine in enumerate(cfg.engines):  # rated, not part of the gate
        played, result.setdefault("engines", {})[engine.label] = play_engine(
            spec, candidate, engine, seed + 2 + i, cfg.opening_plies, log
        )
        rows += rows_of(generation, "vs_engine", me, engine.label, played)
    if file_hash(paths.candidate) != candidate_hash:
        raise RuntimeError(f"{paths.candidate} changed while it was evaluated: rerun evaluate")
    result["seconds"] = round(time.perf_counter() - start, 2)
    replace_generation(paths.games_table, generation, rows)
    write_json(paths.report("evaluation.json"), result)
    return result
