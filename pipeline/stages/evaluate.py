"""Stage 3, evaluate: the candidate against pure MCTS at the ladder level and against the
champion; colours alternate, each opening is played with both colours."""

from __future__ import annotations

from typing import Any

from pipeline.arena import play_match
from pipeline.config import Params
from pipeline.players import NetPlayer, PurePlayer
from pipeline.workspace import Paths, derive_seed, load_state, write_json


def run_evaluate(params: Params, paths: Paths, log=print) -> dict[str, Any]:
    state = load_state(paths)
    generation = state.generation + 1
    cfg = params.evaluate
    search = params.selfplay.search.model_copy(
        update={"simulations": cfg.simulations or params.selfplay.search.simulations}
    )
    spec = params.game
    candidate = NetPlayer.from_checkpoint(paths.candidate, spec, search, name="candidate")
    seed = derive_seed(params.seed, generation, 7919)
    vs_pure = play_match(spec, candidate, PurePlayer(state.ladder), cfg.games, seed, cfg.opening_plies)
    log(f"candidate vs pure:{state.ladder}: {vs_pure.wins}-{vs_pure.losses}-{vs_pure.draws}")
    result: dict[str, Any] = {
        "generation": generation,
        "ladder": state.ladder,
        "simulations": search.simulations,
        "vs_pure": vs_pure.summary(),
    }
    if cfg.champion_games > 0:
        champion = NetPlayer.from_checkpoint(paths.champion, spec, search, name="champion")
        vs_champion = play_match(spec, candidate, champion, cfg.champion_games, seed + 1, cfg.opening_plies)
        log(f"candidate vs champion: {vs_champion.wins}-{vs_champion.losses}-{vs_champion.draws}")
        result["vs_champion"] = vs_champion.summary()
    write_json(paths.report("evaluation.json"), result)
    return result
